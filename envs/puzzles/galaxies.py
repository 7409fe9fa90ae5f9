"""Galaxies (Nikoli's Tentai Show, Tatham's "Galaxies"): game-ID codec, level-graded solver,
generator, rule checker and prompt text.

Rules: split the grid into regions, each containing exactly one dot, connected, and symmetric
under a 180-degree rotation about its dot. Dots sit at cell centres, edge midpoints or vertices;
every cell touching a dot belongs to that dot's region.

Coordinates. Tatham works on the doubled grid: cell (r, c) has centre (2r+1, 2c+1), so a point
(y, x) with 0 < y < 2H, 0 < x < 2W is a cell centre (both odd), an edge midpoint (one even) or a
vertex (both even). Game ID `WxH:desc` scans those interior points row by row: `a`-`y` skip 0-24
points then place a dot, `z` skips 25 (upper case `A`-`Y` are his picture generator's black dots,
kept only so such IDs round-trip). Dot i in scan order has label ALPHABET[i] in solutions.

Solver. Candidates are bitboards: cell (r, c) is bit r*(W+1)+c (the spare column stops shifts
from wrapping between rows) and P[k] holds the cells that may still belong to dot k. Mirroring
through a dot is "reverse the bits, then shift", so symmetry costs a string reversal, and
reachability is a flood fill by shifts.

Levels are defined by `_propagate`, which restates the deductions of Tatham's Normal solver in
candidate form and repeats them to a fixpoint:
  - a cell touching a dot belongs to it;
  - symmetry: a cell may belong to dot k only if its mirror image through k is on the grid and may
    belong to k, and a cell known to be k makes its mirror k;
  - reachability: a cell may belong to k only if it connects to k's dot through cells that may
    belong to k (his "expand dots"; it subsumes his "lines opposite" and "one possible dot");
    a cell with a single candidate is decided;
  - exclaves: cells known to be k but cut off from k's dot, with a single undecided neighbour,
    extend into it (as Tatham, any undecided neighbour counts, even one that cannot be k).
  normal        the deductions above solve the puzzle.
  unreasonable  unique, but the deductions stall, so case analysis (search) is needed. Tatham
                rejects puzzles needing recursion deeper than 5; we reject those needing more than
                MAX_SEARCH_NODES search states (none of his fixtures comes near).
This grades exactly as Tatham's own solver on all 100 fixtures and on 1500 puzzles fresh from his
generator (5x5, 7x7 and 10x10; normal and unreasonable).

Generator: Tatham's idea (re-implemented, with bitboards): visit the grid points in random order;
each unassigned cell or pair of cells either joins a neighbouring region (growing it
symmetrically, or moving its dot to the new centre of gravity) or, failing that, a new dot is put
there. Of 10 such layouts the most "wiggly" (most inward corners, counted as his
measure_wiggliness counts them) is kept; it becomes a puzzle if the graded solver gives it the
requested level, else we start again. Per-size tables (_geometry) are built once per size and
cached: 1 ms at 5x5, 7 ms at 10x10, 32 ms at 15x15.
"""
from __future__ import annotations

import functools
import itertools
import random
import string
from dataclasses import dataclass, field

from envs.puzzles.grid import PuzzleEnv

ALPHABET = string.ascii_uppercase + string.ascii_lowercase + string.digits
MIN_SIDE, MAX_SIDE = 3, 64  # Tatham refuses sides under 3; 64 keeps bitboards and prompts sane
# Layouts have about one dot per 4 cells, and only 62 labels exist: 15x15 (Tatham's largest preset,
# ~55 dots) is about the largest area the generator can still label
MAX_GENERATED_AREA = 225
MIN_UNREASONABLE_AREA = 25  # 1 layout in ~170 is unreasonable at 5x5, ~1 in 1000 at 4x4, none seen at 3x3
MAX_ATTEMPTS = 20_000  # a safety net: 7x7 unreasonable needs ~30 attempts, 5x5 ~170
# Search states before the solver gives up: generated 15x15 layouts need at most ~2000, but random
# sparse hand-made puzzles (say 20x20 with 30 dots) can need millions
MAX_SEARCH_NODES = 10_000
LAYOUT_TRIES = 10  # as Tatham: keep the wiggliest of 10 layouts (more inward corners, harder puzzles)
NORMAL, UNREASONABLE = "normal", "unreasonable"


@dataclass(frozen=True)
class GalaxiesPuzzle:
    width: int
    height: int
    dots: tuple[tuple[int, int], ...]  # (y, x) in doubled coordinates, in game-ID scan order
    black: frozenset[int] = field(default_factory=frozenset)  # indices of upper-case (black) dots


# ---------------------------------------------------------------- geometry and bitboards

@dataclass(frozen=True)
class _Geometry:
    width: int
    height: int
    stride: int  # bits per row: width + one spare column
    full: int  # every cell
    # interior point (y, x) -> (cells touching it, cells with an on-grid mirror image through it,
    # mirror shift: bit i maps to bit shift - i under the rotation about the point)
    points: dict[tuple[int, int], tuple[int, int, int]]
    # the same per point number p = (y - 1) * (2W - 1) + x - 1, for the generator's inner loop;
    # unmirrored: the cells without an on-grid mirror image; block: the cells a point grows a region
    # by (1 at a cell centre, 2 on an edge, 0 at a vertex, which never grows one);
    # touch_at / around_at: the bit numbers of the touching cells / of the cells next to them
    ys: tuple[int, ...]
    xs: tuple[int, ...]
    touch: tuple[int, ...]
    unmirrored: tuple[int, ...]
    shifts: tuple[int, ...]
    block: tuple[int, ...]
    touch_at: tuple[tuple[int, ...], ...]
    around_at: tuple[tuple[int, ...], ...]
    # for _wiggliness, one byte per cell bit: 0x7f in each byte, and per pair of neighbours at a
    # right angle the high bit of each cell's byte where both neighbours are on the grid
    low7: int
    wiggle_at: tuple[int, ...]

    def bit(self, r: int, c: int) -> int:
        return 1 << (r * self.stride + c)

    def cells(self, bits: int) -> list[tuple[int, int]]:
        out = []
        while bits:
            low = bits & -bits
            out.append(divmod(low.bit_length() - 1, self.stride))
            bits ^= low
        return out

    def neighbours(self, bits: int) -> int:
        s = self.stride
        return (bits << 1 | bits >> 1 | bits << s | bits >> s) & self.full & ~bits


@functools.lru_cache(maxsize=32)  # a pure function of the size: cached, not state
def _geometry(width: int, height: int) -> _Geometry:
    s = width + 1
    row_upto = [0]  # row_upto[r]: cells in rows < r
    for r in range(height):
        row_upto.append(row_upto[-1] | ((1 << width) - 1) << (r * s))
    col_upto = [0]  # col_upto[c]: cells in columns < c
    for c in range(width):
        col_upto.append(col_upto[-1] | sum(1 << (r * s + c) for r in range(height)))
    points = {}
    for y in range(1, 2 * height):
        rows = (y // 2,) if y % 2 else (y // 2 - 1, y // 2)
        row_mask = row_upto[min(height, y)] ^ row_upto[max(0, y - height)]
        for x in range(1, 2 * width):
            cols = (x // 2,) if x % 2 else (x // 2 - 1, x // 2)
            touching = sum(1 << (r * s + c) for r in rows for c in cols)
            mirrorable = row_mask & (col_upto[min(width, x)] ^ col_upto[max(0, x - width)])
            points[y, x] = (touching, mirrorable, (y - 1) * s + (x - 1))
    full = row_upto[-1]
    keys = list(points)  # row by row, so the index of (y, x) is (y - 1) * (2W - 1) + x - 1
    touch, mirrorable, shifts = (tuple(points[k][i] for k in keys) for i in range(3))
    around = ((t << 1 | t >> 1 | t << s | t >> s) & full & ~t for t in touch)
    block = tuple(0 if y % 2 == 0 and x % 2 == 0 else 2 - (y % 2 and x % 2) for y, x in keys)

    def at(bits: int) -> tuple[int, ...]:
        return tuple(i for i in range(bits.bit_length()) if bits >> i & 1)

    def spread(bits: int) -> int:  # cell bit i -> bit 7 of byte i
        return sum(0x80 << 8 * i for i in at(bits))

    # cells whose neighbour below / above / to the left / to the right is on the grid; as Tatham's
    # measure_wiggliness (`if (y+2 < state->sy)`), cells of the bottom row are not counted
    down, up, left, right = full >> s & full, full << s & full, full << 1 & full, full >> 1 & full
    counted = row_upto[height - 1]
    wiggle_at = tuple(spread(counted & a & b) for a, b in ((down, left), (up, right), (right, down), (left, up)))
    return _Geometry(width, height, s, full, points, tuple(y for y, _ in keys), tuple(x for _, x in keys),
                     touch, tuple(full & ~m for m in mirrorable), shifts, block, tuple(map(at, touch)),
                     tuple(map(at, around)), int.from_bytes(b"\x7f" * (s * height), "little"), wiggle_at)


_REVERSED = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))  # each byte with its bits reversed


def _mirror(bits: int, shift: int) -> int:
    """Rotate a set of cells by 180 degrees; the cells must have on-grid mirror images."""
    n = (bits.bit_length() + 7) >> 3
    top = 8 * n - 1
    rev = int.from_bytes(bits.to_bytes(n, "big").translate(_REVERSED), "little")  # bit i -> bit top - i
    return rev << (shift - top) if shift >= top else rev >> (top - shift)


def _flood(seed: int, allowed: int, s: int) -> int:
    """Cells of `allowed` connected to `seed` (which must lie inside `allowed`)."""
    f = seed
    while True:
        g = (f | f << 1 | f >> 1 | f << s | f >> s) & allowed
        if g == f:
            return f
        f = g


# ---------------------------------------------------------------- solver

@dataclass(frozen=True)
class _Board:
    """What propagation needs about one puzzle: per dot, its touching cells and mirror shift."""
    geo: _Geometry
    seeds: tuple[int, ...]
    shifts: tuple[int, ...]
    start: tuple[int, ...]  # initial candidates per dot


def _board(p: GalaxiesPuzzle) -> _Board:
    g = _geometry(p.width, p.height)
    seeds, mirrorable, shifts = zip(*(g.points[dot] for dot in p.dots))
    taken = sum(seeds)  # seeds are disjoint (decode checks)
    start = tuple(m & ~(taken ^ seed) for m, seed in zip(mirrorable, seeds))
    return _Board(g, seeds, shifts, start)


def _propagate(P: list[int], bd: _Board, dirty, log: list | None = None) -> int | None:
    """Apply the level deductions (module docstring) to P in place until nothing changes.

    `dirty`: dots whose candidates changed since they were last made symmetric and connected.
    Returns the mask of decided cells, or None on a contradiction. With `log`, appends
    (kind, dot, cells, cause) for each batch of decided cells, in order."""
    g, seeds, shifts = bd.geo, bd.seeds, bd.shifts
    s, full, n = g.stride, g.full, len(P)
    claimed = known = 0  # claimed: cells whose decision was logged by the rule that made it
    while True:
        for k in dirty:
            p = P[k]
            p &= _mirror(p, shifts[k])
            if seeds[k] & ~p:
                return None
            P[k] = _flood(seeds[k], p, s)
        dirty = set()
        once = twice = 0
        for p in P:
            twice |= once & p
            once |= p
        if once != full:
            return None
        single = once & ~twice
        new, known = single & ~known, single
        if log is not None:
            for k in range(n):
                if P[k] & new & ~claimed:
                    log.append(("only", k, P[k] & new & ~claimed, 0))
        if single == full:
            return single
        # a decided cell decides its mirror image too
        for k in range(n):
            d = P[k] & new
            if d:
                claim = _mirror(d, shifts[k]) & ~single
                if claim:
                    for j in range(n):
                        if j != k and P[j] & claim:
                            P[j] &= ~claim
                            dirty.add(j)
                    if log is not None:
                        log.append(("mirror", k, claim, d))
                        claimed |= claim
        if dirty:
            continue
        for k in range(n):
            mine = P[k] & single
            rest = mine & ~_flood(seeds[k], mine, s)
            while rest:
                part = _flood(rest & -rest, rest, s)
                rest &= ~part
                free = g.neighbours(part) & ~single  # as Tatham: every undecided neighbour counts
                if free and not free & (free - 1):  # exactly one way out
                    for j in range(n):
                        if j != k and P[j] & free:
                            P[j] &= ~free
                            dirty.add(j)
                    if log is not None and not free & claimed:
                        log.append(("exclave", k, free, part))
                        claimed |= free
        if not dirty:
            return single


def _counts(P: list[int]) -> tuple[int, int, int]:
    """Cells with at least one, two and three candidates."""
    once = twice = thrice = 0
    for p in P:
        thrice |= twice & p
        twice |= once & p
        once |= p
    return once, twice, thrice


def _branch_cell(P: list[int]) -> int:
    """An undecided cell with the fewest candidates (lowest bit of those)."""
    _, twice, thrice = _counts(P)
    pool = twice & ~thrice or twice
    return pool & -pool


class SolverGaveUp(ValueError):
    """The search ran out of its node budget (only seen on large, sparse, hand-made puzzles)."""


def _solutions(P: list[int], bd: _Board, dirty, limit: int) -> list[list[int]]:
    """Up to `limit` solutions below state P (as complete candidate lists): propagate, then branch
    on a cell with the fewest candidates. Raises SolverGaveUp after MAX_SEARCH_NODES states."""
    out: list[list[int]] = []
    nodes = 0

    def visit(P: list[int], dirty) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > MAX_SEARCH_NODES:
            raise SolverGaveUp(f"galaxies: search gave up after {MAX_SEARCH_NODES} states")
        single = _propagate(P, bd, dirty)
        if single is None:
            return
        if single == bd.geo.full:
            out.append(P)
            return
        cell = _branch_cell(P)
        for k in range(len(P)):
            if P[k] & cell:
                Q = P[:]
                changed = [j for j in range(len(Q)) if j != k and Q[j] & cell]
                for j in changed:
                    Q[j] &= ~cell
                visit(Q, changed)
                if len(out) >= limit:
                    return

    visit(P, dirty)
    return out


def _grid(P: list[int], g: _Geometry) -> list[str]:
    rows = [["?"] * g.width for _ in range(g.height)]
    for k, p in enumerate(P):
        for r, c in g.cells(p):
            rows[r][c] = ALPHABET[k]
    return ["".join(row) for row in rows]


# ---------------------------------------------------------------- generator

_BITS = tuple((k + 1).bit_length() for k in range(8))  # random.shuffle's draw sizes for index k


def _layout(rng: random.Random, g: _Geometry) -> tuple[list[int], list[int], list[int]]:
    """One random valid partition: (dot point per region, cells per region, region per cell).

    Points are numbered row by row (p = (y - 1) * (2W - 1) + x - 1), so the mirror image of
    point p through point d is 2d - p. Regions are numbered 1, 2, ... as they are made and keep
    their number when their dot moves; owner[i] is the region of the cell at bit i (0: none yet).
    Region numbers stay under 256 (at most one region per cell, MAX_GENERATED_AREA cells)."""
    maxsz = int((g.width * g.height) ** 0.5) * 2  # Tatham's cap on the size of a region that grows
    ys, xs, touch, unmirrored, shifts = g.ys, g.xs, g.touch, g.unmirrored, g.shifts
    block, touch_at, around_at = g.block, g.touch_at, g.around_at
    row = 2 * g.width - 1
    owner = [0] * (g.stride * g.height)
    dot, cells_of = [0], [0]  # per region number (0 is no region)
    assigned = 0
    getrandbits = rng.getrandbits
    # a shuffle at C speed: one random() per point, sorted by it (as sorted(points, key=random))
    keys = list(itertools.starmap(rng.random, itertools.repeat((), len(ys))))
    order = sorted(range(len(ys)), key=keys.__getitem__)

    i = -1
    for p in order:  # plain loops: the interpreter's specialised bytecode beats iterator chains here
        i += 1
        t = touch[p]
        if t & assigned:
            continue  # taken cells neither join a region again nor get a dot
        nb = block[p]
        if nb:  # vertices only ever get dots: growing by 2x2 blocks makes big regions
            # the regions owning the cells around, in cell order, a region twice if it owns two
            around = []
            for c in around_at[p]:
                r = owner[c]
                if r:
                    around.append(r)
            k = len(around) - 1
            while k > 0:  # rng.shuffle(around) inlined, the same draws (CPython's algorithm)
                bits = _BITS[k]
                j = getrandbits(bits)
                while j > k:
                    j = getrandbits(bits)
                around[k], around[j] = around[j], around[k]
                k -= 1
            for r in around:
                region = cells_of[r]
                n = region.bit_count()
                if n >= maxsz:
                    continue
                # grow the region by the block and its mirror image (the block of the mirrored point)
                d = dot[r]
                if not t & unmirrored[d]:
                    q = 2 * d - p
                    tq = touch[q]
                    if not tq & assigned:
                        cells_of[r] = region | t | tq
                        assigned |= t | tq
                        for c in touch_at[p]:
                            owner[c] = r
                        for c in touch_at[q]:
                            owner[c] = r
                        break
                # else move the dot to the centre of gravity of region + block, if that is a grid
                # point; a region is symmetric about its dot, so its coordinates sum to size times
                # the dot's
                m = n + nb
                cy = ys[d] * n + ys[p] * nb
                if cy % m:
                    continue
                cx = xs[d] * n + xs[p] * nb
                if cx % m:
                    continue
                q = (cy // m - 1) * row + cx // m - 1
                union = region | t
                if union & unmirrored[q]:
                    continue
                cells = union | _mirror(union, shifts[q])
                # Tatham does not check that the new dot's own cells are in the region; we do. Then
                # the region is connected: union is (the block touches the region), so is its
                # mirror image, and the dot's cells (connected) meet both
                if cells & assigned & ~region or touch[q] & ~cells:
                    continue
                dot[r], cells_of[r] = q, cells
                new = cells & ~region
                assigned |= new
                while new:
                    low = new & -new
                    owner[low.bit_length() - 1] = r
                    new ^= low
                break
            else:
                if nb == 2 and i & 1:
                    continue  # as Tatham: edges get half the chances of a dot
                for c in touch_at[p]:
                    owner[c] = len(dot)
                dot.append(p)
                cells_of.append(t)
                assigned |= t
            continue
        for c in touch_at[p]:  # a vertex: a new dot
            owner[c] = len(dot)
        dot.append(p)
        cells_of.append(t)
        assigned |= t
    return dot[1:], cells_of[1:], owner


def _wiggliness(owner: list[int], g: _Geometry) -> int:
    """Inward corners: a cell whose two neighbours at a right angle lie in one region that the
    cell is not in. All cells at once: the region numbers as bytes of one integer, shifted by a
    neighbour's offset and compared bytewise (a byte of x ^ y is zero where they agree)."""
    o = int.from_bytes(bytes(owner), "little")
    low, s8 = g.low7, 8 * g.stride
    total = 0
    for (a, b), valid in zip(((o >> s8, o << 8), (o << s8, o >> 8), (o >> 8, o >> s8), (o << 8, o << s8)),
                             g.wiggle_at):
        x, y = a ^ o, a ^ b  # a byte's high bit after ((v & low) + low | v) says v != 0 there
        total += (((x & low) + low | x) & valid & ~((y & low) + low | y)).bit_count()
    return total


# ---------------------------------------------------------------- the env

class Galaxies(PuzzleEnv):
    name = "galaxies"
    title = "Galaxies"
    levels = (NORMAL, UNREASONABLE)
    # never easier from one rung to the next: size grows, and unreasonable follows normal at 7x7
    ladder = ((5, 5, NORMAL), (6, 6, NORMAL), (7, 7, NORMAL), (7, 7, UNREASONABLE),
              (8, 8, UNREASONABLE), (9, 9, UNREASONABLE), (10, 10, UNREASONABLE))
    alphabet = ALPHABET
    rules = """
Divide the grid into regions ("galaxies") so that:
- every cell belongs to exactly one region and every region contains exactly one dot;
- every region is connected (its cells are joined through shared edges, not just corners);
- every region is symmetric under a 180-degree rotation about its dot: the mirror image through
  the dot of each of its cells is also in the region. For a dot touching rows a to b and columns
  c to d (a = b if it touches a single row, c = d if a single column), the mirror image of cell
  (r, col) is (a + b - r, c + d - col);
- a dot sits at the centre of a cell, on the midpoint of the edge between two cells, or on the
  vertex where four cells meet, and every cell it touches belongs to its region.
"""
    answer_format = """
One line per grid row, one character per cell: the label of the region containing the cell.
Labels are single characters from A-Z, a-z, 0-9. Using each dot's letter (listed above) for its
region is simplest, but any labels are accepted as long as the cells of one region share a label
and different regions have different labels.
"""

    # ------------------------------------------------------------ codec

    def decode(self, game_id: str) -> GalaxiesPuzzle:
        if not isinstance(game_id, str):
            raise ValueError("a game ID must be a string")
        params, colon, desc = game_id.partition(":")
        ws, x, hs = params.partition("x")
        if not colon or not x:
            raise ValueError(f"game ID {game_id[:40]!r} is not of the form WxH:dots")
        if not all(v.isascii() and v.isdigit() for v in (ws, hs)):
            raise ValueError(f"size {params[:40]!r} is not WxH with whole numbers, e.g. 7x7")
        if ws[0] == "0" or hs[0] == "0":
            raise ValueError(f"size {params[:40]!r} has a leading zero")
        if not all(len(v) <= 3 and MIN_SIDE <= int(v) <= MAX_SIDE for v in (ws, hs)):
            raise ValueError(f"size {params[:40]}: width and height must be {MIN_SIDE} to {MAX_SIDE}")
        w, h = int(ws), int(hs)
        cols, npoints = 2 * w - 1, (2 * w - 1) * (2 * h - 1)
        dots, black, i = [], set(), 0
        for ch in desc:
            if ch == "z":
                i += 25
                if i >= npoints:
                    raise ValueError(f"the dots run past the end of the {w}x{h} grid")
                continue
            if "a" <= ch <= "y":
                i += ord(ch) - ord("a")
            elif "A" <= ch <= "Y":
                i += ord(ch) - ord("A")
                black.add(len(dots))
            else:
                raise ValueError(f"invalid character {ch!r} in the dots (expected a-z or A-Y)")
            if i >= npoints:
                raise ValueError(f"a dot lies past the end of the {w}x{h} grid")
            dots.append((i // cols + 1, i % cols + 1))
            i += 1
        if desc.endswith("z"):
            raise ValueError("the dots end with 'z', a skip with no dot after it")
        if not dots:
            raise ValueError("the puzzle has no dots")
        if len(dots) > len(ALPHABET):
            raise ValueError(f"{len(dots)} dots: at most {len(ALPHABET)} can be labelled A-Z a-z 0-9")
        g = _geometry(w, h)
        taken = 0
        for k, (y, x) in enumerate(dots):
            seed = g.points[y, x][0]
            if seed & taken:
                r, c = g.cells(seed & taken)[0]
                raise ValueError(f"dots too close together: dot {ALPHABET[k]} and an earlier dot both touch "
                                 f"cell ({r}, {c})")
            taken |= seed
        return GalaxiesPuzzle(w, h, tuple(dots), frozenset(black))

    def encode(self, puzzle: GalaxiesPuzzle) -> str:
        cols = 2 * puzzle.width - 1
        out, prev = [], -1
        for k, (y, x) in enumerate(puzzle.dots):
            i = (y - 1) * cols + (x - 1)
            run = i - prev - 1
            out.append("z" * (run // 25) + chr(ord("A" if k in puzzle.black else "a") + run % 25))
            prev = i
        return f"{puzzle.width}x{puzzle.height}:" + "".join(out)

    # ------------------------------------------------------------ solving

    def solve(self, puzzle: GalaxiesPuzzle, max_solutions: int = 2) -> list[list[str]]:
        """Raises SolverGaveUp (a ValueError) if the search needs more than MAX_SEARCH_NODES states."""
        if max_solutions < 1:
            return []
        bd = _board(puzzle)
        return [_grid(P, bd.geo) for P in _solutions(list(bd.start), bd, range(len(bd.start)), max_solutions)]

    def grade(self, puzzle: GalaxiesPuzzle) -> str | None:
        """normal / unreasonable (module docstring); None if not uniquely solvable."""
        bd = _board(puzzle)
        P = list(bd.start)
        single = _propagate(P, bd, range(len(P)))
        if single is None:
            return None
        if single == bd.geo.full:
            return NORMAL
        try:
            return UNREASONABLE if len(_solutions(P, bd, (), 2)) == 1 else None
        except SolverGaveUp:
            return None

    def new_puzzle(self, rng: random.Random, width: int, height: int,
                   level: str | None) -> tuple[GalaxiesPuzzle, list[str]]:
        level = level or NORMAL
        sides_ok = MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE
        if not sides_ok or width * height > MAX_GENERATED_AREA:
            raise ValueError(f"galaxies: cannot generate {width}x{height}; sides must be {MIN_SIDE} to "
                             f"{MAX_SIDE} and the area at most {MAX_GENERATED_AREA} cells (62 labels for dots)")
        if level not in self.levels:
            raise ValueError(f"galaxies: level {level!r} is not one of {list(self.levels)}")
        if level == UNREASONABLE and width * height < MIN_UNREASONABLE_AREA:
            raise ValueError(f"galaxies: {width}x{height} is too small for unreasonable puzzles (area under "
                             f"{MIN_UNREASONABLE_AREA}: almost none need case analysis)")
        g = _geometry(width, height)
        for _ in range(MAX_ATTEMPTS):
            best, score = None, -1
            for _ in range(LAYOUT_TRIES):
                dots, _, owner = _layout(rng, g)
                wiggles = _wiggliness(owner, g)
                if len(dots) > 1 and wiggles > score:
                    best, score = dots, wiggles
            if best is None or len(best) > len(ALPHABET):
                continue
            puzzle = GalaxiesPuzzle(width, height, tuple((g.ys[p], g.xs[p]) for p in sorted(best)))
            bd = _board(puzzle)
            P = list(bd.start)
            single = _propagate(P, bd, range(len(P)))
            if single is None:
                continue  # cannot happen for a valid layout; be safe rather than loop on it
            if level == NORMAL:
                if single == g.full:
                    return puzzle, _grid(P, g)
                continue
            if single == g.full:
                continue  # too easy
            try:
                out = _solutions(P, bd, (), 2)
            except SolverGaveUp:
                continue  # like Tatham's recursion cap: too deep a search is not a fair puzzle
            if len(out) == 1:
                return puzzle, _grid(out[0], g)
        raise ValueError(f"galaxies: no {width}x{height} {level} puzzle found in {MAX_ATTEMPTS} attempts")

    # ------------------------------------------------------------ checking

    def is_solution(self, puzzle: GalaxiesPuzzle, grid: list[str]) -> bool:
        return self.violation(puzzle, grid) is None

    def violation(self, puzzle: GalaxiesPuzzle, grid: list[str]) -> str | None:
        """The first rule the board breaks, in words, or None if it satisfies them all. Any
        characters serve as labels: one label class is one region."""
        w, h = puzzle.width, puzzle.height
        if len(grid) != h or any(len(row) != w for row in grid):
            return f"the board is not {h} rows of {w} cells"
        home = {}  # label -> (dot, one of its cells)
        for k, (y, x) in enumerate(puzzle.dots):
            rows = (y // 2,) if y % 2 else (y // 2 - 1, y // 2)
            cols = (x // 2,) if x % 2 else (x // 2 - 1, x // 2)
            labels = {grid[r][c] for r in rows for c in cols}
            if len(labels) != 1:
                return f"the cells touching dot {ALPHABET[k]} are in different regions"
            label = labels.pop()
            if label in home:
                return f"region {label!r} contains two dots"
            home[label] = (y, x, rows[0], cols[0])
        cells: dict[str, list[tuple[int, int]]] = {}
        for r, row in enumerate(grid):
            for c, ch in enumerate(row):
                cells.setdefault(ch, []).append((r, c))
        for label in cells.keys() - home.keys():
            return f"region {label!r} contains no dot"
        for label, members in cells.items():
            y, x, r0, c0 = home[label]
            for r, c in members:
                mr, mc = y - 1 - r, x - 1 - c
                if not (0 <= mr < h and 0 <= mc < w) or grid[mr][mc] != label:
                    return f"region {label!r} is not symmetric about its dot: ({r}, {c}) has no mirror cell"
            seen, stack = {(r0, c0)}, [(r0, c0)]
            while stack:
                r, c = stack.pop()
                for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= nr < h and 0 <= nc < w and (nr, nc) not in seen and grid[nr][nc] == label:
                        seen.add((nr, nc))
                        stack.append((nr, nc))
            if len(seen) != len(members):
                return f"region {label!r} is not connected"
        return None

    def cell_matches(self, puzzle: GalaxiesPuzzle, grid: list[str], solution: list[str]) -> list[list[bool]]:
        """Labels are free, so answer labels are matched to solution labels one-to-one, greedily by
        the number of cells they share (most first; ties by label order). A cell matches when its
        label maps to the solution's label there. Cells outside the alphabet ('.') never match."""
        overlap: dict[tuple[str, str], int] = {}
        for grow, srow in zip(grid, solution):
            for a, b in zip(grow, srow):
                if a in ALPHABET:
                    overlap[a, b] = overlap.get((a, b), 0) + 1
        mapping, used = {}, set()
        for (a, b), _ in sorted(overlap.items(), key=lambda item: (-item[1], item[0])):
            if a not in mapping and b not in used:
                mapping[a] = b
                used.add(b)
        return [[mapping.get(a) == b for a, b in zip(grow, srow)] for grow, srow in zip(grid, solution)]

    # ------------------------------------------------------------ text

    def initial_board(self, puzzle: GalaxiesPuzzle) -> list[str]:
        return ["." * puzzle.width] * puzzle.height

    def describe(self, puzzle: GalaxiesPuzzle) -> str:
        w, h = puzzle.width, puzzle.height
        border, cells, gap = "+" + "-" * (2 * w - 1) + "+", " ".join("." * w), " " * (2 * w - 1)
        pic = [list(border)] + [list(f"|{cells if y % 2 else gap}|") for y in range(1, 2 * h)] + [list(border)]
        lines = []
        for k, (y, x) in enumerate(puzzle.dots):
            pic[y][x] = ALPHABET[k]
            lines.append(f"dot {ALPHABET[k]}: {_where(y, x)}")
        return (
            f"The board as a picture of {2 * h + 1} lines of {2 * w + 1} characters: '.' is a cell centre, "
            "and a letter is a dot drawn where it sits (in place of a '.' at a cell centre, between two '.' "
            "on the edge they share, or in a blank row between four cells on their shared vertex).\n\n"
            + "\n".join("".join(row) for row in pic)
            + f"\n\n{len(puzzle.dots)} dots (coordinates are (row, column)):\n" + "\n".join(lines)
        )

    def explain(self, puzzle: GalaxiesPuzzle, solution: list[str]) -> str:
        bd = _board(puzzle)
        g = bd.geo
        P, log = list(bd.start), []
        single = _propagate(P, bd, range(len(P)), log=log)

        def fmt(bits: int) -> str:
            return ", ".join(f"({r}, {c})" for r, c in g.cells(bits))

        steps = ["Every cell touching a dot belongs to that dot's region."]
        seeds = sum(bd.seeds)
        for kind, k, cells, cause in log:
            cells &= ~seeds
            if len(steps) > 4 or not cells:
                continue
            label, plural = ALPHABET[k], "s" * bool(cells & (cells - 1))
            if kind == "only":
                steps.append(f"Cell{plural} {fmt(cells)} can only be {label}: every other dot is cut off "
                             "from there or has no free mirror cell for it.")
            elif kind == "mirror":
                verb = "are" if plural else "is"
                source = fmt(_mirror(cells, bd.shifts[k]))
                steps.append(f"{source} {verb} {label}, so the mirror image{plural} through dot {label}, "
                             f"{fmt(cells)}, {verb} too.")
            else:
                steps.append(f"The {label} cells {fmt(cause)} are cut off from dot {label} except through "
                             f"{fmt(cells)}, which must therefore be {label}.")
        if single is not None and single != g.full:
            cell = _branch_cell(P)
            (r, c), = g.cells(cell)
            options = [ALPHABET[k] for k in range(len(P)) if P[k] & cell]
            steps.append(f"More deductions like these follow until they stall. Cell ({r}, {c}) could then be "
                         f"{' or '.join(options)}; trying each, only {solution[r][c]} leads to a solution.")
        steps.append("...and the rest follows in the same way.")
        return "\n".join(steps)


def _where(y: int, x: int) -> str:
    """A dot's position in words, from its doubled coordinates."""
    r, c = y // 2, x // 2
    if y % 2 and x % 2:
        return f"centre of cell ({r}, {c})"
    if y % 2:
        return f"on the edge between cells ({r}, {c - 1}) and ({r}, {c}) (row {r}, columns {c - 1}-{c})"
    if x % 2:
        return f"on the edge between cells ({r - 1}, {c}) and ({r}, {c}) (rows {r - 1}-{r}, column {c})"
    return (f"on the vertex between rows {r - 1}-{r} and columns {c - 1}-{c} "
            f"(touching cells ({r - 1}, {c - 1}), ({r - 1}, {c}), ({r}, {c - 1}), ({r}, {c}))")
