"""Number algorithms beyond one-line arithmetic: representations (Zeckendorf, continued fractions,
Egyptian fractions, sums of squares), extended Euclid, fast powering, coin DP, digit iterations.
(The gym supplies prime counting, modular inverses, Josephus, Stirling numbers and partitions.)"""
from __future__ import annotations

import math

from envs.compose.brick import Brick, by_name
from envs.compose.types import BOOL, INT, LIST_INT, PAIR


def zeckendorf(n, c):
    if n < 1:
        return None
    fibs = [1, 2]
    while fibs[-1] <= n:
        c.tick()
        fibs.append(fibs[-1] + fibs[-2])
    out = []
    for f in reversed(fibs):
        c.tick()
        if f <= n:
            out.append(f)
            n -= f
    return out


def min_coins_134(n, c):
    if n < 0:
        return None
    c.tick(3 * (n + 1))
    best = [0] + [n + 1] * n
    for v in range(1, n + 1):
        best[v] = 1 + min(best[v - k] for k in (1, 3, 4) if k <= v)
    return best[n]


def sum_of_two_squares(n, c):
    a = 0
    while 2 * a * a <= n:
        c.tick()
        b = math.isqrt(n - a * a)
        if b * b == n - a * a:
            return a, b
        a += 1
    return None


def bezout(p, c):
    a, b = p
    old_r, r, old_s, s, old_t, t = a, b, 1, 0, 0, 1
    while r:
        c.tick()
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
        old_t, t = t, old_t - q * t
    return old_s, old_t


def power_mod_97(p, c):
    base, e = p
    if e < 0:
        return None
    result, base = 1, base % 97
    while e:
        c.tick()
        if e & 1:
            result = result * base % 97
        base, e = base * base % 97, e >> 1
    return result


def happy_steps(n, c):
    """Replace n by the sum of the squares of its digits until it reaches 1 or repeats a value."""
    seen, steps = set(), 0
    n = abs(n)
    while n != 1 and n not in seen:
        seen.add(n)
        c.tick(len(str(n)))
        n = sum(int(d) ** 2 for d in str(n))
        steps += 1
    return steps


def egyptian_fraction(p, c):
    a, b = p
    if not 0 < a < b:
        return None
    out = []
    while a:
        c.tick()
        d = -(-b // a)
        if d > 10 ** 6:
            return None
        out.append(d)
        a, b = a * d - b, b * d
        g = math.gcd(a, b)
        a, b = a // g, b // g
    return out


def multiplicative_persistence(n, c):
    c.tick()
    n, steps = abs(n), 0
    while n >= 10:
        c.tick(len(str(n)))
        n = math.prod(int(d) for d in str(n))
        steps += 1
    return steps


def is_perfect_power(n, c):
    if n < 2:
        return False
    for k in range(2, n.bit_length() + 1):
        c.tick()
        r = round(n ** (1 / k))
        if any((r + d) ** k == n for d in (-1, 0, 1) if r + d > 1):
            return True
    return False


def proper_fraction(rng):
    b = rng.randint(3, 40)
    return rng.randint(1, b - 1), b


def two_squares(rng):
    a = rng.randint(0, 15)
    return a * a + rng.randint(max(1, a), 15) ** 2


def up_to_120(rng):
    return rng.randint(2, 120)


BRICKS = by_name([
    Brick("zeckendorf", INT, LIST_INT, "Write the number as a sum of non-consecutive Fibonacci numbers (1, 2, 3, 5, "
          "8, ...) by taking the largest that fits each time; list them from largest to smallest (no output below "
          "1).", zeckendorf),
    Brick("min_coins_134", INT, INT, "The fewest coins of values 1, 3 and 4 that add up to the number (no output if "
          "negative).", min_coins_134, up_to_120),
    Brick("sum_of_two_squares", INT, PAIR, "The pair (a, b) with a <= b, a as small as possible, and a^2 + b^2 equal "
          "to the number (no output if there is none).", sum_of_two_squares, two_squares),
    Brick("bezout", PAIR, PAIR, "The extended Euclidean algorithm on (a, b): the coefficients (x, y) it ends with, "
          "so that a*x + b*y = gcd(a, b) (start from (1, 0) and (0, 1); quotients rounded down).", bezout),
    Brick("power_mod_97", PAIR, INT, "a to the power b modulo 97, for the pair (a, b) (no output if b < 0).",
          power_mod_97),
    Brick("happy_steps", INT, INT, "Replace the number by the sum of the squares of its digits until it becomes 1 or "
          "a value repeats; how many replacements?", happy_steps),
    Brick("egyptian_fraction", PAIR, LIST_INT, "Greedy Egyptian fraction of a/b for the pair (a, b) with 0 < a < b: "
          "repeatedly take the largest unit fraction 1/d that fits and list the denominators (no output otherwise, "
          "or if a denominator exceeds 10^6).", egyptian_fraction, proper_fraction),
    Brick("multiplicative_persistence", INT, INT, "How many times the digits must be multiplied together until one "
          "digit is left.", multiplicative_persistence),
    Brick("is_perfect_power", INT, BOOL, "Is the number m^k for some integers m >= 2 and k >= 2?", is_perfect_power),
])
