"""Multi-turn teacher-student synthesis of code problems (code-RL paper, Sec. 3), and the
difficulty bins and easy-medium-hard chains built from its pass rates.

    python generate.py --config configs/generate/synth.yaml [synth.seeds=1000 synth.teacher.engine.backend=openai ...]

For each seed snippet (25-50 lines of real code), turn 1 asks the teacher for a problem in one
environment's rules: `f`, k inputs and (induction) a message; the sandbox computes the outputs.
The student answers M times, giving a pass rate p. Turns 2..T show the teacher only the previous
problem, the student's summary (p, a solved and a failed answer) and a strategy chosen from p:
p >= 0.65 harder, p == 0 easier, otherwise a variation at similar difficulty. Every turn's
problem is filtered (format, execution, determinism, literal and diverse outputs, duplicates and
near duplicates, never solved) and each rejection's reason is counted. Kept problems become
records of their environment with meta.pass_rate, meta.bin (broad difficulty bin) and
meta.synth (seed snippet, turn, strategy, parent). Then hard problems (chain-hard bin) are
walked down to a medium and an easy variant, each transition filtered on the target bin, and
complete chains are written with meta.chain_level for the chain curricula.

Output (under `out`), per shard of `shard_size` seeds: synth-NNNNN.jsonl (kept records),
chains-NNNNN.jsonl, trace-NNNNN.jsonl (one line per seed and turn: what happened and why) and
stats-NNNNN.json, written last, which marks the shard done: re-running the same command skips
done shards and rebuilds the duplicate index from their records.

This module's top level imports only configuration, so generate.py can import SynthConfig cheaply.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List

from utils.config import field
from utils.engine import EngineConfig

ENVS = ("induction", "abduction", "deduction", "fuzzing")
TEACHER_REPLAY, STUDENT_REPLAY = "tests/data/synth_teacher.jsonl", "tests/data/synth_student.jsonl"


@dataclass
class RoleConfig:
    engine: EngineConfig = field(EngineConfig(backend="replay", replay_path=TEACHER_REPLAY),
                                 help="model backend (utils/engine.py): vllm, openai (e.g. a served GPT-OSS-120B), "
                                      "hf, or replay (recorded responses)")
    temperature: float = field(1.0, help="sampling temperature")
    top_p: float = field(1.0, help="nucleus sampling")
    max_tokens: int = field(4096, help="tokens per response")
    retries: int = field(3, help="retries of a failed or timed-out generate call, with exponential backoff")
    backoff_s: float = field(2.0, help="first backoff delay in seconds (doubles per retry)")


@dataclass
class SynthConfig:
    seeds: int = field(8, help="seed snippets to start chains from")
    envs: List[str] = field(["induction", "abduction", "deduction", "fuzzing"],
                            help="environments whose rules the teacher writes for, cycled over the seeds")
    turns: int = field(6, help="teacher turns per seed snippet (paper: 6)")
    samples: int = field(32, help="student answers per problem, M (paper: 32; 8 was too noisy)")
    inputs: int = field(5, help="inputs the teacher writes per problem, k (paper: 5)")
    shown: int = field(3, help="induction: input/output pairs the student sees, k' (the rest are hidden)")
    harder_at: float = field(0.65, help="pass rate from which the next turn asks for a harder problem")
    min_distinct_outputs: int = field(2, help="reject a problem whose outputs take fewer distinct values")
    near_duplicate: float = field(0.8, help="Jaccard similarity of token 5-grams above which a problem is a "
                                           "near duplicate of a kept one")
    corpus: str = field("stdlib", help="seed snippets: stdlib (this interpreter's standard library), a "
                                       "directory of .py files, or hf:<dataset> (e.g. hf:bigcode/starcoderdata)")
    corpus_field: str = field("content", help="hf corpus: the text field")
    corpus_split: str = field("train", help="hf corpus: the split")
    snippet_lines: List[int] = field([25, 50], help="snippet length range in lines")
    teacher: RoleConfig = field(RoleConfig(), help="the teacher model and its sampling")
    student: RoleConfig = field(RoleConfig(EngineConfig(backend="replay", replay_path=STUDENT_REPLAY), max_tokens=2048),
                                help="the student model and its sampling")
    timeout_s: float = field(2.0, help="sandbox wall-clock limit per execution")
    memory_mb: int = field(512, help="sandbox address-space limit per execution")
    shard_size: int = field(16, help="seeds per shard (the unit of batching and of resuming)")
    bins: Dict[str, List[float]] = field(
        {"easy": [0.85, 0.97], "easy_medium": [0.61, 0.85], "medium": [0.26, 0.61], "hard": [0.10, 0.26]},
        help="broad difficulty bins over pass rates (paper); first match wins; meta.bin, record difficulty = index")
    chain_bins: Dict[str, List[float]] = field(
        {"easy": [0.81, 0.91], "medium": [0.41, 0.59], "hard": [0.05, 0.16]},
        help="chain bins (paper): hard problems are walked down to medium and easy variants landing in these")
    chains: bool = field(True, help="build easy-medium-hard chains from the hard problems")
    chain_attempts: int = field(2, help="teacher attempts per chain transition")

    def validate(self):
        for i, env in enumerate(self.envs):
            if env not in ENVS:
                yield f"envs.{i}", f"unknown environment {env!r}; one of {list(ENVS)}"
        if not self.envs:
            yield "envs", "at least one environment"
        for key in ("seeds", "turns", "samples", "inputs", "shard_size", "chain_attempts"):
            if getattr(self, key) < 1:
                yield key, "must be >= 1"
        if not 1 <= self.shown <= self.inputs:
            yield "shown", "must be between 1 and inputs"
        if len(self.snippet_lines) != 2 or not 1 <= self.snippet_lines[0] <= self.snippet_lines[1]:
            yield "snippet_lines", "must be [min, max] with 1 <= min <= max"
        for name, bins in (("bins", self.bins), ("chain_bins", self.chain_bins)):
            for b, band in bins.items():
                if len(band) != 2 or not 0 <= band[0] <= band[1] <= 1:
                    yield f"{name}.{b}", "must be [low, high] with 0 <= low <= high <= 1"
        if not {"easy", "medium", "hard"} <= set(self.chain_bins):
            yield "chain_bins", "needs easy, medium and hard"
        for key in ("harder_at", "near_duplicate"):
            if not 0 < getattr(self, key) <= 1:
                yield key, "must be in (0, 1]"
        if self.timeout_s <= 0 or self.memory_mb < 1:
            yield "timeout_s" if self.timeout_s <= 0 else "memory_mb", "must be > 0"
        if self.corpus != "stdlib" and not self.corpus.startswith("hf:") and not Path(self.corpus).is_dir():
            yield "corpus", f"{self.corpus!r} is not 'stdlib', 'hf:<dataset>' or a directory"
        for role in ("teacher", "student"):
            engine = getattr(self, role).engine
            if engine.backend == "replay" and not Path(engine.replay_path).is_file():
                yield f"{role}.engine.replay_path", f"{engine.replay_path!r} is not a file (relative paths start at " \
                                                    f"the directory you run from)"


def bin_of(p: float, bins: dict) -> str | None:
    return next((name for name, (low, high) in bins.items() if low <= p <= high), None)


# ====================================================================== the pipeline


@dataclass
class Chain:
    """One seed snippet's sequence of turns."""
    index: int
    env: str
    snippet: str
    where: dict
    previous: object = None  # the last problem the student was evaluated on
    previous_id: str | None = None
    p: float = 0.0
    solved: str | None = None
    failed: str | None = None
    strategy: str | None = None  # for the next turn
    rejected: str | None = None  # why the last turn's answer was rejected, if it was
    alive: bool = True


class Synthesizer:
    def __init__(self, cfg: SynthConfig, out: str | Path, seed: int = 0, teacher=None, student=None):
        from envs.code.filters import Dedupe
        from envs.code.snippets import SnippetSource

        self.cfg, self.out, self.seed = cfg, Path(out), seed
        self.teacher, self.student = teacher, student
        self.dedupe = Dedupe(cfg.near_duplicate)
        self.snippets = SnippetSource(cfg.corpus, cfg.corpus_field, cfg.corpus_split)
        self.envs = {}

    # ------------------------------------------------------------ models

    def engines(self):
        from utils.engine import make_engine

        if self.teacher is None:
            self.teacher = make_engine(self.cfg.teacher.engine, seed=self.seed)
        if self.student is None:
            same = asdict(self.cfg.student.engine) == asdict(self.cfg.teacher.engine)
            self.student = self.teacher if same else make_engine(self.cfg.student.engine, seed=self.seed)

    def generate(self, engine, role: RoleConfig, prompts: list, n: int, seeds: list[int], stats: Counter) -> list:
        """Each prompt's n texts, or None where the backend kept failing (counted; the run goes on)."""
        from utils.engine import SamplingParams

        params = SamplingParams(n=n, temperature=role.temperature, top_p=role.top_p, max_tokens=role.max_tokens)

        def attempt(ps: list, ss: list, retries: int) -> list:
            for k in range(retries + 1):
                try:
                    return [[c.text for c in outs] for outs in engine.generate(ps, params, seeds=ss)]
                except Exception as e:  # any backend failure (HTTP error, timeout, missing replay) is retried
                    stats["engine_errors"] += 1
                    print(f"synth: generate failed for {len(ps)} prompt(s): {type(e).__name__}: {str(e)[:200]}",
                          file=sys.stderr)
                    if k < retries:
                        time.sleep(role.backoff_s * 2 ** k)
            if len(ps) == 1:
                return [None]
            # still failing: split the batch, so a prompt that always fails sinks only itself
            mid = len(ps) // 2
            return attempt(ps[:mid], ss[:mid], 0) + attempt(ps[mid:], ss[mid:], 0)

        return attempt(prompts, seeds, role.retries) if prompts else []

    def env(self, name: str):
        import envs

        if name not in self.envs:
            self.envs[name] = envs.make(name, timeout_s=self.cfg.timeout_s, memory_mb=self.cfg.memory_mb,
                                        shown=self.cfg.shown)
        return self.envs[name]

    # ------------------------------------------------------------ one problem through the filters

    def vet(self, text: str | None, env: str, stats: Counter):
        """Parse and filter a teacher answer: (problem, None) or (None, reason), the reason counted."""
        from envs.code import filters, teacher

        problem, reason = teacher.parse(text or "", env, self.cfg.inputs)
        if reason is None:
            problem, reason = filters.check(problem, env, self.cfg.min_distinct_outputs, self.cfg.timeout_s,
                                            self.cfg.memory_mb)
        if reason is None:
            reason = self.dedupe.check(problem.code)
        if reason is not None:
            stats[f"rejected:{reason}"] += 1
            return None, reason
        self.dedupe.add(problem.code)  # even if the student never solves it: a copy would not fare better
        return problem, None

    def evaluate(self, items: list, stats: Counter, tag: str) -> list:
        """Student pass rates: for each (env, problem, rng seed) -> (record, p, solved, failed) or None."""
        import random

        from utils.engine import chat
        from utils.records import derive_seed

        records = [self.env(env).record(problem, random.Random(s), 0, f"eval-{s}") for env, problem, s in items]
        seeds = [derive_seed(self.seed, "student", tag, i) for i in range(len(items))]
        outs = self.generate(self.student, self.cfg.student, [chat(r["prompt"]) for r in records],
                             self.cfg.samples, seeds, stats)
        results = []
        for (env, _, _), rec, texts in zip(items, records, outs):
            if texts is None:
                stats["rejected:student_error"] += 1
                results.append(None)
                continue
            rewards = [self.env(env).score(rec, t) for t in texts]
            correct = [r.correct for r in rewards]
            stats["student_answers"] += len(texts)
            stats["student_unparsable"] += sum(not r.parts["format"] for r in rewards)  # counted as failures
            solved = next((t for t, c in zip(texts, correct) if c), None)
            failed = next((t for t, c in zip(texts, correct) if not c), None)
            results.append((rec, sum(correct) / len(texts), solved, failed))
        return results

    def keep(self, rec: dict, p: float, rid: str, extra: dict) -> dict:
        b = bin_of(p, self.cfg.bins)
        rec = dict(rec, id=rid, difficulty=list(self.cfg.bins).index(b) if b else -1)
        rec["meta"] = {**rec["meta"], "pass_rate": p, "student_samples": self.cfg.samples, "bin": b, **extra}
        return rec

    # ------------------------------------------------------------ a shard of seeds

    def shard(self, k: int, bar) -> dict:
        from envs.code import teacher
        from utils.engine import chat
        from utils.records import derive_seed

        cfg = self.cfg
        stats, trace, kept = Counter(), [], []
        first = k * cfg.shard_size
        chains = []
        for i in range(first, min(first + cfg.shard_size, cfg.seeds)):
            text, where = self.snippets.snippet(derive_seed(self.seed, "snippet", i), *cfg.snippet_lines)
            chains.append(Chain(i, cfg.envs[i % len(cfg.envs)], text, where))
        for turn in range(1, cfg.turns + 1):
            alive = [c for c in chains if c.alive]
            prompts = [chat(teacher.with_rejection(
                teacher.first_prompt(c.env, c.snippet, cfg.inputs, cfg.shown) if c.previous is None else
                teacher.next_prompt(c.env, c.previous, c.p, cfg.samples, c.solved, c.failed, c.strategy, cfg.inputs,
                                    cfg.shown), c.rejected), teacher.SYSTEM) for c in alive]
            answers = self.generate(self.teacher, cfg.teacher, prompts, 1,
                                    [derive_seed(self.seed, "teacher", c.index, turn) for c in alive], stats)
            candidates = []
            for c, ans in zip(alive, answers):
                event = {"seed": c.index, "env": c.env, "turn": turn, "strategy": c.strategy if c.previous else None}
                if ans is None:
                    c.alive = False
                    stats["skipped_seeds"] += 1
                    trace.append({**event, "outcome": "skipped:teacher_error"})
                    continue
                problem, reason = self.vet(ans[0], c.env, stats)
                c.rejected = reason
                if reason:
                    trace.append({**event, "outcome": f"rejected:{reason}"})
                else:
                    candidates.append((c, problem, event))
            results = self.evaluate([(c.env, pr, derive_seed(self.seed, "record", c.index, turn))
                                     for c, pr, _ in candidates], stats, f"{k}-{turn}")
            for (c, problem, event), res in zip(candidates, results):
                if res is None:
                    trace.append({**event, "outcome": "rejected:student_error"})
                    continue
                rec, p, solved, failed = res
                rid = f"synth-{c.env}-{c.index:06d}-t{turn}"
                meta = {"synth": {"seed": c.index, "snippet": c.where, "turn": turn, "strategy": event["strategy"],
                                  "parent": c.previous_id, "parent_pass_rate": c.p if c.previous else None}}
                c.previous, c.previous_id, c.p, c.solved, c.failed = problem, rid, p, solved, failed
                c.strategy = teacher.strategy_for(p, cfg.harder_at)
                stats[f"next:{c.strategy}"] += 1
                if p == 0:
                    stats["rejected:unsolved"] += 1
                    trace.append({**event, "outcome": "rejected:unsolved", "pass_rate": p, "next": c.strategy})
                    continue
                stats["kept"] += 1
                kept.append((c.env, problem, self.keep(rec, p, rid, meta)))
                trace.append({**event, "outcome": "kept", "pass_rate": p, "next": c.strategy})
            bar.set_postfix(kept=stats["kept"], turn=f"{turn}/{cfg.turns}", refresh=True)
        chain_records = self.chains(kept, stats, trace, k) if cfg.chains else []
        return {"records": [r for _, _, r in kept], "chains": chain_records, "trace": trace, "stats": dict(stats)}

    def chains(self, kept: list, stats: Counter, trace: list, k: int) -> list[dict]:
        """Walk each hard problem down to a medium and an easy variant, each landing in its chain bin."""
        from envs.code import teacher
        from utils.engine import chat
        from utils.records import derive_seed

        cfg, bins = self.cfg, self.cfg.chain_bins
        walks = [[(env, problem, rec)] for env, problem, rec in kept if bin_of(rec["meta"]["pass_rate"], {"hard": bins["hard"]})]
        stats["chains_started"] += len(walks)
        for level in ("medium", "easy"):
            low, high = bins[level]
            todo = list(walks)
            walks = []
            for attempt in range(cfg.chain_attempts):
                if not todo:
                    break
                prompts = [chat(teacher.easier_prompt(w[-1][0], w[-1][1], w[-1][2]["meta"]["pass_rate"], low, high,
                                                      cfg.inputs, cfg.shown), teacher.SYSTEM) for w in todo]
                seeds = [derive_seed(self.seed, "chain", w[0][2]["id"], level, attempt) for w in todo]
                answers = self.generate(self.teacher, cfg.teacher, prompts, 1, seeds, stats)
                vetted = []
                for w, ans in zip(todo, answers):
                    if ans is None:  # the endpoint kept failing: not the teacher's format
                        problem, reason = None, "teacher_error"
                        stats["rejected:teacher_error"] += 1
                    else:
                        problem, reason = self.vet(ans[0], w[-1][0], stats)
                    if reason:
                        trace.append({"chain": w[0][2]["id"], "level": level, "attempt": attempt,
                                      "outcome": f"rejected:{reason}"})
                    else:
                        vetted.append((w, problem))
                results = self.evaluate([(w[-1][0], pr, derive_seed(self.seed, "chain-record", w[0][2]["id"], level))
                                         for w, pr in vetted], stats, f"{k}-chain-{level}-{attempt}")
                retry = [w for w in todo if all(w is not v for v, _ in vetted)]
                for (w, problem), res in zip(vetted, results):
                    p = res[1] if res else None
                    if p is None or not low <= p <= high:  # the transition filter
                        stats["rejected:chain_transition"] += p is not None
                        trace.append({"chain": w[0][2]["id"], "level": level, "attempt": attempt, "pass_rate": p,
                                      "outcome": "rejected:chain_transition" if res else "rejected:student_error"})
                        retry.append(w)
                        continue
                    rid = f"{w[0][2]['id']}-{level}"
                    meta = {"synth": {**w[-1][2]["meta"]["synth"], "variant_of": w[-1][2]["id"], "turn": None}}
                    walks.append(w + [(w[-1][0], problem, self.keep(res[0], p, rid, meta))])
                    trace.append({"chain": w[0][2]["id"], "level": level, "attempt": attempt, "pass_rate": p,
                                  "outcome": "kept"})
                todo = retry
            stats["chains_incomplete"] += len(todo)
        out = []
        for w in walks:
            chain_id = w[0][2]["id"]
            for (_, _, rec), level in zip(w, ("hard", "medium", "easy")):
                meta = {**rec["meta"], "chain_id": chain_id, "chain_level": level}
                out.append(dict(rec, id=f"{rec['id']}-chain" if level == "hard" else rec["id"], meta=meta))
        stats["chains_complete"] += len(walks)
        return out

    # ------------------------------------------------------------ the run

    def run(self) -> dict:
        from tqdm import tqdm

        from utils.records import atomic_write_text, read_jsonl, write_jsonl

        cfg, out = self.cfg, self.out
        fingerprint = hashlib.sha256(json.dumps([self.seed, asdict(cfg)], sort_keys=True).encode()).hexdigest()[:16]
        fp = out / "fingerprint"
        if fp.exists() and fp.read_text().strip() != fingerprint:
            sys.exit(f"generate.py: {out} holds a synthesis run with other settings; choose another out= or delete it")
        atomic_write_text(fp, fingerprint + "\n")
        n_shards = (cfg.seeds + cfg.shard_size - 1) // cfg.shard_size
        totals, made, t0 = Counter(), 0, time.time()
        bar = tqdm(total=cfg.seeds, desc="synth", unit="seed", file=sys.stderr, disable=None)
        for k in range(n_shards):
            paths = {name: out / f"{name}-{k:05d}.jsonl" for name in ("synth", "chains", "trace")}
            stats_path = out / f"stats-{k:05d}.json"
            if stats_path.exists():  # done earlier: its problems still count for deduplication
                for name in ("synth", "chains"):
                    for rec in read_jsonl(paths[name]):
                        self.dedupe.add(rec["meta"]["code"])
                stats = json.loads(stats_path.read_text())
            else:
                self.engines()
                result = self.shard(k, bar)
                for name, key in (("synth", "records"), ("chains", "chains"), ("trace", "trace")):
                    write_jsonl(paths[name], result[key])
                stats = result["stats"]
                atomic_write_text(stats_path, json.dumps(stats, indent=2, sort_keys=True) + "\n")
                made += len(result["records"])
            totals.update(stats)
            bar.update(min(cfg.shard_size, cfg.seeds - k * cfg.shard_size))
        bar.close()
        return {"out": str(out), "seeds": cfg.seeds, "shards": n_shards, "counts": dict(sorted(totals.items())),
                "records_generated_now": made, "seconds": round(time.time() - t0, 2)}


def synthesize(cfg: SynthConfig, out: str | Path, seed: int = 0, teacher=None, student=None) -> dict:
    """Run (or resume) a synthesis run; engines may be passed in (tests), else built from cfg."""
    return Synthesizer(cfg, out, seed, teacher, student).run()


def format_summary(s: dict) -> str:
    counts = s["counts"]
    lines = [f"wrote {s['out']}/ ({s['shards']} shards, {s['seeds']} seed snippets)",
             f"  kept {counts.get('kept', 0)} problems; chains complete {counts.get('chains_complete', 0)} "
             f"of {counts.get('chains_started', 0)}; seeds skipped {counts.get('skipped_seeds', 0)}",
             f"  student answers {counts.get('student_answers', 0)}, unparsable (format) "
             f"{counts.get('student_unparsable', 0)}"]
    lines += [f"    {n:6d}  {k}" for k, n in counts.items() if k.startswith(("rejected:", "next:"))]
    lines.append(f"generated {s['records_generated_now']} records now in {s['seconds']} s")
    return "\n".join(lines)
