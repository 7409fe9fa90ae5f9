"""Number theory: modular arithmetic, CRT, discrete logarithms, factorisation, totients, primes.

Where an answer can be checked more cheaply than found (an inverse, a logarithm, a factor
list, a Diophantine solution) the scorer checks it, so any valid answer scores 1.
"""
from __future__ import annotations

import math
import random

from envs.gym.base import GymEnv, Retry, ask, int_list, one_int, ratio

INT_FORMAT = "Give one integer, e.g. <answer>42</answer>."
_MR_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


def is_prime(n: int) -> bool:
    """Miller-Rabin with the first 12 prime bases: exact below 3.3e24, which covers every
    number the generators draw (answers above it are checked with the same bases)."""
    if n < 2:
        return False
    for p in _MR_BASES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _MR_BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def random_prime(rng: random.Random, lo: int, hi: int) -> int:
    for _ in range(10_000):  # primes have density ~1/ln(hi): this never runs out in practice
        n = rng.randint(lo, hi)
        if is_prime(n):
            return n
    raise Retry


class ModularExponentiation(GymEnv):
    """a^b mod m (mathematical operations). d: a, m with d + 2 digits, b with d + 2 digits.
    Reward: -1 unparsable, 1 exact, else 0."""

    name = "modular_exponentiation"
    category = "math"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        a, b, m = (rng.randint(2, 10 ** k) for _ in range(3))
        return {"a": a, "b": b, "m": m, "value": pow(a, b, m)}, str(pow(a, b, m))

    def prompt(self, problem):
        return ask(f"Compute {problem['a']}^{problem['b']} mod {problem['m']}.", INT_FORMAT)

    def reward(self, problem, answer):
        return 1.0 if one_int(answer) == problem["value"] else 0.0


class ModularInverse(GymEnv):
    """Inverse of a modulo m (mathematical operations; checked). d: m with d + 2 digits,
    gcd(a, m) = 1. Reward: -1 unparsable, 1 if 0 <= x < m and a x = 1 (mod m), else 0."""

    name = "modular_inverse"
    category = "math"

    brick_io = ("tuple[int,int]", "int")
    brick_text = ("For the pair (a, m): the x with 0 <= x < m and a * x = 1 (mod m) (no output unless m >= 2 and "
                  "gcd(a, m) = 1).")

    def brick_input(self, rng, difficulty):
        m = rng.randint(10 ** (self.size(difficulty) - 1), 10 ** self.size(difficulty))
        return rng.randint(2, m - 1), m

    def brick_apply(self, p, counter):
        a, m = p
        if m < 2:
            return None
        counter.tick(2 * max(1, m.bit_length()))  # extended Euclid: O(log m) division steps
        return pow(a, -1, m) if math.gcd(a, m) == 1 else None

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        m = rng.randint(10 ** (self.size(difficulty) - 1), 10 ** self.size(difficulty))
        a = rng.randint(2, m - 1)
        if math.gcd(a, m) != 1:
            raise Retry
        return {"a": a, "m": m}, str(pow(a, -1, m))

    def prompt(self, problem):
        return ask(f"Find the integer x with 0 <= x < {problem['m']} such that {problem['a']} * x = 1 "
                   f"(mod {problem['m']}).", INT_FORMAT)

    def reward(self, problem, answer):
        x, m = one_int(answer), problem["m"]
        return 1.0 if 0 <= x < m and problem["a"] * x % m == 1 else 0.0


class Crt(GymEnv):
    """Chinese remainder theorem (mathematical operations). d: d // 2 + 2 congruences with
    pairwise coprime moduli in [2, 10(d+2)]. Reward: -1 unparsable, 1 if 0 <= x < lcm and every
    congruence holds, else (congruences that hold / total)^5 for 0 <= x < lcm, else 0."""

    name = "crt"
    category = "math"

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        k, top = self.size(difficulty), 10 * (difficulty + 2)
        mods: list[int] = []
        for _ in range(100 * k):
            m = rng.randint(2, top)
            if all(math.gcd(m, q) == 1 for q in mods):
                mods.append(m)
            if len(mods) == k:
                break
        else:
            raise Retry
        total = math.prod(mods)
        x = rng.randrange(total)
        return {"mods": mods, "rems": [x % m for m in mods]}, str(x)

    def prompt(self, problem):
        eqs = "\n".join(f"x = {r} (mod {m})" for m, r in zip(problem["mods"], problem["rems"]))
        return ask(f"Find the smallest non-negative integer x such that\n{eqs}", INT_FORMAT)

    def reward(self, problem, answer):
        x, mods, rems = one_int(answer), problem["mods"], problem["rems"]
        if not 0 <= x < math.prod(mods):
            return 0.0
        return (sum(x % m == r for m, r in zip(mods, rems)) / len(mods)) ** 5


class DiscreteLogarithm(GymEnv):
    """Discrete logarithm modulo a prime (mathematical operations; checked). d: p with about
    d // 2 + 2 digits. Reward: -1 unparsable, 1 if 0 <= x < p and g^x = h (mod p), else 0."""

    name = "discrete_logarithm"
    category = "math"

    brick_io = ("tuple[int,int]", "int")
    brick_text = "For the pair (g, h): the smallest x >= 0 with g^x = h (mod 101) (no output if there is none)."

    def brick_input(self, rng, difficulty):
        return rng.randint(2, 99), rng.randint(1, 100)

    def brick_apply(self, p, counter):
        g, h = p[0] % 101, p[1] % 101
        value = 1
        for x in range(100):  # the powers of g repeat with period dividing 100
            counter.tick()
            if value == h:
                return x
            value = value * g % 101
        return None

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        p = random_prime(rng, 10 ** (k - 1) + 3, 10 ** k)
        g, x = rng.randint(2, p - 2), rng.randint(1, p - 2)
        return {"p": p, "g": g, "h": pow(g, x, p)}, str(x)

    def prompt(self, problem):
        p = problem["p"]
        return ask(f"p = {p} is prime. Find an integer x with 0 <= x < {p} such that "
                   f"{problem['g']}^x = {problem['h']} (mod {p}).", INT_FORMAT)

    def reward(self, problem, answer):
        x, p = one_int(answer), problem["p"]
        return 1.0 if 0 <= x < p and pow(problem["g"], x, p) == problem["h"] else 0.0


class IntegerFactorization(GymEnv):
    """Prime factorisation (mathematical operations; checked). d: n is a product of d // 2 + 2
    primes below 50(d + 1). Reward: -1 unparsable, 1 if every listed number is prime and their
    product is n, else 0."""

    name = "integer_factorization"
    category = "math"

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        primes = sorted(random_prime(rng, 2, 50 * (difficulty + 1)) for _ in range(self.size(difficulty)))
        return {"n": math.prod(primes)}, " ".join(map(str, primes))

    def prompt(self, problem):
        return ask(f"Write {problem['n']} as a product of primes.",
                   "List the prime factors with multiplicity in any order, separated by spaces, e.g. "
                   "<answer>2 2 3 7</answer>.")

    def reward(self, problem, answer):
        factors, n = int_list(answer), problem["n"]
        if not factors or len(factors) > n.bit_length() or any(f > n for f in factors):
            return 0.0  # more factors than bits cannot multiply to n (and would be slow to multiply)
        return 1.0 if math.prod(factors) == n and all(map(is_prime, factors)) else 0.0


class EulerTotient(GymEnv):
    """Euler's totient (competition number theory). d: n is a planted product of d // 2 + 2
    prime powers. Reward: -1 unparsable, 1 exact, else 0."""

    name = "euler_totient"
    category = "competition"

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        primes = rng.sample([p for p in range(2, 12 * (difficulty + 2)) if is_prime(p)], self.size(difficulty))
        n = phi = 1
        for p in primes:
            e = rng.randint(1, 3)
            n *= p ** e
            phi *= (p - 1) * p ** (e - 1)
        return {"n": n, "phi": phi}, str(phi)

    def prompt(self, problem):
        return ask(f"How many integers k with 1 <= k <= {problem['n']} satisfy gcd(k, {problem['n']}) = 1?", INT_FORMAT)

    def reward(self, problem, answer):
        return 1.0 if one_int(answer) == problem["phi"] else 0.0


class CountPrimes(GymEnv):
    """Primes in an interval (competition number theory). d: [a, b] with b up to 50(d+1)^2 + 100.
    Reward: -1 unparsable or negative, else (min(x, y) / max(x, y))^10."""

    name = "count_primes"
    category = "competition"

    brick_io = ("int", "int")
    brick_text = "Count the primes less than or equal to the number."

    def brick_input(self, rng, difficulty):
        return rng.randint(self.size(difficulty) // 2, self.size(difficulty))

    def brick_apply(self, n, counter):
        counter.tick(max(1, n))  # the sieve marks about n log log n cells; n is the honest order for these sizes
        if n < 2:
            return 0
        sieve = bytearray([1]) * (n + 1)
        sieve[0:2] = b"\0\0"
        for i in range(2, math.isqrt(n) + 1):
            if sieve[i]:
                sieve[i * i::i] = bytes(len(range(i * i, n + 1, i)))
        return sum(sieve)

    def size(self, difficulty):
        return 50 * (difficulty + 1) ** 2 + 100

    def build(self, rng, difficulty):
        b = rng.randint(self.size(difficulty) // 2, self.size(difficulty))
        a = rng.randint(1, b // 2)
        sieve = bytearray([1]) * (b + 1)
        sieve[0:2] = b"\0\0"
        for i in range(2, math.isqrt(b) + 1):
            if sieve[i]:
                sieve[i * i::i] = bytes(len(range(i * i, b + 1, i)))
        count = sum(sieve[a:])
        return {"a": a, "b": b, "count": count}, str(count)

    def prompt(self, problem):
        return ask(f"How many prime numbers p satisfy {problem['a']} <= p <= {problem['b']}?", INT_FORMAT)

    def reward(self, problem, answer):
        x = one_int(answer)
        return -1.0 if x < 0 else ratio(x, problem["count"], 10)


class LinearDiophantine(GymEnv):
    """Integer solution of a x + b y = c (mathematical operations; checked). d: a, b with d + 2
    digits, c a multiple of gcd(a, b). Reward: -1 unparsable, -0.5 not two integers, 1 if
    a x + b y = c, else 0."""

    name = "linear_diophantine"
    category = "math"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        a, b = rng.randint(10 ** (k - 1), 10 ** k), rng.randint(10 ** (k - 1), 10 ** k)
        x, y = rng.randint(-10 ** k, 10 ** k), rng.randint(-10 ** k, 10 ** k)
        return {"a": a, "b": b, "c": a * x + b * y}, f"{x} {y}"

    def prompt(self, problem):
        return ask(f"Find integers x and y with {problem['a']} * x + {problem['b']} * y = {problem['c']}.",
                   "Give x and y separated by a space, e.g. <answer>-3 7</answer>.")

    def reward(self, problem, answer):
        xy = int_list(answer)
        if len(xy) != 2:
            return -0.5
        return 1.0 if problem["a"] * xy[0] + problem["b"] * xy[1] == problem["c"] else 0.0
