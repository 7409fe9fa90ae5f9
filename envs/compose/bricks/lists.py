"""List transforms and list counting: list[int] -> list[int], int, grid, pair."""
from __future__ import annotations

from envs.compose.brick import Brick, by_name
from envs.compose.bricks.strings import sort_cost
from envs.compose.types import GRID, INT, LIST_INT, PAIR


def sort_ascending(xs, c):
    c.tick(sort_cost(len(xs)))
    return sorted(xs)


def sort_descending(xs, c):
    c.tick(sort_cost(len(xs)))
    return sorted(xs, reverse=True)


def reverse_list(xs, c):
    c.tick(len(xs))
    return xs[::-1]


def prefix_sums(xs, c):
    c.tick(len(xs))
    out, total = [], 0
    for v in xs:
        total += v
        out.append(total)
    return out


def differences(xs, c):
    c.tick(len(xs))
    return [b - a for a, b in zip(xs, xs[1:])]


def dedupe_list(xs, c):
    c.tick(len(xs))
    return list(dict.fromkeys(xs))


def keep_odd(xs, c):
    c.tick(len(xs))
    return [v for v in xs if v % 2]


def double_each(xs, c):
    c.tick(len(xs))
    return [2 * v for v in xs]


def mod_10_each(xs, c):
    c.tick(len(xs))
    return [v % 10 for v in xs]


def rotate_list_left(xs, c):
    c.tick(len(xs))
    return xs[1:] + xs[:1]


def running_max(xs, c):
    c.tick(len(xs))
    out: list[int] = []
    for v in xs:
        out.append(v if not out or v > out[-1] else out[-1])
    return out


def add_index(xs, c):
    c.tick(len(xs))
    return [v + i for i, v in enumerate(xs)]


def list_sum(xs, c):
    c.tick(len(xs))
    return sum(xs)


def list_max(xs, c):
    c.tick(len(xs))
    return max(xs) if xs else None


def list_length(xs, c):
    c.tick(len(xs))
    return len(xs)


def count_distinct(xs, c):
    c.tick(len(xs))
    return len(set(xs))


def value_range(xs, c):
    c.tick(len(xs))
    return max(xs) - min(xs) if xs else None


def alternating_sum(xs, c):
    c.tick(len(xs))
    return sum(v if i % 2 == 0 else -v for i, v in enumerate(xs))


def rows_of_3(xs, c):
    c.tick(len(xs))
    return [xs[i:i + 3] for i in range(0, len(xs) - len(xs) % 3, 3)] or None


def min_and_max(xs, c):
    c.tick(len(xs))
    return (min(xs), max(xs)) if xs else None


def first_and_last(xs, c):
    c.tick()
    return (xs[0], xs[-1]) if xs else None


BRICKS = by_name([
    Brick("sort_ascending", LIST_INT, LIST_INT, "Sort the numbers in increasing order.", sort_ascending),
    Brick("sort_descending", LIST_INT, LIST_INT, "Sort the numbers in decreasing order.", sort_descending),
    Brick("reverse_list", LIST_INT, LIST_INT, "Reverse the order of the list.", reverse_list),
    Brick("prefix_sums", LIST_INT, LIST_INT, "Replace each number by the sum of it and all numbers before it.",
          prefix_sums),
    Brick("differences", LIST_INT, LIST_INT, "List each number minus the one before it (one fewer element).",
          differences),
    Brick("dedupe_list", LIST_INT, LIST_INT, "Delete every number that already occurred earlier in the list.",
          dedupe_list),
    Brick("keep_odd", LIST_INT, LIST_INT, "Keep only the odd numbers, in order.", keep_odd),
    Brick("double_each", LIST_INT, LIST_INT, "Double every number.", double_each),
    Brick("mod_10_each", LIST_INT, LIST_INT, "Replace every number by its remainder after division by 10 (a "
          "remainder from 0 to 9).", mod_10_each),
    Brick("rotate_list_left", LIST_INT, LIST_INT, "Move the first number to the end.", rotate_list_left),
    Brick("running_max", LIST_INT, LIST_INT, "Replace each number by the largest number up to and including it.",
          running_max),
    Brick("add_index", LIST_INT, LIST_INT, "Add to each number its position (counting from 0).", add_index),
    Brick("list_sum", LIST_INT, INT, "Add up the numbers.", list_sum),
    Brick("list_max", LIST_INT, INT, "Give the largest number.", list_max),
    Brick("list_length", LIST_INT, INT, "Count the numbers in the list.", list_length),
    Brick("count_distinct", LIST_INT, INT, "Count the different numbers in the list.", count_distinct),
    Brick("value_range", LIST_INT, INT, "Give the largest number minus the smallest.", value_range),
    Brick("alternating_sum", LIST_INT, INT, "Compute first - second + third - fourth + ... over the list.",
          alternating_sum),
    Brick("rows_of_3", LIST_INT, GRID, "Arrange the numbers row by row into a grid of rows of 3, dropping the "
          "numbers left over (no output if fewer than 3).", rows_of_3),
    Brick("min_and_max", LIST_INT, PAIR, "Give the pair [smallest number, largest number].", min_and_max),
    Brick("first_and_last", LIST_INT, PAIR, "Give the pair [first number, last number].", first_and_last),
])
