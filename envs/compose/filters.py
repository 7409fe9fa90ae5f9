"""Running bricks under limits, and the online executable filter of the paper's Appendix D.

A candidate extension is rejected, with one reason counted, on: an exception, a timeout (2 s), more
than 400 atomic steps along the whole path, no output (None or empty), a value of the wrong type,
or a degenerate output: one that repeats an earlier state of the path or a sibling's output,
equals 0 or 1, is an integer above 500 in absolute value, has length above 100 (grids: cells;
graphs: nodes plus edges), is a string of one repeated character, or is a graph with fewer than
2 nodes or no edge. Paths shorter than 2 are rejected by the search.

Timeouts: bricks are our own Python, so instead of a process per call (milliseconds each) the
step counter checks the wall clock on every tick and stops a brick past its deadline; a brick
that runs long without ticking cannot be interrupted, but its result is discarded as a timeout.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from envs.compose.brick import Brick, Counter, StepLimit, TimeLimit
from envs.compose.types import conforms, from_json, to_json

REASONS = ("exception", "timeout", "steps", "bad_type", "no_output", "repeat_state", "repeat_sibling",
           "zero_one", "int_over_500", "too_long", "one_char", "short_path")
MAX_INT = 500
MAX_LEN = 100


@dataclass(frozen=True)
class Limits:
    max_steps: int = 400  # atomic steps along one path (paper, Appendix D)
    timeout_s: float = 2.0  # wall clock per brick call (paper, Appendix D)


def execute(brick: Brick, value: Any, cost: int, limits: Limits) -> tuple[Any, int] | str:
    """(output, steps so far) of one brick on value, or the reason it failed; never raises."""
    counter = Counter(limits.max_steps, limits.timeout_s, cost)
    try:
        out = brick.fn(value, counter)
    except StepLimit:
        return "steps"
    except TimeLimit:
        return "timeout"
    except Exception:  # any bug or bad input of a brick is a rejection, not a crash
        return "exception"
    if time.perf_counter() > counter.deadline:
        return "timeout"
    if out is None:
        return "no_output"
    if not conforms(out, brick.y):
        return "bad_type"
    return out, counter.steps


def degenerate(value: Any) -> str | None:
    """The reason a value is degenerate on its own, or None."""
    t = type(value)
    if t is int or t is bool:  # True == 1, so a bool is always "0 or 1": predicates stay out of chains
        if value == 0 or value == 1:
            return "zero_one"
        if abs(value) > MAX_INT:  # races line 65: "exceed integer 500"; |value|: our choice, a large negative is as unreadable
            return "int_over_500"
    elif t is str or t is list:
        if not value:
            return "no_output"
        if len(value) > MAX_LEN or (type(value[0]) is list and len(value) * len(value[0]) > MAX_LEN):
            return "too_long"
        if t is str and value.count(value[0]) == len(value):
            return "one_char"
    elif t is dict:  # a graph-like value (types.GRAPH_TYPES)
        if value["n"] < 2 or not value["edges"]:
            return "no_output"
        if value["n"] + len(value["edges"]) > MAX_LEN:
            return "too_long"
    return None


def step(brick: Brick, states: tuple, cost: int, siblings: list, limits: Limits) -> tuple[Any, int] | str:
    """Run brick on the last state and apply every filter rule: (output, steps) or a reason.
    siblings: the JSON forms (types.to_json) of the outputs already kept at this node."""
    r = execute(brick, states[-1], cost, limits)
    if type(r) is str:
        return r
    out = r[0]
    bad = degenerate(out)
    if bad:
        return bad
    shown = to_json(out)  # compared as the model sees them: the pair (7, 7) repeats the list [7, 7]
    if any(shown == to_json(s) for s in states):
        return "repeat_state"
    if shown in siblings:
        return "repeat_sibling"
    return r


def run_steps(bricks: list[Brick], value: Any, x_type: str, limits: Limits) -> tuple[list, str]:
    """Execute bricks in order from a JSON input of type x_type, for verifying a model's order.

    Returns (states computed, including the input; reason it stopped early or "")."""
    states = [from_json(value, x_type)]
    cost, t = 0, x_type
    for i, b in enumerate(bricks, 1):
        if b.x != t:
            return states, f"step {i} ({b.name}) takes {b.x} but gets {t}"
        r = execute(b, states[-1], cost, limits)
        if type(r) is str:
            return states, f"step {i} ({b.name}) failed: {r}"
        states.append(r[0])
        cost, t = r[1], b.y
    return states, ""
