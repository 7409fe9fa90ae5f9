"""Filters on a synthesized problem (code-RL paper, Sec. 3): it runs, it is deterministic, its
outputs are literals and diverse (and, for fuzzing, one input breaks the test), and it is not a
duplicate or near-duplicate of a problem kept before.

    problem, reason = check(problem, env, min_distinct=2)   # reason: None or the rejection's name
    dedupe = Dedupe(threshold=0.8); dedupe.check(code) -> None | "duplicate" | "near_duplicate"
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import random
import re

from envs.code.problem import NOT_A_VALUE, Problem, outputs_expr, parse_value

# Appended to fuzzing code: one input's (valid, passes) pair, or None if either function raised.
FUZZ_HELPER = ("\n\ndef __fuzz_check(pre, test):\n    try:\n        return (bool(pre()), bool(test()))\n"
               "    except Exception:\n        return None\n")


def check(problem: Problem, env: str, min_distinct: int = 2, timeout_s: float = 2.0,
          memory_mb: int = 512) -> tuple[Problem | None, str | None]:
    """Run f on the inputs twice in the sandbox; fill in the outputs or name the rejection. A fuzzing
    problem without inputs (the paper's teacher, code_rl Table 1) has only its code checked: it
    defines the three functions without error (whether its bug can be hit shows in the student's
    pass rate: p = 0 is rejected as unsolved)."""
    from utils.sandbox import run

    code, inputs = problem.full_code(), [c["input"] for c in problem.cases]
    if env == "fuzzing" and not inputs:
        r = run(code, "all(callable(g) for g in (f, pre_test_f, test_f))", timeout_s=timeout_s, memory_mb=memory_mb)
        if not r.ok or r.value != "True":
            return None, "execution"
        problem.cases, problem.fuzz_input = [], None
        return problem, None
    first, second = (run(code, outputs_expr(inputs), timeout_s=timeout_s, memory_mb=memory_mb) for _ in range(2))
    if not first.ok:
        return None, "execution"
    values = parse_value(first.value)
    if values is NOT_A_VALUE or not isinstance(values, list) or len(values) != len(inputs):
        return None, "output_not_literal"
    if not second.ok or second.value != first.value:
        return None, "nondeterministic"
    outputs = [repr(v) for v in values]
    if len(outputs) > 1 and len(set(outputs)) < min_distinct:  # one input (abduction, deduction): nothing to vary
        return None, "outputs_not_diverse"
    problem.cases = [{"input": i, "output": o} for i, o in zip(inputs, outputs)]
    if env == "fuzzing":
        expr = "[" + ", ".join(f"__fuzz_check(lambda: pre_test_f({i}), lambda: test_f({i}))" for i in inputs) + "]"
        r = run(code + FUZZ_HELPER, expr, timeout_s=timeout_s, memory_mb=memory_mb)
        verdicts = parse_value(r.value) if r.ok else []
        failing = [i for i, v in zip(inputs, verdicts) if v == (True, False)] if isinstance(verdicts, list) else []
        if not failing:
            return None, "no_failing_input"
        problem.fuzz_input = failing[0]
    return problem, None


# ------------------------------------------------------------------ deduplication

BUILTIN_NAMES = frozenset(dir(builtins))


def normalize(code: str) -> str | None:
    """The code's AST with docstrings dropped and its own names renamed v0, v1, ... in order of
    first appearance, so renaming variables or reformatting does not make a new problem."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    names: dict[str, str] = {}

    def rename(name: str) -> str:
        if name in BUILTIN_NAMES:
            return name
        return names.setdefault(name, f"v{len(names)}")

    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
        if isinstance(node, ast.Name):
            node.id = rename(node.id)
        elif isinstance(node, ast.arg):
            node.arg = rename(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            node.name = rename(node.name)
    return ast.unparse(tree)


class Dedupe:
    """Exact duplicates by the hash of the normalised code; near duplicates by MinHash over token
    5-grams, with LSH bands to find candidates and the true Jaccard similarity to decide."""

    PRIME = (1 << 61) - 1

    def __init__(self, threshold: float = 0.8, bands: int = 16, rows: int = 4, shingle: int = 5):
        self.threshold, self.bands, self.rows, self.shingle = threshold, bands, rows, shingle
        rng = random.Random(0)
        self.coeffs = [(rng.randrange(1, self.PRIME), rng.randrange(self.PRIME)) for _ in range(bands * rows)]
        self.hashes: set[str] = set()
        self.shingles: list[frozenset[int]] = []
        self.buckets: dict[tuple, list[int]] = {}

    def _signature(self, code: str) -> tuple[str, frozenset[int]] | None:
        norm = normalize(code)
        if norm is None:
            return None
        tokens = re.findall(r"\w+|[^\w\s]", norm)
        grams = {" ".join(tokens[i:i + self.shingle]) for i in range(max(1, len(tokens) - self.shingle + 1))}
        ints = frozenset(int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "big") for g in grams)
        return hashlib.sha256(norm.encode()).hexdigest(), ints

    def _bands(self, ints: frozenset[int]) -> list[tuple]:
        sig = [min((a * x + b) % self.PRIME for x in ints) for a, b in self.coeffs]
        return [(i, *sig[i * self.rows:(i + 1) * self.rows]) for i in range(self.bands)]

    def check(self, code: str) -> str | None:
        sig = self._signature(code)
        if sig is None:
            return "format"
        digest, ints = sig
        if digest in self.hashes:
            return "duplicate"
        candidates = {j for band in self._bands(ints) for j in self.buckets.get(band, ())}
        for j in candidates:
            other = self.shingles[j]
            if len(ints & other) / len(ints | other) >= self.threshold:
                return "near_duplicate"
        return None

    def add(self, code: str) -> None:
        sig = self._signature(code)
        if sig is None:
            return
        digest, ints = sig
        self.hashes.add(digest)
        self.shingles.append(ints)
        for band in self._bands(ints):
            self.buckets.setdefault(band, []).append(len(self.shingles) - 1)
