"""Modular arithmetic beyond single inverses and powers: all solutions of a linear congruence,
Jacobi symbols, power towers, factorials near p (Wilson), geometric series modulo a
composite, Carmichael's function.

Mathematical operations in the RLVE paper's sense (rlve line 47); the generator computes each
answer by the theorem that makes it fast, exactly. Rewards (our choice) are in each class.
"""
from __future__ import annotations

import math

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, Retry, ask, int_list, jaccard, matches
from envs.gym.number_theory import random_prime


def planted_modulus(rng, parts: int, top: int) -> tuple[int, dict[int, int]]:
    """A product of `parts` distinct prime powers with primes below `top`, and its factorisation."""
    factors: dict[int, int] = {}
    while len(factors) < parts:
        p = random_prime(rng, 2, top)
        factors.setdefault(p, rng.randint(1, 3))
    return math.prod(p ** e for p, e in factors.items()), factors


def _factor(m: int) -> dict[int, int]:
    """Trial division: the moduli here are products of primes below a few thousand."""
    out, p = {}, 2
    while m > 1 and p * p <= m:
        while m % p == 0:
            out[p], m = out.get(p, 0) + 1, m // p
        p += 1
    if m > 1:
        out[m] = out.get(m, 0) + 1
    return out


def totient(factors: dict[int, int]) -> int:
    return math.prod((p - 1) * p ** (e - 1) for p, e in factors.items())


class LinearCongruenceAllSolutions(GymEnv):
    """Every solution of a x = b (mod m) in [0, m) when g = gcd(a, m) > 1 divides b: there are
    exactly g of them, spaced m / g apart (mathematical operations). d: m with d + 3 digits,
    g in [2, d // 2 + 4]. Reward: -1 unparsable, else (|right| / |listed or right|)^5 over
    the sets (jaccard), 1 only for all g of them. Its own problem: modular_inverse and
    linear_diophantine ask for one solution of a coprime case; here the answer is the whole
    solution set of a degenerate one."""

    name = "linear_congruence_all_solutions"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        g = rng.randint(2, difficulty // 2 + 4)
        m1 = rng.randint(10 ** (difficulty + 2) // g + 1, 10 ** (difficulty + 3) // g)
        a1 = rng.randint(1, m1 - 1)
        if math.gcd(a1, m1) != 1 or math.gcd(a1 * g, m1 * g) != g:
            raise Retry
        m, a = m1 * g, a1 * g
        x0 = rng.randrange(m1)
        b = a * x0 % m
        sols = sorted((x0 + k * m1) % m for k in range(g))
        return {"a": a, "b": b, "m": m, "solutions": [str(s) for s in sols]}, " ".join(map(str, sols))

    def prompt(self, problem):
        return ask(f"Find every integer x with 0 <= x < {problem['m']} such that {problem['a']} * x = {problem['b']} "
                   f"(mod {problem['m']}).", "Give all of them separated by spaces, e.g. <answer>3 10 17</answer>.")

    def reward(self, problem, answer):
        got = int_list(answer)
        if len(got) > 4 * len(problem["solutions"]) + 10:
            return 0.0
        return jaccard(set(got), {int(s) for s in problem["solutions"]}, 5)


def jacobi(a: int, n: int) -> int:
    """The Jacobi symbol (a / n) for odd n > 0, by quadratic reciprocity."""
    a %= n
    result = 1
    while a:
        while a % 2 == 0:
            a //= 2
            if n % 8 in (3, 5):
                result = -result
        a, n = n, a
        if a % 4 == 3 and n % 4 == 3:
            result = -result
        a %= n
    return result if n == 1 else 0


class JacobiSymbols(GymEnv):
    """Jacobi symbols (a / n) for odd composite-or-prime n (mathematical operations: quadratic
    reciprocity, no factoring). d: d // 4 + 3 queries, n odd with d + 3 digits, gcd(a, n) = 1
    (so every symbol is +1 or -1). Reward: -1 unparsable, -0.5 wrong count, else (symbols
    right / queries)^5 (matches()), 1 only when all are. Its own problem: a multiplicative
    character computed by reciprocity; modular_sqrt finds a root, which the symbol alone does
    not promise for composite n."""

    name = "jacobi_symbols"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        queries = []
        for _ in range(difficulty // 4 + 3):
            n = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3)) | 1
            a = rng.randint(2, n - 1)
            if math.gcd(a, n) != 1:
                raise Retry
            queries.append((a, n))
        symbols = [jacobi(a, n) for a, n in queries]
        return {"queries": queries, "symbols": symbols}, " ".join(map(str, symbols))

    def prompt(self, problem):
        listing = "\n".join(f"({a} / {n})" for a, n in problem["queries"])
        return ask(f"Compute each Jacobi symbol (a / n) (n is odd and coprime to a, so each is 1 or -1):\n{listing}",
                   "Give the symbols in order separated by spaces, e.g. <answer>1 -1 -1</answer>.")

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["symbols"], 5)


class PowerTowerMod(IntEnv):
    """a^(b^c) mod m with an exponent far too large to write down (mathematical operations:
    the generalised Euler theorem a^e = a^(e mod phi(m) + phi(m)) (mod m) for e >= log2 m, with
    m's factorisation planted). d: m a product of d // 3 + 2 prime powers below 30(d + 2),
    a in [2, 10^(d + 2)], b in [2, 99], c with d + 3 digits. Reward: -1 unparsable, 1 exact,
    else 0. Its own problem: modular_exponentiation has the exponent written out; here it must
    itself be reduced modulo phi(m), and a need not be coprime to m."""

    name = "power_tower_mod"
    category = "math"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        m, factors = planted_modulus(rng, difficulty // 3 + 2, 30 * (difficulty + 2))
        a, b = rng.randint(2, 10 ** (difficulty + 2)), rng.randint(2, 99)
        c = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        phi = totient(factors)
        e = pow(b, c, phi) + phi  # valid once b^c >= log2(m), checked below
        if c * math.log2(b) < m.bit_length() + 1:
            raise Retry
        value = pow(a, e, m)
        return {"a": a, "b": b, "c": c, "m": m, "value": value}, str(value)

    def explain(self, problem):
        """phi(m) from the factorisation, the exponent reduced, one modular power."""
        a, b, c, m = problem["a"], problem["b"], problem["c"], problem["m"]
        factors = _factor(m)
        phi = totient(factors)
        e = pow(b, c, phi) + phi
        return (f"m = {m} = " + " * ".join(f"{p}^{k}" for p, k in sorted(factors.items())) + f", phi(m) = {phi}\n"
                f"{b}^{c} mod {phi} = {e - phi}; the exponent is at least log2(m), so use {e - phi} + {phi} = {e}\n"
                f"{a}^{e} mod {m} = {problem['value']}")

    def prompt(self, problem):
        return ask(f"Compute {problem['a']}^({problem['b']}^{problem['c']}) mod {problem['m']}, the remainder of a "
                   f"power whose exponent is {problem['b']}^{problem['c']}.", INT_FORMAT)


class FactorialModPrime(IntEnv):
    """n! mod p for a prime p and n just below p (mathematical operations: Wilson's theorem
    (p - 1)! = -1 (mod p), so n! = -1 / ((n + 1)(n + 2)...(p - 1)) mod p). d: p with d + 3
    digits, n = p - 1 - k, k in [1, d + 5]. Reward: -1 unparsable, 1 exact, else 0. Its own
    problem: the answer needs a theorem that turns p - k multiplications into k;
    factorial_prime_exponent counts a prime in n!, it does not reduce n!."""

    name = "factorial_mod_prime"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        p = random_prime(rng, 10 ** (difficulty + 2), 10 ** (difficulty + 3))
        k = rng.randint(1, difficulty + 5)
        n = p - 1 - k
        if n < 1:
            raise Retry
        tail = math.prod(range(n + 1, p)) % p
        value = (-pow(tail, -1, p)) % p
        return {"n": n, "p": p, "value": value}, str(value)

    def explain(self, problem):
        """Wilson's theorem, then one inverse."""
        n, p = problem["n"], problem["p"]
        tail = math.prod(range(n + 1, p)) % p
        return (f"Wilson: {p - 1}! = -1 (mod {p}), so {n}! * ({n + 1} * ... * {p - 1}) = -1\n"
                f"{n + 1} * ... * {p - 1} mod {p} = {tail}\n"
                f"{n}! = -1 / {tail} = -{pow(tail, -1, p)} = {problem['value']} (mod {p})")

    def prompt(self, problem):
        return ask(f"{problem['p']} is prime. Compute {problem['n']}! mod {problem['p']}.", INT_FORMAT)


def geometric_mod(a: int, n: int, m: int) -> int:
    """(1 + a + ... + a^n) mod m for any m: (a^(n+1) - 1) / (a - 1) computed modulo m (a - 1)."""
    if a == 1:
        return (n + 1) % m
    big = m * (a - 1)
    return (pow(a, n + 1, big) - 1) % big // (a - 1)


class GeometricSeriesMod(IntEnv):
    """1 + a + a^2 + ... + a^n modulo a composite m, n huge (mathematical operations: a - 1 need
    not be invertible mod m, so work modulo m (a - 1) and divide exactly, or split the sum in
    halves). d: n and m with d + 3 digits, a in [2, 10^(d + 1)], gcd(a - 1, m) > 1 forced.
    Reward: -1 unparsable, 1 exact, else 0. Its own problem: a series, not a single power, and
    the closed form's division is not available modulo m."""

    name = "geometric_series_mod"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        a = rng.randint(2, 10 ** (difficulty + 1))
        g = rng.randint(2, 12)
        a = a - (a - 1) % g  # a = 1 (mod g)
        if a < 2:
            raise Retry
        m = g * rng.randint(10 ** (difficulty + 2) // g + 1, 10 ** (difficulty + 3) // g)
        value = geometric_mod(a, n, m)
        return {"a": a, "n": n, "m": m, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Compute (1 + {problem['a']} + {problem['a']}^2 + ... + {problem['a']}^{problem['n']}) mod "
                   f"{problem['m']}.", INT_FORMAT)


def carmichael(factors: dict[int, int]) -> int:
    out = 1
    for p, e in factors.items():
        lam = 2 ** (e - 2) if p == 2 and e >= 3 else (p - 1) * p ** (e - 1)
        out = math.lcm(out, lam)
    return out


class CarmichaelFunction(IntEnv):
    """Carmichael's function lambda(n), the exponent of the group of units mod n: the lcm of
    lambda(p^e) over n's prime powers, with lambda(2^e) = 2^(e-2) for e >= 3 (mathematical
    operations). d: n a product of d // 3 + 2 prime powers below 30(d + 2), with 2 always one
    of the primes (so the special case matters). Reward: -1 unparsable, 1 exact, else 0. Its
    own problem: euler_totient multiplies the local values; here they combine by lcm and the
    2-part differs."""

    name = "carmichael_function"
    category = "math"

    def size(self, difficulty):
        return difficulty // 3 + 2

    def build(self, rng, difficulty):
        m, factors = planted_modulus(rng, self.size(difficulty), 30 * (difficulty + 2))
        if 2 not in factors:
            e = rng.randint(1, 6)
            factors[2], m = e, m * 2 ** e
        value = carmichael(factors)
        return {"n": m, "value": value}, str(value)

    def explain(self, problem):
        """lambda of each prime power, then their lcm."""
        factors = _factor(problem["n"])
        parts = [f"lambda({p}^{e}) = {carmichael({p: e})}" for p, e in sorted(factors.items())]
        return "\n".join(parts + [f"lcm = {problem['value']}"])

    def prompt(self, problem):
        return ask(f"Compute Carmichael's function lambda({problem['n']}): the smallest positive m with a^m = 1 "
                   f"(mod {problem['n']}) for every a coprime to {problem['n']}.", INT_FORMAT)
