"""One evaluate.py per run name: a second run refuses naming the holder; a dead holder's lock is
taken over, saying so. Progress lines appear when stderr is not a terminal."""
from __future__ import annotations

import io
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

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


def _contend(barrier, root: str, trials: int, results) -> None:
    """One contender: each trial, try the lock of root/t<trial> together with the others (released
    by the barrier), report whether it got it, and hold it until every contender has tried."""
    import contextlib

    from utils.runlock import Locked, RunLock

    for t in range(trials):
        lock = RunLock(Path(root) / f"t{t}", "test")
        barrier.wait()
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                lock.acquire()
            got = True
        except Locked:
            got = False
        results.put((t, got, got and json.loads(lock.path.read_text())["pid"] == os.getpid()))
        barrier.wait()  # all have tried before the holder lets go
        if got:
            lock.release()


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


@pytest.mark.parametrize("stale", [False, True], ids=["fresh", "stale"])
def test_contenders_released_together_never_both_hold_the_lock(tmp_path, stale):
    """Issue 21: _create made the file, then wrote its JSON; a contender reading it in between saw
    {}, called it stale, deleted it and took over: both held the lock in 285 of 300 trials (43 of
    300 with a dead holder's lock present). Three processes behind a barrier, 300 trials."""
    import multiprocessing
    from pathlib import Path as P

    trials, n = 300, 3
    if stale:
        dead = _dead_pid()
        for t in range(trials):
            (tmp_path / f"t{t}").mkdir()
            (tmp_path / f"t{t}" / ".lock").write_text(json.dumps({"pid": dead, "host": platform.node(),
                                                                  "started": "x", "prog": "evaluate.py"}))
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_contend, args=(barrier, str(tmp_path), trials, results)) for _ in range(n)]
    for p in procs:
        p.start()
    got = [results.get(timeout=60) for _ in range(trials * n)]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    holders = {t: sum(g for tt, g, _ in got if tt == t) for t in range(trials)}
    assert all(h == 1 for h in holders.values()), {t: h for t, h in holders.items() if h != 1}
    assert all(named for _, g, named in got if g)  # the lock file names its holder
    assert not any(P(tmp_path / f"t{t}" / ".lock").exists() for t in range(trials))


def test_a_forked_child_does_not_keep_the_lock(tmp_path, capsys):
    """A worker forked by the holder (generate.py's pool) and outliving it must not keep the lock."""
    import signal

    script = ("import os, sys, time\nfrom utils.runlock import RunLock\n"
              f"RunLock({str(tmp_path)!r}, 'generate.py').acquire()\n"
              "child = os.fork()\n"
              "if child == 0:\n    null = os.open(os.devnull, os.O_WRONLY)\n    os.dup2(null, 1)\n    os.dup2(null, 2)\n    time.sleep(30)\n    os._exit(0)\n"
              "print(os.getpid(), child, flush=True)\nos._exit(0)\n")  # the holder dies, its child lives on
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                       cwd=Path(__file__).resolve().parents[1])
    holder, child = map(int, r.stdout.split())
    try:
        with RunLock(tmp_path, "generate.py"):
            assert f"from pid {holder} on" in capsys.readouterr().err
    finally:
        os.kill(child, signal.SIGKILL)
