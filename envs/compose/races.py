"""The `races` env: live sampling of composite problems, difficulty = composition size.

    env = envs.make("races", pool="base50", operators={"sequential": 1, "sort": 1}, partial_weight=0.5)
    rec = env.generate(seed=3, difficulty=4)   # a 4-step chain turned into a problem by one operator
    rec = env.generate(seed=3)                 # difficulty 0: a size drawn from min_size..max_size

Every problem starts from a fresh input drawn from the first brick's sampler (the paper's "the
sampler provides an unlimited stream", races line 35). min_size=max_size=1 gives single bricks:
the paper's RL_individual baseline (races line 43).

Reward: exact (1/0) + partial_weight * partial, partial being the share of correct intermediate
states or threads (see operators.py). The paper's reward is binary, so partial_weight is 0 by
default; `correct` is exact only. Answers are JSON inside the last <answer></answer> block.
"""
from __future__ import annotations

import json
import random

from envs.base import Env, Reward, extract_answer
from envs.compose.bricks import BRICKS, pool_bricks
from envs.compose.filters import Limits
from envs.compose.operators import OPERATORS, Problem
from envs.compose.search import Pool
from envs.compose.types import canon

PAPER_OPERATORS = {"sequential": 1.0, "parallel": 1.0, "sort": 1.0, "select": 1.0, "branch": 0.0, "loop": 0.0}
MIN_SIZE, MAX_SIZE = 2, 6  # paper: paths shorter than 2 are rejected (races line 65); sizes 2..6 (line 49)
MAX_ANSWER_CHARS = 20_000  # a longer <answer> is not parsed, so scoring time stays bounded
ATTEMPTS = 50


def make_record(rid: str, operator: str, size: int, problem: Problem, seed: int | None) -> dict:
    gold = f"<reasoning>\n{problem.trace}\n</reasoning>\n<answer>{json.dumps(problem.gold, ensure_ascii=False)}</answer>"
    return {"id": rid, "env": "races", "difficulty": size, "prompt": problem.prompt, "answer": gold,
            "meta": {"operator": operator, **problem.meta, "seed": seed}}


def parse_answer(response: str) -> tuple[object, str]:
    """(parsed JSON of the last <answer> block, "") or (None, why not)."""
    text = extract_answer(response)
    if text is None:
        return None, "no <answer></answer> block"
    if len(text) > MAX_ANSWER_CHARS:
        return None, f"answer longer than {MAX_ANSWER_CHARS} characters"
    try:
        value = json.loads(text)
        canon(value)  # what grading does to it: fails here, not later, on absurd nesting
        return value, ""
    except (ValueError, RecursionError):  # JSONDecodeError, over-long integers, absurd nesting
        return None, "answer is not valid JSON"


class RacesEnv(Env):
    name = "races"

    def __init__(self, pool: str | list[str] = "all", pool_size: int = 0, operators: dict | None = None,
                 partial_weight: float = 0.0, max_steps: int = 400, timeout_s: float = 2.0,
                 min_size: int = MIN_SIZE, max_size: int = MAX_SIZE):
        self.operators = dict(PAPER_OPERATORS if operators is None else operators)
        unknown = [k for k in self.operators if k not in OPERATORS]
        if unknown or any(w < 0 for w in self.operators.values()) or not any(self.operators.values()):
            raise ValueError(f"races: operators must map names in {list(OPERATORS)} to weights >= 0, "
                             f"not all 0; got {self.operators}")
        if max_steps < 1 or timeout_s <= 0 or partial_weight < 0:
            raise ValueError(f"races: need max_steps >= 1, timeout_s > 0 and partial_weight >= 0; got {max_steps}, "
                             f"{timeout_s}, {partial_weight}")
        if not 1 <= min_size <= max_size <= MAX_SIZE:
            raise ValueError(f"races: need 1 <= min_size <= max_size <= {MAX_SIZE}; got {min_size}, {max_size}")
        self.min_size, self.max_size = min_size, max_size
        self.pool = Pool(pool_bricks(pool, pool_size), Limits(max_steps, timeout_s))
        self.pool.known = {**BRICKS, **self.pool.bricks}  # records of any pool score here
        self.partial_weight = float(partial_weight)
        self.reward_range = (0.0, 1.0 + self.partial_weight)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        rng = random.Random(seed)
        size = max(self.min_size, min(self.max_size, int(difficulty))) if difficulty > 0 else \
            rng.randint(self.min_size, self.max_size)
        names = [k for k, w in self.operators.items() if w > 0]
        weights = [self.operators[k] for k in names]
        op = OPERATORS[rng.choices(names, weights)[0]]
        for _ in range(ATTEMPTS):  # the operator is drawn once, so failures do not skew the mix
            chain = self.pool.walk(rng, size, endo=op.endo, stay=op.stay)
            problem = chain and op.build(rng, self.pool, chain)
            if problem:
                return make_record(f"races-{op.name}-{size}-{seed}", op.name, size, problem, seed)
        raise RuntimeError(f"races: no {size}-step {op.name} problem from this pool in {ATTEMPTS} attempts "
                           f"(seed {seed})")

    def score(self, record: dict, response: str) -> Reward:
        meta = record["meta"]
        op = OPERATORS.get(meta.get("operator"))
        if op is None:
            raise ValueError(f"record {record.get('id')}: unknown races operator {meta.get('operator')!r}")
        answer, reason = parse_answer(response)
        exact, partial = 0, 0.0
        if not reason:
            try:
                exact, partial, reason = op.score(meta, answer, self.pool)
            except (KeyError, IndexError, TypeError) as e:  # the answer is checked first: this is the record
                raise ValueError(f"record {record.get('id')}: malformed races meta ({type(e).__name__}: {e})") from None
        parts = {"exact": float(exact), "partial": float(partial)}
        if reason:
            parts["reason"] = reason
        return Reward(value=exact + self.partial_weight * partial, correct=bool(exact), parts=parts)
