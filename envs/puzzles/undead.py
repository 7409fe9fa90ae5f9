"""Undead (Tatham's haunted mirror maze): game-ID codec, line-of-sight solver, generator, verifier.

Every non-mirror cell holds a ghost (G), vampire (V) or zombie (Z); the totals of each are given.
A number on the edge counts the monsters seen along the line of sight entering the grid there and
bouncing off mirrors: vampires only before the first mirror, ghosts only after it, zombies always;
a monster passed twice counts twice. Each line of sight has two ends, so two numbers.

Game IDs are Tatham's `WxH:G,V,Z,grid,numbers`: grid `L` = '\\', `R` = '/', `a`-`z` runs of 1-26
empty cells, `G`/`V`/`Z` a monster given in place; then the 2(W+H) edge numbers clockwise from
the top-left (top left-to-right, right top-to-bottom, bottom right-to-left, left bottom-to-top).

Solver. A domain is a bitmask of G=1, V=2, Z=4 per monster cell. The one deduction is "line of
sight": for one line, both of its numbers at once, drop from each of its cells every monster that
appears in no filling of the line giving both numbers without exceeding the monster totals still
left. It is computed exactly, for a line of up to 6 distinct cells from a table of all its 3**n
fillings shared by every line of the same shape (bitmasks over the fillings: those reaching each
pair of numbers, those putting each monster in each cell, those with at most k of a type; the
deduction ANDs a few of them, built once per shape in well under a millisecond), for a longer
line by a forward/backward pass over a bitset of reachable states (count seen from one end, count
seen from the other, and the number of each monster type placed, the latter only for types whose
remaining total could bind). Search (for uniqueness) adds the totals rule and guesses a cell on
the line with the fewest open cells.

Levels, as rated by Tatham's generator (undead.c), with a "sweep" being one pass of the line of
sight deduction over every line, lines with fewer distinct cells first:
    easy    sweeps from the empty board determine every cell within 3 sweeps;
    normal  sweeps determine every cell but need more than 3, or they stall with 1-3 cells still
            open and trying their values leaves one solution;
    tricky  sweeps stall with 4 or more cells open; the solution is still unique.
So each level is not solvable by the means of the level below. grade() reproduces the levels of
all 100 reference puzzles in the fixtures.

Generator: Tatham's random mirror layouts (with his per-level limit on line length). Easy
monsters are placed as his new_game_desc places them: for each line, shortest first, until at
most 2 cells are unset, a random one of the fillings that alone give their pair of numbers; then
random monsters; a fresh layout when the sweeps need more than 3 rounds (nearly every attempt
settles in one). Normal and tricky: random monsters, then local repair instead of starting over:
where two solutions differ, or where the sweeps get stuck on a puzzle that is too hard, new
monsters go in and only the numbers are recomputed (see _generate).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from envs.puzzles.grid import PuzzleEnv

MONSTERS = "GVZ"  # bit i of a domain = MONSTERS[i]
G, V, Z = 1, 2, 4
FULL = G | V | Z
MIRRORS = "\\/"
MAX_SIDE = 64
NAMES = {"G": "ghost", "V": "vampire", "Z": "zombie"}
LEVELS = ("easy", "normal", "tricky")
SWEEPS_EASY = 3  # Tatham: easy = solved by the line-of-sight sweeps within 3 rounds
OPEN_NORMAL = 3  # Tatham: normal may leave at most 3 cells open after the sweeps
TATHAM_MIN_SIDE, TATHAM_MAX_AREA = 3, 54  # undead.c validate_params: w, h >= 3 and w <= 54 / h


@dataclass(frozen=True)
class UndeadPuzzle:
    width: int
    height: int
    totals: tuple[int, ...]  # ghosts, vampires, zombies
    grid: tuple[str, ...]  # rows of '\\', '/', '.', or a monster fixed by the game ID
    clues: tuple[int, ...]  # 2(W+H) edge numbers clockwise from the top-left

    @cached_property
    def rated(self) -> tuple[_Maze, int, bool, list, list[int]]:
        """(solver data, sweeps run, consistent, their log, domains after them) from the empty
        board: what solving, rating and the gold reasoning read, computed once per puzzle. The
        generator hands over the ones it computed."""
        maze = _maze(self)
        dom, log = maze.start(), []
        sweeps, ok = _sweeps(maze, dom, log)
        return maze, sweeps, ok, log, dom


# ---------------------------------------------------------------- geometry


def edge_entry(k: int, w: int, h: int) -> tuple[int, int, int, int]:
    """(row, col) just outside the grid at edge number k and the direction into it."""
    if k < w:
        return -1, k, 1, 0
    if k < w + h:
        return k - w, w, 0, -1
    if k < 2 * w + h:
        return h, 2 * w + h - 1 - k, -1, 0
    return 2 * (w + h) - 1 - k, -1, 0, 1


def edge_name(k: int, w: int, h: int) -> str:
    r, c, _, _ = edge_entry(k, w, h)
    if r == -1:
        return f"top of column {c}"
    if c == w:
        return f"right of row {r}"
    if r == h:
        return f"bottom of column {c}"
    return f"left of row {r}"


def trace(rows, w: int, h: int, k: int) -> tuple[list[tuple[int, int, int]], int, int]:
    """Walk the line of sight from edge k: the monster cells passed, each with the number of
    mirrors before it, the edge where the line leaves, and the number of mirrors on the way.
    Anything that is not a mirror counts as a monster cell."""
    r, c, dr, dc = edge_entry(k, w, h)
    visits, mirrors = [], 0
    while True:
        r, c = r + dr, c + dc
        if not (0 <= r < h and 0 <= c < w):
            break
        ch = rows[r][c]
        if ch == "\\":
            dr, dc, mirrors = dc, dr, mirrors + 1
        elif ch == "/":
            dr, dc, mirrors = -dc, -dr, mirrors + 1
        else:
            visits.append((r, c, mirrors))
    if r == -1:
        end = c
    elif c == w:
        end = w + r
    elif r == h:
        end = 2 * w + h - 1 - c
    else:
        end = 2 * (w + h) - 1 - r
    return visits, end, mirrors


def sightings(rows, w: int, h: int, k: int) -> int:
    """The number seen from edge k on a filled board."""
    visits, _, _ = trace(rows, w, h, k)
    return sum(1 for r, c, before in visits if rows[r][c] == "Z" or rows[r][c] == ("G" if before else "V"))


# ---------------------------------------------------------------- solver


@dataclass(slots=True, eq=False)
class _Line:
    """One line of sight between edges a < b, prepared for the deduction.

    A state is a bit at index seen_from_a * side + seen_from_b (type counts, when needed, go above
    side**2); placing monster t in cell j shifts every state by shifts[j][t]. A line of up to
    TABLE_CELLS cells deduces from `table`, its fillings (shared by every line of the same shape,
    positions in reverse path order, as `rcells`); a longer one by the bitset pass, where
    options[j][d] lists the (t, shift) pairs allowed by domain d."""
    a: int
    b: int
    cells: tuple[int, ...]  # distinct monster cells, in path order
    shifts: tuple[tuple[int, int, int], ...]
    side: int
    rcells: tuple[int, ...]  # cells reversed
    table: _Fillings | None
    options: tuple | None


TABLE_CELLS = 6  # 3**6 = 729 fillings per shape: a table takes some 50 us to build
# filling j of a table line of n cells: DIGITS[n][j], its monsters as domain bits by position (the
# base-3 digits of j, lowest first); 1093 small tuples, shared by every shape
DIGITS = [[tuple(1 << j // 3 ** p % 3 for p in range(n)) for j in range(3 ** n)] for n in range(TABLE_CELLS + 1)]


class _Fillings:
    """Every filling of one line shape (its cells' shift triples, in reverse path order) as a bit:
    filling j puts monster (j // 3**p) % 3 at position p. Bitmasks over them: `by_dom[p][d]`, the
    fillings putting a monster of domain d at p; `at_most[t][k]`, those with at most k monsters
    of type t; `reach[state]`, those reaching a state; `singles`, the fillings alone in reaching
    their state, in order. The deduction ANDs a few of them."""
    __slots__ = ("by_dom", "at_most", "reach", "singles")

    def __init__(self, shifts: tuple[tuple[int, int, int], ...]):
        n = len(shifts)
        full = (1 << 3 ** n) - 1
        self.by_dom = []
        for p in range(n):
            b = 3 ** p  # a block of b fillings with each monster at p, every 3b
            g = ((1 << b) - 1) * (full // ((1 << 3 * b) - 1))
            v, z = g << b, g << 2 * b
            self.by_dom.append((0, g, v, g | v, z, g | z, v | z, full))
        # both built position by position: a mask over the first p positions' fillings, shifted
        # by m * 3**p, is the mask of those continued with monster m at p
        reach = {0: 1}
        exactly = [[1] + [0] * n for _ in range(3)]  # type, count -> fillings
        for p, shift in enumerate(shifts):
            b = 3 ** p
            nxt: dict[int, int] = {}
            for state, mask in reach.items():
                for m in range(3):
                    s = state + shift[m]
                    nxt[s] = nxt.get(s, 0) | mask << m * b
            reach = nxt
            for t in range(3):
                row = exactly[t]
                others = [x << b * ((t + 1) % 3) | x << b * ((t + 2) % 3) for x in row]
                exactly[t] = [others[0]] + [others[k] | row[k - 1] << b * t for k in range(1, n + 1)]
        self.reach = reach
        self.singles = sorted(mask for mask in reach.values() if not mask & (mask - 1))
        self.at_most = []
        for row in exactly:
            acc, out = 0, []
            for x in row:
                acc |= x
                out.append(acc)
            self.at_most.append(tuple(out))


@lru_cache(maxsize=None)  # one per board size
def _frame(w: int, h: int) -> tuple:
    """The board padded by a border of edge numbers, for tracing: (the padded cells with -3 - k at
    edge k, the padded index of each cell row by row, each edge's (padded index, step into the
    grid), the step after a '\\', after a '/')."""
    stride = w + 2
    cells = [0] * (stride * (h + 2))
    starts = []
    for k in range(2 * (w + h)):
        r, c, dr, dc = edge_entry(k, w, h)
        i = (r + 1) * stride + c + 1
        cells[i] = -3 - k
        starts.append((i, dr * stride + dc))
    inner = [(r + 1) * stride + c + 1 for r in range(h) for c in range(w)]
    back = {1: stride, stride: 1, -1: -stride, -stride: -1}  # '\': (dr, dc) -> (dc, dr)
    fwd = {1: -stride, -stride: 1, -1: stride, stride: -1}  # '/': (dr, dc) -> (-dc, -dr)
    return cells, inner, starts, back, fwd


def _trace_lines(flat: str, w: int, h: int, longest: int = 1 << 30) -> tuple[list, list] | None:
    """For the grid given row by row in one string: (the index in it of each monster cell, every
    line of sight once from its lower edge as (k, end, the monster cells passed, mirrors, cells
    passed before the first mirror, before the last)), monster cells numbered row by row; None if
    a line passes more than `longest` distinct cells."""
    padded, inner, starts, back, fwd = _frame(w, h)
    padded = padded[:]
    pos = []
    n = 0
    for idx, (i, ch) in enumerate(zip(inner, flat)):
        if ch == "\\":
            padded[i] = -1
        elif ch == "/":
            padded[i] = -2
        else:
            padded[i] = n
            n += 1
            pos.append(idx)
    done = [False] * len(starts)
    lines = []
    for k, (i, d) in enumerate(starts):
        if done[k]:
            continue
        visited = []
        mirrors = first = last = 0  # and the cells passed before the first mirror, the last one
        while True:
            i += d
            v = padded[i]
            if v >= 0:
                visited.append(v)
            elif v > -3:
                if not mirrors:
                    first = len(visited)
                last = len(visited)
                mirrors += 1
                d = back[d] if v == -1 else fwd[d]
            else:
                break
        end = -3 - v
        done[end] = True
        if len(visited) > longest and len(set(visited)) > longest:
            return None
        lines.append((k, end, visited, mirrors, first, last))
    return pos, lines


@lru_cache(maxsize=1 << 12)
def _run_shape(n: int, before: int, after: int) -> tuple:
    """_shape of a line passing n cells once each, `before` of them before its first mirror and
    `after` after its last (-1, -1: no mirror). A ghost counts from end a behind a mirror and from
    end b before the last one."""
    side = n + 1
    if before < 0:
        return _shape(side, (0,) * n, None)
    return _shape(side, (1,) * before + (side + 1,) * (n - before - after) + (side,) * after, None)


@lru_cache(maxsize=1 << 12)  # a table of 6 cells holds some 10 kB; ~1000 shapes cover the ladder
def _shape(side: int, ghosts: tuple[int, ...], visits: tuple[int, ...] | None) -> tuple:
    """(shift triples, fillings table or None, options or None) of a line of `side` - 1 visits
    whose distinct cells shift a ghost by `ghosts` and are visited `visits` times (None: once each).
    Vampires and zombies follow: each visit shifts one of a ghost or a vampire by one per end."""
    ns = visits or (1,) * len(ghosts)
    shifts = tuple((g, n * (side + 1) - g, n * (side + 1)) for g, n in zip(ghosts, ns))
    if len(shifts) <= TABLE_CELLS:
        return shifts, _Fillings(shifts[::-1]), None
    return shifts, None, tuple(map(_options, shifts))


class _Maze:
    """Solver data for one mirror layout: monster cells, lines of sight, lines through each cell,
    and (after set_numbers) the totals, each line's goal state and its table's fillings reaching
    it."""

    def __init__(self, grid: tuple[str, ...], w: int, h: int, traced: tuple[list, list] | None = None):
        flat = "".join(grid)
        at, paths = traced or _trace_lines(flat, w, h)
        self.width, self.grid, self.at = w, grid, at  # at: each monster cell's index in the grid, row by row
        # given monsters (from a game ID) start settled; a generated layout has none
        self.given = [1 << MONSTERS.index(flat[i]) if flat[i] in MONSTERS else FULL for i in at] \
            if len(at) != flat.count(".") else None
        lines = []
        for k, end, visited, mirrors, first, last in paths:
            n = len(visited)
            if not mirrors:
                shape = _run_shape(n, -1, -1)
                cells = tuple(visited)
            elif mirrors < 2 or len(set(visited)) == n:  # (a line crosses itself only past 2 mirrors)
                shape = _run_shape(n, first, n - last)
                cells = tuple(visited)
            else:  # the line crosses itself: add up each cell's visits
                side = n + 1
                merged: dict[int, list[int]] = {}
                for i, c in enumerate(visited):
                    merged.setdefault(c, [0, 0])
                    merged[c][0] += 1 if i < first else side if i >= last else side + 1  # as in _run_shape
                    merged[c][1] += 1
                cells = tuple(merged)
                shape = _shape(side, tuple(g for g, _ in merged.values()), tuple(n for _, n in merged.values()))
            # sorted by (distinct cells, k): Tatham's sweep order, fewest distinct cells first, ties by
            # the lower edge number (k is unique, so the rest of the tuple is never compared)
            lines.append((len(cells), k, end, cells, n + 1, shape))
        lines.sort()
        self.sizes = [line[0] for line in lines]
        lines_of: list[list[int]] = [[] for _ in at]
        for li, line in enumerate(lines):
            for c in line[3]:
                lines_of[c].append(li)
        self.lines = [_Line(k, end, cells, shape[0], side, cells[::-1], shape[1], shape[2])
                      for _, k, end, cells, side, shape in lines]
        self.lines_of = lines_of
        self.totals: tuple[int, ...] = (0, 0, 0)
        self.goals: list[int] = []
        self.reach: list[int] = []

    def set_goals(self, totals, goals: list[int]) -> None:
        """Totals and the goal state of each line (-1 when out of reach)."""
        self.totals = tuple(totals)
        self.goals = goals
        self.reach = [0 if ln.table is None or goal < 0 else ln.table.reach.get(goal, 0)
                      for ln, goal in zip(self.lines, goals)]

    def set_numbers(self, totals, clues) -> None:
        """Goal state per line: bit index of its two numbers, -1 when one is out of reach."""
        self.set_goals(totals, [clues[ln.a] * ln.side + clues[ln.b] if max(clues[ln.a], clues[ln.b]) < ln.side
                                else -1 for ln in self.lines])

    def states(self, dom: list[int]) -> list[int]:
        """Each line's state on a filled board given as one-monster domains (G, V, Z = 1, 2, 4)."""
        states = []
        for ln in self.lines:
            state = 0
            for c, shift in zip(ln.cells, ln.shifts):
                state += shift[dom[c] >> 1]  # G, V, Z = 1, 2, 4 -> 0, 1, 2
            states.append(state)
        return states

    def clues(self, states: list[int]) -> tuple[int, ...]:
        clues = [0] * (2 * len(self.lines))
        for ln, state in zip(self.lines, states):
            clues[ln.a], clues[ln.b] = divmod(state, ln.side)
        return tuple(clues)

    def numbers(self, dom: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(totals, edge numbers) of a filled board given as one-monster domains."""
        return (dom.count(G), dom.count(V), dom.count(Z)), self.clues(self.states(dom))

    @cached_property
    def pos(self) -> list[tuple[int, int]]:
        """(row, column) of each monster cell."""
        return [divmod(i, self.width) for i in self.at]

    def start(self) -> list[int]:
        return [FULL] * len(self.at) if self.given is None else self.given[:]

    def caps(self, dom: list[int]) -> list[int]:
        """How many more of each monster may be placed beyond the cells already settled."""
        g, v, z = self.totals
        return [g - dom.count(G), v - dom.count(V), z - dom.count(Z)]

    def board(self, dom: list[int]) -> list[str]:
        cells = list("".join(self.grid))
        for i, d in zip(self.at, dom):
            cells[i] = "?GV?Z"[d]  # G, V, Z = 1, 2, 4
        flat, w = "".join(cells), self.width
        return [flat[i:i + w] for i in range(0, len(flat), w)]


@lru_cache(maxsize=1 << 14)  # mazes of one size share most shift triples
def _options(sh: tuple[int, int, int]) -> tuple:
    """(monster, shift) pairs allowed by each domain 0..7."""
    g, v, z = (0, sh[0]), (1, sh[1]), (2, sh[2])
    return (), (g,), (v,), (g, v), (z,), (g, z), (v, z), (g, v, z)


def _maze(p: UndeadPuzzle) -> _Maze:
    maze = _Maze(p.grid, p.width, p.height)
    maze.set_numbers(p.totals, p.clues)
    return maze


# per domain, how many of each type it allows, packed 8 bits per type (open cells of a line add up)
_ALLOWS = tuple((d & 1) | (d >> 1 & 1) << 8 | (d >> 2 & 1) << 16 for d in range(8))


def _support(ln: _Line, goal: int, dom: list[int], caps: list[int]) -> list[tuple[int, int]] | None:
    """The line-of-sight deduction: for each open cell of the line, in reverse path order, (cell,
    the monsters that appear in some filling reaching the goal state within the caps); None if no
    filling does. From the line's table when it has one, else by the bitset pass."""
    if ln.table is None:
        return _support_pass(ln, goal, dom, caps)
    return _support_table(ln, ln.table.reach.get(goal, 0) if goal >= 0 else 0, dom, caps)


def _support_table(ln: _Line, compat: int, dom: list[int], caps: list[int]) -> list[tuple[int, int]] | None:
    """_support from the line's table, given its fillings that reach the goal: AND the masks of
    each cell's domain (and of the types that may run out), then a monster stays where some
    filling left puts it."""
    if not compat:
        return None
    by_dom, at_most = ln.table.by_dom, ln.table.at_most
    cells = ln.rcells
    ds = [dom[c] for c in cells]
    for row, d in zip(by_dom, ds):
        compat &= row[d]
    n = len(ds)
    g, v, z = caps
    if g < n or v < n or z < n:  # counted over the whole line, so each settled cell adds to its cap
        if g < 0 or v < 0 or z < 0:
            return None
        if g < n and g + ds.count(G) < n:
            compat &= at_most[0][g + ds.count(G)]
        if v < n and v + ds.count(V) < n:
            compat &= at_most[1][v + ds.count(V)]
        if z < n and z + ds.count(Z) < n:
            compat &= at_most[2][z + ds.count(Z)]
    if not compat:
        return None
    return [(c, (1 if compat & row[1] else 0) | (2 if compat & row[2] else 0) | (4 if compat & row[4] else 0))
            for c, row, d in zip(cells, by_dom, ds) if d & (d - 1)]


def _support_pass(ln: _Line, goal: int, dom: list[int], caps: list[int]) -> list[tuple[int, int]] | None:
    """_support by a forward/backward pass over a bitset of reachable states. Shifts add up, so
    settled cells only move the goal and the pass runs over open cells."""
    least = min(caps)
    if goal < 0 or least < 0:
        return None
    cells, row, allows = [], [], 0
    for c, opts in zip(ln.cells, ln.options or map(_options, ln.shifts)):  # (tables skip them)
        d = dom[c]
        if d & (d - 1):
            cells.append(c)
            row.append(opts[d])
            allows += _ALLOWS[d]
        else:
            goal -= opts[d][0][1]
    if goal < 0:
        return None
    n_open = len(cells)
    if not n_open:
        return [] if goal == 0 else None
    final = 1 << goal
    if least < n_open:  # a remaining total may bind: count the types that can run out
        extra, size = [0, 0, 0], ln.side * ln.side
        for t in range(3):
            if caps[t] < n_open and caps[t] < allows >> (8 * t) & 255:
                extra[t] = size
                for _ in range(caps[t]):  # accept any count 0..cap of this type
                    final |= final << size
                size *= n_open + 1
        if size > ln.side * ln.side:
            row = [[(t, s + extra[t]) for t, s in opts] for opts in row]
    keep = (1 << final.bit_length()) - 1  # states past the goal never come back
    states = []
    x = 1
    for opts in row:
        states.append(x)
        y = 0
        for _, s in opts:
            y |= x << s
        x = y & keep
    good = x & final
    if not good:
        return None
    support = []
    for i in range(n_open - 1, -1, -1):
        before, back, seen = states[i], 0, 0
        for t, s in row[i]:
            hit = (good >> s) & before
            if hit:
                seen |= 1 << t
                back |= hit
        support.append((cells[i], seen))
        good = back
    return support


def _sweeps(maze: _Maze, dom: list[int], log: list | None = None) -> tuple[int, bool]:
    """Tatham's iterative solver: sweeps of the line-of-sight deduction until nothing changes.
    Returns (sweeps run, consistent); dom is narrowed in place. log gets (line, cell, value).

    A line is skipped while none of its cells changed and no remaining total it could depend on
    (one under its number of open cells: a higher one cannot bind) dropped since it was last
    applied: applied again it would give the same answer and change nothing, so the sweeps, the
    log and the result are those of evaluating every line every sweep. The table deduction is
    _support_table, inlined: this loop is most of the generator's time."""
    depth = 0
    caps = maze.caps(dom)
    lines, goals, reach, lines_of = maze.lines, maze.goals, maze.reach, maze.lines_of
    # stale: a cell of the line changed since it was last applied (2: and every cell is still FULL)
    if dom.count(FULL) == len(dom):
        stale = [2] * len(lines)
    else:
        stale = [2 if all(dom[c] == FULL for c in ln.cells) else 1 for ln in lines]
    n_open = maze.sizes[:]  # per line, its open cells when it was last applied
    spent = [(0, 0, 0)] * len(lines)  # and the totals left then
    last = [-1] * len(lines)  # per table line, its fillings left then
    while True:
        changed = False
        for li, ln in enumerate(lines):
            if not stale[li]:
                k, (g0, v0, z0) = n_open[li], spent[li]
                g, v, z = caps
                if not (g < k and g < g0 or v < k and v < v0 or z < k and z < z0):
                    continue
            table = ln.table
            if table is None:
                support = _support_pass(ln, goals[li], dom, caps)
                if support is None:
                    return depth + 1, False
                news = [(c, dom[c] & s) for c, s in support if dom[c] & ~s]
                left = len(support)
            else:
                compat = reach[li]
                if not compat:
                    return depth + 1, False
                cells = ln.rcells
                n = len(cells)
                if stale[li] == 2:  # all open to every monster: nothing to AND, nothing settled
                    ds = [FULL] * n
                    ng = nv = nz = 0
                else:
                    ds = [dom[c] for c in cells]
                    for row, d in zip(table.by_dom, ds):
                        compat &= row[d]
                    ng = nv = nz = -1  # not counted yet
                g, v, z = caps
                if g < n or v < n or z < n:
                    if (g | v | z) < 0:  # some total exceeded
                        return depth + 1, False
                    if ng < 0:
                        ng, nv, nz = ds.count(G), ds.count(V), ds.count(Z)
                    if ng + nv + nz < n:  # (with every cell settled, no total can bind)
                        at_most = table.at_most
                        if g + ng < n:
                            compat &= at_most[0][g + ng]
                        if v + nv < n:
                            compat &= at_most[1][v + nv]
                        if z + nz < n:
                            compat &= at_most[2][z + nz]
                if not compat:
                    return depth + 1, False
                stale[li] = False
                if compat == last[li]:  # no filling dropped: every cell is already its support
                    spent[li] = tuple(caps)
                    continue
                last[li] = compat
                if not compat & (compat - 1):
                    # one filling left: its monsters are DIGITS; the same updates as the loop over
                    # `news` below, which this is most of the time
                    j = compat.bit_length() - 1
                    digits = DIGITS[n][j]
                    for c, d, s in zip(cells, ds, digits):
                        if s != d:
                            dom[c] = s
                            changed = True
                            for lj in lines_of[c]:
                                stale[lj] = True
                            caps[s >> 1] -= 1
                            if log is not None:
                                log.append((ln, c, s))
                    stale[li] = False
                    n_open[li] = 0
                    spent[li] = tuple(caps)
                    continue
                news, left = [], 0
                for c, row, d in zip(cells, table.by_dom, ds):
                    if d & (d - 1):
                        left += 1
                        s = ((1 if compat & row[1] else 0) | (2 if compat & row[2] else 0)
                             | (4 if compat & row[4] else 0))
                        if s != d:
                            news.append((c, s))
            for c, d in news:
                dom[c] = d
                changed = True
                for lj in lines_of[c]:
                    stale[lj] = True
                if not d & (d - 1):
                    left -= 1
                    caps[d >> 1] -= 1  # G, V, Z = 1, 2, 4 -> 0, 1, 2
                    if log is not None:
                        log.append((ln, c, d))
            # what the line itself changed cannot change its own answer (the deduction is exact:
            # every filling it kept is still allowed, and a settled cell's monster moves from the
            # open cells to the spent totals), so only other lines' changes make it stale
            stale[li] = False
            n_open[li] = left
            spent[li] = tuple(caps)
        depth += 1
        if not changed or dom.count(G) + dom.count(V) + dom.count(Z) == len(dom):  # all settled
            return depth, True


def _propagate(maze: _Maze, dom: list[int], queue: list[int]) -> bool:
    """Line-of-sight deductions on the queued lines and the totals rule, to a fixpoint."""
    lines, lines_of = maze.lines, maze.lines_of
    queued = [False] * len(lines)
    for li in queue:
        queued[li] = True
    caps = maze.caps(dom)
    while True:
        while queue:
            li = queue.pop()
            queued[li] = False
            ln = lines[li]
            if ln.table is None:
                support = _support_pass(ln, maze.goals[li], dom, caps)
            else:
                support = _support_table(ln, maze.reach[li], dom, caps)
            if support is None:
                return False
            for c, s in support:
                if dom[c] & ~s:
                    dom[c] &= s
                    if not dom[c] & (dom[c] - 1):
                        caps[dom[c].bit_length() - 1] -= 1
                    for lj in lines_of[c]:
                        if not queued[lj]:
                            queued[lj] = True
                            queue.append(lj)
        # totals rule: a type whose total is reached leaves the open cells; one that needs
        # every open cell that allows it fills them
        for t in range(3):
            bit = 1 << t
            possible = sum(1 for d in dom if d & bit)
            if caps[t] < 0 or possible < maze.totals[t]:
                return False
            if caps[t] == 0 or possible == maze.totals[t]:
                for c, d in enumerate(dom):
                    if d & bit and d != bit:
                        dom[c] = d & ~bit if caps[t] == 0 else bit
                        for lj in lines_of[c]:
                            if not queued[lj]:
                                queued[lj] = True
                                queue.append(lj)
                caps = maze.caps(dom)
        if not queue:
            return True


def _branch_cell(maze: _Maze, dom: list[int]) -> int:
    """Where to guess: an open cell on the line with the fewest open cells (the deduction closest
    to firing), two-way cells first; any open cell if none is on a line; -1 when all are settled.
    Guessing the first open cell instead costs ten times the nodes on mirror-poor boards."""
    best, fewest = -1, 1 << 30
    for ln in maze.lines:
        open_cells = [c for c in ln.cells if dom[c] & (dom[c] - 1)]
        if open_cells and len(open_cells) < fewest:
            fewest = len(open_cells)
            best = min(open_cells, key=lambda c: dom[c] == FULL)
    if best < 0:
        best = next((c for c, d in enumerate(dom) if d & (d - 1)), -1)
    return best


def _solutions(maze: _Maze, limit: int, dom: list[int] | None = None, budget: int = 1 << 62,
               recheck: bool = True) -> list[list[int]] | None:
    """Depth-first search for up to `limit` solutions (from dom, default the empty board); None
    when it needs more than `budget` nodes. recheck=False skips the first pass over every line,
    for domains the sweeps left stuck (so every line already agrees with them). An explicit
    stack: big boards would overflow Python's."""
    found: list[list[int]] = []
    stack = [(maze.start() if dom is None else list(dom), list(range(len(maze.lines))) if recheck else [])]
    while stack:
        budget -= 1
        if budget < 0:
            return None
        dom, queue = stack.pop()
        if not _propagate(maze, dom, queue):
            continue
        cell = _branch_cell(maze, dom)
        if cell < 0:
            found.append(dom)
            if len(found) >= limit:
                break
            continue
        for t in (2, 1, 0):  # pushed last = tried first: ghost, vampire, zombie
            if dom[cell] >> t & 1:
                child = list(dom)
                child[cell] = 1 << t
                stack.append((child, list(maze.lines_of[cell])))
    return found


def _level(sweeps: int, n_open: int) -> str:
    """Tatham's rating of a uniquely solvable puzzle from what the sweeps achieved."""
    if n_open == 0:
        return "easy" if sweeps <= SWEEPS_EASY else "normal"
    return "normal" if n_open <= OPEN_NORMAL else "tricky"


def _layout(rng: random.Random, w: int, h: int, level: str) -> _Maze:
    """Tatham's mirror layouts: each cell a mirror with chance 2/5, 48-78% monster cells, and no
    line of sight through more distinct cells than the level allows (long lines make hard puzzles)."""
    longest = {"easy": min(w, h) + 1, "normal": max(w, h) * 3 // 2, "tricky": 9}[level]
    getrandbits, cell, size = rng.getrandbits, "\\/...", w * h
    while True:
        drawn = []
        for _ in range(size):  # rng.randrange(5), inlined with the same draws (CPython's algorithm)
            x = getrandbits(3)
            while x >= 5:
                x = getrandbits(3)
            drawn.append(cell[x])
        flat = "".join(drawn)
        n = flat.count(".")
        if n <= 4 or not 0.48 <= n / size <= 0.78:
            continue
        traced = _trace_lines(flat, w, h, longest)
        if traced is not None:
            return _Maze(tuple([flat[i:i + w] for i in range(0, size, w)]), w, h, traced)


def _unique_views(ln: _Line, guess: list[int]) -> list:
    """Tatham's get_unique, its candidates: the fillings of the line, within the cells' current
    guesses and ignoring the totals, that are the only filling giving their pair of numbers, in
    his enumeration order (the first cell varies slowest, G before V before Z). From the table
    (filling j puts (j // 3**p) % 3 at position p, the cells reversed, so j counts in his
    order), each as the bit 1 << j; for a longer line, as monster indices in path order."""
    table = ln.table
    if table is not None:
        ds = [guess[c] for c in ln.rcells]
        if ds.count(FULL) == len(ds):
            return table.singles
        compat = -1
        for row, d in zip(table.by_dom, ds):
            compat &= row[d]
        return sorted([x for mask in table.reach.values() if (x := mask & compat) and not x & (x - 1)])
    # count the fillings reaching each state, up to 2, keeping the first one
    ways: dict[int, tuple[int, tuple[int, ...]]] = {0: (1, ())}
    for c, shift in zip(ln.cells, ln.shifts):
        nxt: dict[int, tuple[int, tuple[int, ...]]] = {}
        for state, (k, fill) in ways.items():
            for m in range(3):
                if guess[c] >> m & 1:
                    t = state + shift[m]
                    old = nxt.get(t)
                    nxt[t] = (k, fill + (m,)) if old is None else (min(2, old[0] + k), min(old[1], fill + (m,)))
        ways = nxt
    return sorted(fill for k, fill in ways.values() if k == 1)


def _tatham_board(maze: _Maze, rng: random.Random, monster, filling: int) -> list[int]:
    """Tatham's monsters (undead.c new_game_desc): for each line, shortest first, while more than
    `filling` cells are still unset, one filling of it chosen at random among those that are the
    only one giving their pair of numbers; then random monsters in the cells left."""
    guess = [FULL] * len(maze.at)
    unset = len(guess)
    getrandbits = rng.getrandbits
    for ln in maze.lines:
        if unset <= filling:
            break
        if not ln.cells:
            continue
        table = ln.table
        if table is None:
            singles = _unique_views(ln, guess)
        else:  # _unique_views, inlined
            ds = [guess[c] for c in ln.rcells]
            free = ds.count(FULL)
            if free == len(ds):
                singles = table.singles
            else:
                compat = -1
                for row, d in zip(table.by_dom, ds):
                    compat &= row[d]
                singles = sorted([x for mask in table.reach.values() if (x := mask & compat) and not x & (x - 1)])
        if not singles:
            continue
        n = len(singles)  # rng.randrange(n), inlined with the same draws (CPython's algorithm)
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        pick = singles[r]
        if table is None:
            for c, m in zip(ln.cells, pick):
                if guess[c] == FULL:
                    unset -= 1
                guess[c] = 1 << m
        else:  # (the filling agrees with the cells already set)
            unset -= free
            j = pick.bit_length() - 1
            for c in ln.rcells:
                guess[c] = 1 << j % 3
                j //= 3
    return [monster() if d == FULL else d for d in guess]


def _generate(rng: random.Random, w: int, h: int, level: str, repairs: int = 20,
              budget: int = 300) -> tuple[UndeadPuzzle, list[str]]:
    """Easy: Tatham's monsters (_tatham_board) on a random layout until the sweeps settle every
    cell within 3 rounds. Normal and tricky: random layout and monsters, then repair: where two
    solutions differ, or (if too hard) where the sweeps leave cells open, put new monsters and
    recompute the numbers, so each step keeps most of the board and only re-rates it. A layout
    whose check needs more than `budget` search nodes is dropped: such boards are rare and only
    slow the generator down."""
    want = LEVELS.index(level)
    getrandbits = rng.getrandbits

    def monster() -> int:  # rng.choice((G, V, Z)), inlined with the same draws
        x = getrandbits(2)
        while x == 3:
            x = getrandbits(2)
        return 1 << x

    while want == 0:  # easy: Tatham's own way, which rarely needs a second try
        maze = _layout(rng, w, h, level)
        board = _tatham_board(maze, rng, monster, 2)
        totals = (board.count(G), board.count(V), board.count(Z))
        if not _varied(totals, level):
            continue
        maze.set_goals(totals, maze.states(board))
        dom, log = maze.start(), []
        sweeps, ok = _sweeps(maze, dom, log)
        # every cell settled by sound deductions from the numbers of `board`: it is the one solution
        if dom == board and sweeps <= SWEEPS_EASY:
            puzzle = UndeadPuzzle(w, h, totals, maze.grid, maze.clues(maze.goals))
            puzzle.__dict__["rated"] = (maze, sweeps, ok, log, dom)  # what `rated` would compute
            return puzzle, maze.board(board)
    while True:
        maze = _layout(rng, w, h, level)
        board = [monster() for _ in maze.at]
        for _ in range(repairs):
            totals = (board.count(G), board.count(V), board.count(Z))
            maze.set_goals(totals, maze.states(board))
            dom, log = maze.start(), []
            sweeps, ok = _sweeps(maze, dom, log)
            open_cells = [i for i, d in enumerate(dom) if d & (d - 1)]
            if len(open_cells) <= (0 if want == 0 else OPEN_NORMAL) or want == 2:
                if open_cells:
                    found = _solutions(maze, 2, dom, budget, recheck=False)
                else:  # all settled by sound deductions from the numbers of `board`: it is the one
                    found = [dom] if dom == board else []
                if found is None:
                    break
                got = _level(sweeps, len(open_cells))
                if len(found) == 1 and got == level and _varied(totals, level):
                    puzzle = UndeadPuzzle(w, h, totals, maze.grid, maze.clues(maze.goals))
                    puzzle.__dict__["rated"] = (maze, sweeps, ok, log, dom)  # what `rated` would compute
                    return puzzle, maze.board(board)
                if len(found) > 1:
                    # one shared monster for every differing cell: two cells that could swap
                    # places cannot once they are the same
                    new = monster()
                    for i, (a, b) in enumerate(zip(*found)):
                        if a != b:
                            board[i] = new
                    continue
                if LEVELS.index(got) < want or not open_cells:
                    break  # too easy, or too many sweeps: start afresh
            for i in open_cells:  # too hard: new monsters where the sweeps got stuck
                board[i] = monster()


def _varied(totals: tuple[int, ...], level: str) -> bool:
    """Tatham discards puzzles with a single monster type, and tricky ones lacking a pair of each."""
    g, v, z = totals
    return (g > 0) + (v > 0) + (z > 0) >= 2 and (level != "tricky" or min(totals) >= 2)


# ---------------------------------------------------------------- game ID


def _number(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 4:
        raise ValueError(f"{what} {text[:20]!r} is not a number from 0 to 9999")
    return int(text)


def decode_id(game_id: str) -> UndeadPuzzle:
    if not isinstance(game_id, str):
        raise ValueError("undead game ID must be a string")
    params, sep, desc = game_id.partition(":")
    size = re.fullmatch(r"(\d{1,4})x(\d{1,4})", params)
    if not sep or not size:
        raise ValueError(f"undead game ID must look like 'WxH:G,V,Z,grid,edge numbers...', got {game_id[:40]!r}")
    w, h = int(size[1]), int(size[2])
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise ValueError(f"undead size {w}x{h} is out of range: width and height must be 1 to {MAX_SIDE}")
    n_fields = 2 * (w + h) + 4
    fields = desc.split(",", n_fields)
    if len(fields) != n_fields:
        raise ValueError(f"undead {w}x{h} description needs 3 monster totals, a grid and {2 * (w + h)} "
                         f"edge numbers separated by commas; got {'more' if len(fields) > n_fields else len(fields)}")
    totals = tuple(_number(f, "monster total") for f in fields[:3])
    cells: list[str] = []
    for ch in fields[3]:
        if ch == "L":
            cells.append("\\")
        elif ch == "R":
            cells.append("/")
        elif ch in MONSTERS:
            cells.append(ch)
        elif "a" <= ch <= "z":
            cells.extend("." * (ord(ch) - ord("a") + 1))
        else:
            raise ValueError(f"invalid character {ch!r} in undead grid description (expected L, R, G, V, Z or a-z)")
        if len(cells) > w * h:
            break
    if len(cells) > w * h:
        raise ValueError(f"undead grid description covers more than {w}x{h} = {w * h} cells")
    if len(cells) < w * h:
        raise ValueError(f"undead grid description covers {len(cells)} cells, expected {w}x{h} = {w * h}")
    n_monsters = sum(1 for ch in cells if ch not in MIRRORS)
    if sum(totals) != n_monsters:
        raise ValueError(f"undead monster totals {totals} add up to {sum(totals)}, but the grid has "
                         f"{n_monsters} non-mirror cells")
    clues = tuple(_number(f, "edge number") for f in fields[4:])
    grid = tuple("".join(cells[r * w:(r + 1) * w]) for r in range(h))
    return UndeadPuzzle(w, h, totals, grid, clues)


_RUNS = [("." * n, chr(ord("a") + n - 1)) for n in range(26, 0, -1)]  # Tatham's letter for a run of empty cells
_NUMBER_TEXT = tuple(map(str, range(256)))  # str() of the usual numbers, looked up


def encode_id(p: UndeadPuzzle) -> str:
    grid = "".join(p.grid)
    for dots, letter in _RUNS[26 - min(26, grid.count(".")):]:  # longest first: 27 empty cells are "za"
        grid = grid.replace(dots, letter)
    text = _NUMBER_TEXT
    totals = ",".join([text[n] if n < 256 else str(n) for n in p.totals])
    clues = ",".join([text[n] if n < 256 else str(n) for n in p.clues])
    grid = grid.replace("\\", "L").replace("/", "R")
    return f"{p.width}x{p.height}:{totals},{grid},{clues}"


# ---------------------------------------------------------------- the env


class Undead(PuzzleEnv):
    name = "undead"
    title = "Undead"
    levels = LEVELS
    # Within Tatham's limits (TATHAM_MAX_AREA), so every rung's game IDs open in his apps: the top
    # rung is 9x6 (54 cells; 8x8 is "Grid is too big" there).
    ladder = ((4, 4, "easy"), (5, 5, "easy"), (5, 5, "normal"), (5, 5, "tricky"), (6, 6, "normal"),
              (7, 7, "normal"), (7, 7, "tricky"), (9, 6, "tricky"))
    alphabet = "GVZ\\/"
    rules = """\
Every cell of the grid is either a mirror, '\\' or '/', which is given, or holds exactly one
monster: a ghost (G), a vampire (V) or a zombie (Z). The total number of each monster is given.
Each number outside the grid counts the monsters visible along the line of sight that starts at
that number and looks into the grid. The line goes straight and bounces off every mirror it meets
until it leaves the grid: a '\\' turns a line moving right to moving down, down to right, left to
up and up to left; a '/' turns right to up, up to right, left to down and down to left.
- A vampire is visible only directly: before the line has met its first mirror.
- A ghost is visible only in a mirror: after the line has met at least one mirror.
- A zombie is always visible.
A monster that the line passes twice is counted twice. Fill every cell that is not a mirror so
that every edge number and every monster total is right."""
    answer_format = """\
The whole grid, one line per row: each mirror copied as it is ('\\' or '/') and G, V or Z in every
other cell. No spaces, dots or other characters."""

    def decode(self, game_id: str) -> UndeadPuzzle:
        return decode_id(game_id)

    def encode(self, puzzle: UndeadPuzzle) -> str:
        return encode_id(puzzle)

    def solve(self, puzzle: UndeadPuzzle, max_solutions: int = 2) -> list[list[str]]:
        if max_solutions < 1:
            return []
        maze = puzzle.rated[0]
        return [maze.board(dom) for dom in _solutions(maze, max_solutions) or []]

    def new_puzzle(self, rng: random.Random, width: int, height: int,
                   level: str | None) -> tuple[UndeadPuzzle, list[str]]:
        level = level or "normal"  # Tatham's default
        if level not in LEVELS:
            raise ValueError(f"undead level must be one of {LEVELS}, got {level!r}")
        if not (3 <= width <= 10 and 3 <= height <= 10):
            raise ValueError(f"undead generates 3x3 to 10x10 grids, not {width}x{height}")
        return _generate(rng, width, height, level)

    def tatham_refusal(self, puzzle: UndeadPuzzle) -> str | None:
        w, h = puzzle.width, puzzle.height
        if w < TATHAM_MIN_SIDE or h < TATHAM_MIN_SIDE:
            return f"Tatham's Undead refuses {w}x{h}: width and height must be at least {TATHAM_MIN_SIDE}"
        if w > TATHAM_MAX_AREA // h:
            return f"Tatham's Undead refuses {w}x{h}: \"Grid is too big\" (at most {TATHAM_MAX_AREA} cells)"
        return None

    def grade(self, puzzle: UndeadPuzzle) -> str | None:
        maze, sweeps, ok, _, dom = puzzle.rated
        n_open = sum(1 for d in dom if d & (d - 1))
        found = _solutions(maze, 2, dom, recheck=not n_open) if ok else []
        if found is None or len(found) != 1:
            return None
        return _level(sweeps, n_open)

    def is_solution(self, puzzle: UndeadPuzzle, grid: list[str]) -> bool:
        w, h = puzzle.width, puzzle.height
        if not isinstance(grid, (list, tuple)) or len(grid) != h:
            return False
        if any(not isinstance(row, str) or len(row) != w for row in grid):
            return False
        for given_row, row in zip(puzzle.grid, grid):
            for given, got in zip(given_row, row):
                if given == "." and got not in MONSTERS or given != "." and got != given:
                    return False
        flat = "".join(grid)
        if tuple(flat.count(m) for m in MONSTERS) != puzzle.totals:
            return False
        return all(sightings(grid, w, h, k) == n for k, n in enumerate(puzzle.clues))

    def initial_board(self, puzzle: UndeadPuzzle) -> list[str]:
        return list(puzzle.grid)

    def describe(self, puzzle: UndeadPuzzle) -> str:
        w, h, clues = puzzle.width, puzzle.height, puzzle.clues
        top = clues[:w]
        right = clues[w:w + h]
        bottom = clues[w + h:2 * w + h][::-1]  # by column, left to right
        left = clues[2 * w + h:][::-1]  # by row, top to bottom
        cw = max(len(str(n)) for n in clues)  # column width: numbers may have two digits

        def cols(items) -> str:
            return " ".join(str(x).rjust(cw) for x in items)

        rows = [" " * (cw + 1) + cols(top)]
        rows += [f"{str(left[r]).rjust(cw)} {cols(puzzle.grid[r])} {right[r]}" for r in range(h)]
        rows.append(" " * (cw + 1) + cols(bottom))
        g, v, z = puzzle.totals
        out = [f"Monster totals: {g} ghosts (G), {v} vampires (V), {z} zombies (Z).", "",
               "The grid with its edge numbers ('.' = a cell to fill):", *rows, "",
               "Edge numbers, each counting what is seen looking into the grid from there:",
               f"- top, looking down, columns 0 to {w - 1}: {', '.join(map(str, top))}",
               f"- bottom, looking up, columns 0 to {w - 1}: {', '.join(map(str, bottom))}",
               f"- left, looking right, rows 0 to {h - 1}: {', '.join(map(str, left))}",
               f"- right, looking left, rows 0 to {h - 1}: {', '.join(map(str, right))}"]
        for ch, what in (("\\", "Mirrors '\\'"), ("/", "Mirrors '/'"), ("G", "Given ghosts"),
                         ("V", "Given vampires"), ("Z", "Given zombies")):
            cells = [f"({r}, {c})" for r in range(h) for c in range(w) if puzzle.grid[r][c] == ch]
            if cells or ch in MIRRORS:
                out.append(f"{what} at: {', '.join(cells) or 'none'}")
        return "\n".join(out)

    def explain(self, puzzle: UndeadPuzzle, solution: list[str]) -> str:
        maze, sweeps, _, log, dom = puzzle.rated
        w, h, clues = puzzle.width, puzzle.height, puzzle.clues
        steps: list[tuple[_Line, list[str]]] = []  # the first lines of sight that settled cells
        for ln, c, d in log:
            r, col = maze.pos[c]
            claim = f"a {NAMES[MONSTERS[d.bit_length() - 1]]} at ({r}, {col})"
            if steps and steps[-1][0] is ln:
                steps[-1][1].append(claim)
            elif len(steps) < 3:
                steps.append((ln, [claim]))
            else:
                break
        out = [f"The line of sight from the {edge_name(ln.a, w, h)} ({clues[ln.a]}) to the {edge_name(ln.b, w, h)} "
               f"({clues[ln.b]}) passes {len(ln.cells)} monster cell{'s' * (len(ln.cells) != 1)}; every filling "
               f"of it giving both numbers within the totals has {' and '.join(claims)}."
               for ln, claims in steps]
        open_cells = [maze.pos[i] for i, d in enumerate(dom) if d & (d - 1)]
        out.append(f"Repeating this over all lines of sight ({sweeps} round{'s' * (sweeps != 1)}) settles "
                   f"{len(maze.pos) - len(open_cells)} of the {len(maze.pos)} monster cells.")
        if open_cells:
            shown = ", ".join(f"({r}, {c}) = {solution[r][c]}" for r, c in open_cells[:6])
            out.append(f"The {len(open_cells)} cells left open are settled by trying their options: only "
                       f"{shown}{', ...' if len(open_cells) > 6 else ''} fits every number and total.")
        out.append("...and the rest follows.")
        return "\n".join(out)
