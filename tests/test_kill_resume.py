"""Fault injection (issue 21, "done when"): train.py killed with SIGKILL at several points of an SFT
run and of a GSPO run from it (tiny model, a few steps), then re-run with the same command, ends
with the same run directory as a run never interrupted: every file, byte for byte (weights,
optimizer and RNG state, checkpoint manifests and configs, samples.jsonl, curves.png, final/),
except what records when and how a process ran:

- run_info.json: the time, host, argv and commit of the latest invocation (provenance of the
  process, rewritten by each);
- metrics.jsonl: the timing columns (time/*, tokens_per_s, rollout_tokens_per_s, mfu), wall-clock
  measurements; every other value of every row is compared exactly.

The kill points are exact: a driver runs train.py in a process that sends itself SIGKILL (no
cleanup, no atexit, no flush: what kill -9 does) right after a chosen write, so each point is hit
every time: after a step that follows a checkpoint, with half a metrics line written, between a
step's samples and its metrics, with a checkpoint complete in its hidden directory but not
renamed into place, and half-way through pruning an old checkpoint after the last one. The
killed runs are processes of their own; the uninterrupted reference and the resumes run here
(same bytes either way: train.py seeds torch's and Python's generators itself).

What this test found besides issue 21.3 (samples.jsonl holding the steps after the checkpoint
twice): Python's generator was not seeded, so every trainer_state.pt held an arbitrary RNG state,
and a restored optimizer held AdamW's betas as a list, not a tuple; both differed byte for byte.
A run killed while pruning after its last checkpoint kept the half-deleted checkpoint for good."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from utils.records import write_jsonl

ROOT = Path(__file__).resolve().parents[1]

# train.py in this process, which SIGKILLs itself after the n-th write of a kind:
#   metrics / samples: after the n-th append to metrics.jsonl / samples.jsonl
#   torn: during the n-th append to metrics.jsonl, half a line written
#   hidden: checkpoint step n complete in its hidden .tmp_ directory, not yet renamed into place
#   prune: while checkpoint step n is being pruned (its trainer_state.pt already deleted)
DRIVER = r'''
import os, runpy, signal, sys
sys.path.insert(0, os.getcwd())
point, n = sys.argv[1], int(sys.argv[2])
sys.argv = ["train.py", *sys.argv[3:]]
from utils import checkpoint, records


def die():
    os.kill(os.getpid(), signal.SIGKILL)


seen = {"n": 0}
if point in ("metrics", "samples", "torn"):
    target = "samples.jsonl" if point == "samples" else "metrics.jsonl"
    append = records.append_jsonl

    def append_jsonl(path, rows):
        rows = list(rows)
        if os.path.basename(path) != target:
            return append(path, rows)
        seen["n"] += 1
        if point == "torn" and seen["n"] == n:
            with open(path, "a") as f:
                f.write(records.dumps(rows[0])[:40])
            die()
        append(path, rows)
        if seen["n"] == n:
            die()

    records.append_jsonl = append_jsonl
elif point == "hidden":
    manifest = checkpoint.write_manifest

    def write_manifest(ckpt):
        manifest(ckpt)
        if ckpt.name == f".tmp_step_{n:08d}":
            die()

    checkpoint.write_manifest = write_manifest
else:  # prune
    rmtree = checkpoint.shutil.rmtree

    def rmtree_then_die(path, *args, **kw):
        if os.path.basename(path) == f"step_{n:08d}":
            os.remove(os.path.join(path, "trainer_state.pt"))
            die()
        return rmtree(path, *args, **kw)

    checkpoint.shutil.rmtree = rmtree_then_die
runpy.run_path("train.py", run_name="__main__")
'''

TIMING = ("time/", "tokens_per_s", "rollout_tokens_per_s", "mfu")


def comparable(path: Path):
    """A file's content as compared: bytes, or metrics rows without their timings."""
    if path.name == "metrics.jsonl":
        return [{k: v for k, v in json.loads(x).items() if not k.startswith(TIMING)}
                for x in path.read_text().splitlines()]
    return path.read_bytes()


def same_run_dir(a: Path, b: Path) -> list[str]:
    """The files that differ between two run directories (or exist in one only)."""
    files = {d: {p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file()} - {"run_info.json"}
             for d in (a, b)}
    only = sorted(files[a] ^ files[b])
    return only + [f for f in sorted(files[a] & files[b]) if comparable(a / f) != comparable(b / f)]


@pytest.fixture
def setup(tiny, tmp_path):
    root = tmp_path
    import envs

    env = envs.make("sorting")
    recs = [env.generate(seed=s, difficulty=0) for s in range(48)]
    write_jsonl(root / "sft.jsonl", [{"prompt": r["prompt"], "response": r["answer"]} for r in recs])
    (root / "driver.py").write_text(DRIVER)
    return root, tiny


def sft_args(root: Path, tiny: str) -> list[str]:
    return [f"model={tiny}", f"out_dir={root}/work", "name=sft", "stage=sft", f"sft.data=[{root}/sft.jsonl]",
            "sft.batch_size=8", "sft.micro_batch_size=4", "sft.max_len=256", "optim.lr=5e-3", "save_every=2",
            "keep_last=2", "cpu_threads=1"]


def rl_args(root: Path) -> list[str]:
    model = f"{root}/sft_model"
    return [f"model={model}", f"ref_model={model}", f"out_dir={root}/work", "name=rl", "stage=rl",
            "data.sources=[{env: sorting}]", "data.adaptive={enabled: true, tau_acc: 0.3, min_samples_factor: 1, "
            "window: 2}", "rl.steps=5", "rl.batch_size=16", "rl.group_size=4", "rl.minibatches=2",
            "rl.micro_batch_size=8", "rl.max_tokens=8", "rl.log_samples=-1", "novelty.enabled=true",
            "optim.lr=5e-2", "optim.trainable=[norm]", "save_every=2", "keep_last=2", "cpu_threads=1"]


def train_here(argv: list[str]) -> None:
    import train

    train.main(argv)


def killed(root: Path, point: str, n: int, argv: list[str]) -> None:
    p = subprocess.run([sys.executable, str(root / "driver.py"), point, str(n), *argv], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == -signal.SIGKILL, (point, n, p.returncode, p.stderr[-2000:])


def reference(root: Path, tiny: str) -> None:
    """The uninterrupted SFT run and the RL run from its final model, each moved aside."""
    train_here(sft_args(root, tiny))
    shutil.move(root / "work" / "sft", root / "ref_sft")
    shutil.copytree(root / "ref_sft" / "final", root / "sft_model")
    train_here(rl_args(root))
    shutil.move(root / "work" / "rl", root / "ref_rl")


KILLS = [
    ("sft", "metrics", 3),   # step 3 logged; its checkpoint is step 2's
    ("sft", "torn", 5),      # half of step 5's metrics row written
    ("rl", "samples", 3),    # step 3's rollouts in samples.jsonl, its metrics not yet
    ("rl", "hidden", 4),     # checkpoint 4 complete but not renamed into place
    ("rl", "prune", 2),      # the last save (step 5) half-way through deleting checkpoint 2
]


def test_killed_and_resumed_runs_equal_the_uninterrupted_one(setup, capsys, one_thread):
    # one test, not one per kill point: under `pytest -n 2` they would build the reference twice
    root, tiny = setup
    reference(root, tiny)
    diffs = {}
    for stage, point, n in KILLS:
        argv = sft_args(root, tiny) if stage == "sft" else rl_args(root)
        run = root / "work" / stage
        shutil.rmtree(run, ignore_errors=True)
        killed(root, point, n, argv)
        assert run.is_dir() and not (run / "final").exists(), ("killed before the end", stage, point, n)
        capsys.readouterr()
        train_here(argv)  # the same command resumes
        assert "resuming" in capsys.readouterr().out, (stage, point, n)
        diffs[(stage, point, n)] = same_run_dir(root / f"ref_{stage}", run)
    assert not any(diffs.values()), {k: v for k, v in diffs.items() if v}
