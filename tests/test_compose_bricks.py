"""Every brick: deterministic, its declared types match what its mapper returns, steps are counted,
its input is left alone; and the registry is as large and as connected as the paper needs."""
from __future__ import annotations

import copy
import random
from collections import Counter as Tally

import pytest

from envs.compose.brick import Counter
from envs.compose.bricks import ALGORITHMIC, BRICKS, POOLS, pool_bricks
from envs.compose.filters import Limits, execute, step
from envs.compose.types import BOOL, TYPES, conforms
from utils.records import derive_seed

NAMES = sorted(BRICKS)
BIG = Limits(max_steps=10**6, timeout_s=10.0)  # so a long but legal input is not cut off by the path limit


@pytest.mark.parametrize("name", NAMES)
def test_brick_is_deterministic_typed_and_counts_steps(name):
    b = BRICKS[name]
    rng = random.Random(derive_seed("brick-test", name))
    outputs = kept = 0
    for _ in range(20):
        x = b.sample(rng)
        assert conforms(x, b.x), f"{name}: sampler gave {x!r}, not {b.x}"
        before = copy.deepcopy(x)
        first, second = execute(b, x, 0, BIG), execute(b, x, 0, BIG)
        assert first == second, f"{name} is not deterministic on {x!r}"
        assert x == before, f"{name} mutated its input"
        assert first not in ("exception", "timeout", "steps", "bad_type"), f"{name}({x!r}) -> {first}"
        if first == "no_output":
            continue
        out, steps = first
        assert conforms(out, b.y), f"{name}({x!r}) returned {out!r}, declared {b.y}"
        assert steps >= 1, f"{name} counted no steps on {x!r}"
        outputs += 1
        kept += b.y == BOOL or type(step(b, (x,), 0, [], Limits())) is not str  # Appendix D, 400-step path limit
    assert outputs >= 10, f"{name} gives no output on most of its own sampled inputs"
    assert kept >= 3, f"{name}: the Appendix D filter rejects its output on {20 - kept} of 20 of its own inputs"


def test_enough_bricks_over_enough_types():
    assert len(BRICKS) >= 300  # the paper's pool size (races line 18)
    assert len(ALGORITHMIC) > len(BRICKS) / 2  # most are algorithms over structured values, not one-liners
    ins = Tally(b.x for b in BRICKS.values())
    outs = Tally(b.y for b in BRICKS.values())
    used = {t for t in TYPES if ins[t] or outs[t]}
    assert len(used) == len(TYPES)
    for t in used - {BOOL}:  # bool is the predicates' output only (see bricks/predicates.py)
        assert ins[t] >= 5 and outs[t] >= 5, f"type {t}: {ins[t]} bricks in, {outs[t]} out"
    assert outs[BOOL] >= 5


def test_pools():
    for name in ("base50", "core50"):
        assert len(POOLS[name]) == 50 == len(set(POOLS[name]))
    assert POOLS["all"][:50] == POOLS["base50"] and sorted(POOLS["all"]) == NAMES
    assert [b.name for b in pool_bricks("all", 50)] == POOLS["base50"]
    base = [BRICKS[n] for n in POOLS["base50"]]  # the documented choice: typed, algorithmic, composable
    assert BOOL not in {b.y for b in base} and sum(n in ALGORITHMIC for n in POOLS["base50"]) >= 45
    for t in set(TYPES) - {BOOL}:
        assert sum(b.x == t for b in base) >= 2 and sum(b.y == t for b in base) >= 1, t
    assert [b.name for b in pool_bricks(["digits", "list_sum"])] == ["digits", "list_sum"]
    for bad in ("nope", ["no_such_brick"]):
        with pytest.raises(ValueError):
            pool_bricks(bad)


def test_counter_stops_a_runaway_mapper():
    c = Counter(limit=400, timeout_s=10.0)
    with pytest.raises(Exception) as e:
        while True:
            c.tick()
    assert type(e.value).__name__ == "StepLimit" and c.steps == 401
