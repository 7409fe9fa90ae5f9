"""bench/trainer.py: `--model DIR` on CPU, one of ours' runs measured in its own process (CPU and
wall marks, train.py's time split, peak RSS), the figures and the memory plan computed from it, a
bad model directory refused in one line; the side by side with TRL when TRL is installed (a
bench-only extra, not in CI)."""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATH = ROOT / "bench" / "trainer.py"
SIZE = ["--steps", "1", "--batch", "16", "--group", "8", "--max-tokens", "4", "--micro-batch", "8"]


def module():
    spec = importlib.util.spec_from_file_location("bench_trainer", PATH)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    from utils.tiny import build_tiny

    return str(build_tiny(tmp_path_factory.mktemp("tiny") / "model"))


def run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PATH), *argv], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})


def test_ours_on_a_model_directory(tiny, tmp_path):
    """One run of ours on --model DIR: a mark per step, the time split, memory; the rates from them."""
    spec = {"out": str(tmp_path), "name": "ours", "informative": 0.5, "minibatches": 1}
    record = tmp_path / "ours.json"
    p = run("--role", "ours", "--spec", json.dumps(spec), "--record", str(record), "--model", tiny, *SIZE)
    assert p.returncode == 0, p.stderr[-3000:]
    r = json.loads(record.read_text())
    assert (tmp_path / "ours" / "metrics.jsonl").is_file() and not (tmp_path / "ours" / "checkpoints").exists()
    assert len(r["marks"]) == 2 and len(r["tokens"]) == 2 and r["trained_frac"] == [0.5, 0.5]
    m = module()
    assert set(r["split"][0]) == set(m.SPLIT) and r["split"][1]["rollout"] > 0
    got = m.measured(r)
    assert got["steps"] == 1 and got["tokens_per_cpu_s"] > 0 and got["cpu_per_step"] > 0
    assert 0 < got["rss_growth"] < got["peak_rss"]
    assert got["split"]["train"] > 0 and "other" in got["split"]
    a = argparse.Namespace(model=tiny, micro_batch=8, grad_ckpt=False)
    plain, ckpt = m.plan_bytes(a, 120, False), m.plan_bytes(argparse.Namespace(**{**vars(a), "grad_ckpt": True}), 120, False)
    assert 0 < ckpt < plain < m.plan_bytes(a, 120, True)  # checkpointing saves, a reference adds


def test_bad_model_directory_is_one_line(tmp_path):
    p = run("--model", str(tmp_path / "missing"), *SIZE, "--minibatches", "1")
    assert p.returncode == 1 and p.stderr.strip().count("\n") == 0 and "no config.json" in p.stderr


@pytest.mark.skipif(importlib.util.find_spec("trl") is None, reason="TRL is a bench-only extra")
def test_side_by_side_with_trl(tiny, tmp_path):
    p = run("--model", tiny, *SIZE, "--minibatches", "1", "--informative", "1.0", "--rounds", "1",
            "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr[-3000:]
    assert "| 100% | 1 |" in p.stdout and "Target: ours >= 1.2x TRL" in p.stdout
    assert "| ours, 100% informative, 1 minibatch(es) |" in p.stdout and "| TRL, 100%" in p.stdout
    assert json.loads((tmp_path / "trainer.json").read_text())["meta"]["grad_ckpt"] is False
