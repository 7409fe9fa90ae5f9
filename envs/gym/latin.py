"""Latin-square puzzles: Futoshiki, Skyscraper, KenKen.

The generator plants a random Latin square (row by row, random perfect matchings) and derives
the clues from it; the scorer checks the rules, so any solution the
clues allow scores 1 and no uniqueness search is needed. That is why generation takes
microseconds where generators that prove uniqueness (reasoning-gym's futoshiki) take seconds.

Reward (all three): -1 unparsable or wrong shape, 1 if the grid satisfies every rule and keeps
the givens, else 0.
"""
from __future__ import annotations

import random

from envs.gym.base import GymEnv, ask, int_grid, lines
from envs.compose.samplers import perm_of

GRID_FORMAT = "Give the completed grid: {n} lines of {n} numbers separated by spaces."


def latin_square(rng: random.Random, n: int) -> list[list[int]]:
    """Row by row, each row a random perfect matching of columns to the symbols their column
    still lacks (Hall's theorem: a Latin rectangle always extends), found by augmenting paths
    in random order. Not uniform, but far less regular than a shuffled cyclic square, whose
    rows are all rotations of one another."""
    rows: list[list[int]] = []
    used: list[set[int]] = [set() for _ in range(n)]  # symbols already in each column
    for _ in range(n):
        allowed = [[s for s in range(1, n + 1) if s not in used[c]] for c in range(n)]
        col_of: dict[int, int] = {}  # symbol -> column

        def augment(c: int, seen: set) -> bool:
            for s in rng.sample(allowed[c], len(allowed[c])):
                if s not in seen:
                    seen.add(s)
                    if s not in col_of or augment(col_of[s], seen):
                        col_of[s] = c
                        return True
            return False

        for c in rng.sample(range(n), n):
            augment(c, set())
        row = [0] * n
        for s, c in col_of.items():
            row[c] = s
            used[c].add(s)
        rows.append(row)
    return rows


def is_latin(grid: list[list[int]], n: int) -> bool:
    full = set(range(1, n + 1))
    return all(set(r) == full for r in grid) and all(set(c) == full for c in zip(*grid))


def keeps_givens(grid: list[list[int]], givens: list[list[int]]) -> bool:
    return all(not g or g == v for grow, vrow in zip(givens, grid) for g, v in zip(grow, vrow))


def _given_text(givens: list[list[int]]) -> str:
    return "\n".join(" ".join(str(v) if v else "." for v in row) for row in givens)


class _LatinEnv(GymEnv):
    category = "logic"

    def size(self, difficulty):
        return difficulty + 4

    def check(self, problem: dict, grid: list[list[int]]) -> bool:
        raise NotImplementedError

    def reward(self, problem, answer):
        n = problem["n"]
        grid = int_grid(answer, n, n)
        if grid is None:
            return -1.0
        ok = is_latin(grid, n) and keeps_givens(grid, problem["givens"]) and self.check(problem, grid)
        return 1.0 if ok else 0.0


class Futoshiki(_LatinEnv):
    """Futoshiki (logic puzzles). d: an (d+4) x (d+4) Latin square; about 20% of cells given and
    each pair of neighbouring cells carries its true inequality with probability 0.35."""

    name = "futoshiki"

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        sol = latin_square(rng, n)
        givens = [[v if rng.random() < 0.2 else 0 for v in row] for row in sol]
        ineq = []
        for r in range(n):
            for c in range(n):
                for r2, c2 in ((r, c + 1), (r + 1, c)):
                    if r2 < n and c2 < n and rng.random() < 0.35:
                        a, b = (r, c), (r2, c2)
                        ineq.append([*a, *b] if sol[r][c] < sol[r2][c2] else [*b, *a])
        return {"n": n, "givens": givens, "less": ineq}, lines(sol)

    def prompt(self, problem):
        n = problem["n"]
        rel = "\n".join(f"({r1 + 1},{c1 + 1}) < ({r2 + 1},{c2 + 1})" for r1, c1, r2, c2 in problem["less"])
        return ask(f"Solve this {n}x{n} Futoshiki. Fill the grid with numbers 1 to {n} so that each row and each "
                   f"column contains every number exactly once, the given numbers stay, and every inequality holds. "
                   f"Cells are (row, column), counted from 1 at the top-left.\n\nGrid ('.' = empty):\n"
                   f"{_given_text(problem['givens'])}\n\nInequalities:\n{rel or '(none)'}",
                   GRID_FORMAT.format(n=n))

    def check(self, problem, grid):
        return all(grid[r1][c1] < grid[r2][c2] for r1, c1, r2, c2 in problem["less"])


def visible(line: list[int]) -> int:
    seen, top = 0, 0
    for h in line:
        if h > top:
            seen, top = seen + 1, h
    return seen


def skyline_clues(grid: list[list[int]]) -> dict[str, list[int]]:
    cols = [list(c) for c in zip(*grid)]
    return {"top": [visible(c) for c in cols], "bottom": [visible(c[::-1]) for c in cols],
            "left": [visible(r) for r in grid], "right": [visible(r[::-1]) for r in grid]}


class Skyscraper(_LatinEnv):
    """Skyscraper (logic puzzles). d: an (d+4) x (d+4) Latin square of heights; every edge clue
    (how many buildings are seen from that side) is shown, plus about 10% of the cells."""

    name = "skyscraper"

    brick_io = ("perm", "tuple[int,int]")
    brick_text = ("Read the permutation as building heights in a row: how many buildings are visible from the left end "
                  "and from the right end (a building hides every lower one behind it)?")

    def brick_input(self, rng, difficulty):
        return perm_of(rng, self.size(difficulty))

    def brick_apply(self, p, counter):
        counter.tick(2 * len(p))
        return visible(p), visible(p[::-1])

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        sol = latin_square(rng, n)
        givens = [[v if rng.random() < 0.1 else 0 for v in row] for row in sol]
        return {"n": n, "givens": givens, "clues": skyline_clues(sol)}, lines(sol)

    def prompt(self, problem):
        n, clues = problem["n"], problem["clues"]
        side = "\n".join(f"{k} (" + ("left to right" if k in ("top", "bottom") else "top to bottom") + "): "
                         + " ".join(map(str, v)) for k, v in clues.items())
        return ask(f"Solve this {n}x{n} Skyscraper puzzle. Each cell holds a building of height 1 to {n}; each row "
                   f"and each column contains every height exactly once. A clue on a side says how many buildings "
                   "are visible looking into that row or column from that side (a building hides every lower one "
                   f"behind it). Given heights must stay.\n\nClues:\n{side}\n\nGrid ('.' = empty):\n"
                   f"{_given_text(problem['givens'])}", GRID_FORMAT.format(n=n))

    def check(self, problem, grid):
        return skyline_clues(grid) == problem["clues"]


class KenKen(_LatinEnv):
    """KenKen (logic puzzles). d: an (d+3) x (d+3) Latin square cut into random connected cages
    of 1 to 3 cells; a cage shows the result of +, -, * or / over its cells (- and / on two-cell
    cages, the larger value first; a one-cell cage shows its value)."""

    name = "kenken"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        sol = latin_square(rng, n)
        owner = [[-1] * n for _ in range(n)]
        cages = []
        for start in rng.sample(range(n * n), n * n):
            r, c = divmod(start, n)
            if owner[r][c] >= 0:
                continue
            cells, target = [(r, c)], rng.choice((1, 2, 2, 3, 3))
            owner[r][c] = len(cages)
            while len(cells) < target:
                options = [(r2, c2) for r1, c1 in cells for r2, c2 in ((r1 + 1, c1), (r1 - 1, c1), (r1, c1 + 1), (r1, c1 - 1))
                           if 0 <= r2 < n and 0 <= c2 < n and owner[r2][c2] < 0]
                if not options:
                    break
                r2, c2 = rng.choice(options)
                owner[r2][c2] = len(cages)
                cells.append((r2, c2))
            vals = [sol[a][b] for a, b in cells]
            ops = ["="] if len(cells) == 1 else ["+", "*"]
            if len(cells) == 2:
                ops += ["-"] + (["/"] if max(vals) % min(vals) == 0 else [])
            op = rng.choice(ops)
            cages.append({"cells": [list(x) for x in sorted(cells)], "op": op, "value": _cage_value(op, vals)})
        return {"n": n, "givens": [[0] * n for _ in range(n)], "cages": cages}, lines(sol)

    def prompt(self, problem):
        n = problem["n"]
        desc = "\n".join(f"{cage['value']} {cage['op']}: " + " ".join(f"({r + 1},{c + 1})" for r, c in cage["cells"])
                         for cage in problem["cages"])
        return ask(f"Solve this {n}x{n} KenKen. Fill the grid with numbers 1 to {n} so that each row and each column "
                   "contains every number exactly once, and each cage's numbers give the cage's value under its "
                   "operation (+ sum, * product, - difference of the two cells, / quotient of the two cells, = the "
                   f"cell's value). Cells are (row, column), counted from 1 at the top-left.\n\nCages:\n{desc}",
                   GRID_FORMAT.format(n=n))

    def check(self, problem, grid):
        return all(_cage_value(cage["op"], [grid[r][c] for r, c in cage["cells"]]) == cage["value"]
                   for cage in problem["cages"])


def _cage_value(op: str, vals: list[int]) -> int:
    if op == "+":
        return sum(vals)
    if op == "*":
        p = 1
        for v in vals:
            p *= v
        return p
    if op == "-":
        return max(vals) - min(vals)
    if op == "/":
        lo, hi = min(vals), max(vals)
        return hi // lo if lo > 0 and hi % lo == 0 else -1  # -1 matches no cage
    return vals[0]
