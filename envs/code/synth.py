"""Multi-turn teacher-student synthesis of code problems (code-RL paper, Sec. 3), and the
difficulty bins and easy-medium-hard chains built from its pass rates.

    python generate.py --config configs/generate/synth.yaml [synth.seeds=1000 synth.teacher.engine.backend=openai ...]

For each seed snippet (25-50 lines of real code, or a whole solution from a training run, see
envs/code/snippets.py), turn 1 asks the teacher for a problem in one environment's rules: `f`,
its inputs (induction k of them and a message; abduction and deduction one; fuzzing `pre_test_f`
and `test_f` too, and either no input, the paper's form, or k inputs one of which breaks `test_f`,
ours: `inputs.fuzzing`) and the sandbox computes the outputs. The student answers M times, giving a pass
rate p. Turns 2..T show the teacher only the previous problem, the student's summary (p, a solved
and a failed answer) and a strategy chosen from p: p > 0.65 harder, p == 0 easier, otherwise a
variation at similar difficulty. Every turn's problem is filtered (format, execution,
determinism, literal and diverse outputs, duplicates and near duplicates, pass rate outside
[0.01, 0.97]) and each rejection's reason is counted. Kept problems become records of their
environment with meta.pass_rate, meta.bin (Table 3 bin), meta.chain_level (Appendix B bin; null
outside those bins) and meta.synth (seed snippet, turn, strategy, parent). Then hard problems are
walked down to a medium and an easy variant, each transition filtered on the target bin, and
complete chains are written with meta.chain_level their position. `single_turn=true` instead asks
for T independent first-turn problems per seed (the single-turn baseline of the yield study).

Output (under `out`):
  problems/train-NNNNN.jsonl   kept problems: training records, nothing else (data: <out>/problems)
  chains/train-NNNNN.jsonl     complete easy-medium-hard chains (data: <out>/chains)
  disjoint/train-00000.jsonl   the disjoint-chains baseline: kept problems from seeds that are in no
                               chain, matched level by level to the chains' pass-rate histogram
  trace/trace-NNNNN.jsonl      one line per seed and turn: what happened and why
  stats/stats-NNNNN.json       written last, marks the shard done: re-running the same command
                               skips done shards and rebuilds the duplicate index from them

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
DATASETS = ("problems", "chains")  # per-shard record folders; disjoint/ is built from both at the end
TEACHER_REPLAY, STUDENT_REPLAY = "tests/data/synth_teacher.jsonl", "tests/data/synth_student.jsonl"


@dataclass
class RoleConfig:
    engine: EngineConfig = field(EngineConfig(backend="replay", replay_path=TEACHER_REPLAY),
                                 help="model backend (utils/engine.py): vllm, openai (e.g. a served GPT-OSS-120B), "
                                      "hf, or replay (recorded responses)")
    temperature: float = field(1.0, help="sampling temperature; 0: greedy", ge=0)
    top_p: float = field(1.0, help="nucleus sampling", gt=0, le=1)
    max_tokens: int = field(4096, help="tokens per response", ge=1)
    retries: int = field(3, help="retries of a failed or timed-out generate call, with exponential backoff "
                                  "(0: none)", ge=0)
    backoff_s: float = field(2.0, help="first backoff delay in seconds (doubles per retry)", ge=0)


@dataclass
class SynthConfig:
    seeds: int = field(8, help="seed snippets to start chains from", ge=1)
    envs: List[str] = field(["induction", "abduction", "deduction", "fuzzing"],
                            help="environments whose rules the teacher writes for, cycled over the seeds")
    turns: int = field(6, help="teacher turns per seed snippet (paper: 6)", ge=1)
    samples: int = field(32, help="student answers per problem, M (paper: 32; 8 was too noisy)", ge=1)
    inputs: Dict[str, int] = field(
        {"induction": 5, "abduction": 1, "deduction": 1, "fuzzing": 5},
        help="inputs the teacher writes per problem, per env. Induction k = 5 (code_rl Appendix F: '5 diverse "
             "inputs'); abduction and deduction 1 (code_rl Table 1: 'Generates function f() and one input case'); "
             "fuzzing 0 is the paper's teacher (code_rl Table 1: 'Generates a function f(), which contains a subtle "
             "bug to be exploited, and tests pre_test_f() and test_f()': no inputs; the paper configs), k >= 1 ours: "
             "it also writes k inputs and one of them must break test_f, which gives the record a gold answer and "
             "rejects unexploitable bugs before the student's M samples are spent", ge=0)
    shown: int = field(3, help="induction: input/output pairs the student sees, k' (the rest are hidden)", ge=1)
    harder_at: float = field(0.65, help="pass rate above which (strictly) the next turn asks for a harder problem "
                                        "(code_rl: 'increasing complexity if p > 0.65')", gt=0, le=1)
    keep_range: List[float] = field([0.01, 0.97], help="kept problems' pass-rate range, inclusive (code_rl: 'include "
                                                        "all questions with pass rates between 0.01 and 0.97')",
                                    ge=0, le=1)
    single_turn: bool = field(False, help="the single-turn baseline (code_rl Sec. 4.2): `turns` independent first-turn "
                                          "problems per seed, no student summary, no retry hint")
    retry_hint: bool = field(True, help="after a rejected teacher answer, the next turn's prompt names the reason "
                                        "(ours: a retry is then not a blind re-draw). false: the paper's turns, "
                                        "'each turn conditioned on the immediately preceding question and student "
                                        "summary rather than the full history' (code_rl Sec. 3; the paper configs), "
                                        "which also keeps the multi- vs single-turn yield comparison unbiased")
    min_distinct_outputs: int = field(2, help="reject a problem whose outputs take fewer distinct values (envs with "
                                              "more than one input)", ge=1)
    near_duplicate: float = field(0.8, help="Jaccard similarity of token 5-grams above which a problem is a "
                                           "near duplicate of a kept one", gt=0, le=1)
    corpus: str = field("stdlib", help="seed snippets: stdlib (this interpreter's standard library), a "
                                       "directory of .py files, hf:<dataset> (code_rl: hf:bigcode/starcoderdata with "
                                       "corpus_data_dir=python), all windows of snippet_lines lines; or a .jsonl of "
                                       "solutions (generate.py mode=seeds), each used whole")
    corpus_field: str = field("content", help="hf corpus: the text field")
    corpus_split: str = field("train", help="hf corpus: the split")
    corpus_data_dir: str = field("", help="hf corpus: the data directory (starcoderdata: python)")
    corpus_rows: int = field(20000, help="hf corpus: rows streamed (shuffled by shard and buffer) and kept as the pool",
                             ge=1)
    corpus_fallback: str = field("", help="if the hf corpus cannot be loaded (offline): '' stops the run, 'stdlib' "
                                          "uses the standard library instead, says so on stderr and in each "
                                          "record's meta.synth.snippet.corpus", choices=("", "stdlib"))
    snippet_lines: List[int] = field([25, 50], help="window length range in lines (code_rl: 'randomly select 25-50 "
                                                    "consecutive lines'); not applied to a .jsonl of solutions", ge=1)
    teacher: RoleConfig = field(RoleConfig(), help="the teacher model and its sampling")
    student: RoleConfig = field(RoleConfig(EngineConfig(backend="replay", replay_path=STUDENT_REPLAY), max_tokens=2048),
                                help="the student model and its sampling")
    timeout_s: float = field(2.0, help="sandbox wall-clock limit per execution", gt=0)
    memory_mb: int = field(512, help="sandbox address-space limit per execution", ge=1)
    shard_size: int = field(16, help="seeds per shard (the unit of batching and of resuming)", ge=1)
    bins: Dict[str, List[float]] = field(
        {"easy": [0.85, 0.97], "easy_medium": [0.61, 0.85], "medium": [0.26, 0.61], "hard": [0.10, 0.26]},
        help="broad difficulty bins over pass rates (paper); first match wins; meta.bin, record difficulty = index",
                                         ge=0, le=1)
    chain_bins: Dict[str, List[float]] = field(
        {"easy": [0.81, 0.91], "medium": [0.41, 0.59], "hard": [0.05, 0.16]},
        help="chain bins (paper): hard problems are walked down to medium and easy variants landing in these",
                                               ge=0, le=1)
    chains: bool = field(True, help="build easy-medium-hard chains from the hard problems")
    chain_attempts: int = field(2, help="teacher attempts per chain transition", ge=1)

    def validate(self):
        for i, env in enumerate(self.envs):
            if env not in ENVS:
                yield f"envs.{i}", f"unknown environment {env!r}; one of {list(ENVS)}"
        if not self.envs:
            yield "envs", "at least one environment"
        for env in ENVS:  # the field's range is >= 0; fuzzing 0: the paper's teacher writes no inputs
            if env not in self.inputs or (env != "fuzzing" and self.inputs[env] < 1):
                yield f"inputs.{env}", f"an integer >= {0 if env == 'fuzzing' else 1} is required"
        if set(self.inputs) - set(ENVS):
            yield "inputs", f"unknown environments {sorted(set(self.inputs) - set(ENVS))}"
        if "induction" in self.inputs and self.shown > self.inputs["induction"]:
            yield "shown", "must be between 1 and inputs.induction"
        if len(self.keep_range) != 2 or self.keep_range[0] > self.keep_range[1]:
            yield "keep_range", "must be [low, high] with 0 <= low <= high <= 1"
        if len(self.snippet_lines) != 2 or self.snippet_lines[0] > self.snippet_lines[1]:
            yield "snippet_lines", "must be [min, max] with 1 <= min <= max"
        for name, bins in (("bins", self.bins), ("chain_bins", self.chain_bins)):
            for b, band in bins.items():
                if len(band) != 2 or band[0] > band[1]:
                    yield f"{name}.{b}", "must be [low, high] with 0 <= low <= high <= 1"
        if not {"easy", "medium", "hard"} <= set(self.chain_bins):
            yield "chain_bins", "needs easy, medium and hard"
        if self.corpus.endswith(".jsonl"):
            if not Path(self.corpus).is_file():
                yield "corpus", f"{self.corpus} does not exist (write it with generate.py mode=seeds)"
            elif not Path(self.corpus).read_text(encoding="utf-8", errors="replace").strip():
                yield "corpus", f"{self.corpus} holds no seeds (the training run solved nothing it logged)"
        elif self.corpus != "stdlib" and not self.corpus.startswith("hf:") and not Path(self.corpus).is_dir():
            yield "corpus", f"{self.corpus!r} is not 'stdlib', 'hf:<dataset>', a directory or a .jsonl file"
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
        self.snippets = SnippetSource(cfg.corpus, cfg.corpus_field, cfg.corpus_split, data_dir=cfg.corpus_data_dir,
                                      rows=cfg.corpus_rows, fallback=cfg.corpus_fallback)
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

        problem, reason = teacher.parse(text or "", env, self.cfg.inputs[env])
        if reason is None and env == "induction" and not problem.message:
            stats["induction_without_message"] += 1  # evaluated all the same (code_rl Appendix F)
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
        """The record as training reads it: its Table 3 bin (meta.bin, the classic/reverse/uniform
        curricula) and Appendix B level (meta.chain_level, the chain and single-level curricula),
        each null when p is in none of its bins (such a record is never drawn by a curriculum on
        that key)."""
        b = bin_of(p, self.cfg.bins)
        rec = dict(rec, id=rid, difficulty=list(self.cfg.bins).index(b) if b else -1)
        rec["meta"] = {**rec["meta"], "pass_rate": p, "student_samples": self.cfg.samples, "bin": b,
                       "chain_level": bin_of(p, self.cfg.chain_bins), **extra}
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
        low, high = cfg.keep_range
        for turn in range(1, cfg.turns + 1):
            alive = [c for c in chains if c.alive]
            prompts = [chat(self.turn_prompt(c), teacher.SYSTEM) for c in alive]
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
                stats["teacher_answers"] += 1
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
                if not cfg.single_turn:  # the next turn builds on this problem, kept or not
                    c.previous, c.previous_id, c.p, c.solved, c.failed = problem, rid, p, solved, failed
                    c.strategy = teacher.strategy_for(p, cfg.harder_at)
                    stats[f"next:{c.strategy}"] += 1
                    event["next"] = c.strategy
                if not low <= p <= high:
                    reason = "unsolved" if p < low else "too_easy"
                    stats[f"rejected:{reason}"] += 1
                    trace.append({**event, "outcome": f"rejected:{reason}", "pass_rate": p})
                    continue
                stats["kept"] += 1
                kept.append((c.env, problem, self.keep(rec, p, rid, meta)))
                trace.append({**event, "outcome": "kept", "pass_rate": p})
            bar.set_postfix(kept=stats["kept"], turn=f"{turn}/{cfg.turns}", refresh=True)
        chain_records = self.chains(kept, stats, trace, k) if cfg.chains else []
        return {"problems": [r for _, _, r in kept], "chains": chain_records, "trace": trace, "stats": dict(stats)}

    def turn_prompt(self, c: Chain) -> str:
        from envs.code import teacher

        cfg, k = self.cfg, self.cfg.inputs[c.env]
        rejected = c.rejected if cfg.retry_hint else None  # the paper's turns name no rejection
        if cfg.single_turn or c.previous is None:  # single-turn samples are independent: no retry hint either
            prompt = teacher.first_prompt(c.env, c.snippet, k, cfg.shown)
            return prompt if cfg.single_turn else teacher.with_rejection(prompt, rejected)
        return teacher.with_rejection(teacher.next_prompt(c.env, c.previous, c.p, cfg.samples, c.solved, c.failed,
                                                          c.strategy, k, cfg.shown), rejected)

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
                                                      cfg.inputs[w[-1][0]], cfg.shown), teacher.SYSTEM) for w in todo]
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
            paths = {name: out / name / f"train-{k:05d}.jsonl" for name in DATASETS}
            paths["trace"] = out / "trace" / f"trace-{k:05d}.jsonl"
            stats_path = out / "stats" / f"stats-{k:05d}.json"
            if stats_path.exists():  # done earlier: its problems still count for deduplication
                for name in DATASETS:
                    for rec in read_jsonl(paths[name]):
                        self.dedupe.add(rec["meta"]["code"])
                stats = json.loads(stats_path.read_text())
            else:
                self.engines()
                result = self.shard(k, bar)
                for name in (*DATASETS, "trace"):
                    write_jsonl(paths[name], result[name])
                stats = result["stats"]
                atomic_write_text(stats_path, json.dumps(stats, indent=2, sort_keys=True) + "\n")
                made += len(result["problems"])
            totals.update(stats)
            bar.update(min(cfg.shard_size, cfg.seeds - k * cfg.shard_size))
        bar.close()
        disjoint = write_disjoint(out, n_shards) if cfg.chains else None
        return {"out": str(out), "seeds": cfg.seeds, "shards": n_shards, "single_turn": cfg.single_turn,
                "counts": dict(sorted(totals.items())), "disjoint": disjoint,
                "records_generated_now": made, "seconds": round(time.time() - t0, 2)}


# ====================================================================== the disjoint-chains baseline


def write_disjoint(out: Path, n_shards: int) -> dict:
    """The disjoint-chains baseline (code_rl Sec. 4.2: 'disjoint easy-medium-hard problems that
    share the same difficulty distribution as the chained data but are not derived from one
    another ... matched by their empirical student pass-rate histograms'): for every chain level,
    kept problems of that level (Appendix B bin) whose seed snippet started no chain ('drawn from
    independent seeds'), as many as the chains hold, pass rate by pass rate. Written to
    disjoint/train-00000.jsonl; returns per level how many were wanted, taken and matched exactly."""
    from envs.code.data import match_histogram
    from utils.records import read_jsonl, write_jsonl

    def shard_files(name):
        return [out / name / f"train-{k:05d}.jsonl" for k in range(n_shards)]

    chains = [r["meta"] for f in shard_files("chains") for r in read_jsonl(f)]
    chain_seeds = {m["synth"]["seed"] for m in chains}
    report, chosen = {}, set()
    for level in ("easy", "medium", "hard"):
        targets = [m["pass_rate"] for m in chains if m["chain_level"] == level]
        candidates = [(r["meta"]["pass_rate"], r["id"]) for f in shard_files("problems") for r in read_jsonl(f)
                      if r["meta"].get("chain_level") == level and r["meta"]["synth"]["seed"] not in chain_seeds]
        ids, exact = match_histogram(targets, candidates)
        chosen.update(ids)
        report[level] = {"wanted": len(targets), "taken": len(ids), "exact": exact}
    write_jsonl(out / "disjoint" / "train-00000.jsonl",
                (r for f in shard_files("problems") for r in read_jsonl(f) if r["id"] in chosen))
    return report


def synthesize(cfg: SynthConfig, out: str | Path, seed: int = 0, teacher=None, student=None) -> dict:
    """Run (or resume) a synthesis run; engines may be passed in (tests), else built from cfg."""
    return Synthesizer(cfg, out, seed, teacher, student).run()


def format_summary(s: dict) -> str:
    counts = s["counts"]
    answers = counts.get("teacher_answers", 0)
    lines = [f"wrote {s['out']}/ ({s['shards']} shards, {s['seeds']} seed snippets"
             f"{', single-turn' if s.get('single_turn') else ''})",
             f"  training records: {s['out']}/problems/ (kept), {s['out']}/chains/, {s['out']}/disjoint/",
             f"  kept {counts.get('kept', 0)} problems of {answers} teacher answers (yield "
             f"{counts.get('kept', 0) / answers if answers else 0:.3f}); chains complete "
             f"{counts.get('chains_complete', 0)} of {counts.get('chains_started', 0)}; seeds skipped "
             f"{counts.get('skipped_seeds', 0)}",
             f"  student answers {counts.get('student_answers', 0)}, unparsable (format) "
             f"{counts.get('student_unparsable', 0)}"]
    lines += [f"    {n:6d}  {k}" for k, n in counts.items() if k.startswith(("rejected:", "next:"))]
    if s.get("disjoint"):
        lines.append("  disjoint baseline (taken/wanted, exact pass-rate matches): " + ", ".join(
            f"{level} {d['taken']}/{d['wanted']} ({d['exact']} exact)" for level, d in s["disjoint"].items()))
    lines.append(f"generated {s['records_generated_now']} records now in {s['seconds']} s")
    return "\n".join(lines)
