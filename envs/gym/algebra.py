"""Linear and polynomial algebra with planted integer solutions: linear systems, interpolation,
factorisation into linear factors, determinants. All arithmetic is exact (int / Fraction).
"""
from __future__ import annotations

from collections import Counter
import math

from envs.compose.samplers import ints_of, matrix_of

from envs.gym.base import GymEnv, Retry, ask, int_list, one_int


def determinant(m: list[list[int]]) -> int:
    """Bareiss fraction-free elimination: exact, integer intermediates, O(n^3)."""
    a = [row[:] for row in m]
    n, sign, prev = len(a), 1, 1
    for k in range(n - 1):
        if a[k][k] == 0:
            swap = next((i for i in range(k + 1, n) if a[i][k]), None)
            if swap is None:
                return 0
            a[k], a[swap] = a[swap], a[k]
            sign = -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) // prev
        prev = a[k][k]
    return sign * a[-1][-1]


def poly_text(coeffs: list[int]) -> str:
    """Coefficients from the highest degree down, as '3*x^2 - x + 5'."""
    deg, out = len(coeffs) - 1, []
    for i, c in enumerate(coeffs):
        if c == 0:
            continue
        p = deg - i
        mono = "" if p == 0 else ("x" if p == 1 else f"x^{p}")
        mag = str(abs(c)) if abs(c) != 1 or p == 0 else ""
        sign = ("-" if c < 0 else "") if not out else (" - " if c < 0 else " + ")
        out.append(sign + "*".join(t for t in (mag, mono) if t))
    return "".join(out) or "0"


def poly_text_linear(row: list[int]) -> str:
    """Coefficients of x1..xn as '2*x1 - x3 + 4*x4'."""
    out = []
    for j, c in enumerate(row):
        if c:
            sign = ("-" if c < 0 else "") if not out else (" - " if c < 0 else " + ")
            out.append(sign + (f"{abs(c)}*" if abs(c) != 1 else "") + f"x{j + 1}")
    return "".join(out) or "0"


def poly_mul(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


class LinearSystem(GymEnv):
    """Square linear system with a planted integer solution (mathematical operations).
    d: n = d + 2 unknowns, coefficients in [-5, 5], solution in [-9, 9], non-singular.
    Reward: -1 unparsable, -0.5 wrong count, else (equations satisfied / n)^5."""

    name = "linear_system"
    category = "math"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [[rng.randint(-5, 5) for _ in range(n)] for _ in range(n)]
        if determinant(a) == 0:
            raise Retry
        x = [rng.randint(-9, 9) for _ in range(n)]
        b = [sum(c * v for c, v in zip(row, x)) for row in a]
        return {"a": a, "b": b}, " ".join(map(str, x))

    def prompt(self, problem):
        n = len(problem["b"])
        eqs = "\n".join(poly_text_linear(row) + f" = {rhs}" for row, rhs in zip(problem["a"], problem["b"]))
        return ask(f"Solve for x1..x{n} (the solution is unique):\n{eqs}",
                   f"Give x1..x{n} separated by spaces, e.g. <answer>{' '.join(['1'] * n)}</answer>.")

    def reward(self, problem, answer):
        x, a, b = int_list(answer), problem["a"], problem["b"]
        if len(x) != len(b):
            return -0.5
        return (sum(sum(c * v for c, v in zip(row, x)) == rhs for row, rhs in zip(a, b)) / len(b)) ** 5


class PolynomialInterpolation(GymEnv):
    """Integer polynomial through given points (mathematical operations). d: degree d + 1, so
    d + 2 points; coefficients in [-9, 9]. Reward: -1 unparsable, -0.5 wrong count, else
    (points the answer passes through / points)^5 (the interpolant is unique, so 1 = exact)."""

    name = "polynomial_interpolation"
    category = "math"

    brick_io = ("list[int]", "list[int]")
    brick_text = ("Read the list as the values P(0), P(1), ..., P(k) of a polynomial of degree at most k; give its "
                  "coefficients from the highest power down, leading zeros dropped (no output unless all are integers).")

    def brick_input(self, rng, difficulty):
        coeffs = ints_of(rng, self.size(difficulty) + 1, -3, 3)
        return [_eval(coeffs, x) for x in range(len(coeffs))]

    def brick_apply(self, ys, counter):
        k = len(ys) - 1
        counter.tick((k + 1) ** 2)
        fact = math.factorial(k)  # k! * P = sum of (k-th differences at 0) * (k!/j!) * x(x-1)...(x-j+1)
        total, falling, diffs = [0] * (k + 1), [1], list(ys)  # coefficients lowest power first
        for j in range(k + 1):
            scale = diffs[0] * (fact // math.factorial(j))
            for i, c in enumerate(falling):
                total[i] += scale * c
            diffs = [b - a for a, b in zip(diffs, diffs[1:])]
            falling = [(falling[i - 1] if i else 0) - j * (falling[i] if i < len(falling) else 0)
                       for i in range(len(falling) + 1)]
        if any(c % fact for c in total):
            return None
        coeffs = [c // fact for c in total]
        while len(coeffs) > 1 and coeffs[-1] == 0:
            coeffs.pop()
        return coeffs[::-1]

    def size(self, difficulty):
        return difficulty + 1

    def build(self, rng, difficulty):
        deg = self.size(difficulty)
        coeffs = [rng.choice([c for c in range(-9, 10) if c])] + [rng.randint(-9, 9) for _ in range(deg)]
        xs = sorted(rng.sample(range(-deg - 2, deg + 3), deg + 1))
        return {"xs": xs, "ys": [_eval(coeffs, x) for x in xs]}, " ".join(map(str, coeffs))

    def prompt(self, problem):
        deg = len(problem["xs"]) - 1
        pts = ", ".join(f"P({x}) = {y}" for x, y in zip(problem["xs"], problem["ys"]))
        return ask(f"P is a polynomial of degree {deg} with integer coefficients, and {pts}. Find P.",
                   f"Give its {deg + 1} coefficients from x^{deg} down to the constant term, separated by spaces, "
                   "e.g. <answer>2 0 -3</answer> for 2x^2 - 3.")

    def reward(self, problem, answer):
        c, xs, ys = int_list(answer), problem["xs"], problem["ys"]
        if len(c) != len(xs):
            return -0.5
        return (sum(_eval(c, x) == y for x, y in zip(xs, ys)) / len(xs)) ** 5


def _eval(coeffs: list[int], x: int) -> int:
    acc = 0
    for c in coeffs:
        acc = acc * x + c
    return acc


class PolynomialFactorization(GymEnv):
    """Roots of a monic integer polynomial that splits into linear factors (mathematical
    operations). d: degree d + 2, roots in [-9, 9] with repetition. Reward: -1 unparsable,
    -0.5 wrong count, else (roots matched with multiplicity / degree)^5."""

    name = "polynomial_factorization"
    category = "math"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        roots = sorted(rng.randint(-9, 9) for _ in range(self.size(difficulty)))
        poly = [1]
        for r in roots:
            poly = poly_mul(poly, [1, -r])
        return {"coeffs": poly, "roots": roots}, " ".join(map(str, roots))

    def prompt(self, problem):
        deg = len(problem["roots"])
        return ask(f"Factor p(x) = {poly_text(problem['coeffs'])} as (x - r1)(x - r2)...(x - r{deg}) with integers r_i.",
                   f"Give the {deg} roots r_i with multiplicity, in any order, separated by spaces, e.g. "
                   "<answer>-2 1 1</answer>.")

    def reward(self, problem, answer):
        got, roots = int_list(answer), problem["roots"]
        if len(got) != len(roots):
            return -0.5
        return (sum((Counter(got) & Counter(roots)).values()) / len(roots)) ** 5


class MatrixDeterminant(GymEnv):
    """Determinant of an integer matrix (mathematical operations). d: n = d // 2 + 2, entries in
    [-9, 9]. Reward: -1 unparsable, 1 exact, else 0."""

    name = "matrix_determinant"
    category = "math"

    brick_io = ("matrix", "int")
    brick_text = "The determinant of the matrix."

    def brick_input(self, rng, difficulty):
        return matrix_of(rng, self.size(difficulty), 5)

    def brick_apply(self, m, counter):
        counter.tick(len(m) ** 3)
        return determinant(m)

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        m = [[rng.randint(-9, 9) for _ in range(n)] for _ in range(n)]
        return {"matrix": m, "det": determinant(m)}, str(determinant(m))

    def prompt(self, problem):
        rows = "\n".join(" ".join(map(str, r)) for r in problem["matrix"])
        return ask(f"Compute the determinant of this matrix:\n{rows}", "Give one integer, e.g. <answer>-12</answer>.")

    def reward(self, problem, answer):
        return 1.0 if one_int(answer) == problem["det"] else 0.0

