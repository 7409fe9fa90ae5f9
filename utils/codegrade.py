"""Grade a code response against LiveCodeBench-style tests, every test run in the sandbox.

Test kinds: "stdin" (the program reads stdin, its stdout is compared line by line, trailing
whitespace ignored) and "functional" (`Solution().<func_name>(*args)` with args one JSON value per
input line, compared with the JSON output as Python values). A sample is correct iff every test
passes; its status is the first failure: compile_error, runtime_error, timeout, wrong_answer
(or no_code when the response has no code block).
"""
from __future__ import annotations

import ast
import json
import re

from utils.sandbox import Sandbox

STATUSES = ("pass", "wrong_answer", "timeout", "runtime_error", "compile_error", "no_code")
_FENCE = re.compile(r"```(?:python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL)
MAX_CODE_CHARS = 100_000


def extract_code(response: str) -> str | None:
    """The last fenced code block (```python preferred over a bare ```), or None."""
    if not isinstance(response, str):
        return None
    blocks = _FENCE.findall(response[-200_000:])
    return blocks[-1] if blocks and blocks[-1].strip() else None


def _same_stdout(got: str, want: str) -> bool:
    norm = lambda s: [line.rstrip() for line in s.rstrip().splitlines()]  # noqa: E731
    return norm(got) == norm(want)


def _literal(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT_A_VALUE


_NOT_A_VALUE = object()


def _job(code: str, test: dict, func_name: str | None) -> tuple[str, str | None]:
    if test.get("testtype") == "functional":
        args = [json.loads(line) for line in str(test["input"]).splitlines() if line.strip()]
        return code, f"Solution().{func_name}(*{args!r})" if func_name else None
    # stdin: the program's own module-level code reads sys.stdin
    prelude = f"import io as _io, sys as _sys\n_sys.stdin = _io.StringIO({str(test['input'])!r})\n"
    return prelude + code, None


def grade_code(response: str, gold: dict, sandbox: Sandbox, timeout_s: float = 6.0,
               memory_mb: int = 1024) -> tuple[bool, str]:
    """(correct, status) for one response; never raises on the response."""
    code = extract_code(response)
    if code is None or len(code) > MAX_CODE_CHARS:
        return False, "no_code"
    try:
        compile(code, "<solution>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False, "compile_error"
    tests, func = gold["tests"], gold.get("func_name")
    results = sandbox.run_many([_job(code, t, func) for t in tests], timeout_s=timeout_s, memory_mb=memory_mb)
    for test, res in zip(tests, results):
        if res.status == "timeout":
            return False, "timeout"
        if res.status != "ok":
            return False, "runtime_error"
        if test.get("testtype") == "functional":
            want = json.loads(test["output"])
            got = _literal(res.value) if res.value is not None else _NOT_A_VALUE
            if got is _NOT_A_VALUE or got != want:
                return False, "wrong_answer"
        elif not _same_stdout(res.stdout, str(test["output"])):
            return False, "wrong_answer"
    return True, "pass"
