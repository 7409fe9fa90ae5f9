"""Calculus: antiderivatives and derivatives of random elementary functions, and the global
minimum of an even-degree polynomial.

Model output is never eval'ed: an answer must pass a whitelist scan (numbers, x, C, + - * / ^
parentheses and the named functions). Then envs/gym/_elementary.py parses it and compares it
with the reference at sample points in-process (a fraction of a millisecond); what that parser
does not cover, and answers with no point where both sides are defined, go to sympy's parse_expr
in a worker with a hard wall-clock limit and a memory cap (utils/timeout.py; about 40 ms an
answer); a timeout scores -1.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction

from envs.gym import _elementary
from envs.gym.algebra import poly_text
from envs.gym.base import GymEnv, Retry, ask, tokens, to_float
from utils.timeout import TimeoutWorker

FUNCTIONS = ("sin", "cos", "tan", "exp", "log", "ln", "sqrt", "asin", "acos", "atan", "sinh", "cosh", "tanh")
CONSTANTS = ("x", "C", "E", "pi")
MAX_EXPR_CHARS = 2000
MAX_EXPONENT = 1000
SYMPY_TIMEOUT_S = 10.0
# Shared by all calculus envs in a process (and started on first use): envs.score() builds a new
# env per call, and a worker per env would pay a Python start and a sympy import every time.
WORKER = TimeoutWorker(memory_mb=2048)
SAMPLE_POINTS = (0.31, 0.74, 1.17, 1.62, 2.39, -0.53, -1.28, 3.07)


def scan_expression(text: str) -> str:
    """The text if every token is whitelisted, else ValueError. Runs before any parsing, so
    attribute access, strings, brackets, lambdas and dunder names never reach sympy."""
    text = text.strip()
    if "=" in text:  # "F(x) = ..." : keep the right-hand side
        text = text.rsplit("=", 1)[1].strip()
    if not text or len(text) > MAX_EXPR_CHARS:
        raise ValueError("empty or too long")
    i = 0
    while i < len(text):
        c = text[i]
        if c.isascii() and c.isalpha():
            j = i
            while j < len(text) and text[j].isascii() and text[j].isalpha():
                j += 1
            if text[i:j] not in FUNCTIONS and text[i:j] not in CONSTANTS:
                raise ValueError(f"unknown name {text[i:j][:20]!r}")
            i = j
        elif c == "." and not any(text[k:k + 1].isdigit() for k in (i - 1, i + 1) if k >= 0):
            raise ValueError("a '.' outside a number")  # so no attribute access can be spelled
        elif c.isascii() and (c.isdigit() or c in "+-*/^(). \t\n"):
            i += 1
        else:
            raise ValueError(f"character {c!r} not allowed")
    return text


def parse(text: str):
    """sympy expression of whitelisted text (call inside the worker: parsing can be slow).

    Parsed once unevaluated to refuse numeric exponents above MAX_EXPONENT (9^9^9 would
    otherwise be computed exactly), then again with evaluation."""
    import sympy
    from sympy.parsing.sympy_parser import (auto_number, convert_xor, implicit_application,
                                            implicit_multiplication, parse_expr)

    names = {name: getattr(sympy, name) for name in FUNCTIONS if name != "ln"}
    names.update(ln=sympy.log, x=sympy.Symbol("x"), C=sympy.Symbol("C"), E=sympy.E, pi=sympy.pi)
    builtins = {"__builtins__": {}, **{name: getattr(sympy, name) for name in
                                       ("Integer", "Float", "Rational", "Add", "Mul", "Pow", "Symbol")}}
    text = scan_expression(text)
    transformations = (auto_number, convert_xor, implicit_multiplication, implicit_application)
    try:
        raw = parse_expr(text, local_dict=names, global_dict=builtins, transformations=transformations, evaluate=False)
        for node in sympy.postorder_traversal(raw):  # inner exponents first: a tower stops at its first level
            if isinstance(node, sympy.Pow) and node.exp.is_number and abs(complex(sympy.N(node.exp, 15))) > MAX_EXPONENT:
                raise ValueError("exponent too large")
        expr = parse_expr(text, local_dict=names, global_dict=builtins, transformations=transformations)
    except (SyntaxError, TypeError, NameError, AttributeError, ZeroDivisionError) as e:
        raise ValueError(f"cannot parse: {e}") from None
    if not isinstance(expr, sympy.Expr):
        raise ValueError("not an expression")
    return expr


def same_function(a, b) -> bool:
    """a == b as functions of x: symbolically when the difference cancels on construction, else
    numerically at sample points where both are defined (complex values compared too); simplify
    only if no sample point is usable. (No expand: (x+1)^900 would take the whole time budget.)"""
    import sympy

    x = sympy.Symbol("x")
    diff = a - b
    if diff == 0:
        return True
    if diff.free_symbols - {x}:  # e.g. a stray C in a derivative
        return False
    usable = 0
    for p in SAMPLE_POINTS:
        try:
            va, vb = complex(a.evalf(30, subs={x: p})), complex(b.evalf(30, subs={x: p}))
        except (TypeError, ValueError, ZeroDivisionError):  # undefined here (zoo, nan)
            continue
        if not all(map(_finite, (va, vb))):
            continue
        usable += 1
        if abs(va - vb) > 1e-8 * max(1.0, abs(va), abs(vb)):
            return False
    return usable > 0 or sympy.simplify(diff) == 0


def _finite(z: complex) -> bool:
    return abs(z.real) < 1e300 and abs(z.imag) < 1e300 and z == z


def check_antiderivative(answer: str, derivative: str) -> bool:
    import sympy

    return same_function(sympy.diff(parse(answer), sympy.Symbol("x")), parse(derivative))


def check_derivative(answer: str, function: str) -> bool:
    import sympy

    return same_function(parse(answer), sympy.diff(parse(function), sympy.Symbol("x")))


def _graded(answer: str, reference: str, antiderivative: bool) -> float:
    """The reward for an answer against the reference (F' for an antiderivative, F for a
    derivative): decided in-process when the fast parser reads both sides and some sample point
    is usable on both, else by sympy in the worker."""
    text = scan_expression(answer)  # ValueError (-1) before any parsing
    try:
        verdict = _elementary.equal_at_points(_elementary.parse(text), antiderivative,
                                              _elementary.parse_reference(reference), not antiderivative,
                                              _elementary.reference_side(reference, not antiderivative))
    except ValueError:  # a constant exponent above MAX_EXPONENT: unparsable, as parse() has it
        raise
    except Exception:  # Unsupported, or anything the fast path did not foresee: sympy decides
        verdict = None
    if verdict is not None:
        return 1.0 if verdict else 0.0
    return _checked(check_antiderivative if antiderivative else check_derivative, answer, reference)


def _checked(fn, answer: str, reference: str) -> float:
    """1 if fn(answer, reference) holds, 0 if not, -1 if unparsable or out of time or memory."""
    scan_expression(answer)  # cheap rejection before the worker round trip
    try:
        return 1.0 if WORKER.call(fn, answer, reference, timeout=SYMPY_TIMEOUT_S) else 0.0
    except Exception:  # TimeoutError, WorkerCrashed, or any of the many types sympy raises on odd
        return -1.0   # input: the worker isolates them, and each counts as unparsable


def random_function(rng: random.Random, nodes: int):
    """(F, F') as sympy's text for a random elementary F(x), an expression tree with exactly
    `nodes` nodes: leaves x or an integer 1..5, unary sin cos exp log sqrt and ^2 ^3, binary
    + - * /. F' comes from SymPy, as in the paper (rlve line 49: "uses the SymPy Python package to
    compute its derivative"); differentiating and printing is most of the generation time (about
    50 records/s at d = 10), so each is done once per draw."""
    import sympy

    x = sympy.Symbol("x")
    unary = (sympy.sin, sympy.cos, sympy.exp, sympy.log, sympy.sqrt, lambda e: e ** 2, lambda e: e ** 3)
    binary = (sympy.Add, lambda a, b: a - b, sympy.Mul, lambda a, b: a / b)

    def tree(k: int):
        if k == 1:
            return x if rng.random() < 0.7 else sympy.Integer(rng.randint(1, 5))
        if k == 2 or rng.random() < 0.4:
            return rng.choice(unary)(tree(k - 1))
        left = rng.randint(1, k - 2)
        return rng.choice(binary)(tree(left), tree(k - 1 - left))

    f = tree(nodes)
    if x not in f.free_symbols or f.has(sympy.zoo, sympy.nan):
        raise Retry
    df = sympy.diff(f, x)
    if df == 0:
        raise Retry
    text, dtext = str(f), str(df)
    try:  # F and F' must print in the answer syntax (no I, Abs, ...), or the checker could not read them
        scan_expression(text)
        scan_expression(dtext)
    except ValueError:
        raise Retry from None
    return text, dtext


FORMAT = ("Write it as an expression in x using numbers, + - * / ^, parentheses and the functions "
          "sin cos tan exp log sqrt asin acos atan sinh cosh tanh (log is the natural logarithm), "
          "e.g. <answer>x^2*sin(x) + exp(2*x)/3</answer>.")


class Integral(GymEnv):
    """Antiderivative (RLVE paper, mathematical operations). d: F(x) is a random expression
    tree of d + 2 nodes; the prompt shows F'(x); the answer G is right when G' = F'
    (symbolically, or numerically at sample points). Reward: -1 unparsable or out of time,
    +1 correct, 0 otherwise."""

    name = "integral"
    category = "math"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        f, df = random_function(rng, self.size(difficulty))
        return {"derivative": df}, f

    def prompt(self, problem):
        return ask(f"Find a function F(x) whose derivative is\n\nF'(x) = {problem['derivative'].replace('**', '^')}\n\n"
                   "(Any antiderivative is accepted; the constant of integration may be omitted.)", FORMAT)

    def reward(self, problem, answer):
        return _graded(answer, problem["derivative"], antiderivative=True)


class Derivative(GymEnv):
    """Derivative (mathematical operations). d: F(x) is a random expression tree of d + 2 nodes;
    the answer must equal F'(x) (symbolically, or numerically at sample points).
    Reward: -1 unparsable or out of time, +1 correct, 0 otherwise."""

    name = "derivative"
    category = "math"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        f, df = random_function(rng, self.size(difficulty))
        return {"function": f}, df

    def prompt(self, problem):
        return ask(f"Differentiate with respect to x:\n\nF(x) = {problem['function'].replace('**', '^')}", FORMAT)

    def reward(self, problem, answer):
        return _graded(answer, problem["function"], antiderivative=False)


def _horner(coeffs: list[int], x):
    """coeffs from the highest degree down."""
    acc = 0
    for c in coeffs:
        acc = acc * x + c
    return acc


class PolynomialMinimum(GymEnv):
    """Global minimiser of a polynomial (RLVE paper's example of an optimization problem, rlve
    lines 51-55; filed under optimization, not math, for that reason).
    d: degree 2(d + 1), integer coefficients in [-10, 10], leading coefficient in [1, 5].

    Reward: ((f(x_t) - f(x0)) / (f(x_t) - f(x0*)))^5 clipped to [0, 1] with x_t = 0, x0 the
    answer and x0* the true minimiser (best real critical point from numpy's roots of f',
    polished by Newton steps, f evaluated exactly); -1 unparsable. Deviation: answers are
    decimals, so `correct` needs a value >= 0.999 rather than exactly 1."""

    name = "polynomial_minimum"
    category = "optimization"
    threshold = 0.999

    def size(self, difficulty):
        return 2 * (difficulty + 1)

    def build(self, rng, difficulty):
        import numpy as np

        deg = self.size(difficulty)
        coeffs = [rng.randint(1, 5)] + [rng.randint(-10, 10) for _ in range(deg)]
        dcoeffs = [c * (deg - i) for i, c in enumerate(coeffs[:-1])]
        best = None
        for r in np.roots(dcoeffs):
            if abs(r.imag) > 1e-6 * max(1.0, abs(r.real)):
                continue
            x = float(r.real)
            for _ in range(20):  # Newton polish on f'
                slope = _horner([c * (deg - 1 - i) for i, c in enumerate(dcoeffs[:-1])], x)
                if slope == 0:
                    break
                x -= _horner(dcoeffs, x) / slope
            if not math.isfinite(x):
                continue
            value = _horner(coeffs, Fraction(x))
            if best is None or value < best[1]:
                best = (x, value)
        f0 = Fraction(coeffs[-1])
        # a minimiser at (or numerically at) x_t = 0 would make the reward 0/0
        if best is None or f0 - best[1] < Fraction(1, 1000) * (1 + abs(f0)):
            raise Retry
        return {"coeffs": coeffs, "x_star": best[0]}, repr(best[0])

    def prompt(self, problem):
        poly = poly_text(problem["coeffs"])
        return ask(f"Let f(x) = {poly}.\n\nFind the real number x at which f attains its global minimum.",
                   "Give x as a decimal number with at least 6 significant digits, e.g. <answer>-1.234567</answer>.")

    def reward(self, problem, answer):
        toks = tokens(answer)
        if len(toks) != 1:
            raise ValueError("expected one number")
        coeffs = problem["coeffs"]
        fx = _horner(coeffs, Fraction(to_float(toks[0])))
        f0, fstar = Fraction(coeffs[-1]), _horner(coeffs, Fraction(problem["x_star"]))
        r = min(Fraction(1), max(Fraction(0), (f0 - fx) / (f0 - fstar)))
        return float(r) ** 5
