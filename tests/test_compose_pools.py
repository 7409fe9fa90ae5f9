"""The RACES paper's pools as explicit lists (envs/compose/pools/*.yaml) and live sampling from the
frontier search's bank (races line 37), not from a random walk."""
from __future__ import annotations

import random

import pytest

import envs
from envs.compose.bricks import (ALGORITHMIC, BRICKS, GYM_BRICKS, MODEL_WRITTEN, POOL_DIR, POOLS, pool_bricks,
                                 read_pool_file, resolve_pool)
from envs.compose.search import Pool
from envs.compose.types import BOOL


def test_races300_is_the_papers_mix():
    parts = read_pool_file(POOL_DIR / "races300.yaml")
    assert len(parts["algorithmic"]) == 45  # races line 66: "45 of the 300 environments are derived from algorithms"
    assert len(parts["algorithmic"]) + len(parts["model_written"]) + len(parts["manual"]) == 300  # line 18
    names = POOLS["races300"]
    assert len(set(names)) == 300
    assert set(parts["algorithmic"]) <= GYM_BRICKS.keys()  # derived from our algorithmic (RLVE-Gym) envs
    assert not set(parts["manual"]) & GYM_BRICKS.keys() and set(parts["manual"]) <= BRICKS.keys()
    assert not set(parts["model_written"]) & BRICKS.keys()  # written by a model, loaded from brick_dirs
    assert MODEL_WRITTEN["races300"] == set(parts["model_written"]) and parts["model_written"]
    assert BOOL not in {BRICKS[n].y for n in parts["algorithmic"] + parts["manual"]}  # no predicate: unused by the 4 ops
    assert sum(n in ALGORITHMIC for n in names) >= 45


def test_races50_is_inside_races300_and_lists_no_model_brick():
    assert len(POOLS["races50"]) == 50 == len(set(POOLS["races50"]))
    assert set(POOLS["races50"]) <= set(POOLS["races300"])
    assert MODEL_WRITTEN["races50"] == frozenset()
    assert [b.name for b in pool_bricks("races50")] == POOLS["races50"]


def test_a_pool_file_needs_its_model_written_bricks():
    with pytest.raises(ValueError, match="not in brick_dirs"):
        pool_bricks("races300")
    fake = [BRICKS["digits"].__class__(n, "list[int]", "int", "x.", lambda v, c: 2) for n in MODEL_WRITTEN["races300"]]
    assert len(resolve_pool("races300", 0, fake)) == 300
    stray = fake + [BRICKS["digits"].__class__("stray", "int", "int", "x.", lambda v, c: 2)]
    with pytest.raises(ValueError, match="does not list"):
        resolve_pool("races300", 0, stray)
    assert len(resolve_pool("base50", 0, stray[:1])) == 51  # code pools append loaded bricks, as before


def test_live_problems_come_from_the_search_bank():
    env = envs.make("races", pool="races50", composites=300, max_size=4)
    recs = [env.generate(seed) for seed in range(40)]
    assert recs[:5] == [env.generate(seed) for seed in range(5)]  # same seed, same record
    bank = env.pool.bank
    assert bank is not None and bank.result.stopped == "target" and len(bank.result.composites) == 300
    found = {c.steps for c in bank.result.composites}
    for r in recs:
        steps = r["meta"]["steps"]
        threads = steps if isinstance(steps[0], list) else [steps]  # parallel: every thread from the bank
        assert all(tuple(t) in found for t in threads), r["id"]
        assert envs.score(r, r["answer"]).correct
    lo, _, hi = bank.result.spread
    assert lo >= 1  # usage-budget weighting: every brick of the pool is used by some composite
    again = envs.make("races", pool="races50", composites=300, max_size=4)
    assert again.generate(7) == recs[7]  # a second env (another rank, a resume) draws the same problems


def test_walk_sampling_is_still_available():
    env = envs.make("races", pool="races50", sampling="walk", max_size=3)
    rec = env.generate(3)
    assert env.pool.bank is None and envs.score(rec, rec["answer"]).correct
    with pytest.raises(ValueError, match="sampling"):
        envs.make("races", pool="races50", sampling="bfs")


def test_pool_draw_uses_the_bank_when_there_is_one():
    env = envs.make("races", pool="races50", composites=200, max_size=3)
    env.bank()
    chain = env.pool.draw(random.Random(0), 3)
    assert chain.steps in {c.steps for c in env.pool.bank.by_size[3]}
    plain = Pool(pool_bricks("races50"))
    assert plain.draw(random.Random(0), 2) is not None  # no bank: a walk
