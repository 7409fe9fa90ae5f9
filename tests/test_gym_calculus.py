"""The calculus envs' in-process grader (envs/gym/_elementary.py): it reads answers as sympy
does, grades generated golds without sympy, never fails a right answer to rounding, leaves what
it does not cover to sympy, and stays bounded on hostile input."""
from __future__ import annotations

import json
import random
import time

import pytest

import envs
from envs.gym import _elementary, calculus


def hand(name: str, problem: dict) -> dict:
    return {"id": f"{name}-hand", "env": name, "difficulty": 0, "prompt": "", "answer": None,
            "meta": {"seed": 0, "problem": json.dumps(problem)}}


def value(rec: dict, answer: str) -> float:
    return envs.score(rec, f"<answer>{answer}</answer>").value


ATOMS = ["x", "2", "3.5", ".5", "7.", "C", "E", "pi", "x", "x"]
# asin and acos are left out: off [-1, 1] numpy and sympy pick opposite sides of the branch cut
# (the grader compares both sides in one evaluator, so its verdicts do not depend on the side)
FUNCS = ["sin", "cos", "tan", "exp", "log", "ln", "sqrt", "atan", "sinh", "cosh", "tanh"]
SPACE = ["", "", "", " ", "  "]


def random_text(rng: random.Random, depth: int = 0) -> str:
    """Expressions in the spellings models write: ^ and **, implicit products, unary signs, spaces."""
    if depth > 3 or rng.random() < 0.25:
        return rng.choice(ATOMS)
    kind = rng.randrange(6)
    s = rng.choice(SPACE)
    if kind == 0:
        return f"{rng.choice(FUNCS)}({random_text(rng, depth + 1)})"
    if kind == 1:
        return f"({random_text(rng, depth + 1)})"
    if kind == 2:
        return f"{random_text(rng, depth + 1)}{s}{rng.choice(['^', '**'])}{s}{rng.choice(['2', '3', '-1', '(1/2)', 'x'])}"
    if kind == 3:
        return f"{rng.choice(['-', '+', '--'])}{random_text(rng, depth + 1)}"
    if kind == 4:  # implicit multiplication: "2x", "x sin(x)", "(x+1)(x-1)", "x(x+1)"
        return f"{random_text(rng, depth + 1)}{rng.choice([' ', ''])}{rng.choice(['x', '(x+1)', 'sin(x)', 'pi', '(2)'])}"
    return f"{random_text(rng, depth + 1)}{s}{rng.choice('+-*/')}{s}{random_text(rng, depth + 1)}"


def test_parser_reads_like_sympy():
    """On random spellings the fast parser accepts, its value equals sympy parse_expr's (the
    reading the graders had before) at sample points; it accepts most of them."""
    import mpmath
    import sympy

    rng = random.Random(0)
    x, c = sympy.Symbol("x"), sympy.Symbol("C")
    accepted = compared = 0
    for _ in range(300):
        text = random_text(rng)
        try:
            tree = _elementary.parse(text)
        except _elementary.Unsupported:
            continue
        accepted += 1
        reference = calculus.parse(text)
        for p, cv in ((0.74, 0.37), (-1.28, 2.11)):
            try:
                want = complex(reference.evalf(30, subs={x: p, c: cv}))
            except (TypeError, ValueError, ZeroDivisionError):
                continue
            with mpmath.workdps(30):  # 30 digits as evalf: tan(E^27) is noise in doubles
                try:
                    got = complex(_elementary.evaluate(tree, mpmath.mpc(p), mpmath.mpc(cv),
                                                       _elementary._mpmath_backend(), False)[0])
                except ArithmeticError:
                    continue
            if not (abs(want) < 1e12 and abs(got) < 1e12):
                continue
            compared += 1
            assert abs(got - want) <= 1e-7 * max(1.0, abs(want)), (text, got, want)
    assert accepted > 250 and compared > 300


@pytest.mark.parametrize("text", ["sin x", "sin^2(x)", "0x1", "2E5", "007", "1.2.3", "2..5", "x2", "x\n+1",
                                  "x//2", "(" * 200 + "x" + ")" * 200])
def test_spellings_python_reads_otherwise_are_left_to_sympy(text):
    with pytest.raises(_elementary.Unsupported):
        _elementary.parse(text)


@pytest.mark.parametrize("name", ["integral", "derivative"])
def test_generated_golds_are_graded_in_process(name, monkeypatch):
    """Every gold of d = 0..12 scores 1 without the sympy worker, and a changed one scores 0
    (changes above the 1e-8 relative tolerance: x/1000 added to an F' of 1e7 is within it)."""
    def no_worker(*args, **kwargs):
        raise AssertionError("the sympy worker was called")

    env = envs.make(name)
    records = [env.generate(seed=s, difficulty=d) for d in range(13) for s in range(3)]
    monkeypatch.setattr(calculus.WORKER, "call", no_worker)
    for rec in records:
        gold = rec["answer"][len("<answer>"):-len("</answer>")]
        assert value(rec, gold) == 1.0, (rec["id"], gold)
        assert value(rec, f"({gold})*x") == 0.0, rec["id"]
        assert value(rec, f"({gold})*(1 + 10^-6)") == 0.0, rec["id"]


def test_antiderivative_and_derivative_rules():
    rec = hand("integral", {"derivative": "2*x*cos(x**2)"})
    assert value(rec, "sin(x^2) + C") == 1.0 and value(rec, "sin(x x) + 7") == 1.0
    assert value(rec, "C sin(x^2)") == 0.0, "C must stay a constant term"
    assert value(rec, "cos(x^2)") == 0.0
    rec = hand("derivative", {"function": "x**3*log(x)"})
    assert value(rec, "3x^2 log(x) + x^2") == 1.0 and value(rec, "x^2(3ln(x) + 1)") == 1.0
    assert value(rec, "3x^2 log(x) + x^2 + C") == 0.0, "a derivative has no constant"
    assert value(rec, "3x^2 log(x)") == 0.0


def test_rounding_never_fails_a_right_answer():
    """Cancellation that ruins doubles is decided again in 30 digits."""
    rec = hand("derivative", {"function": "x**2"})
    assert value(rec, "2x + 10^17 - 10^17") == 1.0
    assert value(rec, "2x + 10^17 - 10^17 + 10^-6") == 0.0
    rec = hand("integral", {"derivative": "exp(x)"})
    assert value(rec, "exp(x + 700)/exp(700)") == 1.0, "overflow in doubles, fine in 30 digits"


def test_what_the_parser_leaves_goes_to_sympy():
    rec = hand("integral", {"derivative": "2*x"})
    assert value(rec, "sin x + x^2 - sin(x)") == 1.0  # implicit application: sympy's reading
    assert value(rec, "x^2 + 0x1") == 1.0  # 0x1 is hex 1 to Python
    assert value(rec, "x^2 + 2E5") == 1.0
    rec = hand("derivative", {"function": "x**2"})
    assert value(rec, "2x/0") == 0.0  # no usable point: sympy decides


@pytest.mark.parametrize("name,problem", [("integral", {"derivative": "2*x*cos(x**2)"}),
                                          ("derivative", {"function": "sin(x)*exp(x)"})])
def test_hostile_answers_are_bounded(name, problem):
    rec = hand(name, problem)
    hostile = ["__import__('os').system('true')", "x.__class__", "9^9^9^9", "x^(9^9)", "x^1001",
               "cosh(cosh(cosh(cosh(cosh(99^99)))))", "(" * 90 + "x" + ")" * 90, "-" * 500 + "x",
               "x+" * 900 + "x", "0/0", "sqrt(-x)^x^x", "(x-x)^(-1)", "tan(pi/2)", "x" * 999]
    for text in hostile:
        t0 = time.process_time()
        v = value(rec, text)
        assert -1.0 <= v <= 1.0 and v != 1.0, (text, v)
        assert time.process_time() - t0 < 2.0, (text, "bounded")
    assert value(rec, "9^9^9^9") == -1.0 and value(rec, "x^1001") == -1.0, "exponents above 1000 are unparsable"


def test_answers_with_no_usable_point_end_within_the_sympy_timeout(monkeypatch):
    """No sample point usable in doubles or 30 digits: sympy decides, in the killable worker."""
    monkeypatch.setattr(calculus, "SYMPY_TIMEOUT_S", 3.0)
    rec = hand("derivative", {"function": "sin(x)*exp(x)"})
    for text in ("exp(exp(exp(exp(exp(exp(x))))))", "1" * 1999):
        t0 = time.monotonic()
        assert value(rec, text) in (-1.0, 0.0), text
        assert time.monotonic() - t0 < 3.0 + 20.0, (text, "a fresh worker may need to start")


def test_fast_path_raises_nothing_but_its_two_signals():
    """Random token soup through the in-process grader: a verdict, Unsupported (sympy decides) or
    ValueError (unparsable), never another exception, and quickly."""
    rng = random.Random(3)
    alphabet = ["x", "C", "E", "pi", "0", "1", "9", "99", ".5", "7.", "+", "-", "*", "/", "^", "**", "(", ")",
                " ", "sin(", "exp(", "log(", "sqrt(", "tan(", "asin(", "cosh("]
    gold = _elementary.parse("2*x*cos(x**2)")
    verdicts = set()
    for _ in range(1500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 25)))
        t0 = time.process_time()
        try:
            verdicts.add(_elementary.equal_at_points(_elementary.parse(text), True, gold, False))
        except (_elementary.Unsupported, ValueError):
            verdicts.add("signal")
        assert time.process_time() - t0 < 0.5, text
    assert {False, "signal"} <= verdicts
