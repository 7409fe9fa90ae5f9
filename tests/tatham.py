"""The 440 real Tatham puzzles with their unique solutions, shipped in tests/data/tatham/ (a copy
of ../shared/fixtures/tatham/, whose README gives the formats), so CI needs nothing outside the
repository."""
from __future__ import annotations

import json
from pathlib import Path

DIR = Path(__file__).resolve().parent / "data" / "tatham"


def load(name: str) -> list[dict]:
    path = DIR / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
