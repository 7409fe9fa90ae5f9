"""One evaluate.py per run name: a second run refuses naming the holder; a dead holder's lock is
taken over, saying so. Progress lines appear when stderr is not a terminal."""
from __future__ import annotations

import io
import json
import os
import platform
import subprocess
import sys

import pytest

from utils.progress import Progress
from utils.runlock import Locked, RunLock


def test_a_live_holder_is_named_and_a_dead_one_is_taken_over(tmp_path, capsys):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / ".lock").write_text(json.dumps({"pid": sleeper.pid, "host": platform.node(),
                                                    "started": "2025-01-02 03:04:05", "prog": "evaluate.py"}))
        with pytest.raises(Locked, match=f"in use by another evaluate.py: pid {sleeper.pid} on {platform.node()}, "
                                         f"started 2025-01-02 03:04:05"):
            RunLock(tmp_path, "evaluate.py").acquire()
    finally:
        sleeper.kill()
        sleeper.wait()
    with RunLock(tmp_path, "evaluate.py"):  # the holder is dead now: taken over
        assert json.loads((tmp_path / ".lock").read_text())["pid"] == os.getpid()
        assert f"took over the lock of {tmp_path} from pid {sleeper.pid}" in capsys.readouterr().err
    assert not (tmp_path / ".lock").exists()
    (tmp_path / ".lock").write_text(json.dumps({"pid": 1, "host": "elsewhere", "started": "x"}))
    with pytest.raises(Locked, match="pid 1 on elsewhere.*delete"):  # cannot check another host's pid
        RunLock(tmp_path, "evaluate.py").acquire()


def test_second_evaluate_on_the_same_run_refuses(tmp_path, capsys):
    import evaluate

    data = tmp_path / "math.jsonl"
    data.write_text(json.dumps({"id": "p1", "problem": "1+1", "answer": "2"}) + "\n")
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"match": "1+1", "responses": ["\\boxed{2}"]}) + "\n")
    args = [f"out_root={tmp_path}", "name=r", "engine.backend=replay", f"engine.replay_path={replay}", "n=2", "k=[1]",
            "bootstrap=10", f"benchmarks=[{{name: m, path: {data}}}]"]
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / ".lock").write_text(json.dumps({"pid": os.getppid(), "host": platform.node(),
                                                       "started": "2025-01-02 03:04:05", "prog": "evaluate.py"}))
    with pytest.raises(SystemExit) as e:
        evaluate.main(args)
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and "\n" not in err and f"pid {os.getppid()}" in err and "03:04:05" in err
    assert not (tmp_path / "r" / "samples.jsonl").exists()
    (tmp_path / "r" / ".lock").unlink()
    evaluate.main(args)
    assert not (tmp_path / "r" / ".lock").exists()  # released at the end
    assert len((tmp_path / "r" / "samples.jsonl").read_text().splitlines()) == 2


def test_progress_prints_lines_when_not_a_terminal():
    out = io.StringIO()
    bar = Progress(10, "samples", unit="sample", every_s=0, stream=out)
    for _ in range(5):
        bar.update(2, gen_s="0.1")
    bar.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 6 and lines[0].startswith("samples: 2/10 sample (20%)") and "gen_s 0.1" in lines[0]
    assert lines[-1].startswith("samples: 10/10 sample (100%)")
    quiet = io.StringIO()
    bar = Progress(10, "samples", every_s=3600, stream=quiet)
    bar.update(5)
    bar.close()
    assert quiet.getvalue().count("\n") == 1  # only the closing line
