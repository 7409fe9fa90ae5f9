"""Answer grading. Math: extract the final answer, compare with math-verify, in killable workers.

    grade_math(gold, response) -> bool            one answer, in this process
    MathGrader(workers=2).grade(pairs)            many answers, each in a worker process with a
                                                  hard timeout; an overrun is wrong and reported
    grade_choice(gold_letter, response) -> Grade  multiple choice, LongBench v2's answer format (kind choice)
    grade_answer(gold, response) -> Grade         exact final answer after normalisation (kind answer:
                                                  Enigmata); IFEval's instructions: utils/ifeval.py

Why workers: math-verify's own timeout uses SIGALRM, which fails outside the main thread and
cancels any outer alarm, and cannot interrupt C code (sympy evaluating 10^{10^{10^{10}}}).
Only killing a process reliably stops that, so the pool replaces a worker that overruns.
"""
from __future__ import annotations

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from queue import Queue

from utils.timeout import TimeoutWorker, WorkerCrashed

MAX_ANSWER_CHARS = 2000  # a final answer longer than this is not an answer
_ANSWER_IS = re.compile(r"(?:final answer|answer)\s*(?:is|:)\s*\$?([^\n$]{1,200})", re.IGNORECASE)


def _braced(text: str, open_at: int) -> str | None:
    """Content of the {...} group whose '{' is at open_at (balanced), or None if unclosed."""
    depth = 0
    for i in range(open_at, len(text)):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:i]
    return None


def last_boxed(text: str) -> str | None:
    """Content of the last \\boxed{...} (or \\fbox{...}) with balanced braces."""
    for macro in ("\\boxed", "\\fbox"):
        start = text.rfind(macro + "{")
        while start >= 0:
            content = _braced(text, start + len(macro))
            if content is not None:
                return content
            start = text.rfind(macro + "{", 0, start)
    return None


def extract_answer(response: str) -> str | None:
    """The last \\boxed{}; else the last <answer> block; else 'the answer is X'; else None."""
    if not isinstance(response, str):
        return None
    found = last_boxed(response)
    if found is None:
        close = response.rfind("</answer>")
        open_ = response.rfind("<answer>", 0, close) if close >= 0 else -1
        if open_ >= 0:
            found = response[open_ + len("<answer>"):close]
    if found is None:
        matches = _ANSWER_IS.findall(response[-5000:])
        found = matches[-1].strip().rstrip(".") if matches else None
    if found is None or not found.strip() or len(found) > MAX_ANSWER_CHARS:
        return None
    return found.strip()


def _dollars(latex: str) -> str:
    """math-verify misreads bare LaTeX such as `241+44\\sqrt{30}` (as 241) or `(-1,1)`; in $...$
    it parses the whole expression."""
    s = latex.strip()
    return s if s.startswith("$") or "\\boxed" in s else f"${s}$"


def grade_math(gold: str, response: str) -> bool:
    """True iff the response's final answer is mathematically equal to gold. Never raises.

    In-process: fine for trusted input on the main thread; use MathGrader for model output."""
    answer = extract_answer(response)
    if answer is None or not isinstance(gold, str) or not gold.strip():
        return False
    return _verify_timed(gold, answer)[0]


def _warm() -> None:
    """Import math-verify (seconds) before the first timed call of a fresh worker."""
    _verify_timed("1", "1")


def _verify_timed(gold: str, answer: str, timeout: int = 5) -> tuple[bool, str]:
    """(equal, status): "ok", "timeout", or "bad_gold" when math-verify reads nothing from the gold
    (not even its string: every answer to that problem would be silently wrong). math-verify's own (SIGALRM) timeouts
    stop most slow inputs without costing a worker, but return a silent False: the elapsed time
    tells an overrun apart. The pool's process kill is the backstop for C code that ignores signals."""
    from math_verify import parse, verify

    t0 = time.monotonic()
    g = None
    try:
        g = parse(_dollars(gold), parsing_timeout=timeout)
        a = parse(_dollars(answer), parsing_timeout=timeout)
        # math-verify compares an inequality with an interval only when the answer is the interval;
        # `-1<x<1` for gold `(-1,1)` is the same solution set, so both directions count.
        equal = bool(g and a and verify(g, a, timeout_seconds=timeout, allow_set_relation_comp=True))
    except Exception:  # math-verify/sympy raise many types on malformed LaTeX: a wrong answer
        equal = False
    if equal:
        return True, "ok"
    if time.monotonic() - t0 >= timeout:
        return False, "timeout"
    return False, "ok" if g else "bad_gold"


@dataclass
class Grade:
    correct: bool
    status: str  # "ok" | "no_answer" | "timeout" | "error" | "bad_gold"
    extracted: str | None


class MathGrader:
    """A pool of worker processes grading (gold, response) pairs under a hard per-item timeout."""

    def __init__(self, workers: int = 2, timeout_s: float = 10.0, memory_mb: int | None = 4096):
        self.timeout_s = timeout_s
        self._workers: Queue[TimeoutWorker] = Queue()
        for _ in range(max(1, workers)):
            self._workers.put(TimeoutWorker(memory_mb=memory_mb, init=_warm))
        self._n = max(1, workers)

    def grade_one(self, gold: str, response: str) -> Grade:
        answer = extract_answer(response)
        if answer is None:
            return Grade(False, "no_answer", None)
        worker = self._workers.get()
        try:
            inner = max(1, int(self.timeout_s / 2))  # math-verify gives up first when it can
            equal, status = worker.call(_verify_timed, gold, answer, inner, timeout=self.timeout_s)
            return Grade(equal, status, answer)
        except TimeoutError:
            return Grade(False, "timeout", answer)
        except (WorkerCrashed, MemoryError, RuntimeError, OSError):
            return Grade(False, "error", answer)
        finally:
            self._workers.put(worker)

    def grade(self, pairs: list[tuple[str, str]]) -> list[Grade]:
        """Grades in input order; never raises on the responses."""
        with ThreadPoolExecutor(self._n) as ex:
            return list(ex.map(lambda p: self.grade_one(*p), pairs))

    def close(self) -> None:
        while not self._workers.empty():
            self._workers.get().close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ------------------------------------------------------------------ multiple choice (LongBench v2)

_CHOICE_PATTERNS = (re.compile(r"The correct answer is \(([A-J])\)"), re.compile(r"The correct answer is ([A-J])\b"))


def after_thinking(response) -> str:
    """The response without a reasoning model's thinking (up to the last </think>); '' for a non-string."""
    if not isinstance(response, str):
        return ""
    cut = response.rfind("</think>")
    return response[cut + len("</think>"):] if cut >= 0 else response


def extract_choice(response) -> str | None:
    """The letter of 'The correct answer is (X)' (LongBench v2's answer format and extraction: markdown
    asterisks removed, the parenthesised form first, then the bare letter), from the text after any
    thinking; the last such statement counts. None if there is none."""
    text = after_thinking(response)[-20000:].replace("*", "")
    for pattern in _CHOICE_PATTERNS:
        found = pattern.findall(text)
        if found:
            return found[-1]
    return None


def grade_choice(gold: str, response) -> Grade:
    letter = extract_choice(response)
    if letter is None:
        return Grade(False, "no_answer", None)
    return Grade(letter == str(gold).strip().upper(), "ok", letter)


# ------------------------------------------------------------------ exact answers (Enigmata)


def final_answer(response) -> str | None:
    """The final answer of a response (after any thinking): the last <answer></answer> block, else the
    last \\boxed{}, else the last [[...]], else the last non-empty line. None if empty or too long."""
    text = after_thinking(response)
    close = text.rfind("</answer>")
    open_ = text.rfind("<answer>", 0, close) if close >= 0 else -1
    if open_ >= 0:
        found = text[open_ + len("<answer>"):close]
    else:
        found = last_boxed(text)
        if found is None:
            m = re.findall(r"\[\[(.*?)\]\]", text[-20000:], flags=re.DOTALL)
            found = m[-1] if m else next((ln for ln in reversed(text.strip().splitlines()) if ln.strip()), None)
    if found is None or not found.strip() or len(found) > 20 * MAX_ANSWER_CHARS:
        return None
    return found.strip()


def normalize_answer(text: str) -> str:
    """Canonical form for comparing answers: JSON values re-serialised compactly; otherwise lower case,
    no whitespace, surrounding quotes, dollars and a final full stop dropped."""
    s = str(text).strip()
    try:
        value = json.loads(s)
        if isinstance(value, (list, dict)):
            return json.dumps(value, sort_keys=True, separators=(",", ":")).lower()
    except (ValueError, RecursionError):
        pass
    s = s.strip("$").strip().strip("\"'").rstrip(".")
    return re.sub(r"\s+", "", s).lower()


def grade_answer(gold: str, response) -> Grade:
    """Exact match of the final answer with the gold after normalize_answer. Never raises."""
    answer = final_answer(response)
    if answer is None:
        return Grade(False, "no_answer", None)
    return Grade(normalize_answer(answer) == normalize_answer(gold), "ok", answer[:200])
