"""evaluate.py under faults (issue 30): a stop signal ends it in seconds with one line and no
orphan shard process, resumable; nothing stale is reused (gold answers, dtype); bad records and
I/O faults are one line naming the file."""
from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(args: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "evaluate.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def running(pid: int) -> bool:
    """pid is a live process (a zombie, dead but not yet reaped, is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def env_records(path: Path, count: int = 6) -> None:
    import envs
    from utils.records import write_jsonl

    env = envs.make("pattern", width=4, height=4)
    write_jsonl(path, [env.generate(seed=s) for s in range(count)])


def wait_for(cond, timeout: float, what: str):
    deadline = time.time() + timeout
    while time.time() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def shard_pids(out: Path, n: int) -> list[int]:
    """The PIDs in the shard processes' lock files, once every shard holds its lock."""
    pids = []
    for i in range(n):
        try:
            pids.append(json.loads((out / f".lock.shard{i}of{n}").read_text())["pid"])
        except (OSError, ValueError, KeyError):
            return []
    return pids


def test_stopping_the_shard_launcher_stops_its_shards_and_resumes(tmp_path):
    """Issue 30: SIGTERM to `evaluate.py num_shards=2` left both shard processes running under
    PID 1; a SIGKILL of the launcher still does (no handler runs): the shards now die with it."""
    from utils.tiny import build_tiny

    model = build_tiny(tmp_path / "tiny")
    env_records(tmp_path / "recs.jsonl", count=60)
    common = [f"out_root={tmp_path}", "name=e", f"model={model}", "n=4", "k=[1]", "max_tokens=32",
              "batch_problems=1", "bootstrap=10", "engine.device=cpu", "num_shards=2",
              f"benchmarks=[{{name: p, kind: env, path: {tmp_path / 'recs.jsonl'}}}]"]
    out = tmp_path / "e"
    for sig in (signal.SIGKILL, signal.SIGTERM):
        p = subprocess.Popen([sys.executable, "evaluate.py", *common], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        pids = wait_for(lambda: shard_pids(out, 2), 240, "both shards to start")
        os.kill(p.pid, sig)  # the launcher only, as `kill` or SLURM would
        t0 = time.time()
        _, err = p.communicate(timeout=60)
        assert time.time() - t0 < 15, f"{sig.name}: the launcher took {time.time() - t0:.0f} s to exit"
        # long before they could have finished their ~15 s of sampling each
        wait_for(lambda: not any(running(q) for q in pids), 5, f"the shards {pids} to end after {sig.name}")
        assert p.returncode == -signal.SIGKILL if sig == signal.SIGKILL else p.returncode == 143, (sig, err)
        if sig == signal.SIGTERM:
            assert "Traceback" not in err and err.strip().splitlines()[-1] == \
                "evaluate.py: stopped by SIGTERM; re-run the same command to resume", err
    done = run(common)  # the same command resumes and finishes
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["benchmarks"]["p"]["problems"] == 60
    assert "stopped by SIGTERM" in (out / "shard0of2.log").read_text()  # a shard's own line, in its log


def test_a_rerun_while_a_shard_runs_is_refused_and_leaves_its_log(tmp_path):
    """Issue 30: a re-run while shard processes still ran truncated their logs."""
    from utils.runlock import RunLock

    env_records(tmp_path / "recs.jsonl")
    (tmp_path / "replay.jsonl").write_text("")
    out = tmp_path / "e"
    out.mkdir()
    log = out / "shard1of2.log"
    log.write_text("samples: 3/6 ...\n")
    with RunLock(out, "evaluate.py", name=".lock.shard1of2"):  # shard 1 running as its own job
        r = run([f"out_root={tmp_path}", "name=e", "engine.backend=replay", f"engine.replay_path={tmp_path / 'replay.jsonl'}",
                 "engine.replay_missing=empty", "n=1", "k=[1]", "num_shards=2",
                 f"benchmarks=[{{name: p, kind: env, path: {tmp_path / 'recs.jsonl'}}}]"])
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"shard 1: {out} is in use by another evaluate.py: pid {os.getpid()}" in r.stderr, r.stderr
    assert log.read_text() == "samples: 3/6 ...\n" and not (out / "shard0of2.log").exists()


def test_ctrl_c_is_one_line_and_resumes(tmp_path):
    """SIGINT to the process group (Ctrl-C) while sampling and grading math (grading worker
    processes in the group too): one line, exit 130, no traceback of ours or the workers'."""
    from utils.tiny import build_tiny

    model = build_tiny(tmp_path / "tiny")
    (tmp_path / "m.jsonl").write_text("".join(json.dumps({"id": f"m{i}", "problem": f"What is {i} + {i}?",
                                                          "answer": str(2 * i)}) + "\n" for i in range(12)))
    args = [f"out_root={tmp_path}", "name=m", f"model={model}", "n=2", "k=[1]", "max_tokens=48", "batch_problems=1",
            "bootstrap=10", "engine.device=cpu", "grading_workers=1",
            f"benchmarks=[{{name: m, kind: math, path: {tmp_path / 'm.jsonl'}}}]"]
    samples = tmp_path / "m" / "samples.jsonl"
    p = subprocess.Popen([sys.executable, "evaluate.py", *args], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_for(lambda: samples.exists() and samples.read_text().count("\n") >= 2, 240, "the first graded batch")
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == "evaluate.py: stopped by SIGINT; re-run the same command to resume", err
    assert samples.read_text().count("\n") < 24, "the signal came too late to test resume"
    done = run(args)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "m" / "results.json").read_text())["benchmarks"]["m"]["problems"] == 12


# ------------------------------------------------------------------ nothing stale reused

def replayed(tmp_path: Path, name: str, *extra: str) -> tuple[int, str, dict]:
    r = run([f"out_root={tmp_path}", f"name={name}", "engine.backend=replay",
             f"engine.replay_path={tmp_path / 'replay.jsonl'}", "n=2", "k=[1]", "bootstrap=10", "grading_workers=1",
             f"benchmarks=[{{name: m, kind: math, path: {tmp_path / 'm.jsonl'}}}]", *extra])
    results = tmp_path / name / "results.json"
    return r.returncode, r.stderr, json.loads(results.read_text()) if r.returncode == 0 else {}


def pass1(results: dict) -> float:
    return results["benchmarks"]["m"]["splits"]["all"]["pass@1"]["mean"]


def math_files(tmp_path: Path, answers: list[str], replay: bool = True) -> None:
    """A math benchmark with these gold answers and (replay) the responses i * i."""
    problems = [f"Compute {i} times {i}." for i in range(len(answers))]
    (tmp_path / "m.jsonl").write_text("".join(json.dumps({"id": f"m{i}", "problem": q, "answer": a}) + "\n"
                                              for i, (q, a) in enumerate(zip(problems, answers))))
    if replay:
        (tmp_path / "replay.jsonl").write_text("".join(json.dumps({"match": q, "responses": [f"\\boxed{{{i * i}}}"]}) + "\n"
                                                   for i, q in enumerate(problems)))


def test_changed_gold_answers_are_graded_again(tmp_path):
    """Issue 30: after the gold answers changed, the cached grades were reported again (pass@1
    0.312; a fresh run: 0.000). The responses are kept and graded against the new answers."""
    math_files(tmp_path, ["0", "1", "4", "9"])
    code, err, first = replayed(tmp_path, "r")
    assert code == 0 and pass1(first) == 1.0, err
    math_files(tmp_path, ["0", "1", "5", "7"], replay=False)  # two answers corrected, the model the same
    code, err, again = replayed(tmp_path, "r")
    code_fresh, _, fresh = replayed(tmp_path, "fresh")
    assert code == 0 and code_fresh == 0, err
    assert pass1(again) == pass1(fresh) == 0.5, (pass1(again), pass1(fresh))
    assert "graded 4 samples of 2 problems again" in err, err
    rows = [json.loads(line) for line in (tmp_path / "r" / "samples.jsonl").read_text().splitlines()]
    assert len(rows) == 8 + 4  # the 8 samples, then the 4 of the two changed problems graded again


def test_a_changed_dtype_or_n_does_not_reuse_samples(tmp_path):
    """Issue 30: a changed engine.dtype reused the samples (relabelled by config.yaml)."""
    math_files(tmp_path, ["0", "1", "4", "9"])
    assert replayed(tmp_path, "r", "engine.dtype=float32")[0] == 0
    config = (tmp_path / "r" / "config.yaml").read_text()
    for change, words in (("engine.dtype=bfloat16", 'engine.dtype: "float32" -> "bfloat16"'), ("n=1", "n: 2 -> 1")):
        code, err, _ = replayed(tmp_path, "r", "engine.dtype=float32", change)
        assert code == 2 and len(err.strip().splitlines()) == 1 and words in err, err
        assert "another model or sampling settings" in err and (tmp_path / "r" / "config.yaml").read_text() == config
    # without the fingerprint file (deleted by hand), the rows' own keys keep the old samples out
    (tmp_path / "r" / "fingerprint").unlink()
    code, err, _ = replayed(tmp_path, "r", "engine.dtype=bfloat16")
    assert code == 0, err
    rows = [json.loads(line) for line in (tmp_path / "r" / "samples.jsonl").read_text().splitlines()]
    assert len(rows) == 16 and len({r["sample_key"] for r in rows}) == 8  # sampled anew: 4 problems x 2 settings


def test_a_model_rewritten_in_place_is_sampled_again(tmp_path):
    """No setting changes when a model folder (here: the replay file) is rewritten in place, as a
    run trained again into the same folder does; its old samples must not be reused."""
    math_files(tmp_path, ["0", "1", "4", "9"])
    assert pass1(replayed(tmp_path, "r")[2]) == 1.0
    replay = tmp_path / "replay.jsonl"
    replay.write_text(replay.read_text().replace("boxed{", "boxed{1"))  # every answer now wrong
    code, err, results = replayed(tmp_path, "r")
    assert code == 0 and pass1(results) == 0.0, err


# ------------------------------------------------------------------ records and I/O faults

@pytest.mark.parametrize("row, words", [("[1, 2]", "recs.jsonl:2: not a JSON object (got list)"),
                                        ('{"id": "x", "env": "pattern", "prompt": 5}',
                                         "recs.jsonl:2: record x: no string prompt (got int)"),
                                        ('{"id": "y", "env": "pattern"}',
                                         "recs.jsonl:2: record y: no string prompt (missing)")])
def test_a_bad_record_is_one_line_naming_file_and_line(tmp_path, row, words):
    """Issue 30: a record whose prompt was not a string was sampled and every sample marked
    grader_error."""
    env_records(tmp_path / "recs.jsonl", count=1)
    with open(tmp_path / "recs.jsonl", "a") as f:
        f.write(row + "\n")
    (tmp_path / "replay.jsonl").write_text("")
    r = run([f"out_root={tmp_path}", "name=e", "engine.backend=replay", f"engine.replay_path={tmp_path / 'replay.jsonl'}",
             "n=1", "k=[1]", f"benchmarks=[{{name: p, kind: env, path: {tmp_path / 'recs.jsonl'}}}]"])
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("evaluate.py: config error: benchmarks.0.path (command line): ") and words in r.stderr
    assert not (tmp_path / "e").exists()


def test_an_out_dir_in_the_way_is_one_line_before_the_model_loads(tmp_path):
    math_files(tmp_path, ["0"])
    (tmp_path / "afile").write_text("x")
    r = run([f"out_root={tmp_path / 'afile'}", "name=r", "engine.backend=replay",
             f"engine.replay_path={tmp_path / 'replay.jsonl'}",
             f"benchmarks=[{{name: m, kind: math, path: {tmp_path / 'm.jsonl'}}}]"])
    assert r.returncode == 2 and r.stderr.strip() == (
        f"evaluate.py: cannot write {tmp_path / 'afile' / 'r'}: {tmp_path / 'afile'} is a file, not a directory; "
        f"fix it and re-run the same command to resume"), r.stderr


def test_a_full_disk_is_one_line_and_the_run_resumes(tmp_path, monkeypatch, capsys):
    """Issue 30: a full disk was a traceback ("No space" nowhere)."""
    import evaluate
    from utils import records

    math_files(tmp_path, ["0", "1", "4", "9"])
    argv = [f"out_root={tmp_path}", "name=r", "engine.backend=replay", f"engine.replay_path={tmp_path / 'replay.jsonl'}",
            "n=2", "k=[1]", "bootstrap=10", "grading_workers=1", "batch_problems=1",
            f"benchmarks=[{{name: m, kind: math, path: {tmp_path / 'm.jsonl'}}}]"]
    append, calls = records.append_jsonl, []

    def full_after_two(path, rows):
        calls.append(path)
        if len(calls) > 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        append(path, rows)

    monkeypatch.setattr(records, "append_jsonl", full_after_two)
    with pytest.raises(SystemExit) as e:
        evaluate.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 1 and err[-1] == (f"evaluate.py: cannot write {tmp_path / 'r' / 'samples.jsonl'}: no space "
                                             f"left on device; fix it and re-run the same command to resume"), err
    assert not [line for line in err if line.startswith("evaluate.py") and line != err[-1]]
    assert not (tmp_path / "r" / ".lock").exists()  # released: the same command may run again
    monkeypatch.setattr(records, "append_jsonl", append)  # space freed
    evaluate.main(argv)
    assert len((tmp_path / "r" / "samples.jsonl").read_text().splitlines()) == 8  # 2 batches kept, 2 sampled now
    assert pass1(json.loads((tmp_path / "r" / "results.json").read_text())) == 1.0
