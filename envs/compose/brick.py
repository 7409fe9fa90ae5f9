"""A brick is the RACES four-tuple (input sampler, deterministic mapper, input type X, output type
Y) plus the one-sentence description a model reads. Chains of bricks are bricks again.

Mappers take (value, counter) and call counter.tick(n) for the n atomic steps they do: one step
is one elementary operation on one character, digit, list element or grid cell (one comparison
of a sort, one trial division, one Collatz move). A mapper ticks BEFORE the work it counts, so
a runaway input is stopped by the step limit before it allocates anything big. The counter also
checks the wall clock, so a brick that keeps ticking cannot outlive its time limit either.
Mappers never mutate their input: states are shared between sibling chains.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Callable

from envs.compose.samplers import SAMPLERS


class StepLimit(Exception):
    """More atomic steps than the limit (the paper's 400)."""


class TimeLimit(Exception):
    """Past the wall-clock deadline (the paper's 2 seconds)."""


class Counter:
    __slots__ = ("steps", "limit", "deadline")

    def __init__(self, limit: int, timeout_s: float, steps: int = 0):
        self.steps, self.limit = steps, limit
        self.deadline = time.perf_counter() + timeout_s

    def tick(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > self.limit:
            raise StepLimit
        if time.perf_counter() > self.deadline:
            raise TimeLimit


class Uncounted:
    """A counter that counts nothing: for samplers that reuse a mapper to build an input."""

    def tick(self, n: int = 1) -> None:
        pass


UNCOUNTED = Uncounted()


@dataclass(frozen=True)
class Brick:
    name: str
    x: str  # input type
    y: str  # output type
    text: str  # what the mapper does, in one sentence the model reads
    fn: Callable[[Any, Counter], Any]  # deterministic mapper; returns None for "no output"
    sampler: Callable[[random.Random], Any] | None = None  # None: the sampler of type x
    parts: tuple[str, ...] = ()  # base brick names of a chain; () for a base brick

    @property
    def steps(self) -> tuple[str, ...]:
        return self.parts or (self.name,)

    def sample(self, rng: random.Random) -> Any:
        return (self.sampler or SAMPLERS[self.x])(rng)

    def __call__(self, value: Any, counter: Counter) -> Any:
        return self.fn(value, counter)


def compose(*parts: Brick) -> Brick:
    """e1 then e2 then ...: a brick of type (X(e1), Y(et)); TypeError unless Y(ei) == X(ei+1)."""
    if not parts:
        raise ValueError("compose needs at least one brick")
    for a, b in zip(parts, parts[1:]):
        if a.y != b.x:
            raise TypeError(f"cannot compose {a.name} ({a.x} -> {a.y}) with {b.name} ({b.x} -> {b.y})")
    fns = tuple(p.fn for p in parts)

    def run(value, counter):
        for f in fns:
            value = f(value, counter)
            if value is None:  # no output stops the chain
                return None
        return value

    steps = tuple(s for p in parts for s in p.steps)
    return Brick(" > ".join(steps), parts[0].x, parts[-1].y, " Then: ".join(p.text for p in parts), run,
                 parts[0].sampler or SAMPLERS[parts[0].x], steps)


def by_name(bricks: list[Brick]) -> dict[str, Brick]:
    """A registry dict from an explicit list, refusing duplicate names."""
    out: dict[str, Brick] = {}
    for b in bricks:
        if b.name in out:
            raise ValueError(f"duplicate brick name {b.name!r}")
        out[b.name] = b
    return out
