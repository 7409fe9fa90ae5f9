"""Sudoku with N x M boxes on an (N*M) x (N*M) grid, as in the RLVE paper.

The generator plants a solution instead of searching for one: a canonical grid, scrambled by
the equivalence transforms that keep every rule (bands, stacks, rows within a band, columns
within a stack, relabelling), then masked. Uniqueness is not needed because the scorer checks
the rules rather than comparing with the planted grid, which is the solve-verify asymmetry the
paper exploits and why this is orders of magnitude faster than generators that search.
"""
from __future__ import annotations

from envs.gym.base import GymEnv, ask, int_grid, lines

_PLAIN = b"0123456789 \t\r\n,"
_DIGIT_AS_D = bytes.maketrans(b"0123456789", b"d" * 10)


def _plain(answer: str) -> bool:
    """Only decimal tokens of at most 9 digits (exact in int64) separated by whitespace or commas
    (bytes.translate: C speed on a 55 kB answer, where a regex scan took most of the score)."""
    if not answer.isascii():
        return False
    raw = answer.encode()
    return not raw.translate(None, _PLAIN) and b"d" * 10 not in raw.translate(_DIGIT_AS_D)


def _blocks(rng, count: int, width: int) -> list[int]:
    """Shuffle `count` groups of `width` consecutive indices, and the indices inside each group."""
    order = []
    for g in rng.sample(range(count), count):
        order += [g * width + i for i in rng.sample(range(width), width)]
    return order


class Sudoku(GymEnv):
    """Sudoku (RLVE paper, logic puzzles). d: box height N and width M drawn in [2, d + 2], so
    max(N, M) <= d + 2; the grid is (N*M) x (N*M); 40-70% of the cells are blank.

    Reward: -1 unparsable or wrong shape, +1 if the filled grid keeps the givens and satisfies
    every rule, 0 otherwise. Params box_rows, box_cols and empty (blank count) fix the shape
    (the benchmark uses 3, 3, and the blank count of reasoning-gym's sudoku)."""

    name = "sudoku"
    category = "logic"

    def __init__(self, box_rows: int | None = None, box_cols: int | None = None, empty: int | None = None):
        if (box_rows is None) != (box_cols is None):
            raise ValueError("sudoku: give both box_rows and box_cols, or neither")
        self.box_rows, self.box_cols, self.empty = box_rows, box_cols, empty

    def size(self, difficulty):
        return (difficulty + 2) ** 2  # the largest grid side at this difficulty

    def build(self, rng, difficulty):
        if self.box_rows is not None:
            nr, nc = self.box_rows, self.box_cols
        else:
            nr, nc = rng.randint(2, difficulty + 2), rng.randint(2, difficulty + 2)
        n = nr * nc
        # canonical grid: row r holds the sequence shifted by nc * (r % nr) + r // nr
        rows = _blocks(rng, nc, nr)  # nc bands of nr rows
        cols = _blocks(rng, nr, nc)  # nr stacks of nc columns
        label = rng.sample(range(1, n + 1), n)
        sol = [[label[(nc * (r % nr) + r // nr + c) % n] for c in cols] for r in rows]
        blanks = self.empty if self.empty is not None else round(n * n * rng.uniform(0.4, 0.7))
        puzzle = [row[:] for row in sol]
        for k in rng.sample(range(n * n), min(blanks, n * n)):
            puzzle[k // n][k % n] = 0
        return {"box_rows": nr, "box_cols": nc, "puzzle": puzzle}, lines(sol)

    def prompt(self, problem):
        nr, nc, puzzle = problem["box_rows"], problem["box_cols"], problem["puzzle"]
        n = nr * nc
        grid = "\n".join(" ".join(str(v) if v else "." for v in row) for row in puzzle)
        return ask(f"Solve this {n}x{n} Sudoku. The grid is divided into boxes of {nr} rows x {nc} columns. "
                   f"Fill every '.' with a number from 1 to {n} so that each row, each column and each box "
                   f"contains every number from 1 to {n} exactly once.\n\n{grid}",
                   f"Give the completed grid: {n} lines of {n} numbers separated by spaces.")

    def reward(self, problem, answer):
        if _plain(answer):  # the usual answer: checked with numpy
            return self._reward_plain(problem, answer)
        return self._reward_exact(problem, answer)

    def _reward_plain(self, problem, answer):
        """The reward of _reward_exact for an answer of plain decimal tokens, with numpy: the
        rules are sorted rows, columns and boxes (a 132x132 grid at d = 10 has 17,424 cells)."""
        import numpy as np

        nr, nc, puzzle = problem["box_rows"], problem["box_cols"], problem["puzzle"]
        n = nr * nc
        # plain tokens of <= 9 digits separated by whitespace: fromstring reads them exactly
        rows = [np.fromstring(line, dtype=np.int64, sep=" ")
                for line in answer.replace(",", " ").splitlines() if line.strip()]
        if len(rows) != n or any(len(r) != n for r in rows):
            return -1.0
        grid = np.stack(rows)
        given = np.array(puzzle, dtype=np.int64)
        if (grid[given != 0] != given[given != 0]).any():
            return 0.0
        full = np.arange(1, n + 1)
        boxes = grid.reshape(nc, nr, nr, nc).transpose(0, 2, 1, 3).reshape(n, n)  # band, stack
        ok = all((np.sort(g, axis=1) == full).all() for g in (grid, grid.T, boxes))
        return 1.0 if ok else 0.0

    def _reward_exact(self, problem, answer):
        nr, nc, puzzle = problem["box_rows"], problem["box_cols"], problem["puzzle"]
        n = nr * nc
        grid = int_grid(answer, n, n)
        if grid is None:
            return -1.0
        for prow, grow in zip(puzzle, grid):  # givens kept (list comprehensions: ~3x a generator here)
            if [p for p in prow if p] != [g for p, g in zip(prow, grow) if p]:
                return 0.0
        full = set(range(1, n + 1))
        if any(set(row) != full for row in grid) or any(set(col) != full for col in zip(*grid)):
            return 0.0
        for br in range(0, n, nr):
            band = grid[br:br + nr]
            for bc in range(0, n, nc):
                if set().union(*(row[bc:bc + nc] for row in band)) != full:
                    return 0.0
        return 1.0
