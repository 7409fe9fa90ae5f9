"""Grid logic puzzles: Kakurasu, Binario, Light Up, Star Battle, N-Queens completion, Lights Out.

Each generator plants a solution and derives the clues from it; each scorer checks the rules,
so any solution the clues allow scores 1. Reward (all): -1 unparsable or wrong shape, -0.5
for a structurally invalid answer where noted (coordinates off the board, repeats), 1 if every
rule holds, else 0.
"""
from __future__ import annotations

from envs.gym.base import GymEnv, Retry, ask, char_grid, int_list
from envs.compose.samplers import bitgrid_of

COORDS = "Give the cells as pairs \"row column\" (counted from 1), one pair per line, e.g. <answer>1 3\n2 1</answer>."


def coord_pairs(answer: str, rows: int, cols: int) -> list[tuple[int, int]] | None:
    """0-based distinct (r, c) pairs from 1-based "r c" pairs; None if off the board or repeated."""
    nums = int_list(answer)
    if len(nums) % 2:
        return None
    pairs = [(r - 1, c - 1) for r, c in zip(nums[::2], nums[1::2])]
    if len(set(pairs)) != len(pairs) or any(not (0 <= r < rows and 0 <= c < cols) for r, c in pairs):
        return None
    return pairs


def _pairs_text(cells) -> str:
    return "\n".join(f"{r + 1} {c + 1}" for r, c in sorted(cells))


class Kakurasu(GymEnv):
    """Kakurasu (logic puzzles). d: an (d+3) x (d+3) grid with a planted set of black cells
    (probability 0.4); row clue = sum of the column numbers of its black cells, column clue =
    sum of the row numbers."""

    name = "kakurasu"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        sol = ["".join("1" if rng.random() < 0.4 else "0" for _ in range(n)) for _ in range(n)]
        return {"n": n, **_kakurasu_clues(sol)}, "\n".join(sol)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"Kakurasu on a {n}x{n} grid: blacken some cells. Rows and columns are numbered 1 to {n}. The clue "
                   "of a row is the sum of the column numbers of its black cells; the clue of a column is the sum of "
                   "the row numbers of its black cells.\n\nRow clues (top to bottom): "
                   + " ".join(map(str, problem["rows"])) + "\nColumn clues (left to right): "
                   + " ".join(map(str, problem["cols"])),
                   f"Give {n} lines of {n} characters, 1 for black and 0 for white.")

    def reward(self, problem, answer):
        n = problem["n"]
        grid = char_grid(answer, n, n, "01")
        if grid is None:
            return -1.0
        clues = _kakurasu_clues(grid)
        return 1.0 if clues["rows"] == problem["rows"] and clues["cols"] == problem["cols"] else 0.0


def _kakurasu_clues(grid: list[str]) -> dict[str, list[int]]:
    n = len(grid)
    return {"rows": [sum(c + 1 for c in range(n) if grid[r][c] == "1") for r in range(n)],
            "cols": [sum(r + 1 for r in range(n) if grid[r][c] == "1") for c in range(n)]}


class Binario(GymEnv):
    """Binario / Takuzu (logic puzzles). d: an n x n grid, n = 2(d // 2) + 4; a planted valid
    grid (a random walk of count-preserving flips), about 40% of cells given. Rules: no three equal
    digits in a row or column, as many 0s as 1s in each row and column, no two rows equal and no
    two columns equal."""

    name = "binario"
    category = "logic"

    def size(self, difficulty):
        return 2 * (difficulty // 2) + 4

    def build(self, rng, difficulty):
        n, half = self.size(difficulty), self.size(difficulty) // 2
        # Start from a random grid of 2x2 blocks [[b, 1-b], [1-b, b]] (balanced and triple-free in
        # every row and column; rows or columns may repeat) and mix with 2x2 flips 01/10 -> 10/01,
        # which keep every count; undo a flip that makes a triple. (A checkerboard start, b = 0
        # everywhere, left every interior flip making a triple, so big grids never lost their
        # equal rows and d >= 60 found no valid grid in MAX_TRIES draws.)
        block = [[rng.randrange(2) for _ in range(half)] for _ in range(half)]
        grid = [[block[r // 2][c // 2] ^ (r + c) % 2 for c in range(n)] for r in range(n)]

        def triple_at(r: int, c: int) -> bool:  # a run of three through (r, c)
            v = grid[r][c]
            return any(all(0 <= c + k < n and grid[r][c + k] == v for k in range(s, s + 3)) or
                       all(0 <= r + k < n and grid[r + k][c] == v for k in range(s, s + 3)) for s in (-2, -1, 0))

        for _ in range(20 * n * n):
            r1, r2, c1, c2 = (rng.randrange(n) for _ in range(4))
            if grid[r1][c1] == grid[r2][c2] != grid[r1][c2] == grid[r2][c1]:
                cells = ((r1, c1), (r1, c2), (r2, c1), (r2, c2))
                for r, c in cells:
                    grid[r][c] ^= 1
                if any(triple_at(r, c) for r, c in cells):
                    for r, c in cells:
                        grid[r][c] ^= 1
        if len({tuple(r) for r in grid}) < n or len({tuple(c) for c in zip(*grid)}) < n:
            raise Retry
        sol = ["".join(map(str, row)) for row in grid]
        givens = ["".join(ch if rng.random() < 0.4 else "." for ch in row) for row in sol]
        return {"n": n, "givens": givens}, "\n".join(sol)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"Binario on a {n}x{n} grid: fill every '.' with 0 or 1 so that no row or column has three equal "
                   f"digits in a row, every row and column has {n // 2} zeros and {n // 2} ones, no two rows are equal "
                   "and no two columns are equal. Given digits stay.\n\n" + "\n".join(problem["givens"]),
                   f"Give {n} lines of {n} digits.")

    def reward(self, problem, answer):
        n = problem["n"]
        grid = char_grid(answer, n, n, "01")
        if grid is None:
            return -1.0
        cols = ["".join(c) for c in zip(*grid)]
        ok = (all(g in ".01" and (g == "." or g == v) for grow, vrow in zip(problem["givens"], grid) for g, v in zip(grow, vrow))
              and all(line.count("0") == n // 2 and "000" not in line and "111" not in line for line in grid + cols)
              and len(set(grid)) == n and len(set(cols)) == n)
        return 1.0 if ok else 0.0


class LightUp(GymEnv):
    """Light Up / Akari (logic puzzles). d: an (d+4) x (d+4) grid, about 20% black cells, 60% of
    which show their number of neighbouring bulbs. Bulbs are planted greedily on unlit cells, so a
    solution exists. Answer: bulb cells. Rules: every white cell lit (a bulb lights its row and
    column up to black cells), no bulb lights another, numbers match; -0.5 for a bulb off the
    board, on a black cell or repeated."""

    name = "light_up"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        black = [[rng.random() < 0.2 for _ in range(n)] for _ in range(n)]
        lit, bulbs = set(), []
        for k in rng.sample(range(n * n), n * n):
            r, c = divmod(k, n)
            if not black[r][c] and (r, c) not in lit:
                bulbs.append((r, c))
                lit |= _rays(black, r, c)
        if not bulbs:
            raise Retry
        grid = []
        for r in range(n):
            row = ""
            for c in range(n):
                if not black[r][c]:
                    row += "."
                elif rng.random() < 0.6:
                    row += str(sum((r2, c2) in bulbs for r2, c2 in _neighbours(n, r, c)))
                else:
                    row += "#"
            grid.append(row)
        return {"grid": grid}, _pairs_text(bulbs)

    def prompt(self, problem):
        n = len(problem["grid"])
        return ask(f"Light Up on a {n}x{n} grid ('.' white, '#' black, a digit = black cell with that number):\n"
                   + "\n".join(problem["grid"]) + "\n\nPlace bulbs on white cells. A bulb lights its own cell and every "
                   "cell in its row and column until a black cell. Every white cell must be lit, no bulb may light "
                   "another bulb, and each numbered black cell must have exactly that many bulbs among its up to 4 "
                   "orthogonal neighbours.", COORDS)

    def reward(self, problem, answer):
        grid = problem["grid"]
        n = len(grid)
        black = [[ch != "." for ch in row] for row in grid]
        bulbs = coord_pairs(answer, n, n)
        if bulbs is None or any(black[r][c] for r, c in bulbs):
            return -0.5
        bulb_set, lit = set(bulbs), set()
        for r, c in bulbs:
            rays = _rays(black, r, c)
            if len(rays & bulb_set) > 1:
                return 0.0
            lit |= rays
        ok = all(black[r][c] or (r, c) in lit for r in range(n) for c in range(n)) and all(
            sum(x in bulb_set for x in _neighbours(n, r, c)) == int(grid[r][c])
            for r in range(n) for c in range(n) if grid[r][c].isdigit())
        return 1.0 if ok else 0.0


def _neighbours(n: int, r: int, c: int):
    return [(r2, c2) for r2, c2 in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if 0 <= r2 < n and 0 <= c2 < n]


def _rays(black, r: int, c: int) -> set[tuple[int, int]]:
    """The cell and everything it sees along its row and column, up to black cells."""
    n, out = len(black), {(r, c)}
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        r2, c2 = r + dr, c + dc
        while 0 <= r2 < n and 0 <= c2 < n and not black[r2][c2]:
            out.add((r2, c2))
            r2, c2 = r2 + dr, c2 + dc
    return out


class StarBattle(GymEnv):
    """Star Battle, one star per row, column and region (logic puzzles). d: n = d + 5; a planted
    star per row with no two touching, regions grown at random from the stars. -0.5 for stars off
    the board or repeated."""

    name = "star_battle"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        cols: list[int] = []
        for _ in range(50 * n):  # a random row-by-row walk; restarts are rare for n >= 5
            if len(cols) == n:
                break
            options = [c for c in range(n) if c not in cols and (not cols or abs(c - cols[-1]) > 1)]
            cols = cols + [rng.choice(options)] if options else []
        if len(cols) != n:
            raise Retry
        region = [[-1] * n for _ in range(n)]
        frontier = []
        for k, c in enumerate(cols):
            region[k][c] = k
            frontier += [(k, r2, c2) for r2, c2 in _neighbours(n, k, c)]
        while frontier:
            k, r, c = frontier.pop(rng.randrange(len(frontier)))
            if region[r][c] < 0:
                region[r][c] = k
                frontier += [(k, r2, c2) for r2, c2 in _neighbours(n, r, c) if region[r2][c2] < 0]
        return {"regions": region}, _pairs_text(enumerate(cols))

    def prompt(self, problem):
        n = len(problem["regions"])
        grid = "\n".join(" ".join(map(str, row)) for row in problem["regions"])
        return ask(f"Star Battle on a {n}x{n} grid divided into {n} regions (the number in each cell names its "
                   f"region):\n{grid}\n\nPlace {n} stars so that every row, every column and every region has exactly "
                   "one star, and no two stars touch, not even diagonally.", COORDS)

    def reward(self, problem, answer):
        region = problem["regions"]
        n = len(region)
        stars = coord_pairs(answer, n, n)
        if stars is None:
            return -0.5
        ok = (len(stars) == n and len({r for r, _ in stars}) == n and len({c for _, c in stars}) == n
              and len({region[r][c] for r, c in stars}) == n
              and all(max(abs(a[0] - b[0]), abs(a[1] - b[1])) > 1 for i, a in enumerate(stars) for b in stars[i + 1:]))
        return 1.0 if ok else 0.0


class NQueens(GymEnv):
    """N-Queens completion (logic puzzles). d: n = d + 5; a planted solution (min-conflicts,
    bounded steps), n // 3 of its queens given. Answer: each row's queen column. -0.5 for a wrong
    count of columns."""

    name = "n_queens"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        q = rng.sample(range(n), n)

        def conflicts(r: int, c: int) -> int:
            return sum(1 for r2 in range(n) if r2 != r and (q[r2] == c or abs(q[r2] - c) == abs(r2 - r)))

        for _ in range(100 * n):
            bad = [r for r in range(n) if conflicts(r, q[r])]
            if not bad:
                break
            r = rng.choice(bad)
            costs = [conflicts(r, c) for c in range(n)]
            q[r] = rng.choice([c for c in range(n) if costs[c] == min(costs)])
        else:
            raise Retry
        given = sorted(rng.sample(range(n), n // 3))
        return {"n": n, "given": [[r, q[r]] for r in given]}, " ".join(str(c + 1) for c in q)

    def prompt(self, problem):
        n = problem["n"]
        given = ", ".join(f"row {r + 1} column {c + 1}" for r, c in problem["given"])
        return ask(f"Place {n} queens on an {n}x{n} chessboard so that no two share a row, a column or a diagonal. "
                   f"These queens are already placed and must stay: {given}. Rows and columns are counted from 1.",
                   f"Give {n} numbers separated by spaces: the column of the queen in rows 1 to {n}.")

    def reward(self, problem, answer):
        n, q = problem["n"], [c - 1 for c in int_list(answer)]
        if len(q) != n:
            return -0.5
        ok = (sorted(q) == list(range(n)) and len({r - c for r, c in enumerate(q)}) == n
              and len({r + c for r, c in enumerate(q)}) == n and all(q[r] == c for r, c in problem["given"]))
        return 1.0 if ok else 0.0


def lights_out_solution(board: list[list[int]], counter) -> list[list[int]] | None:
    """Presses (1 = press) that switch every light of a 0/1 board off, by elimination over GF(2);
    of several, the smallest read row by row as a binary number (first cell most significant).
    Cell i is bit N-1-i of a row mask; the augmented bit is bit N."""
    h, w = len(board), len(board[0])
    n = h * w
    counter.tick(n * n)  # one row operation per (pivot, row) pair
    bit = [1 << (n - 1 - i) for i in range(n)]
    rows = []
    for r in range(h):
        for c in range(w):
            mask = bit[r * w + c] | (board[r][c] << n)  # the lights that pressing (r, c) toggles, and the target
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if 0 <= r + dr < h and 0 <= c + dc < w:
                    mask |= bit[(r + dr) * w + c + dc]
            rows.append(mask)
    pivots = {}  # column bit -> row with that leading bit, reduced
    for row in rows:
        for b, p in pivots.items():
            if row & b:
                row ^= p
        low = row & ((1 << n) - 1)
        if not low:
            if row:  # 0 = 1: no solution
                return None
            continue
        lead = 1 << (low.bit_length() - 1)
        for b in pivots:
            if pivots[b] & lead:
                pivots[b] ^= row
        pivots[lead] = row
    x = 0
    for b, p in pivots.items():  # free presses 0: a particular solution
        if p >> n & 1:
            x |= b
    free = [b for b in bit if b not in pivots]
    null = []  # null-space vectors: one free press on, the pivot presses it forces
    for f in free:
        v = f
        for b, p in pivots.items():
            if p & f:
                v |= b
        null.append(v)
    null.sort(reverse=True)
    for i, v in enumerate(null):  # echelon by leading bit, then clear x's high bits greedily
        for j in range(i + 1, len(null)):
            if null[j] & (1 << (v.bit_length() - 1)):
                null[j] ^= v
        null[i + 1:] = sorted(null[i + 1:], reverse=True)
    for v in null:
        if x & (1 << (v.bit_length() - 1)):
            x ^= v
    return [[x >> (n - 1 - r * w - c) & 1 for c in range(w)] for r in range(h)]


class LightsOut(GymEnv):
    """Lights Out (logic puzzles). d: an (d+3) x (d+3) board lit by a planted random set of
    presses; pressing a cell toggles it and its orthogonal neighbours. Answer: which cells to press.
    Rule: the presses switch every light off."""

    name = "lights_out"
    category = "logic"

    brick_io = ("grid[bit]", "grid[bit]")
    brick_text = ("Lights Out (1 = light on): the cells to press (1 = press) so that every light goes off, where a "
                  "press toggles the cell and its up/down/left/right neighbours; of several such sets, the smallest "
                  "read row by row as a binary number (no output if there is none).")

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        presses = ["".join(map(str, row)) for row in bitgrid_of(rng, n, n, 0.4)]
        return [[int(ch) for ch in row] for row in _apply_presses(["0" * n] * n, presses)]

    def brick_apply(self, board, counter):
        return lights_out_solution(board, counter)

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        presses = ["".join("1" if rng.random() < 0.4 else "0" for _ in range(n)) for _ in range(n)]
        board = _apply_presses(["0" * n] * n, presses)
        if "1" not in "".join(board):
            raise Retry
        return {"board": board}, "\n".join(presses)

    def prompt(self, problem):
        n = len(problem["board"])
        return ask(f"Lights Out on a {n}x{n} board (1 = light on):\n" + "\n".join(problem["board"]) +
                   "\n\nPressing a cell toggles it and its up to 4 orthogonal neighbours. Choose cells to press (each "
                   "at most once; order does not matter) so that all lights end up off.",
                   f"Give {n} lines of {n} characters, 1 for a pressed cell and 0 otherwise.")

    def reward(self, problem, answer):
        board = problem["board"]
        n = len(board)
        presses = char_grid(answer, n, n, "01")
        if presses is None:
            return -1.0
        return 1.0 if "1" not in "".join(_apply_presses(board, presses)) else 0.0


def _apply_presses(board: list[str], presses: list[str]) -> list[str]:
    n = len(board)
    state = [[int(ch) for ch in row] for row in board]
    for r in range(n):
        for c in range(n):
            if presses[r][c] == "1":
                for r2, c2 in [(r, c)] + _neighbours(n, r, c):
                    state[r2][c2] ^= 1
    return ["".join(map(str, row)) for row in state]
