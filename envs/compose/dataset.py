"""generate.py mode=races: search a brick pool for distinct composites, turn them into records.

    python generate.py --config configs/generate/races.yaml [races.pool_size=50 ...]

The search stops at a composite count fixed by the config (not by the clock), and every record's
operator, input and extras are drawn from a seed derived from (seed, index), so the same config
gives byte-identical shards. A composite is an environment (races line 35: the sampler provides an
unlimited stream): each record runs its composite on a fresh input from the first brick's
sampler, one no earlier record used. Each composite serves one record while there are enough;
then they serve again, each time on a new input.

The summary reports the issue's RACES numbers: bricks in the pool, distinct inputs per 1000
records, the share of SORT records that the step types alone solve, and the composition sizes.
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
from typing import Dict, List

from utils.config import field


@dataclass
class RacesGenConfig:
    pool: str = field("all", help="named brick pool: the paper's races300 and races50 (files in envs/compose/pools/; "
                                  "races300 needs its model-written bricks in brick_dirs), or all, base50, core50 "
                                  "(envs/compose/bricks); `all` starts with base50")
    pool_size: int = field(0, help="use only the first N bricks of the pool (0: all of it)", ge=0)
    min_size: int = field(2, help="smallest composition size (paper: paths shorter than 2 are rejected, races line "
                                  "65); 1 with max_size 1: single bricks, the paper's RL_individual baseline",
                          ge=1, le=6)
    max_size: int = field(5, help="largest composition size (at most 6, the largest races line 49 trains; 5 "
                                  "is our choice: its size ablation rises up to 5 and falls at 6)", ge=1, le=6)
    operators: Dict[str, float] = field({"sequential": 1.0, "parallel": 1.0, "sort": 1.0, "select": 1.0,
                                         "branch": 0.0, "loop": 0.0},
                                        help="operator -> weight of the mix; branch and loop go beyond the paper "
                                             "and are off by default", ge=0)
    count: int = field(1000, help="records to write", ge=0)
    composites: int = field(0, help="composite environments to search for (0: 2 * count + 100, one record each); "
                                    "fewer than count: each serves several records, every one on a fresh input", ge=0)
    input_tries: int = field(20, help="fresh inputs tried per record before its composite is skipped", ge=1)
    split: str = field("train", help="split name of the shards (<out>/<split>-00000.jsonl ...)")
    extensions: int = field(3, help="extensions tried per search node", ge=1)
    usage_power: float = field(1.0, help="usage-budget weighting: a brick used u times is drawn with weight "
                                         "(1 + u) ** -usage_power (0: uniform; a negative power would favour the most "
                                         "used bricks)", ge=0)
    max_steps: int = field(400, help="atomic-step limit of a path (paper, Appendix D)", ge=1)
    timeout_s: float = field(2.0, help="wall-clock limit of one brick call, seconds (paper, Appendix D)", gt=0)
    brick_dirs: List[str] = field([], help="folders of model-written bricks (generate.py mode=bricks) added to the "
                                           "pool; they run only in the sandbox")
    max_seconds: float = field(600.0, help="wall-time cap of the search; if hit, output depends on machine "
                                           "speed and the summary says so", gt=0)

    def validate(self):
        from envs.compose.bricks import POOLS
        from envs.compose.operators import OPERATORS

        if self.pool not in POOLS:
            yield "pool", f"unknown pool {self.pool!r}; known: {list(POOLS)}"
        if self.min_size > self.max_size:
            yield "min_size", f"need 1 <= min_size <= max_size <= 6, got {self.min_size}..{self.max_size}"
        for k, w in self.operators.items():
            if k not in OPERATORS:
                yield f"operators.{k}", f"unknown operator; known: {list(OPERATORS)}"
        if not any(w > 0 for w in self.operators.values()):
            yield "operators", "every weight is 0"
        for i, d in enumerate(self.brick_dirs):
            if not (Path(d) / "manifest.json").is_file():
                yield f"brick_dirs.{i}", f"{d} has no manifest.json (not a generate.py mode=bricks output)"


def generate_races(cfg: RacesGenConfig, out: str, seed: int, shard_size: int) -> dict:
    from envs.compose.bricks import resolve_pool
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

    from envs.compose.llm_bricks import load_bricks

    pool = Pool(resolve_pool(cfg.pool, cfg.pool_size, [b for d in cfg.brick_dirs for b in load_bricks(d)]),
                Limits(cfg.max_steps, cfg.timeout_s))
    # Some composites do not suit the operator drawn for them (loop needs X == Y, branch a predicate
    # on X), so unless `composites` is set, search for more until each record has its own composite
    # (or 8 times the first target). The search is deterministic in its target: a larger one
    # extends the same sequence.
    target = cfg.composites or 2 * cfg.count + 100
    while True:
        found = search(pool, SearchConfig(cfg.min_size, cfg.max_size, target=target, max_seconds=cfg.max_seconds,
                                          extensions=cfg.extensions, usage_power=cfg.usage_power),
                       derive_seed(seed, "races-search"))
        records, skipped, used, unsuited = build_records(cfg, pool, found.composites, seed)
        if cfg.composites or used >= len(records) or found.stopped != "target" or target >= 8 * (2 * cfg.count + 100):
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
    from envs.compose.bricks import ALGORITHMIC, BRICKS

    return {"out": str(out_dir), "split": cfg.split, "records": len(records), "requested": cfg.count,
            "shards_written_now": written, "pool": cfg.pool, "pool_bricks": len(pool.bricks),
            "pool_algorithmic": len(ALGORITHMIC & pool.bricks.keys()), "registry_bricks": len(BRICKS),
            "composites_found": len(found.composites), "composites_used": used, "search_stopped": found.stopped,
            "search_seconds": round(found.seconds, 3), "extensions_tried": found.tried,
            "rejections": found.rejections, "usage_min_median_max": list(found.spread),
            "composites_skipped": skipped, "by_operator": by_op,
            "operators_unsuited": unsuited, "by_size": dict(sorted(by_size.items())),
            "distinct_inputs_per_1000": distinct_inputs_per_1000(records),
            "sort_solvable_from_types": sort_solvable_from_types(pool, records),
            "seconds": round(time.perf_counter() - t0, 3)}


def fresh(pool, chain, rng: random.Random, seen: set, tries: int):
    """The composite `chain` run on a fresh input: its first brick's sampler is drawn until the whole
    path passes the filter on an input no earlier record used; None after `tries` draws."""
    from envs.compose.search import rerun

    return rerun(pool, chain.steps, rng, seen, tries)


def build_records(cfg: RacesGenConfig, pool, composites: list, seed: int) -> tuple[list[dict], int, int, list]:
    """Up to cfg.count records; how many (composite, operator) draws did not give one; how many
    composites served; the operators no composite suited. Composites are taken per size in search order, endomorphic ones (X == Y)
    apart so loop finds them; once every composite has served, they serve again."""
    from envs.compose.operators import OPERATORS
    from envs.compose.races import make_record
    from envs.compose.types import canon
    from utils.records import derive_seed

    def queues():
        q = {(s, endo): deque() for s in range(cfg.min_size, cfg.max_size + 1) for endo in (False, True)}
        for chain in composites:
            q[chain.size, chain.types[0] == chain.types[-1]].append(chain)
        return q

    unused, served, seen = queues(), set(), set()
    made = dict.fromkeys(cfg.operators, 0)  # records per operator since the queues were last refilled
    dead: set[str] = set()  # operators that no composite suits
    records, skipped = [], 0
    for i in range(cfg.count):
        rng = random.Random(derive_seed(seed, "races-record", i))
        problem, op = None, None
        while problem is None:
            if op is None or op.name in dead:  # drawn once per record, again only if no composite suits it
                names = [k for k, w in cfg.operators.items() if w > 0 and k not in dead]
                if not names:
                    return records, skipped, len(served), sorted(dead)
                op = OPERATORS[rng.choices(names, [cfg.operators[k] for k in names])[0]]
            kinds = (True,) if op.endo else (False, True)
            sizes = sorted({s for (s, endo), q in unused.items() if q and endo in kinds})
            if not sizes:
                if not made[op.name]:
                    dead.add(op.name)  # a whole pass over the composites gave it nothing
                else:
                    unused, made = queues(), dict.fromkeys(made, 0)
                continue
            size = rng.choice(sizes)  # sizes drawn evenly while each lasts: difficulty stays spread
            chain = next(unused[size, endo] for endo in kinds if unused[size, endo]).popleft()
            run = fresh(pool, chain, rng, seen, cfg.input_tries)
            problem = run and op.build(rng, pool, run)
            skipped += problem is None
        seen.update(canon(x) for x in inputs_of(problem.meta))
        served.add(chain.steps)
        made[op.name] += 1
        records.append(make_record(f"races-{cfg.split}-{i:06d}", op.name, size, problem, None))
    return records, skipped, len(served), sorted(dead)


def inputs_of(meta: dict) -> list:
    """The inputs a record starts from: one, or one per thread (parallel)."""
    return [s[0] for s in meta["states"]] if type(meta["types"][0]) is list else [meta["states"][0]]


def input_key(meta: dict) -> str:
    from envs.compose.types import canon

    return canon(inputs_of(meta))


def distinct_inputs_per_1000(records: list[dict]) -> float:
    """Distinct inputs among the first 1000 records, per 1000 (fewer records: scaled)."""
    head = records[:1000]
    return round(1000 * len({input_key(r["meta"]) for r in head}) / len(head), 1) if head else 0.0


def sort_solvable_from_types(pool, records: list[dict]) -> dict:
    """SORT records whose listed steps type-check from input to output in exactly one order."""
    from envs.compose.operators import type_orders

    sorts = [r["meta"] for r in records if r["meta"]["operator"] == "sort"]
    one = sum(type_orders(pool, m["candidates"], m["types"][0], m["types"][-1]) == 1 for m in sorts)
    return {"records": len(sorts), "solvable": one, "share": round(one / len(sorts), 4) if sorts else 0.0}


def format_summary(s: dict) -> str:
    rejected = ", ".join(f"{k} {v}" for k, v in s["rejections"].items() if v) or "none"
    lo, mid, hi = s["usage_min_median_max"]
    sort = s["sort_solvable_from_types"]
    lines = [
        f"wrote {s['out']}/ ({s['split']}: {s['records']} records, {s['shards_written_now']} shard(s) written now)",
        f"  pool {s['pool']}: {s['pool_bricks']} bricks ({s['pool_algorithmic']} algorithms over structured values; "
        f"{s['registry_bricks']} bricks registered)",
        f"  distinct inputs per 1000 records: {s['distinct_inputs_per_1000']:g} (target >= 950)",
        f"  SORT records solvable from the step types alone: {sort['solvable']} of {sort['records']} "
        f"({100 * sort['share']:.1f}%; target < 5%)",
        f"  sizes: " + ", ".join(f"{k}: {v}" for k, v in s["by_size"].items()),
        f"  operators: " + ", ".join(f"{k} {v}" for k, v in s["by_operator"].items()),
        f"  composites: {s['composites_found']} found in {s['search_seconds']} s ({s['extensions_tried']} extensions "
        f"tried; stopped: {s['search_stopped']}), {s['composites_used']} used",
        f"  rejections: {rejected}",
        f"  brick usage (uses per brick) min/median/max: {lo}/{mid}/{hi}",
        f"seconds: {s['seconds']}",
    ]
    if s["search_stopped"] == "time":
        lines.insert(3, "  WARNING: the search hit max_seconds; the output depends on this machine's speed")
    if s["operators_unsuited"]:
        lines.insert(1, f"  WARNING: no composite suits operator(s) {', '.join(s['operators_unsuited'])}")
    if s["records"] < s["requested"]:
        lines.insert(1, f"  WARNING: only {s['records']} of {s['requested']} records: no composite suits an operator")
    return "\n".join(lines)
