"""bench/rollouts.py without vLLM (tests/vllm and `make bench` run the rest): the hf sampler's run
on --model DIR from a recorded step list, the report's rates and both targets, a bad model
directory refused in one line."""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATH = ROOT / "bench" / "rollouts.py"


def module():
    spec = importlib.util.spec_from_file_location("bench_rollouts", PATH)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PATH), *argv], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})


def test_hf_run_on_a_model_directory(tmp_path):
    from utils.tiny import build_tiny

    model = str(build_tiny(tmp_path / "model"))
    step = {"prompts": [[5, 6, 7], [8, 9]], "seeds": [1, 2], "n": 2, "max_tokens": 3, "cpu": 9.0, "wall": 9.0,
            "tokens": 9, "sync_cpu": 1.0, "sync_wall": 1.0}
    record = tmp_path / "hf.json"
    record.write_text(json.dumps([step, step]))
    p = run("--role", "hf", "--record", str(record), "--model", model)
    assert p.returncode == 0, p.stderr[-3000:]
    warm, s = json.loads(record.read_text())
    assert warm["tokens"] == 0 and warm["cpu"] == 0  # the warm-up is not measured
    assert 0 < s["tokens"] <= 12 and s["cpu"] > 0 and s["sync_cpu"] == 0
    t = module().totals([[warm, s]])
    assert t["steps"] == 1 and t["tokens"] == s["tokens"] and t["start_cpu"] is None


def test_report_rates_and_targets():
    m = module()

    def res(tokens, cpu, sync=0.0, start=None):
        steps = [{"tokens": 0, "cpu": 0, "wall": 0, "sync_cpu": 0, "sync_wall": 0},
                 {"tokens": tokens, "cpu": cpu, "wall": 2 * cpu, "sync_cpu": sync, "sync_wall": sync}]
        if start:
            steps[0].update(start_cpu=start, start_wall=start)
        return m.totals([steps, steps])  # two rounds pooled

    a = argparse.Namespace(gpu=False, compile=False, rounds=2, prompts=8, group=8, max_tokens=128)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        m.report(a, {"ours": res(1000, 1.0, 0.05, 30), "standalone": res(1000, 1.0, start=20), "hf": res(1000, 10.0)},
                 "runs/smollm2 (135M parameters, 30 layers)")
    text = out.getvalue()
    assert "2 measured steps x 8 prompts x G=8 = 64 rollouts" in text
    assert "| train.py vllm backend, synced every step (sync included) | 2000 | 952 |" in text
    assert "| 0.95x | 9.52x |" in text and "ours 30 s CPU" in text
    assert "0.95x, met" in text and "9.52x, met." in text
    a.max_tokens = 64
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        m.report(a, {"ours": res(1000, 2.0), "standalone": res(1000, 1.0), "hf": res(1000, 4.0)}, "head-64 tiny model")
    assert "0.50x, NOT met" in out.getvalue() and "2.00x, NOT met (not that size here)." in out.getvalue()


def test_bad_model_directory_is_one_line(tmp_path):
    p = run("--model", str(tmp_path / "missing"))
    assert p.returncode == 1 and p.stderr.strip().count("\n") == 0 and "no config.json" in p.stderr
