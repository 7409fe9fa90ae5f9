"""Arithmetic and number theory: int -> int, list[int], pair; pair -> int, pair, list[int]."""
from __future__ import annotations


from envs.compose.brick import Brick, by_name
from envs.compose.types import INT, LIST_INT, PAIR


def digit_sum(n, c):
    digits = str(abs(n))
    c.tick(len(digits))
    return sum(map(int, digits))


def reverse_digits(n, c):
    digits = str(abs(n))
    c.tick(len(digits))
    return int(digits[::-1]) * (-1 if n < 0 else 1)


def collatz_step(n, c):
    c.tick()
    return n // 2 if n % 2 == 0 else 3 * n + 1


def collatz_steps(n, c):
    if n < 1:
        return None
    c.tick()
    steps = 0
    while n != 1:
        c.tick()
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def divisors_of(n, c):
    """The positive divisors of |n| in increasing order (one tick per trial division)."""
    n = abs(n)
    small, large = [], []
    d = 1
    while d * d <= n:
        c.tick()
        if n % d == 0:
            small.append(d)
            if d * d != n:
                large.append(n // d)
        d += 1
    return small + large[::-1]


def prime_factors(n, c):
    if n < 2:
        return None
    c.tick()
    out, d = [], 2
    while d * d <= n:
        c.tick()
        while n % d == 0:
            out.append(d)
            n //= d
        d += 1
    return out + [n] if n > 1 else out


def count_divisors(n, c):
    return len(divisors_of(n, c)) if n else None


def proper_divisor_sum(n, c):
    return sum(divisors_of(n, c)) - n if n > 0 else None


def largest_prime_factor(n, c):
    factors = prime_factors(n, c)
    return factors[-1] if factors else None


def euler_phi(n, c):
    if n < 1:
        return None
    result = n
    for p in dict.fromkeys(prime_factors(n, c) or []):
        result -= result // p
    return result


def next_prime(n, c):
    m = max(2, n + 1)
    while True:
        c.tick()
        d = 2
        while d * d <= m:
            c.tick()
            if m % d == 0:
                break
            d += 1
        else:
            return m
        m += 1


def square_mod_97(n, c):
    c.tick()
    return n * n % 97


def double_plus_one(n, c):
    c.tick()
    return 2 * n + 1


def popcount(n, c):
    c.tick(max(1, abs(n).bit_length()))
    return bin(abs(n)).count("1")


def digits(n, c):
    text = str(abs(n))
    c.tick(len(text))
    return [int(d) for d in text]


def divisors(n, c):
    return divisors_of(n, c) if n else None


def first_multiples(n, c):
    c.tick(5)
    return [n * k for k in range(1, 6)]


def divmod_7(n, c):
    c.tick()
    return divmod(n, 7)


def tens_and_units(n, c):
    c.tick()
    return divmod(n, 10)


def pair_gcd(p, c):
    a, b = p
    c.tick()
    while b:
        c.tick()
        a, b = b, a % b
    return abs(a)


def pair_lcm(p, c):
    g = pair_gcd(p, c)
    return abs(p[0] * p[1]) // g if g else None


def pair_sum(p, c):
    c.tick()
    return p[0] + p[1]


def pair_abs_difference(p, c):
    c.tick()
    return abs(p[0] - p[1])


def pair_swap(p, c):
    c.tick()
    return p[1], p[0]


def fibonacci_step(p, c):
    c.tick()
    return p[1], p[0] + p[1]


def euclid_step(p, c):
    c.tick()
    return (p[1], p[0] % p[1]) if p[1] else None


def range_between(p, c):
    lo, hi = min(p), max(p)
    c.tick(hi - lo + 1)
    return list(range(lo, hi + 1))


BRICKS = by_name([
    Brick("digit_sum", INT, INT, "Add up the decimal digits of the number's absolute value.", digit_sum),
    Brick("reverse_digits", INT, INT, "Reverse the decimal digits (leading zeros vanish, the sign stays).",
          reverse_digits),
    Brick("collatz_step", INT, INT, "If the number is even, halve it; otherwise multiply it by 3 and add 1.",
          collatz_step),
    Brick("collatz_steps", INT, INT, "Count how many steps (halve if even, else 3n+1) take the number to 1 (no "
          "output below 1).", collatz_steps),
    Brick("count_divisors", INT, INT, "Count the positive divisors of the number's absolute value (no output for "
          "0).", count_divisors),
    Brick("proper_divisor_sum", INT, INT, "Add up the positive divisors of the number smaller than the number "
          "itself (no output below 1).", proper_divisor_sum),
    Brick("largest_prime_factor", INT, INT, "Give the largest prime factor of the number (no output below 2).",
          largest_prime_factor),
    Brick("euler_phi", INT, INT, "Count the integers from 1 to n that share no factor greater than 1 with n (no "
          "output below 1).", euler_phi),
    Brick("next_prime", INT, INT, "Give the smallest prime greater than the number.", next_prime),
    Brick("square_mod_97", INT, INT, "Square the number and take the remainder after division by 97.",
          square_mod_97),
    Brick("double_plus_one", INT, INT, "Double the number and add 1.", double_plus_one),
    Brick("popcount", INT, INT, "Count the 1s in the binary form of the number's absolute value.", popcount),
    Brick("digits", INT, LIST_INT, "List the decimal digits of the number's absolute value, left to right.",
          digits),
    Brick("prime_factors", INT, LIST_INT, "List the prime factors in increasing order, each as often as it "
          "divides the number (no output below 2).", prime_factors),
    Brick("divisors", INT, LIST_INT, "List the positive divisors of the number's absolute value in increasing "
          "order (no output for 0).", divisors),
    Brick("first_multiples", INT, LIST_INT, "List the number times 1, 2, 3, 4 and 5.", first_multiples),
    Brick("divmod_7", INT, PAIR, "Divide by 7 rounding down: give the pair [quotient, remainder].", divmod_7),
    Brick("tens_and_units", INT, PAIR, "Give the pair [number divided by 10 rounded down, number mod 10].",
          tens_and_units),
    Brick("pair_gcd", PAIR, INT, "Give the greatest common divisor of the two numbers.", pair_gcd),
    Brick("pair_lcm", PAIR, INT, "Give the least common multiple of the two numbers (no output if both are 0).",
          pair_lcm),
    Brick("pair_sum", PAIR, INT, "Add the two numbers.", pair_sum),
    Brick("pair_abs_difference", PAIR, INT, "Give the absolute difference of the two numbers.",
          pair_abs_difference),
    Brick("pair_swap", PAIR, PAIR, "Swap the two numbers.", pair_swap),
    Brick("fibonacci_step", PAIR, PAIR, "Replace the pair [a, b] by [b, a + b].", fibonacci_step),
    Brick("euclid_step", PAIR, PAIR, "Replace the pair [a, b] by [b, a mod b] (mod rounds the quotient down; "
          "no output when b is 0).", euclid_step),
    Brick("range_between", PAIR, LIST_INT, "List all integers from the smaller number to the larger, "
          "inclusive.", range_between),
])
