"""RACES on one core, in CPU seconds: every brick's generation and scoring rate (not a sample), the
slowest five, memory, and the composite search of the named pools. Markdown on stdout.

    python bench/races.py [--seconds 0.05] [--search-seconds 60] [--bricks digits,bwt] [--no-search]

Per brick, a "record" is the brick's own problem (composition size 1, the paper's RL_individual
unit, races line 43): draw an input, run the brick, build the prompt and the gold answer. RACES
difficulty is composition size, so "difficulty 10" applies to the inputs of gym bricks, whose
`brick_input` takes a difficulty (native samplers have none); generation runs without the path
limits and the degenerate-output rules, so the rate is the brick's cost at that size ("kept":
the share of difficulty-0 inputs whose output passes the Appendix D filter at the paper's
limits). Scoring is measured on a record such as RACES writes (a difficulty-0 input within the
400-step limit), twice, on the gold answer: a SEQUENTIAL answer (parse, compare) and a SELECT
answer, whose verifier re-executes the brick. Anchor: the same measurements for `reverse_list`
(one list reversal), so each row's cost is also a ratio to it.

Defects (the issue's thresholds): a brick generating fewer than 50 records per second at
difficulty 10, or scored at fewer than 1,000 per second by either scorer.
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs.compose.bricks import ALGORITHMIC, BRICKS, GYM_BRICKS, POOLS, pool_bricks  # noqa: E402
from envs.compose.bricks.gym import gym_brick  # noqa: E402
from envs.compose.filters import Limits, execute  # noqa: E402
from envs.compose.operators import OPERATORS, type_orders  # noqa: E402
from envs.compose.races import RacesEnv, make_record  # noqa: E402
from envs.compose.search import Chain, Pool, SearchConfig, grow, search, start  # noqa: E402
from envs.compose.types import BOOL, to_json  # noqa: E402

GEN_MIN, SCORE_MIN = 50.0, 1000.0
ANCHOR = "reverse_list"
UNLIMITED = Limits(max_steps=10**9, timeout_s=10.0)


def rate(fn, seconds: float) -> float:
    """Calls per CPU second (CPU time, so other processes on the machine do not skew it)."""
    n, t0 = 0, time.process_time()
    while True:
        fn()
        n += 1
        elapsed = time.process_time() - t0
        if elapsed >= seconds and n >= 3:
            return n / elapsed


def record_of(brick, chain, pool) -> dict | None:
    problem = OPERATORS["sequential"].build(random.Random(0), pool, chain)
    return make_record(f"bench-{brick.name}", "sequential", 1, problem, None) if problem else None


def brick_row(name: str, env: RacesEnv, pool: Pool, seconds: float) -> dict:
    big = gym_brick(name, difficulty=10) if name in GYM_BRICKS else BRICKS[name]
    small = BRICKS[name]
    rng = random.Random(0)

    def generate():  # draw, run (no filter: outputs at difficulty 10 may be long or large), write the record
        for _ in range(100):
            x = big.sample(rng)
            r = execute(big, x, 0, UNLIMITED)
            if type(r) is not str:
                break
        if type(r) is not str and big.y != BOOL:
            record_of(big, Chain((name,), (x, r[0]), (big.x, big.y), r[1]), pool)

    gen = rate(generate, seconds)
    rng, kept, rec = random.Random(1), 0, None
    for _ in range(40):  # difficulty-0 inputs at the paper's limits: what RACES records hold
        chain = grow(small, start(small.sample(rng), small.x), [], env.pool.limits)
        if type(chain) is not str:
            kept += 1
            rec = rec or (record_of(small, chain, pool) if small.y != BOOL else None)
    row = {"brick": name, "in": big.x, "out": big.y, "gen": gen, "kept": None if big.y == BOOL else kept / 40,
           "seq": None, "sel": None}
    if rec is None:  # a predicate (no chain problem of its own) or nothing kept
        return row
    row["seq"] = rate(lambda: env.score(rec, rec["answer"]), seconds)
    meta = {**rec["meta"], "candidates": [name]}
    row["sel"] = rate(lambda: OPERATORS["select"].score(meta, [name], env.pool), seconds)
    return row


def fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.05, help="CPU seconds per measurement")
    ap.add_argument("--search-seconds", type=float, default=300.0, help="wall-time cap of each pool's search")
    ap.add_argument("--bricks", default="", help="comma-separated bricks to measure (default: every brick; the "
                                                 "anchor is always measured)")
    ap.add_argument("--no-search", action="store_true", help="skip the composite search and live-env part")
    args = ap.parse_args(argv)
    env = RacesEnv(pool="all")
    pool = Pool(pool_bricks("all"), UNLIMITED)
    names = POOLS["all"]
    if args.bricks:
        wanted = set(args.bricks.split(",")) | {ANCHOR}
        if wanted - set(names):
            ap.error(f"unknown brick(s): {', '.join(sorted(wanted - set(names)))}")
        names = [n for n in names if n in wanted]

    t0 = time.process_time()
    rows = [brick_row(name, env, pool, args.seconds) for name in names]
    bench_cpu = time.process_time() - t0
    anchor = next(r for r in rows if r["brick"] == ANCHOR)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    print(f"**RACES bricks** ({len(BRICKS)} registered: {len(ALGORITHMIC)} algorithms over structured values, "
          f"{len(GYM_BRICKS)} of them gym envs)\n")
    measured = "Every brick" if len(rows) == len(POOLS["all"]) else f"{len(rows)} bricks"
    print(f"{measured} measured, {args.seconds} CPU s per rate, one core; {bench_cpu:.0f} CPU s in all. "
          f"Anchor `{ANCHOR}`: {fmt(anchor['gen'])} records/s, {fmt(anchor['seq'])} sequential scores/s, "
          f"{fmt(anchor['sel'])} select scores/s.\n")
    defects = [r for r in rows if r["gen"] < GEN_MIN or any(r[k] is not None and r[k] < SCORE_MIN for k in ("seq", "sel"))]
    print(f"**Defects** (generation < {GEN_MIN:.0f} records/s at difficulty 10, or a scorer < {SCORE_MIN:,.0f}/s): "
          + (", ".join(f"`{r['brick']}` (gen {fmt(r['gen'])}/s, seq {fmt(r['seq'])}/s, select {fmt(r['sel'])}/s)"
                       for r in defects) or "none") + "\n")
    print("Slowest five by generation (records per CPU second; x anchor = anchor rate / this rate):\n")
    print("| brick | types | records/s | x anchor | sequential scores/s | select scores/s | kept |")
    print("|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: r["gen"])[:5]:
        print(f"| {r['brick']} | {r['in']} -> {r['out']} | {fmt(r['gen'])} | {anchor['gen'] / r['gen']:.1f} | "
              f"{fmt(r['seq'])} | {fmt(r['sel'])} | {pct(r['kept'])} |")
    gens = sorted(r["gen"] for r in rows)
    scores = sorted(min(r["seq"], r["sel"]) for r in rows if r["seq"] is not None)
    kept = sorted(r["kept"] for r in rows if r["kept"] is not None)
    print(f"\nAll {len(rows)} bricks: generation min / median {fmt(gens[0])} / {fmt(gens[len(gens) // 2])} records/s; "
          f"slower scorer min / median {fmt(scores[0])} / {fmt(scores[len(scores) // 2])} scores/s; "
          f"kept by the Appendix D filter (difficulty-0 inputs) median {kept[len(kept) // 2]:.0%}, "
          f"lowest {kept[0]:.0%} (predicates, whose bool output serves only as a condition, excluded).")
    print(f"Memory: peak RSS {rss / 1024:.0f} MiB for the registry and every measurement above.\n")
    print("<details><summary>every brick</summary>\n")
    print("| brick | types | records/s | sequential scores/s | select scores/s | kept |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['brick']} | {r['in']} -> {r['out']} | {fmt(r['gen'])} | {fmt(r['seq'])} | {fmt(r['sel'])} | "
              f"{pct(r['kept'])} |")
    print("\n</details>\n")
    if args.no_search:
        return

    print("**Composite search and records**\n")
    print("| pool | bricks | target | found | CPU s | composites per CPU s | usage min/median/max | one type order |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ("core50", "base50", "all"):
        p = Pool(pool_bricks(name))
        c0 = time.process_time()
        r = search(p, SearchConfig(target=10_000, max_seconds=args.search_seconds), seed=0)
        cpu = time.process_time() - c0
        one = sum(type_orders(p, c.steps, c.types[0], c.types[-1]) == 1 for c in r.composites)
        lo, mid, hi = r.spread
        print(f"| {name} | {len(p.bricks)} | 10000 | {len(r.composites)}{' (time cap)' if r.stopped == 'time' else ''} "
              f"| {cpu:.1f} | {len(r.composites) / cpu:,.0f} | {lo}/{mid:g}/{hi} | {one / len(r.composites):.0%} |")
    print("\n\"one type order\": composites whose steps type-check in exactly one order; SORT skips them, so no SORT "
          "record is solvable from the types alone.\n")
    live = RacesEnv(pool="all", operators={k: 1.0 for k in ("sequential", "parallel", "sort", "select")})
    recs = []
    c0 = time.process_time()
    for seed in range(200):
        recs.append(live.generate(seed, 2 + seed % 4))
    gen_cpu = time.process_time() - c0
    c0 = time.process_time()
    for rec in recs:
        live.score(rec, rec["answer"])
    score_cpu = time.process_time() - c0
    inputs = {json.dumps(to_json(r["meta"]["states"][0]), sort_keys=True) for r in recs}
    print(f"Live `races` env (pool all, the paper's four operators, sizes 2-5): {len(recs) / gen_cpu:,.0f} records "
          f"per CPU s, {len(recs) / score_cpu:,.0f} gold scores per CPU s; {len(inputs)} distinct first inputs in "
          f"{len(recs)} records.")


if __name__ == "__main__":
    main()
