"""Exact linear algebra and polynomial arithmetic: rank, inverse, powers, GF(2) systems,
polynomial gcd and division, expression evaluation, polygon areas.

Mathematical operations in the RLVE paper's sense (rlve line 47): every answer is exact
(integers or fractions, computed with int / Fraction), and where an answer can be checked more
cheaply than found (an inverse, a GF(2) solution) the scorer checks it.
"""
from __future__ import annotations

from fractions import Fraction

from envs.gym.base import (INT_FORMAT, UNCOUNTED, GymEnv, IntEnv, Retry, ask, int_grid, int_list, lines, share,
                           to_fraction)
from envs.gym.algebra import poly_mul, poly_text

GRID_FORMAT = "Give the matrix as {n} lines of {n} integers separated by spaces."


def rank(matrix: list[list[int]], counter=UNCOUNTED) -> int:
    """Rank over the rationals (Gaussian elimination in Fractions)."""
    rows = [[Fraction(x) for x in r] for r in matrix]
    r = 0
    cols = len(rows[0]) if rows else 0
    counter.tick(len(rows) * cols * max(1, min(len(rows), cols)))
    for c in range(cols):
        pivot = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if pivot is None:
            continue
        rows[r], rows[pivot] = rows[pivot], rows[r]
        for i in range(len(rows)):
            if i != r and rows[i][c]:
                f = rows[i][c] / rows[r][c]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r])]
        r += 1
    return r


def inverse(matrix: list[list[int]], counter=UNCOUNTED) -> list[list[Fraction]] | None:
    """Gauss-Jordan inverse in Fractions; None when singular."""
    n = len(matrix)
    counter.tick(n ** 3 + 1)
    rows = [[Fraction(x) for x in r] + [Fraction(int(i == j)) for j in range(n)] for i, r in enumerate(matrix)]
    for c in range(n):
        pivot = next((i for i in range(c, n) if rows[i][c]), None)
        if pivot is None:
            return None
        rows[c], rows[pivot] = rows[pivot], rows[c]
        rows[c] = [x / rows[c][c] for x in rows[c]]
        for i in range(n):
            if i != c and rows[i][c]:
                f = rows[i][c]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[c])]
    return [r[n:] for r in rows]


def mat_mul(a, b):
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]


def _grid_text(m) -> str:
    return "\n".join(" ".join(map(str, r)) for r in m)


class MatrixRank(IntEnv):
    """Rank of an integer matrix (mathematical operations). d: an n x n matrix, n = d // 3 + 3,
    built as a product of n x r and r x n matrices with entries in [-3, 3], r uniform in
    [1, n]; the rank is computed exactly. Reward: -1 unparsable, 1 exact, else 0."""

    name = "matrix_rank"
    category = "math"
    brick_io = ("grid[int]", "int")
    brick_text = "the rank of the matrix over the rationals"

    def size(self, difficulty):
        return difficulty // 3 + 3

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        r = rng.randint(1, n)
        b = [[rng.randint(-3, 3) for _ in range(r)] for _ in range(n)]
        c = [[rng.randint(-3, 3) for _ in range(n)] for _ in range(r)]
        return mat_mul(b, c)

    def brick_apply(self, value, counter):
        return rank(value, counter)

    def build(self, rng, difficulty):
        m = self.brick_input(rng, difficulty)
        return {"matrix": m, "value": rank(m)}, str(rank(m))

    def prompt(self, problem):
        return ask(f"What is the rank of this matrix?\n{_grid_text(problem['matrix'])}", INT_FORMAT)


class MatrixInverse(GymEnv):
    """Inverse of a unimodular integer matrix (mathematical operations; checked, A X = I). d:
    n = d // 4 + 2, A = identity after 2n random row additions (multipliers in [-2, 2]) and a
    row permutation, so det A = +-1 and the inverse is an integer matrix. Reward: -1
    unparsable or wrong shape, else (entries of A X equal to those of I / n^2)^5, 1 only for
    the inverse."""

    name = "matrix_inverse"
    category = "math"
    brick_io = ("grid[int]", "grid[int]")
    brick_text = "the inverse of the matrix when it is square with an integer inverse, else no output"

    def size(self, difficulty):
        return difficulty // 4 + 2

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        a = [[int(i == j) for j in range(n)] for i in range(n)]
        for _ in range(2 * n):
            i, j = rng.sample(range(n), 2)
            k = rng.choice((-2, -1, 1, 2))
            a[i] = [x + k * y for x, y in zip(a[i], a[j])]
        rng.shuffle(a)
        return a

    def brick_apply(self, value, counter):
        if len(value) != len(value[0]):
            return None
        inv = inverse(value, counter)
        if inv is None or any(x.denominator != 1 for r in inv for x in r):
            return None
        return [[int(x) for x in r] for r in inv]

    def build(self, rng, difficulty):
        a = self.brick_input(rng, difficulty)
        return {"matrix": a}, lines(self.brick_apply(a, UNCOUNTED))

    def prompt(self, problem):
        n = len(problem["matrix"])
        return ask(f"Find the inverse of this integer matrix (it has determinant 1 or -1, so the inverse has integer "
                   f"entries):\n{_grid_text(problem['matrix'])}", GRID_FORMAT.format(n=n))

    def reward(self, problem, answer):
        a = problem["matrix"]
        n = len(a)
        x = int_grid(answer, n, n)
        if x is None:
            return -1.0
        if max(abs(v) for r in x for v in r) > 10 ** 30:
            return 0.0
        prod = mat_mul(a, x)
        return share(sum(prod[i][j] == int(i == j) for i in range(n) for j in range(n)), n * n, 5)


class MatrixPower(GymEnv):
    """A power of a small integer matrix (mathematical operations). d: n = 2 + d // 8, entries
    in [-2, 2], exponent k = 2 + d // 4. Reward: -1 unparsable or wrong shape, else (entries
    right / n^2)^5, 1 only when all are."""

    name = "matrix_power"
    category = "math"

    def size(self, difficulty):
        return (2 + difficulty // 8) * (2 + difficulty // 4)

    def build(self, rng, difficulty):
        n, k = 2 + difficulty // 8, 2 + difficulty // 4
        a = [[rng.randint(-2, 2) for _ in range(n)] for _ in range(n)]
        p = a
        for _ in range(k - 1):
            p = mat_mul(p, a)
        return {"matrix": a, "k": k, "power": p}, lines(p)

    def prompt(self, problem):
        n = len(problem["matrix"])
        return ask(f"Let A be this matrix:\n{_grid_text(problem['matrix'])}\n\nCompute A^{problem['k']} exactly.",
                   GRID_FORMAT.format(n=n))

    def reward(self, problem, answer):
        gold = problem["power"]
        n = len(gold)
        x = int_grid(answer, n, n)
        if x is None:
            return -1.0
        return share(sum(a == b for ra, rb in zip(x, gold) for a, b in zip(ra, rb)), n * n, 5)


class Gf2LinearSystem(GymEnv):
    """A linear system over GF(2) with a planted solution (mathematical operations; checked,
    any solution counts). d: n = d + 4 unknowns, n + 2 equations, each with about half of the
    unknowns. Reward: -1 unparsable, -0.5 wrong count or a value other than 0/1, 1 if every
    equation holds, else 0 (a random guess satisfies half of them, so no partial credit)."""

    name = "gf2_linear_system"
    category = "math"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        x = [rng.randint(0, 1) for _ in range(n)]
        rows = []
        while len(rows) < n + 2:
            row = sorted(i for i in range(n) if rng.random() < 0.5)
            if row:
                rows.append(row)
        rhs = [sum(x[i] for i in row) % 2 for row in rows]
        return {"n": n, "rows": rows, "rhs": rhs}, " ".join(map(str, x))

    def prompt(self, problem):
        eqs = "\n".join(" XOR ".join(f"x{i + 1}" for i in row) + f" = {b}" for row, b in zip(problem["rows"], problem["rhs"]))
        n = problem["n"]
        return ask(f"Find bits x1..x{n} (each 0 or 1) satisfying every equation (XOR is addition modulo 2):\n{eqs}",
                   f"Give {n} bits for x1..x{n} separated by spaces, e.g. <answer>{' '.join(['0', '1'] * (n // 2))}"
                   f"{' 0' if n % 2 else ''}</answer>.")

    def reward(self, problem, answer):
        x = int_list(answer)
        if len(x) != problem["n"] or any(v not in (0, 1) for v in x):
            return -0.5
        return 1.0 if all(sum(x[i] for i in row) % 2 == b for row, b in zip(problem["rows"], problem["rhs"])) else 0.0


def poly_divmod(a: list[Fraction], b: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    """Quotient and remainder (len(b) - 1 coefficients), highest degree first (b[0] != 0)."""
    a = a[:]
    q = [Fraction(0)] * max(1, len(a) - len(b) + 1)
    while len(a) >= len(b):
        f = a[0] / b[0]
        q[len(q) - (len(a) - len(b)) - 1] = f
        a = [x - f * y for x, y in zip(a, b + [0] * (len(a) - len(b)))][1:]
    return q, a


def poly_gcd(a: list[int], b: list[int]) -> list[Fraction]:
    """Monic gcd over the rationals."""
    x, y = [Fraction(c) for c in a], [Fraction(c) for c in b]
    while y and any(y):
        while y and y[0] == 0:
            y = y[1:]
        _, r = poly_divmod(x, y)
        while r and r[0] == 0:
            r = r[1:]
        x, y = y, r
    return [c / x[0] for c in x]


class PolynomialGcd(GymEnv):
    """Monic greatest common divisor of two integer polynomials (mathematical operations).
    d: both are g * f_i with g monic of degree 1 + d // 3 and f_i of degree 1 + d // 4,
    coefficients in [-4, 4]; the gcd is recomputed exactly (Euclid over Fractions) and must be
    an integer polynomial. Reward: -1 unparsable, 1 exact, else 0."""

    name = "polynomial_gcd"
    category = "math"

    def size(self, difficulty):
        return 1 + difficulty // 3

    def build(self, rng, difficulty):
        g = [1] + [rng.randint(-4, 4) for _ in range(self.size(difficulty))]
        fs = [[rng.choice([c for c in range(-4, 5) if c])] + [rng.randint(-4, 4) for _ in range(1 + difficulty // 4)]
              for _ in range(2)]
        p1, p2 = poly_mul(g, fs[0]), poly_mul(g, fs[1])
        gcd = poly_gcd(p1, p2)
        if any(c.denominator != 1 for c in gcd):
            raise Retry
        gcd = [int(c) for c in gcd]
        return {"p": p1, "q": p2, "gcd": gcd}, " ".join(map(str, gcd))

    def prompt(self, problem):
        return ask(f"P(x) = {poly_text(problem['p'])}\nQ(x) = {poly_text(problem['q'])}\n\nFind their greatest common "
                   "divisor, normalised to leading coefficient 1 (it has integer coefficients).",
                   "Give its coefficients from the highest power down to the constant term, separated by spaces, "
                   "e.g. <answer>1 -3 2</answer> for x^2 - 3x + 2.")

    def reward(self, problem, answer):
        return 1.0 if int_list(answer) == problem["gcd"] else 0.0


class PolynomialDivision(GymEnv):
    """Quotient and remainder of integer polynomials by a monic divisor (mathematical
    operations). d: divisor of degree k = 1 + d // 4, dividend of degree k + 1 + d // 3,
    coefficients in [-9, 9]. Answer: two lines, quotient and remainder (k coefficients, leading
    zeros included). Reward: -1 unparsable, -0.5 wrong shape, else (coefficients right / all)^5,
    1 only when all are."""

    name = "polynomial_division"
    category = "math"

    def size(self, difficulty):
        return 2 + difficulty // 4 + difficulty // 3

    def build(self, rng, difficulty):
        k = 1 + difficulty // 4
        b = [1] + [rng.randint(-9, 9) for _ in range(k)]
        a = [rng.choice([c for c in range(-9, 10) if c])] + [rng.randint(-9, 9) for _ in range(k + 1 + difficulty // 3)]
        q, r = poly_divmod([Fraction(c) for c in a], [Fraction(c) for c in b])
        q, r = [int(c) for c in q], [int(c) for c in r]
        r = [0] * (k - len(r)) + r
        return {"a": a, "b": b, "q": q, "r": r}, " ".join(map(str, q)) + "\n" + " ".join(map(str, r))

    def prompt(self, problem):
        k = len(problem["b"]) - 1
        return ask(f"Divide A(x) = {poly_text(problem['a'])} by B(x) = {poly_text(problem['b'])}: find Q and R with "
                   f"A = B * Q + R and deg R < {k}.",
                   f"Give two lines: the coefficients of Q from the highest power down, then the {k} coefficients of "
                   f"R from x^{k - 1} down to the constant term (leading zeros included), e.g. "
                   "<answer>1 0 -2\n0 3</answer>.")

    def reward(self, problem, answer):
        rows = [int_list(line) for line in answer.splitlines() if line.strip()]
        if len(rows) != 2 or len(rows[0]) != len(problem["q"]) or len(rows[1]) != len(problem["r"]):
            return -0.5
        got, gold = rows[0] + rows[1], problem["q"] + problem["r"]
        return share(sum(a == b for a, b in zip(got, gold)), len(gold), 5)


def random_expression(rng, ops: int) -> str:
    """A random fully bracketed-where-needed integer expression with `ops` binary operators."""
    if ops == 0:
        return str(rng.randint(1, 99))
    left = rng.randint(0, ops - 1)
    op = rng.choice("+-*")
    a, b = random_expression(rng, left), random_expression(rng, ops - 1 - left)
    if op == "*" or rng.random() < 0.3:
        a, b = (f"({x})" if any(o in x for o in "+-*") else x for x in (a, b))
    elif op == "-":
        b = f"({b})" if any(o in b for o in "+-") else b
    return f"{a} {op} {b}"


def evaluate(text: str, counter=UNCOUNTED) -> int | None:
    """Value of an expression over integers with + - * and parentheses; None if malformed.
    A shunting-free recursive descent with an explicit depth limit (no eval)."""
    toks, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "+-*()":
            toks.append(c)
            i += 1
        elif c.isdigit() and c.isascii():
            j = i
            while j < len(text) and text[j].isdigit() and text[j].isascii():
                j += 1
            if j - i > 100:
                return None
            toks.append(int(text[i:j]))
            i = j
        else:
            return None
    counter.tick(len(toks) + 1)
    pos = 0

    def atom(depth):
        nonlocal pos
        if depth > 200 or pos >= len(toks):
            raise ValueError
        t = toks[pos]
        pos += 1
        if t == "(":
            v = expr(depth + 1)
            if pos >= len(toks) or toks[pos] != ")":
                raise ValueError
            pos += 1
            return v
        if t == "-":
            return -atom(depth + 1)
        if isinstance(t, int):
            return t
        raise ValueError

    def term(depth):
        nonlocal pos
        v = atom(depth)
        while pos < len(toks) and toks[pos] == "*":
            pos += 1
            v *= atom(depth)
            if abs(v) > 10 ** 1000:
                raise ValueError
        return v

    def expr(depth):
        nonlocal pos
        v = term(depth)
        while pos < len(toks) and toks[pos] in "+-":
            op = toks[pos]
            pos += 1
            v = v + term(depth) if op == "+" else v - term(depth)
        return v

    try:
        v = expr(0)
    except ValueError:
        return None
    return v if pos == len(toks) else None


class ExpressionEvaluation(IntEnv):
    """Value of an integer expression with + - * and parentheses (mathematical operations).
    d: d + 3 operators over integers 1..99. Reward: -1 unparsable, 1 exact, else 0."""

    name = "expression_evaluation"
    category = "math"
    brick_io = ("str", "int")
    brick_text = "the value of the integer expression (+, -, * and parentheses), or no output if it is malformed"

    def size(self, difficulty):
        return difficulty + 3

    def brick_input(self, rng, difficulty):
        return random_expression(rng, self.size(difficulty))

    def brick_apply(self, value, counter):
        return evaluate(value, counter) if len(value) <= 10_000 else None

    def build(self, rng, difficulty):
        text = self.brick_input(rng, difficulty)
        v = evaluate(text)
        return {"expression": text, "value": v}, str(v)

    def prompt(self, problem):
        return ask(f"Compute {problem['expression']}.", INT_FORMAT)


def monotone_polygon(rng, n: int, top: int) -> list[tuple[int, int]]:
    """A simple polygon: n points with distinct x, split by the line through the leftmost and
    rightmost point into an upper chain (left to right) and a lower chain (right to left)."""
    xs = sorted(rng.sample(range(top + 1), n))
    pts = [(x, rng.randint(0, top)) for x in xs]
    (x0, y0), (x1, y1) = pts[0], pts[-1]

    def side(p):
        return (x1 - x0) * (p[1] - y0) - (y1 - y0) * (p[0] - x0)

    upper = [p for p in pts[1:-1] if side(p) > 0]
    lower = [p for p in pts[1:-1] if side(p) <= 0]
    return [pts[0]] + upper + [pts[-1]] + lower[::-1]


class PolygonArea(GymEnv):
    """Area of a simple lattice polygon (mathematical operations, the shoelace formula).
    d: n = d + 5 vertices with coordinates in [0, 10(d + 5)], an x-monotone polygon. Reward:
    -1 unparsable, 1 for the exact area (integer, decimal or fraction), else 0."""

    name = "polygon_area"
    category = "math"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pts = monotone_polygon(rng, n, 10 * n)
        twice = abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1])))
        if twice == 0:
            raise Retry
        gold = str(twice // 2) if twice % 2 == 0 else f"{twice // 2}.5"
        return {"points": pts, "twice_area": twice}, gold

    def prompt(self, problem):
        return ask("A simple polygon has these vertices, in order around it: " +
                   ", ".join(f"({x}, {y})" for x, y in problem["points"]) + ". What is its area?",
                   "Give the exact area as an integer or with .5, e.g. <answer>37.5</answer>.")

    def reward(self, problem, answer):
        return 1.0 if 2 * to_fraction(answer) == problem["twice_area"] else 0.0
