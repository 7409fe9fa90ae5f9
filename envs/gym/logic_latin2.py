"""More Latin-square puzzles with planted solutions (RLVE line 67: plant a valid grid, then
derive the clues): Kropki, Easy as ABC, Killer Sudoku.

The generators reuse latin.py's random Latin squares and sudoku.py's planted Sudoku grids; the
scorers check every rule, so any solution the clues allow scores 1. What makes each its own
puzzle (latin.py has Futoshiki, Skyscraper and KenKen; sudoku.py has Sudoku): kropki's clues
are dots between neighbours (consecutive or double, and no dot means neither); easy_as_abc
leaves blanks in every row and column and its clues name the first letter seen from each edge;
killer_sudoku has no givens, only cage sums with no repeated digit inside a cage, on top of
Sudoku's boxes (KenKen has no boxes, other operations and allows repeats across a cage).

Reward (all, our choice as in latin.py): -1 unparsable or wrong shape, 1 if the grid satisfies
every rule and keeps the givens, else 0.
"""
from __future__ import annotations

from envs.gym.base import GymEnv, ask, char_grid, lines
from envs.gym.latin import GRID_FORMAT, _given_text, _LatinEnv, latin_square
from envs.gym.sudoku import Sudoku


def _dot(a: int, b: int) -> str:
    """The dot a pair of neighbours carries: 'w' consecutive, 'b' one double the other, '' none."""
    if abs(a - b) == 1:
        return "w"
    return "b" if a == 2 * b or b == 2 * a else ""


class Kropki(_LatinEnv):
    """Kropki (logic puzzles). d: an (d+4) x (d+4) Latin square; every pair of neighbouring cells
    whose values are consecutive carries a white dot, every pair where one is double the other a
    black dot (1-2 gets either colour at random), and pairs without a dot are neither; about 10%
    of the cells are given."""

    name = "kropki"

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        sol = latin_square(rng, n)
        dots = []
        for r in range(n):
            for c in range(n):
                for r2, c2 in ((r, c + 1), (r + 1, c)):
                    if r2 < n and c2 < n:
                        a, b = sol[r][c], sol[r2][c2]
                        kind = rng.choice("wb") if {a, b} == {1, 2} else _dot(a, b)
                        if kind:
                            dots.append([r, c, r2, c2, kind])
        givens = [[v if rng.random() < 0.1 else 0 for v in row] for row in sol]
        return {"n": n, "givens": givens, "dots": dots}, lines(sol)

    def prompt(self, problem):
        n = problem["n"]
        dots = "\n".join(f"({r1 + 1},{c1 + 1})-({r2 + 1},{c2 + 1}): {'white' if k == 'w' else 'black'}"
                         for r1, c1, r2, c2, k in problem["dots"])
        return ask(f"Solve this {n}x{n} Kropki puzzle. Fill the grid with numbers 1 to {n} so that each row and each "
                   "column contains every number exactly once and the given numbers stay. A white dot between two "
                   "neighbouring cells means their numbers are consecutive; a black dot means one is double the other; "
                   "two neighbouring cells with no dot between them are neither consecutive nor one double the other. "
                   f"Cells are (row, column), counted from 1 at the top-left.\n\nGrid ('.' = empty):\n"
                   f"{_given_text(problem['givens'])}\n\nDots:\n{dots or '(none)'}", GRID_FORMAT.format(n=n))

    def check(self, problem, grid):
        n = problem["n"]
        marked = {}
        for r1, c1, r2, c2, kind in problem["dots"]:
            marked[(r1, c1, r2, c2)] = kind
        for r in range(n):
            for c in range(n):
                for r2, c2 in ((r, c + 1), (r + 1, c)):
                    if r2 < n and c2 < n:
                        a, b = grid[r][c], grid[r2][c2]
                        kind = marked.get((r, c, r2, c2), "")
                        if kind == "w" and abs(a - b) != 1 or kind == "b" and a != 2 * b and b != 2 * a:
                            return False
                        if not kind and _dot(a, b):
                            return False
        return True


def _first(line: str) -> str:
    return next((ch for ch in line if ch != "."), ".")


def abc_clues(rows: list[str]) -> dict[str, list[str]]:
    cols = ["".join(c) for c in zip(*rows)]
    return {"top": [_first(c) for c in cols], "bottom": [_first(c[::-1]) for c in cols],
            "left": [_first(r) for r in rows], "right": [_first(r[::-1]) for r in rows]}


class EasyAsAbc(GymEnv):
    """Easy as ABC (logic puzzles). d: an n x n grid, n = d + 5, letters A to the k-th letter,
    k = n - 1 - d // 6 (at least 2): every row and column holds each letter exactly once and
    n - k blanks; a clue on an edge names the first letter seen from that side. Planted: a
    random Latin square whose symbols above k become blanks; about 70% of the edge clues
    shown."""

    name = "easy_as_abc"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = max(2, n - 1 - difficulty // 6)
        rows = ["".join(chr(64 + v) if v <= k else "." for v in row) for row in latin_square(rng, n)]
        clues = {side: [x if rng.random() < 0.7 else "" for x in vals] for side, vals in abc_clues(rows).items()}
        return {"n": n, "k": k, "clues": clues}, "\n".join(rows)

    def prompt(self, problem):
        n, k = problem["n"], problem["k"]
        letters = "".join(chr(65 + i) for i in range(k))
        side = "\n".join(f"{s} (" + ("left to right" if s in ("top", "bottom") else "top to bottom") + "): "
                         + " ".join(x or "-" for x in v) for s, v in problem["clues"].items())
        return ask(f"Easy as ABC on a {n}x{n} grid: put the letters {', '.join(letters)} into the grid so that every row "
                   f"and every column contains each of them exactly once; the other {n - k} cells of each row and column "
                   "stay empty. A clue beside a row or column names the first letter met when reading it from that "
                   f"side ('-' no clue).\n\nClues:\n{side}",
                   f"Give {n} lines of {n} characters: a letter or '.' for an empty cell.")

    def reward(self, problem, answer):
        n, k = problem["n"], problem["k"]
        letters = "".join(chr(65 + i) for i in range(k))
        rows = char_grid(answer, n, n, letters + ".")
        if rows is None:
            return -1.0
        want = sorted(letters + "." * (n - k))
        if any(sorted(line) != want for line in rows + ["".join(c) for c in zip(*rows)]):
            return 0.0
        got = abc_clues(rows)
        ok = all(not x or x == y for s, vals in problem["clues"].items() for x, y in zip(vals, got[s]))
        return 1.0 if ok else 0.0


class KillerSudoku(GymEnv):
    """Killer Sudoku (logic puzzles). d: boxes of (2 + d // 8) x (2 + (d + 4) // 8) cells (2x2 at
    d = 0, 3x3 at d = 8), a grid of side n = their product; a planted Sudoku grid (sudoku.py's transforms) cut into random
    connected cages of 1-4 cells with no repeated digit, each showing its sum; no givens."""

    name = "killer_sudoku"
    category = "logic"

    def size(self, difficulty):
        return self.boxes(difficulty)[0] * self.boxes(difficulty)[1]

    @staticmethod
    def boxes(difficulty: int) -> tuple[int, int]:
        return 2 + difficulty // 8, 2 + (difficulty + 4) // 8

    def build(self, rng, difficulty):
        nr, nc = self.boxes(difficulty)
        n = nr * nc
        problem, gold = Sudoku(box_rows=nr, box_cols=nc, empty=n * n).build(rng, difficulty)
        sol = [list(map(int, line.split())) for line in gold.splitlines()]
        owner = [[-1] * n for _ in range(n)]
        cages = []
        for start in rng.sample(range(n * n), n * n):
            r, c = divmod(start, n)
            if owner[r][c] >= 0:
                continue
            cells, target = [(r, c)], rng.randint(1, 4)
            owner[r][c] = len(cages)
            while len(cells) < target:
                used = {sol[a][b] for a, b in cells}
                options = [(r2, c2) for r1, c1 in cells for r2, c2 in ((r1 + 1, c1), (r1 - 1, c1), (r1, c1 + 1), (r1, c1 - 1))
                           if 0 <= r2 < n and 0 <= c2 < n and owner[r2][c2] < 0 and sol[r2][c2] not in used]
                if not options:
                    break
                r2, c2 = rng.choice(options)
                owner[r2][c2] = len(cages)
                cells.append((r2, c2))
            cages.append({"cells": [list(x) for x in sorted(cells)], "sum": sum(sol[a][b] for a, b in cells)})
        return {"box_rows": nr, "box_cols": nc, "puzzle": problem["puzzle"], "cages": cages}, gold

    def prompt(self, problem):
        nr, nc = problem["box_rows"], problem["box_cols"]
        n = nr * nc
        desc = "\n".join(f"sum {cage['sum']}: " + " ".join(f"({r + 1},{c + 1})" for r, c in cage["cells"])
                         for cage in problem["cages"])
        return ask(f"Solve this {n}x{n} Killer Sudoku. The grid is divided into boxes of {nr} rows x {nc} columns. Fill "
                   f"every cell with a number from 1 to {n} so that each row, each column and each box contains every "
                   "number exactly once, and the numbers in each cage are all different and add up to the cage's sum. "
                   f"Cells are (row, column), counted from 1 at the top-left.\n\nCages:\n{desc}",
                   f"Give the completed grid: {n} lines of {n} numbers separated by spaces.")

    def reward(self, problem, answer):
        value = Sudoku()._reward_exact(problem, answer)  # the rows, columns and boxes
        if value != 1.0:
            return value
        grid = [list(map(int, line.replace(",", " ").split())) for line in answer.splitlines() if line.strip()]
        for cage in problem["cages"]:
            vals = [grid[r][c] for r, c in cage["cells"]]
            if len(set(vals)) != len(vals) or sum(vals) != cage["sum"]:
                return 0.0
        return 1.0
