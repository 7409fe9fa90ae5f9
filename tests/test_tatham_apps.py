"""Game IDs against Tatham's own limits: every ladder rung stays inside them, an ID valid here that
his apps refuse says so in meta.tatham_refuses, and, where Debian's sgt-puzzles is installed
(`apt-get install sgt-puzzles`), his binaries accept exactly the IDs we do not flag."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

import envs
from envs.puzzles import PUZZLES

NAMES = sorted(PUZZLES)


def binary(name: str) -> str | None:
    return shutil.which(f"sgt-{name}") or next(
        (p for p in (f"/usr/games/sgt-{name}",) if Path(p).exists()), None)


def tatham_accepts(name: str, game_id: str) -> tuple[bool, str]:
    """His game-ID check, headless: `--generate 1 ID` parses the ID (validate_params and
    validate_desc) and prints it back, or exits 1 with the reason."""
    p = subprocess.run([binary(name), "--generate", "1", game_id], capture_output=True, text=True, timeout=60)
    return p.returncode == 0 and p.stdout.strip() == game_id, p.stderr.strip().splitlines()[-1:]


@pytest.mark.parametrize("name", NAMES)
def test_every_ladder_rung_is_within_tathams_limits(name):
    env = envs.make(name)
    for w, h, _ in env.ladder:
        assert env.tatham_refusal(SimpleNamespace(width=w, height=h)) is None, (name, w, h)


def test_undead_ids_tatham_refuses_are_flagged():
    env = envs.make("undead")
    small = env.from_game_id("2x2:0,1,0,aLLR,1,0,0,0,0,0,0,1")  # valid and unique here, under 3x3 there
    assert "at least 3" in small["meta"]["tatham_refuses"]
    big = envs.make("undead", width=8, height=8, level="normal").generate(seed=0)
    assert "Grid is too big" in big["meta"]["tatham_refuses"]
    again = env.from_game_id(big["meta"]["game_id"])
    assert again["meta"]["tatham_refuses"] == big["meta"]["tatham_refuses"]
    edge = envs.make("undead", width=9, height=6, level="tricky").generate(seed=0)  # 54 cells: his largest
    assert "tatham_refuses" not in edge["meta"]
    assert env.tatham_refusal(SimpleNamespace(width=6, height=10)) is not None  # 60 cells
    assert env.tatham_refusal(SimpleNamespace(width=18, height=3)) is None  # 54 cells


@pytest.mark.skipif(any(binary(n) is None for n in NAMES), reason="Tatham's sgt-puzzles not installed")
@pytest.mark.parametrize("name", NAMES)
def test_tathams_apps_open_every_rung(name):
    env = envs.make(name)
    for d in range(len(env.ladder)):
        rec = env.generate(seed=d, difficulty=d)
        ok, why = tatham_accepts(name, rec["meta"]["game_id"])
        assert ok and "tatham_refuses" not in rec["meta"], (d, rec["meta"]["game_id"], why)


@pytest.mark.skipif(binary("undead") is None, reason="Tatham's sgt-puzzles not installed")
def test_tathams_undead_refuses_what_we_flag():
    env = envs.make("undead")
    for gid in ("2x2:0,1,0,aLLR,1,0,0,0,0,0,0,1",
                envs.make("undead", width=8, height=8, level="normal").generate(seed=0)["meta"]["game_id"]):
        ok, why = tatham_accepts("undead", gid)
        assert not ok and env.from_game_id(gid)["meta"]["tatham_refuses"], why
