"""generate.py mode=races: search a brick pool for distinct composites, turn them into records.

    python generate.py --config configs/generate/races.yaml [races.pool_size=50 ...]

The search stops at a composite count fixed by the config (not by the clock), and every record's
operator and extras are drawn from a seed derived from (seed, index), so the same config gives
byte-identical shards. Each record's main chain is a composite no other record uses.
This module is imported by generate.py at startup: keep its top-level imports light.
"""
from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict

from utils.config import field


@dataclass
class RacesGenConfig:
    pool: str = field("all", help="named brick pool (envs/compose/bricks: all, core50); `all` starts with core50")
    pool_size: int = field(0, help="use only the first N bricks of the pool (0: all of it); pool=all pool_size=50 "
                                   "is the paper's 50-base-environment setting")
    min_size: int = field(2, help="smallest composition size (paper: paths shorter than 2 are rejected)")
    max_size: int = field(5, help="largest composition size (paper: 5; at most 6)")
    operators: Dict[str, float] = field({"sequential": 1.0, "parallel": 1.0, "sort": 1.0, "select": 1.0,
                                         "branch": 0.0, "loop": 0.0},
                                        help="operator -> weight of the mix; branch and loop go beyond the paper "
                                             "and are off by default")
    count: int = field(1000, help="records to write")
    split: str = field("train", help="split name of the shards (<out>/<split>-00000.jsonl ...)")
    extensions: int = field(3, help="extensions tried per search node")
    usage_power: float = field(1.0, help="usage-budget weighting: a brick used u times is drawn with weight "
                                         "(1 + u) ** -usage_power (0: uniform)")
    max_steps: int = field(400, help="atomic-step limit of a path (paper, Appendix D)")
    timeout_s: float = field(2.0, help="wall-clock limit of one brick call, seconds (paper, Appendix D)")
    max_seconds: float = field(600.0, help="wall-time cap of the search; if hit, output depends on machine "
                                           "speed and the summary says so")

    def validate(self):
        from envs.compose.bricks import POOLS
        from envs.compose.operators import OPERATORS

        if self.pool not in POOLS:
            yield "pool", f"unknown pool {self.pool!r}; known: {list(POOLS)}"
        if self.pool_size < 0:
            yield "pool_size", "must be >= 0"
        if not 2 <= self.min_size <= self.max_size <= 6:
            yield "min_size", f"need 2 <= min_size <= max_size <= 6, got {self.min_size}..{self.max_size}"
        for k, w in self.operators.items():
            if k not in OPERATORS:
                yield f"operators.{k}", f"unknown operator; known: {list(OPERATORS)}"
            elif w < 0:
                yield f"operators.{k}", "weight must be >= 0"
        if not any(w > 0 for w in self.operators.values()):
            yield "operators", "every weight is 0"
        if self.count < 0:
            yield "count", "must be >= 0"
        if self.extensions < 1:
            yield "extensions", "must be >= 1"
        for key in ("max_steps", "timeout_s", "max_seconds"):  # 0 would reject every composite
            if getattr(self, key) <= 0:
                yield key, "must be > 0"
        if self.usage_power < 0:
            yield "usage_power", "must be >= 0 (a negative power favours the most used bricks)"


def generate_races(cfg: RacesGenConfig, out: str, seed: int, shard_size: int) -> dict:
    from envs.compose.bricks import pool_bricks
    from envs.compose.filters import Limits
    from utils.records import atomic_write_text, derive_seed, shard_path, write_jsonl

    t0 = time.perf_counter()
    out_dir = Path(out)
    fingerprint = hashlib.sha256(json.dumps([seed, shard_size, asdict(cfg)], sort_keys=True).encode()).hexdigest()[:16]
    fp_file = out_dir / "fingerprint"
    if fp_file.exists() and fp_file.read_text().strip() != fingerprint:
        sys.exit(f"generate.py: {out_dir} holds a dataset made with other settings; choose another out= or delete it")
    atomic_write_text(fp_file, fingerprint + "\n")

    from envs.compose.search import Pool, SearchConfig, search

    pool = Pool(pool_bricks(cfg.pool, cfg.pool_size), Limits(cfg.max_steps, cfg.timeout_s))
    # Some composites do not suit the operator drawn for them (loop needs X == Y and a second pass
    # that passes the filter), so search for more than `count`, doubling until the records fill.
    # The search is deterministic in its target: a larger one extends the same sequence.
    target = 2 * cfg.count + 100
    while True:
        found = search(pool, SearchConfig(cfg.min_size, cfg.max_size, target=target, max_seconds=cfg.max_seconds,
                                          extensions=cfg.extensions, usage_power=cfg.usage_power),
                       derive_seed(seed, "races-search"))
        records, skipped = build_records(cfg, pool, found.composites, seed)
        if len(records) == cfg.count or found.stopped != "target":
            break
        target *= 2
    written = 0
    for k in range(0, len(records), shard_size):
        path = shard_path(out_dir, cfg.split, k // shard_size)
        if not path.exists():  # finished by an earlier run of the same config: identical bytes
            write_jsonl(path, records[k:k + shard_size])
            written += 1
    by_op: dict[str, int] = {}
    by_size: dict[int, int] = {}
    for r in records:
        by_op[r["meta"]["operator"]] = by_op.get(r["meta"]["operator"], 0) + 1
        by_size[r["difficulty"]] = by_size.get(r["difficulty"], 0) + 1
    return {"out": str(out_dir), "split": cfg.split, "records": len(records), "requested": cfg.count,
            "shards_written_now": written, "pool": cfg.pool, "pool_bricks": len(pool.bricks),
            "composites_found": len(found.composites), "search_stopped": found.stopped,
            "search_seconds": round(found.seconds, 3), "extensions_tried": found.tried,
            "rejections": found.rejections, "usage_min_median_max": list(found.spread),
            "composites_skipped": skipped, "by_operator": by_op, "by_size": dict(sorted(by_size.items())),
            "seconds": round(time.perf_counter() - t0, 3)}


def build_records(cfg: RacesGenConfig, pool, composites: list, seed: int) -> tuple[list[dict], int]:
    """Up to cfg.count records, each on its own composite; and how many composites did not suit."""
    from envs.compose.operators import OPERATORS
    from envs.compose.races import make_record
    from utils.records import derive_seed

    # per size, endomorphic chains (X == Y) apart, so loop finds them without a scan
    unused = {(s, endo): deque() for s in range(cfg.min_size, cfg.max_size + 1) for endo in (False, True)}
    for chain in composites:
        unused[chain.size, chain.types[0] == chain.types[-1]].append(chain)
    names = [k for k, w in cfg.operators.items() if w > 0]
    weights = [cfg.operators[k] for k in names]
    records, skipped = [], 0
    for i in range(cfg.count):
        rng = random.Random(derive_seed(seed, "races-record", i))
        op = OPERATORS[rng.choices(names, weights)[0]]
        problem = None
        while problem is None:
            kinds = (True,) if op.endo else (False, True)
            sizes = sorted({s for (s, endo), q in unused.items() if q and endo in kinds})
            if not sizes:
                return records, skipped  # the composites ran out for this operator
            size = rng.choice(sizes)  # sizes drawn evenly while each lasts: difficulty stays spread
            queue = next(unused[size, endo] for endo in kinds if unused[size, endo])
            problem = op.build(rng, pool, queue.popleft())
            skipped += problem is None
        records.append(make_record(f"races-{cfg.split}-{i:06d}", op.name, size, problem, None))
    return records, skipped


def format_summary(s: dict) -> str:
    rejected = ", ".join(f"{k} {v}" for k, v in s["rejections"].items() if v) or "none"
    lo, mid, hi = s["usage_min_median_max"]
    lines = [
        f"wrote {s['out']}/ ({s['split']}: {s['records']} records, {s['shards_written_now']} shard(s) written now)",
        f"  pool {s['pool']}: {s['pool_bricks']} bricks",
        f"  distinct composites found: {s['composites_found']} in {s['search_seconds']} s "
        f"({s['extensions_tried']} extensions tried; stopped: {s['search_stopped']})",
        f"  rejections: {rejected}",
        f"  brick usage (uses per brick) min/median/max: {lo}/{mid}/{hi}",
        f"  operators: " + ", ".join(f"{k} {v}" for k, v in s["by_operator"].items()),
        f"  sizes: " + ", ".join(f"{k}: {v}" for k, v in s["by_size"].items()),
        f"seconds: {s['seconds']}",
    ]
    if s["search_stopped"] == "time":
        lines.insert(3, "  WARNING: the search hit max_seconds; the output depends on this machine's speed")
    if s["records"] < s["requested"]:
        lines.insert(1, f"  WARNING: only {s['records']} of {s['requested']} records: the pool ran out of composites")
    return "\n".join(lines)
