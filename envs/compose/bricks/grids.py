"""Grids of ints (lists of rows): grid -> grid, list[int], int."""
from __future__ import annotations

from envs.compose.brick import Brick, by_name
from envs.compose.types import GRID, INT, LIST_INT


def cells(g):
    return len(g) * len(g[0])


def transpose(g, c):
    c.tick(cells(g))
    return [list(col) for col in zip(*g)]


def rotate_clockwise(g, c):
    c.tick(cells(g))
    return [list(col) for col in zip(*g[::-1])]


def flip_left_right(g, c):
    c.tick(cells(g))
    return [row[::-1] for row in g]


def flip_upside_down(g, c):
    c.tick(cells(g))
    return [list(row) for row in g[::-1]]


def increment_cells(g, c):
    c.tick(cells(g))
    return [[(v + 1) % 10 for v in row] for row in g]


def sort_rows(g, c):
    c.tick(cells(g) * max(1, (len(g[0]) - 1).bit_length()))
    return [sorted(row) for row in g]


def row_sums(g, c):
    c.tick(cells(g))
    return [sum(row) for row in g]


def column_sums(g, c):
    c.tick(cells(g))
    return [sum(col) for col in zip(*g)]


def flatten(g, c):
    c.tick(cells(g))
    return [v for row in g for v in row]


def main_diagonal(g, c):
    c.tick(min(len(g), len(g[0])))
    return [g[i][i] for i in range(min(len(g), len(g[0])))]


def grid_sum(g, c):
    c.tick(cells(g))
    return sum(map(sum, g))


def count_nonzero(g, c):
    c.tick(cells(g))
    return sum(v != 0 for row in g for v in row)


BRICKS = by_name([
    Brick("transpose", GRID, GRID, "Transpose the grid: row i becomes column i.", transpose),
    Brick("rotate_clockwise", GRID, GRID, "Rotate the grid a quarter turn clockwise.", rotate_clockwise),
    Brick("flip_left_right", GRID, GRID, "Mirror the grid left to right (reverse every row).", flip_left_right),
    Brick("flip_upside_down", GRID, GRID, "Mirror the grid top to bottom (reverse the order of the rows).",
          flip_upside_down),
    Brick("increment_cells", GRID, GRID, "Add 1 to every cell, modulo 10 (9 becomes 0).", increment_cells),
    Brick("sort_rows", GRID, GRID, "Sort the numbers of every row in increasing order.", sort_rows),
    Brick("row_sums", GRID, LIST_INT, "List the sum of each row, top to bottom.", row_sums),
    Brick("column_sums", GRID, LIST_INT, "List the sum of each column, left to right.", column_sums),
    Brick("flatten", GRID, LIST_INT, "List the cells row by row, left to right.", flatten),
    Brick("main_diagonal", GRID, LIST_INT, "List the cells (0,0), (1,1), (2,2), ... that exist, counting rows "
          "and columns from 0.", main_diagonal),
    Brick("grid_sum", GRID, INT, "Add up all cells of the grid.", grid_sum),
    Brick("count_nonzero", GRID, INT, "Count the cells that are not 0.", count_nonzero),
])
