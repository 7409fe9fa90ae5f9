"""envs/sampler.py: env mix, curriculum bins, adaptive difficulty, determinism and state."""
from __future__ import annotations

from collections import Counter

import pytest

from envs.sampler import AdaptiveConfig, CurriculumConfig, PromptSampler, SamplerConfig, Source
from utils.records import write_jsonl

CURRICULUM = """name: two_phase
key: bin
bins: [easy, hard]
total_steps: 100
phases:
  - {until: 50, weights: {easy: 1.0}}
  - {until: 100, weights: {hard: 1.0}}
"""


def make(sources, **kw):
    cfg = SamplerConfig(sources=sources, **{k: v for k, v in kw.items() if k in ("adaptive", "curriculum", "pool")})
    assert list(cfg.validate()) == []
    return PromptSampler(cfg, seed=kw.get("seed", 0), rollouts_per_problem=8, total_steps=kw.get("total_steps", 100))


def test_env_mix_follows_the_weights_and_is_deterministic():
    s = make([Source(env="sorting", weight=3.0), Source(env="edit_distance", weight=1.0)])
    items = [it for step in range(20) for it in s.sample(step, 50)]
    share = Counter(it.record["env"] for it in items)["sorting"] / len(items)
    assert 0.68 < share < 0.82
    again = make([Source(env="sorting", weight=3.0), Source(env="edit_distance", weight=1.0)])
    assert [it.record for it in again.sample(7, 50)] == [it.record for it in s.sample(7, 50)]
    assert [it.record for it in s.sample(8, 50)] != [it.record for it in s.sample(7, 50)]
    assert s.env_of(items[0]).name == items[0].record["env"]


def test_fixed_difficulty_and_static_records(tmp_path):
    recs = [{"id": f"r{i}", "env": "sorting", "difficulty": 0, "prompt": f"p{i}", "answer": None, "meta": {}}
            for i in range(5)]
    write_jsonl(tmp_path / "d.jsonl", recs)
    s = make([Source(env="sorting", difficulty=6), Source(data=str(tmp_path / "d.jsonl"))])
    items = s.sample(0, 200)
    live = [it for it in items if it.source == 0]
    static = [it for it in items if it.source == 1]
    assert live and static and {it.record["difficulty"] for it in live} == {6}
    assert {it.record["id"] for it in static} <= {r["id"] for r in recs}


def test_curriculum_moves_static_and_live_sources_between_bins(tmp_path):
    (tmp_path / "c.yaml").write_text(CURRICULUM)
    recs = [{"id": f"{b}{i}", "env": "sorting", "difficulty": 0, "prompt": f"{b}{i}", "answer": None,
             "meta": {"bin": b}} for b in ("easy", "hard") for i in range(4)]
    write_jsonl(tmp_path / "d.jsonl", recs)
    cur = CurriculumConfig(path=str(tmp_path / "c.yaml"), total_steps=10)  # scaled: easy for steps 0-4
    s = make([Source(data=str(tmp_path / "d.jsonl")), Source(env="sorting", bins={"easy": 0, "hard": 9})],
             curriculum=cur)
    early, late = s.sample(2, 100), s.sample(7, 100)
    assert {it.bin for it in early} == {"easy"} and {it.bin for it in late} == {"hard"}
    assert {it.record["meta"].get("bin") for it in early if it.source == 0} == {"easy"}
    assert {it.record["difficulty"] for it in late if it.source == 1} == {9}
    bad = SamplerConfig(sources=[Source(env="sorting")], curriculum=CurriculumConfig(path=str(tmp_path / "c.yaml")))
    assert [k for k, _ in bad.validate()] == ["data.sources.0.bins"]


def test_adaptive_difficulty_rises_with_accuracy_and_resumes():
    cfg = dict(adaptive=AdaptiveConfig(enabled=True, min_samples_factor=1))
    s = make([Source(env="sorting"), Source(env="edit_distance")], **cfg)
    assert s.difficulties() == {"sorting": 0, "edit_distance": 0}
    for step in range(3):
        items = s.sample(step, 16)
        s.update([(it, it.record["env"] == "sorting") for it in items for _ in range(8)])
    assert s.difficulties()["sorting"] >= 2 and s.difficulties()["edit_distance"] == 0
    resumed = make([Source(env="sorting"), Source(env="edit_distance")], **cfg)
    resumed.load_state_dict(s.state_dict())
    assert [it.record for it in resumed.sample(3, 32)] == [it.record for it in s.sample(3, 32)]
    assert max(it.record["difficulty"] for it in s.sample(3, 64) if it.record["env"] == "sorting") >= 2


@pytest.mark.parametrize("sources,adaptive,key", [
    ([Source(env="sorting", data="x.jsonl")], False, "data.sources.0"),
    ([Source()], False, "data.sources.0"),
    ([Source(env="nope")], False, "data.sources.0.env"),
    ([Source(data="missing.jsonl")], False, "data.sources.0.data"),
    ([Source(env="sorting"), Source(env="sorting")], True, "data.adaptive.enabled"),
    ([], False, "data.sources"),
])
def test_bad_sources_name_the_key(sources, adaptive, key):
    cfg = SamplerConfig(sources=sources, adaptive=AdaptiveConfig(enabled=adaptive))
    assert [k for k, _ in cfg.validate()][0] == key


def test_static_difficulty_distribution():
    s = make([Source(env="sorting", difficulty=2, difficulty_max=5)])
    ds = Counter(it.record["difficulty"] for it in s.sample(0, 400))
    assert set(ds) == {2, 3, 4, 5} and min(ds.values()) > 60
    bad = SamplerConfig(sources=[Source(env="sorting", difficulty=3, difficulty_max=1)])
    assert [k for k, _ in bad.validate()] == ["data.sources.0.difficulty_max"]
    adaptive = SamplerConfig(sources=[Source(env="sorting", difficulty_max=4)], adaptive=AdaptiveConfig(enabled=True))
    assert [k for k, _ in adaptive.validate()] == ["data.adaptive.enabled"]


def test_pool_picks_nested_subsets_and_never_the_excluded():
    from envs.gym import GYM
    from envs.sampler import PoolConfig

    held_out = sorted(GYM)[::10]
    picks = {k: PoolConfig(family="gym", count=k, exclude=held_out).names() for k in (1, 4, 16)}
    assert [len(picks[k]) for k in (1, 4, 16)] == [1, 4, 16]
    assert set(picks[1]) < set(picks[4]) < set(picks[16]) and not set(picks[16]) & set(held_out)
    everything = PoolConfig(family="gym", exclude=held_out).names()
    assert sorted(everything) == sorted(set(GYM) - set(held_out))
    assert PoolConfig(family="gym", count=4, seed=1).names() != PoolConfig(family="gym", count=4).names()
    s = make([], pool=PoolConfig(family="gym", count=4, exclude=held_out, difficulty=1, difficulty_max=2))
    items = s.sample(0, 200)
    assert {it.record["env"] for it in items} == set(picks[4]) and {it.record["difficulty"] for it in items} == {1, 2}
    for pool, key in ((PoolConfig(family="gymm"), "data.pool.family"), (PoolConfig(family="gym", count=10 ** 4), "data.pool.count"),
                      (PoolConfig(family="gym", exclude=["nope"]), "data.pool.exclude"), (PoolConfig(count=3), "data.pool.family")):
        assert [k for k, _ in SamplerConfig(sources=[Source(env="sorting")], pool=pool).validate()] == [key]


def test_controller_judges_once_the_whole_batch_is_in():
    # train.py reports a batch in one call per rank; nothing is judged until the last one arrives
    s = make([Source(env="sorting")], adaptive=AdaptiveConfig(enabled=True, min_samples_factor=1))
    items = s.sample(0, 4)  # 4 problems x 8 rollouts, all at the frontier d = 0
    first, second = [(it, True) for it in items[:2] for _ in range(8)], [(it, True) for it in items[2:] for _ in range(8)]
    s.update(first)
    assert s.difficulties() == {"sorting": 0} and s.controller.counts["sorting"] == [16, 16]
    state = s.state_dict()
    s.update(second)
    assert s.difficulties() == {"sorting": 1}
    resumed = make([Source(env="sorting")], adaptive=AdaptiveConfig(enabled=True, min_samples_factor=1))
    resumed.load_state_dict(state)  # a checkpoint taken between the two halves
    resumed.update(second)
    assert resumed.state_dict() == s.state_dict()
    # results that never complete their batch are judged when the next batch is drawn
    s.update([(it, True) for it in s.sample(1, 4)[:1] for _ in range(8)])
    s.sample(2, 4)
    assert s.controller.counts["sorting"] == [0, 0]
