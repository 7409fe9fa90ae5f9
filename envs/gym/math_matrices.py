"""Matrix operations with exact answers: determinants over F_p, inverses over the rationals,
characteristic polynomials, kernel bases, permanents, spanning-tree counts (the matrix-tree
theorem), LU factorisations, planted integer eigenvalues.

Mathematical operations in the RLVE paper's sense (rlve line 47); all arithmetic is int /
Fraction. Where an answer can be checked more cheaply than found (an inverse, a kernel, an LU
factorisation) the scorer checks it. Rewards (our choice) are in each class.
"""
from __future__ import annotations

import math
from fractions import Fraction

from envs.gym.algebra import determinant
from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, Retry, ask, int_grid, int_list, matches, share, to_fraction
from envs.gym.linear_algebra import inverse, mat_mul, rank
from envs.gym.number_theory import random_prime


def grid_text(m) -> str:
    return "\n".join(" ".join(map(str, r)) for r in m)


def det_mod(m: list[list[int]], p: int) -> int:
    """Determinant over F_p by Gaussian elimination with modular inverses."""
    a = [[x % p for x in r] for r in m]
    n, det = len(a), 1
    for c in range(n):
        pivot = next((i for i in range(c, n) if a[i][c]), None)
        if pivot is None:
            return 0
        if pivot != c:
            a[c], a[pivot] = a[pivot], a[c]
            det = -det
        det = det * a[c][c] % p
        inv = pow(a[c][c], -1, p)
        for i in range(c + 1, n):
            if a[i][c]:
                f = a[i][c] * inv % p
                a[i] = [(x - f * y) % p for x, y in zip(a[i], a[c])]
    return det % p


class DeterminantModPrime(IntEnv):
    """The determinant of a matrix over the field F_p (mathematical operations: elimination
    with modular inverses). d: n = d // 2 + 3, p a prime in [1000, 10^4 (d + 1)], entries in
    [0, p). Reward: -1 unparsable, 1 exact (in 0..p-1), else 0. Its own problem:
    matrix_determinant's entries are one digit and its answer exact; here entries are large
    residues, so the exact determinant is huge and pivots need inverses mod p."""

    name = "determinant_mod_prime"
    category = "math"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        p = random_prime(rng, 1000, 10 ** 4 * (difficulty + 1))
        m = [[rng.randrange(p) for _ in range(n)] for _ in range(n)]
        value = det_mod(m, p)
        return {"matrix": m, "p": p, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Compute the determinant of this matrix modulo the prime {problem['p']} (as a number in "
                   f"0..{problem['p'] - 1}):\n{grid_text(problem['matrix'])}", INT_FORMAT)


def fraction_grid(answer: str, rows: int, cols: int) -> list[list[Fraction]] | None:
    """`rows` lines of `cols` exact rationals; None on a wrong shape, ValueError on junk."""
    lines = [line.replace(",", " ").split() for line in answer.splitlines() if line.strip()]
    if len(lines) != rows or any(len(r) != cols for r in lines):
        return None
    if any(len(t) > 200 for r in lines for t in r):  # bounds the products below
        raise ValueError("entry too long")
    return [[to_fraction(t) for t in r] for r in lines]


def frac_text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


class RationalMatrixInverse(GymEnv):
    """The inverse of a non-singular integer matrix, entries as fractions (mathematical
    operations; checked, A X = I). d: n = d // 4 + 2, entries in [-5, 5], det != 0 and
    |det| > 1 (so fractions appear). Reward: -1 unparsable or wrong shape, else (entries of A X
    equal to those of I / n^2)^5, 1 only for the inverse. Its own problem: matrix_inverse is
    restricted to unimodular matrices with integer inverses; here every entry is a rational
    with the determinant as denominator."""

    name = "rational_matrix_inverse"
    category = "math"

    def size(self, difficulty):
        return difficulty // 4 + 2

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [[rng.randint(-5, 5) for _ in range(n)] for _ in range(n)]
        if abs(determinant(a)) < 2:
            raise Retry
        inv = inverse(a)
        return {"matrix": a}, "\n".join(" ".join(frac_text(x) for x in r) for r in inv)

    def prompt(self, problem):
        n = len(problem["matrix"])
        return ask(f"Find the inverse of this matrix over the rationals:\n{grid_text(problem['matrix'])}",
                   f"Give {n} lines of {n} entries separated by spaces, each an integer or a fraction p/q, e.g. "
                   "<answer>1/2 -3/4\n0 1</answer>.")

    def reward(self, problem, answer):
        a = problem["matrix"]
        n = len(a)
        x = fraction_grid(answer, n, n)
        if x is None:
            return -1.0
        prod = mat_mul(a, x)
        return share(sum(prod[i][j] == int(i == j) for i in range(n) for j in range(n)), n * n, 5)


def char_poly(a: list[list[int]]) -> list[int]:
    """det(x I - A), highest power first, by Faddeev-LeVerrier in exact Fractions."""
    n = len(a)
    coeffs = [Fraction(1)]
    m = [[Fraction(0)] * n for _ in range(n)]
    for k in range(1, n + 1):
        m = [[sum(Fraction(a[i][t]) * m[t][j] for t in range(n)) + (coeffs[-1] if i == j else 0) for j in range(n)]
             for i in range(n)]
        am = [[sum(a[i][t] * m[t][j] for t in range(n)) for j in range(n)] for i in range(n)]
        coeffs.append(-sum(am[i][i] for i in range(n)) / k)
    return [int(c) for c in coeffs]


class CharacteristicPolynomial(GymEnv):
    """The characteristic polynomial det(x I - A) of an integer matrix (mathematical
    operations: Faddeev-LeVerrier, Hessenberg or cofactor expansion). d: n = d // 3 + 2,
    entries in [-5, 5]. Reward: -1 unparsable, -0.5 not n + 1 coefficients, else (coefficients
    right / (n + 1))^5, 1 only when all are. Its own problem: a polynomial-valued invariant;
    matrix_determinant is only its constant term (up to sign)."""

    name = "characteristic_polynomial"
    category = "math"

    def size(self, difficulty):
        return difficulty // 3 + 2

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [[rng.randint(-5, 5) for _ in range(n)] for _ in range(n)]
        coeffs = char_poly(a)
        return {"matrix": a, "coeffs": coeffs}, " ".join(map(str, coeffs))

    def prompt(self, problem):
        n = len(problem["matrix"])
        return ask(f"Compute the characteristic polynomial det(xI - A) of\n{grid_text(problem['matrix'])}",
                   f"Give its {n + 1} coefficients from x^{n} down to the constant term, separated by spaces, e.g. "
                   "<answer>1 -5 6</answer> for x^2 - 5x + 6.")

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["coeffs"], 5)


def kernel_basis(a: list[list[int]]) -> list[list[int]]:
    """An integer basis of {v : A v = 0} from the reduced row echelon form."""
    rows = [[Fraction(x) for x in r] for r in a]
    cols, pivots, r = len(a[0]), [], 0
    for c in range(cols):
        pivot = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if pivot is None:
            continue
        rows[r], rows[pivot] = rows[pivot], rows[r]
        rows[r] = [x / rows[r][c] for x in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c]:
                f = rows[i][c]
                rows[i] = [x - f * y for x, y in zip(rows[i], rows[r])]
        pivots.append(c)
        r += 1
    basis = []
    for free in (c for c in range(cols) if c not in pivots):
        v = [Fraction(0)] * cols
        v[free] = Fraction(1)
        for i, c in enumerate(pivots):
            v[c] = -rows[i][free]
        scale = math.lcm(*(x.denominator for x in v))
        basis.append([int(x * scale) for x in v])
    return basis


class KernelBasis(GymEnv):
    """A basis of the null space {v : A v = 0} of an integer matrix, as integer vectors
    (mathematical operations; checked). d: an m x n matrix with n = d // 3 + 4 columns,
    m = n - 1 rows and planted rank r in [1, n - 2] (a product of m x r and r x n matrices with
    entries in [-3, 3]). Reward: -1 unparsable, -0.5 not n - r vectors of n integers, 0 if one
    is not in the kernel or they are dependent, else 1 (any basis counts). Its own problem:
    matrix_rank gives the kernel's dimension; here its vectors must be produced."""

    name = "kernel_basis"
    category = "math"

    def size(self, difficulty):
        return difficulty // 3 + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        r = rng.randint(1, n - 2)
        b = [[rng.randint(-3, 3) for _ in range(r)] for _ in range(n - 1)]
        c = [[rng.randint(-3, 3) for _ in range(n)] for _ in range(r)]
        a = mat_mul(b, c)
        basis = kernel_basis(a)
        if len(basis) != n - r:
            raise Retry  # the product lost rank: redraw, so r is the planted rank
        return {"matrix": a, "dim": len(basis)}, grid_text(basis)

    def prompt(self, problem):
        a, k = problem["matrix"], problem["dim"]
        return ask(f"A is the {len(a)} x {len(a[0])} matrix\n{grid_text(a)}\n\nIts null space {{v : A v = 0}} has "
                   f"dimension {k}. Give a basis of it made of integer vectors.",
                   f"Give {k} lines, each a vector of {len(a[0])} integers separated by spaces, e.g. "
                   "<answer>1 -2 1 0\n0 1 0 -1</answer>.")

    def reward(self, problem, answer):
        a, k = problem["matrix"], problem["dim"]
        vs = int_grid(answer, k, len(a[0]))
        if vs is None:
            return -0.5
        if max(abs(x) for v in vs for x in v) > 10 ** 30:
            return 0.0
        if any(any(sum(x * y for x, y in zip(row, v)) for row in a) for v in vs):
            return 0.0
        return 1.0 if rank(vs) == k else 0.0


def permanent(m: list[list[int]]) -> int:
    """Ryser's formula with a Gray-code walk over column subsets: O(2^n n)."""
    n = len(m)
    sums, total, chosen = [0] * n, 0, 0
    for k in range(1, 1 << n):
        j = (k & -k).bit_length() - 1  # the column that flips between Gray codes k - 1 and k
        gray = k ^ (k >> 1)
        sign = 1 if gray >> j & 1 else -1
        for i in range(n):
            sums[i] += sign * m[i][j]
        chosen += sign
        prod = math.prod(sums)
        total += prod if (n - chosen) % 2 == 0 else -prod
    return total


class MatrixPermanent(IntEnv):
    """The permanent of a small non-negative integer matrix: the sum over permutations of
    products, with no signs (mathematical operations: Ryser's formula; #P-hard in general).
    d: n = 3 + isqrt(2d), entries in [0, 3]. Reward: -1 unparsable, 1 exact, else 0. Its own
    problem: the determinant's signs make it polynomial (Gaussian elimination); the permanent
    has no such shortcut."""

    name = "matrix_permanent"
    category = "math"

    def size(self, difficulty):
        return 3 + math.isqrt(2 * difficulty)

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        m = [[rng.randint(0, 3) for _ in range(n)] for _ in range(n)]
        value = permanent(m)
        return {"matrix": m, "value": value}, str(value)

    def prompt(self, problem):
        return ask("Compute the permanent of this matrix (the sum over all permutations s of "
                   f"a[1][s(1)] * ... * a[n][s(n)], without signs):\n{grid_text(problem['matrix'])}", INT_FORMAT)


class SpanningTreeCount(IntEnv):
    """The number of spanning trees of a connected simple graph (mathematical operations: the
    matrix-tree theorem, any cofactor of the Laplacian). d: n = d + 4 vertices, a random tree
    plus n // 2 + d // 2 extra edges. Reward: -1 unparsable, 1 exact, else 0. Its own problem:
    a count obtained as a determinant of a derived matrix, not a matrix given as input."""

    name = "spanning_tree_count"
    category = "math"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = {tuple(sorted((v, rng.randrange(v)))) for v in range(1, n)}
        pairs = [(u, v) for u in range(n) for v in range(u + 1, n) if (u, v) not in edges]
        edges |= set(rng.sample(pairs, min(len(pairs), n // 2 + difficulty // 2)))
        lap = [[0] * n for _ in range(n)]
        for u, v in edges:
            lap[u][v] -= 1
            lap[v][u] -= 1
            lap[u][u] += 1
            lap[v][v] += 1
        value = determinant([r[1:] for r in lap[1:]])
        labels = list(range(1, n + 1))
        rng.shuffle(labels)
        shown = sorted(tuple(sorted((labels[u], labels[v]))) for u, v in edges)
        return {"n": n, "edges": shown, "value": value}, str(value)

    def prompt(self, problem):
        edges = ", ".join(f"{u}-{v}" for u, v in problem["edges"])
        return ask(f"An undirected graph has vertices 1 to {problem['n']} and edges {edges}. How many spanning trees "
                   "does it have?", INT_FORMAT)


class LuDecomposition(GymEnv):
    """A = L U with L unit lower triangular and U upper triangular (Doolittle, no pivoting;
    mathematical operations; checked). d: n = d // 4 + 2, A = L U planted from integer L
    (entries below the diagonal in [-3, 3]) and U (diagonal in [1, 4] with random signs, above
    in [-5, 5]), so the factorisation exists, is unique and integer. Answer: L's n rows, then
    U's. Reward: -1 unparsable, -0.5 not 2n rows of n integers, 0 if L is not unit lower or U
    not upper triangular, else (entries of L U equal to A / n^2)^5. Its own problem: a
    factorisation (elimination's multipliers kept), not an inverse or a determinant."""

    name = "lu_decomposition"
    category = "math"

    def size(self, difficulty):
        return difficulty // 4 + 2

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        lo = [[rng.randint(-3, 3) if j < i else int(i == j) for j in range(n)] for i in range(n)]
        up = [[(rng.choice((1, -1)) * rng.randint(1, 4) if i == j else rng.randint(-5, 5)) if j >= i else 0
               for j in range(n)] for i in range(n)]
        return {"matrix": mat_mul(lo, up)}, grid_text(lo) + "\n" + grid_text(up)

    def prompt(self, problem):
        n = len(problem["matrix"])
        return ask(f"Factor A = L U, with L lower triangular with ones on its diagonal and U upper triangular, "
                   f"where A is\n{grid_text(problem['matrix'])}\n(both have integer entries).",
                   f"Give {2 * n} lines of {n} integers: the rows of L, then the rows of U, e.g. "
                   "<answer>1 0\n2 1\n3 1\n0 -2</answer>.")

    def reward(self, problem, answer):
        a = problem["matrix"]
        n = len(a)
        rows = int_grid(answer, 2 * n, n)
        if rows is None:
            return -0.5
        lo, up = rows[:n], rows[n:]
        if max(abs(x) for r in rows for x in r) > 10 ** 30:
            return 0.0
        if any(lo[i][j] != int(i == j) for i in range(n) for j in range(i, n)) or \
                any(up[i][j] for i in range(n) for j in range(i)):
            return 0.0
        prod = mat_mul(lo, up)
        return share(sum(prod[i][j] == a[i][j] for i in range(n) for j in range(n)), n * n, 5)


class IntegerEigenvalues(GymEnv):
    """The eigenvalues of an integer matrix that has only integer eigenvalues, with
    multiplicity (mathematical operations). d: n = d // 4 + 2, A = P D P^-1 with D diagonal in
    [-9, 9] and P unimodular (n + 2 random row additions), so A is integer and its eigenvalues
    are D's. Answer: the eigenvalues in non-decreasing order. Reward: -1 unparsable, -0.5 not n
    numbers, else (positions right / n)^5 (matches()). Its own problem: a spectrum,
    similarity-invariant, where characteristic_polynomial asks for coefficients and
    polynomial_factorization for roots of a polynomial given outright."""

    name = "integer_eigenvalues"
    category = "math"

    def size(self, difficulty):
        return difficulty // 4 + 2

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        eig = [rng.randint(-9, 9) for _ in range(n)]
        p = [[int(i == j) for j in range(n)] for i in range(n)]
        for _ in range(n + 2):
            i, j = rng.sample(range(n), 2)
            k = rng.choice((-2, -1, 1, 2))
            p[i] = [x + k * y for x, y in zip(p[i], p[j])]
        p_inv = [[int(x) for x in r] for r in inverse(p)]
        a = mat_mul(mat_mul(p, [[eig[i] if i == j else 0 for j in range(n)] for i in range(n)]), p_inv)
        if max(abs(x) for r in a for x in r) > 10 ** 6:
            raise Retry
        return {"matrix": a, "eigenvalues": sorted(eig)}, " ".join(map(str, sorted(eig)))

    def prompt(self, problem):
        return ask(f"Every eigenvalue of this matrix is an integer. Find them all, with multiplicity:\n"
                   f"{grid_text(problem['matrix'])}",
                   "Give them in non-decreasing order separated by spaces, e.g. <answer>-2 1 1 4</answer>.")

    def reward(self, problem, answer):
        got = int_list(answer)
        return matches(sorted(got), problem["eigenvalues"], 5)
