"""Fast grading of elementary functions of x: a parser for the calculus envs' answer syntax and an
evaluator of a function and its derivative at sample points, in-process and without sympy.

The calculus envs used to send every answer through sympy in a worker process (about 40 ms per
answer). This module decides the ordinary cases in well under a millisecond and leaves the rest
to that path: `Unsupported` means "ask sympy", never "wrong".

    tree = parse("x^2*sin(x) + 2x")     # Unsupported for syntax this parser does not cover
    equal_at_points(tree, False, gold, True)   # True / False / None (no usable point)
    equal_at_points(tree, False, parse_reference(text), True, reference_side(text, True))  # cached side

Syntax (what sympy's parse_expr with implicit multiplication reads the same way; anything else
is Unsupported): numbers, x, C, E, pi, + - * / ^ **, parentheses, the functions of FUNCTIONS
applied with parentheses, and implicit multiplication between adjacent operands ("2x",
"x sin(x)", "(x+1)(x-1)", "x(x+1)"). Python's precedence: unary minus binds looser than ^, ^
is right-associative, implicit multiplication is ordinary multiplication ("1/2x" = x/2).
Odd spellings that Python's tokenizer reads differently ("0x1" is hex, "2E5" a float, "007",
"2..5", "sin x", "sin^2(x)", newlines) are Unsupported, so sympy keeps deciding them.

Comparison: both sides are evaluated at SAMPLE lanes (x at eight points, each with two values
of C, so an answer that depends on C fails) in complex double precision with numpy. A lane
where the two values differ by more than 1e-8 relative is re-evaluated in 30-digit mpmath
before it counts as a mismatch, and a lane that overflows in double gets the same second look,
so rounding in doubles never fails a right answer. Magnitudes above 1e300 make a lane unusable
(as sympy's evalf path did); with no usable lane at all the answer goes back to sympy.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

FUNCTIONS = ("sin", "cos", "tan", "exp", "log", "ln", "sqrt", "asin", "acos", "atan", "sinh", "cosh", "tanh")
CONSTANTS = ("E", "pi")
POINTS = (0.31, 0.74, 1.17, 1.62, 2.39, -0.53, -1.28, 3.07)
C_VALUES = (0.37, 2.11)  # the constant of integration takes each, so a C left in a derivative shows
MAX_DEPTH = 100          # nesting of the parse tree; deeper is Unsupported (and recursion-safe)
MAX_EXPONENT = 1000      # a constant exponent above this is unparsable, as in calculus.parse
TOLERANCE = 1e-8         # |a - b| <= TOLERANCE * max(1, |a|, |b|), as in calculus.same_function
LIMIT = 1e300            # larger values make a lane unusable
MPMATH_DPS = 30
MAX_MAG_BITS = 1100      # mpmath values above 2^1100 (> LIMIT) stop a lane: no giant exponents

# [0-9], not \d: \d (and float()) take other scripts' digits, which the answer syntax does not
_TOKEN = re.compile(r"[ \t]*(?:([0-9]+\.?[0-9]*|\.[0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|[-+*/^()]))")


class Unsupported(Exception):
    """Syntax this parser does not decide; the caller falls back to sympy."""


def tokenize(text: str) -> list[tuple[str, str]]:
    """(kind, text) pairs, kind in num / name / op."""
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip(" \t"):
                raise Unsupported(f"character {text[pos]!r}")
            break
        num, name, op = m.groups()
        pos = m.end()
        nxt = text[pos:pos + 1]
        if num is not None:
            # "007" is no Python literal, "1.2.3" and "2..5" are two numbers, "2E5" and "0x1" are
            # one literal to Python's tokenizer: leave all of those to sympy
            if ("." not in num and len(num) > 1 and num[0] == "0") or nxt in (".", "E") or nxt.isdigit() \
                    or (num.startswith("0") and nxt == "x"):
                raise Unsupported(f"number {num!r}")
            out.append(("num", num))
        elif name is not None:
            if name not in FUNCTIONS and name not in CONSTANTS and name not in ("x", "C"):
                raise Unsupported(f"name {name[:20]!r}")
            out.append(("name", name))
        else:
            out.append(("op", "**" if op == "^" else op))
    return out


def parse(text: str) -> tuple:
    """The parse tree of an expression (nested tuples), or Unsupported. Trees: ("num", text),
    ("const", "E" | "pi"), ("x",), ("C",), ("neg", a), ("fn", name, a), ("pow", a, b), ("add", ((negate, a), ...)),
    ("mul", ((divide, a), ...)); sums and products are flat, so a long chain is a wide node and
    the tree's depth stays within the nesting that MAX_DEPTH bounds."""
    if "\n" in text or "\r" in text:
        raise Unsupported("several lines")
    toks = tokenize(text)
    pos = 0

    def peek() -> tuple[str, str]:
        return toks[pos] if pos < len(toks) else ("end", "")

    def take(kind: str, value: str | None = None) -> str:
        nonlocal pos
        k, v = peek()
        if k != kind or (value is not None and v != value):
            raise Unsupported(f"expected {value or kind} at token {pos}")
        pos += 1
        return v

    def starts_operand() -> bool:
        k, v = peek()
        return k in ("num", "name") or (k, v) == ("op", "(")

    def expr(depth: int) -> tuple:
        if depth > MAX_DEPTH:
            raise Unsupported("nested too deeply")
        terms = [(False, term(depth))]
        while peek() in (("op", "+"), ("op", "-")):
            terms.append((take("op") == "-", term(depth)))
        return terms[0][1] if len(terms) == 1 else ("add", tuple(terms))

    def term(depth: int) -> tuple:
        factors = [(False, factor(depth))]
        while True:
            if peek() in (("op", "*"), ("op", "/")):
                factors.append((take("op") == "/", factor(depth)))
            elif starts_operand():  # implicit multiplication
                factors.append((False, factor(depth)))
            else:
                return factors[0][1] if len(factors) == 1 else ("mul", tuple(factors))

    def factor(depth: int) -> tuple:
        if depth > MAX_DEPTH:
            raise Unsupported("nested too deeply")
        if peek() in (("op", "+"), ("op", "-")):
            inner = factor(depth + 1) if take("op") == "+" else ("neg", factor(depth + 1))
            return inner
        base = primary(depth)
        if peek() == ("op", "**"):
            take("op")
            return ("pow", base, factor(depth + 1))
        return base

    def primary(depth: int) -> tuple:
        kind, value = peek()
        if kind == "num":
            take("num")
            return ("num", value)
        if kind == "name":
            take("name")
            if value in FUNCTIONS:
                if peek() != ("op", "("):  # "sin x", "sin^2(x)": sympy's own reading
                    raise Unsupported("function without parentheses")
                take("op", "(")
                arg = expr(depth + 1)
                take("op", ")")
                return ("fn", "log" if value == "ln" else value, arg)
            return (value,) if value in ("x", "C") else ("const", value)
        if (kind, value) == ("op", "("):
            take("op", "(")
            inner = expr(depth + 1)
            take("op", ")")
            return inner
        raise Unsupported(f"unexpected {value or 'end'!r}")

    tree = expr(0)
    if pos != len(toks):
        raise Unsupported("trailing tokens")
    return tree


parse_reference = lru_cache(maxsize=2048)(parse)  # for the problem's side, scored many times


class _Backend:
    """The numbers a tree is evaluated in: numpy complex arrays (all lanes at once; non-finite
    values flow on and make their lane unusable) or 30-digit mpmath, whose `check` raises on
    values out of range before and after each function and power (where magnitudes can explode:
    exp(exp(exp(x))) must not build a number with a billion-digit exponent)."""

    def __init__(self, num, literal, constants: dict, funcs: dict, check):
        self.num, self.literal, self.constants, self.funcs, self.check = num, literal, constants, funcs, check


@lru_cache(maxsize=None)
def _numpy_backend() -> _Backend:
    import numpy as np

    funcs = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
             "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
             "tanh": np.tanh}
    return _Backend(np.complex128, lambda text: np.complex128(float(text)),
                    {"E": np.complex128(math.e), "pi": np.complex128(math.pi)}, funcs, None)


def _mp_check(v):
    import mpmath

    if not mpmath.isfinite(v) or (v != 0 and mpmath.mag(v) > MAX_MAG_BITS):
        raise ArithmeticError("out of range")
    return v


@lru_cache(maxsize=None)
def _mpmath_backend() -> _Backend:
    import mpmath

    funcs = {name: getattr(mpmath, name) for name in ("sin", "cos", "tan", "exp", "log", "sqrt", "asin",
                                                       "acos", "atan", "sinh", "cosh", "tanh")}
    # literals and constants exact to the working precision (E^27 needs more digits than a float)
    return _Backend(mpmath.mpc, lambda text: mpmath.mpc(mpmath.mpf(text)),
                    {"E": lambda: mpmath.mpc(mpmath.e), "pi": lambda: mpmath.mpc(mpmath.pi)}, funcs, _mp_check)


_DERIVATIVE = {  # d f(u) / du from u, f = f(u) and the backend's functions F
    "sin": lambda u, f, F: F["cos"](u), "cos": lambda u, f, F: -F["sin"](u),
    "tan": lambda u, f, F: 1 + f * f, "exp": lambda u, f, F: f, "log": lambda u, f, F: 1 / u,
    "sqrt": lambda u, f, F: 1 / (2 * f), "asin": lambda u, f, F: 1 / F["sqrt"](1 - u * u),
    "acos": lambda u, f, F: -1 / F["sqrt"](1 - u * u), "atan": lambda u, f, F: 1 / (1 + u * u),
    "sinh": lambda u, f, F: F["cosh"](u), "cosh": lambda u, f, F: F["sinh"](u),
    "tanh": lambda u, f, F: 1 - f * f,
}


def _has_var(tree: tuple) -> bool:
    kind = tree[0]
    if kind in ("x", "C"):
        return True
    if kind in ("num", "const"):
        return False
    if kind in ("add", "mul"):
        return any(_has_var(t) for _, t in tree[1])
    return any(_has_var(t) for t in tree[1:] if isinstance(t, tuple))


def evaluate(tree: tuple, x, c, backend: _Backend, derivative: bool):
    """(value, d value / dx) of the tree at x (and the constant C = c), by forward-mode
    differentiation (the derivative is 0 unless asked for). ValueError for a constant exponent
    above MAX_EXPONENT (unparsable, as calculus.parse has it)."""
    F, num = backend.funcs, backend.num
    check = backend.check or (lambda v: v)
    zero = num(0)

    def ev(t):
        kind = t[0]
        if kind == "x":
            return x, num(1)
        if kind == "C":
            return c, zero
        if kind == "num":
            return backend.literal(t[1]), zero
        if kind == "const":
            value = backend.constants[t[1]]
            return (value() if callable(value) else value), zero
        if kind == "neg":
            a, da = ev(t[1])
            return -a, -da
        if kind == "add":
            v, dv = zero, zero
            for negate, sub in t[1]:
                a, da = ev(sub)
                v, dv = (v - a, dv - da) if negate else (v + a, dv + da)
            return v, dv
        if kind == "mul":
            v, dv = ev(t[1][0][1])
            for divide, sub in t[1][1:]:
                b, db = ev(sub)
                if divide:
                    v = v / b
                    dv = (dv - v * db) / b if derivative else zero
                else:
                    v, dv = v * b, (dv * b + v * db if derivative else zero)
            return v, dv
        if kind == "fn":
            u, du = ev(t[2])
            f = check(F[t[1]](check(u)))
            return f, (check(_DERIVATIVE[t[1]](u, f, F) * check(du)) if derivative else zero)
        # pow
        (a, da), (b, db) = ev(t[1]), ev(t[2])
        constant = not _has_var(t[2])
        if constant and abs(complex(b)) > MAX_EXPONENT:
            raise ValueError("exponent too large")
        p = check(check(a) ** check(b))
        if not derivative:
            return p, zero
        if constant:  # u^k: k u^(k-1) u'
            return p, check(b * a ** (b - 1) * da)
        return p, check(p * (check(db) * F["log"](a) + b * check(da) / a))

    return ev(tree)


@lru_cache(maxsize=None)
def _lanes():
    import numpy as np

    x = np.array([complex(p) for p in POINTS for _ in C_VALUES])
    c = np.array([complex(v) for _ in POINTS for v in C_VALUES])
    return x, c


def _close(a: complex, b: complex) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def _usable(v: complex) -> bool:
    return abs(v.real) < LIMIT and abs(v.imag) < LIMIT  # False for inf and nan too


def _side(tree: tuple, derivative: bool):
    """The tree's value (or derivative) at every lane, in doubles."""
    import numpy as np

    x, c = _lanes()
    with np.errstate(all="ignore"):
        value, slope = evaluate(tree, x, c, _numpy_backend(), derivative)
    side = slope if derivative else value
    return np.full(x.shape, side) if np.ndim(side) == 0 else side  # a constant side is a scalar


@lru_cache(maxsize=2048)
def reference_side(text: str, derivative: bool):
    """_side of a problem's reference text, cached (read-only): a rollout group scores many
    answers to one problem, as with parse_reference."""
    side = _side(parse_reference(text), derivative)
    side.setflags(write=False)
    return side


def equal_at_points(a: tuple, a_derivative: bool, b: tuple, b_derivative: bool, b_side=None) -> bool | None:
    """Whether side a (the tree a, or its derivative if a_derivative) equals side b at every
    usable lane; None when no lane is usable. b_side: side b's lane values if already known
    (reference_side). ValueError: a constant exponent too large."""
    import numpy as np

    x, c = _lanes()
    sa = _side(a, a_derivative)
    sb = _side(b, b_derivative) if b_side is None else b_side
    with np.errstate(all="ignore"):
        ok = (np.abs(sa.real) < LIMIT) & (np.abs(sa.imag) < LIMIT) & (np.abs(sb.real) < LIMIT) & (np.abs(sb.imag) < LIMIT)
        close = ok & (np.abs(sa - sb) <= TOLERANCE * np.maximum(1.0, np.maximum(np.abs(sa), np.abs(sb))))
    usable = int(close.sum())
    for lane in np.flatnonzero(~close):  # a mismatch or an overflow in doubles: decide it in 30 digits
        verdict = _lane_in_mpmath(a, a_derivative, b, b_derivative, complex(x[lane]), complex(c[lane]))
        if verdict is False:
            return False
        usable += verdict is True
    return True if usable else None


def _lane_in_mpmath(a, a_derivative, b, b_derivative, x: complex, c: complex) -> bool | None:
    """True/False: the sides agree/differ at this lane in 30-digit arithmetic; None: unusable."""
    import mpmath

    backend = _mpmath_backend()
    with mpmath.workdps(MPMATH_DPS):
        xm, cm = mpmath.mpc(x), mpmath.mpc(c)
        try:
            va, da = evaluate(a, xm, cm, backend, a_derivative)
            vb, db = evaluate(b, xm, cm, backend, b_derivative)
            p, q = (complex(_mp_check(v)) for v in (da if a_derivative else va, db if b_derivative else vb))
        except (ArithmeticError, ValueError, TypeError):  # division by zero, out of range, domain
            return None
    if not (_usable(p) and _usable(q)):
        return None
    return _close(p, q)
