"""generate.py mode=envs: shards, dedupe across splits, resume after SIGKILL to identical bytes."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONFIG = """
mode: envs
seed: 3
workers: 2
shard_size: 8
splits:
  test:
    - {env: pattern, count: 12, params: {width: 5, height: 5}}
    - {env: undead, count: 4, params: {width: 4, height: 4, level: easy}}
  train:
    - {env: pattern, count: 112, params: {width: 6, height: 6}}
    - {env: bridges, count: 8, params: {width: 5, height: 5, level: easy}}
    - {env: undead, count: 24, params: {width: 7, height: 7, level: normal}}
"""
# The last entry is slow (~50/s), so the kill below, sent once train-00001 exists, lands well
# before the end even on a loaded machine (with only fast entries it came too late 1 run in 8).


def run(cfg: Path, out: Path, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "generate.py", "--config", str(cfg), f"out={out}"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def shards(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*-[0-9]*.jsonl"))}


def test_generate_dedupes_and_resumes_identically(tmp_path):
    cfg = tmp_path / "gen.yaml"
    cfg.write_text(CONFIG)
    a = tmp_path / "a"
    p = run(cfg, a)
    stdout, stderr = p.communicate(timeout=300)
    assert p.returncode == 0, stderr
    assert "test: 16 records" in stdout and "train: 144 records" in stdout
    files = shards(a)
    assert sorted(files) == ["test-00000.jsonl", "test-00001.jsonl"] + [f"train-{i:05d}.jsonl" for i in range(18)]
    recs = {name: [json.loads(line) for line in data.decode().splitlines()] for name, data in files.items()}
    test_ids = {r["meta"]["game_id"] for n, rs in recs.items() if n.startswith("test") for r in rs}
    train_ids = [r["meta"]["game_id"] for n, rs in recs.items() if n.startswith("train") for r in rs]
    assert len(test_ids) == 16 and len(set(train_ids)) == len(train_ids) == 144
    assert not test_ids & set(train_ids), "train must never contain a test puzzle"
    for f in ("config.yaml", "run_info.json", "manifest.json"):
        assert (a / f).exists()
    assert json.loads((a / "run_info.json").read_text())["seed"] == 3

    # kill -9 part-way, then re-run: the output is byte-identical to the uninterrupted run
    b = tmp_path / "b"
    p = run(cfg, b, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not (b / "train-00001.jsonl").exists():
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    partial = shards(b)
    assert len(partial) < len(files), "the kill came too late to test resume"
    p = run(cfg, b)
    stdout, stderr = p.communicate(timeout=300)
    assert p.returncode == 0, stderr
    assert shards(b) == files
    # and a third run has nothing left to do
    p = run(cfg, b)
    stdout, _ = p.communicate(timeout=300)
    assert "generated 0 records" in stdout and shards(b) == files
    # other settings into the same directory are refused rather than mixed in
    p = subprocess.run([sys.executable, "generate.py", "--config", str(cfg), f"out={b}", "seed=4"], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode != 0 and "other settings" in p.stderr


def test_shards_load_with_datasets(tmp_path):
    import datasets
    from utils.records import write_jsonl

    import envs

    recs = [envs.make(name).generate(seed=1) for name in ("bridges", "pattern", "undead", "galaxies")]
    write_jsonl(tmp_path / "train-00000.jsonl", recs)
    ds = datasets.load_dataset("json", data_files=str(tmp_path / "train-*.jsonl"), split="train")
    assert ds.num_rows == 4 and ds[0]["meta"]["game_id"] == recs[0]["meta"]["game_id"]
