"""More grid logic puzzles with planted solutions (RLVE line 67: plant a valid solution, derive
the clues, verify the rules): Tents, Norinori, Shikaku, Slitherlink, Kurodoko, Dominosa, Slant.

Each generator plants a solution and derives clues from it, never searching; each scorer checks
every rule, so any solution the clues allow scores 1 (none of these needs a unique solution).
What makes each its own puzzle (none is in grid_puzzles.py, number_puzzles.py, deduction.py,
latin.py or envs/puzzles/): the rules differ. Tents pairs tents with trees; Norinori shades
dominoes, two cells per region; Shikaku cuts the grid into rectangles; Slitherlink draws one
loop (answered as the cells inside it); Kurodoko counts the cells a clue sees; Dominosa tiles
with a full domino set; Slant draws loop-free diagonals.

Reward (all, our choice as in grid_puzzles.py): -1 unparsable or wrong shape, -0.5 for a
structurally invalid answer where noted (cells off the board or repeated), 1 if every rule
holds, else 0.
"""
from __future__ import annotations

from envs.gym.base import GymEnv, Retry, ask, char_grid, int_grid, int_list, lines
from envs.gym.graphs import _DSU, bipartite_matching
from envs.gym.grid_puzzles import COORDS, _neighbours, _pairs_text, coord_pairs
from envs.gym.number_puzzles import _connected

BITS_GRID = "Give {n} lines of {n} characters, 1 for {what} and 0 otherwise."


def _king(r: int, c: int):
    return [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


class Tents(GymEnv):
    """Tents (logic puzzles). d: an n x n grid, n = d + 5; tents planted on random cells none
    touching another (not even diagonally), each with its own tree on a free orthogonal
    neighbour; row and column clues count the tents. Answer: the tent cells. Rules: tents on
    free cells, no two touching, the counts match, and tents and trees pair off one to one
    along orthogonal neighbours (a bipartite matching is checked, so any pairing counts)."""

    name = "tents"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        tents, trees = set(), set()
        for k in rng.sample(range(n * n), n * n):
            cell = divmod(k, n)
            if len(tents) >= n * n // 6 or cell in trees or any(x in tents for x in _king(*cell)):
                continue
            spots = [x for x in _neighbours(n, *cell) if x not in trees and x not in tents]
            if spots:
                tents.add(cell)
                trees.add(rng.choice(spots))
        if not tents:
            raise Retry
        grid = ["".join("T" if (r, c) in trees else "." for c in range(n)) for r in range(n)]
        return ({"grid": grid, "rows": [sum(r == t[0] for t in tents) for r in range(n)],
                 "cols": [sum(c == t[1] for t in tents) for c in range(n)]}, _pairs_text(tents))

    def prompt(self, problem):
        n = len(problem["grid"])
        return ask(f"Tents on a {n}x{n} grid ('T' a tree, '.' empty):\n" + "\n".join(problem["grid"]) +
                   "\n\nPlace tents on empty cells so that every tree has its own tent directly beside it (up, down, "
                   "left or right; tents and trees pair off one to one), no two tents touch, not even diagonally, "
                   "and each row and column holds the given number of tents.\nTents per row (top to bottom): "
                   + " ".join(map(str, problem["rows"])) + "\nTents per column (left to right): "
                   + " ".join(map(str, problem["cols"])), COORDS)

    def reward(self, problem, answer):
        grid = problem["grid"]
        n = len(grid)
        tents = coord_pairs(answer, n, n)
        if tents is None or any(grid[r][c] == "T" for r, c in tents):
            return -0.5
        at = set(tents)
        trees = [(r, c) for r in range(n) for c in range(n) if grid[r][c] == "T"]
        if (len(tents) != len(trees) or any(x in at for t in tents for x in _king(*t))
                or [sum(r == t[0] for t in tents) for r in range(n)] != problem["rows"]
                or [sum(c == t[1] for t in tents) for c in range(n)] != problem["cols"]):
            return 0.0
        index = {t: i for i, t in enumerate(tents)}
        adj = [[index[x] for x in _neighbours(n, *tree) if x in index] for tree in trees]
        return 1.0 if perfect_matching(adj, len(tents)) else 0.0


def perfect_matching(adj: list[list[int]], right: int) -> bool:
    """Whether every left vertex can be matched to its own right vertex (graphs.bipartite_matching:
    augmenting paths on an explicit stack, so a big board's long paths cannot overflow)."""
    return len(bipartite_matching(len(adj), adj)) == len(adj)


def _grow_regions(rng, n: int, region: list[list[int]]) -> None:
    """Give every cell marked -1 the region of a random neighbour, growing all regions at once."""
    frontier = [(r2, c2, region[r][c]) for r in range(n) for c in range(n) if region[r][c] >= 0
                for r2, c2 in _neighbours(n, r, c) if region[r2][c2] < 0]
    while frontier:
        r, c, k = frontier.pop(rng.randrange(len(frontier)))
        if region[r][c] < 0:
            region[r][c] = k
            frontier += [(r2, c2, k) for r2, c2 in _neighbours(n, r, c) if region[r2][c2] < 0]


class Norinori(GymEnv):
    """Norinori (logic puzzles). d: an n x n grid, n = d + 5, cut into regions; shade cells so
    that every region holds exactly two shaded cells and every shaded cell has exactly one
    shaded orthogonal neighbour (the shading is a set of dominoes). Planted: dominoes that touch
    no other domino orthogonally, one region grown around each."""

    name = "norinori"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        region = [[-1] * n for _ in range(n)]
        shaded: set[tuple[int, int]] = set()
        for k in rng.sample(range(n * n), n * n):
            a = divmod(k, n)
            b = rng.choice(_neighbours(n, *a))
            cells = {a, b}
            near = {x for cell in cells for x in _neighbours(n, *cell)} | cells
            if len(shaded) < n * n // 5 and not near & shaded:
                k = len(shaded) // 2
                for r, c in cells:
                    region[r][c] = k
                shaded |= cells
        _grow_regions(rng, n, region)
        return {"regions": region}, "\n".join("".join("1" if (r, c) in shaded else "0" for c in range(n)) for r in range(n))

    def prompt(self, problem):
        n = len(problem["regions"])
        return ask(f"Norinori on a {n}x{n} grid; the number in each cell names its region:\n{lines(problem['regions'])}"
                   "\n\nShade cells so that every region has exactly two shaded cells and every shaded cell has exactly "
                   "one shaded neighbour (up, down, left or right).", BITS_GRID.format(n=n, what="shaded"))

    def reward(self, problem, answer):
        region = problem["regions"]
        n = len(region)
        grid = char_grid(answer, n, n, "01")
        if grid is None:
            return -1.0
        count: dict[int, int] = {}
        for r in range(n):
            for c in range(n):
                if grid[r][c] == "1":
                    count[region[r][c]] = count.get(region[r][c], 0) + 1
                    if sum(grid[r2][c2] == "1" for r2, c2 in _neighbours(n, r, c)) != 1:
                        return 0.0
        ids = {k for row in region for k in row}
        return 1.0 if all(count.get(k, 0) == 2 for k in ids) else 0.0


class Shikaku(GymEnv):
    """Shikaku (logic puzzles). d: an n x n grid, n = d + 5; cut it into rectangles, each holding
    exactly one number, equal to its area. Planted: a random guillotine cut into rectangles of
    area at most 2 + n // 2 (each split along a random line), a number in a random cell of
    each. Answer: a rectangle label per cell (any integers). Rules: each label's cells form one
    full rectangle holding exactly one number, equal to its area."""

    name = "shikaku"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        cap = 2 + n // 2
        rects, todo = [], [(0, 0, n, n)]
        while todo:
            r, c, h, w = todo.pop()
            if h * w <= cap and (h * w == 1 or rng.random() < 0.6):
                rects.append((r, c, h, w))
            elif h > 1 and (w == 1 or rng.random() < h / (h + w)):
                k = rng.randint(1, h - 1)
                todo += [(r, c, k, w), (r + k, c, h - k, w)]
            else:
                k = rng.randint(1, w - 1)
                todo += [(r, c, h, k), (r, c + k, h, w - k)]
        clue = [[0] * n for _ in range(n)]
        label = [[0] * n for _ in range(n)]
        for i, (r, c, h, w) in enumerate(rects):
            clue[r + rng.randrange(h)][c + rng.randrange(w)] = h * w
            for rr in range(r, r + h):
                for cc in range(c, c + w):
                    label[rr][cc] = i + 1
        grid = [" ".join(str(v) if v else "." for v in row) for row in clue]
        return {"clues": clue, "grid": grid}, lines(label)

    def prompt(self, problem):
        n = len(problem["clues"])
        return ask(f"Shikaku on a {n}x{n} grid ('.' an empty cell):\n" + "\n".join(problem["grid"]) +
                   "\n\nCut the grid into rectangles so that each rectangle contains exactly one number and that "
                   "number equals its area (its number of cells).",
                   f"Give {n} lines of {n} integers: a label for every cell, the same label for the cells of one "
                   "rectangle and different labels for different rectangles.")

    def reward(self, problem, answer):
        clue = problem["clues"]
        n = len(clue)
        label = int_grid(answer, n, n)
        if label is None:
            return -1.0
        cells: dict[int, list[tuple[int, int]]] = {}
        for r in range(n):
            for c in range(n):
                cells.setdefault(label[r][c], []).append((r, c))
        for group in cells.values():
            rs, cs = [r for r, _ in group], [c for _, c in group]
            area = (max(rs) - min(rs) + 1) * (max(cs) - min(cs) + 1)
            nums = [clue[r][c] for r, c in group if clue[r][c]]
            if area != len(group) or nums != [area]:
                return 0.0
        return 1.0


def _loop_ok(inside: list[list[bool]]) -> bool:
    """The boundary of the inside cells is one simple loop: inside non-empty and 4-connected,
    the outside (with the area beyond the border) 4-connected, and no 2x2 block, border
    included, in a checkerboard pattern (the loop would touch itself at a corner)."""
    n = len(inside)
    pad = [[False] * (n + 2)] + [[False] + row + [False] for row in inside] + [[False] * (n + 2)]
    for r in range(n + 1):
        for c in range(n + 1):
            a, b, x, y = pad[r][c], pad[r][c + 1], pad[r + 1][c], pad[r + 1][c + 1]
            if a == y and b == x and a != b:
                return False
    ins = {(r, c) for r in range(n + 2) for c in range(n + 2) if pad[r][c]}
    outs = {(r, c) for r in range(n + 2) for c in range(n + 2) if not pad[r][c]}
    return bool(ins) and _connected(ins) and _connected(outs)


def _loop_counts(inside: list[list[bool]]) -> list[list[int]]:
    """For each cell, how many of its four sides lie on the loop."""
    n = len(inside)
    at = lambda r, c: 0 <= r < n and 0 <= c < n and inside[r][c]  # noqa: E731
    return [[sum(at(r, c) != at(r2, c2) for r2, c2 in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))
             for c in range(n)] for r in range(n)]


class Slitherlink(GymEnv):
    """Slitherlink (logic puzzles). d: an n x n grid, n = d // 2 + 4; draw one closed loop along
    the cell edges, without crossing or touching itself, so that each number tells how many of
    its cell's four sides the loop uses. Planted: a region grown cell by cell, each addition
    kept only if the region's boundary stays one simple loop, to about half the grid; about 60%
    of the cell counts are shown. Answer: the cells inside the loop, as a 0/1 grid (the loop is
    their boundary, so every loop has exactly one such grid)."""

    name = "slitherlink"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        inside = [[False] * n for _ in range(n)]
        r, c = rng.randrange(n), rng.randrange(n)
        inside[r][c] = True
        frontier = set(_neighbours(n, r, c))
        target, size = n * n // 2, 1
        while frontier and size < target:
            r, c = rng.choice(sorted(frontier))
            frontier.discard((r, c))
            inside[r][c] = True
            if _loop_ok(inside):
                size += 1
                frontier |= {x for x in _neighbours(n, r, c) if not inside[x[0]][x[1]]}
            else:
                inside[r][c] = False
        counts = _loop_counts(inside)
        grid = ["".join(str(counts[r][c]) if rng.random() < 0.6 else "." for c in range(n)) for r in range(n)]
        return {"grid": grid}, "\n".join("".join("1" if v else "0" for v in row) for row in inside)

    def prompt(self, problem):
        n = len(problem["grid"])
        return ask(f"Slitherlink on a {n}x{n} grid of cells ('.' no number):\n" + "\n".join(problem["grid"]) +
                   "\n\nDraw one closed loop along the edges of the cells; it must not cross or touch itself (not even "
                   "at a corner). Each number tells how many of the four sides of its cell the loop uses.",
                   f"Give the cells inside the loop: {n} lines of {n} characters, 1 inside and 0 outside.")

    def reward(self, problem, answer):
        grid = problem["grid"]
        n = len(grid)
        rows = char_grid(answer, n, n, "01")
        if rows is None:
            return -1.0
        inside = [[ch == "1" for ch in row] for row in rows]
        if not _loop_ok(inside):
            return 0.0
        counts = _loop_counts(inside)
        ok = all(ch == "." or int(ch) == counts[r][c] for r, row in enumerate(grid) for c, ch in enumerate(row))
        return 1.0 if ok else 0.0


def _seen(black, r: int, c: int) -> int:
    """Cells a white cell sees along its row and column up to black cells or the edge, itself included."""
    n, count = len(black), 1
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        r2, c2 = r + dr, c + dc
        while 0 <= r2 < n and 0 <= c2 < n and not black[r2][c2]:
            count += 1
            r2, c2 = r2 + dr, c2 + dc
    return count


class Kurodoko(GymEnv):
    """Kurodoko (logic puzzles). d: an n x n grid, n = d + 5; blacken cells so that no two black
    cells are orthogonal neighbours, the white cells stay connected, numbered cells stay white
    and each number counts the white cells it sees along its row and column up to black cells
    (itself included). Planted: black cells added at random while those rules hold, to about a
    fifth of the grid; about 40% of the white cells show their counts."""

    name = "kurodoko"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        black = [[False] * n for _ in range(n)]
        white = {(r, c) for r in range(n) for c in range(n)}
        for k in rng.sample(range(n * n), n * n // 4):
            r, c = divmod(k, n)
            if any(black[r2][c2] for r2, c2 in _neighbours(n, r, c)):
                continue
            white.discard((r, c))
            if _connected(white):
                black[r][c] = True
            else:
                white.add((r, c))
        clues = [[_seen(black, r, c) if not black[r][c] and rng.random() < 0.4 else 0 for c in range(n)]
                 for r in range(n)]
        grid = [" ".join(str(v) if v else "." for v in row) for row in clues]
        return ({"clues": clues, "grid": grid},
                "\n".join("".join("1" if v else "0" for v in row) for row in black))

    def prompt(self, problem):
        n = len(problem["clues"])
        return ask(f"Kurodoko on a {n}x{n} grid ('.' an unnumbered cell):\n" + "\n".join(problem["grid"]) +
                   "\n\nBlacken some unnumbered cells so that no two black cells share a side, all white cells are "
                   "connected (through sides), and each number equals how many white cells it sees along its row and "
                   "column up to a black cell or the edge, counting itself.", BITS_GRID.format(n=n, what="black"))

    def reward(self, problem, answer):
        clues = problem["clues"]
        n = len(clues)
        rows = char_grid(answer, n, n, "01")
        if rows is None:
            return -1.0
        black = [[ch == "1" for ch in row] for row in rows]
        white = {(r, c) for r in range(n) for c in range(n) if not black[r][c]}
        ok = (all(not (black[r][c] and black[r2][c2]) for r in range(n) for c in range(n) for r2, c2 in _neighbours(n, r, c))
              and _connected(white)
              and all(not v or (not black[r][c] and _seen(black, r, c) == v)
                      for r, row in enumerate(clues) for c, v in enumerate(row)))
        return 1.0 if ok else 0.0


def domino_tiling(rng, rows: int, cols: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """A random domino tiling of a board with rows * cols even: parallel start, then random 2x2
    flips (two horizontal dominoes in a square become two vertical ones and back)."""
    mate: dict[tuple[int, int], tuple[int, int]] = {}
    for r in range(rows):
        for c in range(cols):
            if (r, c) not in mate:
                other = (r, c + 1) if cols % 2 == 0 else (r + 1, c)
                mate[(r, c)], mate[other] = other, (r, c)
    for _ in range(4 * rows * cols):
        r, c = rng.randrange(rows - 1), rng.randrange(cols - 1)
        a, b, x, y = (r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)
        if mate[a] == b and mate[x] == y:
            mate[a], mate[x], mate[b], mate[y] = x, a, y, b
        elif mate[a] == x and mate[b] == y:
            mate[a], mate[b], mate[x], mate[y] = b, a, y, x
    return sorted({tuple(sorted((p, q))) for p, q in mate.items()})


class Dominosa(GymEnv):
    """Dominosa (logic puzzles). d: the double-m domino set, m = d // 3 + 2, laid on an (m + 1) x
    (m + 2) grid that shows only the pips; find where the dominoes lie, every domino of the set
    exactly once. Planted: a random domino tiling (parallel start plus 2x2 flips) filled with
    the shuffled set. Answer: the dominoes as cell pairs. -0.5 for cells off the board, a pair
    that is not two neighbouring cells or a cell used twice."""

    name = "dominosa"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 3 + 2

    def build(self, rng, difficulty):
        m = self.size(difficulty)
        rows, cols = m + 1, m + 2
        tiles = domino_tiling(rng, rows, cols)
        pieces = [(a, b) for a in range(m + 1) for b in range(a, m + 1)]
        rng.shuffle(pieces)
        grid = [[0] * cols for _ in range(rows)]
        for (p, q), (a, b) in zip(tiles, pieces):
            if rng.random() < 0.5:
                a, b = b, a
            grid[p[0]][p[1]], grid[q[0]][q[1]] = a, b
        gold = "\n".join(f"{p[0] + 1} {p[1] + 1} {q[0] + 1} {q[1] + 1}" for p, q in tiles)
        return {"m": m, "grid": grid}, gold

    def prompt(self, problem):
        m, grid = problem["m"], problem["grid"]
        return ask(f"Dominosa: a full set of dominoes with 0 to {m} pips (every pair a-b with 0 <= a <= b <= {m} "
                   f"exactly once) was laid on a {len(grid)}x{len(grid[0])} grid, covering it; only the pips are "
                   f"shown:\n{lines(grid)}\n\nFind where the dominoes lie: split the grid into pairs of neighbouring "
                   "cells (sharing a side) so that every domino of the set appears exactly once.",
                   "Give each domino as \"row column row column\" of its two cells (counted from 1), one domino per "
                   "line, e.g. <answer>1 1 1 2\n2 1 3 1</answer>.")

    def reward(self, problem, answer):
        grid = problem["grid"]
        rows, cols, m = len(grid), len(grid[0]), problem["m"]
        nums = int_list(answer)
        if len(nums) % 4:
            return -0.5
        cells = coord_pairs(answer, rows, cols)
        if cells is None:
            return -0.5
        seen = set()
        for p, q in zip(cells[::2], cells[1::2]):
            if abs(p[0] - q[0]) + abs(p[1] - q[1]) != 1:
                return -0.5
            seen.add(tuple(sorted((grid[p[0]][p[1]], grid[q[0]][q[1]]))))
        return 1.0 if len(cells) == rows * cols and len(seen) == (m + 1) * (m + 2) // 2 else 0.0


class Slant(GymEnv):
    """Slant / Gokigen Naname (logic puzzles). d: an n x n grid, n = d + 4; draw one diagonal
    ('/' or '\\') in every cell so that the diagonals form no closed loop and each number on a
    grid corner counts the diagonals that touch that corner. Planted: cells in random order,
    each given a random diagonal unless it closes a loop (then the other one; drawn again if
    both would); about half of the corner counts are shown."""

    name = "slant"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 4

    @staticmethod
    def ends(r: int, c: int, ch: str, n: int) -> tuple[int, int]:
        """The two grid corners a diagonal joins, as indices in the (n + 1) x (n + 1) corners."""
        w = n + 1
        return (r * w + c + 1, (r + 1) * w + c) if ch == "/" else (r * w + c, (r + 1) * w + c + 1)

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        dsu = _DSU((n + 1) ** 2)
        grid = [[""] * n for _ in range(n)]
        for k in rng.sample(range(n * n), n * n):
            r, c = divmod(k, n)
            for ch in rng.sample("/\\", 2):
                if dsu.union(*self.ends(r, c, ch, n)):
                    grid[r][c] = ch
                    break
            else:
                raise Retry
        rows = ["".join(row) for row in grid]
        counts = self.corner_counts(rows)
        clues = [[v if rng.random() < 0.5 else -1 for v in row] for row in counts]
        return {"n": n, "clues": clues}, "\n".join(rows)

    @staticmethod
    def corner_counts(rows: list[str]) -> list[list[int]]:
        n = len(rows)
        counts = [[0] * (n + 1) for _ in range(n + 1)]
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                for v in Slant.ends(r, c, ch, n):
                    counts[v // (n + 1)][v % (n + 1)] += 1
        return counts

    def prompt(self, problem):
        n = problem["n"]
        corners = "\n".join(" ".join(str(v) if v >= 0 else "." for v in row) for row in problem["clues"])
        return ask(f"Slant on a {n}x{n} grid of cells. The numbers stand on the {n + 1}x{n + 1} cell corners ('.' no "
                   f"number), top-left corner first:\n{corners}\n\nDraw one diagonal, '/' or '\\', in every cell so that "
                   "the diagonals never form a closed loop and every number equals how many diagonals touch its "
                   "corner.", f"Give {n} lines of {n} characters, each '/' or '\\'.")

    def reward(self, problem, answer):
        n = problem["n"]
        rows = char_grid(answer, n, n, "/\\")
        if rows is None:
            return -1.0
        dsu = _DSU((n + 1) ** 2)
        if not all(dsu.union(*self.ends(r, c, ch, n)) for r, row in enumerate(rows) for c, ch in enumerate(row)):
            return 0.0
        counts = self.corner_counts(rows)
        ok = all(v < 0 or v == counts[r][c] for r, row in enumerate(problem["clues"]) for c, v in enumerate(row))
        return 1.0 if ok else 0.0
