"""Grade a code response against LiveCodeBench-style tests, every test run in the sandbox.

Test kinds: "stdin" (the program reads stdin; its stdout is compared line by line, each line
stripped, lines that differ compared again as whitespace-separated decimals) and "functional"
(`Solution().<func_name>(*args)`, or the top-level function when there is no class Solution, with
args one JSON value per input line, compared with the JSON output as Python values, a tuple as a
list). A sample is correct iff every test passes; its status is the first failure:
compile_error, runtime_error, timeout, wrong_answer (or no_code when the response has no code block).

The semantics are LiveCodeBench's harness (lcb_runner/evaluation/testing_util.py), so pass@k is
comparable with published numbers: its imports come first (LeetCode starter code uses `List`
without importing it), `if __name__ == "__main__":` blocks run, stdin also answers
`sys.stdin.buffer` and `open(0)`, and SystemExit ends a program normally.
"""
from __future__ import annotations

import ast
import json
import os
import re
from decimal import Decimal, InvalidOperation

from utils.sandbox import Sandbox

STATUSES = ("pass", "wrong_answer", "timeout", "runtime_error", "compile_error", "no_code")
_FENCE = re.compile(r"```(?:python|py|python3)?[ \t]*\r?\n(.*?)```", re.DOTALL)  # CRLF too
MAX_CODE_CHARS = 100_000


def extract_code(response: str) -> str | None:
    """The last fenced code block (```python, ```py, ```python3 or a bare ```), or None."""
    if not isinstance(response, str):
        return None
    blocks = _FENCE.findall(response[-200_000:])
    return blocks[-1] if blocks and blocks[-1].strip() else None


# LiveCodeBench's import block, in its order (the `from builtins import *` undoes math's `pow`).
_LCB_MODULES = "string re datetime collections heapq bisect copy math random statistics itertools functools " \
               "operator io sys json".split()
LCB_IMPORTS = "".join(f"from {m} import *\n" for m in _LCB_MODULES + ["builtins", "typing"]) + \
    "".join(f"import {m}\n" for m in _LCB_MODULES) + "sys.setrecursionlimit(50000)\n"


def _lines(s: str) -> list[str]:
    return [line.strip() for line in s.strip().split("\n")]


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(x) for x in line.split()]
    except (InvalidOperation, ValueError):
        return None


def _same_stdout(got: str, want: str) -> bool:
    """LiveCodeBench's rule: same number of stripped lines, each equal as text or as decimals."""
    g, w = _lines(got), _lines(want)
    return len(g) == len(w) and all(a == b or (_decimals(a) is not None and _decimals(a) == _decimals(b))
                                    for a, b in zip(g, w))


def _literal(text: str):
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT_A_VALUE
    return list(value) if isinstance(value, tuple) else value


_NOT_A_VALUE = object()


def _job(code: str, test: dict, func_name: str | None) -> tuple[str, str | None]:
    if test.get("testtype") == "functional":
        args = [json.loads(line) for line in str(test["input"]).splitlines() if line.strip()]
        call = f"Solution().{func_name}" if "class Solution" in code else func_name
        return LCB_IMPORTS + code, f"{call}(*{args!r})" if func_name else None
    # stdin: the program's module-level code runs as __main__ and reads a real text stream
    # (input(), sys.stdin.buffer, open(0)); set before the imports so `from sys import *` sees it
    data = str(test["input"]).encode("utf-8", "replace")
    prelude = (f"import io as _io, sys as _sys\n__name__ = '__main__'\n"
               f"_sys.stdin = _io.TextIOWrapper(_io.BytesIO({data!r}), encoding='utf-8')\n{LCB_IMPORTS}"
               f"def open(file, mode='r', *args, _open=open, **kwargs):\n"
               f"    if file == 0 or file == '/dev/stdin':\n"
               f"        return _sys.stdin.buffer if 'b' in mode else _sys.stdin\n"
               f"    return _open(file, mode, *args, **kwargs)\n")
    return prelude + code, None


_EXIT = re.compile(r"(?:^|\n)SystemExit(?::[^\n]*)?\s*$")


def _verdict(test: dict, res) -> str | None:
    """The failure status of one test's result, or None when it passed."""
    if res.status == "timeout":
        return "timeout"
    exited = res.status == "error" and test.get("testtype") != "functional" and _EXIT.search(res.stderr)
    if res.status != "ok" and not exited:
        return "runtime_error"
    if test.get("testtype") == "functional":
        got = _literal(res.value) if res.value is not None else _NOT_A_VALUE
        return None if got is not _NOT_A_VALUE and got == json.loads(test["output"]) else "wrong_answer"
    return None if _same_stdout(res.stdout, str(test["output"])) else "wrong_answer"


def grade_code(response: str, gold: dict, sandbox: Sandbox, timeout_s: float = 6.0,
               memory_mb: int = 1024, workers: int | None = None) -> tuple[bool, str]:
    """(correct, status) for one response; never raises on the response. Tests run in chunks of
    `workers` (default: one per core) and grading stops at the first chunk with a failure, as
    LiveCodeBench stops at the first failing test: a looping program costs one round of timeouts,
    not one per test."""
    code = extract_code(response)
    if code is None or len(code) > MAX_CODE_CHARS:
        return False, "no_code"
    try:
        compile(code, "<solution>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False, "compile_error"
    tests, func = gold["tests"], gold.get("func_name")
    chunk = max(1, workers or os.cpu_count() or 1)
    for start in range(0, len(tests), chunk):
        part = tests[start:start + chunk]
        results = sandbox.run_many([_job(code, t, func) for t in part], workers=chunk, timeout_s=timeout_s,
                                   memory_mb=memory_mb)
        failed = [v for v in (_verdict(t, r) for t, r in zip(part, results)) if v]
        if failed:
            return False, failed[0]
    return True, "pass"
