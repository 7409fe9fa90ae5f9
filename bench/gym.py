"""Gym envs against reasoning-gym on the tasks both have, side by side in one run: items per
second (of CPU time) for generation and for scoring a gold answer, on one core.

    (reasoning-gym is in requirements.txt)
    python bench/gym.py [--seconds 3]

Matched settings: sudoku 9x9 with 40 blanks on both sides (ours plants and masks a solution,
reasoning-gym removes clues while checking uniqueness); number sorting with reasoning-gym's
default config (3-10 numbers) against our sorting at d = 9 (7 numbers); futoshiki with
reasoning-gym's default config (boards 4x4 to 9x9, all its difficulty levels) against ours on
the same board sizes (d = 0..5 in turn). Scoring uses each library's own scorer on a gold
answer (ours: env.score on the full response, tag extraction included).

Targets: generation >= 10x reasoning-gym on sudoku and futoshiki, >= 1x on sorting; scoring
>= 50,000/s for sorting.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402


def rate(fn, seconds: float) -> float:
    """Calls per CPU second of this process (CPU time, so a busy machine does not skew the rows)."""
    n, t0 = 0, time.process_time()
    while True:
        fn(n)
        n += 1
        elapsed = time.process_time() - t0
        if elapsed >= seconds and n >= 3:
            return n / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = ap.parse_args()
    try:
        import reasoning_gym as rg
    except ImportError:
        sys.exit("bench/gym.py needs reasoning-gym: pip install -r requirements.txt")

    # (task, rg name, rg config, our env, our params, our difficulty for item i, gen target, score target)
    rows = [
        ("sudoku 9x9, 40 blanks", "sudoku", {"min_empty": 40, "max_empty": 40},
         "sudoku", {"box_rows": 3, "box_cols": 3, "empty": 40}, lambda i: 0, 10.0, None),
        ("number sorting", "number_sorting", {}, "sorting", {}, lambda i: 9, 1.0, 50_000),
        ("futoshiki 4x4..9x9", "futoshiki", {}, "futoshiki", {}, lambda i: i % 6, 10.0, None),
    ]
    print("| task | rg gen/s | ours gen/s | gen ratio | gen target | rg score/s | ours score/s | score target | met |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for label, rg_name, rg_cfg, ours, params, diff, gen_target, score_target in rows:
        ds = rg.create_dataset(rg_name, seed=1, size=10**9, **rg_cfg)
        env = envs.make(ours, **params)
        rg_gen = rate(lambda i: ds[i], args.seconds)
        our_gen = rate(lambda i: env.generate(seed=i, difficulty=diff(i)), args.seconds)
        rg_items = [ds[i] for i in range(20)]
        our_recs = [env.generate(seed=i, difficulty=diff(i)) for i in range(20)]
        rg_score = rate(lambda i: ds.score_answer(rg_items[i % 20]["answer"], rg_items[i % 20]), args.seconds)
        our_score = rate(lambda i: env.score(our_recs[i % 20], our_recs[i % 20]["answer"]), args.seconds)
        ratio = our_gen / rg_gen
        met = ratio >= gen_target and (score_target is None or our_score >= score_target)
        print(f"| {label} | {rg_gen:,.0f} | {our_gen:,.0f} | {ratio:,.1f}x | {gen_target:g}x | {rg_score:,.0f} | "
              f"{our_score:,.0f} | {f'{score_target:,}/s' if score_target else '-'} | {'yes' if met else 'NO'} |",
              flush=True)


if __name__ == "__main__":
    main()
