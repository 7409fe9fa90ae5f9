"""Pattern (nonograms) from Simon Tatham's collection: fill cells so every row and column shows
its clue, the lengths of its runs of filled cells in order.

Game ID (Tatham's format): `WxH:` then the W column clues (left to right) and the H row clues (top
to bottom), `/`-separated; the runs of one clue are `.`-separated; an empty line has an empty clue.
Example `3x2:1/1/2/1.1/2` (rows `#.#`, `.##`). Tatham's optional `,...` suffix of pre-filled cells
is not supported.

Solver: a complete line solver (every cell that all placements of a line's runs agree on, given what
is already known) run to a fixpoint, incrementally (a line is re-solved only after one of its
cells changed) and memoised on (clue, length, known cells); then depth-first search on an
undecided cell when the lines stall, probing every undecided cell both ways at each node.

Generator (Tatham's algorithm, reimplemented): uniform noise smoothed by one pass of a 3x3 mean
filter (not across a dimension of 2), thresholded at the median so about half the cells are
filled; grids with an all-filled or all-empty row or column (in a dimension over 2) are redrawn,
and so is any grid the line solver alone cannot finish. So every generated puzzle is guaranteed
solvable one line at a time, without guessing, which also proves its solution unique.
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from functools import cached_property, lru_cache, reduce
from operator import and_, or_

import numpy as np

from envs.puzzles.grid import PuzzleEnv

MAX_SIDE = 64
FILLED, EMPTY = "#", "."
EXPLAIN_STEPS = 4  # line deductions spelled out in the gold reasoning


@dataclass(frozen=True)
class PatternPuzzle:
    width: int
    height: int
    cols: tuple[tuple[int, ...], ...]  # runs top to bottom, one clue per column
    rows: tuple[tuple[int, ...], ...]  # runs left to right, one clue per row

    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        """The solver's lines: rows 0..H-1, then columns H..H+W-1."""
        return self.rows + self.cols

    @cached_property
    def lengths(self) -> tuple[int, ...]:
        return (self.width,) * self.height + (self.height,) * self.width

    @cached_property
    def placements(self) -> tuple:
        """Per line, _placements(clue, length): the starting candidates of _propagate."""
        return tuple(_placements(clue, n) for clue, n in zip(self.lines, self.lengths))

    @cached_property
    def line_solved(self) -> tuple[bool, tuple]:
        """(do line deductions alone solve it, their trace): computed once, for the generator's
        check and the gold reasoning."""
        trace: list = []
        return _line_solve(self, trace), tuple(trace)


def runs_of(line: str) -> tuple[int, ...]:
    return tuple(len(run) for run in line.split(EMPTY) if run)


# ------------------------------------------------------------------ line solver
#
# A line of n cells is a pair of bitmasks (known filled, known empty); bit i is cell i. For the
# dynamic programme it is framed by one virtual empty cell on each side: cell j of the frame is
# line cell j-1, and "position" q is the boundary before frame cell q (0..n+2).


def _reverse_bits(x: int, nbits: int) -> int:
    return int(format(x, f"0{nbits}b")[::-1], 2)


def _prefix_states(clue: tuple[int, ...], can_fill: int, can_empty: int, top: int) -> tuple[list[int], list[int]]:
    """reach[g]: positions q such that frame cells 0..q-1 can hold the first g runs, each followed
    by an empty cell (so cell q-1 is empty). fits[g]: starts where run g fits, followed by an
    empty cell."""
    # Blockers: positions whose cell cannot be empty, plus a sentinel above the frame. Subtracting
    # a seed from the blockers borrows from the next blocker up, so (blockers - seed) ^ blockers
    # sets every position from the seed to that blocker: all positions reachable by stepping over
    # emptiable cells, in a few int ops. A second seed in the same stretch only clears its own
    # bit, and a seed on a blocker must not borrow at all, so seeds are OR-ed back afterwards.
    blockers = (~can_empty & ((1 << top) - 1)) | (1 << top)
    free = ~blockers
    r = ((blockers - (1 & free)) ^ blockers) | 1
    reach, fits = [r], []
    for length in clue:
        # starts p where cells p..p+length-1 may all be filled: shift-and by doubling
        fit, have = can_fill, 1
        while have * 2 <= length:
            fit &= fit >> have
            have *= 2
        if length > have:
            fit &= fit >> (length - have)
        fit &= can_empty >> length
        seeds = (r & fit) << (length + 1)
        r = ((blockers - (seeds & free)) ^ blockers) | seeds
        reach.append(r)
        fits.append(fit)
    return reach, fits


@lru_cache(maxsize=1 << 16)  # a pure function; the cache only saves time (the generator re-asks)
def solve_line(clue: tuple[int, ...], n: int, filled: int, empty: int) -> tuple[int, int] | None:
    """(filled, empty) masks of every cell forced by the clue given the known cells, or None if no
    placement of the runs agrees with them. Complete: a cell stays unknown only if some valid
    placement fills it and another leaves it empty."""
    full = (1 << n) - 1
    top = n + 2
    frame_ends = 1 | (1 << (n + 1))
    reach, fits = _prefix_states(clue, (full & ~empty) << 1, ((full & ~filled) << 1) | frame_ends, top)
    if not reach[-1] >> top & 1:
        return None
    # The suffix states are the prefix states of the mirrored line; all k+1 of them are mirrored
    # back at once by reversing their concatenation (which also reverses their order).
    back, _ = _prefix_states(clue[::-1], _reverse_bits(full & ~empty, n) << 1,
                             (_reverse_bits(full & ~filled, n) << 1) | frame_ends, top)
    k, width = len(clue), top + 1
    packed = 0
    for b in reversed(back):
        packed = packed << width | b
    # suffix g (the low `width` bits of `packed` after g steps) bit e: frame cell e is empty and
    # cells e..n+1 can hold runs g..k-1
    packed = _reverse_bits(packed, (k + 1) * width)
    low = (1 << width) - 1
    # A cell can be empty where it closes a prefix holding runs 0..g-1 and opens a suffix
    # holding runs g..k-1; a cell can be filled where it lies in a run g that fits between such
    # a prefix and suffix.
    can_empty = can_fill = 0
    for g, length in enumerate(clue):
        can_empty |= (reach[g] >> 1) & packed
        packed >>= width
        starts = reach[g] & fits[g] & ((packed & low) >> length)
        have = 1  # the cells of every such run: smear the starts over `length` cells by doubling
        while have * 2 <= length:
            starts |= starts << have
            have *= 2
        if length > have:
            starts |= starts << (length - have)
        can_fill |= starts
    can_empty |= (reach[k] >> 1) & packed
    return full & ~(can_empty >> 1), full & ~(can_fill >> 1)


PLACEMENT_LIMIT = 512  # a line with more placements than this is solved by solve_line instead


@lru_cache(maxsize=1 << 14)  # the generator meets the same clues again and again
def _placements(clue: tuple[int, ...], n: int) -> tuple[tuple[int, ...], int, int] | None:
    """(every placement of the clue's runs in n cells as a mask of filled cells, the cells filled
    in all of them, the cells filled in any), or None when there are more than PLACEMENT_LIMIT.
    Filtering such a list by the known cells is a complete line solver too, and on the short
    lines of the ladder's sizes several times faster than solve_line's dynamic programme."""
    k = len(clue)
    slack = n - sum(clue) - max(k - 1, 0)
    if slack < 0:
        return (), (1 << n) - 1, 0
    if math.comb(slack + k, k) > PLACEMENT_LIMIT:
        return None
    partial = [(0, 0)]  # (mask of the runs placed so far, first cell the next run may use)
    for g, length in enumerate(clue):
        last = n - length - (sum(clue[g + 1:]) + k - g - 1)  # leave room for the later runs
        block = (1 << length) - 1
        partial = [(m | block << s, s + length + 1) for m, lo in partial for s in range(lo, last + 1)]
    masks = tuple(m for m, _ in partial)
    return masks, reduce(and_, masks), reduce(or_, masks)


# ------------------------------------------------------------------ whole-grid propagation
#
# Lines 0..H-1 are the rows (bit c = column c), lines H..H+W-1 the columns (bit r = row r).
# known_f / known_e hold each line's known filled / empty masks; both views of a cell are kept
# in step.


def _propagate(puzzle: PatternPuzzle, known_f: list[int], known_e: list[int], cands: list, dirty: int,
               trace: list | None = None) -> bool:
    """Re-solve dirty lines (bit i of `dirty`: line i) until nothing changes; False on a
    contradiction. Sweeps rows then columns in order (the next dirty line after the last one
    solved, else a new sweep from line 0), so the trace reads naturally. Appends (line, new
    filled, new empty). cands[i] is line i's placements that agree with its known cells (see
    _placements; narrowed in place of the list, whose tuples are never changed, so copying the
    list copies the state), or None for a line solve_line handles."""
    clues, lengths = puzzle.lines, puzzle.lengths
    h = puzzle.height
    pos = 0
    while dirty:
        ahead = dirty >> pos << pos
        low = (ahead or dirty) & -(ahead or dirty)
        i = low.bit_length() - 1
        dirty ^= low
        pos = i + 1
        f, e = known_f[i], known_e[i]
        cand = cands[i]
        if cand is None:
            forced = solve_line(clues[i], lengths[i], f, e)
            if forced is None:
                return False
            always, never = forced
        else:
            masks, always, ever = cand
            known = f | e
            if known:
                kept = [p for p in masks if p & known == f]
                if len(kept) != len(masks):
                    if not kept:
                        return False
                    always, ever = reduce(and_, kept), reduce(or_, kept)
                    cands[i] = kept, always, ever
            elif not masks:  # the clue does not fit the line
                return False
            never = ((1 << lengths[i]) - 1) & ~ever
        new_f, new_e = always & ~f, never & ~e
        if not new_f | new_e:
            continue
        known_f[i], known_e[i] = always, never
        if trace is not None:
            trace.append((i, new_f, new_e))
        # the crossing lines: a row's new cells are columns h + c, a column's are rows r
        if i < h:
            first, bit = h, 1 << i
            dirty |= (new_f | new_e) << h
        else:
            first, bit = 0, 1 << (i - h)
            dirty |= new_f | new_e
        while new_f:
            low = new_f & -new_f
            new_f ^= low
            known_f[first + low.bit_length() - 1] |= bit
        while new_e:
            low = new_e & -new_e
            new_e ^= low
            known_e[first + low.bit_length() - 1] |= bit
    return True


def _row_strings(rows: list[int], width: int) -> list[str]:
    return [format(bits, f"0{width}b")[::-1].replace("1", FILLED).replace("0", EMPTY) for bits in rows]


def _count_known(known_f: list[int], known_e: list[int], h: int) -> int:
    return sum((known_f[r] | known_e[r]).bit_count() for r in range(h))


def _assume(puzzle: PatternPuzzle, known_f: list[int], known_e: list[int], cands: list, r: int, c: int,
            fill: bool) -> tuple[list[int], list[int], list] | None:
    """The state after setting cell (r, c) and propagating, or None on a contradiction."""
    h = puzzle.height
    known_f, known_e, cands = known_f[:], known_e[:], cands[:]
    target = known_f if fill else known_e
    target[r] |= 1 << c
    target[h + c] |= 1 << r
    return (known_f, known_e, cands) if _propagate(puzzle, known_f, known_e, cands, 1 << r | 1 << (h + c)) else None


def _probe(puzzle: PatternPuzzle, known_f: list[int], known_e: list[int], cands: list) -> list:
    """Try every undecided cell both ways until nothing more is forced (a value that leads to a
    contradiction fixes the other). Returns the states to search next: none on a contradiction,
    the state itself once complete, else both outcomes of the cell whose weaker outcome decides
    the most cells. Two propagations per cell, but on hard grids it cuts the search by orders of
    magnitude (a random 25x25 grid: from minutes to under a second)."""
    w, h = puzzle.width, puzzle.height
    while True:
        best, best_score, forced = None, -1, False
        for r in range(h):
            for c in range(w):
                if (known_f[r] | known_e[r]) >> c & 1:
                    continue
                filled = _assume(puzzle, known_f, known_e, cands, r, c, True)
                empty = _assume(puzzle, known_f, known_e, cands, r, c, False)
                if filled is None and empty is None:
                    return []
                if filled is None or empty is None:
                    known_f, known_e, cands = filled or empty
                    forced = True
                    continue
                score = min(_count_known(*filled[:2], h), _count_known(*empty[:2], h))
                if score > best_score:
                    best, best_score = [filled, empty], score
        if not forced:  # so `best` was scored against the final state
            return best or [(known_f, known_e, cands)]


def _search(puzzle: PatternPuzzle, max_solutions: int) -> list[list[str]]:
    """Line propagation, then depth-first search with probing. An explicit stack, since a deep
    search would overflow Python's recursion limit."""
    w, h = puzzle.width, puzzle.height
    n_lines = w + h
    root = ([0] * n_lines, [0] * n_lines, list(puzzle.placements))
    if not _propagate(puzzle, *root, (1 << n_lines) - 1):
        return []
    found: list[list[str]] = []
    stack = [root]
    while stack and len(found) < max_solutions:
        known_f, known_e, cands = stack.pop()
        if _count_known(known_f, known_e, h) == w * h:
            found.append(_row_strings(known_f[:h], w))
        else:
            stack += _probe(puzzle, known_f, known_e, cands)[::-1]  # the filled branch is popped first
    return found


def _line_solve(puzzle: PatternPuzzle, trace: list | None = None) -> bool:
    """True if line deductions alone fill the whole grid (a proof of a unique solution)."""
    n_lines = puzzle.width + puzzle.height
    known_f, known_e = [0] * n_lines, [0] * n_lines
    if not _propagate(puzzle, known_f, known_e, list(puzzle.placements), (1 << n_lines) - 1, trace):
        return False
    full = (1 << puzzle.width) - 1
    return all(known_f[r] | known_e[r] == full for r in range(puzzle.height))


# ------------------------------------------------------------------ generator


def _mean3_np(a: np.ndarray) -> np.ndarray:
    """Each value averaged with its neighbours in the rows before and after it (one neighbour at
    the ends), summed as (self + before) + after, as Tatham's loop adds them up."""
    s = a.copy()
    s[1:] += a[:-1]
    s[:-1] += a[1:]
    s[1:-1] /= 3
    s[[0, -1]] /= 2
    return s


SMALL_GRID = 100  # cells; below this plain lists beat numpy, whose calls cost more than the work


def _smoothed_grid(rng: random.Random, w: int, h: int) -> tuple[list[int], list[int]]:
    """Tatham's picture: noise, one 3x3 mean pass (clipped at the border), then the cells at or
    above the median are filled. Returns (rows, columns) as bitmasks (bit c of a row is column c,
    bit r of a column is row r). The clipped 3x3 mean is separable: a mean down the columns,
    then along the rows. A side of 2 is not averaged (its two cells would become equal), and a
    side of 1 has nothing to average. Both paths give the same grid, to the last bit of every
    float (sums formed in the same order)."""
    n = w * h
    a = list(itertools.starmap(rng.random, itertools.repeat((), n)))
    if n > SMALL_GRID:
        a = np.array(a).reshape(h, w)
        if h > 2:
            a = _mean3_np(a)
        if w > 2:
            a = _mean3_np(a.T).T
        index = n // 2 + (rng.randrange(2) if w & h & 1 else 0)  # odd count: just under or over half
        filled = a >= np.sort(a, axis=None)[index]
        rows = np.packbits(filled, axis=1, bitorder="little")
        cols = np.packbits(filled, axis=0, bitorder="little").T
        return ([int.from_bytes(row.tobytes(), "little") for row in rows],
                [int.from_bytes(col.tobytes(), "little") for col in cols])
    # the same on one flat list, row after row
    if h > 2:  # down the columns: the top row, the middle rows, the bottom row
        a = ([(x + d) / 2 for x, d in zip(a, a[w:2 * w])]
             + [(x + u + d) / 3 for u, x, d in zip(a, a[w:], a[2 * w:])]
             + [(x + u) / 2 for u, x in zip(a[n - 2 * w:], a[n - w:])])
    if w > 2:  # along the rows; the values computed across the end of a row are overwritten
        b = [0.0, *[(x + u + d) / 3 for u, x, d in zip(a, a[1:], a[2:])], 0.0]
        for end in range(w - 1, n, w):
            b[end - w + 1] = (a[end - w + 1] + a[end - w + 2]) / 2
            b[end] = (a[end] + a[end - 1]) / 2
        a = b
    index = n // 2 + (rng.randrange(2) if w & h & 1 else 0)
    # b"1" where threshold <= x, else b"0"; the last cell first, so a line reads as a binary number
    filled = bytes(map(sorted(a)[index].__le__, a)).translate(_DIGITS)[::-1]
    return ([int(filled[n - w - s:n - s], 2) for s in range(0, n, w)],
            [int(filled[w - 1 - c::w], 2) for c in range(w)])


_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


@lru_cache(maxsize=1 << 16)
def _runs_of_bits(bits: int) -> tuple[int, ...]:
    """runs_of for a line given as a bitmask (bit 0 first)."""
    return tuple(len(run) for run in format(bits, "b")[::-1].split("0") if run)


def _has_plain_line(rows: list[int], w: int, h: int) -> bool:
    """An all-filled or all-empty row or column (Tatham: too easy), in a dimension over 2."""
    full = (1 << w) - 1
    if w > 2 and any(bits in (0, full) for bits in rows):
        return True
    any_filled, all_filled = 0, full
    for bits in rows:
        any_filled |= bits
        all_filled &= bits
    return h > 2 and (any_filled != full or all_filled != 0)


def _check_size(w: int, h: int) -> None:
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise ValueError(f"pattern size {w}x{h} is out of range: width and height must be 1..{MAX_SIDE}")
    if w < 2 and h < 2:
        raise ValueError("pattern size 1x1: width or height must be at least 2")


# ------------------------------------------------------------------ game IDs


def _show(text: str) -> str:
    """A string for an error message, cut short: game IDs come from outside."""
    return repr(text) if len(text) <= 40 else repr(text[:40]) + "..."


def _parse_number(text: str, what: str) -> int:
    if not text or not (text.isascii() and text.isdigit()):
        raise ValueError(f"{what} {_show(text)} is not a number")
    if len(text) > 1 and text[0] == "0":
        raise ValueError(f"{what} {_show(text)} has a leading zero")
    if len(text) > 3:
        raise ValueError(f"{what} {_show(text)} is too large")
    return int(text)


def _parse_clue(text: str, what: str, length: int) -> tuple[int, ...]:
    if not text:
        return ()
    bad = sorted(set(text) - set("0123456789."))
    if bad:
        raise ValueError(f"{what} clue {_show(text)} has a bad character {bad[0]!r}")
    runs = tuple(_parse_number(part, f"{what} run") for part in text.split("."))
    if 0 in runs:
        raise ValueError(f"{what} clue {_show(text)} has a run of length 0 (an empty line has an empty clue)")
    need = sum(runs) + len(runs) - 1
    if need > length:
        raise ValueError(f"{what} clue {_show(text)} needs {need} cells but the line has {length}")
    return runs


class Pattern(PuzzleEnv):
    name = "pattern"
    title = "Pattern"
    levels = ()
    ladder = ((5, 5, None), (7, 7, None), (8, 8, None), (10, 10, None), (12, 12, None), (15, 15, None))
    alphabet = FILLED + EMPTY
    rules = """
Pattern is a nonogram. Every cell of the grid is either filled or empty.
Each row has a clue: the lengths of the runs (blocks of consecutive filled cells) in that row, in
order from left to right. Each column has a clue: the lengths of the runs in that column, in order
from top to bottom. Runs in the same line are separated by at least one empty cell, and a line has
no filled cells other than its runs. A clue of 0 means the line is entirely empty.
Fill the grid so that every row and every column matches its clue exactly. Nothing else is required
(filled cells need not be connected).
"""
    answer_format = """
One line per row, top to bottom; each line has one character per column, left to right:
'#' for a filled cell, '.' for an empty cell. No spaces or other characters.
"""

    # -------------------------------------------------------------- game IDs

    def decode(self, game_id: str) -> PatternPuzzle:
        if not isinstance(game_id, str):
            raise ValueError(f"pattern game ID must be a string, got {type(game_id).__name__}")
        size, colon, desc = game_id.partition(":")
        if not colon:
            raise ValueError(f"pattern game ID {_show(game_id)} has no ':' (expected WxH:clues)")
        ws, x, hs = size.partition("x")
        if not x:
            raise ValueError(f"pattern size {_show(size)} is not of the form WxH")
        w, h = _parse_number(ws, "width"), _parse_number(hs, "height")
        _check_size(w, h)
        if "," in desc:
            raise ValueError("pattern game IDs with pre-filled cells (a ',...' suffix) are not supported")
        parts = desc.split("/")
        if len(parts) != w + h:
            raise ValueError(f"pattern {w}x{h} needs {w + h} '/'-separated clues ({w} columns, then {h} rows), "
                             f"got {len(parts)}")
        cols = tuple(_parse_clue(parts[c], f"column {c}", h) for c in range(w))
        rows = tuple(_parse_clue(parts[w + r], f"row {r}", w) for r in range(h))
        return PatternPuzzle(w, h, cols, rows)

    def encode(self, puzzle: PatternPuzzle) -> str:
        clues = "/".join(".".join(map(str, clue)) for clue in puzzle.cols + puzzle.rows)
        return f"{puzzle.width}x{puzzle.height}:{clues}"

    # -------------------------------------------------------------- solving and generating

    def solve(self, puzzle: PatternPuzzle, max_solutions: int = 2) -> list[list[str]]:
        return _search(puzzle, max_solutions)

    def new_puzzle(self, rng: random.Random, width: int, height: int,
                   level: str | None) -> tuple[PatternPuzzle, list[str]]:
        _check_size(width, height)
        while True:
            rows, cols = _smoothed_grid(rng, width, height)
            if _has_plain_line(rows, width, height):
                continue
            puzzle = PatternPuzzle(width, height, tuple(map(_runs_of_bits, cols)), tuple(map(_runs_of_bits, rows)))
            if puzzle.line_solved[0]:
                return puzzle, _row_strings(rows, width)

    def is_solution(self, puzzle: PatternPuzzle, grid: list[str]) -> bool:
        if not isinstance(grid, (list, tuple)) or len(grid) != puzzle.height:
            return False
        for row in grid:
            if not isinstance(row, str) or len(row) != puzzle.width or row.strip(FILLED + EMPTY):
                return False
        return (all(runs_of(row) == clue for row, clue in zip(grid, puzzle.rows))
                and all(runs_of("".join(col)) == clue for col, clue in zip(zip(*grid), puzzle.cols)))

    # -------------------------------------------------------------- text

    def initial_board(self, puzzle: PatternPuzzle) -> list[str]:
        return [EMPTY * puzzle.width] * puzzle.height

    def describe(self, puzzle: PatternPuzzle) -> str:
        cols = [[str(n) for n in clue] or ["0"] for clue in puzzle.cols]
        rows = [" ".join(map(str, clue)) or "0" for clue in puzzle.rows]
        cell = max(len(n) for col in cols for n in col)
        left, depth = max(map(len, rows)), max(map(len, cols))
        lines = ["Column clues are stacked above their columns (read top to bottom); row clues stand "
                 "left of their rows (read left to right); ? marks a cell still to be decided."]
        for k in range(depth):  # bottom-aligned, so each clue ends just above the grid
            numbers = [col[k - depth + len(col)] if k >= depth - len(col) else "" for col in cols]
            lines.append((" " * (left + 2) + " ".join(n.rjust(cell) for n in numbers)).rstrip())
        lines.append(" " * (left + 1) + "+" + "-" * (puzzle.width * (cell + 1) - 1))
        board = " ".join(["?".rjust(cell)] * puzzle.width)
        lines += [f"{text.rjust(left)} |{board}" for text in rows]
        lines.append("Row clues (run lengths from left to right; 0 = empty row):")
        lines += [f"  row {r}: {text}" for r, text in enumerate(rows)]
        lines.append("Column clues (run lengths from top to bottom; 0 = empty column):")
        lines += [f"  column {c}: {' '.join(col)}" for c, col in enumerate(cols)]
        return "\n".join(lines)

    def explain(self, puzzle: PatternPuzzle, solution: list[str]) -> str:
        solved, trace = puzzle.line_solved
        h = puzzle.height
        out = ["Solve one line at a time: try every placement of a line's runs that agrees with the "
               "cells already known; a cell filled in every placement is filled, a cell empty in "
               "every placement is empty."]
        for i, new_f, new_e in trace[:EXPLAIN_STEPS]:
            kind, index = ("Row", i) if i < h else ("Column", i - h)
            clue = (puzzle.rows + puzzle.cols)[i]
            found = [f"{_cells(new_f, kind, index)} filled" if new_f else "",
                     f"{_cells(new_e, kind, index)} empty" if new_e else ""]
            out.append(f"- {kind} {index} (clue {' '.join(map(str, clue)) or '0'}): "
                       + "; ".join(part for part in found if part) + ".")
        if not solved:
            out.append("Line deductions alone stall here; trying a value for an undecided cell and "
                       "following the line deductions to a contradiction (or to the end) finishes the grid.")
        elif len(trace) > EXPLAIN_STEPS:
            out.append("...and repeating this over the rows and columns fills in the rest of the grid.")
        return "\n".join(out)


def _cells(mask: int, kind: str, index: int, limit: int = 6) -> str:
    """The (row, column) coordinates of a line's cells in `mask`, at most `limit` of them."""
    positions = [b for b in range(mask.bit_length()) if mask >> b & 1]
    coords = [f"({index},{b})" if kind == "Row" else f"({b},{index})" for b in positions]
    extra = f" and {len(coords) - limit} more" if len(coords) > limit else ""
    return ", ".join(coords[:limit]) + extra
