"""evaluate.py and generate.py mode=sft_traces with the vllm backend on vLLM's CPU backend."""
from __future__ import annotations

import json

from conftest import ENGINE, run, tail


def sample_rows(run_dir) -> list[tuple]:
    out = []
    for f in run_dir.glob("samples*.jsonl"):
        out += [(r["problem_id"], r["sample"], r["seed"], r["response"]) for r in map(json.loads, open(f))]
    return sorted(out)


def test_evaluate_seeds_reproduce_across_runs_batch_sizes_and_shards(tmp_path, tiny64):
    """One process with one problem per batch, and two shard processes (an engine each) with three
    per batch: the same samples (every problem has its own seed) and the same results."""
    gen = run(["generate.py", f"out={tmp_path / 'data'}", "splits.test=[{env: sorting, count: 5}]"])
    assert gen.returncode == 0, tail(gen)
    common = [f"out_root={tmp_path}", f"model={tiny64}", "engine.backend=vllm", *(f"engine.{a}" for a in ENGINE),
              "n=4", "k=[1,4]", "max_tokens=16", "temperature=1.0", "bootstrap=50",
              f"benchmarks=[{{name: sorting, kind: env, path: {tmp_path / 'data'}}}]"]
    one = run(["evaluate.py", "name=one", "batch_problems=1", *common])
    assert one.returncode == 0, tail(one)
    two = run(["evaluate.py", "name=two", "num_shards=2", "batch_problems=3", *common])
    assert two.returncode == 0, tail(two)
    a, b = sample_rows(tmp_path / "one"), sample_rows(tmp_path / "two")
    assert len(a) == 5 * 4 and a == b
    assert len({r[3] for r in a if r[0] == a[0][0]}) > 1, "a problem's n samples are identical"
    assert len(list((tmp_path / "two").glob("samples.shard*of2.jsonl"))) == 2
    for f in ("results.json", "per_problem.csv"):
        assert (tmp_path / "one" / f).read_text() == (tmp_path / "two" / f).read_text(), f


def test_sft_traces_through_the_vllm_teacher(tmp_path, tiny64):
    """Rejection sampling with the vllm backend: K samples per problem, only the ones the env
    scores correct are kept (parity: responses of even length; the random model gets about half)."""
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps({"id": f"p{i}", "env": "parity", "difficulty": 0, "answer": None,
                                           "meta": {}, "prompt": f"Write something of even length ({i})."}) + "\n"
                               for i in range(6)))
    r = run(["tests/vllm/entry.py", "generate", "mode=sft_traces", f"out={tmp_path / 'traces'}",
             f"traces.records=[{records}]", "traces.samples=4", "traces.max_tokens=12", "traces.temperature=1.0",
             "traces.top_p=1.0", "traces.teacher.backend=vllm", f"traces.teacher.model={tiny64}",
             *(f"traces.teacher.{a}" for a in ENGINE)])
    assert r.returncode == 0, tail(r)
    rows = [json.loads(line) for f in sorted((tmp_path / "traces").glob("train-*.jsonl")) for line in open(f)]
    kept = [t for row in rows for t in row["responses"]]
    assert rows and all(len(t) % 2 == 0 for t in kept), "a response the env rejects was kept"
    assert len(kept) < 6 * 4, "every sample was kept: nothing was rejected"
    assert all(row["traces"] == {"k": 4, "correct": len(row["responses"])} for row in rows)


def test_evaluate_a_real_batch_with_the_default_context_length(tmp_path, tiny64):
    """The demo evaluation as a user runs it: engine.max_model_len left at its default (8192, past
    the tiny model's 2048 positions: capped with one line, where vLLM gave a 37-line pydantic
    traceback) and 128 problems x 8 samples in one batch, more prompt tokens than one scheduler step
    holds (vLLM split a prefill and crashed: 'CPU Generator does not use offset')."""
    gen = run(["generate.py", f"out={tmp_path / 'data'}", "splits.test=[{env: sorting, count: 128}]"])
    assert gen.returncode == 0, tail(gen)
    r = run(["evaluate.py", "name=big", f"out_root={tmp_path}", f"model={tiny64}", "engine.backend=vllm",
             "engine.dtype=float32", "engine.enforce_eager=true", "n=8", "k=[1,8]", "max_tokens=8",
             "temperature=1.0", "bootstrap=50", "batch_problems=128",
             f"benchmarks=[{{name: sorting, kind: env, path: {tmp_path / 'data'}}}]"])
    assert r.returncode == 0 and "Traceback" not in r.stderr, tail(r)
    assert "engine.max_model_len 8192 is past" in r.stderr and "capped to 2048" in r.stderr
    assert len(sample_rows(tmp_path / "big")) == 128 * 8
