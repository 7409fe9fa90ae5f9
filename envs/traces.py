"""SFT traces by rejection sampling (`generate.py mode=sft_traces`): a teacher answers each problem
K times through utils/engine.py and only the responses `envs.score` marks correct are kept. The
puzzle-to-math paper distils DeepSeek-Reasoner this way (backend openai); the CPU demo uses hf or
replay.

Output rows are the input records plus `responses` (the distinct correct ones, in sample order)
and `traces` ({k, correct}); problems with no correct response are dropped (counted in the
manifest). train.py stage=sft reads the rows as they are. Shards line up with chunks of the
input, so re-running skips finished shards: those manifest.json records with their count and
SHA-256, written after each shard (a cut or edited shard is made again). Samples are seeded per
record id; generate.py refuses an output made with other settings or other input records.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import List

from utils.config import field
from utils.engine import EngineConfig


@dataclass
class TracesConfig:
    records: List[str] = field([], help="problem records (generate.py mode=envs output): JSONL files, globs or "
                                        "shard directories read for records_split. A test split is refused: "
                                        "traces are training data")
    records_split: str = field("", help="the split read from each directory in `records`, e.g. train_sft")
    teacher: EngineConfig = field(EngineConfig(), help="the teacher model (openai for a served reasoner; hf, vllm, "
                                                       "replay)")
    samples: int = field(8, help="K: responses sampled per problem; 0 (with include_answer): only the gold "
                                     "answers are scored, no teacher runs", ge=0)
    temperature: float = field(0.6, help="teacher sampling temperature; 0: greedy", ge=0)
    top_p: float = field(0.95, help="teacher nucleus sampling", gt=0, le=1)
    max_tokens: int = field(8192, help="teacher response budget", ge=1)
    system_prompt: str = field("", help="system message for the teacher")
    keep: str = field("all", help="keep every distinct correct response, or the first one", choices=("all", "first"))
    split: str = field("train", help="name of the output shards (<split>-00000.jsonl ...)")
    include_answer: bool = field(False, help="also offer each record's gold `answer` as a candidate, scored like "
                                             "the samples (datasets whose generator knows a solution)")

    def validate(self):
        if not self.records:
            yield "records", "no input records given"
        from utils.records import DataRefError, resolve_split

        for i, p in enumerate(self.records):
            try:
                resolve_split(p, self.records_split)
            except DataRefError as e:
                yield f"records.{i}" if e.key == "data" else "records_split", str(e)
        if self.samples == 0 and not self.include_answer:
            yield "samples", "must be >= 1 (or 0 with include_answer)"
        if self.samples and self.teacher.backend in ("hf", "vllm", "openai") and not self.teacher.model:
            yield "teacher.model", "missing teacher model"


def load_inputs(cfg: TracesConfig) -> list[dict]:
    """The problems of `records`, each checked where it is read: a row that is not a JSON object,
    has no string prompt or id, or names no registered env is a DataError naming the file and the
    line (generate.py reads them before anything is written)."""
    import envs
    from utils.records import read_prompt_records, resolve_split

    known = set(envs.names())

    def check(row: dict) -> str | None:
        if not isinstance(row.get("id"), (str, int)) or isinstance(row.get("id"), bool):
            return "no id (a string or an integer: it seeds the record's samples)"
        if row.get("env") not in known and not str(row.get("env")).startswith(envs.RG_PREFIX):
            return f"unknown env {row.get('env')!r} (envs.score grades the responses)"
        return None

    return [r for p in cfg.records for f in resolve_split(p, cfg.records_split) for r in read_prompt_records(f, check)]


def generate_traces(cfg: TracesConfig, out: str, seed: int, shard_size: int, problems: list[dict]) -> dict:
    """problems: load_inputs(cfg). Each shard finished is recorded in <out>/manifest.json at once
    (count and hash), so a stopped run keeps what it sampled."""
    import json

    import envs
    from utils.engine import SamplingParams, chat, make_engine
    from utils.records import (atomic_write_text, derive_seed, finished_shard, recorded_shards, shard_entry,
                               shard_path, write_jsonl)

    recorded = recorded_shards(out)  # generate.py refused a directory of other settings or inputs
    params = SamplingParams(n=max(1, cfg.samples), temperature=cfg.temperature, top_p=cfg.top_p,
                            max_tokens=cfg.max_tokens)
    engine = None  # built only if a shard is missing: a finished run loads no model
    stats: dict[str, dict[str, int]] = {}
    shards: dict[str, dict] = {}
    t0, made = time.time(), 0
    for k in range(0, len(problems), shard_size):
        chunk, path = problems[k:k + shard_size], shard_path(out, cfg.split, k // shard_size)
        done = finished_shard(path, recorded.get(path.name), "generate.py")
        if done is not None:
            kept = {r["id"]: r for r in done}
        else:
            outs = [[] for _ in chunk]
            if cfg.samples:
                engine = engine or make_engine(cfg.teacher, seed=seed)
                seeds = [derive_seed(seed, "traces", rec["id"]) for rec in chunk]
                outs = engine.generate([chat(r["prompt"], cfg.system_prompt or None) for r in chunk], params,
                                       seeds=seeds)
            kept = {}
            for rec, comps in zip(chunk, outs):
                candidates = [c.text for c in comps]
                if cfg.include_answer and rec.get("answer"):
                    candidates.append(rec["answer"])
                good = [t for t in candidates if envs.score(rec, t).correct]
                good = list(dict.fromkeys(good))[:1 if cfg.keep == "first" else None]
                if good:
                    kept[rec["id"]] = {**rec, "responses": good, "traces": {"k": cfg.samples, "correct": len(good)}}
            write_jsonl(path, kept.values())
            made += len(chunk)
        shards[path.name] = shard_entry(path)
        atomic_write_text(Path(out) / "manifest.json", json.dumps({"shards": {**recorded, **shards}}, indent=2) + "\n")
        for rec in chunk:
            s = stats.setdefault(rec["env"], {"problems": 0, "kept": 0, "responses": 0})
            s["problems"] += 1
            s["kept"] += rec["id"] in kept
            s["responses"] += len(kept[rec["id"]]["responses"]) if rec["id"] in kept else 0
    seconds = time.time() - t0
    return {"out": out, "samples_per_problem": cfg.samples, "per_env": stats, "problems_sampled_now": made,
            "seconds": round(seconds, 3), "shards": shards}


def format_summary(s: dict) -> str:
    lines = [f"wrote {s['out']}/ (K={s['samples_per_problem']} samples per problem)"]
    for env, c in sorted(s["per_env"].items()):
        lines.append(f"  {env}: {c['kept']}/{c['problems']} problems kept, {c['responses']} correct responses")
    lines.append(f"sampled {s['problems_sampled_now']} problems in {s['seconds']} s")
    return "\n".join(lines)
