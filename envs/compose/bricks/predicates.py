"""Predicates (Y = bool). The filter's "equals 0 or 1" rule rejects a bool inside a chain (True == 1),
so these never sit in a chain: they are the conditions of the `branch` operator."""
from __future__ import annotations

from envs.compose.brick import Brick, by_name
from envs.compose.types import BOOL, GRID, INT, LIST_INT, LIST_STR, PAIR, STR


def is_prime(n, c):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        c.tick()
        if n % d == 0:
            return False
        d += 1
    c.tick()
    return True


def is_even(n, c):
    c.tick()
    return n % 2 == 0


def is_palindrome(s, c):
    c.tick(len(s))
    return s == s[::-1]


def has_double_letter(s, c):
    c.tick(len(s))
    return any(a == b for a, b in zip(s, s[1:]))


def is_sorted(xs, c):
    c.tick(len(xs))
    return all(a <= b for a, b in zip(xs, xs[1:]))


def sum_is_even(xs, c):
    c.tick(len(xs))
    return sum(xs) % 2 == 0


def words_all_distinct(ws, c):
    c.tick(len(ws))
    return len(set(ws)) == len(ws)


def grid_is_square(g, c):
    c.tick()
    return len(g) == len(g[0])


def pair_coprime(p, c):
    a, b = p
    c.tick()
    while b:
        c.tick()
        a, b = b, a % b
    return abs(a) == 1


BRICKS = by_name([
    Brick("is_prime", INT, BOOL, "Is the number prime?", is_prime),
    Brick("is_even", INT, BOOL, "Is the number even?", is_even),
    Brick("is_palindrome", STR, BOOL, "Does the string read the same backwards?", is_palindrome),
    Brick("has_double_letter", STR, BOOL, "Does some character appear twice in a row?", has_double_letter),
    Brick("is_sorted", LIST_INT, BOOL, "Is the list in non-decreasing order?", is_sorted),
    Brick("sum_is_even", LIST_INT, BOOL, "Is the sum of the numbers even?", sum_is_even),
    Brick("words_all_distinct", LIST_STR, BOOL, "Are all the words different?", words_all_distinct),
    Brick("grid_is_square", GRID, BOOL, "Does the grid have as many rows as columns?", grid_is_square),
    Brick("pair_coprime", PAIR, BOOL, "Is the greatest common divisor of the two numbers 1?", pair_coprime),
])
