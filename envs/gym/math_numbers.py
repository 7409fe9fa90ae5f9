"""Number-theoretic functions and quadratic numbers: divisor power sums, the periodic continued
fraction of a square root, greatest common divisors and powers of Gaussian integers, long
division with remainder, shortest vectors of planar lattices.

Mathematical operations in the RLVE paper's sense (rlve line 47); exact integer arithmetic.
Rewards (our choice) are in each class.
"""
from __future__ import annotations

import math

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, Retry, ask, int_list, ratio
from envs.gym.math_modular import planted_modulus


class DivisorSigma(IntEnv):
    """sigma_k(n), the sum of the k-th powers of the divisors of n (mathematical operations:
    multiplicative, (p^(k(e+1)) - 1) / (p^k - 1) on each prime power; the factorisation is
    planted small). d: n a product of d // 3 + 2 prime powers below 30(d + 2), k in [1, 3].
    Reward: -1 unparsable, 1 exact, else 0. Its own problem: a divisor function of one number;
    divisor_summatory sums the divisor count over a range and euler_totient counts coprimes."""

    name = "divisor_sigma"
    category = "math"

    def size(self, difficulty):
        return difficulty // 3 + 2

    def build(self, rng, difficulty):
        n, factors = planted_modulus(rng, self.size(difficulty), 30 * (difficulty + 2))
        k = rng.randint(1, 3)
        value = math.prod((p ** (k * (e + 1)) - 1) // (p ** k - 1) for p, e in factors.items())
        return {"n": n, "k": k, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Compute sigma_{problem['k']}({problem['n']}): the sum of d^{problem['k']} over all positive "
                   f"divisors d of {problem['n']}.", INT_FORMAT)


def sqrt_cf(d: int) -> tuple[int, list[int]]:
    """a0 and the period of the continued fraction of sqrt(d), d not a square (the standard
    m, q, a recurrence; the period ends at the first a = 2 a0)."""
    a0 = math.isqrt(d)
    m, q, a, period = 0, 1, a0, []
    while a != 2 * a0:
        m = a * q - m
        q = (d - m * m) // q
        a = (a0 + m) // q
        period.append(a)
    return a0, period


class SqrtContinuedFraction(GymEnv):
    """The periodic continued fraction sqrt(D) = [a0; (a1, ..., ar)] of a non-square D
    (mathematical operations: Lagrange's theorem, the (m, q, a) recurrence on quadratic
    surds). d: D a non-square in [10(d + 2)^2, 20(d + 2)^2]. Answer: a0, then one period.
    Reward: -1 unparsable, 1 for a0 and the shortest period exactly, else 0. Its own
    problem: continued_fraction expands a rational (finite); this one is infinite and
    periodic, and pell_equation uses it without showing it."""

    name = "sqrt_continued_fraction"
    category = "math"

    def size(self, difficulty):
        return 10 * (difficulty + 2) ** 2

    def build(self, rng, difficulty):
        d = rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        if math.isqrt(d) ** 2 == d:
            d += 1
        a0, period = sqrt_cf(d)
        return {"d": d, "terms": [a0] + period}, " ".join(map(str, [a0] + period))

    def prompt(self, problem):
        return ask(f"The continued fraction of sqrt({problem['d']}) is periodic: [a0; a1, a2, ..., ar, a1, a2, ...]. "
                   "Find a0 and the shortest repeating block a1, ..., ar.",
                   "Give a0 followed by the block, separated by spaces, e.g. sqrt(7) = [2; 1, 1, 1, 4, ...] is "
                   "<answer>2 1 1 1 4</answer>.")

    def reward(self, problem, answer):
        return 1.0 if int_list(answer) == problem["terms"] else 0.0


def gauss_mod(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """a - q b for the Gaussian integer q nearest to a / b (so N(remainder) < N(b))."""
    (x, y), (u, v) = a, b
    n = u * u + v * v
    re, im = x * u + y * v, y * u - x * v  # a * conj(b)
    qr, qi = (2 * re + n) // (2 * n), (2 * im + n) // (2 * n)  # rounded to the nearest integer
    return x - (qr * u - qi * v), y - (qr * v + qi * u)


def gauss_gcd(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    while b != (0, 0):
        a, b = b, gauss_mod(a, b)
    return a


def _divides(g: tuple[int, int], z: tuple[int, int]) -> bool:
    (u, v), (x, y) = g, z
    n = u * u + v * v
    return n > 0 and (x * u + y * v) % n == 0 and (y * u - x * v) % n == 0


class GaussianIntegerGcd(GymEnv):
    """A greatest common divisor of two Gaussian integers a + bi (mathematical operations:
    Euclid's algorithm in Z[i], dividing by rounding to the nearest Gaussian integer; checked,
    any of the four associates counts). d: both are g * h_i with g, h_i having parts of
    d // 3 + 2 digits, either sign. Answer: x y for x + yi. Reward: -1 unparsable, -0.5 not two
    integers, 1 if it divides both and has the gcd's norm, else 0. Its own problem: division
    with remainder in a ring where the quotient is rounded in two dimensions; polynomial_gcd
    and the integer envs work in Euclidean domains of another shape."""

    name = "gaussian_integer_gcd"
    category = "math"

    def size(self, difficulty):
        return difficulty // 3 + 2

    def build(self, rng, difficulty):
        top = 10 ** self.size(difficulty)

        def z():
            return rng.randint(-top, top), rng.randint(-top, top)
        g, h1, h2 = z(), z(), z()
        mul = lambda p, q: (p[0] * q[0] - p[1] * q[1], p[0] * q[1] + p[1] * q[0])  # noqa: E731
        a, b = mul(g, h1), mul(g, h2)
        if a == (0, 0) or b == (0, 0):
            a = (a[0] + 1, a[1])
        gcd = gauss_gcd(a, b)
        return {"a": a, "b": b, "norm": gcd[0] ** 2 + gcd[1] ** 2}, f"{gcd[0]} {gcd[1]}"

    def prompt(self, problem):
        def text(z):
            x, y = z
            return f"{x} {'-' if y < 0 else '+'} {abs(y)}i"
        return ask(f"Find a greatest common divisor of the Gaussian integers {text(problem['a'])} and "
                   f"{text(problem['b'])} (any of its four associates counts).",
                   "Give its real and imaginary parts separated by a space, e.g. <answer>3 -2</answer> for 3 - 2i.")

    def reward(self, problem, answer):
        parts = int_list(answer)
        if len(parts) != 2:
            return -0.5
        g = (parts[0], parts[1])
        if max(abs(g[0]), abs(g[1])) > 10 ** 200:
            return 0.0
        ok = g[0] ** 2 + g[1] ** 2 == problem["norm"] and _divides(g, tuple(problem["a"])) and _divides(g, tuple(problem["b"]))
        return 1.0 if ok else 0.0


def gauss_pow(z: tuple[int, int], k: int) -> tuple[int, int]:
    """z^k by repeated squaring in Z[i]."""
    out, base = (1, 0), z
    while k:
        if k & 1:
            out = (out[0] * base[0] - out[1] * base[1], out[0] * base[1] + out[1] * base[0])
        base = (base[0] ** 2 - base[1] ** 2, 2 * base[0] * base[1])
        k >>= 1
    return out


class GaussianIntegerPower(GymEnv):
    """(a + bi)^k exactly (mathematical operations: binomial expansion or repeated squaring in
    Z[i]). d: a, b in [-(d + 3), d + 3], not both 0, k in [d + 3, 2d + 6]. Answer: x y for
    x + yi. Reward: -1 unparsable, -0.5 not two integers, 1 if both parts are right, 0.5 if
    one is (our choice), else 0. Its own problem: complex multiplication, where matrix_power
    multiplies integer matrices."""

    name = "gaussian_integer_power"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        m = self.size(difficulty)
        a, b = rng.randint(-m, m), rng.randint(1, m) * rng.choice((1, -1))
        k = rng.randint(difficulty + 3, 2 * difficulty + 6)
        x, y = gauss_pow((a, b), k)
        return {"a": a, "b": b, "k": k, "x": x, "y": y}, f"{x} {y}"

    def prompt(self, problem):
        a, b = problem["a"], problem["b"]
        return ask(f"Compute ({a} {'-' if b < 0 else '+'} {abs(b)}i)^{problem['k']} exactly, where i^2 = -1.",
                   "Give the real and imaginary parts separated by a space, e.g. <answer>-7 24</answer> for -7 + 24i.")

    def reward(self, problem, answer):
        parts = int_list(answer)
        if len(parts) != 2:
            return -0.5
        return ((parts[0] == problem["x"]) + (parts[1] == problem["y"])) / 2


class LongDivision(GymEnv):
    """Quotient and remainder of a long integer by another (mathematical operations: schoolbook
    long division). d: the dividend has 2d + 8 digits, the divisor d + 3. Answer: q r with
    a = q b + r, 0 <= r < b. Reward: -1 unparsable, -0.5 not two integers, 1 for both, 0.5
    for the right quotient with a wrong remainder (our choice), else 0. Its own problem: the
    inverse of long_multiplication, with a remainder."""

    name = "long_division"
    category = "math"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        a = rng.randint(10 ** (2 * difficulty + 7), 10 ** (2 * difficulty + 8) - 1)
        b = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3) - 1)
        q, r = divmod(a, b)
        return {"a": a, "b": b, "q": q, "r": r}, f"{q} {r}"

    def prompt(self, problem):
        return ask(f"Divide {problem['a']} by {problem['b']}: find the quotient q and remainder r with "
                   f"{problem['a']} = {problem['b']} * q + r and 0 <= r < {problem['b']}.",
                   "Give q and r separated by a space, e.g. <answer>123 45</answer>.")

    def reward(self, problem, answer):
        parts = int_list(answer)
        if len(parts) != 2:
            return -0.5
        q, r = parts
        if q == problem["q"]:
            return 1.0 if r == problem["r"] else 0.5
        return 0.0


def lagrange_reduce(b1: tuple[int, int], b2: tuple[int, int]) -> tuple[int, int]:
    """A shortest nonzero vector of the lattice spanned by b1, b2 (Lagrange-Gauss reduction:
    subtract the rounded projection, swap, until the basis is reduced)."""
    def norm(v):
        return v[0] * v[0] + v[1] * v[1]
    if norm(b1) > norm(b2):
        b1, b2 = b2, b1
    while True:
        dot = b1[0] * b2[0] + b1[1] * b2[1]
        m = (2 * dot + norm(b1)) // (2 * norm(b1))  # nearest integer to dot / |b1|^2
        b2 = (b2[0] - m * b1[0], b2[1] - m * b1[1])
        if norm(b2) >= norm(b1):
            return b1
        b1, b2 = b2, b1


class ShortestLatticeVector2D(GymEnv):
    """A shortest nonzero vector of the lattice {x b1 + y b2 : x, y integers} of two integer
    vectors (mathematical operations: Lagrange-Gauss reduction, the 2-dimensional case of
    LLL). d: b1, b2 = (short vectors with entries in [-9, 9]) times a random unimodular matrix
    with entries growing like 3^(d // 3 + 1), so the given basis is long and skewed. Answer:
    x y, the vector's coordinates. Reward: -1 unparsable, -0.5 not two integers, the zero
    vector or a vector outside the lattice, else (shortest squared length / its squared
    length)^5 (our choice). Its own problem: a lattice (integer combinations) rather than a
    vector space, and a norm to minimise; kernel_basis and matrix_rank work over the
    rationals."""

    name = "shortest_lattice_vector_2d"
    category = "math"

    def size(self, difficulty):
        return difficulty // 3 + 1

    def build(self, rng, difficulty):
        u = (rng.randint(-9, 9), rng.randint(-9, 9))
        v = (rng.randint(-9, 9), rng.randint(-9, 9))
        if u[0] * v[1] - u[1] * v[0] == 0:
            raise Retry
        for _ in range(self.size(difficulty)):  # skew by random unimodular steps
            k = rng.choice((1, -1)) * rng.randint(1, 3)
            u, v = (u[0] + k * v[0], u[1] + k * v[1]), u
        best = lagrange_reduce(u, v)
        return {"b1": u, "b2": v, "norm": best[0] ** 2 + best[1] ** 2}, f"{best[0]} {best[1]}"

    def prompt(self, problem):
        (a, b), (c, d) = problem["b1"], problem["b2"]
        return ask(f"The lattice L consists of all integer combinations x * ({a}, {b}) + y * ({c}, {d}). Find a "
                   "nonzero vector of L with the smallest possible length.",
                   "Give its two coordinates separated by a space, e.g. <answer>3 -1</answer>.")

    def reward(self, problem, answer):
        parts = int_list(answer)
        if len(parts) != 2 or parts == [0, 0] or max(map(abs, parts)) > 10 ** 100:
            return -0.5
        (a, b), (c, d) = problem["b1"], problem["b2"]
        det = a * d - b * c
        x_num, y_num = parts[0] * d - parts[1] * c, a * parts[1] - b * parts[0]  # Cramer's rule
        if x_num % det or y_num % det:
            return -0.5
        return ratio(problem["norm"], parts[0] ** 2 + parts[1] ** 2, 5)
