"""Number-placement logic puzzles: Kakuro, Hitori, magic squares, Hidato, cryptarithms.

As in the other puzzle families, each generator plants a solution and derives the clues from
it, and each scorer checks the rules, so any solution the clues allow scores 1 and no
uniqueness search is needed (RLVE line 67: the Sudoku generator transforms a solved grid and
masks it). Reward (all): -1 unparsable or wrong shape, -0.5 where noted for an answer that is
not even a candidate, 1 if every rule holds, else 0.
"""
from __future__ import annotations

import math

from envs.gym.base import GymEnv, Retry, ask, int_grid, int_list, lines
from envs.gym.latin import latin_square


def _runs(white: list[list[bool]], horizontal: bool) -> list[list[tuple[int, int]]]:
    """Maximal runs of white cells along rows (or columns)."""
    rows, cols = len(white), len(white[0])
    out = []
    outer, inner = (rows, cols) if horizontal else (cols, rows)
    for a in range(outer):
        run = []
        for b in range(inner + 1):
            r, c = (a, b) if horizontal else (b, a)
            if b < inner and white[r][c]:
                run.append((r, c))
            else:
                if run:
                    out.append(run)
                run = []
    return out


class Kakuro(GymEnv):
    """Kakuro (logic puzzles). d: an n x n board, n = d // 2 + 4, about 30% black cells and no
    white run longer than 9; the planted digits are pi((a r + b c + s) mod 9) + 1 with a, b
    invertible mod 9 and pi a random digit permutation, so no run repeats a digit. Every run
    (length 1 included) shows its sum. Answer: the board with '#' for black cells."""

    name = "kakuro"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        white = [[rng.random() >= 0.3 for _ in range(n)] for _ in range(n)]
        for r in range(n):  # no run longer than 9: black out every 10th cell of a run
            for c in range(n):
                if c >= 9 and all(white[r][c - k] for k in range(10)):
                    white[r][c] = False
                if r >= 9 and all(white[r - k][c] for k in range(10)):
                    white[r][c] = False
        a, b = rng.choice((1, 2, 4, 5, 7, 8)), rng.choice((1, 2, 4, 5, 7, 8))
        s, perm = rng.randrange(9), rng.sample(range(1, 10), 9)
        digits = [[perm[(a * r + b * c + s) % 9] if white[r][c] else 0 for c in range(n)] for r in range(n)]
        runs = [(h, run[0], len(run), sum(digits[r][c] for r, c in run))
                for h in (True, False) for run in _runs(white, h)]
        if not runs:
            raise Retry
        sol = ["".join(str(digits[r][c]) if white[r][c] else "#" for c in range(n)) for r in range(n)]
        return {"n": n, "board": ["".join("." if w else "#" for w in row) for row in white],
                "runs": [[int(h), r, c, k, total] for h, (r, c), k, total in runs]}, "\n".join(sol)

    def prompt(self, problem):
        clues = "\n".join(f"{'across' if h else 'down'} from ({r + 1},{c + 1}), {k} cell{'s' * (k > 1)}: sum {t}"
                          for h, r, c, k, t in problem["runs"])
        n = problem["n"]
        return ask(f"Kakuro on a {n}x{n} board ('#' black, '.' white; cells are (row, column) from 1):\n" +
                   "\n".join(problem["board"]) + "\n\nWrite a digit 1-9 in every white cell so that each run of white "
                   "cells (across: left to right; down: top to bottom) adds up to its sum and has no repeated digit."
                   f"\n\nRuns:\n{clues}", f"Give {n} lines of {n} characters: the digits, and # for black cells.")

    def reward(self, problem, answer):
        n = problem["n"]
        rows = ["".join(line.split()) for line in answer.splitlines() if line.strip()]
        if len(rows) != n or any(len(r) != n or any(ch not in "#123456789" for ch in r) for r in rows):
            return -1.0
        if any((rows[r][c] == "#") != (problem["board"][r][c] == "#") for r in range(n) for c in range(n)):
            return 0.0
        for h, r, c, k, total in problem["runs"]:
            cells = [rows[r][c + i] if h else rows[r + i][c] for i in range(k)]
            if len(set(cells)) != k or sum(map(int, cells)) != total:
                return 0.0
        return 1.0


def _connected(cells: set[tuple[int, int]]) -> bool:
    if not cells:
        return True
    start = next(iter(cells))
    seen, stack = {start}, [start]
    while stack:
        r, c = stack.pop()
        for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nb in cells and nb not in seen:
                seen.add(nb)
                stack.append(nb)
    return len(seen) == len(cells)


class Hitori(GymEnv):
    """Hitori (logic puzzles). d: an n x n grid, n = d // 2 + 4. Planted: shaded cells, never
    two orthogonally adjacent, with the unshaded cells connected; unshaded cells carry a random
    Latin square, each shaded cell repeats a number from its row or column. Answer: 1 for
    shaded, 0 for unshaded. Rules: no number twice among the unshaded cells of a row or column,
    shaded cells not adjacent, unshaded cells connected."""

    name = "hitori"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        cells = [(r, c) for r in range(n) for c in range(n)]
        shaded: set[tuple[int, int]] = set()
        for r, c in rng.sample(cells, n * n // 3):
            if any(nb in shaded for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))):
                continue
            # shading a cell with at most one unshaded neighbour never disconnects the rest; else check
            if _connected(set(cells) - shaded - {(r, c)}):
                shaded.add((r, c))
        if not shaded:
            raise Retry
        latin = latin_square(rng, n)
        grid = [row[:] for row in latin]
        for r, c in shaded:
            pool = [latin[r][k] for k in range(n) if k != c and (r, k) not in shaded] + \
                   [latin[k][c] for k in range(n) if k != r and (k, c) not in shaded]
            grid[r][c] = rng.choice(pool)
        sol = ["".join("1" if (r, c) in shaded else "0" for c in range(n)) for r in range(n)]
        return {"grid": grid}, "\n".join(sol)

    def prompt(self, problem):
        n = len(problem["grid"])
        return ask(f"Hitori on a {n}x{n} grid:\n{lines(problem['grid'])}\n\nShade some cells so that no number appears "
                   "twice among the unshaded cells of any row or column, no two shaded cells share a side, and all "
                   "unshaded cells are connected through shared sides.",
                   f"Give {n} lines of {n} digits: 1 for shaded, 0 for unshaded.")

    def reward(self, problem, answer):
        grid = problem["grid"]
        n = len(grid)
        rows = ["".join(line.split()) for line in answer.splitlines() if line.strip()]
        if len(rows) != n or any(len(r) != n or any(ch not in "01" for ch in r) for r in rows):
            return -1.0
        shaded = {(r, c) for r in range(n) for c in range(n) if rows[r][c] == "1"}
        if any((r + 1, c) in shaded or (r, c + 1) in shaded for r, c in shaded):
            return 0.0
        for k in range(n):
            row = [grid[k][c] for c in range(n) if (k, c) not in shaded]
            col = [grid[r][k] for r in range(n) if (r, k) not in shaded]
            if len(set(row)) != len(row) or len(set(col)) != len(col):
                return 0.0
        return 1.0 if _connected({(r, c) for r in range(n) for c in range(n)} - shaded) else 0.0


MAGIC_SIZES = [n for n in range(5, 400, 2) if n % 3]  # the linear construction needs 3 not dividing n


def is_magic(sq: list[list[int]]) -> bool:
    n = len(sq)
    target = n * (n * n + 1) // 2
    lines_ = sq + [list(c) for c in zip(*sq)] + [[sq[i][i] for i in range(n)], [sq[i][n - 1 - i] for i in range(n)]]
    return sorted(v for r in sq for v in r) == list(range(1, n * n + 1)) and all(sum(x) == target for x in lines_)


class MagicSquare(GymEnv):
    """Magic square completion (logic puzzles). d: odd n from 5, 7, 11, 13, ... (n = the
    (d // 6)-th size not divisible by 3); the square is n * ((a i + b j + s) mod n) +
    ((c i + e j + t) mod n) + 1 with random coefficients, kept when it is magic; 30% + 5% x
    (d mod 6) of the cells are blank. Rules: 1..n^2 each once, every row, column and both
    diagonals summing to n(n^2 + 1)/2, givens kept."""

    name = "magic_square"
    category = "logic"

    def size(self, difficulty):
        n = MAGIC_SIZES[min(difficulty // 6, len(MAGIC_SIZES) - 1)]
        return 10 * n * n + difficulty % 6

    def build(self, rng, difficulty):
        n = MAGIC_SIZES[min(difficulty // 6, len(MAGIC_SIZES) - 1)]
        units = [u for u in range(1, n) if math.gcd(u, n) == 1]
        for _ in range(1000):  # rows, columns, diagonals and the whole square each a bijection
            a, b, c, e = (rng.choice(units) for _ in range(4))
            if all(math.gcd(x % n, n) == 1 for x in (a + b, a - b, c + e, c - e, a * e - b * c)):
                break
        else:
            raise Retry
        s, t = rng.randrange(n), rng.randrange(n)
        sq = [[n * ((a * i + b * j + s) % n) + (c * i + e * j + t) % n + 1 for j in range(n)] for i in range(n)]
        if not is_magic(sq):
            raise Retry
        blank = 0.3 + 0.05 * (difficulty % 6)
        givens = [[0 if rng.random() < blank else v for v in row] for row in sq]
        return {"givens": givens}, lines(sq)

    def prompt(self, problem):
        g = problem["givens"]
        n = len(g)
        text = "\n".join(" ".join(str(v) if v else "." for v in row) for row in g)
        return ask(f"Complete this {n}x{n} magic square ('.' = empty): use each number 1 to {n * n} once so that every "
                   f"row, every column and both diagonals add up to {n * (n * n + 1) // 2}. Given numbers stay.\n\n{text}",
                   f"Give {n} lines of {n} numbers separated by spaces.")

    def reward(self, problem, answer):
        g = problem["givens"]
        n = len(g)
        sq = int_grid(answer, n, n)
        if sq is None:
            return -1.0
        if any(v and v != w for gr, sr in zip(g, sq) for v, w in zip(gr, sr)):
            return 0.0
        return 1.0 if is_magic(sq) else 0.0


KING = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


class Hidato(GymEnv):
    """Hidato / number path (logic puzzles). d: an n x n grid, n = d // 3 + 3, holding 1..n^2
    along a planted Hamiltonian path (a snake shuffled by 6 n^2 backbite moves); 1, n^2 and
    about 35% of the rest are given. Rules: every number once, consecutive numbers in cells that
    touch (sides or corners), givens kept."""

    name = "hidato"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 3 + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        path = [(r, c if r % 2 == 0 else n - 1 - c) for r in range(n) for c in range(n)]
        for _ in range(6 * n * n):  # backbite: keeps a Hamiltonian path under side adjacency
            if rng.random() < 0.5:
                path.reverse()
            r, c = path[-1]
            nbs = [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)) if 0 <= r + dr < n and 0 <= c + dc < n]
            w = rng.choice(nbs)
            i = path.index(w)
            if i != len(path) - 2:
                path[i + 1:] = path[i + 1:][::-1]
        grid = [[0] * n for _ in range(n)]
        for k, (r, c) in enumerate(path, 1):
            grid[r][c] = k
        givens = [[v if v in (1, n * n) or rng.random() < 0.35 else 0 for v in row] for row in grid]
        return {"givens": givens}, lines(grid)

    def prompt(self, problem):
        g = problem["givens"]
        n = len(g)
        text = "\n".join(" ".join(str(v) if v else "." for v in row) for row in g)
        return ask(f"Hidato on a {n}x{n} grid ('.' = empty): place the numbers 1 to {n * n}, each once, so that each "
                   f"number k < {n * n} and k + 1 are in cells that touch by a side or a corner. Given numbers stay."
                   f"\n\n{text}", f"Give {n} lines of {n} numbers separated by spaces.")

    def reward(self, problem, answer):
        g = problem["givens"]
        n = len(g)
        grid = int_grid(answer, n, n)
        if grid is None:
            return -1.0
        where = {}
        for r in range(n):
            for c in range(n):
                if g[r][c] and g[r][c] != grid[r][c]:
                    return 0.0
                where[grid[r][c]] = (r, c)
        if sorted(where) != list(range(1, n * n + 1)) or len(where) != n * n:
            return 0.0
        ok = all(max(abs(where[k][0] - where[k + 1][0]), abs(where[k][1] - where[k + 1][1])) == 1
                 for k in range(1, n * n))
        return 1.0 if ok else 0.0


LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Cryptarithm(GymEnv):
    """Letter addition puzzle (logic puzzles; any consistent digit assignment counts). d: two
    addends of d // 3 + 2 and d // 4 + 2 digits; their digits and the sum's become letters
    through a random injection of the digits used. Answer: LETTER=digit pairs. Reward: -1
    unparsable, -0.5 a letter missing, extra or two letters on one digit, 1 if the sum holds
    with no leading zero, else 0."""

    name = "cryptarithm"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 3 + 2

    def build(self, rng, difficulty):
        k1, k2 = self.size(difficulty), difficulty // 4 + 2
        x, y = rng.randint(10 ** (k1 - 1), 10 ** k1 - 1), rng.randint(10 ** (k2 - 1), 10 ** k2 - 1)
        words = [str(x), str(y), str(x + y)]
        digits = sorted({ch for w in words for ch in w})
        code = dict(zip(digits, rng.sample(LETTERS, len(digits))))
        letters = ["".join(code[ch] for ch in w) for w in words]
        gold = " ".join(f"{code[d]}={d}" for d in digits)
        return {"words": letters}, gold

    def prompt(self, problem):
        a, b, c = problem["words"]
        return ask(f"Solve the letter sum {a} + {b} = {c}: each letter stands for a digit, different letters for "
                   "different digits, and no number starts with 0.",
                   "Give every letter with its digit as LETTER=digit, separated by spaces, e.g. <answer>A=1 B=0 C=7"
                   "</answer>.")

    def reward(self, problem, answer):
        toks = answer.upper().replace(",", " ").replace("=", " ").split()
        if len(toks) % 2 or len(toks) > 60:
            raise ValueError("expected LETTER=digit pairs")
        pairs = list(zip(toks[::2], toks[1::2]))
        if any(len(l) != 1 or l not in LETTERS or len(d) != 1 or not d.isdigit() or not d.isascii() for l, d in pairs):
            raise ValueError("expected LETTER=digit pairs")
        value = dict(pairs)
        used = {ch for w in problem["words"] for ch in w}
        if len(value) != len(pairs) or set(value) != used or len(set(value.values())) != len(value):
            return -0.5
        nums = ["".join(value[ch] for ch in w) for w in problem["words"]]
        if any(len(n) > 1 and n[0] == "0" for n in nums):
            return 0.0
        return 1.0 if int(nums[0]) + int(nums[1]) == int(nums[2]) else 0.0
