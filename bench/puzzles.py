"""Unique puzzle instances per second on one core, generation including the uniqueness check,
side by side with the C reference generators of Tatham's collection (measured on this kind of
2-core machine; figures from the foundation issue).

    python bench/puzzles.py [--seconds 10] [--only bridges]

Prints a markdown table; the ratio column is ours / C. Target: >= 0.1 everywhere, and > 1 on
Undead 7x7 normal.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402

# (puzzle, width, height, level, C reference instances/s, target ratio)
ROWS = [
    ("bridges", 7, 7, "hard", 740, 0.1),
    ("bridges", 8, 8, "hard", 540, 0.1),
    ("pattern", 10, 10, None, 5000, 0.1),
    ("undead", 5, 5, "tricky", 390, 0.1),
    ("undead", 7, 7, "normal", 5, 1.0),
    ("galaxies", 7, 7, "normal", 1200, 0.1),
    ("galaxies", 7, 7, "unreasonable", 55, 0.1),
]


def rate(name: str, w: int, h: int, level: str | None, seconds: float) -> tuple[float, int]:
    env = envs.make(name, width=w, height=h, level=level)
    # CPU time of this process: "per second on one core", and stable on a busy machine
    n, seed, t0 = 0, 0, time.process_time()
    while True:
        env.generate(seed=seed)
        n, seed = n + 1, seed + 1
        elapsed = time.process_time() - t0
        if elapsed >= seconds and n >= 3:
            return n / elapsed, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="time per row")
    ap.add_argument("--only", default=None, help="one puzzle name")
    args = ap.parse_args()
    print("| puzzle | size | level | ours /s | C /s | ours / C | target | met |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for name, w, h, level, c_rate, target in ROWS:
        if args.only and name != args.only:
            continue
        r, n = rate(name, w, h, level, args.seconds)
        ratio = r / c_rate
        print(f"| {name} | {w}x{h} | {level or '-'} | {r:.1f} | {c_rate} | {ratio:.2f} | {target} "
              f"| {'yes' if ratio >= target else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
