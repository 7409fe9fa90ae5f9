"""Evaluate a model with pass@k on math, code, env, instruction-following (IFEval), multiple-choice
(LongBench v2) and exact-answer (Enigmata) benchmarks.

    python evaluate.py --config configs/eval/olymmath_hard.yaml model=runs/x/step_200 n=32
    python evaluate.py compare runs/eval_a runs/eval_b            # solve sets and pass@k deltas

Every problem gets n samples, each drawn independently with a seed of its own (puzzle_to_math line
135: "sampled independently rather than batched as a fixed-prompt expansion"): problem p of
benchmark b has seed derive(seed, b, p) and its sample j derive(that, j), on both the hf and the
vllm backend (utils/engine.py; vLLM gets one request per sample). Samples are graded in the
background while the next batch is sampled, and appended to runs/<name>/samples.jsonl, so
re-running the same command continues where it stopped. A sample is reused only under the prompt
and every sampling setting that made it (sample_key: model, engine.dtype, chat template, n,
temperature, top_p, max_tokens, seed, ...; a run directory of other settings is refused, naming
them), a grade only under the same gold answer (grade_key; else the response is graded again).
Ctrl-C or SIGTERM stops the run and its shard processes in seconds with one line (exit 130 / 143);
a full disk or an unwritable run directory is one line naming the path. At the end: results.json (pass@k for
every k with bootstrap 95% intervals, per benchmark and split), per_problem.csv (c of n per
problem) and passk.png.

A whole node: by default (num_shards=0) one shard per visible GPU, engine.tensor_parallel_size GPUs
each (puzzle_to_math line 135: 8 GPUs, vLLM TP 1; one on CPU or an endpoint); `num_shards=N` sets
it. More than one shard starts one process per shard with its own CUDA_VISIBLE_DEVICES and engine; shard i samples
the problems whose index is i mod num_shards into samples.shard<i>of<n>.jsonl, and the results
are computed from all samples files once every shard is done (the same results as one process:
every problem's seed is its own). Shards can also run as separate jobs (`shard_index=i`, e.g. a
Slurm array); the same command without shard_index then only merges.
"""
from __future__ import annotations

import csv
import hashlib
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

from utils.benchmarks import BenchmarkConfig
from utils.config import field, load
from utils.engine import SPEED_KEYS, EngineConfig


@dataclass
class EvalConfig:
    name: str = field("eval", help="run name: outputs go to <out_root>/<name>/")
    out_root: str = field("runs", help="directory holding runs")
    model: str = field("", help="model to evaluate (HF directory, checkpoint or served name); sets engine.model")
    engine: EngineConfig = field(EngineConfig(), help="model backend")
    benchmarks: List[BenchmarkConfig] = field([], help="benchmarks to evaluate (see configs/eval/)")
    n: int = field(32, help="samples per problem (puzzle-to-math paper: pass@32)", ge=1)
    k: List[int] = field([1, 8, 32], help="pass@k values to report; each must be <= n", ge=1)
    temperature: float = field(0.6, help="sampling temperature (paper: 0.6); 0: greedy", ge=0)
    top_p: float = field(1.0, help="nucleus sampling (1: no nucleus cut)", gt=0, le=1)
    max_tokens: int = field(25000, help="response token budget (paper: 25,000)", ge=1)
    seed: int = field(0, help="base seed; problem p of benchmark b samples with seed derive(seed, b, p)", ge=0)
    batch_problems: int = field(16, help="problems per generation call (results are cached after each)", ge=1)
    num_shards: int = field(0, help="processes sampling in parallel, each with its own engine and GPU(s); "
                                    "0: one per visible GPU (engine.tensor_parallel_size each; 1 on CPU and for "
                                    "the openai and replay backends)", ge=0)
    shard_index: int = field(-1, help="sample only shard i of num_shards (separate jobs); -1: start every "
                                      "shard here, then merge", ge=-1)
    grading_workers: int = field(2, help="math grading worker processes", ge=1)
    grading_timeout_s: float = field(10.0, help="math: seconds per answer before the worker is killed", gt=0)
    bootstrap: int = field(1000, help="bootstrap resamples for the 95% intervals", ge=1)
    groups: Dict[str, List[str]] = field({}, help="pooled results over benchmarks, name -> member benchmark names, "
                                                  "e.g. {hmmt: [hmmt_feb_2024, hmmt_feb_2025, hmmt_nov_2025, "
                                                  "hmmt_feb_2026]}: pass@k over all their problems")

    def validate(self):
        if not self.benchmarks:
            yield "benchmarks", "no benchmarks given"
        if not self.k:
            yield "k", "no pass@k to report: give at least one k (e.g. [1])"
        for k in self.k:
            if k > self.n:
                yield "k", f"pass@{k} needs 1 <= k <= n = {self.n}; raise n or drop k"
        if not (self.model or self.engine.model) and self.engine.backend != "replay":
            yield "model", "no model given"
        if self.shard_index >= max(self.num_shards, 1) or (self.shard_index >= 0 and self.num_shards < 1):
            yield "shard_index", f"must be -1 or in [0, num_shards) with num_shards >= 1 (got {self.shard_index})"
        names = [b.name for b in self.benchmarks]
        if len(set(names)) != len(names):
            yield "benchmarks", f"duplicate benchmark names {names}"
        for group, members in self.groups.items():
            unknown = sorted(set(members) - set(names))
            if unknown or not members:
                yield f"groups.{group}", f"names no benchmark of this config: {unknown or members}"
            if group in names:
                yield f"groups.{group}", "a group may not share a benchmark's name"
        from utils import modelpath

        for i, b in enumerate(self.benchmarks):
            local = modelpath.looks_local(b.path) or Path(b.path).suffix in (".jsonl", ".json", ".parquet")
            if not b.path:
                yield f"benchmarks.{i}.path", "missing (a local file, a directory of shards, or a hub dataset id)"
            elif any(c in b.path for c in "*?["):  # a glob of release files (utils/benchmarks.py)
                import glob

                if not glob.glob(b.path):
                    yield f"benchmarks.{i}.path", f"{b.path} matches no file (does not exist)"
            elif local and not Path(b.path).exists():
                yield f"benchmarks.{i}.path", f"{b.path} does not exist"
        yield from self.engine.problems("engine")
        model = self.model or self.engine.model
        if bad := modelpath.revision_problem(self.engine.revision, model):
            yield "engine.revision", bad
        elif bad := model and self.engine.backend in ("hf", "vllm") and modelpath.problem(model, self.engine.revision):
            yield "model" if self.model else "engine.model", bad


# ------------------------------------------------------------------ sampling and grading


def sampling_settings(cfg: EvalConfig) -> dict:
    """Every setting that decides a problem's samples besides its prompt: the model and every
    engine setting not in SPEED_KEYS (dtype, chat template, ...), n, temperature, top_p,
    max_tokens, seed. The run's `fingerprint` file holds them (a run directory holding samples
    made with others is refused), and every sample row carries their hash (sample_key)."""
    from dataclasses import asdict

    settings = {f"engine.{k}": v for k, v in asdict(cfg.engine).items() if k not in SPEED_KEYS}
    template = cfg.engine.chat_template
    if template and "{" not in template and Path(template).is_file():  # a template file: what it says
        settings["engine.chat_template"] = Path(template).read_text(encoding="utf-8")
    return {**settings, "n": cfg.n, "temperature": cfg.temperature, "top_p": cfg.top_p,
            "max_tokens": cfg.max_tokens, "seed": cfg.seed}


def changed_settings(fp_file: Path, settings: dict) -> str | None:
    """What differs between the settings a run directory's fingerprint file records and these
    ("engine.dtype: "float32" -> "bfloat16""), or None when nothing does."""
    try:
        old = json.loads(fp_file.read_text())
    except ValueError:
        old = None
    if not isinstance(old, dict):  # a hash, written by an evaluate.py that did not record dtype, n, the template
        return "settings not recorded (an older evaluate.py made it)"
    diff = [f"{k}: {json.dumps(old.get(k))} -> {json.dumps(settings.get(k))}"
            for k in sorted(set(old) | set(settings)) if old.get(k) != settings.get(k)]
    return "; ".join(diff)[:500] or None


class Graders:
    """One grader per benchmark kind, created on first use."""

    def __init__(self, cfg: EvalConfig):
        self.cfg = cfg
        self._math = self._sandbox = None

    def grade(self, bench: BenchmarkConfig, problem, texts: list[str]) -> list[dict]:
        if bench.kind == "math":
            if self._math is None:
                from utils.grading import MathGrader

                self._math = MathGrader(self.cfg.grading_workers, self.cfg.grading_timeout_s)
            return [{"correct": g.correct, "status": g.status, "extracted": g.extracted}
                    for g in self._math.grade([(problem.gold, t) for t in texts])]
        if bench.kind == "ifeval":
            from utils.ifeval import grade_ifeval

            out = []
            for t in texts:
                g = grade_ifeval(problem.gold, t)
                out.append({"correct": g.strict, "status": g.status, "extracted": None, "loose": g.loose,
                            "followed": g.followed})
            return out
        if bench.kind in ("choice", "answer"):
            from utils.grading import grade_answer, grade_choice

            grade = grade_choice if bench.kind == "choice" else grade_answer
            return [{"correct": g.correct, "status": g.status, "extracted": g.extracted}
                    for g in (grade(problem.gold, t) for t in texts)]
        if bench.kind == "code":
            from utils.codegrade import extract_code, grade_code

            if self._sandbox is None:
                from utils.sandbox import Sandbox

                self._sandbox = Sandbox(output_chars=1 << 20)
            out = []
            for t in texts:
                ok, status = grade_code(t, problem.gold, self._sandbox, timeout_s=bench.timeout_s)
                out.append({"correct": ok, "status": status, "extracted": None if extract_code(t) is None else "code"})
            return out
        import envs

        out = []
        for t in texts:
            answer = envs.extract_answer(t)
            try:
                rew = envs.score(problem.gold, t)
            except Exception as e:  # a scorer bug on one record must not stop the run: marked, counted
                out.append({"correct": False, "status": "grader_error", "extracted": None,
                            "error": f"{type(e).__name__}: {e}"[:300]})
                continue
            out.append({"correct": rew.correct, "status": "ok" if answer is not None else "no_answer",
                        "extracted": answer[:200] if answer is not None else None, "reward": rew.value})
        return out

    def close(self):
        if self._math is not None:
            self._math.close()
        if self._sandbox is not None:
            self._sandbox.close()


def _hash(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:12]


def grading_settings(cfg: EvalConfig, bench: BenchmarkConfig) -> list:
    """What decides a grade besides the response and the gold answer (a timeout marks an answer wrong)."""
    return [bench.kind, cfg.grading_timeout_s if bench.kind == "math" else None,
            bench.timeout_s if bench.kind == "code" else None]


def shard_lock(i: int, n: int) -> str:
    """The lock file of shard i of n: two processes on one shard would double its samples file."""
    return f".lock.shard{i}of{n}"


def samples_file(out: Path, cfg: EvalConfig) -> Path:
    """Where this process appends: samples.jsonl, or one file per shard (no two writers share one)."""
    if cfg.shard_index < 0:
        return out / "samples.jsonl"
    return out / f"samples.shard{cfg.shard_index}of{cfg.num_shards}.jsonl"


def current_samples(out: Path, problems: dict) -> dict[tuple[str, str, int], dict]:
    """The rows of out's samples files (samples.jsonl and every shard's) that answer a problem of
    this config with its current prompt and sampling settings (problems: (benchmark, problem_id)
    -> (sample_key, grade_key), see problem_keys), one per (benchmark, problem_id, sample): the last
    one graded against the current gold answer (grade_key) if any, else the last one. Rows of
    problems since filtered out, or sampled under other settings, prompts, system prompts or
    templates, stay in the files but count nowhere."""
    from utils.records import read_jsonl_tolerant

    rows: dict[tuple[str, str, int], dict] = {}
    for path in [out / "samples.jsonl", *sorted(out.glob("samples.shard*of*.jsonl"))]:
        for row in read_jsonl_tolerant(path):
            keys = problems.get((row.get("benchmark"), row.get("problem_id")))
            if keys is None or row.get("sample_key") != keys[0]:
                continue
            at = (row["benchmark"], row["problem_id"], row["sample"])
            if row.get("grade_key") == keys[1] or rows.get(at, {}).get("grade_key") != keys[1]:
                rows[at] = row
    return rows


def engine_files(engine: EngineConfig) -> list:
    """The files behind the engine's answers with their sizes and modification times: the local
    model directory (hf, vllm) or the replay file. Weights rewritten in place (a run trained again
    into the same folder) are another model although no setting says so: its samples are not reused."""
    path = Path(engine.replay_path if engine.backend == "replay" else engine.model)
    if engine.backend == "openai" or not path.exists():  # a served or hub model: its name is all we know
        return []
    files = sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path]
    return [[str(f), f.stat().st_size, f.stat().st_mtime_ns] for f in files]


def problem_keys(cfg: EvalConfig, benches: list) -> dict[tuple[str, str], tuple[str, str]]:
    """(benchmark, problem_id) -> (sample_key, grade_key): a sample is reused only when its prompt,
    every sampling setting and the model's files are today's, and its grade only when the gold
    answer and the grading settings are too (else the response is graded again, without sampling)."""
    settings = {**sampling_settings(cfg), "files": engine_files(cfg.engine)}
    return {(b.name, p.id): (_hash(p.prompt, settings), _hash(p.gold, grading_settings(cfg, b)))
            for b, ps in benches for p in ps}


def todo_problems(cfg: EvalConfig, out: Path, benches: list, problems: dict) -> list[tuple[int, object, object, list | None]]:
    """(index, benchmark, problem, stale) of every problem with work left; the index is the
    problem's position in the config's full list (a shard takes index mod num_shards). stale is
    None for a problem that lacks some of its n samples (all n are sampled), else the rows of its
    samples graded against another gold answer or grading setting (graded again)."""
    have = current_samples(out, problems)
    listed = [(b, p) for b, ps in benches for p in ps]
    todo = []
    for i, (b, p) in enumerate(listed):
        rows = [have.get((b.name, p.id, j)) for j in range(cfg.n)]
        stale = None if None in rows else [r for r in rows if r.get("grade_key") != problems[(b.name, p.id)][1]]
        if stale is None or stale:
            todo.append((i, b, p, stale))
    return todo


def env_record_files(b: BenchmarkConfig) -> list[Path]:
    """The local JSONL files an env benchmark reads (as utils/benchmarks.py finds them: a glob, a
    directory's <split>-*.jsonl shards, or one file); [] for other kinds and sources."""
    import glob

    if b.kind != "env":
        return []
    if any(c in b.path for c in "*?["):
        return [Path(f) for f in sorted(glob.glob(b.path)) if f.endswith(".jsonl")]
    p = Path(b.path)
    return sorted(p.glob(f"{b.split}-*.jsonl")) if p.is_dir() else [p] if p.suffix == ".jsonl" and p.is_file() else []


def load_benchmarks(cfg: EvalConfig) -> list[tuple[BenchmarkConfig, list]]:
    """Every benchmark's problems. A bad, corrupt or empty file raises ConfigError naming
    benchmarks.<i>.path, the config file, and the field or line in the data file. Env records must
    name a registered env (else every sample would fail at grading, after sampling)."""
    from utils.benchmarks import load_problems
    from utils.config import ConfigError, source
    from utils.records import read_prompt_records

    benches = []
    for i, b in enumerate(cfg.benchmarks):
        key = f"benchmarks.{i}.path"
        try:
            for f in env_record_files(b):  # each record checked where it is read: the file and line named
                for _ in read_prompt_records(f):
                    pass
            ps = load_problems(b)
        except ValueError as e:
            raise ConfigError(key, source(cfg, key), str(e)) from None
        if not ps:  # exit 0 with `benchmarks: {}` would look like a finished evaluation
            raise ConfigError(key, source(cfg, key), f"benchmark {b.name}: no problems in {b.path}"
                              + (" after the difficulty/date filters" if b.kind == "code" else ""))
        if b.kind == "env":
            import envs

            unknown = sorted({p.gold["env"] for p in ps} - set(envs.names()))
            if unknown:
                raise ConfigError(key, source(cfg, key), f"benchmark {b.name}: unknown env(s) {unknown} in {b.path}")
        benches.append((b, ps))
    return benches


def evaluate(cfg: EvalConfig, out: Path, benches: list) -> dict[tuple[str, str], tuple[str, str]]:
    """Sample and grade what the samples files lack, and grade again the samples graded against
    another gold answer (this shard's part of it); returns problem_keys. Grading runs in a
    thread, one batch behind sampling."""
    from concurrent.futures import ThreadPoolExecutor

    from utils import stopping
    from utils.engine import SamplingParams, make_engine
    from utils.progress import Progress
    from utils.records import append_jsonl, derive_seed

    problems = problem_keys(cfg, benches)
    todo = [(b, p, stale) for i, b, p, stale in todo_problems(cfg, out, benches, problems)
            if cfg.shard_index < 0 or i % cfg.num_shards == cfg.shard_index]
    if not todo:
        return problems
    samples_path = samples_file(out, cfg)
    graders = Graders(cfg)

    def write(rows):
        try:
            append_jsonl(samples_path, rows)
        except OSError as e:  # a write or fsync error names no file: this one (utils/stopping.py reports it)
            e.filename = e.filename or str(samples_path)
            raise

    def row(b, p, j: int, seed, tokens, finish_reason, text: str, grade: dict) -> dict:
        sample_key, grade_key = problems[(b.name, p.id)]
        return {"benchmark": b.name, "problem_id": p.id, "sample_key": sample_key, "grade_key": grade_key,
                "sample": j, "seed": seed, "split": _split_of(p), "model": cfg.engine.model, **grade,
                "tokens": tokens, "finish_reason": finish_reason, "response": text}

    def regrade(stale_problems):  # the responses stay; the gold answer or a grading setting changed
        rows = []
        for b, p, stale in stale_problems:
            grades = graders.grade(b, p, [r["response"] for r in stale])
            rows += [row(b, p, r["sample"], r["seed"], r.get("tokens"), r.get("finish_reason"), r["response"], g)
                     for r, g in zip(stale, grades)]
        write(rows)
        print(f"evaluate.py: graded {len(rows)} samples of {len(stale_problems)} problems again (gold answer or "
              f"grading settings changed since they were graded)", file=sys.stderr, flush=True)

    def grade_and_write(batch, outs, gen_s):
        rows = []
        for (b, p), comps in zip(batch, outs):
            grades = graders.grade(b, p, [c.text for c in comps])
            rows += [row(b, p, j, c.seed, len(c.token_ids) or None, c.finish_reason, c.text, g)
                     for j, (c, g) in enumerate(zip(comps, grades))]
        write(rows)
        bar.update(len(rows), gen_s=f"{gen_s:.1f}")

    to_sample = [(b, p) for b, p, stale in todo if stale is None]
    bar = Progress(len(to_sample) * cfg.n, "samples", unit="sample")
    # grading's processes (math workers, the code sandbox) start in this thread: they inherit its
    # blocked stop signals, so a Ctrl-C to the process group is ours to handle (utils/stopping.py)
    grading = ThreadPoolExecutor(1, thread_name_prefix="grading", initializer=stopping.block_in_thread)
    pending = None
    try:
        stale = [t for t in todo if t[2] is not None]
        if stale:
            grading.submit(regrade, stale).result()
        engine = make_engine(cfg.engine, seed=cfg.seed) if to_sample else None
        params = SamplingParams(n=cfg.n, temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=cfg.max_tokens)
        for i in range(0, len(to_sample), cfg.batch_problems):
            batch = to_sample[i:i + cfg.batch_problems]
            seeds = [derive_seed(cfg.seed, b.name, p.id) for b, p in batch]
            t0 = time.time()
            outs = engine.generate([p.prompt for _, p in batch], params, seeds=seeds)
            if pending is not None:  # at most one batch waits for its grades: memory stays bounded
                pending.result()
            pending = grading.submit(grade_and_write, batch, outs, time.time() - t0)
        if pending is not None:
            pending.result()
    finally:
        try:  # closed by the thread that started them: the sandbox's children die with their parent thread
            grading.submit(graders.close).result()
        finally:
            grading.shutdown(wait=True, cancel_futures=True)
            bar.close()
    return problems


def launch_shards(cfg: EvalConfig, out: Path, argv: list[str], benches: list) -> None:
    """Run every shard with work left as `evaluate.py <argv> shard_index=i` in its own process,
    with its own GPUs (CUDA_VISIBLE_DEVICES, engine.tensor_parallel_size each), logs in
    <out>/shard<i>of<n>.log; a line every minute with the samples written so far."""
    import os
    import subprocess

    from utils import stopping
    from utils.runlock import Locked, RunLock

    n, tp = cfg.num_shards, max(1, cfg.engine.tensor_parallel_size)
    gpus = visible_gpus() if cfg.engine.backend in ("hf", "vllm") else []
    if gpus and n * tp > len(gpus):
        sys.exit(f"evaluate.py: num_shards={n} x engine.tensor_parallel_size={tp} needs {n * tp} GPUs; "
                 f"{len(gpus)} visible")
    left = {i % n for i, *_ in todo_problems(cfg, out, benches, problem_keys(cfg, benches))}
    total = sum(len(ps) for _, ps in benches) * cfg.n
    for i in sorted(left):  # a shard still running (its own job): refused before any log is touched
        try:
            with RunLock(out, "evaluate.py", name=shard_lock(i, n)):
                pass
        except Locked as e:
            print(f"evaluate.py: shard {i}: {e}", file=sys.stderr)
            sys.exit(2)
    procs = {}
    for i in sorted(left):
        env = dict(os.environ)
        if gpus:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(gpus[i * tp:(i + 1) * tp])
        log = open(out / f"shard{i}of{n}.log", "a")  # appended: never cut a log another process still writes
        procs[i] = (subprocess.Popen([sys.executable, str(Path(__file__).resolve()), *argv, f"num_shards={n}",
                                      f"shard_index={i}"], stdout=log, stderr=subprocess.STDOUT, env=env,
                                     preexec_fn=stopping.death_signal()), log)
    if procs:
        print(f"evaluate.py: {len(procs)} shard processes{' on GPUs ' + ','.join(gpus) if gpus else ''}; "
              f"logs {out}/shard*of{n}.log", file=sys.stderr, flush=True)
    failed, last = [], time.time()
    try:
        while procs:
            time.sleep(1)
            for i, (proc, log) in list(procs.items()):
                if proc.poll() is not None:
                    log.close()
                    del procs[i]
                    if proc.returncode != 0:
                        failed.append(i)
            if time.time() - last >= 60 or not procs:
                last = time.time()
                written = sum(1 for f in out.glob(f"samples.shard*of{n}.jsonl") for _ in open(f))
                print(f"evaluate.py: {written}/{total} samples in shard files, {len(procs)} shards running",
                      file=sys.stderr, flush=True)
    finally:  # stopped (Ctrl-C, a job's time limit): no shard outlives the launcher (utils/stopping.py)
        for proc, _ in procs.values():
            proc.terminate()
        for proc, _ in procs.values():
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    if failed:
        tails = "\n".join(f"--- shard {i}: {out}/shard{i}of{n}.log\n" +
                          "".join(open(out / f"shard{i}of{n}.log").readlines()[-15:]) for i in failed)
        sys.exit(f"{tails}\nevaluate.py: shard(s) {failed} failed (logs above); re-run the same command to resume")


def default_shards(cfg: EvalConfig) -> int:
    """num_shards=0: every visible GPU busy, engine.tensor_parallel_size GPUs per shard; 1 without
    GPUs and for backends that use none (openai, replay)."""
    if cfg.engine.backend not in ("hf", "vllm"):
        return 1
    return max(1, len(visible_gpus()) // max(1, cfg.engine.tensor_parallel_size))


def visible_gpus() -> list[str]:
    """CUDA device ids this process may use (its CUDA_VISIBLE_DEVICES, else every device)."""
    import os

    if os.environ.get("CUDA_VISIBLE_DEVICES") is not None:
        return [d for d in os.environ["CUDA_VISIBLE_DEVICES"].split(",") if d.strip()]
    try:
        import torch

        return [str(i) for i in range(torch.cuda.device_count())]
    except ImportError:
        return []


def _split_of(problem) -> str:
    """The group a problem is reported in besides "all": an env record's distribution (puzzles: puzzle and
    grid, "bridges 8x8 hard", as puzzle_to_math Fig. 12 reports Bridges 7x7/8x8 and Undead 4x4/5x5),
    else its difficulty (code: easy/medium/hard)."""
    if isinstance(problem.gold, dict) and "env" in problem.gold:
        from utils.records import record_group

        return record_group(problem.gold)
    d = problem.meta.get("difficulty")
    return "all" if d is None or d == "" else str(d).lower()


# ------------------------------------------------------------------ metrics


def summarise(cfg: EvalConfig, out: Path, problems: dict[tuple[str, str], tuple[str, str]]) -> dict:
    from utils.passk import bootstrap_ci, mean_pass_at_k
    from utils.plots import passk_curves

    per_problem: dict[tuple[str, str], dict] = {}
    for (bench, pid, j), row in sorted(current_samples(out, problems).items()):
        if j >= cfg.n or row.get("grade_key") != problems[(bench, pid)][1]:  # a grade of another gold answer: none
            continue
        entry = per_problem.setdefault((bench, pid), {"split": row["split"], "n": 0, "c": 0, "status": Counter()})
        entry["n"] += 1
        entry["c"] += bool(row["correct"])
        entry["status"][row["status"]] += 1
    results = {"model": cfg.engine.model, "n": cfg.n, "temperature": cfg.temperature, "benchmarks": {}}
    curves = {}
    for bench in sorted({b for b, _ in per_problem}):
        items = {pid: e for (b, pid), e in per_problem.items() if b == bench and e["n"] == cfg.n}
        if not items:
            continue
        by_split = defaultdict(list)
        splits = {e["split"] for e in items.values()}
        for e in items.values():
            by_split["all"].append((e["n"], e["c"]))
            if len(splits) > 1:  # a single split would repeat "all"
                by_split[e["split"]].append((e["n"], e["c"]))
        entry = {"problems": len(items), "status_counts": dict(sum((e["status"] for e in items.values()), Counter())),
                 "splits": {}}
        for split, counts in by_split.items():
            entry["splits"][split] = {
                "problems": len(counts),
                **{f"pass@{k}": {"mean": mean_pass_at_k(counts, k),
                                 "ci95": list(bootstrap_ci(counts, k, resamples=cfg.bootstrap, seed=cfg.seed))}
                   for k in cfg.k}}
        results["benchmarks"][bench] = entry
        all_counts = by_split["all"]
        curve_ks = sorted({1, cfg.n, *cfg.k} | {2 ** i for i in range(12) if 2 ** i <= cfg.n})
        curves[bench] = {k: mean_pass_at_k(all_counts, k) for k in curve_ks}
    for group, members in cfg.groups.items():  # pooled over the members' problems (each complete member)
        counts = [(e["n"], e["c"]) for (b, _), e in sorted(per_problem.items()) if b in members and e["n"] == cfg.n]
        if not counts or not all(m in results["benchmarks"] for m in members):
            continue
        results.setdefault("groups", {})[group] = {
            "benchmarks": list(members), "problems": len(counts),
            **{f"pass@{k}": {"mean": mean_pass_at_k(counts, k),
                             "ci95": list(bootstrap_ci(counts, k, resamples=cfg.bootstrap, seed=cfg.seed))}
               for k in cfg.k}}
        curves[group] = {k: mean_pass_at_k(counts, k) for k in curves[members[0]]}
    _write_outputs(out, results, per_problem, curves, passk_curves)
    return results


def _write_outputs(out: Path, results: dict, per_problem: dict, curves: dict, plot) -> None:
    from io import StringIO

    from utils.records import atomic_write_text

    atomic_write_text(out / "results.json", json.dumps(results, indent=2) + "\n")
    buf = StringIO()
    w = csv.writer(buf)
    w.writerow(["benchmark", "problem_id", "split", "n", "c"])
    for (bench, pid), e in sorted(per_problem.items()):
        w.writerow([bench, pid, e["split"], e["n"], e["c"]])
    atomic_write_text(out / "per_problem.csv", buf.getvalue())
    if curves:  # with the bootstrap intervals results.json holds, as bands
        bands = {bench: {int(k.split("@")[1]): tuple(v["ci95"]) for k, v in entry["splits"]["all"].items()
                         if k.startswith("pass@")} for bench, entry in results["benchmarks"].items()}
        plot(curves, out / "passk.png", title=f"pass@k: {results['model'] or 'model'}", bands=bands)


def print_results(results: dict) -> None:
    for bench, entry in results["benchmarks"].items():
        for split, s in entry["splits"].items():
            cells = "  ".join(f"{k} {v['mean']:.3f} [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}]"
                              for k, v in s.items() if k.startswith("pass@"))
            print(f"{bench:24s} {split:18s} n_problems={s['problems']:4d}  {cells}")
        bad = {k: v for k, v in entry["status_counts"].items() if k not in ("ok", "pass")}
        if bad:
            print(f"{'':24s} statuses: {bad}")
    for group, g in results.get("groups", {}).items():
        cells = "  ".join(f"{k} {v['mean']:.3f} [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}]"
                          for k, v in g.items() if k.startswith("pass@"))
        print(f"{group:24s} {'pooled':18s} n_problems={g['problems']:4d}  {cells}")


# ------------------------------------------------------------------ compare


def load_run(run: Path) -> tuple[dict, dict[str, dict[str, tuple[int, int]]]]:
    results = json.loads((run / "results.json").read_text())
    table: dict[str, dict[str, tuple[int, int]]] = defaultdict(dict)
    with open(run / "per_problem.csv", newline="") as f:
        for row in csv.DictReader(f):
            table[row["benchmark"]][row["problem_id"]] = (int(row["n"]), int(row["c"]))
    return results, table


def compare(runs: list[Path]) -> dict:
    """Per benchmark, the first run against each other: problems solved (c > 0) by both, only one,
    neither (puzzle-to-math paper, section 5.1), and pass@k deltas."""
    from utils.plots import grouped_bars
    from utils.records import atomic_write_text

    loaded = [load_run(r) for r in runs]
    base_res, base = loaded[0]
    report: dict = {"runs": [str(r) for r in runs], "benchmarks": {}}
    bars: dict[str, dict[str, float]] = {}
    for bench, base_probs in base.items():
        for run, (res, table) in zip(runs[1:], loaded[1:]):
            if bench not in table:
                continue
            common = sorted(set(base_probs) & set(table[bench]))
            a = {p for p in common if base_probs[p][1] > 0}
            b = {p for p in common if table[bench][p][1] > 0}
            sets = {"both": sorted(a & b), f"only {runs[0].name}": sorted(a - b), f"only {run.name}": sorted(b - a),
                    "neither": sorted(set(common) - a - b)}
            ka = base_res["benchmarks"].get(bench, {}).get("splits", {}).get("all", {})
            kb = res["benchmarks"].get(bench, {}).get("splits", {}).get("all", {})
            deltas = {k: kb[k]["mean"] - ka[k]["mean"] for k in ka if k in kb and k.startswith("pass@")}
            report["benchmarks"].setdefault(bench, {})[run.name] = {
                "problems": len(common), "counts": {k: len(v) for k, v in sets.items()}, "sets": sets,
                "pass@k_delta": deltas}
            bars[f"{bench}: {runs[0].name} vs {run.name}"] = {k: len(v) for k, v in sets.items()}
    out = runs[0].parent / ("compare-" + "-".join(r.name for r in runs))
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "compare.json", json.dumps(report, indent=2) + "\n")
    if bars:
        grouped_bars(bars, out / "compare.png", "problems solved (c > 0)", "problems")
    report["out"] = str(out)
    return report


def print_compare(report: dict) -> None:
    for bench, per_run in report["benchmarks"].items():
        for run, r in per_run.items():
            counts = "  ".join(f"{k}: {v}" for k, v in r["counts"].items())
            deltas = "  ".join(f"{k} {v:+.3f}" for k, v in r["pass@k_delta"].items())
            print(f"{bench} vs {run}: {counts}  |  {deltas}")
    print(f"wrote {report['out']}/compare.json and compare.png")


COMPARE_USAGE = """usage: evaluate.py compare RUN_A RUN_B [RUN_C ...]

Compare finished evaluation runs (directories holding results.json and per_problem.csv) against
the first: per benchmark, problems solved (c > 0) by both / only one / neither, and pass@k deltas.
Writes <parent of RUN_A>/compare-A-B.../compare.json and compare.png."""


def main(argv: list[str]) -> None:
    if argv[:1] == ["compare"]:
        if "-h" in argv or "--help" in argv:
            print(COMPARE_USAGE)
            return
        runs = [Path(a) for a in argv[1:]]
        missing = [str(r) for r in runs if not ((r / "per_problem.csv").exists() and (r / "results.json").exists())]
        if len(runs) < 2 or missing:
            print(f"evaluate.py compare: give two or more finished runs; missing results in {missing}", file=sys.stderr)
            sys.exit(2)
        print_compare(compare(runs))
        return
    cfg = load(EvalConfig, argv, prog="evaluate.py")
    if cfg.model:
        cfg.engine.model = cfg.model
    out = Path(cfg.out_root) / cfg.name
    from utils.config import ConfigError, save_run_info
    from utils.records import atomic_write_text
    from utils.runlock import Locked, RunLock

    try:  # before a model is loaded or anything is written
        benches = load_benchmarks(cfg)
    except ConfigError as e:
        print(f"evaluate.py: {e}", file=sys.stderr)
        sys.exit(2)

    from utils import stopping

    stopping.writable_dir("evaluate.py", out)  # a file in the way, a read-only disk: now, not after the model loads
    if cfg.num_shards == 0:
        cfg.num_shards = default_shards(cfg)
    shard = cfg.shard_index >= 0  # one shard: sample, no results (the launcher, or the same command without shard_index, merges)
    # two runs on one name would both sample everything; two jobs on one shard would double its samples file
    lock = RunLock(out, "evaluate.py", name=shard_lock(cfg.shard_index, cfg.num_shards) if shard else ".lock")
    try:
        lock.acquire()
    except Locked as e:
        print(f"evaluate.py: {e}", file=sys.stderr)
        sys.exit(2)
    try:
        fp_file, settings = out / "fingerprint", sampling_settings(cfg)
        changed = fp_file.exists() and changed_settings(fp_file, settings)
        if changed:
            print(f"evaluate.py: {out} holds samples from another model or sampling settings ({changed}); choose "
                  f"another name=", file=sys.stderr)
            sys.exit(2)
        if not shard:
            save_run_info(cfg, out, seed=cfg.seed)
        atomic_write_text(fp_file, json.dumps(settings, sort_keys=True) + "\n")
        if cfg.num_shards > 1 and not shard:
            launch_shards(cfg, out, argv, benches)
        else:
            evaluate(cfg, out, benches)
        results = None if shard else summarise(cfg, out, problem_keys(cfg, benches))
    except OSError as e:  # disk full, read-only: one line; what was written stays, to resume from
        stopping.io_fault("evaluate.py", out, e)
    finally:
        lock.release()
    if shard:
        print(f"wrote {samples_file(out, cfg)}")
        return
    print_results(results)
    print(f"wrote {out}/results.json, per_problem.csv, passk.png, {samples_file(out, cfg).name if cfg.num_shards <= 1 else 'samples.shard*.jsonl'}")


if __name__ == "__main__":
    from utils import stopping

    stopping.run("evaluate.py", main, sys.argv[1:])
