"""evaluate.py on a whole node: problems sharded over processes (one engine each), one samples file
per shard, results merged; grading in the background while sampling goes on."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "evaluate.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def rows(run_dir: Path) -> list[tuple]:
    out = []
    for f in run_dir.glob("samples*.jsonl"):
        out += [(r["benchmark"], r["problem_id"], r["sample"], r["seed"], r["response"], r["correct"])
                for r in map(json.loads, open(f))]
    return sorted(out)


def test_shards_give_the_results_of_one_process(tmp_path):
    """hf backend, tiny model: 2 shards started by evaluate.py itself, and 2 shards run as separate
    jobs then merged by the same command without shard_index, both give results.json and
    per_problem.csv byte-identical to one process (other batch sizes too: a problem's samples
    depend on its seed only)."""
    from utils.tiny import build_tiny

    model = build_tiny(tmp_path / "tiny")
    gen = subprocess.run([sys.executable, "generate.py", f"out={tmp_path / 'data'}",
                          "splits.test=[{env: pattern, count: 5, params: {width: 4, height: 4}}]"],
                         cwd=ROOT, capture_output=True, text=True)
    assert gen.returncode == 0, gen.stderr
    common = [f"out_root={tmp_path}", f"model={model}", "n=3", "k=[1,3]", "max_tokens=8", "bootstrap=100",
              "engine.device=cpu",
              f"benchmarks=[{{name: puzzles, kind: env, path: {tmp_path / 'data'}}}]"]
    ref = run(["name=one", "batch_problems=4", *common])
    assert ref.returncode == 0, ref.stderr
    sharded = run(["name=two", "num_shards=2", "batch_problems=3", *common])
    assert sharded.returncode == 0, sharded.stderr
    two = tmp_path / "two"
    assert sorted(p.name for p in two.glob("samples*.jsonl")) == ["samples.shard0of2.jsonl", "samples.shard1of2.jsonl"]
    assert all(sum(1 for _ in open(f)) > 0 for f in two.glob("samples.shard*.jsonl"))
    assert rows(two) == rows(tmp_path / "one") and len(rows(two)) == 5 * 3
    for f in ("results.json", "per_problem.csv"):
        assert (two / f).read_text() == (tmp_path / "one" / f).read_text(), f

    for i in (1, 0):  # separate jobs (a Slurm array); neither writes results
        job = run(["name=jobs", "num_shards=2", f"shard_index={i}", "batch_problems=2", *common])
        assert job.returncode == 0, job.stderr
    jobs = tmp_path / "jobs"
    assert not (jobs / "results.json").exists()
    merge = run(["name=jobs", "num_shards=2", *common])
    assert merge.returncode == 0, merge.stderr
    assert not list(jobs.glob("shard*.log")), "nothing was left to sample: no shard process"
    for f in ("results.json", "per_problem.csv"):
        assert (jobs / f).read_text() == (tmp_path / "one" / f).read_text(), f


def test_bad_shard_settings_are_one_line(tmp_path):
    for args, key in ((["num_shards=2", "shard_index=2"], "shard_index"), (["num_shards=-1"], "num_shards")):
        r = run([f"out_root={tmp_path}", "model=m", "benchmarks=[{name: x, path: a.jsonl}]", *args])
        assert r.returncode == 2 and key in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_grading_runs_while_the_next_batch_samples(tmp_path, monkeypatch):
    """Batch 0's grading waits until batch 1 is being sampled: with grading in the sampling loop
    (as before) it would wait forever (here: time out and fail)."""
    import evaluate
    from utils import engine as engine_mod
    from utils.benchmarks import BenchmarkConfig, Problem

    sampling_batch_1 = threading.Event()
    calls = []

    class Engine:
        def generate(self, prompts, params, seeds):
            calls.append(len(calls))
            if len(calls) == 2:
                sampling_batch_1.set()
            return [[engine_mod.Completion(text="x", seed=s) for _ in range(params.n)] for s in seeds]

    def grade(self, bench, problem, texts):
        if problem.id == "p0":
            assert sampling_batch_1.wait(60), "batch 0 was graded before batch 1 was sampled"
        return [{"correct": True, "status": "ok", "extracted": None} for _ in texts]

    monkeypatch.setattr(engine_mod, "make_engine", lambda cfg, seed=0: Engine())
    monkeypatch.setattr(evaluate.Graders, "grade", grade)
    bench = BenchmarkConfig(name="b", kind="env", path="unused")
    problems = [Problem(id=f"p{i}", prompt=f"q{i}", gold=None, meta={}) for i in range(3)]
    cfg = evaluate.EvalConfig(model="m", benchmarks=[bench], n=2, k=[1], batch_problems=1)
    evaluate.evaluate(cfg, tmp_path, [(bench, problems)])
    written = [json.loads(line) for line in open(tmp_path / "samples.jsonl")]
    assert calls == [0, 1, 2] and [r["problem_id"] for r in written] == ["p0", "p0", "p1", "p1", "p2", "p2"]
