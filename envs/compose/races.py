"""The `races` env: live sampling of composite problems, difficulty = composition size.

    env = envs.make("races", pool="races50", operators={"sequential": 1, "sort": 1}, partial_weight=0.5)
    rec = env.generate(seed=3, difficulty=4)   # a 4-step chain turned into a problem by one operator
    rec = env.generate(seed=3)                 # difficulty 0: a size drawn from min_size..max_size

Composites come from the paper's construction (races line 37): on first use the env runs the
frontier-based search (envs/compose/search.py: randomized BFS with usage-budget weighting, the
Appendix D filter online) until it holds `composites` distinct composites of sizes min_size..max_size
(deterministic in search_seed; the same in every rank and on resume). Each problem takes one of them
of the drawn size, suited to the drawn operator (SORT: steps that type-check in two orders or more;
an operator that no composite of that size suits is not drawn for it), and runs it on a fresh input drawn from the first brick's sampler (the paper's "the sampler provides
an unlimited stream", races line 35); PARALLEL's other threads come from the same bank.
sampling="walk" draws each chain by a random walk instead (not the paper's; earlier versions did).
min_size=max_size=1 gives single bricks: the paper's RL_individual baseline (races line 43).

Reward: exact (1/0) + partial_weight * partial, partial being the share of correct intermediate
states or threads (see operators.py). The RACES summary does not state its reward (races.txt names only
"training rewards", line 47); our choice: partial_weight 0 by default, a 0/1 exact-match reward like the
verifiable environments it builds on (line 29), so a composite counts only when every step is right, and
`correct` is exact only. Answers are JSON inside the last <answer></answer> block.
"""
from __future__ import annotations

import json
import random

from envs.base import Env, Reward, extract_answer
from envs.compose.bricks import BRICKS, resolve_pool
from envs.compose.filters import Limits
from envs.compose.operators import OPERATORS, Problem
from envs.compose.search import Pool, SearchConfig, bank_for
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
                 min_size: int = MIN_SIZE, max_size: int = MAX_SIZE, brick_dirs: list | tuple = (),
                 sampling: str = "search", composites: int = 20_000, search_seed: int = 0, extensions: int = 3,
                 usage_power: float = 1.0):
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
        if sampling not in ("search", "walk") or composites < 1 or extensions < 1 or usage_power < 0:
            raise ValueError(f"races: need sampling in (search, walk), composites >= 1, extensions >= 1 and "
                             f"usage_power >= 0; got {sampling!r}, {composites}, {extensions}, {usage_power}")
        self.min_size, self.max_size = min_size, max_size
        from envs.compose.llm_bricks import load_bricks

        loaded = [b for d in brick_dirs for b in load_bricks(d)]  # model-written: they run in the sandbox
        self.pool = Pool(resolve_pool(pool, pool_size, loaded), Limits(max_steps, timeout_s))
        self.sampling = sampling
        self.search_cfg = SearchConfig(min_size, max_size, target=composites, max_seconds=600.0, extensions=extensions,
                                       usage_power=usage_power)
        self.search_seed, self._bank_key = search_seed, tuple(str(d) for d in brick_dirs)
        self.pool.known = {**BRICKS, **self.pool.bricks}  # records of any pool score here
        self.partial_weight = float(partial_weight)
        self.reward_range = (0.0, 1.0 + self.partial_weight)

    def bank(self):
        """The composites live sampling draws from (the search runs on first use, then is cached)."""
        if self.pool.bank is None:
            self.pool.bank = bank_for(self.pool, self.search_cfg, self.search_seed, self._bank_key)
            r = self.pool.bank.result
            if r.stopped == "time":
                import sys

                print(f"races: the composite search hit its time limit ({len(r.composites)} composites): the bank "
                      f"depends on this machine's speed; lower `composites`", file=sys.stderr, flush=True)
        return self.pool.bank

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        rng = random.Random(seed)
        size = max(self.min_size, min(self.max_size, int(difficulty))) if difficulty > 0 else \
            rng.randint(self.min_size, self.max_size)
        bank = self.bank() if self.sampling == "search" else None
        names = [k for k, w in self.operators.items() if w > 0]
        if bank is not None:  # the paper instantiates found composites: an operator no composite of this size suits
            names = [k for k in names if bank.suited(size, OPERATORS[k])] or names  # (SORT at size 2) is not drawn
        weights = [self.operators[k] for k in names]
        op = OPERATORS[rng.choices(names, weights)[0]]
        for _ in range(ATTEMPTS):  # the operator is drawn once, so failures do not skew the mix
            if bank is not None:
                chain = bank.draw(rng, size, op)
            else:
                chain = self.pool.walk(rng, size, endo=op.endo, stay=op.stay)
            problem = chain and op.build(rng, self.pool, chain)
            if problem:
                return make_record(f"races-{op.name}-{size}-{seed}", op.name, size, problem, seed)
        found = f" (the bank holds {len(bank.suited(size, op))} suited {size}-step composites)" if bank else ""
        raise RuntimeError(f"races: no {size}-step {op.name} problem from this pool in {ATTEMPTS} attempts "
                           f"(seed {seed}){found}")

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
