"""bench/puzzles.py's C anchor: Tatham's parameter strings for our ladder rungs, his generators'
puzzles read back by ours at the same level, and a plain statement when C cannot be measured."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import envs
from envs.puzzles import PUZZLES

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_puzzles", ROOT / "bench" / "puzzles.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_parameter_strings_are_tathams():
    """As his --list-presets prints them (bridges: 30% islands, 10% expansion, 2 bridges, loops)."""
    assert bench.tatham_params("bridges", 7, 7, "hard") == "7x7i30e10m2d2"
    assert bench.tatham_params("bridges", 10, 10, "easy") == "10x10i30e10m2d0"
    assert bench.tatham_params("pattern", 15, 15, None) == "15x15"
    assert bench.tatham_params("undead", 5, 5, "tricky") == "5x5dt"
    assert bench.tatham_params("undead", 4, 4, "easy") == "4x4de"
    assert bench.tatham_params("galaxies", 7, 7, "unreasonable") == "7x7du"
    assert bench.tatham_params("galaxies", 10, 10, "normal") == "10x10dn"


def anchors() -> list:
    """(anchor, binary directory or None for the packaged one) for each C anchor present here."""
    out = []
    if all(bench.find_binary(n) for n in PUZZLES):
        out.append(("packaged", None))
    if bench.UPSTREAM_DIR and all(bench.find_binary(n, bench.UPSTREAM_DIR) for n in PUZZLES):
        out.append(("current source", bench.UPSTREAM_DIR))
    return out


@pytest.mark.skipif(not anchors(), reason="neither sgt-puzzles nor binaries of his current source ($TATHAM_CURRENT_DIR) here")
@pytest.mark.parametrize("name", sorted(PUZZLES))
def test_his_puzzles_at_every_rung_read_back_at_that_rung(name):
    """The C side of the bench makes what the rung asks for: his puzzle for each rung's parameter
    string decodes here, is unique, and has the rung's size and (graded by us) level. Except
    Galaxies 'unreasonable' from builds before 2023-03-12 (Debian 12's package), which accept a
    too-easy puzzle after 50 attempts (see GALAXIES_CHANGE in bench/puzzles.py)."""
    env = envs.make(name)
    for anchor, where in anchors():
        version = subprocess.run([bench.find_binary(name, where), "--version"], capture_output=True, text=True).stdout
        built = re.search(r"(20\d{6})", version)
        lenient = name == "galaxies" and built is not None and int(built[1]) < bench.GALAXIES_CHANGE
        for d, (w, h, level) in enumerate(env.ladder):
            if (name, w, h) == ("undead", 9, 6):
                continue  # his generator takes about a CPU second there; the bench measures it
            params = bench.tatham_params(name, w, h, level)
            p = subprocess.run([bench.find_binary(name, where), "--generate", "1", params],
                               capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, (anchor, p.stderr)
            rec = env.from_game_id(p.stdout.split()[0])
            assert (rec["meta"]["width"], rec["meta"]["height"]) == (w, h), (anchor, p.stdout)
            if lenient and level == "unreasonable":
                assert rec["meta"]["level"] in ("normal", "unreasonable"), (anchor, p.stdout)
            else:
                assert rec["meta"]["level"] == level, (anchor, p.stdout)


def test_says_plainly_when_c_is_not_measured(tmp_path):
    p = subprocess.run([sys.executable, "bench/puzzles.py", "--only", "pattern", "--seconds", "0.02", "--rounds", "1",
                        "--c-dir", str(tmp_path), "--upstream-dir", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "**C (packaged) not measured for pattern" in p.stdout
    rows = [line for line in p.stdout.splitlines() if line.startswith("| pattern |")]
    assert len(rows) == len(envs.make("pattern").ladder) and all(r.count("not measured") == 2 for r in rows)
    assert "C (current source) not measured: build https://git.tartarus.org/simon/puzzles.git" in p.stdout
