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
