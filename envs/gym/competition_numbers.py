"""Programming-competition number theory and digit problems with one exact integer answer.

Rewards: counts and sums -1 unparsable or negative, else (min(x, y) / max(x, y))^10 against the
true value (our choice, after rlve line 43's formula, which the paper gives for
BubbleSwapLowerBound_PermutationCounting); single values -1 unparsable, 1 exact, else 0.

What makes each its own problem: the existing number envs compute totients of one n, prime
counts, gcd sums, divisor summatory sums, Legendre exponents, digit-sum counts and coprime counts.
Here: the divisor count of a product (merged factorisations), digit DPs for non-decreasing digits
and for occurrences of one digit, the popcount total, the remainder sum (floor blocks), square-free
counts (Moebius over squares), the last non-zero digit of n!, Pisano periods, odd-divisor counts
(consecutive sums), Collatz lengths, the Frobenius number (shortest paths over residues), the
totient summatory function (a sieve), Goldbach partitions, perfect powers (Moebius over
exponents), palindromic numbers (first halves), numbers with k one bits (binomials along the
bits), Kummer's carries for the prime exponent of a binomial coefficient, and numbers with no
two neighbouring digits equal. (Zeckendorf, Calkin-Wilf and Farey-neighbour envs were dropped
here: the parallel branch h/envmath28 adds the same problems.)
"""
from __future__ import annotations

import math
from collections import Counter

from envs.gym.base import COUNT_FORMAT, INT_FORMAT, CountEnv, IntEnv, Retry, ask

SMALL_PRIMES = [p for p in range(2, 200) if all(p % q for q in range(2, int(p ** 0.5) + 1))]


def _count(problem: dict) -> tuple[dict, str]:
    return problem, str(problem["count"])


def _value(problem: dict) -> tuple[dict, str]:
    return problem, str(problem["value"])


def factorize(n: int) -> Counter:
    f, p = Counter(), 2
    while p * p <= n:
        while n % p == 0:
            f[p] += 1
            n //= p
        p += 1
    if n > 1:
        f[n] += 1
    return f


def sieve(n: int) -> bytearray:
    is_p = bytearray([1]) * (n + 1)
    is_p[:2] = b"\x00\x00"
    for p in range(2, math.isqrt(n) + 1):
        if is_p[p]:
            is_p[p * p::p] = bytes(len(range(p * p, n + 1, p)))
    return is_p


class DivisorCountOfProduct(CountEnv):
    """The number of divisors of the product of a list of integers. d: d + 3 numbers from
    2..20(d + 5). Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "divisor_count_of_product"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        xs = [rng.randint(2, 20 * (difficulty + 5)) for _ in range(self.size(difficulty))]
        total = Counter()
        for x in xs:
            total += factorize(x)
        return _count({"xs": xs, "count": math.prod(e + 1 for e in total.values())})

    def explain(self, problem):
        """Merge the factorisations; a divisor picks each prime's exponent from 0..e."""
        total, lines = Counter(), []
        for x in problem["xs"]:
            f = factorize(x)
            total += f
            lines.append(f"{x} = " + " * ".join(f"{p}^{e}" for p, e in sorted(f.items())))
        lines.append("N = " + " * ".join(f"{p}^{e}" for p, e in sorted(total.items())))
        lines.append(" * ".join(f"({e} + 1)" for _, e in sorted(total.items())) + f" = {problem['count']}")
        return "\n".join(lines)

    def prompt(self, problem):
        return ask(f"Let N = {' * '.join(map(str, problem['xs']))}. How many positive divisors does N have?",
                   COUNT_FORMAT)


class NondecreasingDigitsCounting(CountEnv):
    """Integers in [1, N] whose decimal digits never decrease left to right (a digit DP).
    d: N has d + 3 digits. Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "nondecreasing_digits_counting"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        n = rng.randint(10 ** (k - 1), 10 ** k - 1)
        return _count({"n": n, "count": nondecreasing_upto(n)})

    def prompt(self, problem):
        return ask(f"How many integers x with 1 <= x <= {problem['n']} have decimal digits that never decrease from "
                   "left to right (like 1123 or 7, but not 132)?", COUNT_FORMAT)


def nondecreasing_upto(n: int) -> int:
    """#{1 <= x <= n with non-decreasing digits}; strings of length L with digits >= a, non-
    decreasing, number C(L + 9 - a, L)."""
    digits = list(map(int, str(n)))
    total = sum(math.comb(length + 8, length) for length in range(1, len(digits)))  # shorter, first digit >= 1
    low = 1
    for i, top in enumerate(digits):
        rest = len(digits) - i - 1
        for c in range(low, top):
            total += math.comb(rest + 9 - c, rest)
        if top < low:
            return total
        low = top
    return total + 1


class DigitOccurrencesCount(CountEnv):
    """How many times digit c is written when writing all integers 1..N. d: N has d + 3 digits.
    Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "digit_occurrences_count"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        n, c = rng.randint(10 ** (k - 1), 10 ** k - 1), rng.randint(0, 9)
        return _count({"n": n, "c": c, "count": digit_occurrences(n, c)})

    def prompt(self, problem):
        return ask(f"All integers from 1 to {problem['n']} are written down in decimal. How many times is the digit "
                   f"{problem['c']} written in total?", COUNT_FORMAT)


def digit_occurrences(n: int, c: int) -> int:
    total, p = 0, 1
    while p <= n:
        high, cur, low = n // (p * 10), n // p % 10, n % p
        if c == 0:
            high -= 1  # no leading zeros: the position needs a non-zero digit above it
            if high < 0:
                break
        total += high * p + (p if cur > c else low + 1 if cur == c else 0)
        p *= 10
    return total


class TotalSetBits(CountEnv):
    """Total number of 1 bits in the binary representations of 1..N. d: N has 2d + 8 bits.
    Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "total_set_bits"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = rng.randint(1 << (self.size(difficulty) - 1), (1 << self.size(difficulty)) - 1)
        return _count({"n": n, "count": sum(bit_column(n, b) for b in range(n.bit_length()))})

    def explain(self, problem):
        """Bit b is 1 in 2^b of every 2^(b+1) consecutive numbers, counting 0..N."""
        n = problem["n"]
        lines = [f"bit {b}: {n + 1} // {2 << b} * {1 << b} + max(0, {n + 1} % {2 << b} - {1 << b}) = "
                 f"{bit_column(n, b)}" for b in range(n.bit_length())]
        return "\n".join(lines + [f"total: {problem['count']}"])

    def prompt(self, problem):
        return ask(f"Write every integer from 1 to {problem['n']} in binary. How many 1 digits are written in total?",
                   COUNT_FORMAT)


def bit_column(n: int, b: int) -> int:
    """How many of 0..n have bit b set."""
    return (n + 1) // (2 << b) * (1 << b) + max(0, (n + 1) % (2 << b) - (1 << b))


class SumOfRemainders(CountEnv):
    """sum_{i=1}^{K} (N mod i), by O(sqrt N) blocks of equal N // i. d: N in [S, 10 S] with
    S = 1000 (d + 1)^3, K in [N // 2, 2N]. Reward: ratio^10 against the true sum (our choice, after rlve line 43's
    formula)."""

    name = "sum_of_remainders"

    def size(self, difficulty):
        return 1000 * (difficulty + 1) ** 3

    def build(self, rng, difficulty):
        n = rng.randint(self.size(difficulty), 10 * self.size(difficulty))
        m = rng.randint(n // 2, 2 * n)
        return _count({"n": n, "k": m, "count": remainder_sum(n, m)})

    def prompt(self, problem):
        return ask(f"Compute (N mod 1) + (N mod 2) + ... + (N mod K) for N = {problem['n']} and K = {problem['k']}.",
                   "Give one integer (exact), e.g. <answer>42</answer>.")


def remainder_sum(n: int, k: int) -> int:
    total, i = n * k, 1
    top = min(n, k)
    while i <= top:
        q = n // i
        j = min(n // q, top)
        total -= q * (i + j) * (j - i + 1) // 2
        i = j + 1
    return total


class SquarefreeCounting(CountEnv):
    """Square-free integers in [1, N] (sum over m <= sqrt N of mu(m) floor(N / m^2)). d: N in [S, 10 S]
    with S = 10^4 (d + 1)^2. Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "squarefree_counting"

    def size(self, difficulty):
        return 10 ** 4 * (difficulty + 1) ** 2

    def build(self, rng, difficulty):
        n = rng.randint(self.size(difficulty), 10 * self.size(difficulty))
        r = math.isqrt(n)
        mu = [1] * (r + 1)
        is_p = sieve(r)
        for p in range(2, r + 1):
            if is_p[p]:
                for m in range(p, r + 1, p):
                    mu[m] = -mu[m]
                for m in range(p * p, r + 1, p * p):
                    mu[m] = 0
        return _count({"n": n, "count": sum(mu[m] * (n // (m * m)) for m in range(1, r + 1))})

    def prompt(self, problem):
        return ask(f"How many integers x with 1 <= x <= {problem['n']} are square-free (divisible by no square of a "
                   "prime)?", COUNT_FORMAT)


class FactorialLastNonzeroDigit(IntEnv):
    """The last non-zero decimal digit of n!. d: n in [20(d + 1), 40(d + 1)]. Reward: -1
    unparsable, 1 exact, else 0."""

    name = "factorial_last_nonzero_digit"
    category = "competition"

    def size(self, difficulty):
        return 20 * (difficulty + 1)

    def build(self, rng, difficulty):
        n = rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        f = math.factorial(n)
        f //= 10 ** (len(str(f)) - len(str(f).rstrip("0")))
        return _value({"n": n, "value": f % 10})

    def prompt(self, problem):
        return ask(f"What is the last non-zero digit of {problem['n']}! (the factorial, written in decimal)?",
                   "Give one digit, e.g. <answer>4</answer>.")


class PisanoPeriod(IntEnv):
    """The period of the Fibonacci numbers modulo m. d: m in [2, 30(d + 1)]. Reward: -1
    unparsable, 1 exact, else 0."""

    name = "pisano_period"
    category = "competition"

    def size(self, difficulty):
        return 30 * (difficulty + 1)

    def build(self, rng, difficulty):
        m = rng.randint(2, self.size(difficulty))
        a, b, k = 0, 1, 0
        while True:
            a, b, k = b, (a + b) % m, k + 1
            if (a, b) == (0, 1):
                return _value({"m": m, "value": k})

    def prompt(self, problem):
        return ask(f"The Fibonacci numbers F_0 = 0, F_1 = 1, F_(n+2) = F_(n+1) + F_n, taken modulo {problem['m']}, "
                   "repeat periodically. What is the length of the shortest period?", INT_FORMAT)


class ConsecutiveSumRepresentations(CountEnv):
    """Ways to write N as a sum of one or more consecutive positive integers (= its odd divisors).
    d: N a product of d // 2 + 2 random small prime powers. Reward: count ratio^10 (our choice,
    after rlve line 43's formula)."""

    name = "consecutive_sum_representations"

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        n = math.prod(rng.choice(SMALL_PRIMES[:12]) for _ in range(self.size(difficulty))) * rng.randint(1, 30)
        count = math.prod(e + 1 for p, e in factorize(n).items() if p != 2)
        return _count({"n": n, "count": count})

    def explain(self, problem):
        """k consecutive numbers from a sum to n iff n = k (2a + k - 1) / 2: one way per odd divisor."""
        f = factorize(problem["n"])
        odd = sorted((p, e) for p, e in f.items() if p != 2)
        return (f"{problem['n']} = " + " * ".join(f"{p}^{e}" for p, e in sorted(f.items())) + "\n"
                "one way per odd divisor; odd divisors: " + (" * ".join(f"({e} + 1)" for _, e in odd) or "1")
                + f" = {problem['count']}")

    def prompt(self, problem):
        return ask(f"In how many ways can {problem['n']} be written as a sum of one or more consecutive positive "
                   f"integers? ({problem['n']} by itself counts as one way.)", COUNT_FORMAT)


class CollatzSteps(IntEnv):
    """Steps of the Collatz map (n -> n/2 if even, 3n + 1 if odd) until n reaches 1. d: n with
    d // 2 + 3 digits. Reward: -1 unparsable, 1 exact, else 0."""

    name = "collatz_steps"
    category = "competition"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (self.size(difficulty) - 1), 10 ** self.size(difficulty) - 1)
        return _value({"n": n, "value": len(collatz(n)) - 1})

    def explain(self, problem):
        """One line per replacement."""
        seq = collatz(problem["n"])
        lines = [f"{x} // 2 = {y}" if x % 2 == 0 else f"3 * {x} + 1 = {y}" for x, y in zip(seq, seq[1:])]
        return "\n".join(lines + [f"{len(seq) - 1} replacements."])

    def prompt(self, problem):
        return ask(f"Start from {problem['n']} and repeatedly replace n by n / 2 if n is even or by 3n + 1 if n is "
                   "odd. How many replacements are made until the number first becomes 1?", INT_FORMAT)


def collatz(n: int) -> list[int]:
    seq = [n]
    while seq[-1] != 1:
        x = seq[-1]
        seq.append(x // 2 if x % 2 == 0 else 3 * x + 1)
    return seq


class FrobeniusNumber(IntEnv):
    """The largest amount not payable with unlimited coins of the given values (gcd 1):
    shortest paths over residues mod the smallest coin. d: d // 3 + 2 coins from
    [5, 10(d + 2)]. Reward: -1 unparsable, 1 exact, else 0."""

    name = "frobenius_number"
    category = "competition"

    def size(self, difficulty):
        return difficulty // 3 + 2

    def build(self, rng, difficulty):
        coins = sorted(rng.sample(range(5, 10 * (difficulty + 2) + 1), self.size(difficulty)))
        if math.gcd(*coins) != 1:
            raise Retry
        a = coins[0]
        best = [0] + [None] * (a - 1)  # best[r]: the smallest payable amount = r mod a
        frontier = [0]
        while frontier:  # Bellman-Ford style relaxation; a is small, so this is quick
            nxt = set()
            for r in frontier:
                for c in coins[1:]:
                    v, s = best[r] + c, (r + c) % a
                    if best[s] is None or v < best[s]:
                        best[s] = v
                        nxt.add(s)
            frontier = nxt
        return _value({"coins": coins, "value": max(best) - a})

    def prompt(self, problem):
        return ask(f"Coins come in the values {', '.join(map(str, problem['coins']))}, with an unlimited supply of "
                   "each. What is the largest amount that cannot be paid exactly?", INT_FORMAT)


class TotientSummatory(CountEnv):
    """phi(1) + phi(2) + ... + phi(N) (a totient sieve). d: N in [10(d + 2)^2, 20(d + 2)^2].
    Reward: ratio^10 against the true sum (our choice, after rlve line 43's formula). Own problem:
    euler_totient asks for one phi(n)."""

    name = "totient_summatory"

    def size(self, difficulty):
        return 10 * (difficulty + 2) ** 2

    def build(self, rng, difficulty):
        n = rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        phi = list(range(n + 1))
        for p in range(2, n + 1):
            if phi[p] == p:
                phi[p::p] = [x - x // p for x in phi[p::p]]
        return _count({"n": n, "count": sum(phi[1:])})

    def prompt(self, problem):
        return ask(f"Let phi be Euler's totient function. Compute phi(1) + phi(2) + ... + phi({problem['n']}).",
                   "Give one integer (exact), e.g. <answer>42</answer>.")


class GoldbachPartitions(CountEnv):
    """Ways to write an even N as p + q with primes p <= q. d: N even in [20(d + 2)^2,
    40(d + 2)^2]. Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "goldbach_partitions"

    def size(self, difficulty):
        return 20 * (difficulty + 2) ** 2

    def build(self, rng, difficulty):
        n = 2 * rng.randint(self.size(difficulty) // 2, self.size(difficulty))
        is_p = sieve(n)
        return _count({"n": n, "count": sum(1 for p in range(2, n // 2 + 1) if is_p[p] and is_p[n - p])})

    def prompt(self, problem):
        return ask(f"In how many ways can {problem['n']} be written as p + q with p and q prime and p <= q?",
                   COUNT_FORMAT)


class PerfectPowersCounting(CountEnv):
    """Integers in [1, N] of the form m^k with m >= 1, k >= 2 (1 included), by Moebius over
    exponents. d: N with d // 2 + 4 digits. Reward: count ratio^10 (our choice, after rlve line
    43's formula)."""

    name = "perfect_powers_counting"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (self.size(difficulty) - 1), 10 ** self.size(difficulty) - 1)
        return _count({"n": n, "count": perfect_powers(n)})

    def prompt(self, problem):
        return ask(f"How many integers x with 1 <= x <= {problem['n']} are perfect powers, i.e. x = m^k for integers "
                   "m >= 1 and k >= 2? (1 counts.)", COUNT_FORMAT)


def iroot(n: int, k: int) -> int:
    """floor(n ** (1 / k)), exact."""
    r = int(round(n ** (1.0 / k)))
    while r ** k > n:
        r -= 1
    while (r + 1) ** k <= n:
        r += 1
    return r


def perfect_powers(n: int) -> int:
    total = 1
    for k in range(2, n.bit_length() + 1):
        mu = _mobius(k)
        if mu:
            total -= mu * (iroot(n, k) - 1)
    return total


def _mobius(k: int) -> int:
    f = factorize(k)
    return 0 if any(e > 1 for e in f.values()) else (-1) ** len(f)


class PalindromicNumbersCounting(CountEnv):
    """Integers in [1, N] whose decimal digits read the same backwards (each is fixed by its first
    half). d: N has d + 3 digits. Reward: count ratio^10 (our choice, after rlve line 43's
    formula)."""

    name = "palindromic_numbers_counting"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        n = rng.randint(10 ** (k - 1), 10 ** k - 1)
        return _count({"n": n, "count": palindromes_upto(n)})

    def prompt(self, problem):
        return ask(f"How many integers x with 1 <= x <= {problem['n']} are palindromes in decimal (read the same "
                   "from both ends, like 7, 44 or 12321)?", COUNT_FORMAT)


def palindromes_upto(n: int) -> int:
    s = str(n)
    total = sum(9 * 10 ** ((length - 1) // 2) for length in range(1, len(s)))  # shorter lengths
    half = s[:(len(s) + 1) // 2]
    total += int(half) - 10 ** (len(half) - 1)  # smaller first halves of the same length
    mirror = half + half[:len(s) // 2][::-1]
    return total + (int(mirror) <= n)


class KSetBitsCounting(CountEnv):
    """Integers in [1, N] with exactly k ones in binary (walk N's bits: binomial coefficients
    for every 1 bit turned to 0). d: N has 2d + 8 bits, k in [1, bit length]. Reward: count
    ratio^10 (our choice, after rlve line 43's formula). Own problem: a count of numbers with one
    popcount (total_set_bits sums the popcounts)."""

    name = "k_set_bits_counting"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        bits = self.size(difficulty)
        n = rng.randint(1 << (bits - 1), (1 << bits) - 1)
        k = rng.randint(1, bits)
        count, ones = 0, 0
        for i, b in enumerate(bin(n)[2:]):
            if b == "1":
                rest = bits - i - 1
                if k - ones >= 0:
                    count += math.comb(rest, k - ones)  # this bit 0, any k - ones of the rest
                ones += 1
        count += ones == k
        if count == 0:
            raise Retry
        return _count({"n": n, "k": k, "count": count})

    def prompt(self, problem):
        return ask(f"How many integers x with 1 <= x <= {problem['n']} have exactly {problem['k']} ones in their "
                   "binary representation?", COUNT_FORMAT)


class BinomialPrimeExponent(IntEnv):
    """The exponent of a prime p in C(n, k): the number of carries when adding k and n - k in
    base p (Kummer's theorem). d: n with d + 3 digits, p a prime below 50. Reward: -1 unparsable,
    1 exact, else 0. Own problem: lucas_binomial asks for C(n, k) mod p, factorial_prime_exponent
    for the exponent in one factorial."""

    name = "binomial_prime_exponent"
    category = "competition"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (self.size(difficulty) - 1), 10 ** self.size(difficulty))
        k, p = rng.randint(1, n - 1), rng.choice(SMALL_PRIMES[:15])
        a, b, carry, carries = k, n - k, 0, 0
        while a or b or carry:
            carry = int(a % p + b % p + carry >= p)
            carries += carry
            a, b = a // p, b // p
        return _value({"n": n, "k": k, "p": p, "value": carries})

    def prompt(self, problem):
        return ask(f"What is the largest e such that {problem['p']}^e divides the binomial coefficient "
                   f"C({problem['n']}, {problem['k']})?", INT_FORMAT)


class NoAdjacentEqualDigitsCounting(CountEnv):
    """Integers in [1, N] with no two neighbouring decimal digits equal (a digit DP: 9 choices
    per free digit). d: N has d + 3 digits. Reward: count ratio^10 (our choice, after rlve line
    43's formula)."""

    name = "no_adjacent_equal_digits_counting"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        n = rng.randint(10 ** (k - 1), 10 ** k - 1)
        return _count({"n": n, "count": no_adjacent_equal_upto(n)})

    def prompt(self, problem):
        return ask(f"How many integers x with 1 <= x <= {problem['n']} have no two neighbouring decimal digits equal "
                   "(like 1213, but not 1223)?", COUNT_FORMAT)


def no_adjacent_equal_upto(n: int) -> int:
    s = str(n)
    total = sum(9 ** length for length in range(1, len(s)))  # shorter: first digit 1..9, then 9 choices each
    prev = None
    for i, ch in enumerate(s):
        top = int(ch)
        total += sum(1 for d in range(1 if i == 0 else 0, top) if d != prev) * 9 ** (len(s) - i - 1)
        if top == prev:
            return total
        prev = top
    return total + 1
