"""generate.py mode=envs: shards, dedupe across splits, resume after SIGKILL to identical bytes."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

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


# ------------------------------------------------------------------ issue 21: provenance, lock, shards, errors

SMALL = ["splits={train: [{env: sorting, count: 20}]}", "shard_size=8"]


def gen(capsys, out, *args) -> tuple[int, str, str]:
    """generate.main in this process: (exit code, stdout, stderr)."""
    import generate

    try:
        generate.main([f"out={out}", *args])
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    o = capsys.readouterr()
    return code, o.out, o.err


def files_of(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def test_a_refused_run_leaves_the_dataset_and_its_provenance_alone(tmp_path, capsys):
    """Issue 21: a second run with seed=9 into a seed=8 dataset was refused (exit 1) after rewriting
    config.yaml and run_info.json to seed 9."""
    d = tmp_path / "d"
    assert gen(capsys, d, *SMALL, "seed=8")[0] == 0
    before = files_of(d)
    code, _, err = gen(capsys, d, *SMALL, "seed=9")
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("generate.py: config error: seed (command line): ") and "(seed: 8 -> 9)" in err, err
    assert files_of(d) == before
    assert json.loads((d / "run_info.json").read_text())["seed"] == 8
    assert gen(capsys, d, *SMALL, "seed=8", "workers=2")[0] == 0  # a setting that does not change the records
    assert shards(d) == {k: v for k, v in before.items() if k.startswith("train-")}


def test_a_run_in_progress_refuses_a_second_one(tmp_path, capsys):
    from utils.runlock import RunLock

    d = tmp_path / "d"
    with RunLock(d, "generate.py"):  # another generate.py writing into d
        code, _, err = gen(capsys, d, *SMALL, "seed=7")
    assert code == 2 and err.count("\n") == 1 and f"in use by another generate.py: pid {os.getpid()}" in err, err
    # nothing written, the lock released (and the directory it made for the lock removed with it)
    assert not d.exists() or sorted(p.name for p in d.iterdir()) == []


def test_concurrent_runs_with_other_seeds_one_is_refused(tmp_path):
    """Two runs into one directory with seeds 7 and 8 left seed-8 shards with a seed-7 run_info.json."""
    d = tmp_path / "d"
    procs = [subprocess.Popen([sys.executable, "generate.py", f"out={d}", f"seed={s}", "shard_size=1000",
                               "splits={train: [{env: sorting, count: 10000, difficulty: 30}]}"], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for s in (7, 8)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    assert sorted(rc for rc, _ in results) == [0, 2], results
    refused = next(err for rc, err in results if rc == 2)
    assert refused.count("\n") == 1 and ("in use by another generate.py" in refused or "seed:" in refused), refused
    won = next(s for (rc, _), s in zip(results, (7, 8)) if rc == 0)
    assert json.loads((d / "run_info.json").read_text())["seed"] == won
    assert "seed: %d" % won in (d / "config.yaml").read_text()
    import envs
    from utils.records import derive_seed

    first = json.loads((d / "train-00000.jsonl").read_text().splitlines()[0])  # the shards are the winner's
    assert first == envs.make("sorting").generate(seed=derive_seed(won, "train", 0, 0, 0), difficulty=30)


def test_a_cut_or_garbage_shard_is_named_and_made_again(tmp_path, capsys):
    """Issue 21: a shard cut at a line boundary passed as finished ("all shards already present");
    a torn or garbage one was a DataError traceback."""
    d = tmp_path / "d"
    assert gen(capsys, d, *SMALL)[0] == 0
    shards_before = shards(d)
    first = d / "train-00000.jsonl"
    first.write_bytes(b"".join(first.read_bytes().splitlines(keepends=True)[:3]))  # 3 of 8 rows
    (d / "train-00002.jsonl").write_bytes(b"\x00\xffgarbage\n{\"id\":")
    code, out, err = gen(capsys, d, *SMALL)
    assert code == 0 and "all shards already present" not in out and "generated 12 records" in out, out
    lines = [line for line in err.splitlines() if line.startswith("generate.py")]  # the rest: progress
    assert len(lines) == 2, err
    # a shard is finished only as the manifest records it (count and SHA-256; issue 30)
    assert f"{first}: 3 records, the manifest records 8 with another hash; making it again" in lines[0], lines
    assert f"{d / 'train-00002.jsonl'}: 1 records, the manifest records 4 with another hash" in lines[1], lines
    assert shards(d) == shards_before
    assert gen(capsys, d, *SMALL)[1].endswith("(all shards already present)\n")


def test_stale_temp_files_of_a_killed_run_are_removed(tmp_path, capsys):
    d = tmp_path / "d"
    assert gen(capsys, d, *SMALL)[0] == 0
    (d / ".train-00001.jsonl.k3j_x9.tmp").write_text('{"id": "half')  # what a kill -9 mid-write leaves
    (d / ".manifest.json.abc.tmp").write_text("{")
    assert gen(capsys, d, *SMALL)[0] == 0
    assert not list(d.glob(".*.tmp"))


def test_bad_generate_inputs_are_one_line(tmp_path, capsys):
    """Issue 21 items 7 and 8: each stops before anything is written, one line naming the key."""
    (tmp_path / "afile").write_text("x")
    (tmp_path / "garbage.jsonl").write_bytes(b'{"id": "a", "env": "sorting", "prompt": "p"}\n{oops\n')
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "noweights").mkdir()
    (tmp_path / "noweights" / "config.json").write_text("{}")
    traces = ["mode=sft_traces", "traces.teacher.backend=replay", "traces.samples=0", "traces.include_answer=true"]
    cases = [
        ([f"out={tmp_path}/afile", *SMALL], "out", "is a file"),
        ([f"out={tmp_path}/o", *SMALL, "max_attempts=0"], "max_attempts", "must be >= 1"),
        ([f"out={tmp_path}/o", *traces, f"traces.records=[{tmp_path}/garbage.jsonl]"], "traces.records.0",
         "garbage.jsonl:2: not valid JSON"),
        ([f"out={tmp_path}/o", *traces, f"traces.records=[{tmp_path}/empty.jsonl]"], "traces.records",
         "no records"),
        ([f"out={tmp_path}/o", "mode=sft_traces", f"traces.records=[{tmp_path}/empty.jsonl]",
          "traces.teacher.backend=hf", f"traces.teacher.model={tmp_path}/noweights"], "traces.teacher.model",
         "has no weights"),
    ]
    import generate

    for argv, key, words in cases:
        with pytest.raises(SystemExit) as e:
            generate.main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1, (argv, err)
        assert err.startswith(f"generate.py: config error: {key} (command line): ") and words in err, (argv, err)
        assert not (tmp_path / "o").exists(), argv


def test_a_space_too_small_names_the_entry(tmp_path, capsys):
    code, _, err = gen(capsys, tmp_path / "d", "splits={train: [{env: sorting, count: 1400, difficulty: 0}]}")
    assert code == 2 and err.count("\n") == 1, err
    assert "config error: splits.train.0.count (command line): " in err and "too small" in err, err
