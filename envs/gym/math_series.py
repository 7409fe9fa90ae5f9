"""Series in closed form and combinatorial identities: power sums, infinite power series,
telescoping sums, binomial moments, alternating binomial sums, floor sums, harmonic and
Bernoulli numbers, multinomial coefficients.

Mathematical operations in the RLVE paper's sense (rlve line 47): each sum has far too many
terms to add one by one (n has many digits, or the series is infinite), so the answer needs
the closed form; the generator evaluates that closed form exactly (int / Fraction). Rewards
(our choice): -1 unparsable, 1 for the exact value, else 0.
"""
from __future__ import annotations

import math
from fractions import Fraction

from envs.gym.base import INT_FORMAT, IntEnv, Retry, ask
from envs.gym.math_exact import FRACTION_FORMAT, RationalEnv, frac_text


def stirling2_row(k: int) -> list[int]:
    """S(k, j) for j = 0..k (Stirling numbers of the second kind)."""
    row = [1]
    for i in range(1, k + 1):
        row = [0] + [j * (row[j] if j < len(row) else 0) + row[j - 1] for j in range(1, i + 1)]
    return row


def falling(n: int, j: int) -> int:
    out = 1
    for t in range(j):
        out *= n - t
    return out


class PowerSum(IntEnv):
    """1^k + 2^k + ... + n^k for a huge n (mathematical operations: Faulhaber's formula, or
    sum_j S(k, j) j! C(n + 1, j + 1)). d: n with d + 3 digits, k in [2, 2 + d // 3]. Reward: -1
    unparsable, 1 exact, else 0. Its own problem: a closed form polynomial in n of degree k + 1;
    divisor_summatory and the other counts are sums of arithmetic functions, not of powers."""

    name = "power_sum"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        k = rng.randint(2, 2 + difficulty // 3)
        s = stirling2_row(k)
        value = sum(s[j] * math.factorial(j) * math.comb(n + 1, j + 1) for j in range(1, k + 1))
        return {"n": n, "k": k, "value": value}, str(value)

    def explain(self, problem):
        """The identity sum_j S(k, j) j! C(n + 1, j + 1), one term per line."""
        n, k = problem["n"], problem["k"]
        s = stirling2_row(k)
        terms = [s[j] * math.factorial(j) * math.comb(n + 1, j + 1) for j in range(1, k + 1)]
        lines = [f"S({k}, {j}) * {j}! * C({n + 1}, {j + 1}) = {s[j]} * {math.factorial(j)} * "
                 f"{math.comb(n + 1, j + 1)} = {t}" for j, t in zip(range(1, k + 1), terms)]
        return "\n".join(lines + [" + ".join(map(str, terms)) + f" = {sum(terms)}"])

    def prompt(self, problem):
        return ask(f"Compute 1^{problem['k']} + 2^{problem['k']} + ... + {problem['n']}^{problem['k']} exactly.",
                   INT_FORMAT)


def power_series(k: int, x: Fraction) -> Fraction:
    """sum_{i >= 1} i^k x^i for 0 < x < 1: sum_j S(k, j) j! x^j / (1 - x)^(j + 1)."""
    s = stirling2_row(k)
    return sum(s[j] * math.factorial(j) * x ** j / (1 - x) ** (j + 1) for j in range(1, k + 1))


class PowerSeriesSum(RationalEnv):
    """The infinite sum of i^k / r^i over i >= 1 for a rational r > 1 (mathematical operations:
    differentiate the geometric series k times; Eulerian polynomials). d: k = d // 2 + 1,
    r = q / p with 1 <= p < q <= 10 + d. Reward: -1 unparsable, 1 exact, else 0. Its own
    problem: an infinite series with a rational closed form, where power_sum is a finite sum of
    huge length."""

    name = "power_series_sum"

    def size(self, difficulty):
        return difficulty // 2 + 1

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        q = rng.randint(2, 10 + difficulty)
        p = rng.randint(1, q - 1)
        x = Fraction(p, q)
        value = power_series(k, x)
        r = 1 / x
        return {"k": k, "r": frac_text(r), "num": value.numerator, "den": value.denominator}, frac_text(value)

    def prompt(self, problem):
        r = problem["r"]
        rr = r if "/" not in r else f"({r})"
        return ask(f"Compute the infinite sum of i^{problem['k']} / {rr}^i over i = 1, 2, 3, ... exactly.",
                   FRACTION_FORMAT)


class TelescopingSum(RationalEnv):
    """sum_{i=1}^{n} 1 / ((i + a)(i + b)) for a huge n (mathematical operations: partial
    fractions, then the sum telescopes to (1 / (b - a)) sum_{j=a+1}^{b} (1/j - 1/(n + j))).
    d: n with d + 3 digits, 0 <= a < b <= a + d // 3 + 3. Reward: -1 unparsable, 1 exact, else
    0. Its own problem: the closed form comes from cancellation between terms, not a formula
    for powers."""

    name = "telescoping_sum"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        a = rng.randint(0, 9)
        b = a + rng.randint(1, difficulty // 3 + 3)
        value = Fraction(1, b - a) * sum(Fraction(1, j) - Fraction(1, n + j) for j in range(a + 1, b + 1))
        return {"n": n, "a": a, "b": b, "num": value.numerator, "den": value.denominator}, frac_text(value)

    def explain(self, problem):
        """Partial fractions, then the telescoped closed form."""
        n, a, b = problem["n"], problem["a"], problem["b"]
        return (f"1/((i + {a})(i + {b})) = (1/{b - a}) * (1/(i + {a}) - 1/(i + {b}))\n"
                f"the sum telescopes to (1/{b - a}) * sum over j = {a + 1}..{b} of (1/j - 1/({n} + j))\n"
                f"= {problem['num']}/{problem['den']}")

    def prompt(self, problem):
        a, b = problem["a"], problem["b"]
        first = "i" if a == 0 else f"(i + {a})"
        return ask(f"Compute the sum of 1 / ({first} * (i + {b})) over i = 1, 2, ..., {problem['n']} exactly.",
                   FRACTION_FORMAT)


class BinomialMomentSum(IntEnv):
    """sum_{i=0}^{n} C(n, i) i^k (mathematical operations: the identity
    sum_j S(k, j) n(n-1)...(n-j+1) 2^(n-j)). d: n in [5(d + 2), 10(d + 2)], k in
    [1, 2 + d // 4]. Reward: -1 unparsable, 1 exact, else 0. Its own problem: a weighted
    binomial identity, not a single coefficient (lucas_binomial) or a count."""

    name = "binomial_moment_sum"
    category = "math"

    def size(self, difficulty):
        return 5 * (difficulty + 2)

    def build(self, rng, difficulty):
        n = rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        k = rng.randint(1, 2 + difficulty // 4)
        s = stirling2_row(k)
        value = sum(s[j] * falling(n, j) * 2 ** (n - j) for j in range(k + 1) if j <= n)
        return {"n": n, "k": k, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Compute the sum of C({problem['n']}, i) * i^{problem['k']} over i = 0, 1, ..., {problem['n']} "
                   "exactly, where C(n, i) is the binomial coefficient.", INT_FORMAT)


class AlternatingBinomialSum(IntEnv):
    """sum_{i=0}^{k} (-1)^i C(n, i) for a huge n (mathematical operations: the identity
    (-1)^k C(n - 1, k)). d: n with d + 3 digits, k in [d // 3 + 2, d // 2 + 4]. Reward: -1 unparsable,
    1 exact, else 0. Its own problem: a partial alternating row sum whose terms are each far
    larger than the answer's size suggests; the identity, not the terms, gives it."""

    name = "alternating_binomial_sum"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        k = rng.randint(difficulty // 3 + 2, difficulty // 2 + 4)
        value = (-1) ** k * math.comb(n - 1, k)
        return {"n": n, "k": k, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Compute C({problem['n']}, 0) - C({problem['n']}, 1) + C({problem['n']}, 2) - ... "
                   f"+ (-1)^{problem['k']} C({problem['n']}, {problem['k']}) exactly (the alternating sum of the "
                   f"binomial coefficients C(n, i) for i = 0..{problem['k']}).", INT_FORMAT)


def floor_sum(n: int, m: int, a: int, b: int) -> int:
    """sum_{i=0}^{n-1} floor((a i + b) / m) for a, b >= 0, m >= 1, in O(log) steps (the
    Euclid-like reduction)."""
    total = 0
    while True:
        if a >= m:
            total += (n - 1) * n // 2 * (a // m)
            a %= m
        if b >= m:
            total += n * (b // m)
            b %= m
        y_max = a * n + b
        if y_max < m:
            return total
        n, b, m, a = y_max // m, y_max % m, a, m


class FloorSum(IntEnv):
    """sum_{i=0}^{n-1} floor((a i + b) / m) with huge n (mathematical operations: a Euclid-like
    reduction swapping the roles of a and m). d: n, m, a, b with d + 2 digits. Reward: -1
    unparsable, 1 exact, else 0. Its own problem: a lattice-point count under a line, summed
    in logarithmically many steps."""

    name = "floor_sum"
    category = "math"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        lo, hi = 10 ** (difficulty + 1), 10 ** (difficulty + 2)
        n, m, a, b = (rng.randint(lo, hi) for _ in range(4))
        value = floor_sum(n, m, a, b)
        return {"n": n, "m": m, "a": a, "b": b, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Compute the sum of floor(({problem['a']} * i + {problem['b']}) / {problem['m']}) over "
                   f"i = 0, 1, ..., {problem['n'] - 1}.", INT_FORMAT)


class HarmonicNumber(RationalEnv):
    """The harmonic number H_n = 1 + 1/2 + ... + 1/n as an exact fraction (mathematical
    operations). d: n in [5(d + 2), 10(d + 2)]. Reward: -1 unparsable, 1 exact, else 0. Its own
    problem: fraction_sum adds a handful of unrelated fractions; here the denominator is near
    lcm(1..n) and the work is the growth of that common denominator."""

    name = "harmonic_number"

    def size(self, difficulty):
        return 5 * (difficulty + 2)

    def build(self, rng, difficulty):
        n = rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        value = sum(Fraction(1, i) for i in range(1, n + 1))
        return {"n": n, "num": value.numerator, "den": value.denominator}, frac_text(value)

    def prompt(self, problem):
        return ask(f"Compute the harmonic number H_{problem['n']} = 1 + 1/2 + 1/3 + ... + 1/{problem['n']} exactly.",
                   FRACTION_FORMAT)


def bernoulli(n: int) -> Fraction:
    """B_n by the Akiyama-Tanigawa algorithm (B_1 = +1/2 there; only even n are asked)."""
    a = [Fraction(0)] * (n + 1)
    for m in range(n + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
    return a[0]


class BernoulliNumber(RationalEnv):
    """The Bernoulli number B_n for an even n (mathematical operations: the recurrence
    sum_{j<=n} C(n + 1, j) B_j = 0, or Akiyama-Tanigawa). d: n = 2(d + 1) + 2 * (0 or 1).
    Reward: -1 unparsable, 1 exact (sign included), else 0. Its own problem: the coefficients
    behind every power-sum closed form, asked for directly; alternating signs and large
    numerators."""

    name = "bernoulli_number"

    def size(self, difficulty):
        return 2 * (difficulty + 1)

    def build(self, rng, difficulty):
        n = self.size(difficulty) + 2 * rng.randint(0, 1)
        value = bernoulli(n)
        return {"n": n, "num": value.numerator, "den": value.denominator}, frac_text(value)

    def prompt(self, problem):
        return ask(f"Compute the Bernoulli number B_{problem['n']} exactly (B_0 = 1, B_2 = 1/6, B_4 = -1/30, ...).",
                   FRACTION_FORMAT)


class MultinomialCoefficient(IntEnv):
    """The multinomial coefficient n! / (k_1! k_2! ... k_m!) with k_1 + ... + k_m = n
    (mathematical operations; the number of words with k_i copies of letter i). d: m = d // 4 + 2
    parts, n in [5(d + 2), 10(d + 2)]. Reward: -1 unparsable, 1 exact, else 0. Its own problem:
    a product of binomial coefficients C(k_1 + ... + k_i, k_i), exact and large; no other env
    asks for one."""

    name = "multinomial_coefficient"
    category = "math"

    def size(self, difficulty):
        return 5 * (difficulty + 2)

    def build(self, rng, difficulty):
        n = rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        m = difficulty // 4 + 2
        if m > n:
            raise Retry
        cuts = sorted(rng.sample(range(1, n), m - 1))
        parts = [b - a for a, b in zip([0] + cuts, cuts + [n])]
        value, acc = 1, 0
        for k in parts:
            acc += k
            value *= math.comb(acc, k)
        return {"parts": parts, "value": value}, str(value)

    def prompt(self, problem):
        parts = problem["parts"]
        return ask(f"Compute the multinomial coefficient {sum(parts)}! / (" + " * ".join(f"{k}!" for k in parts) +
                   ") exactly.", INT_FORMAT)
