"""grade_math on named cases, and the worker pool on pathological input."""
from __future__ import annotations

import time

import pytest

from utils.grading import MathGrader, extract_answer, grade_math

B = "\\boxed"
CASES = [
    # (name, gold, response, expected)
    ("integer", "42", f"so {B}{{42}}", True),
    ("integer wrong", "42", f"{B}{{43}}", False),
    ("fraction vs decimal", "\\frac{1}{2}", f"{B}{{0.5}}", True),
    ("dfrac", "\\frac{3}{4}", f"{B}{{\\dfrac{{3}}{{4}}}}", True),
    ("tfrac", "\\frac{3}{4}", f"{B}{{\\tfrac34}}", True),
    ("reordered sum", "241+44\\sqrt{30}", f"{B}{{44\\sqrt{{30}}+241}}", True),
    ("unwrapped gold sqrt", "241+44\\sqrt{30}", f"{B}{{241}}", False),
    ("sqrt near miss", "2\\sqrt{2}", f"{B}{{2\\sqrt{{3}}}}", False),
    ("sqrt equivalent", "2\\sqrt{2}", f"{B}{{\\sqrt{{8}}}}", True),
    ("arccos", "\\arccos\\left(\\frac{1}{3}\\right)", f"{B}{{\\cos^{{-1}}(1/3)}}", True),
    ("cos^-1 gold, arccos answer", "\\cos^{-1}\\left(\\frac{1}{3}\\right)", f"{B}{{\\arccos(1/3)}}", True),
    ("arccos near miss", "\\arccos\\left(\\frac{1}{3}\\right)", f"{B}{{\\cos^{{-1}}(1/4)}}", False),
    ("dfrac near miss", "\\dfrac{\\sqrt{3}}{2}", f"{B}{{\\frac{{\\sqrt2}}{{2}}}}", False),
    ("reordered sum of three", "a+b+c", f"{B}{{c+a+b}}", True),
    ("reordered sum, sign flipped", "a+b+c", f"{B}{{c+a-b}}", False),
    ("decimal too coarse", "\\frac{1}{3}", f"{B}{{0.33}}", False),
    ("degrees wrong", "30^\\circ", f"{B}{{60^\\circ}}", False),
    ("degrees in words", "30", f"{B}{{30\\text{{ degrees}}}}", True),
    ("thousands separator", "1000000", f"{B}{{1,000,000}}", True),
    ("open interval", "(-1,1)", f"{B}{{(-1,1)}}", True),
    ("interval closedness", "(-1,1)", f"{B}{{[-1,1]}}", False),
    ("half-open interval", "[0,\\infty)", f"{B}{{[0,\\infty)}}", True),
    # regression: math-verify only compares a relation with a set when the answer is the set
    ("inequality for interval", "(-1,1)", f"{B}{{-1<x<1}}", True),
    ("inequality for ray", "[0,\\infty)", f"{B}{{x\\ge 0}}", True),
    ("inequality closedness", "(-1,1)", f"{B}{{-1\\le x<1}}", False),
    ("inequality for ray, strict", "[0,\\infty)", f"{B}{{x>0}}", False),
    ("union of intervals reordered", "(-\\infty,0)\\cup(1,\\infty)", f"{B}{{(1,\\infty)\\cup(-\\infty,0)}}", True),
    ("set order", "\\{1,2,3\\}", f"{B}{{\\{{3,1,2\\}}}}", True),
    ("set near miss", "\\{1,2,3\\}", f"{B}{{\\{{1,2\\}}}}", False),
    ("degrees", "30^\\circ", f"{B}{{30}}", True),
    ("degrees symbol both", "30^\\circ", f"{B}{{30^\\circ}}", True),
    ("pi", "\\pi", f"{B}{{\\pi}}", True),
    ("pi multiple", "\\frac{\\pi}{2}", f"{B}{{\\frac{{\\pi}}{{2}}}}", True),
    ("pi vs number", "\\frac{\\pi}{2}", f"{B}{{1.5}}", False),
    ("negative", "-7", f"{B}{{-7}}", True),
    ("sign error", "-7", f"{B}{{7}}", False),
    ("multiple boxes last wins", "5", f"{B}{{3}} then fixed: {B}{{5}}", True),
    ("multiple boxes last wrong", "5", f"{B}{{5}} then {B}{{3}}", False),
    ("no box, answer tag", "12", "<answer>12</answer>", True),
    ("no box, answer is", "12", "Thus the final answer is 12.", True),
    ("no answer at all", "12", "I could not solve it", False),
    ("empty response", "12", "", False),
    ("malformed latex", "12", f"{B}{{\\frac{{1}}{{", False),
    ("unbalanced box", "12", f"{B}{{12", False),
    ("nested braces", "\\frac{1}{3}", f"{B}{{\\frac{{1}}{{3}}}}", True),
    ("power", "2^{10}", f"{B}{{1024}}", True),
    ("scientific", "1000", f"{B}{{10^3}}", True),
    ("percent", "50", f"{B}{{50\\%}}", True),
    ("text answer units", "5", f"{B}{{5\\text{{ cm}}}}", True),
    ("tuple", "(1,2)", f"{B}{{(1, 2)}}", True),
    ("tuple swapped", "(1,2)", f"{B}{{(2,1)}}", False),
    ("variable expression", "x^2+2x+1", f"{B}{{(x+1)^2}}", True),
    ("expression near miss", "x^2+2x+1", f"{B}{{(x+1)^3}}", False),
    ("decimal rounding", "0.333333", f"{B}{{\\frac{{1}}{{3}}}}", True),
    ("big integer", "123456789", f"{B}{{123456789}}", True),
    ("big integer off by one", "123456789", f"{B}{{123456788}}", False),
    ("equation rhs", "3", f"{B}{{x=3}}", True),
    ("gold in dollars", "$\\frac{1}{2}$", f"{B}{{1/2}}", True),
    ("matrix-free garbage", "4", f"{B}{{@@@}}", False),
    ("not a string response", "4", None, False),
]


@pytest.mark.parametrize("name,gold,response,expected", CASES, ids=[c[0] for c in CASES])
def test_grade_math_cases(name, gold, response, expected):
    assert grade_math(gold, response) is expected


def test_unreadable_gold_is_reported_not_silently_wrong():
    from utils.grading import _verify_timed

    assert _verify_timed("\\text{}", "5") == (False, "bad_gold")
    assert _verify_timed("5", "6") == (False, "ok")


def test_extract_answer():
    assert extract_answer(f"{B}{{a}} and {B}{{\\frac{{1}}{{2}}}}") == "\\frac{1}{2}"
    assert extract_answer("no answer") is None
    assert extract_answer(f"{B}{{" + "x" * 5000 + "}") is None


def test_pool_survives_pathological_input():
    pairs = [("1", f"{B}{{10^{{10^{{10^{{10}}}}}}}}"), ("2", f"{B}{{2}}"), ("3", "\\frac{" * 20000),
             ("4", "x" * 100_000 + f"{B}{{4}}"), ("5", f"{B}{{5}}")]
    with MathGrader(workers=2, timeout_s=3.0) as grader:
        t0 = time.time()
        grades = grader.grade(pairs)
        elapsed = time.time() - t0
    assert [g.correct for g in grades] == [False, True, False, True, True]
    assert grades[0].status in ("timeout", "ok")  # wrong either way, and bounded in time
    assert grades[2].status == "no_answer"
    assert elapsed < 3.0 * 2 + 10  # nothing waited much past its timeout (plus worker start-up)


def test_worker_start_up_does_not_count_against_the_timeout():
    # regression: a fresh worker's heavy imports used to eat the first call's timeout
    import functools
    import operator

    from utils.timeout import TimeoutWorker

    worker = TimeoutWorker(init=functools.partial(time.sleep, 1.5))
    try:
        assert worker.call(operator.add, 2, 3, timeout=1.0) == 5
    finally:
        worker.close()


def test_unpicklable_result_is_an_error_not_a_dead_worker():
    # regression: a result pickle refused (a lambda) killed the worker instead of coming back as an error
    from utils.timeout import TimeoutWorker

    worker = TimeoutWorker()
    try:
        with pytest.raises(RuntimeError, match="could not send its result back"):
            worker.call(eval, "lambda: 1", timeout=10.0)
        pid = worker._proc.pid
        assert worker.call(eval, "1 + 1", timeout=10.0) == 2 and worker._proc.pid == pid
    finally:
        worker.close()
