"""What the four code environments share: a problem (a function `f`, its cases, a message), the
record built from it, answer blocks, and literal values parsed and compared outside the sandbox.

A problem's inputs are the arguments of one call written as Python literals ("[1, 2], 3"); its
outputs are repr() of what `f` returned, computed in the sandbox. Model-written text is only ever
parsed with `ast.literal_eval` here, and model-written code only ever runs in utils/sandbox.py.
"""
from __future__ import annotations

import ast
import functools
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from envs.base import Env, Reward

MAX_ANSWER_CHARS = 20_000  # longer answers are not parsed: literal_eval time and memory stay bounded
PROBLEMS_FILE = Path(__file__).with_name("problems.yaml")


@dataclass
class Problem:
    code: str  # defines f (and, for fuzzing, pre_test_f and test_f)
    cases: list[dict]  # [{"input": "<arguments as literals>", "output": "<repr of f(input)>"}]
    message: str = ""  # the teacher's hint shown with induction examples
    pre_test: str = ""  # fuzzing: def pre_test_f(...) -> bool, which inputs are valid
    test: str = ""  # fuzzing: def test_f(...) -> bool, the property f should have
    fuzz_input: str | None = None  # fuzzing: a known valid input on which test_f fails
    name: str = ""
    level: int = 0

    def full_code(self) -> str:
        return "\n\n".join(c.strip("\n") for c in (self.code, self.pre_test, self.test) if c) + "\n"


@functools.lru_cache(maxsize=1)
def builtin_problems() -> dict[str, list[Problem]]:
    """The hand-written problems shipped in problems.yaml: {"problems": [...], "fuzzing": [...]}."""
    import yaml

    data = yaml.safe_load(PROBLEMS_FILE.read_text())
    return {kind: [Problem(**p) for p in data[kind]] for kind in ("problems", "fuzzing")}


# ------------------------------------------------------------------ answers and values


def last_block(text: str, tag: str) -> str | None:
    """Content of the last fenced block opened by a line ```<tag> and closed by ```, or None."""
    if not isinstance(text, str):
        return None
    fence = "```" + tag
    at = text.rfind(fence)
    while at >= 0:
        eol = text.find("\n", at)
        if eol >= 0 and not text[at + len(fence):eol].strip():  # ```python3 is not ```python
            close = text.find("```", eol + 1)
            return text[eol + 1:close] if close >= 0 else None
        at = text.rfind(fence, 0, at)
    return None


def all_blocks(text: str, tag: str) -> list[str]:
    """Contents of every closed fenced block tagged exactly `tag`, in order."""
    out, at, fence = [], 0, "```" + tag
    while isinstance(text, str):
        at = text.find(fence, at)
        if at < 0:
            break
        eol = text.find("\n", at)
        if eol < 0:
            break
        close = text.find("```", eol + 1)
        if not text[at + len(fence):eol].strip():
            if close < 0:
                break
            out.append(text[eol + 1:close])
            at = close + 3
        else:
            at = eol
    return out


def parse_args(text: str | None) -> tuple | None:
    """The arguments of one call, written as Python literals separated by commas; None if not, or
    if render_args could not write them back (an int whose repr passes Python's 4,300-digit limit)."""
    if text is None or len(text) > MAX_ANSWER_CHARS:
        return None
    text = text.strip()
    try:
        call = ast.parse(f"__f({text})", mode="eval").body
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.func.id != "__f" \
                or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        args = tuple(ast.literal_eval(a) for a in call.args)
        render_args(args)  # ValueError past Python's int <-> str digit limit (a 4,000-digit hex literal)
        return args
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None


def render_args(args: tuple) -> str:
    return ", ".join(repr(a) for a in args)


NOT_A_VALUE = object()


def parse_value(text: str | None) -> Any:
    """One Python literal, or NOT_A_VALUE."""
    if text is None or len(text) > MAX_ANSWER_CHARS:
        return NOT_A_VALUE
    try:
        return ast.literal_eval(text.strip())
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return NOT_A_VALUE


def same(a: Any, b: Any) -> bool:
    """Python equality that also requires the same types all the way down, so "1" != 1 and
    True != 1 (which Python's == would call equal) and (1,) != [1]."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, set, frozenset)):  # keys and members too: {True: 0} == {1: 0} in Python
        own = {k: k for k in b}  # b's own key object for each key of a
        return len(a) == len(b) and all(k in own and same(k, own[k]) and (type(a) is not dict or same(a[k], b[k]))
                                        for k in a)
    return a == b


def outputs_expr(inputs: list[str], fname: str = "f") -> str:
    """One expression evaluating f on every input, so all cases cost one sandbox job."""
    return "[" + ", ".join(f"{fname}({i})" for i in inputs) + "]"


def run_cases(code: str, inputs: list[str], timeout_s: float, memory_mb: int):
    """(sandbox Result, list of parsed outputs or None) of f on every input."""
    from utils.sandbox import run

    r = run(code, outputs_expr(inputs), timeout_s=timeout_s, memory_mb=memory_mb)
    values = parse_value(r.value) if r.ok else NOT_A_VALUE
    ok = isinstance(values, list) and len(values) == len(inputs)
    return r, (values if ok else None)


# ------------------------------------------------------------------ the env base


class CodeEnv(Env):
    """Records carry the code and cases in meta; score() reads nothing else, so records written by
    the synthesis pipeline score exactly like the built-in ones."""

    answer_tag: ClassVar[str] = ""
    kind: ClassVar[str] = "problems"  # which built-in list generate() draws from
    reward_range = (0.0, 1.0)

    def __init__(self, timeout_s: float = 2.0, memory_mb: int = 512, shown: int = 3):
        if not timeout_s > 0 or memory_mb < 1 or shown < 1:
            raise ValueError(f"{self.name}: need timeout_s > 0, memory_mb >= 1 and shown >= 1")
        self.timeout_s, self.memory_mb, self.shown = float(timeout_s), int(memory_mb), int(shown)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        pool = builtin_problems()[self.kind]
        level = max(0, min(int(difficulty), max(p.level for p in pool)))
        rng = random.Random(seed)
        problem = rng.choice([p for p in pool if p.level == level])
        return self.record(problem, rng, difficulty, f"{self.name}-{problem.name}-{seed}",
                           {"source": {"kind": "builtin", "name": problem.name}})

    def record(self, problem: Problem, rng: random.Random, difficulty: int, rid: str, meta: dict | None = None) -> dict:
        prompt, answer, own = self.render(problem, rng)
        return {"id": rid, "env": self.name, "difficulty": int(difficulty), "prompt": prompt, "answer": answer,
                "meta": {"code": problem.code, "cases": [dict(c) for c in problem.cases], **own,
                         **(meta or {})}}

    def render(self, problem: Problem, rng: random.Random) -> tuple[str, str, dict]:
        """(prompt, gold answer, env-specific meta) of one problem."""
        raise NotImplementedError

    def answer_block(self, response: str) -> str | None:
        return last_block(response, self.answer_tag)

    @staticmethod
    def meta(record: dict, *keys: str) -> dict:
        """The record's meta, checked to hold code, cases and `keys` (ValueError naming the record)."""
        meta = record["meta"]
        missing = [k for k in ("code", "cases") + keys if k not in meta]
        if missing or not isinstance(meta["cases"], list):
            raise ValueError(f"record {record.get('id')}: meta lacks {missing or 'a list of cases'}")
        return meta

    @staticmethod
    def reward(correct: bool, formatted: bool) -> Reward:
        return Reward(value=float(correct), correct=bool(correct),
                      parts={"correct": float(correct), "format": float(formatted)})


def fence(tag: str, body: str) -> str:
    return f"```{tag}\n{body.strip(chr(10))}\n```"
