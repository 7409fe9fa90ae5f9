"""Exact rationals and number representations: rational expressions, Egyptian fractions,
repeating decimals (both ways), best rational approximations, Farey neighbours, the
Calkin-Wilf sequence, fraction ordering, and the factorial, balanced-ternary, negabinary,
Zeckendorf and Gray-code representations of integers.

Mathematical operations in the RLVE paper's sense (rlve line 47). Every value is computed with
int / Fraction and compared exactly. Rewards (our choice, unless a class says otherwise): -1
when the answer cannot be parsed, 1 when it is right, else 0.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

from envs.gym.base import GymEnv, IntEnv, Retry, ask, int_list, matches, to_fraction

FRACTION_FORMAT = "Give the exact value as p/q in lowest terms (or an integer), e.g. <answer>-7/12</answer>."


def frac_text(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def parse_fraction(answer: str) -> Fraction:
    """One exact rational (integer, decimal or p/q); spaces around the slash allowed."""
    text = "".join(answer.split())
    if not text or len(text) > 10_000:
        raise ValueError("not a fraction")
    return to_fraction(text)


class RationalEnv(GymEnv):
    """Reward for a rational value: -1 unparsable, 1 if it equals problem["num"] / problem["den"]
    exactly (any equal form), else 0."""

    category = "math"

    def reward(self, problem, answer):
        return 1.0 if parse_fraction(answer) == Fraction(problem["num"], problem["den"]) else 0.0


def _rational_expression(rng, ops: int, top: int) -> tuple[str, Fraction]:
    if ops == 0:
        a, b = rng.randint(1, top), rng.randint(1, top)
        x = Fraction(a, b)
        return (str(a) if b == 1 else f"({a}/{b})"), x
    left = rng.randint(0, ops - 1)
    (ta, a), (tb, b) = _rational_expression(rng, left, top), _rational_expression(rng, ops - 1 - left, top)
    op = rng.choice("+-*/")
    if op == "/" and b == 0:
        op = "*"
    value = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else a}[op]
    return f"({ta} {op} {tb})", value


class RationalExpression(RationalEnv):
    """Exact value of a nested expression of fractions with + - * and / (mathematical
    operations). d: d + 2 operators over fractions a/b with a, b in [1, 9 + d], fully
    bracketed. Reward: -1 unparsable, 1 for the exact value (any equal form), else 0.
    Its own problem: fraction_sum only adds and subtracts a flat list; here products, quotients
    and nesting make the work the order of operations on rationals."""

    name = "rational_expression"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        text, value = _rational_expression(rng, self.size(difficulty), 9 + difficulty)
        if len(str(value.denominator)) > 400 or len(str(value.numerator)) > 400:
            raise Retry
        return {"expression": text[1:-1], "num": value.numerator, "den": value.denominator}, frac_text(value)

    def prompt(self, problem):
        return ask(f"Compute exactly: {problem['expression']}", FRACTION_FORMAT)


def greedy_egyptian(p: int, q: int) -> list[int]:
    """Fibonacci-Sylvester: repeatedly take the largest unit fraction 1/ceil(q/p) that fits."""
    out = []
    while p:
        d = -(-q // p)
        out.append(d)
        p, q = p * d - q, q * d
        g = math.gcd(p, q)
        p, q = p // g, q // g
    return out


class EgyptianFractionGreedy(GymEnv):
    """The greedy (Fibonacci-Sylvester) Egyptian-fraction expansion of p/q < 1: at each step the
    largest unit fraction not exceeding what is left (mathematical operations). d: q in
    [10(d + 2), 20(d + 2)], p in [2, min(q - 1, d // 4 + 3)], gcd 1; at most 10 terms (the
    denominators grow doubly exponentially). Reward: -1 unparsable, 1 for the greedy
    denominators in order, 0.5 for another list of distinct unit fractions summing to p/q
    (our choice: a valid expansion, not the greedy one; at most 2k + 4 terms for a greedy
    expansion of k, none above twice the greedy's largest bit length), else 0. Its own problem: no other env
    writes a rational as a sum of unit fractions."""

    name = "egyptian_fraction_greedy"
    category = "math"

    def size(self, difficulty):
        return 10 * (difficulty + 2)

    def build(self, rng, difficulty):
        q = rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        p = rng.randint(2, min(q - 1, difficulty // 4 + 3))
        if math.gcd(p, q) != 1:
            raise Retry
        terms = greedy_egyptian(p, q)
        if len(terms) > 10 or len(str(terms[-1])) > 1000:
            raise Retry
        return {"p": p, "q": q, "terms": [str(t) for t in terms]}, " ".join(map(str, terms))

    def prompt(self, problem):
        return ask(f"Write {problem['p']}/{problem['q']} as a sum of distinct unit fractions by the greedy method: "
                   "repeatedly subtract the largest unit fraction 1/d that does not exceed the remainder.",
                   "Give the denominators d in the order the method finds them, separated by spaces, e.g. "
                   "<answer>2 7 98</answer> for 1/2 + 1/7 + 1/98.")

    def explain(self, problem):
        """One line per greedy step: d = ceil(q / p), then the remainder p/q - 1/d."""
        p, q, lines = problem["p"], problem["q"], []
        for d in map(int, problem["terms"]):
            rest = Fraction(p, q) - Fraction(1, d)
            lines.append(f"{p}/{q} - 1/{d} = {frac_text(rest)}")
            p, q = rest.numerator, rest.denominator
        return "\n".join(lines)

    def reward(self, problem, answer):
        got = int_list(answer)
        if got == [int(t) for t in problem["terms"]]:
            return 1.0
        if not got or len(got) > 2 * len(problem["terms"]) + 4 or min(got) < 1 or len(set(got)) < len(got):
            return 0.0
        # bounds the exact sum below (big common denominators make each addition's gcd slow)
        if max(got).bit_length() > 2 * int(problem["terms"][-1]).bit_length() + 64:
            return 0.0
        return 0.5 if sum(Fraction(1, d) for d in got) == Fraction(problem["p"], problem["q"]) else 0.0


def repeating_decimal(x: Fraction) -> str:
    """x >= 0 as its shortest decimal: '3.25', '0.1(6)', '2' (period in brackets)."""
    whole, rem, den = x.numerator // x.denominator, x.numerator % x.denominator, x.denominator
    digits, seen = [], {}
    while rem and rem not in seen:
        seen[rem] = len(digits)
        rem *= 10
        digits.append(str(rem // den))
        rem %= den
    if not digits:
        return str(whole)
    if not rem:
        return f"{whole}." + "".join(digits)
    start = seen[rem]
    return f"{whole}." + "".join(digits[:start]) + "(" + "".join(digits[start:]) + ")"


_DECIMAL = re.compile(r"(\d+)(?:\.(\d*)(?:\((\d+)\))?)?")


def decimal_value(text: str) -> Fraction:
    """The value of '12.3(45)' (the bracketed block repeats forever); ValueError otherwise."""
    m = _DECIMAL.fullmatch(text)
    if not m or len(text) > 20_000:
        raise ValueError("not a decimal")
    whole, pre, rep = m.group(1), m.group(2) or "", m.group(3) or ""
    value = Fraction(int(whole)) + (Fraction(int(pre), 10 ** len(pre)) if pre else 0)
    if rep:
        value += Fraction(int(rep), 10 ** len(pre) * (10 ** len(rep) - 1))
    return value


def _decimal_fraction(rng, difficulty: int) -> Fraction:
    top = 20 * (difficulty + 2)
    den = rng.randint(3, top) * 2 ** rng.randint(0, 3) * 5 ** rng.randint(0, 2)
    return Fraction(rng.randint(1, 3 * den), den)


class RepeatingDecimal(GymEnv):
    """p/q as a decimal with its repeating block in brackets, e.g. 1/6 = 0.1(6) (mathematical
    operations, long division). d: q = m 2^i 5^j with m in [3, 20(d + 2)], p in [1, 3q].
    Reward: -1 unparsable, 1 for the shortest form, 0.5 for another spelling of the same
    value (a longer block, '0.(9)'; our choice), else 0. Its own problem: the output is the
    pre-period and period of a long division, which no other env asks for."""

    name = "repeating_decimal"
    category = "math"

    def size(self, difficulty):
        return 20 * (difficulty + 2)

    def build(self, rng, difficulty):
        x = _decimal_fraction(rng, difficulty)
        return {"num": x.numerator, "den": x.denominator, "decimal": repeating_decimal(x)}, repeating_decimal(x)

    def prompt(self, problem):
        return ask(f"Write {problem['num']}/{problem['den']} as a decimal, putting the repeating block (if any) in "
                   "brackets, in the shortest form.", "For example 1/6 is <answer>0.1(6)</answer>, 13/4 is "
                   "<answer>3.25</answer> and 1/7 is <answer>0.(142857)</answer>.")

    def reward(self, problem, answer):
        text = "".join(answer.split())
        value = decimal_value(text)
        if text == problem["decimal"]:
            return 1.0
        return 0.5 if value == Fraction(problem["num"], problem["den"]) else 0.0


class RepeatingDecimalToFraction(RationalEnv):
    """A repeating decimal such as 0.12(345) as a fraction (mathematical operations: a
    geometric series, x = pre + block / (10^k (10^r - 1))). d: the decimal of p/q with q as in
    repeating_decimal. Reward: -1 unparsable, 1 for the exact value, else 0. Its own problem:
    the reverse direction of repeating_decimal, solved by algebra on the digits instead of long
    division, and the answer is a fraction, not digits."""

    name = "repeating_decimal_to_fraction"

    def size(self, difficulty):
        return 20 * (difficulty + 2)

    def build(self, rng, difficulty):
        x = _decimal_fraction(rng, difficulty)
        if "(" not in repeating_decimal(x):
            raise Retry
        return {"decimal": repeating_decimal(x), "num": x.numerator, "den": x.denominator}, frac_text(x)

    def prompt(self, problem):
        return ask(f"The bracketed digits repeat forever: {problem['decimal']}. Write this number as a fraction.",
                   FRACTION_FORMAT)


def best_approximation(x: Fraction, n: int) -> Fraction:
    """A closest fraction to x with denominator <= n (Fraction.limit_denominator does the
    convergent / semiconvergent search)."""
    return x.limit_denominator(n)


class BestRationalApproximation(GymEnv):
    """The fraction with denominator at most N closest to a given rational (mathematical
    operations: convergents and semiconvergents). d: x = a/b with b of d + 4 digits, N with
    d // 2 + 2 digits. Reward: -1 unparsable, 1 for any p/q with 1 <= q <= N at the least
    distance |x - p/q| (ties all count), 0 otherwise. Its own problem: continued_fraction asks
    for the expansion itself; here the answer is a constrained optimum that semiconvergents
    (not only convergents) can give."""

    name = "best_rational_approximation"
    category = "math"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        b = rng.randint(10 ** (difficulty + 3), 10 ** (difficulty + 4))
        x = Fraction(rng.randint(1, 5 * b), b)
        n = rng.randint(10 ** (difficulty // 2 + 1), 10 ** (difficulty // 2 + 2))
        if x.denominator <= n:
            raise Retry
        best = best_approximation(x, n)
        return {"num": x.numerator, "den": x.denominator, "n": n, "dist": frac_text(abs(x - best))}, frac_text(best)

    def prompt(self, problem):
        return ask(f"Among all fractions p/q with 1 <= q <= {problem['n']}, which is closest to "
                   f"{problem['num']}/{problem['den']}?", "Give it as p/q, e.g. <answer>22/7</answer>.")

    def reward(self, problem, answer):
        y = parse_fraction(answer)
        if y.denominator > problem["n"]:
            return 0.0
        return 1.0 if abs(Fraction(problem["num"], problem["den"]) - y) == Fraction(problem["dist"]) else 0.0


def farey_next(a: int, b: int, n: int) -> Fraction:
    """The successor of a/b (0 < a < b <= n, reduced) in the Farey sequence F_n: c/d with
    b c - a d = 1 and d the largest such denominator <= n."""
    d0 = (-pow(a, -1, b)) % b if b > 1 else 0
    d = d0 + b * ((n - d0) // b)
    return Fraction((a * d + 1) // b, d)


class FareyNeighbor(RationalEnv):
    """The next fraction after a/b in the Farey sequence F_n (all reduced fractions in [0, 1]
    with denominator <= n, in increasing order) (mathematical operations: b c - a d = 1 by the
    extended Euclidean algorithm). d: n with d + 2 digits, a/b reduced with b <= n. Reward: -1
    unparsable, 1 for the exact successor, else 0. Its own problem: a Diophantine condition on
    neighbours in an ordering of all fractions, not an approximation of one number."""

    name = "farey_neighbor"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (difficulty + 1), 10 ** (difficulty + 2))
        b = rng.randint(2, n)
        a = rng.randint(1, b - 1)
        if math.gcd(a, b) != 1:
            raise Retry
        nxt = farey_next(a, b, n)
        return {"a": a, "b": b, "n": n, "num": nxt.numerator, "den": nxt.denominator}, frac_text(nxt)

    def prompt(self, problem):
        return ask(f"The Farey sequence F_n lists every reduced fraction between 0 and 1 with denominator at most n, "
                   f"in increasing order. Which fraction comes right after {problem['a']}/{problem['b']} in F_"
                   f"{problem['n']}?", "Give it as p/q, e.g. <answer>3/8</answer>.")


def calkin_wilf(n: int) -> Fraction:
    """The n-th term (from 1) of the Calkin-Wilf sequence 1, 1/2, 2, 1/3, 3/2, ...: walk the
    bits of n after the leading 1, a/b -> a/(a + b) on 0 and (a + b)/b on 1."""
    a, b = 1, 1
    for bit in bin(n)[3:]:
        a, b = (a, a + b) if bit == "0" else (a + b, b)
    return Fraction(a, b)


class CalkinWilfTerm(RationalEnv):
    """The n-th term of the Calkin-Wilf sequence, the breadth-first order of the Calkin-Wilf
    tree (1/1 at the root, children a/(a + b) and (a + b)/b), which lists every positive
    rational once (mathematical operations). d: n with d + 2 digits. Reward: -1 unparsable, 1
    for the exact term, else 0. Its own problem: the binary digits of n, not its value, drive
    the computation."""

    name = "calkin_wilf_term"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (difficulty + 1), 10 ** (difficulty + 2))
        x = calkin_wilf(n)
        return {"n": n, "num": x.numerator, "den": x.denominator}, frac_text(x)

    def explain(self, problem):
        """Walk the binary digits of n after the leading 1 from the root 1/1."""
        bits = bin(problem["n"])[3:]
        a, b, lines = 1, 1, [f"{problem['n']} in binary is 1{bits}; start at 1/1"]
        for bit in bits:
            a, b = (a, a + b) if bit == "0" else (a + b, b)
            lines.append(f"bit {bit}: {a}/{b}")
        return "\n".join(lines)

    def prompt(self, problem):
        return ask("The Calkin-Wilf sequence 1, 1/2, 2, 1/3, 3/2, 2/3, 3, 1/4, ... lists the Calkin-Wilf tree level "
                   "by level, left to right: the root is 1/1 and a/b has children a/(a+b) (left) and (a+b)/b "
                   f"(right). What is its term number {problem['n']} (counting from 1)?",
                   "Give it as p/q (or an integer), e.g. <answer>3/2</answer>.")


class FractionSorting(GymEnv):
    """Order fractions with close values (mathematical operations: exact comparison by cross
    multiplication). d: n = d + 4 distinct fractions p/q with q in [2, 50(d + 1)], all within
    a narrow band. Answer: the indices in increasing order of value. Reward: -1 unparsable,
    -0.5 wrong length, else (positions right / n)^5 (our choice, matches()). Its own problem:
    sorting compares integers; here every comparison is a product of numerator and
    denominator, and near-equal values defeat rounding."""

    name = "fraction_sorting"
    category = "math"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n, top = self.size(difficulty), 50 * (difficulty + 1)
        centre = Fraction(rng.randint(1, 99), 100)
        fracs = set()
        while len(fracs) < n:
            q = rng.randint(2, top)
            fracs.add(Fraction(round(centre * q) + rng.randint(-1, 1), q))
        items = sorted(fracs, key=lambda f: (f.denominator, f.numerator))
        rng.shuffle(items)
        order = sorted(range(n), key=lambda i: items[i])
        return {"fractions": [frac_text(f) for f in items], "order": order}, " ".join(map(str, order))

    def prompt(self, problem):
        listing = "\n".join(f"{i}: {f}" for i, f in enumerate(problem["fractions"]))
        return ask(f"Sort these fractions from smallest to largest:\n{listing}",
                   "Give their indices in increasing order of value, separated by spaces, e.g. <answer>2 0 1</answer>.")

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["order"], 5)


class _DigitsEnv(GymEnv):
    """A representation of an integer written as a string of digit symbols: -1 unparsable (a
    character outside the alphabet), 1 for the exact canonical string, else 0."""

    category = "math"
    alphabet = ""

    def reward(self, problem, answer):
        text = "".join(answer.split())
        if not text or len(text) > 20_000 or any(c not in self.alphabet for c in text):
            raise ValueError("not in the alphabet")
        return 1.0 if text == problem["digits"] else 0.0


def balanced_ternary(n: int) -> str:
    out = ""
    while n:
        r = n % 3
        out = "0+-"[r] + out
        n = (n + 1) // 3 if r == 2 else n // 3
    return out or "0"


class BalancedTernary(_DigitsEnv):
    """An integer in balanced ternary: digits -1, 0, 1 written '-', '0', '+', weights powers of 3
    (mathematical operations). d: |n| with d + 3 decimal digits, either sign. Reward: -1
    unparsable, 1 for the exact digit string without leading zeros, else 0. Its own problem:
    base_conversion uses digits 0..b-1 of positive bases; here digits are signed, so negative
    numbers need no sign and each step carries on remainder 2."""

    name = "balanced_ternary"
    alphabet = "+-0"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.choice((1, -1)) * rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        return {"n": n, "digits": balanced_ternary(n)}, balanced_ternary(n)

    def explain(self, problem):
        """n = 3 q + r with r in {-1, 0, 1}, repeated on q; the remainders are the digits from the right."""
        n, lines = problem["n"], []
        while n:
            r = (n + 1) % 3 - 1
            lines.append(f"{n} = 3 * {(n - r) // 3} {'-' if r < 0 else '+'} {abs(r)}")
            n = (n - r) // 3
        return "\n".join(lines)

    def prompt(self, problem):
        return ask(f"Write {problem['n']} in balanced ternary: digits + (1), 0 and - (-1), the rightmost digit "
                   "worth 1, the next 3, then 9, 27, ... (no leading zeros).",
                   "Give the digits as one string, e.g. 5 = 9 - 3 - 1 is <answer>+--</answer>.")


def negabinary(n: int) -> str:
    out = ""
    while n:
        r = n % 2
        n = (n - r) // -2
        out = str(r) + out
    return out or "0"


class Negabinary(_DigitsEnv):
    """An integer in base -2: digits 0/1 with weights (-2)^i (mathematical operations). d: |n|
    with d + 3 decimal digits, either sign. Reward: -1 unparsable, 1 for the exact digit string
    without leading zeros, else 0. Its own problem: a negative base, so every integer has an
    unsigned representation and division rounds towards the representable remainder."""

    name = "negabinary"
    alphabet = "01"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.choice((1, -1)) * rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        return {"n": n, "digits": negabinary(n)}, negabinary(n)

    def explain(self, problem):
        """n = -2 q + r with r in {0, 1}, repeated on q; the remainders are the digits from the right."""
        n, lines = problem["n"], []
        while n:
            r = n % 2
            lines.append(f"{n} = -2 * {(n - r) // -2} + {r}")
            n = (n - r) // -2
        return "\n".join(lines)

    def prompt(self, problem):
        return ask(f"Write {problem['n']} in base -2: digits 0 and 1, the rightmost worth 1, then -2, 4, -8, 16, ... "
                   "(no leading zeros).", "Give the digits as one string, e.g. -3 = -8 + 4 + 1 is <answer>1101</answer>.")


def factoradic(n: int) -> list[int]:
    out, k = [], 1
    while True:
        n, r = divmod(n, k)
        out.append(r)
        if not n:
            return out[::-1]
        k += 1


class Factoradic(GymEnv):
    """An integer in the factorial number system: n = sum d_i i! with 0 <= d_i <= i
    (mathematical operations). d: n with d + 3 digits. Answer: the digits from the highest
    place down to the 0! place. Reward: -1 unparsable, 1 for the exact digits (leading zeros
    stripped), else 0. Its own problem: a mixed radix whose base grows with the position."""

    name = "factoradic"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        return {"n": n, "digits": factoradic(n)}, " ".join(map(str, factoradic(n)))

    def explain(self, problem):
        """Divide by 1, 2, 3, ... in turn; the remainders are the digits d_0, d_1, d_2, ..."""
        n, k, lines = problem["n"], 1, []
        while True:
            lines.append(f"{n} = {k} * {n // k} + {n % k}")
            n //= k
            if not n:
                return "\n".join(lines)
            k += 1

    def prompt(self, problem):
        return ask(f"Write {problem['n']} in the factorial number system: digits d_k ... d_1 d_0 with 0 <= d_i <= i "
                   "and value d_k k! + ... + d_1 1! + d_0 0!.",
                   "Give the digits from d_k down to d_0 (always 0) separated by spaces, e.g. 23 = 3*3! + 2*2! + "
                   "1*1! is <answer>3 2 1 0</answer>.")

    def reward(self, problem, answer):
        got = int_list(answer)
        while len(got) > 1 and got[0] == 0:
            got = got[1:]
        return 1.0 if got == problem["digits"] else 0.0


def fibonacci_upto(n: int) -> list[int]:
    fib = [1, 2]
    while fib[-1] + fib[-2] <= n:
        fib.append(fib[-1] + fib[-2])
    return fib


def zeckendorf(n: int) -> list[int]:
    out = []
    for f in reversed(fibonacci_upto(n)):
        if f <= n:
            out.append(f)
            n -= f
    return out


class Zeckendorf(GymEnv):
    """The Zeckendorf representation: n as a sum of non-consecutive Fibonacci numbers (1, 2, 3,
    5, 8, ...), unique by Zeckendorf's theorem (mathematical operations; checked). d: n with
    d + 3 digits. Reward: -1 unparsable, 1 if the numbers are distinct Fibonacci numbers, no
    two consecutive, summing to n, else 0. Its own problem: a greedy representation in a
    non-positional system (Fibonacci coding)."""

    name = "zeckendorf"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        return {"n": n}, " ".join(map(str, zeckendorf(n)))

    def explain(self, problem):
        """Greedy: subtract the largest Fibonacci number that fits, until nothing is left."""
        n, lines = problem["n"], []
        for f in zeckendorf(n):
            lines.append(f"{n} - {f} = {n - f}")
            n -= f
        return "\n".join(lines)

    def prompt(self, problem):
        return ask(f"Write {problem['n']} as a sum of Fibonacci numbers (1, 2, 3, 5, 8, 13, ...), no two of them "
                   "consecutive in that list.", "Give the Fibonacci numbers from largest to smallest separated by "
                   "spaces, e.g. 100 = 89 + 8 + 3 is <answer>89 8 3</answer>.")

    def reward(self, problem, answer):
        n = problem["n"]
        got = int_list(answer)
        if not got or len(got) > 400 or sum(got) != n:
            return 0.0
        index = {f: i for i, f in enumerate(fibonacci_upto(n))}
        if any(g not in index for g in got) or len(set(got)) < len(got):
            return 0.0
        places = sorted(index[g] for g in got)
        return 1.0 if all(b - a >= 2 for a, b in zip(places, places[1:])) else 0.0


class GrayCodeIndex(IntEnv):
    """The position of a word in the binary reflected Gray code (mathematical operations: the
    index's bits are the prefix XORs of the word's bits). d: words of 4(d + 2) bits, leading
    bit 1. Answer: the index in decimal. Reward: -1 unparsable, 1 exact, else 0. Its own
    problem: a non-positional binary code whose decoding runs a cumulative XOR, not a change
    of base."""

    name = "gray_code_index"
    category = "math"

    def size(self, difficulty):
        return 4 * (difficulty + 2)

    def build(self, rng, difficulty):
        bits = self.size(difficulty)
        index = rng.getrandbits(bits) | 1 << (bits - 1)
        word = index ^ (index >> 1)
        return {"word": format(word, "b"), "value": index}, str(index)

    def prompt(self, problem):
        return ask("In the binary reflected Gray code the words of each length are listed 0, 1, 11, 10, 110, 111, "
                   f"101, 100, ... (index 0, 1, 2, ...; consecutive words differ in one bit). At which index is the "
                   f"word {problem['word']}?", "Give the index as a decimal integer, e.g. <answer>6</answer>.")
