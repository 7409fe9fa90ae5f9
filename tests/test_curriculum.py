"""Shipped curricula give the paper's weights at the step boundaries, and scale to a run's length."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from utils.curriculum import CURRICULA_DIR, load, parse


def w(**kw):
    return kw


# (curriculum, [(step, expected weights over its bins)]) at the paper's own run length
EXPECTED = {
    "uniform": [(0, w(easy=.25, easy_medium=.25, medium=.25, hard=.25)), (39999, w(easy=.25, easy_medium=.25, medium=.25, hard=.25))],
    "classic": [(0, w(easy=1, medium=0, hard=0)), (9999, w(easy=1, medium=0, hard=0)),
                (10000, w(easy=.5, medium=.5, hard=0)), (14999, w(easy=.5, medium=.5, hard=0)),
                (15000, w(easy=0, medium=1, hard=0)), (24999, w(easy=0, medium=1, hard=0)),
                (25000, w(easy=0, medium=.5, hard=.5)), (30000, w(easy=0, medium=0, hard=1)),
                (39999, w(easy=0, medium=0, hard=1)), (10**6, w(easy=0, medium=0, hard=1))],
    "reverse": [(0, w(easy=0, medium=0, hard=1)), (10000, w(easy=0, medium=.5, hard=.5)),
                (15000, w(easy=0, medium=1, hard=0)), (25000, w(easy=.5, medium=.5, hard=0)),
                (30000, w(easy=1, medium=0, hard=0)), (39999, w(easy=1, medium=0, hard=0))],
    "reverse_medium_easy": [(0, w(easy_medium=0, medium=1)), (17499, w(easy_medium=0, medium=1)),
                            (17500, w(easy_medium=.5, medium=.5)), (19999, w(easy_medium=.5, medium=.5)),
                            (20000, w(easy_medium=1, medium=0)), (39999, w(easy_medium=1, medium=0))],
    "chains_hard": [(0, w(easy=1, medium=0, hard=0)), (10000, w(easy=0, medium=1, hard=0)),
                    (20000, w(easy=0, medium=0, hard=1))],
    "chains_soft": [(0, w(easy=.6, medium=.3, hard=.1)), (10000, w(easy=.2, medium=.6, hard=.2)),
                    (20000, w(easy=.1, medium=.3, hard=.6))],
}


def test_every_shipped_curriculum_is_checked():
    assert sorted(p.stem for p in CURRICULA_DIR.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_weights_at_boundaries(name):
    sched = load(name)
    for step, want in EXPECTED[name]:
        got = sched.weights(step)
        assert got.keys() == want.keys() and all(abs(got[b] - want[b]) < 1e-9 for b in want), (name, step, got)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_scales_to_the_run_length(name):
    full, short = load(name), load(name, total_steps=400)
    starts = [0] + [until for until, _ in full.phases[:-1]]
    for start, (until, _) in zip(starts, full.phases):
        a, b = round(start * 400 / full.total_steps), round(until * 400 / full.total_steps)
        assert short.weights(a) == short.weights(b - 1) == full.weights(start), (name, start)
    assert short.weights(399) == full.weights(full.total_steps - 1)


def test_sampling_follows_the_weights():
    sched = load("classic", total_steps=100)
    rng = random.Random(0)
    counts = Counter(sched.sample(30, rng) for _ in range(4000))  # 30 % of the run: the easy/medium mixture
    assert set(counts) == {"easy", "medium"} and abs(counts["easy"] / 4000 - 0.5) < 0.05
    assert {sched.sample(0, rng) for _ in range(50)} == {"easy"}


@pytest.mark.parametrize("bad, match", [
    ({"bins": ["a"], "total_steps": 10, "phases": [{"until": 5, "weights": {"a": 1}}]}, "end at total_steps"),
    ({"bins": ["a"], "total_steps": 10, "phases": [{"until": 10, "weights": {"b": 1}}]}, "unknown bins"),
    ({"bins": ["a"], "total_steps": 10, "phases": [{"until": 10, "weights": {"a": 0}}]}, "all zero"),
    ({"bins": ["a"], "total_steps": 10, "phases": [{"until": 6, "weights": {"a": 1}},
                                                   {"until": 4, "weights": {"a": 1}}]}, "must increase"),
    ({"bins": [], "total_steps": 10, "phases": []}, "bins"),
])
def test_bad_schedules_name_the_problem(bad, match):
    with pytest.raises(ValueError, match=match):
        parse(bad, "x.yaml")
    with pytest.raises(ValueError, match="no such file"):
        load("no_such_curriculum")
