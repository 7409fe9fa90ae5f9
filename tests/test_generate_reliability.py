"""generate.py under faults (issue 30): Ctrl-C with worker processes ends in seconds with one
line, resumable; mode=sft_traces refuses an output made with other settings or inputs and keeps a
shard only as its manifest records it; bad input rows and a full disk are one line."""
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

from utils.records import read_jsonl, write_jsonl

ROOT = Path(__file__).resolve().parents[1]


def gen(capsys, *argv) -> tuple[int, str, str]:
    """generate.main in this process: (exit code, stdout, stderr)."""
    import generate

    try:
        generate.main(list(argv))
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    o = capsys.readouterr()
    return code, o.out, o.err


def shards(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*-[0-9]*.jsonl"))}


def test_ctrl_c_with_worker_processes_exits_at_once_and_resumes(tmp_path):
    """Issue 30: Ctrl-C (SIGINT to the process group) with workers: 2 never exited: pool.join()
    waited for a job whose worker had died."""
    argv = [sys.executable, "generate.py", f"out={tmp_path / 'd'}", "workers=2", "shard_size=20",
            "splits={train: [{env: undead, count: 400, params: {width: 7, height: 7, level: normal}}]}"]
    p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not (tmp_path / "d" / "train-00000.jsonl").exists():
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    t0 = time.time()
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise AssertionError("generate.py did not exit within 30 s of Ctrl-C")
    assert p.returncode == 130 and time.time() - t0 < 30, err
    lines = [line for line in err.splitlines() if line.startswith("generate.py")]
    assert "Traceback" not in err and lines == ["generate.py: stopped by SIGINT; re-run the same command to resume"], err
    assert len(shards(tmp_path / "d")) < 20, "the signal came too late to test resume"
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert len(shards(tmp_path / "d")) == 20 and all(len(list(read_jsonl(f))) == 20
                                                     for f in (tmp_path / "d").glob("train-*.jsonl"))


# ------------------------------------------------------------------ mode=sft_traces

def traces_inputs(tmp_path: Path, count: int = 6) -> list[str]:
    """Sorting problems and a replay teacher answering each with one right and one wrong response."""
    import envs

    env = envs.make("sorting")
    recs = [env.generate(seed=s, difficulty=0) for s in range(count)]
    write_jsonl(tmp_path / "problems.jsonl", recs)
    write_jsonl(tmp_path / "replay.jsonl", [{"prompt": r["prompt"], "responses": [r["answer"], "<answer>9</answer>"]}
                                            for r in recs])
    return ["mode=sft_traces", f"out={tmp_path / 'traces'}", f"traces.records=[{tmp_path}/problems.jsonl]",
            "traces.samples=2", "traces.teacher.backend=replay", f"traces.teacher.replay_path={tmp_path}/replay.jsonl",
            "shard_size=4"]


def test_traces_over_other_settings_or_inputs_are_refused(tmp_path, capsys):
    """Issue 30: mode=sft_traces had no fingerprint: over an output made with other settings it
    sampled nothing, kept the old shards and wrote a config.yaml and manifest that made none."""
    argv = traces_inputs(tmp_path)
    out = tmp_path / "traces"
    assert gen(capsys, *argv)[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    code, _, err = gen(capsys, *argv, "traces.temperature=1.0")
    assert code == 2 and err.count("\n") == 1 and "traces.temperature: 0.6 -> 1.0" in err, err
    (tmp_path / "problems.jsonl").write_text((tmp_path / "problems.jsonl").read_text().replace("Sort", "Order"))
    code, _, err = gen(capsys, *argv)  # the same settings, other input records in the same file
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("generate.py: config error: traces.records (command line): ") and "input records" in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    traces_inputs(tmp_path)  # the inputs back as they were; a slower teacher makes the same traces
    code, _, err = gen(capsys, *argv, "traces.teacher.batch_size=2", "traces.teacher.concurrency=1")
    assert code == 0, err


def test_a_cut_traces_shard_is_made_again(tmp_path, capsys):
    """Issue 30: a traces shard cut to fewer lines was kept as complete (rejected problems are
    dropped, so its length says nothing): the manifest's count and hash decide."""
    argv = traces_inputs(tmp_path)
    out = tmp_path / "traces"
    assert gen(capsys, *argv)[0] == 0
    whole = shards(out)
    assert sorted(whole) == ["train-00000.jsonl", "train-00001.jsonl"]
    first = out / "train-00000.jsonl"
    first.write_bytes(b"".join(first.read_bytes().splitlines(keepends=True)[:1]))  # 1 of 4 rows
    code, _, err = gen(capsys, *argv)
    assert code == 0, err
    assert f"generate.py: {first}: 1 records, the manifest records 4 with another hash; making it again" in err, err
    assert shards(out) == whole
    assert json.loads((out / "manifest.json").read_text())["problems_sampled_now"] == 4
    (out / "manifest.json").unlink()  # a run stopped before recording its shards: nothing is trusted
    code, _, err = gen(capsys, *argv)
    assert code == 0 and err.count("not in the manifest") == 2 and shards(out) == whole, err


@pytest.mark.parametrize("row, words", [("[1, 2]", "problems.jsonl:7: not a JSON object (got list)"),
                                        ('{"id": "x", "env": "sorting", "prompt": ["a"]}',
                                         "problems.jsonl:7: record x: no string prompt (got list)"),
                                        ('{"id": "y", "env": "nope", "prompt": "p"}',
                                         "problems.jsonl:7: record y: unknown env 'nope'")])
def test_a_bad_traces_input_row_is_one_line_before_anything_is_written(tmp_path, capsys, row, words):
    """Issue 30: a malformed row in the traces input was a traceback after config.yaml was written."""
    argv = traces_inputs(tmp_path)
    with open(tmp_path / "problems.jsonl", "a") as f:
        f.write(row + "\n")
    code, _, err = gen(capsys, *argv)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("generate.py: config error: traces.records.0 (command line): ") and words in err, err
    assert not (tmp_path / "traces").exists()


# ------------------------------------------------------------------ I/O faults

def test_an_out_dir_under_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    code, _, err = gen(capsys, f"out={tmp_path / 'afile' / 'd'}", "splits={train: [{env: sorting, count: 3}]}")
    assert code == 2 and err == (f"generate.py: cannot write {tmp_path / 'afile' / 'd'}: {tmp_path / 'afile'} is a "
                                 f"file, not a directory; fix it and re-run the same command to resume\n"), err


def test_a_full_disk_is_one_line_and_the_run_resumes(tmp_path, capsys, monkeypatch):
    """Issue 30: a full disk was a traceback ("No space" nowhere)."""
    from utils import records

    argv = [f"out={tmp_path / 'd'}", "shard_size=8", "splits={train: [{env: sorting, count: 40}]}"]
    assert gen(capsys, *[a.replace("/d", "/ref") for a in argv])[0] == 0
    write, calls = records.write_jsonl, []

    def full_after_two(path, rows):
        calls.append(path)
        if len(calls) > 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write(path, rows)

    monkeypatch.setattr(records, "write_jsonl", full_after_two)
    code, _, err = gen(capsys, *argv)
    lines = [line for line in err.splitlines() if line.startswith("generate.py")]
    assert code == 1 and lines == [f"generate.py: cannot write {tmp_path / 'd'}: no space left on device; fix it "
                                   f"and re-run the same command to resume"], err
    monkeypatch.setattr(records, "write_jsonl", write)  # space freed
    assert gen(capsys, *argv)[0] == 0
    assert shards(tmp_path / "d") == shards(tmp_path / "ref")


def test_an_edited_envs_shard_of_the_right_length_is_made_again(tmp_path, capsys):
    """A shard was finished when it held its count of rows: one edited in place (same count) was
    kept. The manifest's SHA-256 decides now."""
    argv = [f"out={tmp_path / 'd'}", "shard_size=8", "splits={train: [{env: sorting, count: 16}]}"]
    assert gen(capsys, *argv)[0] == 0
    whole = shards(tmp_path / "d")
    first = tmp_path / "d" / "train-00000.jsonl"
    rows = list(read_jsonl(first))
    write_jsonl(first, [{**rows[0], "answer": "<answer>0</answer>"}, *rows[1:]])  # 8 rows, one answer wrong
    code, out, err = gen(capsys, *argv)
    assert code == 0 and "generated 8 records" in out, (out, err)
    assert f"{first}: 8 records, the manifest records 8 with another hash; making it again" in err, err
    assert shards(tmp_path / "d") == whole
