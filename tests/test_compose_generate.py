"""generate.py mode=races: same seed, same dataset; resumable; the summary a user reads; bad config."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import envs
import generate
from utils.records import load_records

ROOT = Path(__file__).resolve().parents[1]
CONFIG = str(ROOT / "configs" / "generate" / "races.yaml")
SMALL = ["races.count=120", "shard_size=50", "races.operators.branch=1", "races.operators.loop=1"]


def run(out: Path, *extra: str) -> None:
    generate.main(["--config", CONFIG, f"out={out}", *SMALL, *extra])


def shards(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("train-*.jsonl"))}


def test_same_seed_same_dataset_and_resume(tmp_path, capsys):
    run(tmp_path / "a")
    text = capsys.readouterr().out
    for line in ("distinct composites found", "rejections:", "min/median/max", "seconds"):
        assert line in text
    run(tmp_path / "b")
    a, b = shards(tmp_path / "a"), shards(tmp_path / "b")
    assert list(a) == ["train-00000.jsonl", "train-00001.jsonl", "train-00002.jsonl"] and a == b
    (tmp_path / "a" / "train-00001.jsonl").unlink()  # as if killed before this shard was written
    run(tmp_path / "a")
    assert shards(tmp_path / "a") == b
    run(tmp_path / "c", "seed=1")
    assert shards(tmp_path / "c") != b


def test_records_are_valid_distinct_and_score_gold_exact(tmp_path):
    run(tmp_path)
    records = load_records(tmp_path)
    assert len(records) == 120
    assert {r["meta"]["operator"] for r in records} == set(generate.RacesGenConfig().operators)
    assert len({r["id"] for r in records}) == 120
    mains = [json.dumps(r["meta"]["steps"]) for r in records if r["meta"]["operator"] != "loop"]
    assert len(set(mains)) == len(mains), "each record's main chain is its own composite"
    for r in records:
        assert 2 <= r["difficulty"] <= 5
        assert envs.score(r, r["answer"]).correct
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["records"] == 120 and manifest["composites_found"] >= 120


def test_pool_size_override_and_other_settings_refused(tmp_path):
    run(tmp_path, "races.pool_size=50")
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["pool_bricks"] == 50
    with pytest.raises(SystemExit, match="other settings"):
        run(tmp_path, "races.pool_size=60")


def test_bad_races_config_is_one_line_naming_the_key(tmp_path):
    for override, key in (("races.operators.teleport=1", "races.operators.teleport"), ("races.max_size=7", "races.min_size"),
                          ("races.pool=nope", "races.pool"), ("races.timeout_s=0", "races.timeout_s"),
                          ("races.max_steps=0", "races.max_steps"), ("races.max_seconds=-1", "races.max_seconds"),
                          ("races.usage_power=-1", "races.usage_power")):
        p = subprocess.run([sys.executable, "generate.py", "--config", CONFIG, f"out={tmp_path}", override],
                           cwd=ROOT, capture_output=True, text=True)
        assert p.returncode == 2 and key in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
