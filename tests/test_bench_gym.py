"""bench/gym.py: every env measured, defects (slow generators or scorers) listed in its markdown."""
from __future__ import annotations

import contextlib
import io
import sys
import time
from pathlib import Path

import envs
from envs.gym.arrays import Sorting

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))


class SlowScorer(Sorting):
    """Sorting with a scorer that burns 3 ms of CPU per answer: about 330 scores/s."""

    name = "slow_scorer_for_bench_test"

    def reward(self, problem, answer):
        t0 = time.process_time()
        while time.process_time() - t0 < 0.003:
            pass
        return super().reward(problem, answer)


def test_bench_lists_slow_scorers_as_defects(monkeypatch):
    import gym as bench_gym  # bench/gym.py

    monkeypatch.setitem(envs.REGISTRY, SlowScorer.name, f"{__name__}:SlowScorer")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        bench_gym.main(["--envs", f"sorting,{SlowScorer.name}", "--seconds", "0.05", "--no-rg"])
    text = out.getvalue()
    assert "### Gym envs: 2" in text and "| sorting | algorithms |" in text
    defects = text.split("Defects")[1].split("<details>")[0]
    assert f"{SlowScorer.name}: scoring" in defects, "a scorer below the 1,000/s floor is a defect"
    assert "sorting:" not in defects
