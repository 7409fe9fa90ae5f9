"""Data references name a split, and training never reads a test split (puzzle-to-math issue, point 1):
the sampler's static sources, SFT data and the SFT-trace generator's input records."""
from __future__ import annotations

import pytest

from envs.sampler import PromptSampler, SamplerConfig, Source
from utils.config import ConfigError, load_or_raise
from utils.records import DataRefError, load_split, resolve_split, shard_path, write_jsonl


def rec(split: str, i: int) -> dict:
    return {"id": f"{split}-{i}", "env": "sorting", "difficulty": 0, "prompt": f"{split} {i}", "answer": None,
            "meta": {}}


@pytest.fixture
def data(tmp_path):
    """A generate.py-style directory: train_sft, train_rl and test shards (two shards of train_rl)."""
    d = tmp_path / "puzzles"
    for split, shards in (("train_sft", 1), ("train_rl", 2), ("test", 1)):
        for k in range(shards):
            write_jsonl(shard_path(d, split, k), [rec(split, 10 * k + i) for i in range(3)])
    (d / "manifest.json").write_text("{}")
    return d


def test_a_directory_is_read_for_one_split_only(data):
    rows = load_split(data, "train_rl")
    assert len(rows) == 6 and {r["id"].split("-")[0] for r in rows} == {"train_rl"}
    with pytest.raises(DataRefError) as e:  # a directory without a split is ambiguous
        resolve_split(data, "")
    assert e.value.key == "split" and "['test', 'train_rl', 'train_sft']" in str(e.value)
    with pytest.raises(DataRefError, match="no nope-NNNNN.jsonl shards"):
        resolve_split(data, "nope")


@pytest.mark.parametrize("path,split,key", [
    ("{d}", "test", "split"),                       # asking for the test split
    ("{d}/test-00000.jsonl", "", "data"),           # pointing at a test shard
    ("{d}/*.jsonl", "", "data"),                    # a glob that reaches the test shard
    ("{d}/*-00000.jsonl", "", "data"),
])
def test_training_refuses_every_way_to_reach_a_test_split(data, path, split, key):
    with pytest.raises(DataRefError) as e:
        resolve_split(path.format(d=data), split)
    assert e.value.key == key and "test split 'test'" in str(e.value)
    assert resolve_split(path.format(d=data), split, training=False)  # evaluation may read it


def test_files_and_globs_that_stay_in_training_splits_are_read(data):
    assert len(load_split(f"{data}/train_*.jsonl")) == 9
    assert len(load_split(f"{data}/*.jsonl", "train_sft")) == 3  # a glob filtered by the split
    assert len(load_split(data / "train_rl-00001.jsonl")) == 3
    with pytest.raises(DataRefError, match="split 'train_rl', not 'train_sft'"):
        resolve_split(data / "train_rl-00001.jsonl", "train_sft")
    with pytest.raises(DataRefError, match="does not exist"):
        resolve_split(data / "missing", "train_rl")


def test_sampler_sources_name_the_split(data):
    bad = SamplerConfig(sources=[Source(data=str(data))])
    assert [k for k, _ in bad.validate()] == ["data.sources.0.split"]
    bad = SamplerConfig(sources=[Source(data=f"{data}/*.jsonl")])
    assert [k for k, _ in bad.validate()] == ["data.sources.0.data"]
    cfg = SamplerConfig(sources=[Source(data=str(data), split="train_rl")])
    assert list(cfg.validate()) == []
    items = PromptSampler(cfg, seed=0, rollouts_per_problem=8, total_steps=10).sample(0, 64)
    assert {it.record["id"].split("-")[0] for it in items} == {"train_rl"}


def test_sft_and_trace_configs_refuse_test_splits(data, tmp_path):
    import generate
    import train

    base = ["stage=sft", f"model={tmp_path}"]
    with pytest.raises(ConfigError) as e:
        load_or_raise(train.TrainConfig, base + [f"sft.data=[{data}]"])
    assert e.value.key == "sft.split"
    with pytest.raises(ConfigError) as e:
        load_or_raise(train.TrainConfig, base + [f"sft.data=[{data}/test-00000.jsonl]"])
    assert e.value.key == "sft.data.0" and "training never reads a test split" in e.value.msg
    assert load_or_raise(train.TrainConfig, base + [f"sft.data=[{data}]", "sft.split=train_sft"])
    gen = ["mode=sft_traces", "traces.teacher.backend=replay", "traces.samples=0", "traces.include_answer=true"]
    with pytest.raises(ConfigError) as e:
        load_or_raise(generate.GenerateConfig, gen + [f"traces.records=[{data}]", "traces.records_split=test"])
    assert e.value.key == "traces.records_split"
    assert load_or_raise(generate.GenerateConfig, gen + [f"traces.records=[{data}]", "traces.records_split=train_sft"])


# ------------------------------------------------------------------ the puzzle-to-math splits (point 2)


def _puzzle_splits():
    import generate
    from envs.puzzles.grid import PuzzleEnv

    cfg = load_or_raise(generate.GenerateConfig, ["--config", "configs/generate/puzzles.yaml"])
    out = {}
    for split, entries in cfg.splits.items():
        for e in entries:
            env = generate._env(e.env, e.params)
            assert isinstance(env, PuzzleEnv)
            w, h, level = env.params_for(e.difficulty)
            out.setdefault(split, []).append((e.env, w * h, env.levels.index(level) if level else 0))
    return cfg, out


def test_puzzle_splits_are_distinct_and_ordered_as_the_paper_describes():
    cfg, splits = _puzzle_splits()
    assert cfg.distinct and set(splits) == {"train_sft", "train_rl", "test"}
    for puzzle in ("bridges", "pattern", "undead", "galaxies"):
        sft, rl, test = ([(a, lv) for p, a, lv in splits[s] if p == puzzle] for s in ("train_sft", "train_rl", "test"))
        assert sft and rl and test, puzzle
        # held out "from training, which used smaller grids" (line 143): the largest test grid is larger
        assert max(a for a, _ in test) > max(a for a, _ in sft + rl), puzzle
        # RL "on harder puzzles than SFT" (line 149): each RL entry is larger or harder than SFT's largest
        top = max(sft)
        assert all(e > top for e in rl), (puzzle, rl, top)
    labels = [(p, a, lv) for s in splits.values() for p, a, lv in s]
    assert len(set(labels)) == len(labels)


def test_distinct_refuses_a_shared_grid_and_the_summary_shows_sharing(tmp_path, capsys):
    import generate

    argv = ["mode=envs", f"out={tmp_path}/g", "splits={test: [{env: undead, count: 2, params: {width: 3, height: 3, "
            "level: easy}}], train_rl: [{env: undead, count: 3, difficulty: 0, params: {width: 3, height: 3}}]}"]
    with pytest.raises(ConfigError) as e:
        load_or_raise(generate.GenerateConfig, argv + ["distinct=true"])
    assert e.value.key == "splits.train_rl.0" and "undead 3x3 easy is also in split test" in e.value.msg
    generate.main(argv)
    out = capsys.readouterr().out
    assert "test: 2 records  (held out" in out and "3  undead 3x3 easy   <- also in test" in out
    assert '"test_splits": [\n    "test"\n  ]' in (tmp_path / "g" / "manifest.json").read_text()
