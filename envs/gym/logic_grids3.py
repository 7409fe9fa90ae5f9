"""Grid logic puzzles with planted solutions, third family (RLVE line 67: plant, derive the clues,
verify the rules): Thermometers, Magnets, Aquarium, Survo, Fillomino, Nurikabe.

What makes each its own puzzle (none is in grid_puzzles.py, logic_grids2.py, number_puzzles.py,
latin.py or envs/puzzles/): thermometers fill from the bulb; magnets place +/- poles in
dominoes with no equal poles side by side; aquarium fills regions with water that settles by
row; survo places 1..mn with row and column sums; fillomino cuts the grid into pieces whose
numbers are their sizes; nurikabe builds a connected black wall around numbered islands. Row
and column counts appear in several (as in kakurasu or battleships), but the objects counted
and the rules that bind them differ.

Reward (all, our choice as in grid_puzzles.py): -1 unparsable or wrong shape, 1 if every rule
holds, else 0.
"""
from __future__ import annotations

from envs.gym.base import GymEnv, Retry, ask, char_grid, int_grid, lines
from envs.gym.grid_puzzles import _neighbours
from envs.gym.logic_grids2 import _grow_regions, domino_tiling
from envs.gym.number_puzzles import _connected

BITS_GRID = "Give {n} lines of {n} characters, 1 for {what} and 0 otherwise."


def _counts(rows: list[str], ch: str) -> tuple[list[int], list[int]]:
    return [r.count(ch) for r in rows], ["".join(c).count(ch) for c in zip(*rows)]


class Thermometers(GymEnv):
    """Thermometers (logic puzzles). d: an n x n grid, n = d + 4, cut into straight thermometers
    of 1-4 cells (a random tiling by horizontal and vertical runs), each filled from its bulb
    end up to a random level; row and column clues count filled cells. Answer: the filled
    cells. Rules: in every thermometer the filled cells are a run starting at the bulb, and the
    counts match."""

    name = "thermometers"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        taken = [[False] * n for _ in range(n)]
        thermos = []
        for k in rng.sample(range(n * n), n * n):
            r, c = divmod(k, n)
            if taken[r][c]:
                continue
            dr, dc = rng.choice(((0, 1), (1, 0), (0, -1), (-1, 0)))
            cells, length = [(r, c)], rng.randint(1, 4)
            while len(cells) < length:
                r2, c2 = cells[-1][0] + dr, cells[-1][1] + dc
                if not (0 <= r2 < n and 0 <= c2 < n) or taken[r2][c2] or (r2, c2) in cells:
                    break
                cells.append((r2, c2))
            for a, b in cells:
                taken[a][b] = True
            thermos.append(cells)
        filled = set()
        for cells in thermos:
            filled |= set(cells[:rng.randint(0, len(cells))])
        rows = ["".join("1" if (r, c) in filled else "0" for c in range(n)) for r in range(n)]
        rc, cc = _counts(rows, "1")
        return {"n": n, "thermos": [[list(x) for x in t] for t in thermos], "rows": rc, "cols": cc}, "\n".join(rows)

    def prompt(self, problem):
        n = problem["n"]
        desc = "\n".join(" ".join(f"({r + 1},{c + 1})" for r, c in t) for t in problem["thermos"])
        return ask(f"Thermometers on a {n}x{n} grid. Each thermometer below is listed from its bulb to its tip "
                   f"(cells as (row, column), counted from 1):\n{desc}\n\nFill some cells so that in every thermometer "
                   "the filled cells start at the bulb with no gaps, and each row and column has the given number of "
                   "filled cells.\nRows (top to bottom): " + " ".join(map(str, problem["rows"])) +
                   "\nColumns (left to right): " + " ".join(map(str, problem["cols"])),
                   BITS_GRID.format(n=n, what="filled"))

    def reward(self, problem, answer):
        n = problem["n"]
        rows = char_grid(answer, n, n, "01")
        if rows is None:
            return -1.0
        if list(_counts(rows, "1")) != [problem["rows"], problem["cols"]]:
            return 0.0
        for t in problem["thermos"]:
            bits = "".join(rows[r][c] for r, c in t)
            if "01" in bits:
                return 0.0
        return 1.0


class Magnets(GymEnv):
    """Magnets (logic puzzles). d: an n x n grid, n = 2(d // 2) + 4, tiled by dominoes (a random
    tiling); each domino is blank or a magnet with one '+' and one '-' end, and no two equal
    poles are side by side. Planted: dominoes visited in random order, each made a magnet in a
    random orientation that keeps the rule (or left blank); clues count the '+' and the '-' of
    every row and column. Answer: the grid of '+', '-' and '.'."""

    name = "magnets"
    category = "logic"

    def size(self, difficulty):
        return 2 * (difficulty // 2) + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        tiles = domino_tiling(rng, n, n)
        grid = [["."] * n for _ in range(n)]

        def clash(cell, pole):
            return any(grid[r][c] == pole for r, c in _neighbours(n, *cell))

        for i in rng.sample(range(len(tiles)), len(tiles)):
            p, q = tiles[i]
            if rng.random() < 0.25:
                continue
            for a, b in rng.sample([(p, q), (q, p)], 2):
                if not clash(a, "+") and not clash(b, "-"):
                    grid[a[0]][a[1]], grid[b[0]][b[1]] = "+", "-"
                    break
        rows = ["".join(r) for r in grid]
        plus, minus = _counts(rows, "+"), _counts(rows, "-")
        return ({"n": n, "tiles": [[list(p), list(q)] for p, q in tiles], "plus": list(plus), "minus": list(minus)},
                "\n".join(rows))

    def prompt(self, problem):
        n = problem["n"]
        label = [[0] * n for _ in range(n)]
        for i, (p, q) in enumerate(problem["tiles"]):
            label[p[0]][p[1]] = label[q[0]][q[1]] = i + 1
        (pr, pc), (mr, mc) = problem["plus"], problem["minus"]
        return ask(f"Magnets on a {n}x{n} grid covered by dominoes (the two cells with the same number form one "
                   f"domino):\n{lines(label)}\n\nEach domino is either blank (both cells '.') or a magnet with one '+' "
                   "end and one '-' end. Two cells that share a side must not hold the same pole. Each row and column "
                   "has the given numbers of '+' and '-'.\n'+' per row: " + " ".join(map(str, pr)) +
                   "\n'-' per row: " + " ".join(map(str, mr)) + "\n'+' per column: " + " ".join(map(str, pc)) +
                   "\n'-' per column: " + " ".join(map(str, mc)),
                   f"Give {n} lines of {n} characters, each '+', '-' or '.'.")

    def reward(self, problem, answer):
        n = problem["n"]
        rows = char_grid(answer, n, n, "+-.")
        if rows is None:
            return -1.0
        for p, q in problem["tiles"]:
            if "".join(sorted(rows[p[0]][p[1]] + rows[q[0]][q[1]])) not in ("..", "+-"):
                return 0.0
        if any(rows[r][c] != "." and rows[r][c] == rows[r2][c2]
               for r in range(n) for c in range(n) for r2, c2 in _neighbours(n, r, c)):
            return 0.0
        ok = [list(_counts(rows, "+")), list(_counts(rows, "-"))] == [problem["plus"], problem["minus"]]
        return 1.0 if ok else 0.0


class Aquarium(GymEnv):
    """Aquarium (logic puzzles). d: an n x n grid, n = d + 4, cut into about n^2 / 5 regions grown
    at random; each region holds water up to a level (water settles: if a cell of a region is
    full, so is every cell of that region in the same row and in every row below). Planted: a
    random level per region; clues count the full cells of every row and column. Answer: the
    full cells."""

    name = "aquarium"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        region = [[-1] * n for _ in range(n)]
        for k, cell in enumerate(rng.sample(range(n * n), max(2, n * n // 5))):
            region[cell // n][cell % n] = k
        _grow_regions(rng, n, region)
        level = {k: rng.randint(0, n) for row in region for k in row}  # rows >= level are full
        rows = ["".join("1" if r >= level[region[r][c]] else "0" for c in range(n)) for r in range(n)]
        rc, cc = _counts(rows, "1")
        return {"regions": region, "rows": rc, "cols": cc}, "\n".join(rows)

    def prompt(self, problem):
        n = len(problem["regions"])
        return ask(f"Aquarium on a {n}x{n} grid; the number in each cell names its tank (region):\n"
                   f"{lines(problem['regions'])}\n\nFill some cells with water. Water settles: within a tank, if a cell "
                   "is full then every cell of the same tank in the same row and in every lower row is full too. Each "
                   "row and column has the given number of full cells.\nRows (top to bottom): "
                   + " ".join(map(str, problem["rows"])) + "\nColumns (left to right): " + " ".join(map(str, problem["cols"])),
                   BITS_GRID.format(n=n, what="water"))

    def reward(self, problem, answer):
        region = problem["regions"]
        n = len(region)
        rows = char_grid(answer, n, n, "01")
        if rows is None:
            return -1.0
        if list(_counts(rows, "1")) != [problem["rows"], problem["cols"]]:
            return 0.0
        top: dict[int, int] = {}  # the highest full row of each tank
        for r in range(n):
            for c in range(n):
                if rows[r][c] == "1":
                    top.setdefault(region[r][c], r)
        ok = all((rows[r][c] == "1") == (region[r][c] in top and r >= top[region[r][c]])
                 for r in range(n) for c in range(n))
        return 1.0 if ok else 0.0


class Survo(GymEnv):
    """Survo puzzle (logic puzzles). d: an r x c grid, r = d // 3 + 3, c = d // 2 + 4, holding
    each number 1..rc exactly once (a planted random arrangement); every row and column sum is
    shown and about a third of the cells are given."""

    name = "survo"
    category = "logic"

    def size(self, difficulty):
        return (difficulty // 3 + 3) * (difficulty // 2 + 4)

    def build(self, rng, difficulty):
        r, c = difficulty // 3 + 3, difficulty // 2 + 4
        nums = rng.sample(range(1, r * c + 1), r * c)
        grid = [nums[i * c:(i + 1) * c] for i in range(r)]
        givens = [[v if rng.random() < 0.33 else 0 for v in row] for row in grid]
        return ({"givens": givens, "rows": [sum(row) for row in grid], "cols": [sum(col) for col in zip(*grid)]},
                lines(grid))

    def prompt(self, problem):
        givens = problem["givens"]
        r, c = len(givens), len(givens[0])
        text = "\n".join(" ".join(str(v) if v else "." for v in row) + f" | {s}" for row, s in zip(givens, problem["rows"]))
        return ask(f"Survo puzzle: fill the {r}x{c} grid with the numbers 1 to {r * c}, each exactly once, keeping the "
                   "given numbers, so that each row adds up to the number after its bar and each column adds up to "
                   f"the number below it.\n{text}\n" + " ".join(map(str, problem["cols"])),
                   f"Give {r} lines of {c} numbers separated by spaces.")

    def reward(self, problem, answer):
        givens = problem["givens"]
        r, c = len(givens), len(givens[0])
        grid = int_grid(answer, r, c)
        if grid is None:
            return -1.0
        ok = (sorted(v for row in grid for v in row) == list(range(1, r * c + 1))
              and all(not g or g == v for grow, vrow in zip(givens, grid) for g, v in zip(grow, vrow))
              and [sum(row) for row in grid] == problem["rows"] and [sum(col) for col in zip(*grid)] == problem["cols"])
        return 1.0 if ok else 0.0


def _pieces(grid: list[list[int]]) -> list[list[tuple[int, int]]]:
    """The connected groups of equal numbers (through sides)."""
    n, m = len(grid), len(grid[0])
    seen, out = set(), []
    for r in range(n):
        for c in range(m):
            if (r, c) in seen:
                continue
            group, stack = [], [(r, c)]
            seen.add((r, c))
            while stack:
                a, b = stack.pop()
                group.append((a, b))
                for x in ((a + 1, b), (a - 1, b), (a, b + 1), (a, b - 1)):
                    if 0 <= x[0] < n and 0 <= x[1] < m and x not in seen and grid[x[0]][x[1]] == grid[r][c]:
                        seen.add(x)
                        stack.append(x)
            out.append(group)
    return out


class Fillomino(GymEnv):
    """Fillomino (logic puzzles). d: an n x n grid, n = d + 4; write a number in every cell so
    that each connected group of equal numbers has exactly that many cells. Planted: pieces of
    1-5 cells grown at random, then neighbouring pieces of equal size merged until none touch;
    about 40% of the cells show their number."""

    name = "fillomino"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        piece = [[-1] * n for _ in range(n)]
        cells: list[list[tuple[int, int]]] = []
        for k in rng.sample(range(n * n), n * n):
            r, c = divmod(k, n)
            if piece[r][c] >= 0:
                continue
            group, target = [(r, c)], rng.randint(1, 5)
            piece[r][c] = len(cells)
            while len(group) < target:
                options = [x for g in group for x in _neighbours(n, *g) if piece[x[0]][x[1]] < 0]
                if not options:
                    break
                x = rng.choice(options)
                piece[x[0]][x[1]] = len(cells)
                group.append(x)
            cells.append(group)
        while True:  # merge touching pieces of equal size (each merge lowers the count: this ends)
            sizes = [len(g) for g in cells]
            pair = next(((piece[r][c], piece[r2][c2]) for r in range(n) for c in range(n) for r2, c2 in _neighbours(n, r, c)
                         if piece[r][c] != piece[r2][c2] and sizes[piece[r][c]] == sizes[piece[r2][c2]]), None)
            if pair is None:
                break
            keep, gone = pair
            for r, c in cells[gone]:
                piece[r][c] = keep
            cells[keep] += cells[gone]
            cells[gone] = []
        grid = [[len(cells[piece[r][c]]) for c in range(n)] for r in range(n)]
        shown = [[v if rng.random() < 0.4 else 0 for v in row] for row in grid]
        return {"givens": shown}, lines(grid)

    def prompt(self, problem):
        n = len(problem["givens"])
        text = "\n".join(" ".join(str(v) if v else "." for v in row) for row in problem["givens"])
        return ask(f"Fillomino on a {n}x{n} grid ('.' an empty cell):\n{text}\n\nWrite a positive number in every "
                   "cell, keeping the given ones, so that every connected group of cells holding the same number "
                   "(connected through sides) has exactly that many cells.",
                   f"Give {n} lines of {n} numbers separated by spaces.")

    def reward(self, problem, answer):
        givens = problem["givens"]
        n = len(givens)
        grid = int_grid(answer, n, n)
        if grid is None:
            return -1.0
        if any(g and g != v for grow, vrow in zip(givens, grid) for g, v in zip(grow, vrow)):
            return 0.0
        return 1.0 if all(grid[g[0][0]][g[0][1]] == len(g) for g in _pieces(grid)) else 0.0


def _pools(black: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Top-left corners of 2x2 blocks that are all black."""
    return [(r, c) for r, c in black if {(r, c + 1), (r + 1, c), (r + 1, c + 1)} <= black]


class Nurikabe(GymEnv):
    """Nurikabe (logic puzzles). d: an n x n grid, n = d // 2 + 5; blacken cells so that the black
    cells are connected, no 2x2 block is all black, and the white cells form islands each holding
    exactly one number, equal to its number of cells. Planted: white cells on a lattice (rows and
    columns of one random parity each, so every 2x2 block has a white cell and the black cells
    form connected grid lines), then, in random order, black cells beside one island whitened to
    grow it, black cells between two islands of fewer than 7 cells together whitened to join
    them, and some black cells touching no white one whitened as new islands, each only while
    the black cells stay connected (whitening never makes a 2x2 black block); each island shows
    its size in a random cell."""

    name = "nurikabe"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 2 + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pr, pc = rng.randrange(2), rng.randrange(2)
        white = {(r, c) for r in range(n) for c in range(n) if r % 2 == pr and c % 2 == pc}
        black = {(r, c) for r in range(n) for c in range(n)} - white
        label = {cell: i for i, cell in enumerate(sorted(white))}  # island of each white cell
        members = {i: [cell] for cell, i in label.items()}
        for cell in rng.sample(sorted(black), len(black)):
            near = {label[x] for x in _neighbours(n, *cell) if x in label}
            if len(near) == 1 or (len(near) == 2 and sum(len(members[k]) for k in near) < 7):
                black.discard(cell)
                if not _connected(black):
                    black.add(cell)
                    continue
                keep, *rest = sorted(near)
                members[keep].append(cell)
                for k in rest:
                    members[keep] += members.pop(k)
                for x in members[keep]:
                    label[x] = keep
            elif not near and rng.random() < 0.3:
                black.discard(cell)
                if not _connected(black):
                    black.add(cell)
                    continue
                label[cell] = max(members) + 1
                members[label[cell]] = [cell]
        if not black:
            raise Retry
        clues = [[0] * n for _ in range(n)]
        for group in members.values():
            r, c = rng.choice(group)
            clues[r][c] = len(group)
        grid = [" ".join(str(v) if v else "." for v in row) for row in clues]
        return ({"clues": clues, "grid": grid},
                "\n".join("".join("1" if (r, c) in black else "0" for c in range(n)) for r in range(n)))

    def prompt(self, problem):
        n = len(problem["clues"])
        return ask(f"Nurikabe on a {n}x{n} grid ('.' an unnumbered cell):\n" + "\n".join(problem["grid"]) +
                   "\n\nBlacken some unnumbered cells so that all black cells are connected (through sides), no 2x2 "
                   "block is entirely black, and the white cells form islands (connected through sides) each of which "
                   "contains exactly one number, equal to the number of cells of that island.",
                   BITS_GRID.format(n=n, what="black"))

    def reward(self, problem, answer):
        clues = problem["clues"]
        n = len(clues)
        rows = char_grid(answer, n, n, "01")
        if rows is None:
            return -1.0
        black = {(r, c) for r in range(n) for c in range(n) if rows[r][c] == "1"}
        if _pools(black) or not _connected(black):
            return 0.0
        grid = [[1 if (r, c) in black else 0 for c in range(n)] for r in range(n)]
        for group in _pieces(grid):
            r, c = group[0]
            if grid[r][c]:
                continue
            nums = [clues[a][b] for a, b in group if clues[a][b]]
            if nums != [len(group)]:
                return 0.0
        return 1.0
