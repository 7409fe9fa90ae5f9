"""Shipped curricula give the paper's weights at the step boundaries, and scale to a run's length."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from utils.curriculum import CURRICULA_DIR, load, parse


E, EM, M, H = "easy", "easy_medium", "medium", "hard"

# The paper's tables, typed from code_rl (Appendix B.1 Table 2, Appendix C Table 4): for each
# curriculum, its phases as (first step, last step + 1, weights). Every boundary is checked.
TABLES = {
    "chains_soft": [(0, 7500, {E: .80, M: .15, H: .05}), (7500, 17500, {E: .15, M: .80, H: .05}),
                    (17500, 30000, {E: .15, M: .40, H: .45}), (30000, 40000, {E: .05, M: .15, H: .80})],
    "chains_hard": [(0, 7500, {E: .90, M: .05, H: .05}), (7500, 17500, {E: .05, M: .90, H: .05}),
                    (17500, 40000, {E: .05, M: .05, H: .90})],
    "classic": [(0, 10000, {E: 1, M: 0, H: 0}), (10000, 15000, {E: .75, M: .25, H: 0}),
                (15000, 25000, {E: 0, M: 1, H: 0}), (25000, 30000, {E: 0, M: .75, H: .25}),
                (30000, 40000, {E: 0, M: 0, H: 1})],
    "reverse": [(0, 10000, {E: 0, M: 0, H: 1}), (10000, 15000, {E: 0, M: .25, H: .75}),
                (15000, 25000, {E: 0, M: 1, H: 0}), (25000, 30000, {E: .25, M: .75, H: 0}),
                (30000, 40000, {E: 1, M: 0, H: 0})],
    # Table 4: "uses the easy-medium split instead of the standard easy bin"
    "reverse_medium_easy": [(0, 17500, {EM: 0, M: 1, H: 0}), (17500, 20000, {EM: .25, M: .75, H: 0}),
                            (20000, 40000, {EM: 1, M: 0, H: 0})],
    "uniform": [(0, 40000, {E: .25, EM: .25, M: .25, H: .25})],
    "chains_uniform": [(0, 40000, {E: 1 / 3, M: 1 / 3, H: 1 / 3})],
    "only_easy": [(0, 40000, {E: 1, M: 0, H: 0})],
    "only_medium": [(0, 40000, {E: 0, M: 1, H: 0})],
    "only_hard": [(0, 40000, {E: 0, M: 0, H: 1})],
}
KEYS = {"chains_soft": "chain_level", "chains_hard": "chain_level", "chains_uniform": "chain_level",
        "only_easy": "chain_level", "only_medium": "chain_level", "only_hard": "chain_level"}


def close(got: dict, want: dict) -> bool:
    return got.keys() == want.keys() and all(abs(got[b] - want[b]) < 1e-9 for b in want)


def test_every_shipped_curriculum_is_checked():
    assert sorted(p.stem for p in CURRICULA_DIR.glob("*.yaml")) == sorted(TABLES)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_tables_weights_at_every_step(name):
    """The weights on both sides of every phase boundary (and so, piecewise constant, at every
    step), the run length of the paper's figures (40K), and the meta field holding the bin."""
    sched = load(name)
    assert sched.total_steps == 40000 and sched.key == KEYS.get(name, "bin")
    for start, end, want in TABLES[name]:
        for step in (start, start + 1, (start + end) // 2, end - 1):
            assert close(sched.weights(step), want), (name, step, sched.weights(step))
    assert [until for until, _ in sched.phases] == [end for _, end, _ in TABLES[name]]
    assert close(sched.weights(10**6), TABLES[name][-1][2]), "past the end: the last phase"


@pytest.mark.parametrize("name", sorted(TABLES))
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
    counts = Counter(sched.sample(30, rng) for _ in range(4000))  # 30 % of the run: the .75/.25 mixture
    assert set(counts) == {"easy", "medium"} and abs(counts["easy"] / 4000 - 0.75) < 0.05
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
