"""What every gym env shares: the record, the retry loop, answer parsing and reward helpers.

A gym env (RLVE: "Scaling Up RL for Language Models with Adaptive Verifiable Environments")
maps an integer difficulty d >= 0, with no upper bound, to problem parameters, and rewards an
answer with a value in [-1, 1]: -1 when the final <answer></answer> block is missing or
unparsable, more when it is closer to right, and `correct` once the value reaches the env's
`threshold` (1.0 unless stated). A subclass supplies:

    size(d)              a size measure of the problems at difficulty d (non-decreasing in d)
    build(rng, d)        -> (problem, gold): problem is JSON-able and holds everything needed to
                         write the prompt and verify an answer; gold is the text of a correct
                         answer (what goes inside the answer tags) or None. Raise Retry to
                         discard a draw; the same rng draws again, at most MAX_TRIES times.
    prompt(problem)      the full user message
    reward(problem, a)   a = text inside the last answer block; raise ValueError when it cannot
                         be parsed (int() and float() already do), which scores -1

The record's meta is {"seed": int, "problem": "<problem as a JSON string>"}: one schema for all
gym envs, so records of different envs mix in one JSONL shard that datasets.load_dataset reads.
"""
from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from functools import lru_cache
from typing import Any, ClassVar

from envs.base import Env, Reward, extract_answer
from utils.records import derive_seed

CATEGORIES = ("competition", "math", "optimization", "algorithms", "logic", "np_complete")
MAX_TRIES = 100
INSTRUCTION = "Reason step by step inside <reasoning></reasoning>, then give your final answer inside <answer></answer>"


class Retry(Exception):
    """A draw that must be discarded; the generator tries again with the same rng."""


class GymEnv(Env):
    category: ClassVar[str] = ""  # one of CATEGORIES: the paper's six sources of environments
    threshold: ClassVar[float] = 1.0
    # Longer answers score -1 before any parsing: max(this, 4 x the prompt), since a grid answer
    # is about as long as the prompt that shows the grid.
    max_answer_chars: ClassVar[int] = 200_000
    reward_range = (-1.0, 1.0)

    # RACES: an env whose answer is a deterministic function of one typed value declares that
    # function here, and envs/compose turns it into a brick. Types are the strings of
    # envs/compose/types.py (e.g. "list[int]" -> "int"); None: this env is not a brick.
    brick_io: ClassVar[tuple[str, str] | None] = None
    brick_text: ClassVar[str] = ""  # what the function does, in one sentence a model reads
    reasoning: bool = False  # gold answers carry explain()'s worked solution (constructor param)

    def __init__(self, reasoning: bool = False):
        if reasoning and type(self).explain is GymEnv.explain:
            raise ValueError(f"{self.name} writes no worked solution: reasoning=true needs its explain()")
        self.reasoning = reasoning

    def explain(self, problem: dict) -> str:
        """The worked solution a solver writes down (the gold answer's <reasoning>, reasoning=True):
        short, exact steps in plain text, for SFT of a model that cannot reason its way there yet."""
        raise NotImplementedError

    def brick_input(self, rng: random.Random, difficulty: int) -> Any:
        """A typed input value for the brick, drawn at this difficulty."""
        raise NotImplementedError

    def brick_apply(self, value: Any, counter) -> Any:
        """The deterministic function: calls counter.tick(n) before n atomic steps of work, never
        mutates value, returns None for "no output"."""
        raise NotImplementedError

    def size(self, difficulty: int) -> int:
        raise NotImplementedError

    def build(self, rng: random.Random, difficulty: int) -> tuple[dict, str | None]:
        raise NotImplementedError

    def prompt(self, problem: dict) -> str:
        raise NotImplementedError

    def reward(self, problem: dict, answer: str) -> float:
        raise NotImplementedError

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        if not isinstance(difficulty, int) or difficulty < 0:
            raise ValueError(f"{self.name}: difficulty must be an integer >= 0, got {difficulty!r}")
        rng = random.Random(derive_seed(self.name, seed, difficulty))
        for _ in range(MAX_TRIES):
            try:
                problem, gold = self.build(rng, difficulty)
                break
            except Retry:
                continue
        else:
            raise RuntimeError(f"env {self.name}: no valid instance after {MAX_TRIES} draws "
                               f"(seed {seed}, difficulty {difficulty})")
        return {
            "id": f"{self.name}-d{difficulty}-{seed}",
            "env": self.name,
            "difficulty": difficulty,
            "prompt": self.prompt(problem),
            "answer": None if gold is None else (f"<reasoning>\n{self.explain(problem)}\n</reasoning>\n"
                                                 if self.reasoning else "") + f"<answer>{gold}</answer>",
            "meta": {"seed": seed, "problem": json.dumps(problem, separators=(",", ":"))},
        }

    def problem_of(self, record: dict) -> dict:
        meta = record.get("meta")
        try:
            problem = _load_problem(meta["problem"])
        except (TypeError, KeyError, ValueError):
            raise ValueError(f"record {record.get('id', '<no id>')}: meta.problem must be a JSON "
                             f"object string") from None
        if not isinstance(problem, dict):
            raise ValueError(f"record {record.get('id', '<no id>')}: meta.problem is not a JSON object")
        return problem

    def score(self, record: dict, response: str) -> Reward:
        problem = self.problem_of(record)
        answer = extract_answer(response)
        value = -1.0
        limit = max(self.max_answer_chars, 4 * len(record.get("prompt") or ""))
        if answer is not None and answer.strip() and len(answer) <= limit:
            try:
                value = float(self.reward(problem, answer))
            except ValueError:  # the parsers' signal for unparsable output
                value = -1.0
        # The contract is [-1, 1] for any input; NaN (0/0 on hostile numbers) counts as unparsable.
        value = -1.0 if math.isnan(value) else min(1.0, max(-1.0, value))
        return Reward(value=value, correct=value >= self.threshold, parts={"parsed": float(value > -1.0)})


@lru_cache(maxsize=4096)
def _load_problem(text: str) -> Any:
    """Parsed meta.problem, cached: a rollout group scores many answers to one problem. The
    result is shared, so scorers treat `problem` as read-only."""
    return json.loads(text)


# ------------------------------------------------------------------ prompts

def ask(task: str, answer_format: str) -> str:
    """The prompt: the task, then the shared instruction and the env's answer format."""
    return f"{task.strip()}\n\n{INSTRUCTION}. {answer_format.strip()}"


# ------------------------------------------------------------------ parsing (ValueError = unparsable)

def to_int(token: str) -> int:
    """An ASCII decimal integer with an optional sign (int() alone also takes '1_0' and '٣')."""
    if "_" in token or not token.isascii() or len(token) > 4000:
        raise ValueError(f"not an integer: {token[:20]!r}")
    return int(token)


def to_float(token: str) -> float:
    """A finite decimal number (no 'nan', 'inf' or hex); also a fraction p/q."""
    if "/" in token:
        num, _, den = token.partition("/")
        p, q = to_int(num), to_int(den)
        if q == 0 or len(num) > 300 or len(den) > 300:  # beyond that p / q may overflow a float
            raise ValueError("bad fraction")
        return p / q
    if len(token) > 100 or not token.isascii() or any(c not in "0123456789+-.eE" for c in token):
        raise ValueError(f"not a number: {token[:20]!r}")
    x = float(token)
    if not math.isfinite(x):
        raise ValueError("not finite")
    return x


def to_fraction(token: str) -> Fraction:
    """An exact rational: an integer, a decimal (12.5, -0.25) or a fraction p/q of integers."""
    token = token.strip()
    if "/" in token:
        num, _, den = token.partition("/")
        p, q = to_int(num.strip()), to_int(den.strip())
        if q == 0:
            raise ValueError("zero denominator")
        return Fraction(p, q)
    if "." in token:
        whole, _, frac = token.partition(".")
        sign = -1 if whole.startswith("-") else 1
        whole = whole.lstrip("+-")
        if not (whole + frac) or not (whole + frac).isdigit() or not token.isascii() or len(token) > 4000:
            raise ValueError(f"not a decimal: {token[:20]!r}")
        return sign * (int(whole or "0") + Fraction(int(frac or "0"), 10 ** len(frac)))
    return Fraction(to_int(token))


def tokens(answer: str) -> list[str]:
    """Whitespace- or comma-separated tokens."""
    return answer.replace(",", " ").split()


def int_list(answer: str) -> list[int]:
    if "_" in answer or not answer.isascii():  # the checks of to_int, once for the whole answer
        raise ValueError("not a list of integers")
    return list(map(int, tokens(answer)))


def one_int(answer: str) -> int:
    toks = tokens(answer)
    if len(toks) != 1:
        raise ValueError("expected one integer")
    return to_int(toks[0])


def int_grid(answer: str, rows: int, cols: int) -> list[list[int]] | None:
    """`rows` non-empty lines of `cols` integers each; None on a wrong shape (ValueError on junk)."""
    lines = [line for line in answer.splitlines() if line.strip()]
    grid = [int_list(line) for line in lines]
    if len(grid) != rows or any(len(r) != cols for r in grid):
        return None
    return grid


def char_grid(answer: str, rows: int, cols: int, alphabet: str) -> list[str] | None:
    """`rows` lines of `cols` characters from alphabet (spaces inside a line ignored), or None."""
    grid = ["".join(line.split()) for line in answer.splitlines() if line.strip()]
    if len(grid) != rows or any(len(r) != cols or any(c not in alphabet for c in r) for r in grid):
        return None
    return grid


def index_set(answer: str, n: int, base: int = 0) -> list[int] | None:
    """Distinct integers in [base, base + n); None if any repeats or is out of range."""
    items = int_list(answer)
    if len(set(items)) != len(items) or any(not base <= x < base + n for x in items):
        return None
    return items


# ------------------------------------------------------------------ rewards

BELOW_ONE = math.nextafter(1.0, 0.0)  # the largest reward short of full marks


def ratio(x: int, y: int, power: float) -> float:
    """(min(x, y) / max(x, y)) ** power for non-negative integers x, y; 1 when x == y (both 0
    included), and below 1 whenever x != y. Equality is tested on the integers themselves: above
    2**53 the float quotient of y and y + 1 rounds to 1.0, so without the cap an off-by-one count
    scored full marks and counted as correct."""
    if x < 0 or y < 0:
        return 0.0
    if x == y:
        return 1.0
    return min(BELOW_ONE, (min(x, y) / max(x, y)) ** power)  # int / int is correctly rounded


def exact(value: Any, gold: Any) -> float:
    return 1.0 if value == gold else 0.0


def share(hits: int, total: int, power: float) -> float:
    """(hits / total) ** power for 0 <= hits <= total, exactly 1 only when hits == total (a
    partial-credit reward that never rounds a miss up to full marks)."""
    if hits >= total:
        return 1.0
    return min(BELOW_ONE, (max(hits, 0) / total) ** power)


def matches(got: list, gold: list, power: float = 5) -> float:
    """Positions where got equals gold, as share(); -0.5 for a list of the wrong length."""
    if len(got) != len(gold):
        return -0.5
    return share(sum(a == b for a, b in zip(got, gold)), len(gold), power) if gold else 1.0


def jaccard(got: set, gold: set, power: float = 5) -> float:
    """|got & gold| / |got | gold| as share(): 1 only for the same set."""
    union = len(got | gold)
    return share(len(got & gold), union, power) if union else 1.0


# ------------------------------------------------------------------ shared answer kinds

COUNT_FORMAT = "Give the count as one integer (exact, no modulus), e.g. <answer>42</answer>."
INT_FORMAT = "Give one integer, e.g. <answer>42</answer>."


class CountEnv(GymEnv):
    """Reward for a count answer: -1 unparsable or negative, else (min(x, y) / max(x, y))^10 with
    y = problem["count"], compared exactly (ratio()). For every env but one this is our choice,
    after the paper's formula for BubbleSwapLowerBound_PermutationCounting (rlve line 43), the
    only env the text gives it for."""

    category = "competition"

    def reward(self, problem, answer):
        x = one_int(answer)
        return -1.0 if x < 0 else ratio(x, problem["count"], 10)


class IntEnv(GymEnv):
    """Reward for a value that has one right integer: -1 unparsable, 1 if it equals
    problem["value"], else 0."""

    def reward(self, problem, answer):
        return 1.0 if one_int(answer) == problem["value"] else 0.0


class _Uncounted:
    """The counter brick_apply gets when an env computes its own gold answer: no limit."""

    steps = 0

    def tick(self, n: int = 1) -> None:
        pass


UNCOUNTED = _Uncounted()


def lines(rows: list[list[Any]]) -> str:
    """A grid as lines of space-separated cells (the answer format of the grid envs)."""
    return "\n".join(" ".join(map(str, r)) for r in rows)
