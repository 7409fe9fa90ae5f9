"""A procedural teacher for puzzle reasoning (issue 26): it solves a Pattern or Undead record by
search and writes the reasoning in prose, one labelled step at a time, for SFT traces
(`generate.py mode=teacher_traces`, configs/study/p2m_traces.yaml).

Why these two: both are domains of a few values per cell (filled/empty; ghost/vampire/zombie) with
constraints that read as short sentences ("row 2 (clue 1 1): (2,0) is filled"; "the line of sight
from the top of column 1 (2) ... : (0,1) is a zombie"), so every move is one line of text and a
small grid stays inside a 135M model's budget. Bridges and Galaxies need connectivity arguments
(islands, regions) that take much longer prose per move.

The search. Each cell has a domain; a unit (a Pattern row or column; an Undead line of sight, or a
monster total) removes every value that no filling of the unit consistent with the domains uses,
and a unit left with no filling is a contradiction. Propagation takes the units in a random order
(a queue shuffled from the trace's seed: propagation order differs between traces) until nothing
changes. When it stalls, the teacher hypothesizes a value for an open cell with the smallest domain
and follows it; a hypothesis refuted by propagation is backtracked and the other values remain. Our
choice, to keep traces short: the gold solution orders the values tried, so a real search branch is
always resolved by propagation, and a wrong value is tried first only when propagation refutes it
(the generated Pattern and Undead-easy grids need no guessing at all). The detour: with probability
`detour_rate` a trace makes one early wrong hypothesis (after 0-2 propagation steps, a value
propagation refutes within a few steps), follows it to the contradiction and backtracks.

A trace is a list of steps (label, text), labels from utils/labels.py's set: plan, setup, compute
(a unit's deductions), hypothesize, check (a unit found violated, and the final verification),
backtrack, summarize (the final board). Each move has several templates, some without the cue words
("Wait", "Suppose", "Let me check"), so a classifier cannot learn the labels from the cues alone.
The response is `<reasoning>\\n` + the step texts joined by newlines + `\\n</reasoning>\\n<answer>\\n`
+ the board + `\\n</answer>`, scored by the env's own `envs.score`.

The labels travel with the rows (`steps`, one list per response) so an analysis can set them beside
the span classifier's; they are not part of the classifier's training data (data/spans/).

Sizes: any size the env generates, up to MAX_SIDE per side (longer traces would not fit the CPU
budget). The study's Pattern 4x4 and Undead 3x3 are below the smallest rungs of our ladders (5x5,
4x4) and of Tatham's presets, though his apps still open them (Undead wants sides >= 3).
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from functools import lru_cache

from utils.config import field
from utils.motifs import LABELS

PUZZLES = ("pattern", "undead")
MAX_SIDE = {"pattern": 8, "undead": 5}
MIN_SIDE = {"pattern": 2, "undead": 3}
DETOUR_STEPS = 4  # a detour's wrong value must be refuted within this many propagation steps
DETOUR_AFTER = 2  # ...and is made after 0..DETOUR_AFTER propagation steps


@dataclass
class TeacherConfig:
    samples: int = field(4, help="K: teacher traces written per training record (distinct by seed; test splits get "
                                 "none)", ge=1)
    detour_rate: float = field(0.5, help="share of traces with an early wrong hypothesis followed to its "
                                         "contradiction and backtracked", ge=0, le=1)

    def validate(self, splits: dict):
        for split, entries in splits.items():
            for i, e in enumerate(entries):
                try:
                    check_params(e.env, e.params.get("width"), e.params.get("height"), self.detour_rate)
                except ValueError as err:
                    yield f"splits.{split}.{i}", str(err)


def check_params(puzzle: str, width: int | None, height: int | None, detour_rate: float = 0.0) -> None:
    """ValueError in one line for a puzzle, size or detour rate the teacher does not take."""
    if puzzle not in PUZZLES:
        raise ValueError(f"the teacher writes traces for {', '.join(PUZZLES)}, not {puzzle!r}")
    if width is None or height is None:
        raise ValueError(f"{puzzle}: the teacher needs params width and height")
    lo, hi = MIN_SIDE[puzzle], MAX_SIDE[puzzle]
    if not (lo <= width <= hi and lo <= height <= hi):
        raise ValueError(f"{puzzle} size {width}x{height} is out of the teacher's range: sides {lo}..{hi}")
    if not 0 <= detour_rate <= 1:
        raise ValueError(f"detour_rate {detour_rate} is outside [0, 1]")


# ------------------------------------------------------------------ phrasing

T = {
    "hypothesize": ["Suppose {cell} is {value}.", "Try {cell} = {value} and follow it.", "Assume for now that {cell} "
                    "is {value}.", "Guess {cell} = {value}.", "What if {cell} is {value}?",
                    "Tentatively set {cell} to {value}."],
    "conflict": ["Now {unit} has no filling that fits: a contradiction.", "But then {unit} cannot be satisfied.",
                 "Check {unit}: nothing fits it any more.", "That breaks {unit}, which no filling satisfies now.",
                 "Let me check {unit}: it is impossible now."],
    "backtrack": ["Wait, that guess was wrong, so {cell} is not {value}.", "This branch fails; go back: {cell} "
                  "cannot be {value}.", "So the assumption is false and {cell} is not {value}.",
                  "Dead end. Undo the guess: {cell} is not {value}.", "The guess {cell} = {value} was wrong; drop it."],
    "compute": ["{unit}: {facts}.", "From {unit}, {facts}.", "{unit} gives {facts}.", "Apply {unit}: {facts}.",
                "Looking at {unit}, {facts}."],
    "final": ["All cells are decided. The board:\n{board}", "So the solution is:\n{board}",
              "Final board:\n{board}", "Every cell is fixed now:\n{board}"],
}


def say(rng: random.Random, key: str, **kw) -> str:
    return rng.choice(T[key]).format(**kw)


def join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# ------------------------------------------------------------------ the puzzles as domains and units


class PatternModel:
    """Cells (r, c) with domains of '#' and '.'; units ('row', r) and ('column', c)."""

    def __init__(self, record: dict):
        from envs.puzzles.pattern import Pattern

        self.p = Pattern().puzzle_of(record)
        self.solution = record["meta"]["solution"]
        self.cells = [(r, c) for r in range(self.p.height) for c in range(self.p.width)]
        self.units = [("row", r) for r in range(self.p.height)] + [("column", c) for c in range(self.p.width)]

    def start(self) -> dict:
        return {cell: frozenset("#.") for cell in self.cells}

    def truth(self, cell) -> str:
        return self.solution[cell[0]][cell[1]]

    def line(self, unit) -> list:
        kind, i = unit
        return [(i, c) for c in range(self.p.width)] if kind == "row" else [(r, i) for r in range(self.p.height)]

    def clue(self, unit) -> tuple:
        return self.p.rows[unit[1]] if unit[0] == "row" else self.p.cols[unit[1]]

    def units_of(self, cell) -> list:
        return [("row", cell[0]), ("column", cell[1])]

    def deduce(self, unit, dom: dict) -> dict | None:
        cells = self.line(unit)
        fits = [f for f in _fillings(self.clue(unit), len(cells)) if all(ch in dom[x] for ch, x in zip(f, cells))]
        if not fits:
            return None
        return {x: frozenset(f[j] for f in fits) for j, x in enumerate(cells)}

    def unit_text(self, unit) -> str:
        return f"{unit[0]} {unit[1]} (clue {' '.join(map(str, self.clue(unit))) or '0'})"

    def value_text(self, v: str) -> str:
        return "filled" if v == "#" else "empty"

    def facts(self, changes: dict) -> str:
        parts = []
        for v in "#.":
            cells = [cell_text(x) for x, d in changes.items() if d == {v}]
            if cells:
                parts.append(f"{join(cells)} {'is' if len(cells) == 1 else 'are'} {self.value_text(v)}")
        return "; ".join(parts)

    def plan(self, rng) -> str:
        return rng.choice([
            "Plan: for each row and column, find the cells that every placement of its runs agrees on, and "
            "repeat over the crossing lines until the grid is done.",
            "I'll solve it line by line: a cell filled (or empty) in every placement of a line's runs is fixed, "
            "then the crossing lines are revisited.",
            "Strategy: propagate the row and column clues until nothing changes; guess a cell only if that stalls.",
            "Approach: overlap the possible placements of each clue, fix the common cells, and sweep again.",
        ])

    def setup(self, rng) -> list[str]:
        rows = "; ".join(f"{r}: {' '.join(map(str, c)) or '0'}" for r, c in enumerate(self.p.rows))
        cols = "; ".join(f"{c}: {' '.join(map(str, k)) or '0'}" for c, k in enumerate(self.p.cols))
        head = rng.choice(["The grid is {w}x{h}.", "We have {w} columns and {h} rows.",
                           "A {w}x{h} nonogram."]).format(w=self.p.width, h=self.p.height)
        parts = [f"Row clues {rows}.", f"Column clues {cols}."]
        rng.shuffle(parts)
        return [" ".join([head, *parts])]

    def verify(self, board: list[str], rng) -> str:
        from envs.puzzles.pattern import runs_of

        rows = ", ".join(" ".join(map(str, runs_of(row))) or "0" for row in board)
        cols = ", ".join(" ".join(map(str, runs_of("".join(col)))) or "0" for col in zip(*board))
        return rng.choice(["Check: the rows read {r} and the columns {c}; all match the clues.",
                           "Verify: rows give {r}, columns give {c}, as required.",
                           "Recount the runs: rows {r}; columns {c}. Every clue is met."]).format(r=rows, c=cols)

    def board(self, dom: dict) -> list[str]:
        return ["".join(next(iter(dom[(r, c)])) for c in range(self.p.width)) for r in range(self.p.height)]


@lru_cache(maxsize=4096)
def _fillings(clue: tuple, n: int) -> tuple[str, ...]:
    from envs.puzzles.pattern import runs_of

    return tuple(s for s in ("".join(b) for b in itertools.product("#.", repeat=n)) if runs_of(s) == clue)


MONSTER = {"G": "a ghost", "V": "a vampire", "Z": "a zombie"}


class UndeadModel:
    """Cells: the monster cells (r, c), domains of G, V, Z; units: each line of sight (its first
    edge number) and each monster total ('total', letter)."""

    def __init__(self, record: dict):
        from envs.puzzles.undead import Undead, edge_name, trace

        self.p = Undead().puzzle_of(record)
        w, h = self.p.width, self.p.height
        self.solution = record["meta"]["solution"]
        self.cells = [(r, c) for r in range(h) for c in range(w) if self.p.grid[r][c] not in "\\/"]
        self.lines = {}  # first edge -> (other edge, visits (r, c, seen-from-a kinds, seen-from-b kinds))
        for k in range(2 * (w + h)):
            visits, end, mirrors = trace(self.p.grid, w, h, k)
            if k < end:  # each line once, under its first edge
                seen = [(r, c, "Z" + ("G" if m else "V"), "Z" + ("G" if mirrors - m else "V")) for r, c, m in visits]
                self.lines[k] = (end, seen, visits)
        # "top of column 1" -> "top 1": the edge names of the prompt, shortened for the token budget
        self.edge = lambda k: edge_name(k, w, h).replace(" of column", "").replace(" of row", "")
        self.units = [("line", k) for k, (_, seen, _) in self.lines.items() if seen] + [("total", m) for m in "GVZ"]
        self.total = dict(zip("GVZ", self.p.totals))

    def start(self) -> dict:
        given = {(r, c): self.p.grid[r][c] for r, c in self.cells}
        return {x: frozenset(g) if g in "GVZ" else frozenset("GVZ") for x, g in given.items()}

    def truth(self, cell) -> str:
        return self.solution[cell[0]][cell[1]]

    def units_of(self, cell) -> list:
        return [("line", k) for k, (_, seen, _) in self.lines.items() if any((r, c) == cell for r, c, *_ in seen)] + \
               [("total", m) for m in "GVZ"]

    def deduce(self, unit, dom: dict) -> dict | None:
        if unit[0] == "total":
            return self._total(unit[1], dom)
        a = unit[1]
        b, seen, *_ = self.lines[a]
        cells = list(dict.fromkeys((r, c) for r, c, *_ in seen))
        outside = {m: sum(1 for x, d in dom.items() if x not in cells and d == {m}) for m in "GVZ"}
        room = {m: sum(1 for x, d in dom.items() if x not in cells and m in d) for m in "GVZ"}
        need_a, need_b = self.p.clues[a], self.p.clues[b]
        support, fits = {x: set() for x in cells}, False
        for values in itertools.product(*(sorted(dom[x]) for x in cells)):
            fill = dict(zip(cells, values))
            if sum(fill[(r, c)] in sa for r, c, sa, _ in seen) != need_a:
                continue
            if sum(fill[(r, c)] in sb for r, c, _, sb in seen) != need_b:
                continue
            if any(not outside[m] <= self.total[m] - values.count(m) <= room[m] for m in "GVZ"):
                continue
            fits = True
            for x, v in fill.items():
                support[x].add(v)
        if not fits:
            return None
        return {x: frozenset(s) for x, s in support.items()}

    def _total(self, m: str, dom: dict) -> dict | None:
        fixed = [x for x, d in dom.items() if d == {m}]
        able = [x for x, d in dom.items() if m in d]
        if len(fixed) > self.total[m] or len(able) < self.total[m]:
            return None
        if len(fixed) == self.total[m]:
            return {x: dom[x] - {m} for x in able if x not in fixed}
        if len(able) == self.total[m]:
            return {x: frozenset(m) for x in able}
        return {}

    def unit_text(self, unit) -> str:
        if unit[0] == "total":
            return f"the {MONSTER[unit[1]][2:]} total ({self.total[unit[1]]} {unit[1]})"
        a, b = unit[1], self.lines[unit[1]][0]
        return f"line {self.edge(a)} ({self.p.clues[a]}) to {self.edge(b)} ({self.p.clues[b]})"

    def value_text(self, v: str) -> str:
        return v

    def facts(self, changes: dict) -> str:
        parts = []
        for x, d in changes.items():
            parts.append(f"{cell_text(x)} is " + " or ".join(sorted(d)))
        return ", ".join(parts)

    def plan(self, rng) -> str:
        return rng.choice([
            "Plan: for each line of sight, keep only the monsters that some filling giving both of its numbers "
            "allows, use the totals, and repeat until every cell is fixed.",
            "I'll work through the lines of sight: a vampire counts only before a mirror, a ghost only after "
            "one, a zombie always; then apply the monster totals and sweep again.",
            "Strategy: narrow each cell's options from the edge numbers and the totals until nothing changes; "
            "guess a cell only if that stalls.",
            "Approach: trace each line, rule out monsters that would break its two numbers, and propagate.",
        ])

    def setup(self, rng) -> list[str]:
        g, v, z = self.p.totals
        out = [rng.choice(["Totals: {g} ghosts, {v} vampires, {z} zombies.",
                           "We need {g} G, {v} V and {z} Z in all.",
                           "The monsters: {g} ghosts, {v} vampires and {z} zombies."]).format(g=g, v=v, z=z)]
        lines = []
        for a, (b, seen, visits) in self.lines.items():
            if not seen:
                continue
            path, before = [], 0
            for r, c, m in visits:
                path += ["mirror"] * (m - before) + [cell_text((r, c))]
                before = m
            lines.append(f"{self.unit_text(('line', a))}: {', '.join(path)}.")
        rng.shuffle(lines)
        return out + lines

    def verify(self, board: list[str], rng) -> str:
        from envs.puzzles.undead import sightings

        w, h = self.p.width, self.p.height
        counts = " ".join(f"{''.join(board).count(m)} {m}" for m in "GVZ")
        seen = ", ".join(str(sightings(board, w, h, k)) for k in range(2 * (w + h)))
        return rng.choice(["Check: the board has {t}, and the edge counts clockwise are {s}, matching every number.",
                           "Verify the totals ({t}) and the numbers seen from each edge ({s}): all agree.",
                           "Recount: {t}; seen from the edges, clockwise from the top-left: {s}. Everything fits."]
                          ).format(t=counts, s=seen)

    def board(self, dom: dict) -> list[str]:
        return ["".join(next(iter(dom[(r, c)])) if (r, c) in dom else self.p.grid[r][c] for c in range(self.p.width))
                for r in range(self.p.height)]


MODELS = {"pattern": PatternModel, "undead": UndeadModel}


def cell_text(x) -> str:
    return f"({x[0]},{x[1]})"


# ------------------------------------------------------------------ the search, written down


class Contradiction(Exception):
    def __init__(self, unit):
        self.unit = unit


class Writer:
    """One trace: the model, its rng (every random choice of the trace), and the steps so far."""

    def __init__(self, model, rng: random.Random):
        self.m, self.rng, self.steps = model, rng, []

    def add(self, label: str, text: str) -> None:
        self.steps.append({"label": label, "text": text[0].upper() + text[1:]})

    def propagate(self, dom: dict, queue: list, limit: int | None = None) -> int:
        """Run the units in `queue` (a random pick each time) until nothing changes, or until `limit`
        units have narrowed something; each narrowing is one compute step. Raises Contradiction.
        Returns the number of compute steps written."""
        made = 0
        pending = list(dict.fromkeys(queue))
        while pending and (limit is None or made < limit):
            unit = pending.pop(self.rng.randrange(len(pending)))
            new = self.m.deduce(unit, dom)
            if new is None:
                raise Contradiction(unit)
            changes = {x: d for x, d in new.items() if d != dom[x]}
            if not changes:
                continue
            dom.update(changes)
            made += 1
            self.add("compute", say(self.rng, "compute", unit=self.m.unit_text(unit), facts=self.m.facts(changes)))
            for x in changes:
                pending += [u for u in self.m.units_of(x) if u != unit and u not in pending]
        return made

    def refuted(self, dom: dict, cell, value, limit: int | None) -> tuple[dict, Writer] | None:
        """Try cell = value on a copy with a child writer; (the child's domains, child) if propagation
        reaches a contradiction within `limit` compute steps, else None."""
        child = Writer(self.m, random.Random(self.rng.random()))
        trial = {**dom, cell: frozenset(value)}
        try:
            child.propagate(trial, self.m.units_of(cell), limit)
        except Contradiction as c:
            child.add("check", say(child.rng, "conflict", unit=self.m.unit_text(c.unit)))
            return trial, child
        return None

    def detour(self, dom: dict, cell, value, child: Writer) -> None:
        """Write a refuted hypothesis: hypothesize, its compute steps and conflict, backtrack."""
        v = self.m.value_text(value)
        self.add("hypothesize", say(self.rng, "hypothesize", cell=cell_text(cell), value=v))
        self.steps += child.steps
        self.add("backtrack", say(self.rng, "backtrack", cell=cell_text(cell), value=v))
        dom[cell] = dom[cell] - {value}

    def wrong_guess(self, dom: dict, cells: list, limit: int | None) -> bool:
        """An early wrong hypothesis on one of `cells` that propagation refutes; False if none is."""
        options = [(x, v) for x in cells for v in sorted(dom[x]) if v != self.m.truth(x) and len(dom[x]) > 1]
        self.rng.shuffle(options)
        for x, v in options:
            got = self.refuted(dom, x, v, limit)
            if got:
                self.detour(dom, x, v, got[1])
                return True
        return False


def write_trace(model, rng: random.Random, detour_rate: float) -> tuple[list[dict], list[str]]:
    """(steps, board) for one trace of the model's puzzle."""
    w = Writer(model, rng)
    w.add("plan", model.plan(rng))
    for text in model.setup(rng):
        w.add("setup", text)
    dom = model.start()
    units = list(model.units)
    if rng.random() < detour_rate:
        w.propagate(dom, units, limit=rng.randint(0, DETOUR_AFTER))
        open_cells = [x for x in model.cells if len(dom[x]) > 1]
        w.wrong_guess(dom, open_cells, DETOUR_STEPS)
        units = list(model.units)
    while True:
        w.propagate(dom, units)  # never raises: every domain still holds the solution
        open_cells = [x for x in model.cells if len(dom[x]) > 1]
        if not open_cells:
            break
        # stalled: branch on a smallest domain; a wrong value goes first only when refuted by propagation
        size = min(len(dom[x]) for x in open_cells)
        cell = rng.choice([x for x in open_cells if len(dom[x]) == size])
        if rng.random() < detour_rate and w.wrong_guess(dom, [cell], None):
            units = model.units_of(cell)
            continue
        right = model.truth(cell)
        w.add("hypothesize", say(rng, "hypothesize", cell=cell_text(cell), value=model.value_text(right)))
        dom[cell] = frozenset(right)
        units = model.units_of(cell)
    board = model.board(dom)
    w.add("check", model.verify(board, rng))
    w.add("summarize", say(rng, "final", board="\n".join(board)))
    return w.steps, board


def render(steps: list[dict], board: list[str]) -> str:
    """The response: the steps inside <reasoning>, the board inside <answer>."""
    body = "\n".join(s["text"] for s in steps)
    return f"<reasoning>\n{body}\n</reasoning>\n<answer>\n" + "\n".join(board) + "\n</answer>"


def teach(record: dict, samples: int, detour_rate: float, seed: int) -> list[tuple[str, list[dict]]]:
    """`samples` traces of one record, as (response, steps); trace k is seeded by (seed, k)."""
    from utils.records import derive_seed

    meta = record.get("meta") or {}
    check_params(record.get("env"), meta.get("width"), meta.get("height"), detour_rate)
    model = MODELS[record["env"]](record)
    out = []
    for k in range(samples):
        steps, board = write_trace(model, random.Random(derive_seed(seed, "teacher", record["id"], k)), detour_rate)
        assert all(s["label"] in LABELS for s in steps)
        out.append((render(steps, board), steps))
    return out


def add_traces(rows: list[dict], cfg: TeacherConfig, seed: int) -> list[dict]:
    """Training rows as mode=sft_traces writes them (the record, `responses`, `traces`), plus `steps`
    (per response, its labelled steps). Only traces the env's scorer marks correct are kept."""
    import envs

    out = []
    for rec in rows:
        good = {}
        for text, steps in teach(rec, cfg.samples, cfg.detour_rate, seed):
            if text not in good and envs.score(rec, text).correct:
                good[text] = steps
        if not good:  # the search always ends on the solution: a wrong board is a bug of the teacher
            raise RuntimeError(f"teacher: no trace of {rec['id']} scores correct")
        out.append({**rec, "responses": list(good), "steps": list(good.values()),
                    "traces": {"k": cfg.samples, "correct": len(good)}})
    return out


def write_traces(cfg: TeacherConfig, out: str, seed: int, splits: list[str]) -> dict:
    """mode=teacher_traces, after generate.py has written the records: every shard of a split not
    named test* gets its rows' traces (add_traces), rewritten in place (atomically). A shard whose
    rows have `responses` already is finished: re-running skips it. Returns the manifest's section."""
    from utils.records import is_test_split, read_jsonl, shard_paths, write_jsonl

    stats: dict[str, dict] = {}
    for split in splits:
        if is_test_split(split):
            continue
        for path in shard_paths(out, split):
            rows = list(read_jsonl(path))
            if not all("responses" in r for r in rows):
                rows = add_traces(rows, cfg, seed)
                write_jsonl(path, rows)
            for r in rows:
                s = stats.setdefault(f"{split} {r['env']} {r['meta']['width']}x{r['meta']['height']}",
                                     {"records": 0, "responses": 0, "with_backtrack": 0, "words": []})
                s["records"] += 1
                s["responses"] += len(r["responses"])
                s["with_backtrack"] += sum(any(x["label"] == "backtrack" for x in st) for st in r["steps"])
                s["words"] += [len(t.split()) for t in r["responses"]]
    for s in stats.values():
        words = sorted(s.pop("words"))
        s["words_median"], s["words_p90"] = words[len(words) // 2], words[int(0.9 * (len(words) - 1))]
    return {"samples": cfg.samples, "detour_rate": cfg.detour_rate, "per_split": stats}


def format_summary(s: dict) -> str:
    lines = [f"teacher traces (K={s['samples']}, detour_rate={s['detour_rate']}):"]
    for key, c in s["per_split"].items():
        lines.append(f"  {key}: {c['records']} records, {c['responses']} traces ({c['with_backtrack']} with a "
                     f"backtrack), words per trace median {c['words_median']}, p90 {c['words_p90']}")
    return "\n".join(lines)
