"""Arithmetic and number theory at scale: divisor sums, gcd sums, inclusion-exclusion, Lucas,
Pell equations, Legendre's formula, modular square roots, primitive roots and orders, sums of
two squares, linear recurrences, continued fractions, lcm, integer square roots, long
multiplication, base conversion.

Exact integer arithmetic throughout. Where an answer can be checked more cheaply than found
(a square root, a primitive root, a Pell solution, a representation as two squares) the scorer
checks it, so any valid answer scores 1; elsewhere the one right integer scores 1 (IntEnv) and
counts are graded by CountEnv's (min/max)^10 (our choice, after the paper's formula for
BubbleSwapLowerBound_PermutationCounting, rlve line 43).
"""
from __future__ import annotations

import math
from fractions import Fraction

from envs.gym.base import (COUNT_FORMAT, INT_FORMAT, UNCOUNTED, CountEnv, GymEnv, IntEnv, Retry, ask, int_list,
                           one_int)
from envs.gym.number_theory import is_prime, random_prime

SMALL_PRIMES = [p for p in range(2, 2000) if is_prime(p)]
PAIR_FORMAT = "Give the two integers separated by a space, e.g. <answer>3 4</answer>."


def _factor_small(n: int, counter=UNCOUNTED) -> dict[int, int] | None:
    """Prime factorisation by trial division, for n <= 10^12 (None above)."""
    if not 1 <= n <= 10 ** 12:
        return None
    counter.tick()
    out, p = {}, 2
    while p * p <= n:
        counter.tick()
        while n % p == 0:
            out[p] = out.get(p, 0) + 1
            n //= p
        p += 1 if p == 2 else 2
    if n > 1:
        out[n] = out.get(n, 0) + 1
    return out


class DivisorSummatory(CountEnv):
    """Pairs (a, b) of positive integers with a * b <= n, i.e. the sum of d(k) for k <= n
    (competition counting; 2 sum_{i <= sqrt n} floor(n / i) - floor(sqrt n)^2, O(sqrt n)).
    d: n uniform in [500(d+1)^3, 1000(d+1)^3]."""

    name = "divisor_summatory"
    brick_io = ("int", "int")
    brick_text = "the number of pairs (a, b) of positive integers with a * b <= n, for n."

    def size(self, difficulty):
        return 1000 * (difficulty + 1) ** 3

    def brick_input(self, rng, difficulty):  # small: RACES compositions keep values <= 500
        return rng.randint(2, 50 * (difficulty + 1))

    def brick_apply(self, value, counter):
        if not 0 <= value <= 10 ** 14:
            return None
        r = math.isqrt(value)
        counter.tick(r + 1)
        return 2 * sum(value // i for i in range(1, r + 1)) - r * r

    def build(self, rng, difficulty):
        n = rng.randint(self.size(difficulty) // 2, self.size(difficulty))
        count = self.brick_apply(n, UNCOUNTED)
        return {"n": n, "count": count}, str(count)

    def prompt(self, problem):
        return ask(f"How many ordered pairs (a, b) of positive integers satisfy a * b <= {problem['n']}?", COUNT_FORMAT)


class GcdSum(IntEnv):
    """Sum of gcd(k, n) for k = 1..n (competition number theory; Pillai's function is
    multiplicative, (e + 1) p^e - e p^(e-1) on prime powers). d: n is a product of d // 3 + 2
    prime powers below 20(d + 2). Reward: -1 unparsable, 1 exact, else 0."""

    name = "gcd_sum"
    category = "competition"
    brick_io = ("int", "int")
    brick_text = "the sum of gcd(k, n) over k = 1..n, for n (n <= 10^12)"

    def size(self, difficulty):
        return difficulty // 3 + 2

    def brick_input(self, rng, difficulty):  # small: RACES compositions keep values <= 500
        return rng.randint(2, 10 ** min(12, difficulty + 2))

    def brick_apply(self, value, counter):
        factors = _factor_small(value, counter)
        return None if factors is None else _pillai(factors)

    def build(self, rng, difficulty):
        primes = [p for p in SMALL_PRIMES if p < 20 * (difficulty + 2)]
        factors = {p: rng.randint(1, 2) for p in rng.sample(primes, min(len(primes), self.size(difficulty)))}
        n = math.prod(p ** e for p, e in factors.items())
        return {"n": n, "value": _pillai(factors)}, str(_pillai(factors))

    def prompt(self, problem):
        return ask(f"Compute the sum of gcd(k, {problem['n']}) over all integers k from 1 to {problem['n']}.", INT_FORMAT)


def _pillai(factors: dict[int, int]) -> int:
    return math.prod((e + 1) * p ** e - e * p ** (e - 1) for p, e in factors.items())


class CoprimeCounting(CountEnv):
    """Integers in [1, N] divisible by none of k given primes (competition counting,
    inclusion-exclusion with pruning). d: k = d // 4 + 2 primes below 10d + 30, N with
    d // 3 + 4 digits."""

    name = "coprime_counting"

    def size(self, difficulty):
        return difficulty // 4 + 2

    def build(self, rng, difficulty):
        primes = sorted(rng.sample([p for p in SMALL_PRIMES if p < 10 * difficulty + 30], self.size(difficulty)))
        digits = difficulty // 3 + 4
        n = rng.randint(10 ** (digits - 1), 10 ** digits)
        count = 0
        stack = [(0, 1, 1)]  # (next prime index, product, sign)
        while stack:
            i, prod, sign = stack.pop()
            count += sign * (n // prod)
            for j in range(i, len(primes)):
                if prod * primes[j] <= n:
                    stack.append((j + 1, prod * primes[j], -sign))
        return {"n": n, "primes": primes, "count": count}, str(count)

    def prompt(self, problem):
        return ask(f"How many integers x with 1 <= x <= {problem['n']} are divisible by none of the primes "
                   f"{', '.join(map(str, problem['primes']))}?", COUNT_FORMAT)


class LucasBinomial(IntEnv):
    """C(n, k) mod p for huge n (mathematical operations, Lucas' theorem). d: n with d + 3
    digits, k uniform in [0, n], p a prime below 100. Reward: -1 unparsable, 1 exact, else 0."""

    name = "lucas_binomial"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (self.size(difficulty) - 1), 10 ** self.size(difficulty))
        k, p = rng.randint(0, n), rng.choice([q for q in SMALL_PRIMES if q < 100])
        value, a, b = 1, n, k
        while a or b:
            value = value * math.comb(a % p, b % p) % p
            a, b = a // p, b // p
        return {"n": n, "k": k, "p": p, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Compute the binomial coefficient C({problem['n']}, {problem['k']}) modulo {problem['p']}.",
                   INT_FORMAT)


def pell_fundamental(d: int) -> tuple[int, int]:
    """The least x, y > 0 with x^2 - d y^2 = 1 (d not a square), from the continued fraction of
    sqrt(d): the convergent at the end of the first period (or the second, for an odd period)."""
    a0 = math.isqrt(d)
    m, q, a = 0, 1, a0
    h_prev, h = 1, a0
    k_prev, k = 0, 1
    while h * h - d * k * k != 1:
        m = a * q - m
        q = (d - m * m) // q
        a = (a0 + m) // q
        h_prev, h = h, a * h + h_prev
        k_prev, k = k, a * k + k_prev
    return h, k


class PellEquation(GymEnv):
    """Fundamental solution of Pell's equation x^2 - D y^2 = 1 (competition number theory;
    checked). d: D a non-square in [2, 10(d + 2)^2]. Reward: -1 unparsable, -0.5 not two
    positive integers, 1 for the least solution, 0.5 for another solution, else 0."""

    name = "pell_equation"
    category = "competition"

    def size(self, difficulty):
        return 10 * (difficulty + 2) ** 2

    def build(self, rng, difficulty):
        d = rng.randint(2, self.size(difficulty))
        if math.isqrt(d) ** 2 == d:
            raise Retry
        x, y = pell_fundamental(d)
        return {"d": d, "x": x}, f"{x} {y}"

    def prompt(self, problem):
        return ask(f"Find the smallest positive integers x and y with x^2 - {problem['d']} * y^2 = 1.", PAIR_FORMAT)

    def reward(self, problem, answer):
        xy = int_list(answer)
        if len(xy) != 2 or xy[0] <= 0 or xy[1] <= 0:
            return -0.5
        x, y = xy
        if x * x - problem["d"] * y * y != 1:
            return 0.0
        return 1.0 if x == problem["x"] else 0.5


class FactorialPrimeExponent(IntEnv):
    """The exponent of a prime p in n! (competition number theory, Legendre's formula
    sum floor(n / p^i)). d: n with d + 3 digits, p a prime below 50. Reward: -1 unparsable,
    1 exact, else 0."""

    name = "factorial_prime_exponent"
    category = "competition"
    brick_io = ("tuple[int,int]", "int")
    brick_text = "the largest e such that p^e divides n!, for the pair (n, p) with p prime."

    def size(self, difficulty):
        return difficulty + 3

    def brick_input(self, rng, difficulty):
        return (rng.randint(10 ** (self.size(difficulty) - 1), 10 ** self.size(difficulty)),
                rng.choice([q for q in SMALL_PRIMES if q < 50]))

    def brick_apply(self, value, counter):
        n, p = value
        if n < 0 or p < 2 or p > 10 ** 6 or not is_prime(p):
            return None
        e, q = 0, p
        while q <= n:
            counter.tick()
            e += n // q
            q *= p
        return e

    def build(self, rng, difficulty):
        n, p = self.brick_input(rng, difficulty)
        e = self.brick_apply((n, p), UNCOUNTED)
        return {"n": n, "p": p, "value": e}, str(e)

    def prompt(self, problem):
        return ask(f"What is the largest integer e such that {problem['p']}^e divides {problem['n']}! "
                   f"({problem['n']} factorial)?", INT_FORMAT)


class ModularSqrt(GymEnv):
    """A square root modulo a prime (mathematical operations; checked, the generator plants
    the root). d: p with d // 2 + 3 digits, a = r^2 mod p for a random r. Reward: -1
    unparsable, 1 if 0 <= x < p and x^2 = a (mod p), else 0."""

    name = "modular_sqrt"
    category = "math"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        p = random_prime(rng, 10 ** (k - 1) + 3, 10 ** k)
        r = rng.randint(2, p - 2)
        return {"p": p, "a": r * r % p}, str(r)

    def prompt(self, problem):
        return ask(f"p = {problem['p']} is prime. Find an integer x with 0 <= x < {problem['p']} such that "
                   f"x^2 = {problem['a']} (mod {problem['p']}).", INT_FORMAT)

    def reward(self, problem, answer):
        x, p = one_int(answer), problem["p"]
        return 1.0 if 0 <= x < p and x * x % p == problem["a"] else 0.0


def smooth_prime(rng, difficulty: int) -> tuple[int, list[int]]:
    """A prime p with p - 1 = 2 * (product of d // 4 + 1 distinct small primes), and the prime
    factors of p - 1: orders and primitive roots modulo p can then be checked exactly."""
    pool = [q for q in SMALL_PRIMES if 2 < q < 100 * (difficulty + 1)]
    for _ in range(2000):
        qs = rng.sample(pool, min(len(pool), difficulty // 4 + 1))
        p = 2 * math.prod(qs) + 1
        if is_prime(p):
            return p, sorted({2, *qs})
    raise Retry


def element_order(a: int, p: int, factors: list[int]) -> int:
    order = p - 1
    for q in factors:
        while order % q == 0 and pow(a, order // q, p) == 1:
            order //= q
    return order


class PrimitiveRoot(GymEnv):
    """The least primitive root modulo a prime (mathematical operations; checked against the
    known factorisation of p - 1). d: p - 1 = 2 * (d // 4 + 1 distinct odd primes below
    100(d + 1)). Reward: -1 unparsable, 1 for the least primitive root, 0.5 for another one (it
    generates all non-zero residues but is not the least), else 0."""

    name = "primitive_root"
    category = "math"

    def size(self, difficulty):
        return difficulty // 4 + 1

    def build(self, rng, difficulty):
        p, factors = smooth_prime(rng, difficulty)
        g = next(g for g in range(2, p) if element_order(g, p, factors) == p - 1)
        return {"p": p, "factors": factors, "least": g}, str(g)

    def prompt(self, problem):
        p = problem["p"]
        return ask(f"p = {p} is prime. A primitive root modulo p is an integer g with 1 <= g < {p} whose powers g, "
                   f"g^2, ..., g^{p - 1} are all different modulo p. Find the smallest primitive root.", INT_FORMAT)

    def reward(self, problem, answer):
        g, p = one_int(answer), problem["p"]
        if not (1 <= g < p and element_order(g, p, problem["factors"]) == p - 1):
            return 0.0
        return 1.0 if g == problem["least"] else 0.5


class MultiplicativeOrder(IntEnv):
    """The multiplicative order of a modulo a prime p (mathematical operations; from the known
    factorisation of p - 1). d: p as for primitive_root, a uniform in [2, p - 2]. Reward: -1
    unparsable, 1 exact, else 0."""

    name = "multiplicative_order"
    category = "math"

    def size(self, difficulty):
        return difficulty // 4 + 1

    def build(self, rng, difficulty):
        p, factors = smooth_prime(rng, difficulty)
        a = rng.randint(2, p - 2)
        order = element_order(a, p, factors)
        return {"p": p, "a": a, "value": order}, str(order)

    def prompt(self, problem):
        return ask(f"p = {problem['p']} is prime. What is the smallest positive integer k with "
                   f"{problem['a']}^k = 1 (mod {problem['p']})?", INT_FORMAT)


class SumOfTwoSquares(GymEnv):
    """n as a sum of two squares (mathematical operations; checked, a representation is
    planted). d: n = a^2 + b^2 with a, b below 10^(d // 2 + 2). Reward: -1 unparsable, -0.5 not
    two non-negative integers, 1 if x^2 + y^2 = n, else 0."""

    name = "sum_of_two_squares"
    category = "math"

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        a, b = (rng.randint(1, 10 ** self.size(difficulty)) for _ in range(2))
        return {"n": a * a + b * b}, f"{a} {b}"

    def prompt(self, problem):
        return ask(f"Find non-negative integers x and y with x^2 + y^2 = {problem['n']}.", PAIR_FORMAT)

    def reward(self, problem, answer):
        xy = int_list(answer)
        if len(xy) != 2 or min(xy) < 0:
            return -0.5
        return 1.0 if xy[0] ** 2 + xy[1] ** 2 == problem["n"] else 0.0


def _mat_mul(a, b, m):
    return [[sum(x * y for x, y in zip(row, col)) % m for col in zip(*b)] for row in a]


class LinearRecurrenceTerm(IntEnv):
    """The n-th term of a linear recurrence modulo m for huge n (mathematical operations,
    matrix exponentiation). d: order k = 2 + d // 10, coefficients and initial terms in 0..9,
    m a prime in [1000, 10000], n with d // 3 + 3 digits. Reward: -1 unparsable, 1 exact, else 0."""

    name = "linear_recurrence_term"
    category = "math"

    def size(self, difficulty):
        return difficulty // 3 + 3

    def build(self, rng, difficulty):
        k = 2 + difficulty // 10
        coeffs = [rng.randint(0, 9) for _ in range(k)]
        coeffs[-1] = coeffs[-1] or 1
        init = [rng.randint(0, 9) for _ in range(k)]
        m = random_prime(rng, 1000, 10000)
        n = rng.randint(10 ** (self.size(difficulty) - 1), 10 ** self.size(difficulty))
        # state (a_{i+k-1}, ..., a_i) -> (a_{i+k}, ..., a_{i+1})
        step = [coeffs] + [[int(c == r) for c in range(k)] for r in range(k - 1)]
        power, e = [[int(r == c) for c in range(k)] for r in range(k)], n - (k - 1)
        while e > 0:
            if e & 1:
                power = _mat_mul(power, step, m)
            step = _mat_mul(step, step, m)
            e >>= 1
        state = [[v % m] for v in reversed(init)]
        value = _mat_mul(power, state, m)[0][0]
        return {"coeffs": coeffs, "init": init, "m": m, "n": n, "value": value}, str(value)

    def prompt(self, problem):
        c, init, k = problem["coeffs"], problem["init"], len(problem["coeffs"])
        rule = " + ".join(f"{x}*a(i-{j + 1})" for j, x in enumerate(c))
        start = ", ".join(f"a({i}) = {v}" for i, v in enumerate(init))
        return ask(f"A sequence has {start}, and a(i) = {rule} for i >= {k}. What is a({problem['n']}) modulo "
                   f"{problem['m']}?", f"Give one integer from 0 to {problem['m'] - 1}, e.g. <answer>42</answer>.")


def continued_fraction(p: int, q: int, counter=UNCOUNTED) -> list[int]:
    terms = []
    while q:
        counter.tick()
        a, r = divmod(p, q)
        terms.append(a)
        p, q = q, r
    return terms


class ContinuedFraction(GymEnv):
    """The continued fraction of p/q (mathematical operations; checked by evaluating it).
    d: p and q with d + 2 digits. Reward: -1 unparsable, 1 if [a0; a1, ..., ak] with a0 >= 0
    and every later term >= 1 equals p/q exactly, else 0."""

    name = "continued_fraction"
    category = "math"
    brick_io = ("tuple[int,int]", "list[int]")
    brick_text = "the terms of the continued fraction of p/q (last term at least 2 unless it is the only one), for the pair (p, q) with q > 0."

    def size(self, difficulty):
        return difficulty + 2

    def brick_input(self, rng, difficulty):
        k = self.size(difficulty)
        return (rng.randint(10 ** (k - 1), 10 ** k), rng.randint(10 ** (k - 1), 10 ** k))

    def brick_apply(self, value, counter):
        p, q = value
        if q <= 0 or p < 0:
            return None
        return continued_fraction(p, q, counter)

    def build(self, rng, difficulty):
        p, q = self.brick_input(rng, difficulty)
        return {"p": p, "q": q}, " ".join(map(str, continued_fraction(p, q)))

    def prompt(self, problem):
        return ask(f"Write {problem['p']}/{problem['q']} as a continued fraction a0 + 1/(a1 + 1/(a2 + ... + 1/ak)) "
                   "with integers a0 >= 0 and a1, ..., ak >= 1.",
                   "Give a0 a1 ... ak separated by spaces, e.g. <answer>2 1 3</answer>.")

    def reward(self, problem, answer):
        terms = int_list(answer)
        if not terms or len(terms) > 20 * (len(str(problem["q"])) + 2) or terms[0] < 0 or min(terms[1:], default=1) < 1:
            return 0.0
        h, k = 1, 0  # evaluate from the back: value = h / k
        for a in reversed(terms):
            h, k = a * h + k, h
        return 1.0 if h * problem["q"] == k * problem["p"] else 0.0


class LcmOfList(IntEnv):
    """Least common multiple of a list (mathematical operations). d: d + 3 numbers in
    [2, 30(d + 1)]. Reward: -1 unparsable, 1 exact, else 0."""

    name = "lcm_of_list"
    category = "math"
    brick_io = ("list[int]", "int")
    brick_text = "the least common multiple of the numbers of the list (all positive)"

    def size(self, difficulty):
        return difficulty + 3

    def brick_input(self, rng, difficulty):
        return [rng.randint(2, 30 * (difficulty + 1)) for _ in range(self.size(difficulty))]

    def brick_apply(self, value, counter):
        if not value or min(value) < 1:
            return None
        counter.tick(len(value))
        return math.lcm(*value)

    def build(self, rng, difficulty):
        nums = self.brick_input(rng, difficulty)
        value = self.brick_apply(nums, UNCOUNTED)
        return {"numbers": nums, "value": value}, str(value)

    def prompt(self, problem):
        return ask("What is the least common multiple of " + ", ".join(map(str, problem["numbers"])) + "?", INT_FORMAT)


class IntegerSqrt(IntEnv):
    """floor(sqrt(N)) (mathematical operations). d: N with 2d + 4 digits. Reward: -1
    unparsable, 1 exact, else 0."""

    name = "integer_sqrt"
    category = "math"
    brick_io = ("int", "int")
    brick_text = "the largest integer whose square is at most n, for n >= 0."

    def size(self, difficulty):
        return 2 * difficulty + 4

    def brick_input(self, rng, difficulty):
        return rng.randint(10 ** (self.size(difficulty) - 1), 10 ** self.size(difficulty))

    def brick_apply(self, value, counter):
        if value < 0:
            return None
        counter.tick(value.bit_length() + 1)
        return math.isqrt(value)

    def build(self, rng, difficulty):
        n = self.brick_input(rng, difficulty)
        return {"n": n, "value": math.isqrt(n)}, str(math.isqrt(n))

    def prompt(self, problem):
        return ask(f"What is the largest integer x with x^2 <= {problem['n']}?", INT_FORMAT)


class LongMultiplication(IntEnv):
    """The exact product of two long integers (mathematical operations). d: both factors have
    d + 2 digits. Reward: -1 unparsable, 1 exact, else 0."""

    name = "long_multiplication"
    category = "math"
    brick_io = ("tuple[int,int]", "int")
    brick_text = "the product a * b, for the pair (a, b)"

    def size(self, difficulty):
        return difficulty + 2

    def brick_input(self, rng, difficulty):  # small: RACES compositions keep values <= 500
        return (rng.randint(2, 22 + 10 * difficulty), rng.randint(2, 22 + 10 * difficulty))

    def brick_apply(self, value, counter):
        a, b = value
        counter.tick(len(str(abs(a))) * len(str(abs(b))))
        return a * b

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        a, b = rng.randint(10 ** (k - 1), 10 ** k - 1), rng.randint(10 ** (k - 1), 10 ** k - 1)
        return {"a": a, "b": b, "value": a * b}, str(a * b)

    def prompt(self, problem):
        return ask(f"Compute {problem['a']} * {problem['b']} exactly.", INT_FORMAT)

    def explain(self, problem):
        """Schoolbook by place value: a partial product per nonzero digit of b, then their sum."""
        a, b = problem["a"], problem["b"]
        parts = [int(d) * 10 ** i for i, d in enumerate(reversed(str(b))) if d != "0"][::-1]
        lines = [f"{a} * {b} = " + " + ".join(f"{a} * {p}" for p in parts)]
        lines += [f"{a} * {p} = {a * p}" for p in parts]
        if len(parts) > 1:
            lines.append(" + ".join(str(a * p) for p in parts) + f" = {a * b}")
        return "\n".join(lines)


DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def to_base(n: int, base: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, base)
        out = DIGITS[r] + out
        if not n:
            return out


class BaseConversion(GymEnv):
    """Base conversion between bases 2..36 (mathematical operations). d: the number has about
    4(d + 2) bits; both bases uniform in 2..36 and different. Reward: -1 unparsable (a
    character that is not a digit of the target base), 1 if the value is right, else 0."""

    name = "base_conversion"
    category = "math"

    def size(self, difficulty):
        return 4 * (difficulty + 2)

    def build(self, rng, difficulty):
        n = rng.getrandbits(self.size(difficulty)) | 1 << (self.size(difficulty) - 1)
        src, dst = rng.sample(range(2, 37), 2)
        return {"digits": to_base(n, src), "src": src, "dst": dst}, to_base(n, dst)

    def prompt(self, problem):
        return ask(f"The number {problem['digits']} is written in base {problem['src']} (digits 0-9 then A-Z). Write "
                   f"it in base {problem['dst']}.", f"Give the base-{problem['dst']} digits without spaces or prefix, "
                   "e.g. <answer>1A7</answer>.")

    def reward(self, problem, answer):
        text = answer.strip().upper()
        if not text or len(text) > 4000 or any(c not in DIGITS[:problem["dst"]] for c in text):
            raise ValueError("not a number in the target base")
        return 1.0 if int(text, problem["dst"]) == int(problem["digits"], problem["src"]) else 0.0


class FractionSum(GymEnv):
    """An exact sum of fractions in lowest terms (mathematical operations). d: d + 3 fractions
    with numerators and denominators in [1, 10(d + 2)], each added or subtracted. Reward: -1
    unparsable, 1 for the value (as p/q or an integer; any equal fraction), else 0."""

    name = "fraction_sum"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        top = 10 * (difficulty + 2)
        terms = [(rng.choice((1, -1)), rng.randint(1, top), rng.randint(2, top)) for _ in range(self.size(difficulty))]
        total = sum(Fraction(s * p, q) for s, p, q in terms)
        gold = str(total.numerator) if total.denominator == 1 else f"{total.numerator}/{total.denominator}"
        return {"terms": terms, "num": total.numerator, "den": total.denominator}, gold

    def prompt(self, problem):
        text = ""
        for i, (s, p, q) in enumerate(problem["terms"]):
            text += ("" if i == 0 and s > 0 else (" - " if s < 0 else " + ")) if i else ("-" if s < 0 else "")
            text += f"{p}/{q}"
        return ask(f"Compute {text} exactly.", "Give the result as p/q in lowest terms (or an integer), e.g. "
                   "<answer>-7/12</answer>.")

    def reward(self, problem, answer):
        text = "".join(answer.split())
        num, _, den = text.partition("/")
        p, q = one_int(num), one_int(den) if den else 1
        if q == 0:
            raise ValueError("zero denominator")
        return 1.0 if p * problem["den"] == q * problem["num"] else 0.0
