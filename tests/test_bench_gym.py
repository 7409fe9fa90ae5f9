"""bench/gym.py: every env measured, defects (slow generators or scorers) listed in its markdown."""
from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))


def test_bench_lists_slow_scorers_as_defects():
    import gym as bench_gym  # bench/gym.py

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        bench_gym.main(["--envs", "sorting,integral", "--seconds", "0.05", "--no-rg"])
    text = out.getvalue()
    assert "### Gym envs: 2" in text and "| sorting | algorithms |" in text and "| integral | math |" in text
    defects = text.split("Defects")[1].split("<details>")[0]
    assert "integral: scoring" in defects, "sympy scoring runs in a worker at ~20/s: below the 1,000/s floor"
    assert "sorting" not in defects
