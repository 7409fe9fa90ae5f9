"""Datasets the code-RL experiments are built from, out of files other stages wrote.

    python generate.py mode=seeds seeds.samples=[runs/code_rl/qwen3_8b/real_25k] out=runs/code_rl/seeds
    python generate.py mode=select select.data=[runs/code_rl/synth_envs4/problems] select.by=env \
        select.count=5000 out=runs/code_rl/synth_envs4_20k

mode=seeds (code_rl Sec. 3.2: 'we extract successful solutions to real coding problems solved
during an initial RL training run'): the code of the first correct response per problem in a
training run's samples.jsonl becomes one seed (seeds.jsonl, one {"text", "source"} per line),
which synthesis uses whole (synth.corpus=<out>/seeds.jsonl).

mode=select: a fixed-seed subset of records, `count` per group of `by` (env: '5K problems each
from four distinct environments'; chain_level: '3036 per difficulty level'), `counts` per named
group (bin: Table 3's sizes), or `count` in all; with `unit`, whole units of records (chain_id:
'1012 coherent easy-medium-hard question chains (3036 problems total)'); or, with `match`, as
many records as a reference set holds, pass rate by pass rate (code_rl: 'we match the difficulty
histograms (based on student pass rates) between the starcoderdata- and real-seeded datasets').
A selection that comes out short of its sizes is refused (ValueError, one line) unless
`allow_short` is set: a run named after a paper's table trains on the table's data or not at all.
Output: <out>/train-00000.jsonl ..., records only.

This module's top level imports only configuration, so generate.py can import it cheaply.
"""
from __future__ import annotations

import bisect
import json
import random
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

from utils.config import field


@dataclass
class SeedsConfig:
    samples: List[str] = field([], help="training runs (their samples.jsonl) or samples.jsonl files whose correct "
                                        "responses become seeds; log enough of them (rl.log_samples)")
    per_problem: int = field(1, help="seeds kept per solved problem (distinct solutions, first solved first)", ge=1)
    env: str = field("code_contest", help="only rollouts of this env (the real problems); '': any env")

    def validate(self):
        if not self.samples:
            yield "samples", "no training runs given"
        for i, p in enumerate(self.samples):
            if not _samples_file(p).is_file():
                yield f"samples.{i}", f"{_samples_file(p)} does not exist (a train.py run directory or its samples.jsonl)"


@dataclass
class SelectConfig:
    data: List[str] = field([], help="record files or folders to select from (e.g. a synth run's problems/)")
    by: str = field("", help="group records by this field (env, or a meta field such as chain_level or bin) and "
                             "take `count` of each group; '': `count` in all")
    groups: List[str] = field([], help="the groups to take (empty: every group present; records whose field is "
                                       "null are never taken)")
    count: int = field(0, help="records (or units) per group, or in all; 0: all of them. A group with fewer "
                               "stops the selection unless allow_short", ge=0)
    counts: Dict[str, int] = field({}, help="per group, its count (e.g. Table 3's {easy: 10000, easy_medium: 7479, "
                                            "medium: 5268, hard: 2220}); the groups taken are these (needs by)", ge=1)
    unit: str = field("", help="a meta field whose records are taken together (chain_id: a chain's three "
                               "records); count then counts units. '': single records")
    total: int = field(0, help="records the selection must hold in all (e.g. 3036 for 1012 chains); 0: not checked", ge=0)
    match: str = field("", help="records whose pass-rate histogram to reproduce (meta.pass_rate): as many as it "
                                "holds, exact pass rates first, then the nearest (overrides by/count)")
    allow_short: bool = field(False, help="take a group with fewer than its count whole (and report it) instead of "
                                          "stopping; for CPU-sized runs (scripts/code_rl_cpu.py), never a paper's")

    def validate(self):
        if not self.data:
            yield "data", "no records given"
        for i, p in enumerate(self.data):
            if not Path(p).exists():
                yield f"data.{i}", f"{p} does not exist"
        if self.counts and (not self.by or self.groups):
            yield "counts", "needs by, and names the groups itself (leave groups empty)"
        if self.match and not Path(self.match).exists():
            yield "match", f"{self.match} does not exist"


def _samples_file(path: str) -> Path:
    p = Path(path)
    return p / "samples.jsonl" if p.is_dir() or not p.suffix else p


# ------------------------------------------------------------------ seeds


def solved_seeds(cfg: SeedsConfig) -> tuple[list[dict], dict]:
    """Seeds from the correct responses of training runs, and counts for the summary."""
    from utils.codegrade import extract_code
    from utils.records import read_jsonl_tolerant

    seeds, per, counts = [], defaultdict(set), defaultdict(int)
    for path in map(_samples_file, cfg.samples):
        for row in read_jsonl_tolerant(path):
            counts["samples"] += 1
            if row.get("correct") is not True or (cfg.env and row.get("env") != cfg.env):
                continue
            counts["correct"] += 1
            code = extract_code(row.get("response") or "")
            pid = str(row.get("id"))
            if code is None or code.strip() in per[pid] or len(per[pid]) >= cfg.per_problem:
                continue
            per[pid].add(code.strip())
            seeds.append({"text": code.strip("\n") + "\n",
                          "source": {"run": str(path), "id": pid, "env": row.get("env"), "step": row.get("step")}})
    counts["problems_solved"] = len(per)
    counts["seeds"] = len(seeds)
    return seeds, dict(counts)


# ------------------------------------------------------------------ subsets


def match_histogram(targets: list[float], candidates: list[tuple[float, str]]) -> tuple[list[str], int]:
    """For each target pass rate an unused candidate (pass rate, id): one with the same pass rate
    where there is one, else the nearest left (ties: the lower pass rate, then the lower id).
    Returns the chosen ids and how many matched exactly; fewer ids than targets when candidates
    run out."""
    pool = sorted(candidates)
    chosen, rest, exact = [], [], 0
    for t in sorted(targets):  # exact matches first, so a near match never takes an exact one's candidate
        i = bisect.bisect_left(pool, (t, ""))
        if i < len(pool) and pool[i][0] == t:
            chosen.append(pool.pop(i)[1])
            exact += 1
        else:
            rest.append(t)
    for t in rest:
        if not pool:
            break
        i = bisect.bisect_left(pool, (t, ""))
        near = [j for j in (i - 1, i) if 0 <= j < len(pool)]
        j = min(near, key=lambda j: (abs(pool[j][0] - t), pool[j]))
        chosen.append(pool.pop(j)[1])
    return chosen, exact


def _group(rec: dict, by: str):
    return rec.get(by) if by in ("env", "difficulty") else (rec.get("meta") or {}).get(by)


def select(cfg: SelectConfig, seed: int) -> tuple[list[dict], dict]:
    """The selected records (in their input order) and a per-group report."""
    from utils.records import load_records

    records = load_records(list(cfg.data))
    ids = [r["id"] for r in records]
    if len(set(ids)) != len(ids):
        raise ValueError(f"select: duplicate record ids in {cfg.data} (select from one dataset at a time)")
    where = ", ".join(map(str, cfg.data))

    def short(msg: str) -> None:  # the message starts with the data: generate.py names select.data
        if not cfg.allow_short:
            raise ValueError(f"{where}: {msg} (the paper's size; select.allow_short=true takes what there is)")
        print(f"select: {where}: {msg}", file=sys.stderr)

    if cfg.match:
        targets = [r["meta"]["pass_rate"] for r in load_records(cfg.match)]
        chosen, exact = match_histogram(targets, [(r["meta"]["pass_rate"], r["id"]) for r in records])
        if len(chosen) < len(targets):
            short(f"{len(chosen)} records to match the {len(targets)} of select.match={cfg.match}")
        keep = set(chosen)
        return [r for r in records if r["id"] in keep], {"matched": {"wanted": len(targets), "taken": len(chosen),
                                                                     "exact": exact}}
    wanted = set(cfg.counts) or set(cfg.groups)
    groups = defaultdict(set)  # group -> its units (record ids, or the unit field's values)
    unit_of = {}
    for r in records:
        g = _group(r, cfg.by) if cfg.by else "all"
        u = _group(r, cfg.unit) if cfg.unit else r["id"]
        if g is not None and u is not None and (not wanted or str(g) in wanted):
            unit_of[r["id"]] = (str(g), str(u))
            groups[str(g)].add(str(u))
    rng, keep, report = random.Random(seed), set(), {}
    for g in sorted(set(groups) | wanted):
        count = cfg.counts.get(g, cfg.count)
        members = sorted(groups[g])
        rng.shuffle(members)
        take = members[:count] if count else members
        keep.update((g, u) for u in take)
        report[g] = {"available": len(members), "taken": len(take)}
        if count and len(take) < count:
            key = f"select.counts.{g}" if g in cfg.counts else "select.count"
            short(f"group {g!r} has {len(members)} {cfg.unit or 'record'}s, fewer than {key}={count}")
    out = [r for r in records if unit_of.get(r["id"]) in keep]
    if cfg.unit:
        report["records"] = len(out)
    if cfg.total and len(out) != cfg.total:
        short(f"the selection holds {len(out)} records, not select.total={cfg.total}")
    return out, report


def write_shards(out: Path, records: list[dict], shard_size: int) -> int:
    """records as <out>/train-NNNNN.jsonl (a folder of training records only)."""
    from utils.records import shard_path, write_jsonl

    for k in range(0, max(1, len(records)), shard_size):
        write_jsonl(shard_path(out, "train", k // shard_size), records[k:k + shard_size])
    return len(records)


def format_report(mode: str, out: str, report: dict, n: int) -> str:
    return f"wrote {n} {'seeds' if mode == 'seeds' else 'records'} to {out}/\n" + json.dumps(report, indent=2)
