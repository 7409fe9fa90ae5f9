"""Every gym env's generation and scoring rate, the slowest five, memory, and the defects;
then the gym against reasoning-gym on the tasks both have. Markdown on stdout (`make bench`
collects it into bench/RESULTS.md), progress on stderr.

    python bench/gym.py [--seconds 0.2] [--difficulty 10] [--envs sorting,sudoku] [--no-rg]

Rates are items per CPU second on one core: this process plus its worker processes (the sympy
envs score in a killable worker), so a busy machine does not skew them. Generation draws fresh
seeds at difficulty 10; scoring scores the gold answers of 20 records (full responses, tag
extraction included) in turn. Memory: the peak traced allocation while generating 10 records,
and the process's peak RSS at the end. A generator slower than 50 records/s at difficulty 10 or
a scorer slower than 1,000 answers/s is listed as a defect.

The reasoning-gym comparison (reasoning-gym is in requirements.txt) uses matched settings:
sudoku 9x9 with 40 blanks on both sides (ours plants and masks a solution, reasoning-gym removes
clues while checking uniqueness); number sorting with reasoning-gym's default config (3-10
numbers) against our sorting at d = 9 (7 numbers); futoshiki with reasoning-gym's default
config (boards 4x4 to 9x9) against ours on the same board sizes (d = 0..5 in turn). Targets:
generation >= 10x reasoning-gym on sudoku and futoshiki, >= 1x on sorting; scoring >= 50,000/s
for sorting.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402

GEN_FLOOR, SCORE_FLOOR = 50.0, 1000.0


def cpu_seconds() -> float:
    """CPU time of this process and its live children (the scoring workers)."""
    total = time.process_time()
    try:
        import psutil

        for child in psutil.Process().children(recursive=True):
            try:
                t = child.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
    except ImportError:  # without psutil the workers' time is not counted (their rates look better)
        pass
    return total


def rate(fn, seconds: float) -> float:
    """Calls per CPU second, timed in doubling chunks (reading the clocks costs more than a call)."""
    fn(0)  # warm-up: caches, and a scorer's worker process exists before the clock starts
    n, chunk, t0 = 1, 1, cpu_seconds()
    while True:
        for _ in range(chunk):
            fn(n)
            n += 1
        elapsed = cpu_seconds() - t0
        if elapsed >= seconds and n >= 4:
            return (n - 1) / elapsed
        chunk *= 2


def measure(name: str, seconds: float, difficulty: int) -> dict:
    env = envs.make(name)
    recs = [env.generate(seed=i, difficulty=difficulty) for i in range(20)]
    tracemalloc.start()  # slows allocation-heavy generators: measured apart from the rates
    for i in range(10):
        env.generate(seed=1000 + i, difficulty=difficulty)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    gen = rate(lambda i: env.generate(seed=10_000 + i, difficulty=difficulty), seconds)
    golds = [r for r in recs if r["answer"] is not None]
    score = rate(lambda i: env.score(golds[i % len(golds)], golds[i % len(golds)]["answer"]), seconds) if golds else None
    return {"name": name, "category": getattr(env, "category", ""), "gen": gen, "score": score, "peak_kib": peak / 1024}


def gym_table(args) -> None:
    from envs.gym import GYM

    names = args.envs.split(",") if args.envs else sorted(GYM)
    rows = []
    t0 = time.time()
    for i, name in enumerate(names):
        rows.append(measure(name, args.seconds, args.difficulty))
        print(f"[{i + 1}/{len(names)}] {name}: {rows[-1]['gen']:,.0f} gen/s, "
              f"{rows[-1]['score'] or 0:,.0f} score/s", file=sys.stderr, flush=True)
    per_cat = {c: sum(r["category"] == c for r in rows) for c in sorted({r["category"] for r in rows})}
    print(f"### Gym envs: {len(rows)} (" + ", ".join(f"{c} {k}" for c, k in per_cat.items()) + ")\n")
    print(f"Items per CPU second on one core (workers included); generation at d = {args.difficulty}, scoring of "
          f"gold answers; memory: peak traced allocation while generating 10 records. Measured in "
          f"{time.time() - t0:.0f} s.\n")
    gens = sorted(r["gen"] for r in rows)
    scores = sorted(r["score"] for r in rows if r["score"] is not None)
    print(f"Median generation {gens[len(gens) // 2]:,.0f}/s, median scoring {scores[len(scores) // 2]:,.0f}/s; "
          f"peak RSS of this process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB.\n")
    print("Slowest five generators: " + ", ".join(f"{r['name']} {r['gen']:,.0f}/s"
                                                  for r in sorted(rows, key=lambda r: r["gen"])[:5]) + ".  ")
    print("Slowest five scorers: " + ", ".join(f"{r['name']} {r['score']:,.0f}/s" for r in
                                              sorted((r for r in rows if r["score"]), key=lambda r: r["score"])[:5]) + ".\n")
    defects = [f"{r['name']}: generation {r['gen']:,.0f}/s < {GEN_FLOOR:,.0f}/s" for r in rows if r["gen"] < GEN_FLOOR]
    defects += [f"{r['name']}: scoring {r['score']:,.0f}/s < {SCORE_FLOOR:,.0f}/s" for r in rows
                if r["score"] is not None and r["score"] < SCORE_FLOOR]
    print("Defects (generation < 50/s at d = 10, scoring < 1,000/s): " + ("none." if not defects else ""))
    for d in defects:
        print(f"- {d}")
    print("\n<details><summary>every env</summary>\n")
    print("| env | source | gen/s | score/s | peak KiB |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        score = f"{r['score']:,.0f}" if r["score"] is not None else "-"
        print(f"| {r['name']} | {r['category']} | {r['gen']:,.0f} | {score} | {r['peak_kib']:,.0f} |")
    print("\n</details>\n")


def rg_table(seconds: float) -> None:
    try:
        import reasoning_gym as rg
    except ImportError:
        print("reasoning-gym is not installed: the side-by-side comparison was not measured.")
        return
    rows = [
        ("sudoku 9x9, 40 blanks", "sudoku", {"min_empty": 40, "max_empty": 40},
         "sudoku", {"box_rows": 3, "box_cols": 3, "empty": 40}, lambda i: 0, 10.0, None),
        ("number sorting", "number_sorting", {}, "sorting", {}, lambda i: 9, 1.0, 50_000),
        ("futoshiki 4x4..9x9", "futoshiki", {}, "futoshiki", {}, lambda i: i % 6, 10.0, None),
    ]
    print(f"### Against reasoning-gym {getattr(rg, '__version__', '')}\n")
    print("| task | rg gen/s | ours gen/s | gen ratio | gen target | rg score/s | ours score/s | score target | met |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for label, rg_name, rg_cfg, ours, params, diff, gen_target, score_target in rows:
        ds = rg.create_dataset(rg_name, seed=1, size=10**9, **rg_cfg)
        env = envs.make(ours, **params)
        rg_gen = rate(lambda i: ds[i], seconds)
        our_gen = rate(lambda i: env.generate(seed=i, difficulty=diff(i)), seconds)
        rg_items = [ds[i] for i in range(20)]
        our_recs = [env.generate(seed=i, difficulty=diff(i)) for i in range(20)]
        rg_score = rate(lambda i: ds.score_answer(rg_items[i % 20]["answer"], rg_items[i % 20]), seconds)
        our_score = rate(lambda i: env.score(our_recs[i % 20], our_recs[i % 20]["answer"]), seconds)
        ratio = our_gen / rg_gen
        met = ratio >= gen_target and (score_target is None or our_score >= score_target)
        print(f"| {label} | {rg_gen:,.0f} | {our_gen:,.0f} | {ratio:,.1f}x | {gen_target:g}x | {rg_score:,.0f} | "
              f"{our_score:,.0f} | {f'{score_target:,}/s' if score_target else '-'} | {'yes' if met else 'NO'} |",
              flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.2, help="CPU seconds per rate measurement")
    ap.add_argument("--difficulty", type=int, default=10, help="difficulty of the generation rates")
    ap.add_argument("--envs", default="", help="comma-separated gym envs (default: all)")
    ap.add_argument("--no-rg", action="store_true", help="skip the reasoning-gym comparison")
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    gym_table(args)
    if not args.no_rg:
        rg_table(max(args.seconds, 1.0))


if __name__ == "__main__":
    main()
