"""RACES composite search on one core: distinct valid composites per second, and how many distinct
valid chains of size <= 5 a 50-brick pool yields.

    python bench/races.py [--seconds 60] [--samples 20000]

Target (issue): >= 10,000 distinct valid composites from a 50-brick pool in under 60 s.
"How many chains" is reported three ways: type-valid chains (exact count), the share of them
that pass the filter on a sampled input (uniform sample of type-valid chains), hence an estimate
of valid chains; and how many distinct valid chains the search actually found in --seconds.
The paper speaks of tens of thousands of composites from 300 environments.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs.compose.bricks import pool_bricks  # noqa: E402
from envs.compose.search import Pool, SearchConfig, grow, search, start  # noqa: E402


def ways(table: list[dict[str, int]], k: int, t: str) -> int:
    """Type-valid sequences of k more steps from a value of type t (k = 0: the empty one)."""
    return 1 if k == 0 else table[k].get(t, 0)


def chains_of_size(pool: Pool, n: int) -> tuple[int, list[dict[str, int]]]:
    """(type-valid chains of exactly n steps, the table to sample them uniformly)."""
    table: list[dict[str, int]] = [{}]
    for k in range(1, n + 1):
        table.append({t: sum(ways(table, k - 1, b.y) for b in bricks) for t, bricks in pool.by_input.items()})
    return sum(table[n].values()), table


def sample_pass_rate(pool: Pool, n: int, table: list[dict[str, int]], samples: int, rng: random.Random) -> float:
    """Share of uniformly drawn type-valid n-step chains that pass the filter on a sampled input."""
    types = list(table[n])
    passed = 0
    for _ in range(samples):
        t = rng.choices(types, [table[n][u] for u in types])[0]
        chain = None
        for k in range(n, 0, -1):
            options = pool.by_input[t]
            weights = [ways(table, k - 1, b.y) for b in options]
            b = rng.choices(options, weights)[0]
            if chain is None:
                chain = start(b.sample(rng), b.x)
            chain = grow(b, chain, [], pool.limits)
            if isinstance(chain, str):
                break
            t = b.y
        passed += not isinstance(chain, str)
    return passed / samples


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="time for the exhaustive search run")
    ap.add_argument("--samples", type=int, default=20000, help="chains sampled per size for the pass rate")
    args = ap.parse_args()
    rng = random.Random(0)

    print("| pool | bricks | target | found | seconds | composites/s | usage min/median/max |")
    print("|---|---|---|---|---|---|---|")
    for name, size in (("core50 (all[:50])", 50), ("all", 0)):
        pool = Pool(pool_bricks("all", size))
        r = search(pool, SearchConfig(target=10_000, max_seconds=60), seed=0)
        lo, mid, hi = r.spread
        print(f"| {name} | {len(pool.bricks)} | 10000 | {len(r.composites)} | {r.seconds:.2f} | "
              f"{len(r.composites) / r.seconds:,.0f} | {lo}/{mid:g}/{hi} |")

    pool = Pool(pool_bricks("all", 50))
    print(f"\nChains of the 50-brick pool ({len(pool.links)} chain bricks, {len(pool.predicates)} predicates):\n")
    print("| size | type-valid chains | pass the filter on a sampled input | estimated valid |")
    print("|---|---|---|---|")
    total_typed = total_valid = 0
    for n in range(2, 6):
        count, table = chains_of_size(pool, n)
        rate = sample_pass_rate(pool, n, table, args.samples, rng)
        total_typed += count
        total_valid += count * rate
        print(f"| {n} | {count:,} | {rate:.1%} | {count * rate:,.0f} |")
    print(f"| 2..5 | {total_typed:,} | {total_valid / total_typed:.1%} | {total_valid:,.0f} |")

    t0 = time.perf_counter()
    r = search(pool, SearchConfig(target=10**9, max_seconds=args.seconds, patience=10**9), seed=0)
    by_size = {n: sum(c.size == n for c in r.composites) for n in range(2, 6)}
    print(f"\nSearch run for {time.perf_counter() - t0:.0f} s on the 50-brick pool: {len(r.composites):,} distinct "
          f"valid composites (by size: {by_size}), {r.tried:,} extensions tried; rejections: "
          + ", ".join(f"{k} {v:,}" for k, v in r.rejections.items() if v))


if __name__ == "__main__":
    main()
