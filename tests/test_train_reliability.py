"""train.py on a shared cluster (issue 30): one owner per run directory, preemption without loss,
nothing stale reused on resume, every record checked where it is read, I/O faults in one line.
docs/reliability.md lists the guarantees and the test of each. Tiny model, a few steps each."""
from __future__ import annotations

import errno
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from test_kill_resume import rl_args, same_run_dir, sft_args
from utils import checkpoint
from utils.records import write_jsonl

ROOT = Path(__file__).resolve().parents[1]

# train.py in a process of its own. `wait FILE`: imports done, it waits until FILE exists (a
# barrier for two processes started together). `signal NAME N`: it sends itself the signal right
# after the N-th row of metrics.jsonl is written, i.e. during step N+1's start (what SLURM's
# SIGTERM or a Ctrl-C does, at an exact point).
DRIVER = r'''
import os, signal, sys, time
sys.path.insert(0, os.getcwd())
mode, arg, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
import train
from utils import records
if mode == "wait":
    import torch, transformers  # the slow imports done before the barrier
    open(f"{arg}.ready{os.getpid()}", "w").close()
    while not os.path.exists(arg):
        time.sleep(0.005)
else:
    append, seen = records.append_jsonl, {"n": 0}

    def append_jsonl(path, rows):
        append(path, rows)
        if os.path.basename(path) == "metrics.jsonl":
            seen["n"] += 1
            if seen["n"] == n:
                os.kill(os.getpid(), getattr(signal, arg))

    records.append_jsonl = append_jsonl
train.main(sys.argv[4:])
'''


@pytest.fixture
def setup(tiny, tmp_path):
    import envs

    env = envs.make("sorting")
    recs = [env.generate(seed=s, difficulty=0) for s in range(48)]
    write_jsonl(tmp_path / "sft.jsonl", [{"prompt": r["prompt"], "response": r["answer"]} for r in recs])
    (tmp_path / "driver.py").write_text(DRIVER)
    return tmp_path, tiny


def driver(root: Path, mode: str, arg: str, n: int, argv: list[str]) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, str(root / "driver.py"), mode, arg, str(n), *argv], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def train(argv: list[str]) -> None:
    import train as t

    t.main(argv)


def lines(err: str) -> list[str]:
    return [x for x in err.splitlines() if x.startswith("train.py")]


def steps(run: Path) -> list[int]:
    return [json.loads(x)["step"] for x in (run / "metrics.jsonl").read_text().splitlines()]


# ------------------------------------------------------------------------------------- 1. run lock


def test_two_trains_on_one_name_started_together_one_runs_the_other_refuses(setup):
    # issue 30: the same command twice at once, both exited 0 and metrics.jsonl held steps 2-6 twice
    root, tiny = setup
    argv = sft_args(root, tiny) + ["sft.max_steps=3"]
    go = root / "go"
    procs = [driver(root, "wait", str(go), 0, argv) for _ in range(2)]
    deadline = time.time() + 120
    while len(list(root.glob("go.ready*"))) < 2 and time.time() < deadline:  # both imported and waiting
        time.sleep(0.05)
    go.touch()
    out = [(p, *p.communicate(timeout=300)) for p in procs]
    codes = sorted(p.returncode for p, _, _ in out)
    assert codes == [0, 2], [(p.returncode, e[-1500:]) for p, _, e in out]
    (winner, _, _), = [x for x in out if x[0].returncode == 0]
    (_, _, err), = [x for x in out if x[0].returncode == 2]
    assert "Traceback" not in err and len(lines(err)) == 1, err
    assert f"in use by another train.py: pid {winner.pid} on {platform.node()}" in lines(err)[0], err
    run = root / "work" / "sft"
    assert steps(run) == [1, 2, 3]  # each step once
    assert not (run / ".lock").exists()  # released at the end


def test_a_dead_holders_lock_is_taken_over_with_one_line(setup, capsys, one_thread):
    root, tiny = setup
    run = root / "work" / "sft"
    run.mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (run / ".lock").write_text(json.dumps({"pid": dead.pid, "host": platform.node(), "started": "x",
                                           "prog": "train.py"}))
    train(sft_args(root, tiny) + ["sft.max_steps=1"])
    err = capsys.readouterr().err
    assert f"took over the lock of {run} from pid {dead.pid}" in err and "Traceback" not in err
    assert steps(run) == [1] and (run / "final").is_dir()


# ------------------------------------------------------------------------------------ 2. preemption


@pytest.mark.parametrize("stage,sig", [("sft", "SIGTERM"), ("sft", "SIGINT"), ("rl", "SIGTERM")])
def test_a_signal_finishes_the_step_checkpoints_and_the_same_command_resumes_exactly(setup, capsys, one_thread,
                                                                                     stage, sig):
    # issue 30: SIGTERM (SLURM's warning before the limit) stopped train.py at once without a
    # checkpoint, losing up to save_every - 1 steps; SIGINT printed a 26-76 line traceback
    root, tiny = setup
    shutil.copytree(tiny, root / "sft_model")  # what rl_args trains from
    argv = sft_args(root, tiny) if stage == "sft" else rl_args(root)
    train(argv)  # the uninterrupted reference
    shutil.move(root / "work" / stage, root / "ref")
    p = driver(root, "signal", sig, 3, argv)  # checkpoints every 2 steps: none would hold step 3
    _, err = p.communicate(timeout=300)
    signum = getattr(signal, sig)
    assert p.returncode == 128 + signum, err[-2000:]
    assert "Traceback" not in err and len(lines(err)) == 1, err
    run = root / "work" / stage
    assert f"stopped by {sig} at step 3/" in lines(err)[0] and "step_00000003" in lines(err)[0]
    assert checkpoint.latest(run).name == "step_00000003" and checkpoint.verify(checkpoint.latest(run)) is None
    assert not (run / "final").exists() and steps(run) == [1, 2, 3]
    capsys.readouterr()
    train(argv)  # the same command
    assert "resuming" in capsys.readouterr().out
    assert not same_run_dir(root / "ref", run)  # every file as uninterrupted (timings aside)


# ------------------------------------------------------------------------------------ 3. resume


def test_resume_true_records_a_changed_setting_as_a_segment_and_keeps_config_yaml(setup, capsys, one_thread):
    # issue 30: resume=true rewrote config.yaml with the new settings, which made none of the earlier steps
    root, tiny = setup
    argv = sft_args(root, tiny) + ["sft.max_steps=2"]
    train(argv)
    run = root / "work" / "sft"
    before = (run / "config.yaml").read_text()
    train(argv[:-1] + ["sft.max_steps=4", "optim.lr=1e-3", "resume=true"])
    assert (run / "config.yaml").read_text() == before  # the settings steps 1-2 ran with
    segments = yaml.safe_load((run / "config_segments.yaml").read_text())
    assert segments == [{"from_step": 3, "changes": ["optim.lr: 0.005 -> 0.001", "sft.max_steps: 2 -> 4"]}]
    last = checkpoint.latest(run)
    assert last.name == "step_00000004" and "lr: 0.001" in (last / "config.yaml").read_text()
    capsys.readouterr()
    train(argv[:-1] + ["sft.max_steps=4", "optim.lr=1e-3"])  # the new settings are the checkpoint's: no refusal
    assert "resuming" in capsys.readouterr().out
    assert len(yaml.safe_load((run / "config_segments.yaml").read_text())) == 1


def test_changed_data_is_refused_naming_the_file_unless_resume_true(setup, capsys, one_thread):
    # issue 30: responses rewritten between runs were trained on without a word
    root, tiny = setup
    argv = sft_args(root, tiny) + ["sft.max_steps=2"]
    train(argv)
    data = root / "sft.jsonl"
    rows = [json.loads(x) for x in data.read_text().splitlines()]
    rows[5]["response"] = "rewritten"
    write_jsonl(data, rows)
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        train(argv)  # the same command: its checkpoints were trained on other data
    err = lines(capsys.readouterr().err)
    assert e.value.code == 2 and len(err) == 1, err
    assert f"data {data}: size" in err[0] and "config error: sft.data" in err[0] and "resume=true" in err[0]
    train(argv[:-1] + ["sft.max_steps=4", "resume=true"])  # deliberate: continues, recorded as a segment
    run = root / "work" / "sft"
    segment, = yaml.safe_load((run / "config_segments.yaml").read_text())
    assert segment["from_step"] == 3 and any(c.startswith(f"data {data}: size") for c in segment["changes"])
    assert steps(run) == [1, 2, 3, 4]


# ------------------------------------------------------------------------------------ 4. records


def rl_cfg(root: Path, tiny: str, *extra: str) -> list[str]:
    return [f"model={tiny}", f"out_dir={root}/work", "name=rl", "stage=rl", f"data.sources=[{{data: {root}/rl.jsonl}}]",
            "rl.steps=2", "rl.batch_size=8", "rl.group_size=4", "rl.max_tokens=8", "cpu_threads=1", *extra]


@pytest.mark.parametrize("bad,words", [
    ("[1, 2]", "expected a JSON object, got list"),
    ('{"id": "x", "env": "sorting", "answer": "1"}', "no string `prompt`"),
    ('{"id": "x", "env": "sorting", "prompt": 7}', "`prompt` is a int"),
    ('{"id": "x", "prompt": "Sort 1."}', "`env` None is not a registered env"),
    ('{"id": "x", "env": "sorting", "prompt": "LONG"}', "more than the 400 that"),
])
def test_a_bad_rl_record_is_one_line_naming_file_and_line_before_anything_is_written(setup, capsys, monkeypatch,
                                                                                    bad, words):
    # issue 30: one record without `prompt` among 100 passed loading, crashed at the step that drew
    # it (after checkpoint 2), and every resume crashed at the same step
    import envs
    import train as t

    root, tiny = setup
    good = [json.dumps(envs.make("sorting").generate(seed=s, difficulty=0)) for s in range(100)]
    good[56] = bad.replace("LONG", "Sort these numbers: " + " ".join(map(str, range(300))))
    (root / "rl.jsonl").write_text("\n".join(good) + "\n")
    monkeypatch.setattr(t, "build_model", lambda *a, **k: pytest.fail("the model loaded before the data was checked"))
    with pytest.raises(SystemExit) as e:
        train(rl_cfg(root, tiny, "rl.max_prompt_tokens=400"))
    err = lines(capsys.readouterr().err)
    assert e.value.code == 2 and len(err) == 1, err
    assert f"config error: data.sources" in err[0] and f"{root}/rl.jsonl:57: " in err[0] and words in err[0], err
    assert not (root / "work" / "rl").exists()


def test_a_prompt_beyond_the_models_positions_is_refused(setup, capsys):
    root, tiny = setup
    from transformers import AutoConfig

    positions = AutoConfig.from_pretrained(tiny).max_position_embeddings
    (root / "rl.jsonl").write_text(json.dumps({"id": "x", "env": "sorting", "prompt": "7 " * positions}) + "\n")
    with pytest.raises(SystemExit) as e:
        train(rl_cfg(root, tiny))
    err = lines(capsys.readouterr().err)
    assert e.value.code == 2 and f"rl.jsonl:1: the prompt has" in err[0] and f"model's {positions} positions" in err[0]


@pytest.mark.parametrize("bad,words", [
    ('"just a string"', "expected a JSON object, got str"),
    ('{"response": "2"}', "no string `prompt`"),
    ('{"prompt": "1+1?", "responses": "2"}', "`responses` is a str, not a list"),
    ('{"prompt": "1+1?", "response": 2}', "a response is not a string"),
])
def test_a_malformed_sft_row_is_one_line_naming_file_and_line(setup, capsys, bad, words):
    # issue 30: a malformed SFT row was a traceback, after config.yaml was written
    root, tiny = setup
    data = root / "sft.jsonl"
    data.write_text(data.read_text() + bad + "\n")
    with pytest.raises(SystemExit) as e:
        train(sft_args(root, tiny))
    err = lines(capsys.readouterr().err)
    assert e.value.code == 2 and len(err) == 1 and f"{data}:49: {words}" in err[0], err
    assert not (root / "work" / "sft").exists()


# ------------------------------------------------------------------------------------ 6. I/O faults


@pytest.mark.parametrize("in_the_way,words", [("run", "exists and is not a directory"),
                                              ("out_dir", "a part of the path is a file")])
def test_an_unusable_run_directory_is_one_line_before_the_model_loads(setup, capsys, monkeypatch, in_the_way, words):
    # issue 30: a file in the way of out_dir failed only after loading the model and data, in a traceback
    import train as t

    root, tiny = setup
    (root / "work").mkdir()
    blocker = root / "work" / "sft" if in_the_way == "run" else root / "work"
    if in_the_way == "out_dir":
        blocker.rmdir()
    blocker.write_text("not a directory\n")
    monkeypatch.setattr(t, "build_model", lambda *a, **k: pytest.fail("the model loaded before the run directory "
                                                                      "was checked"))
    with pytest.raises(SystemExit) as e:
        train(sft_args(root, tiny))
    err = lines(capsys.readouterr().err)
    assert e.value.code == 2 and len(err) == 1 and f"{root}/work/sft" in err[0] and words in err[0], err


def test_a_full_disk_while_checkpointing_is_one_line_and_the_run_resumes(setup, capsys, monkeypatch, one_thread):
    # issue 30: a full disk was a traceback without "No space" (8/8 cases)
    import torch

    root, tiny = setup
    argv = sft_args(root, tiny)
    train(argv)
    shutil.move(root / "work" / "sft", root / "ref")
    save = torch.save

    def full(obj, f, *a, **k):  # the step-4 trainer state hits a full disk half-way
        name = str(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", "")
        if "tmp_step_00000004" in name:
            with open(name, "wb") as out:
                out.write(b"half a trainer state")
            raise OSError(errno.ENOSPC, "No space left on device")
        return save(obj, f, *a, **k)

    monkeypatch.setattr(checkpoint.torch, "save", full)
    with pytest.raises(SystemExit) as e:
        train(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err and e.value.code != 0
    msg = str(e.value.code)
    assert "no space left on device" in msg and "step_00000004" in msg and "resume" in msg, msg
    run = root / "work" / "sft"
    assert not list((run / "checkpoints").glob(".tmp_*"))  # the partial one is gone, never taken as complete
    assert checkpoint.latest(run).name == "step_00000002"
    monkeypatch.setattr(checkpoint.torch, "save", save)  # space freed
    train(argv)
    assert not same_run_dir(root / "ref", run)


def test_a_full_disk_while_logging_is_one_line_and_the_run_resumes(setup, capsys, monkeypatch, one_thread):
    from utils import records

    root, tiny = setup
    argv = sft_args(root, tiny)
    append, seen = records.append_jsonl, {"n": 0}

    def full(path, rows):
        if Path(path).name == "metrics.jsonl":
            seen["n"] += 1
            if seen["n"] == 3:
                with open(path, "a") as f:
                    f.write('{"step": 3, "lo')  # a torn line, as a full disk leaves it
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
        append(path, rows)

    monkeypatch.setattr(records, "append_jsonl", full)
    with pytest.raises(SystemExit) as e:
        train(argv)
    msg = str(e.value.code)
    run = root / "work" / "sft"
    assert f"{run}/metrics.jsonl: no space left on device" in msg and "Traceback" not in capsys.readouterr().err
    monkeypatch.setattr(records, "append_jsonl", append)
    train(argv)
    assert steps(run) == [1, 2, 3, 4, 5, 6] and (run / "final").is_dir()
