"""Bridges (Hashiwokakero), from Simon Tatham's Portable Puzzle Collection.

Game ID (Tatham's): ``WxHmB[L]:desc``. W and H are 3..64, B (1..4) is the most bridges that may
join one pair of islands, a trailing ``L`` forbids loops (Tatham's "allow loops" off). ``desc``
scans the grid row-major: ``1``-``9`` and ``A``-``G`` are islands numbered 1-16, ``a``-``z`` are
runs of 1-26 empty cells. Islands may not touch orthogonally (Tatham refuses such IDs too).

Solution grid: H strings of W characters. An island shows its number as in the game ID (1-9, A-G
for 10-16); water is ``.``; a bridge fills every cell between its two islands with ``-`` / ``=``
(one / two horizontal) or ``|`` / ``"`` (one / two vertical). Only when B > 2: ``t`` / ``q`` are
three / four horizontal bridges and ``T`` / ``Q`` three / four vertical ones.

Levels are Tatham's three, each defined by the deductions its solver may use (a puzzle of a level
is solved by them without guessing; like Tatham's generator, ours keeps a layout only if its level
solves it and, when it has more than 3 islands, the level below does not). Bridges are counted per
pair of mutually visible islands ("edge"), and a bridge always rules out every edge crossing it.

- easy: one island at a time. A full island takes no more bridges; an island whose edges can take
  (capped at what it still needs) exactly what it still needs gets all of it; an island numbered
  more than (number of usable edges - 1) * B gets at least one bridge on every usable edge.
- medium: + an edge carries at least the island's number minus the other edges' maxima (for B <= 2
  this is Tatham's "at least one bridge here, else the island cannot be completed"); with loops
  forbidden, no bridge between islands already connected.
- hard: + one step of lookahead on connectivity (Tatham's stage 3). Putting v bridges on an edge
  is refuted if both ends would then be full and close off a finished group short of all islands,
  or if an end, a neighbour of an end, or an island whose edge it crosses could no longer reach its
  number; the edge then carries at most v - 1. And if an island's other edges, all filled, would
  close off a finished group, its remaining empty edge carries at least one bridge.

grade() is the easiest level that solves a puzzle, None if every level needs guessing. solve()
runs the hard deductions and then depth-first search, so it answers any puzzle exactly.
"""
from __future__ import annotations

import random
import re
from math import floor
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import ClassVar

from envs.puzzles.grid import PuzzleEnv

LEVELS = ("easy", "medium", "hard")
MAX_SIDE = 64  # refuse absurd grids before allocating anything
MAX_BRIDGES = 4  # Tatham's limit on B
ISLAND_CHARS = "123456789ABCDEFG"  # island number n is ISLAND_CHARS[n - 1]
H_CHARS = "-=tq"  # k horizontal bridges: H_CHARS[k - 1]
V_CHARS = '|"TQ'
RUNS = " abcdefghijklmnopqrstuvwxyz"  # a run of k empty cells (1..26) is RUNS[k]
PARAMS = re.compile(r"([0-9]{1,6})x([0-9]{1,6})m([0-9]{1,6})(L?)")  # [0-9]: \d admits other scripts' digits
ISLAND_PCT, EXPANSION_PCT = 30, 10  # Tatham's defaults: islands on 30% of cells, 10% "expansion"
MAX_BAD_TRIES = 50  # Tatham's generator stops adding islands after this many failed tries in a row
WATER, LINE, ISLAND, EDGE = 0, 1, 2, 3  # cell kinds while laying out
DEAD_SLOTS = (None, None, None, (-1,) * 3, (-1,) * 4, None, (-1,) * 6)  # a dead step's 12 / m slots
MAX_LAYOUTS = 10_000  # some size/level pairs never occur (4x4 medium); a 7x7 medium takes ~30 layouts


@dataclass(frozen=True)
class Puzzle:
    width: int
    height: int
    maxb: int  # most bridges between one pair of islands
    islands: tuple[tuple[int, int, int], ...]  # (row, col, number), row-major
    loops: bool = True  # False: Tatham's "L" variant, the bridges must form a tree

    @cached_property
    def graph(self) -> Graph:
        return Graph(self)


class Graph:
    """The puzzle as the solver sees it: islands, and the edges between mutually visible islands.

    Solver state is two lists over edges, lo and hi: the fewest and most bridges still possible."""

    def __init__(self, p: Puzzle):
        w = p.width
        isl = sorted(p.islands)  # row-major, as decode and the generator give them
        m = len(isl)
        self.n = n = [k for _, _, k in isl]
        self.pos = [(r, c) for r, c, _ in isl]
        maxb = self.maxb = p.maxb
        self.loops = p.loops
        # Row-major order: an island's right neighbour is the next island if in the same row;
        # column-major order gives the one below.
        below = [-1] * m
        by_col = sorted([(c, r, i) for i, (r, c, _) in enumerate(isl)])
        for (c, _, i), (c2, _, j) in zip(by_col, by_col[1:]):
            if c == c2:
                below[i] = j
        ends: list[tuple[int, int]] = []
        cells: list[range] = []  # cell indices r * w + c the edge's bridges cover
        horizontal: list[bool] = []
        inc: list[list[int]] = [[] for _ in n]  # each island's edges, in edge order
        cross: list[list[int]] = []
        across = {}  # cell -> the horizontal edge over it
        for i, ((r, c, _), (r2, c2, _)) in enumerate(zip(isl, isl[1:] + [(-1, 0, 0)])):
            x = r * w + c
            if r2 == r:  # the next island is in this row (islands never touch: a cell between at least)
                e = len(ends)
                span = range(x + 1, r * w + c2)
                for y in span:
                    across[y] = e
                ends.append((i, i + 1))
                cells.append(span)
                horizontal.append(True)
                cross.append([])
                inc[i].append(e)
                inc[i + 1].append(e)
            j = below[i]
            if j >= 0:
                e = len(ends)
                ends.append((i, j))
                cells.append(range(x + w, isl[j][0] * w + c, w))
                horizontal.append(False)
                cross.append([])
                inc[i].append(e)
                inc[j].append(e)
        if across:
            for e, span in enumerate(cells):
                if not horizontal[e]:
                    for x in span:
                        f = across.get(x)
                        if f is not None:
                            cross[e].append(f)
                            cross[f].append(e)
        self.ends, self.cells, self.horizontal, self.inc, self.cross = ends, cells, horizontal, inc, cross
        self.cap = [maxb if maxb <= n[a] and maxb <= n[b] else n[a] if n[a] <= n[b] else n[b] for a, b in ends]

    def other(self, e: int, i: int) -> int:
        a, b = self.ends[e]
        return b if a == i else a

    def spans(self, live: list[int]) -> bool:
        """Do the edges with live[e] > 0 connect every island?"""
        seen, stack = {0}, [0]
        while stack:
            i = stack.pop()
            for e in self.inc[i]:
                if live[e]:
                    j = self.other(e, i)
                    if j not in seen:
                        seen.add(j)
                        stack.append(j)
        return len(seen) == len(self.n)

    def is_tree(self, vals: list[int]) -> bool:
        """Connected, and exactly one edge fewer than islands (the no-loops variant)."""
        return self.spans(vals) and sum(1 for v in vals if v) == len(self.n) - 1


# ------------------------------------------------------------------ deductions


def deduce(g: Graph, lo: list[int], hi: list[int], level: int, log: list | None = None) -> bool:
    """Narrow lo/hi in place with the deductions of `level` (0 easy, 1 medium, 2 hard) until none
    applies. False if the state is contradictory. `log` collects (kind, island, edge, value)."""
    n, inc, ends, cross = g.n, g.inc, g.ends, g.cross
    queue, queued = list(range(len(n) - 1, -1, -1)), [True] * len(n)

    def touch(e):
        for k in ends[e]:
            if not queued[k]:
                queued[k] = True
                queue.append(k)

    def raise_lo(e, v):
        if v > hi[e]:
            return False
        if lo[e] == 0:
            for f in cross[e]:
                if lo[f]:
                    return False
                if hi[f]:
                    hi[f] = 0
                    touch(f)
        lo[e] = v
        touch(e)
        return True

    maxb = g.maxb

    def local():
        while queue:
            i = queue.pop()
            queued[i] = False
            es = inc[i]
            need = n[i]
            for e in es:
                need -= lo[e]
            if need < 0:
                return False
            if need == 0:
                for e in es:
                    if hi[e] > lo[e]:
                        hi[e] = lo[e]
                        touch(e)
                continue
            spare = 0  # what the edges can still take, each capped at need
            for e in es:
                r = hi[e] - lo[e]
                spare += r if r < need else need
            if spare < need:
                return False
            if spare == need:  # (raising one edge of i never changes another edge of i: they do not cross)
                for e in es:
                    r = hi[e] - lo[e]
                    if r > need:
                        r = need
                    if r:
                        if log is not None:
                            log.append(("fill", i, e, lo[e] + r))
                        if not raise_lo(e, lo[e] + r):
                            return False
            elif level >= 1:
                avail = n[i]
                for e in es:
                    avail -= hi[e]
                for e in es:
                    least = avail + hi[e]
                    if least > lo[e]:
                        if log is not None:
                            log.append(("least", i, e, least))
                        if not raise_lo(e, least):
                            return False
            else:
                usable = -1
                for e in es:
                    if hi[e]:
                        usable += 1
                if n[i] > usable * maxb:
                    for e in es:
                        if hi[e] and not lo[e]:
                            if log is not None:
                                log.append(("least", i, e, 1))
                            if not raise_lo(e, 1):
                                return False
        return True

    start = 0
    while True:
        if not local():
            return False
        if level >= 1 and not g.loops and _no_loops(g, lo, hi, touch):
            continue
        if level < 2:
            return True
        used = [0] * len(n)  # bridges surely at each island
        for e, (a, b) in enumerate(ends):
            used[a] += lo[e]
            used[b] += lo[e]
        # The cheaper rule first (the fixpoint is the same either way), and each scan starts at the
        # island of the last find, so a pass resumes where it left off.
        order = [(start + k) % len(n) for k in range(len(n))]
        found = next(((i, f) for rule in (_must_bridge, _cap_bridge) for i in order
                      for f in (rule(g, lo, hi, used, i),) if f), None)
        if found is None:
            return True
        start, (kind, e, v) = found
        if log is not None:
            log.append((kind, start, e, v))
        if kind == "cap":
            hi[e] = v
            touch(e)
        elif not raise_lo(e, v):
            return False


def _no_loops(g: Graph, lo: list[int], hi: list[int], touch) -> bool:
    """Close every empty edge whose ends are already connected; True if any was closed."""
    comp = list(range(len(g.n)))

    def find(x):
        while comp[x] != x:
            comp[x] = comp[comp[x]]
            x = comp[x]
        return x

    for e, (a, b) in enumerate(g.ends):
        if lo[e]:
            comp[find(a)] = find(b)
    changed = False
    for e, (a, b) in enumerate(g.ends):
        if hi[e] and not lo[e] and find(a) == find(b):
            hi[e] = 0
            touch(e)
            changed = True
    return changed


def _cap_bridge(g: Graph, lo: list[int], hi: list[int], used: list[int], i: int):
    """Hard rule: ("cap", e, v) if edge e of island i can carry at most v (more is refuted)."""
    need = g.n[i] - used[i]
    for e in g.inc[i] if need > 0 else ():
        for v in range(lo[e] + 1, lo[e] + min(hi[e] - lo[e], need) + 1):
            if _refuted(g, lo, hi, used, i, e, v):
                return "cap", e, v - 1
    return None


def _must_bridge(g: Graph, lo: list[int], hi: list[int], used: list[int], i: int):
    """Hard rule: ("must", e, 1) if island i, filling all its other edges, would close off a group."""
    need = g.n[i] - used[i]
    for e in g.inc[i] if need > 0 else ():
        if lo[e] or hi[e] == 0:
            continue
        extra = {f: min(hi[f] - lo[f], need) for f in g.inc[i] if f != e and hi[f] > lo[f]}
        if used[i] + sum(extra.values()) == g.n[i] and _closed_off(g, lo, used, i, extra):
            return "must", e, 1
    return None


def _refuted(g: Graph, lo, hi, used, i: int, e: int, v: int) -> bool:
    """Would v bridges on edge e (from island i) make the position impossible at a glance?"""
    n, inc = g.n, g.inc
    j, d = g.other(e, i), v - lo[e]
    if used[i] + d == n[i] and used[j] + d == n[j] and _closed_off(g, lo, used, i, {e: d}):
        return True
    blocked = set(f for f in g.cross[e] if hi[f]) if lo[e] == 0 else set()
    check = {i, j}
    for k in (i, j):
        check.update(g.other(f, k) for f in inc[k])
    for f in blocked:
        check.update(g.ends[f])
    for k in check:
        missing = n[k] - used[k] - (d if k == i or k == j else 0)
        if missing < 0:
            return True
        if missing == 0:
            continue
        spare = 0
        for f in inc[k]:
            if f in blocked:
                continue
            room = hi[f] - lo[f] - (d if f == e else 0)
            if room > 0:
                o = g.other(f, k)
                free = n[o] - used[o] - (d if o == i or o == j else 0)
                if free > 0:
                    spare += room if room < free else free
        if spare < missing:
            return True
    return False


def _closed_off(g: Graph, lo, used, i: int, extra: dict) -> bool:
    """With `extra` bridges added on some edges, is island i's group finished (every island full)
    yet short of all islands?"""
    add = {}
    for f, d in extra.items():
        for k in g.ends[f]:
            add[k] = add.get(k, 0) + d
    seen, stack = {i}, [i]
    while stack:
        k = stack.pop()
        if used[k] + add.get(k, 0) != g.n[k]:
            return False
        for f in g.inc[k]:
            if lo[f] or f in extra:
                o = g.other(f, k)
                if o not in seen:
                    seen.add(o)
                    stack.append(o)
    return len(seen) < len(g.n)


def solved(g: Graph, lo: list[int], hi: list[int]) -> bool:
    """Every edge decided, and the result is a valid answer (deductions never check connectivity)."""
    return lo == hi and (g.spans(lo) if g.loops else g.is_tree(lo))


def search(g: Graph, limit: int) -> list[list[int]]:
    """Up to `limit` solutions (edge values): hard deductions, then depth-first search on the most
    constrained open edge. An explicit stack, so a big grid cannot exhaust Python's recursion."""
    out: list[list[int]] = []
    stack = [([0] * len(g.cap), list(g.cap))]
    while stack and len(out) < limit:
        lo, hi = stack.pop()
        if not deduce(g, lo, hi, 2) or not g.spans(hi):
            continue
        open_ = [e for e in range(len(lo)) if lo[e] < hi[e]]
        if not open_:
            if g.loops or g.is_tree(lo):
                out.append(lo)
            continue
        e = min(open_, key=lambda f: hi[f] - lo[f])  # no crossing edge is bridged, or hi[e] would be 0
        for v in range(lo[e], hi[e] + 1):  # pushed low to high: the most bridges is tried first
            lo2, hi2 = lo[:], hi[:]
            lo2[e] = hi2[e] = v
            if v:
                for f in g.cross[e]:
                    hi2[f] = 0
            stack.append((lo2, hi2))
    return out


# ------------------------------------------------------------------ generation


@lru_cache(maxsize=64)  # a pure function of the size, built in well under a millisecond
def _board(w: int, h: int) -> tuple[bytearray, list, list, list, list]:
    """The empty padded board of a w x h grid (stride w + 2, a border of EDGE cells, so walks need
    no bounds checks) and, per padded cell: its steps that stay inside the grid (order left, right,
    up, down), a mask of those steps that can never make a new island (the border is at most two
    steps away: at most one free cell, and an island there would touch this one), and which
    borders of the grid the cell lies on (bits 1 top, 2 bottom, 4 left, 8 right), and its 12 pick
    slots (see layout): slot x is step x * m // 12 of its m steps, -1 where that step is in the mask."""
    stride = w + 2
    kind = bytearray([EDGE]) * (stride * (h + 2))
    dirs: list = [()] * len(kind)
    static_dead = [0] * len(kind)
    border = [0] * len(kind)
    slots: list = [()] * len(kind)
    for r in range(h):
        for c in range(w):
            kind[(r + 1) * stride + c + 1] = WATER
    for r in range(h):
        for c in range(w):
            k = (r + 1) * stride + c + 1
            dirs[k] = tuple(d for d in (-1, 1, -stride, stride) if kind[k + d] != EDGE)
            static_dead[k] = sum(1 << i for i, d in enumerate(dirs[k]) if kind[k + 2 * d] == EDGE)
            border[k] = (r == 0) | (r == h - 1) << 1 | (c == 0) << 2 | (c == w - 1) << 3
            m = len(dirs[k])
            slots[k] = tuple(-1 if static_dead[k] >> (x * m // 12) & 1 else x * m // 12 for x in range(12))
    return kind, dirs, static_dead, border, slots


def layout(rng: random.Random, w: int, h: int, maxb: int) -> tuple[list[tuple[int, int]], dict]:
    """Tatham's layout algorithm (our code): grow islands from a random first one, each new island
    bridged to the one it grew from, now and then a bridge to an island already in line instead.
    Returns island positions and {(a, b): bridges}, retrying until every border has an island.

    His loop, try for try, with one draw where his takes two to choose a try's island and step. He
    picks island a uniformly of n, then step i uniformly of a's m steps (those of left, right, up,
    down that stay inside the grid): probability 1 / (n * m). Here each island owns 12 slots
    (12 is divisible by m = 2, 3, 4), slot x of island a stands for step x * m // 12, so each
    step has 12 / m slots, and one draw picks a slot uniformly of 12 * n: the same probability
    1 / (n * m) per (island, step), up to float rounding as in his own random_upto. Every other
    draw is his, so the layouts have his distribution (the draws differ, so a seed makes other
    layouts than his loop: tests/test_bridges.py pins the rest of the loop draw for draw against a
    transcription with this pick, and compares the distribution with his two-draw pick).

    The speed comes from bookkeeping too: a try whose step can never make an island or a bridge
    (it starts on a bridge or runs into the border or a bridge within two cells) draws nothing
    after its pick, so such steps are marked once ("dead", slot -1) and later tries on them cost
    one draw and a look-up."""
    want = max(w * h * ISLAND_PCT // 100, 3)
    empty, step_table, static_dead, border, slot_table = _board(w, h)
    stride = w + 2
    rand = rng.random  # floor(rand() * n) draws below n: several times faster than randrange, and
    # floor, not int(), as int() of a float costs three times the draw itself (CPython 3.11)
    while True:
        kind = empty[:]
        where = {}  # padded cell -> island index
        k = (1 + floor(rand() * h)) * stride + 1 + floor(rand() * w)
        kind[k], where[k] = ISLAND, 0
        cells = [k]
        dirs = [step_table[k]]  # per island, the steps that stay inside the grid
        slots = list(slot_table[k])  # 12 per island: the step each stands for, -1 once dead
        edges = border[k]
        bridges: dict[tuple[int, int], int] = {}
        bad, n, n12 = 0, 1, 12
        while n < want and bad <= MAX_BAD_TRIES:
            x = floor(rand() * n12)
            i = slots[x]
            if i < 0:
                bad += 1
                continue
            a = x // 12
            d = dirs[a][i]
            k0 = cells[a]
            k = k0 + d
            t = kind[k]
            while t == WATER:  # walk out to the border, a bridge or an island
                k += d
                t = kind[k]
            if t == ISLAND and rand() * 100 < EXPANSION_PCT:
                b = where[k]
            else:
                far = (k - k0) // d - (2 if t == ISLAND else 1)  # keep a gap before an island
                if far < 2:
                    if t != ISLAND:  # at most one free cell, where no island can ever go
                        u = 12 // len(dirs[a])
                        slots[12 * a + i * u:12 * a + i * u + u] = DEAD_SLOTS[u]
                    bad += 1
                    continue
                k = k0 + d * (far if rand() * 100 < EXPANSION_PCT else 2 + floor(rand() * (far - 1)))
                side = stride if d == 1 or d == -1 else 1
                if kind[k + side] == ISLAND or kind[k - side] == ISLAND:
                    bad += 1  # it would touch an island beside it
                    continue
                b = n
                kind[k], where[k] = ISLAND, n
                cells.append(k)
                dirs.append(step_table[k])
                slots += slot_table[k]
                edges |= border[k]
                n, n12, bad = n + 1, n12 + 12, 0
            for x in range(k0 + d, k, d):
                kind[x] = LINE
            # the bridge now starts both islands' steps along it: neither can ever grow there again
            u = 12 // len(dirs[a])
            slots[12 * a + i * u:12 * a + i * u + u] = DEAD_SLOTS[u]
            i = dirs[b].index(-d)
            u = 12 // len(dirs[b])
            slots[12 * b + i * u:12 * b + i * u + u] = DEAD_SLOTS[u]
            bridges[(a, b) if a < b else (b, a)] = 1 + floor(rand() * maxb)
        if n > 1 and edges == 15:
            return [((k // stride) - 1, (k % stride) - 1) for k in cells], bridges


# ------------------------------------------------------------------ the env


class Bridges(PuzzleEnv):
    name = "bridges"
    title = "Bridges"
    levels: ClassVar[tuple[str, ...]] = LEVELS
    ladder: ClassVar[tuple[tuple[int, int, str | None], ...]] = (
        (5, 5, "easy"), (7, 7, "easy"), (7, 7, "medium"), (7, 7, "hard"), (8, 8, "hard"), (10, 10, "hard"),
    )
    alphabet: ClassVar[str] = ISLAND_CHARS + "." + H_CHARS + V_CHARS
    rules: ClassVar[str] = """\
- The grid shows islands (numbers) in water ('.').
- Join islands with bridges. A bridge runs in a straight horizontal or vertical line from one island
  to another, covering every cell between them; it may not pass over an island.
- Bridges may not cross each other.
- The same two islands may be joined by several parallel bridges, up to the limit given with the
  puzzle (usually two).
- Each island's number is how many bridges end at it (a double bridge counts as two).
- The bridges must connect all islands into a single group."""
    answer_format: ClassVar[str] = """\
The whole grid, one row per line, one character per cell:
- an island: its number as shown in the puzzle (1-9; A-G stand for 10-16)
- '.': water with no bridge
- '-' one horizontal bridge, '=' two horizontal bridges
- '|' one vertical bridge, '"' two vertical bridges
- only where more than two bridges per pair are allowed: 't' / 'q' three / four horizontal
  bridges, 'T' / 'Q' three / four vertical bridges
Every cell a bridge passes through shows that bridge."""

    # ------------------------------------------------------------ codec

    def decode(self, game_id: str) -> Puzzle:
        if not isinstance(game_id, str):
            raise ValueError(f"game ID must be a string, not {type(game_id).__name__}")
        shown = game_id if len(game_id) <= 60 else game_id[:57] + "..."
        params, colon, desc = game_id.partition(":")
        if not colon:
            raise ValueError(f"game ID {shown!r} has no ':' between parameters and description")
        m = PARAMS.fullmatch(params)
        if not m:
            raise ValueError(f"game ID {shown!r}: parameters {params[:30]!r} are not WxHmB[L] (e.g. 7x7m2)")
        w, h, maxb = int(m[1]), int(m[2]), int(m[3])
        if not (3 <= w <= MAX_SIDE and 3 <= h <= MAX_SIDE):
            raise ValueError(f"game ID {shown!r}: size {w}x{h} is outside 3..{MAX_SIDE} per side")
        if not 1 <= maxb <= MAX_BRIDGES:
            raise ValueError(f"game ID {shown!r}: at most {maxb} bridges per pair is outside 1..{MAX_BRIDGES}")
        islands, cell = [], 0
        for k, ch in enumerate(desc):
            if cell >= w * h:
                raise ValueError(f"game ID {shown!r}: description is longer than {w}x{h} cells")
            if "a" <= ch <= "z":
                cell += ord(ch) - ord("a") + 1
            elif ch in ISLAND_CHARS:
                islands.append((cell // w, cell % w, ISLAND_CHARS.index(ch) + 1))
                cell += 1
            else:
                raise ValueError(f"game ID {shown!r}: unexpected character {ch!r} at description position {k}")
        if cell != w * h:
            raise ValueError(f"game ID {shown!r}: description covers {cell} cells, not {w}x{h} = {w * h}")
        if len(islands) < 2:
            raise ValueError(f"game ID {shown!r}: needs at least 2 islands, has {len(islands)}")
        at = {(r, c) for r, c, _ in islands}
        for r, c, _ in islands:
            if (r, c + 1) in at or (r + 1, c) in at:
                raise ValueError(f"game ID {shown!r}: islands at ({r}, {c}) and a neighbour touch")
        return Puzzle(w, h, maxb, tuple(islands), loops=not m[4])

    def encode(self, puzzle: Puzzle) -> str:
        w, h = puzzle.width, puzzle.height
        out, cell = [], 0
        for r, c, k in sorted(puzzle.islands):  # row-major: the gaps before islands are the runs
            gap = r * w + c - cell
            while gap > 26:
                out.append("z")
                gap -= 26
            if gap:
                out.append(RUNS[gap])
            out.append(ISLAND_CHARS[k - 1])
            cell = r * w + c + 1
        gap = w * h - cell
        while gap > 26:
            out.append("z")
            gap -= 26
        if gap:
            out.append(RUNS[gap])
        return f"{w}x{h}m{puzzle.maxb}{'' if puzzle.loops else 'L'}:" + "".join(out)

    # ------------------------------------------------------------ solving

    def solve(self, puzzle: Puzzle, max_solutions: int = 2) -> list[list[str]]:
        return [self._grid(puzzle, vals) for vals in search(puzzle.graph, max_solutions)]

    def grade(self, puzzle: Puzzle) -> str | None:
        g = puzzle.graph
        lo, hi = [0] * len(g.cap), list(g.cap)
        for level, name in enumerate(LEVELS):  # each level resumes from the last one's deductions
            if not deduce(g, lo, hi, level):
                return None
            if solved(g, lo, hi):
                return name
        return None

    def new_puzzle(self, rng: random.Random, width: int, height: int, level: str | None) -> tuple[Puzzle, list[str]]:
        level = level or LEVELS[0]
        if level not in LEVELS:
            raise ValueError(f"bridges: level {level!r} is not one of {list(LEVELS)}")
        if not (3 <= width <= MAX_SIDE and 3 <= height <= MAX_SIDE):
            raise ValueError(f"bridges: size {width}x{height} is outside 3..{MAX_SIDE} per side")
        target = LEVELS.index(level)
        for _ in range(MAX_LAYOUTS):
            pos, bridges = layout(rng, width, height, 2)
            n = [0] * len(pos)
            for (a, b), k in bridges.items():
                n[a] += k
                n[b] += k
            puzzle = Puzzle(width, height, 2, tuple(sorted([(r, c, k) for (r, c), k in zip(pos, n)])))
            g = puzzle.graph
            lo, hi = [0] * len(g.cap), list(g.cap)
            if target > 0 and len(pos) > 3:
                deduce(g, lo, hi, target - 1)
                if lo == hi:
                    continue  # too easy
            deduce(g, lo, hi, target)
            if lo == hi:  # deductions only: the layout is the one solution
                return puzzle, self._grid(puzzle, lo)
        raise ValueError(f"bridges: no {level} puzzle among {MAX_LAYOUTS} random {width}x{height} layouts; "
                         "try another size or level")

    @staticmethod
    def _grid(puzzle: Puzzle, vals: list[int] = ()) -> list[str]:
        """The board with vals[e] bridges on edge e (none by default)."""
        w = puzzle.width
        cells = ["."] * (w * puzzle.height)
        for r, c, k in puzzle.islands:
            cells[r * w + c] = ISLAND_CHARS[k - 1]
        if any(vals):
            g = puzzle.graph
            for e, v in enumerate(vals):
                if v:
                    ch = (H_CHARS if g.horizontal[e] else V_CHARS)[v - 1]
                    for x in g.cells[e]:
                        cells[x] = ch
        return ["".join(cells[x:x + w]) for x in range(0, len(cells), w)]

    # ------------------------------------------------------------ checking

    def is_solution(self, puzzle: Puzzle, grid: list[str]) -> bool:
        w, h, maxb = puzzle.width, puzzle.height, puzzle.maxb
        if not isinstance(grid, (list, tuple)) or len(grid) != h:
            return False
        if any(not isinstance(row, str) or len(row) != w for row in grid):
            return False
        index = {(r, c): i for i, (r, c, _) in enumerate(puzzle.islands)}
        water = "." + H_CHARS[:maxb] + V_CHARS[:maxb]
        for r, row in enumerate(grid):
            for c, ch in enumerate(row):
                i = index.get((r, c))
                if (ch != ISLAND_CHARS[puzzle.islands[i][2] - 1]) if i is not None else (ch not in water):
                    return False
        degree = [0] * len(index)
        pairs = []
        for lines, chars, at in ((grid, H_CHARS, lambda a, b: (a, b)),
                                 (["".join(col) for col in zip(*grid)], V_CHARS, lambda a, b: (b, a))):
            for a, line in enumerate(lines):  # a bridge is a run of one character between two islands
                b = 0
                while b < len(line):
                    ch = line[b]
                    if ch not in chars:
                        b += 1
                        continue
                    start = b
                    while b < len(line) and line[b] == ch:
                        b += 1
                    ends = (index.get(at(a, start - 1)) if start else None, index.get(at(a, b)))
                    if None in ends:
                        return False
                    k = chars.index(ch) + 1
                    degree[ends[0]] += k
                    degree[ends[1]] += k
                    pairs.append(ends)
        if degree != [k for _, _, k in puzzle.islands]:
            return False
        comp = list(range(len(degree)))

        def find(x):
            while comp[x] != x:
                comp[x] = comp[comp[x]]
                x = comp[x]
            return x

        for a, b in pairs:
            comp[find(a)] = find(b)
        if len({find(x) for x in comp}) != 1:
            return False
        return puzzle.loops or len(pairs) == len(degree) - 1

    # ------------------------------------------------------------ text

    def initial_board(self, puzzle: Puzzle) -> list[str]:
        return self._grid(puzzle)  # no graph needed: score() calls this for every response

    def describe(self, puzzle: Puzzle) -> str:
        listed = "; ".join(f"({r}, {c}) = {k}" + (f" (shown as {ISLAND_CHARS[k - 1]})" if k > 9 else "")
                           for r, c, k in puzzle.islands)
        limit = "one bridge" if puzzle.maxb == 1 else f"{puzzle.maxb} bridges"
        text = ("Grid (islands show their numbers, '.' is water):\n" + "\n".join(self.initial_board(puzzle))
                + f"\n\nIslands as (row, column) = number, {len(puzzle.islands)} in all:\n{listed}\n\n"
                + f"At most {limit} may join the same pair of islands.")
        if not puzzle.loops:
            text += " Loops are not allowed: the bridges must not form any closed circuit of islands."
        return text

    def explain(self, puzzle: Puzzle, solution: list[str], steps: int = 4) -> str:
        """The solver's first few deductions in words, plus its first lookahead one if it needed any."""
        g = puzzle.graph
        lo, hi, log = [0] * len(g.cap), list(g.cap), []
        deduce(g, lo, hi, 2, log)

        def at(i):
            return f"the {g.n[i]} at {g.pos[i]}"

        def say(kind, i, e, v):
            j, count = g.other(e, i), f"{v} bridge" + ("s" if v != 1 else "")
            if kind == "fill":
                return f"{at(i)} can only reach its number by using every bridge still open to it: {count} to {at(j)}."
            if kind == "least":
                return f"{at(i)} cannot reach its number without {at(j)}: at least {count} there."
            if kind == "cap":
                return (f"{v + 1} bridge{'s' if v else ''} between {at(i)} and {at(j)} would close off a finished "
                        f"group or leave an island short, so " + (f"at most {count}." if v else "none there."))
            return f"filling every other bridge of {at(i)} would close off a finished group, so it needs one to {at(j)}."

        lines = [say(*step) for step in log[:steps]] or ["No bridge is forced at the start."]
        later = next((step for step in log[steps:] if step[0] in ("cap", "must")), None)
        if later:
            lines.append("Later, looking one step ahead: " + say(*later))
        if solved(g, lo, hi):
            lines.append("...and the rest follows by the same kinds of deduction.")
        else:
            lines.append("...then deductions stall; trying the possible bridge counts on an open pair of islands "
                         "and discarding those that lead to a contradiction finishes the grid.")
        lines.append(f"All {len(g.n)} islands end up connected, each with exactly its number of bridges.")
        return "\n".join(line[0].upper() + line[1:] for line in lines)
