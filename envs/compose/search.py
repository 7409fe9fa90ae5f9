"""Finding valid chains: the paper's frontier-based randomized breadth-first search (races line 37:
"randomized breadth-first traversal with depth, time, and extension limits, while usage-budget
weighting promotes balanced pool utilization"), the Bank of composites it finds that live sampling
draws from (RacesEnv, the extra threads of PARALLEL), and a random walk (`Pool.walk`: the BRANCH
operator's second chain, and live sampling with sampling="walk", which is not the paper's).

A chain is kept with the states it produced on its sampled input: the problem a model sees is
that chain on that input, and every state of it passed the filter.
"""
from __future__ import annotations

import math
import random
import statistics
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from envs.compose.brick import Brick
from envs.compose.filters import REASONS, Limits, step
from envs.compose.types import BOOL, to_json


class Chain(NamedTuple):
    steps: tuple[str, ...]  # brick names in order
    states: tuple  # the input, then the output of every step
    types: tuple[str, ...]  # the type of every state
    cost: int  # atomic steps used

    @property
    def size(self) -> int:
        return len(self.steps)


def start(value: Any, t: str) -> Chain:
    return Chain((), (value,), (t,), 0)


def grow(brick: Brick, chain: Chain, siblings: list, limits: Limits) -> Chain | str:
    """The chain one brick longer, or the filter's reason for refusing it."""
    r = step(brick, chain.states, chain.cost, siblings, limits)
    if type(r) is str:
        return r
    return Chain(chain.steps + (brick.name,), chain.states + (r[0],), chain.types + (brick.y,), r[1])


class Pool:
    """The bricks a search or an env draws from. Predicates (Y = bool) are kept apart: the filter
    rejects a bool inside a chain, so they only serve as `branch` conditions."""

    def __init__(self, bricks: list[Brick], limits: Limits = Limits()):
        self.bricks = {b.name: b for b in bricks}
        self.known = self.bricks  # the bricks records may name: the pool's, and (RacesEnv) the registry's
        self.links = [b for b in bricks if b.y != BOOL]
        self.predicates = [b for b in bricks if b.y == BOOL]
        self.limits = limits
        self.endo = [b for b in self.links if b.x == b.y]
        self.by_input: dict[str, list[Brick]] = {}
        for b in self.links:
            self.by_input.setdefault(b.x, []).append(b)
        if not self.links:
            raise ValueError("a pool needs at least one brick whose output is not bool")

    bank: "Bank | None" = None  # composites found by `search`: draw() takes chains from it instead of walking

    def draw(self, rng: random.Random, size: int) -> Chain | None:
        """A chain of `size` steps on a fresh input: from the bank when there is one, else a random walk."""
        if self.bank is not None:
            return self.bank.draw(rng, size)
        return self.walk(rng, size)

    def brick(self, name: str) -> Brick:
        """A brick by name; KeyError if neither the pool nor what it knows has it."""
        return self.bricks[name] if name in self.bricks else self.known[name]

    def walk(self, rng: random.Random, size: int, begin: Chain | None = None, end_type: str | None = None,
             endo: bool = False, tries: int = 100, stay: float = 0.0) -> Chain | None:
        """A random valid chain of `size` more steps (from `begin`, or from a sampled input of a random
        first brick), ending in end_type (endo: in its own input type); None if tries run out.
        stay: the chance that a step is drawn among type-preserving bricks (X -> X) where there are
        any, so that its steps can be reordered (SORT)."""
        for _ in range(tries):
            if begin is None:
                first = rng.choice(self.links if rng.random() >= stay else self.endo or self.links)
                chain, firsts = start(first.sample(rng), first.x), [first]
            else:
                chain, firsts = begin, None
            target = chain.types[0] if endo else end_type
            for depth in range(size):
                options = firsts if depth == 0 and firsts else self.by_input.get(chain.types[-1], [])
                if depth == size - 1 and target is not None:
                    options = [b for b in options if b.y == target]
                if stay and rng.random() < stay:
                    options = [b for b in options if b.y == b.x] or options
                for b in rng.sample(options, len(options)):
                    grown = grow(b, chain, [], self.limits)
                    if type(grown) is not str:
                        chain = grown
                        break
                else:
                    break
            else:
                return chain
        return None


@dataclass
class SearchConfig:
    min_size: int = 2  # composites shorter than this are extended but not kept (paper: >= 2)
    max_size: int = 5  # our choice 2..5 (races line 49's ablation rises from 2 to 5, falls at 6); up to 6
    target: int = 10_000  # stop after this many distinct composites
    max_seconds: float = 60.0  # wall-time cap; hitting it makes the result machine-dependent
    extensions: int = 3  # extensions tried per node
    usage_power: float = 1.0  # a brick used u times is drawn with weight (1 + u) ** -usage_power; 0: uniform
    patience: int = 2000  # trees in a row without a new composite before the pool counts as exhausted


@dataclass
class SearchResult:
    composites: list[Chain]
    rejections: dict[str, int]
    usage: dict[str, int]  # brick name -> occurrences in the kept composites
    seconds: float
    stopped: str  # "target", "time" or "exhausted"
    trees: int = 0
    tried: int = 0  # extensions tried
    spread: tuple[int, float, int] = field(default=(0, 0.0, 0))  # min / median / max of usage

    def __post_init__(self):
        uses = list(self.usage.values()) or [0]
        self.spread = (min(uses), statistics.median(uses), max(uses))


def _weighted_sample(rng: random.Random, bricks: list[Brick], usage: dict[str, int], k: int,
                     power: float) -> list[Brick]:
    """k bricks without replacement, P ~ (1 + uses) ** -power (Efraimidis-Spirakis keys r ** (1/w),
    compared as logs: r ** (1/w) underflows to 0 once a brick has been used a few hundred times)."""
    if power == 0:
        return rng.sample(bricks, min(k, len(bricks)))
    keyed = sorted(((math.log(1.0 - rng.random()) * (1 + usage[b.name]) ** power, i) for i, b in enumerate(bricks)),
                   reverse=True)
    return [bricks[i] for _, i in keyed[:k]]


def search(pool: Pool, cfg: SearchConfig, seed: int) -> SearchResult:
    """Frontier-based randomized BFS: draw a starting brick (usage-weighted) and an input, then grow
    that tree level by level, trying `extensions` usage-weighted bricks per node; every node of a
    size in [min_size, max_size] whose brick sequence is new is a composite."""
    if not 1 <= cfg.min_size <= cfg.max_size:
        raise ValueError(f"need 1 <= min_size <= max_size, got {cfg.min_size}..{cfg.max_size}")
    rng = random.Random(seed)
    usage = {b.name: 0 for b in pool.links}
    found: dict[tuple[str, ...], Chain] = {}
    rejections = dict.fromkeys(REASONS, 0)
    t0 = time.perf_counter()
    deadline = t0 + cfg.max_seconds
    trees = tried = idle = 0
    stopped = "target"
    while len(found) < cfg.target:
        if time.perf_counter() > deadline:
            stopped = "time"
            break
        if idle >= cfg.patience:
            stopped = "exhausted"
            break
        first = _weighted_sample(rng, pool.links, usage, 1, cfg.usage_power)[0]
        root = start(first.sample(rng), first.x)
        trees += 1
        before = len(found)
        frontier = deque([root])
        while frontier and len(found) < cfg.target:
            node = frontier.popleft()
            options = [first] if node is root else _weighted_sample(
                rng, pool.by_input.get(node.types[-1], []), usage, cfg.extensions, cfg.usage_power)
            siblings: list = []
            for b in options:
                tried += 1
                child = grow(b, node, siblings, pool.limits)
                if type(child) is str:
                    rejections[child] += 1
                    continue
                siblings.append(to_json(child.states[-1]))
                if child.size >= cfg.min_size and child.steps not in found:
                    found[child.steps] = child
                    for name in child.steps:
                        usage[name] += 1
                    if len(found) >= cfg.target:
                        break
                if child.size < cfg.max_size:
                    frontier.append(child)
            if node.size == 1 and not siblings and cfg.max_size > 1:
                rejections["short_path"] += 1  # a one-brick path that cannot grow
        idle = 0 if len(found) > before else idle + 1
    return SearchResult(list(found.values()), rejections, usage, time.perf_counter() - t0, stopped, trees, tried)


def rerun(pool: Pool, steps, rng: random.Random, seen: set | None = None, tries: int = 20) -> Chain | None:
    """The composite `steps` run on a fresh input: its first brick's sampler is drawn until the whole
    path passes the filter (on an input not in `seen`, given as canonical JSON); None after `tries` draws."""
    from envs.compose.types import canon

    bricks = [pool.brick(n) for n in steps]
    for _ in range(tries):
        run = start(bricks[0].sample(rng), bricks[0].x)
        if seen is not None and canon(run.states[0]) in seen:
            continue
        for b in bricks:
            run = grow(b, run, [], pool.limits)
            if type(run) is str:
                break
        else:
            return run
    return None


class Bank:
    """The composite environments a search found, by size: what live RACES training draws from. A draw
    picks a composite of the asked size (uniformly: the search's usage-budget weighting already spread the
    bricks over the composites) and runs it on a fresh input from its first brick's sampler (races line
    35: "the sampler provides an unlimited stream of training data")."""

    def __init__(self, pool: Pool, result: SearchResult):
        self.pool, self.result = pool, result
        self.by_size: dict[int, list[Chain]] = {}
        for c in result.composites:
            self.by_size.setdefault(c.size, []).append(c)
        self._suited: dict[tuple, list[Chain]] = {}

    def sizes(self) -> list[int]:
        return sorted(self.by_size)

    def suited(self, size: int, op=None) -> list[Chain]:
        """The composites of this size that the operator can use (op.suits), in search order."""
        key = (size, getattr(op, "name", ""))
        if key not in self._suited:
            chains = self.by_size.get(size, [])
            self._suited[key] = [c for c in chains if op.suits(self.pool, c)] if op is not None else chains
        return self._suited[key]

    def draw(self, rng: random.Random, size: int, op=None, tries: int = 5) -> Chain | None:
        """A composite of `size` steps suited to op, run on a fresh input; None if none runs in `tries` picks."""
        options = self.suited(size, op)
        for _ in range(tries if options else 0):
            run = rerun(self.pool, rng.choice(options).steps, rng)
            if run is not None:
                return run
        return None


_BANKS: dict[tuple, Bank] = {}


def bank_for(pool: Pool, cfg: SearchConfig, seed: int, key: tuple = ()) -> Bank:
    """The search's bank for this pool and config (cached in the process under key + the config: the
    same search is not run twice)."""
    full = (tuple(pool.bricks), pool.limits, tuple(vars(cfg).items()), seed, key)
    if full not in _BANKS:
        _BANKS[full] = Bank(pool, search(pool, cfg, seed))
    bank = _BANKS[full]
    if bank.pool is not pool:  # same bricks and limits: share the chains, keep this pool's bricks for reruns
        shared = Bank.__new__(Bank)
        shared.pool, shared.result, shared.by_size, shared._suited = pool, bank.result, bank.by_size, {}
        return shared
    return bank
