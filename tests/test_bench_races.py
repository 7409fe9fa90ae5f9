"""bench/races.py: the bricks asked for are measured, and the defect list names those under the
thresholds (here the thresholds are raised so that every measured brick falls under them)."""
from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[1] / "bench" / "races.py"


def bench(monkeypatch, argv, **thresholds) -> str:
    spec = importlib.util.spec_from_file_location("bench_races", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for key, value in thresholds.items():
        monkeypatch.setattr(module, key, value)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        module.main(argv)
    return out.getvalue()


def test_defects_name_slow_bricks(monkeypatch):
    argv = ["--bricks", "digits,bwt", "--no-search", "--seconds", "0.01"]
    text = bench(monkeypatch, argv)
    assert "3 bricks measured" in text and "**Defects**" in text and "none" in text.split("**Defects**")[1].split("\n")[0]
    rows = text.split("<details>")[1]
    assert all(f"| {name} |" in rows for name in ("digits", "bwt", "reverse_list"))  # the anchor always
    assert "Composite search" not in text
    slow = bench(monkeypatch, argv, SCORE_MIN=1e12).split("**Defects**")[1].split("\n")[0]
    assert all(f"`{name}`" in slow for name in ("digits", "bwt", "reverse_list"))
    slow = bench(monkeypatch, argv, GEN_MIN=1e12).split("**Defects**")[1].split("\n")[0]
    assert "`digits`" in slow


def test_unknown_brick_is_refused(monkeypatch):
    with pytest.raises(SystemExit):
        bench(monkeypatch, ["--bricks", "no_such_brick", "--no-search"])
