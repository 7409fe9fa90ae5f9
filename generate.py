"""Generate datasets of records (JSONL shards) from the registered envs.

    python generate.py --config configs/generate/puzzles.yaml [key=value ...]

mode=envs: each split is a list of (env, params, difficulty, count) entries. Splits are written in
the order given (put `test` first: later splits skip any problem an earlier one holds, so train
never contains a test puzzle). Output: <out>/<split>-00000.jsonl ..., manifest.json, config.yaml,
run_info.json. Re-running the same command skips finished shards: those manifest.json records
with their count and SHA-256, written after each shard (a cut, torn or edited one is made
again); a killed run resumes to byte-identical files, because every record's seed is
derived from (seed, split, entry, index). A run holds out/.lock; a directory made with settings
that change the records is refused before anything is written (every mode). Ctrl-C or SIGTERM
stops the run and its worker processes in seconds with one line (exit 130 / 143); a full disk
or an unwritable out is one line naming the path; the same command then resumes.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, List

from envs.code.data import SeedsConfig, SelectConfig
from envs.code.synth import SynthConfig
from envs.compose.dataset import RacesGenConfig
from envs.compose.llm_bricks import BricksGenConfig
from envs.puzzles.teacher import TeacherConfig
from envs.traces import TracesConfig
from utils.config import field, load

MODES = ("envs", "races", "bricks", "sft_traces", "synth", "seeds", "select", "teacher_traces")


@dataclass
class Entry:
    env: str = field("bridges", help="registered env name (see envs.names())")
    count: int = field(10, help="records to write for this entry", ge=0)
    difficulty: int = field(0, help="integer difficulty passed to env.generate", ge=0)
    params: dict = field({}, help="constructor params of the env, e.g. {width: 7, height: 7, level: hard}")


@dataclass
class GenerateConfig:
    mode: str = field("envs", help="what to generate", choices=MODES)
    out: str = field("runs/data/demo", help="output directory")
    seed: int = field(0, help="base seed; every record's seed is derived from it", ge=0)
    workers: int = field(1, help="processes generating in parallel (output does not depend on it)", ge=1)
    shard_size: int = field(1000, help="records per JSONL shard", ge=1)
    max_attempts: int = field(50, help="draws allowed per record (the first one included) when it duplicates an "
                                             "earlier one", ge=1)
    splits: Dict[str, List[Entry]] = field({}, help="split name -> list of entries {env, count, difficulty, "
                                                    "params}; written in order, later splits never repeat an earlier problem. "
                                                    "Splits named test* are held out: training refuses to read them")
    distinct: bool = field(False, help="refuse a config in which two splits share a distribution: a (puzzle, size, "
                                       "level), or for other envs (env, params, difficulty). The puzzle-to-math "
                                       "paper trains and tests on different grids")
    races: RacesGenConfig = field(RacesGenConfig(), help="mode=races: RACES composites (brick pool, composition "
                                                          "sizes, operator mix, count)")
    bricks: BricksGenConfig = field(BricksGenConfig(), help="mode=bricks: model-written RACES bricks, kept by static "
                                                            "self-consistency and multi-sample output consistency")
    traces: TracesConfig = field(TracesConfig(), help="mode=sft_traces: rejection-sampled SFT traces (teacher, K, "
                                                       "input records)")
    synth: SynthConfig = field(SynthConfig(), help="mode=synth: multi-turn teacher-student synthesis of code "
                                                   "problems (envs/code/synth.py)")
    seeds: SeedsConfig = field(SeedsConfig(), help="mode=seeds: a training run's solved problems as synthesis "
                                                   "seeds (envs/code/data.py)")
    select: SelectConfig = field(SelectConfig(), help="mode=select: a subset of records, per env or level, or "
                                                      "matched to a pass-rate histogram (envs/code/data.py)")
    teacher: TeacherConfig = field(TeacherConfig(), help="mode=teacher_traces: the records of `splits` as for "
                                                         "mode=envs, and on every split not named test* the "
                                                         "procedural teacher's SFT traces (envs/puzzles/teacher.py)")

    def validate(self):
        if Path(self.out).exists() and not Path(self.out).is_dir():
            yield "out", f"{self.out} is a file, not a directory"
        if self.mode in ("envs", "teacher_traces") and not self.splits:
            yield "splits", "no splits given"
        if self.mode == "teacher_traces":
            yield from self.teacher.validate(self.splits)
        if self.mode == "races":
            yield from ((f"races.{key}", msg) for key, msg in self.races.validate())
        if self.mode == "bricks":
            yield from ((f"bricks.{key}", msg) for key, msg in self.bricks.validate())
        if self.mode == "sft_traces":
            yield from ((f"traces.{key}", msg) for key, msg in self.traces.validate())
        if self.mode == "synth":
            yield from ((f"synth.{key}", msg) for key, msg in self.synth.validate())
        if self.mode in ("seeds", "select"):
            yield from ((f"{self.mode}.{key}", msg) for key, msg in getattr(self, self.mode).validate())
        if self.mode in SECTION and not (self.mode == "sft_traces" and self.traces.samples == 0):
            # (sft_traces with samples=0 only scores the records' gold answers: no teacher runs)
            yield from engine_problems(getattr(self, SECTION[self.mode]), SECTION[self.mode])
        import envs

        seen: dict[str, tuple[str, int]] = {}
        for split, entries in self.splits.items():
            for i, e in enumerate(entries):
                key = f"splits.{split}.{i}"
                if e.env not in envs.REGISTRY and not e.env.startswith(envs.RG_PREFIX):
                    yield f"{key}.env", f"unknown env {e.env!r}"
                    continue
                try:  # constructors are cheap and check their params (a misspelt or bad width, level)
                    envs.make(e.env, **e.params)
                except KeyError as err:  # an rg: task reasoning-gym does not have
                    yield f"{key}.env", str(err.args[0])
                except (TypeError, ValueError, ImportError) as err:
                    yield f"{key}.params", str(err)
                    continue
                if self.distinct:
                    owner = seen.setdefault(entry_key(e), (split, i))
                    if owner[0] != split:
                        yield key, (f"{entry_key(e)} is also in split {owner[0]} (entry {owner[1]}): distinct=true "
                                    f"wants each (puzzle, size, level) in one split")


SECTION = {"bricks": "bricks", "sft_traces": "traces", "synth": "synth"}  # modes that load models


def engine_problems(section: Any, prefix: str):
    """(key, message) for every model backend in a config section, as evaluate.py and train.py check
    theirs at config time: the engine's own settings (an API key) and, for hf and vllm, the model
    directory (utils/modelpath.py: missing, no weights, a checkpoint folder given for its model/)."""
    import dataclasses

    from utils import modelpath
    from utils.engine import EngineConfig

    for f in dataclasses.fields(section):
        value, key = getattr(section, f.name), f"{prefix}.{f.name}"
        if isinstance(value, EngineConfig):
            yield from value.problems(key)
            bad = value.backend in ("hf", "vllm") and value.model and modelpath.problem(value.model)
            if bad:
                yield f"{key}.model", bad
        elif dataclasses.is_dataclass(value):
            yield from engine_problems(value, key)


# ------------------------------------------------------------------ mode: envs

_ENVS: dict[str, Any] = {}  # per-process cache of constructed envs, keyed by (name, params)


def _env(name: str, params: dict):
    import envs

    key = json.dumps([name, params], sort_keys=True)
    if key not in _ENVS:
        _ENVS[key] = envs.make(name, **params)
    return _ENVS[key]


def _make_record(job: tuple[str, dict, int, int]) -> dict:
    name, params, seed, difficulty = job
    try:
        return _env(name, params).generate(seed=seed, difficulty=difficulty)
    except Exception as e:  # re-raised with the job named, so a failure is reproducible
        raise RuntimeError(f"env {name} params {params} seed {seed} difficulty {difficulty}: "
                           f"{type(e).__name__}: {e}") from e


def dedupe_key(rec: dict) -> str:
    return rec["meta"].get("game_id") or rec["prompt"]


def envs_fingerprint(cfg: GenerateConfig) -> str:
    """The settings that decide mode=envs records (and mode=teacher_traces' traces of them): a
    directory holding another one is refused."""
    settings = [cfg.seed, cfg.shard_size, cfg.max_attempts, {s: [asdict(e) for e in es] for s, es in cfg.splits.items()}]
    if cfg.mode == "teacher_traces":
        settings.append(asdict(cfg.teacher))
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]


def traces_fingerprint(cfg: GenerateConfig, problems: list[dict]) -> str:
    """What decides mode=sft_traces shards: the settings (the teacher's speed settings aside) and
    the input records themselves (a file rewritten in place is other input)."""
    from utils.engine import SPEED_KEYS

    traces = asdict(cfg.traces)
    traces["teacher"] = {k: v for k, v in traces["teacher"].items() if k not in SPEED_KEYS}
    return hashlib.sha256(json.dumps([cfg.seed, cfg.shard_size, traces, problems], sort_keys=True,
                                     default=str).encode()).hexdigest()[:16]


def generate_envs(cfg: GenerateConfig) -> dict:
    from multiprocessing import get_context

    from utils.progress import Progress
    from utils.config import fail
    from utils.records import (atomic_write_text, derive_seed, finished_shard, recorded_shards, shard_entry,
                               shard_path, write_jsonl)

    out = Path(cfg.out)
    splits = cfg.splits
    recorded, shards = recorded_shards(out), {}  # main() refused a directory of other settings

    def seed_of(split, e_idx, i, attempt):
        return derive_seed(cfg.seed, split, e_idx, i, attempt)

    seen: set[str] = set()
    summary: dict[str, dict[str, int]] = {}
    made = 0
    t0 = time.time()
    from utils import stopping

    pool = get_context("fork").Pool(cfg.workers, stopping.worker_init, (stopping.death_signal(),)) if cfg.workers > 1 else None
    try:
        for split, entries in splits.items():
            jobs = [(e_idx, i) for e_idx, e in enumerate(entries) for i in range(e.count)]
            n_shards = (len(jobs) + cfg.shard_size - 1) // cfg.shard_size
            counts = summary.setdefault(split, {})
            bar = Progress(len(jobs), split, unit="rec")
            for k in range(n_shards):
                path = shard_path(out, split, k)
                chunk = jobs[k * cfg.shard_size:(k + 1) * cfg.shard_size]
                # finished earlier (as the manifest records it): its records still count for dedupe
                records = finished_shard(path, recorded.get(path.name), "generate.py")
                if records is None:
                    def job(e_idx, i, attempt):
                        e = entries[e_idx]
                        return e.env, e.params, seed_of(split, e_idx, i, attempt), e.difficulty

                    first = [job(e_idx, i, 0) for e_idx, i in chunk]
                    drawn = pool.imap(_make_record, first, chunksize=4) if pool else map(_make_record, first)
                    records = []
                    for (e_idx, i), rec in zip(chunk, drawn):
                        attempt = 0
                        while dedupe_key(rec) in seen:  # rare; redraw in order so output is deterministic
                            attempt += 1
                            if attempt >= cfg.max_attempts:
                                fail(cfg, f"splits.{split}.{e_idx}.count", f"{entries[e_idx].env}: no new problem "
                                     f"after {attempt} draws (max_attempts): the space is too small for this count",
                                     "generate.py")
                            rec = _make_record(job(e_idx, i, attempt))
                        seen.add(dedupe_key(rec))
                        records.append(rec)
                        bar.update(1)
                    write_jsonl(path, records)
                    made += len(records)
                else:
                    seen.update(dedupe_key(r) for r in records)
                    bar.update(len(records))
                shards[path.name] = shard_entry(path)  # recorded at once: a stopped run keeps what it made
                atomic_write_text(out / "manifest.json", json.dumps({"shards": {**recorded, **shards}}, indent=2) + "\n")
            bar.close()
            for e in entries:
                counts[entry_key(e)] = counts.get(entry_key(e), 0) + e.count
    finally:  # terminate, never close + join: after a stop signal, join would wait for jobs never to be done
        if pool:
            pool.terminate()
            pool.join()
    seconds = time.time() - t0
    from utils.records import is_test_split

    shared = {key: sorted(sp for sp, counts in summary.items() if key in counts)
              for counts in summary.values() for key in counts}
    return {"out": str(out), "splits": summary, "test_splits": [sp for sp in summary if is_test_split(sp)],
            "shared": {k: v for k, v in shared.items() if len(v) > 1},
            "records_generated_now": made, "seconds": round(seconds, 3),
            "records_per_s": round(made / seconds, 2) if seconds > 0 else None, "shards": shards}


def entry_key(e: Entry) -> str:
    """The distribution an entry draws from: "bridges 7x7 hard" for a Tatham puzzle (its ladder rung
    when only a difficulty is given), else the env with its params and difficulty."""
    env = _env(e.env, e.params)
    if hasattr(env, "params_for"):
        w, h, level = env.params_for(e.difficulty)
        return f"{e.env} {w}x{h}" + (f" {level}" if level else "")
    params = f" {json.dumps(e.params, sort_keys=True)}" if e.params else ""
    return f"{e.env}{params} d={e.difficulty}"


def print_summary(s: dict) -> None:
    """Per split: records per distribution, held-out splits marked, and any distribution that two
    splits share (the puzzle-to-math setting wants none)."""
    print(f"wrote {s['out']}/")
    for split, counts in s["splits"].items():
        held = "  (held out: training refuses it)" if split in s.get("test_splits", []) else ""
        print(f"  {split}: {sum(counts.values())} records{held}")
        for label, n in counts.items():
            also = [sp for sp in s["shared"].get(label, []) if sp != split]
            print(f"    {n:6d}  {label}" + (f"   <- also in {', '.join(also)}" if also else ""))
    if len(s["splits"]) > 1:
        print("  splits share no distribution" if not s["shared"] else
              f"  {len(s['shared'])} distribution(s) in more than one split (problems are still never repeated)")
    rate = f", {s['records_per_s']} records/s" if s["records_generated_now"] else " (all shards already present)"
    print(f"generated {s['records_generated_now']} records in {s['seconds']} s{rate}")


def first_records(cfg: GenerateConfig) -> None:
    """Generate the first record of every entry before anything is written: params or a difficulty
    that the constructor accepts but the generator refuses (a size out of range) stop the run with
    one line naming the entry, instead of a traceback from a pool worker after the output exists."""
    from utils.config import fail
    from utils.records import derive_seed

    for split, entries in cfg.splits.items():
        for i, e in enumerate(entries):
            if e.count < 1:
                continue
            try:
                _env(e.env, e.params).generate(seed=derive_seed(cfg.seed, split, i, 0, 0), difficulty=e.difficulty)
            except Exception as err:  # any generator failure: reported, never a traceback
                key = f"splits.{split}.{i}." + ("params" if e.params else "difficulty")
                fail(cfg, key, f"{e.env}: {type(err).__name__}: {err}", "generate.py")


# Settings that decide each mode's output (its `fingerprint` file): a directory made with others is refused.
# Every mode is refused over an output of other settings, those that remake their output whole
# on each run (bricks, seeds, select) too: their folder is then always what its config.yaml says.
OUTPUT_KEYS = {"envs": ("seed", "shard_size", "max_attempts", "splits"), "races": ("seed", "shard_size", "races"),
               "synth": ("seed", "synth"), "sft_traces": ("seed", "shard_size", "traces"), "bricks": ("seed", "bricks"),
               "seeds": ("seeds",), "select": ("seed", "shard_size", "select"),
               "teacher_traces": ("seed", "shard_size", "max_attempts", "splits", "teacher")}


def traces_records(cfg: GenerateConfig) -> list[dict]:
    """mode=sft_traces: read and check the input records before anything is written, so that a
    file that is not JSONL, a row without a string prompt, or inputs without a single record, are
    one line naming the key, the file and the line."""
    from envs.traces import load_inputs
    from utils.config import fail
    from utils.records import DataError

    try:
        problems = load_inputs(cfg.traces)
    except DataError as e:
        bad = next((i for i, p in enumerate(cfg.traces.records) if str(e).startswith(str(p))), None)
        fail(cfg, "traces.records" + (f".{bad}" if bad is not None else ""), str(e), "generate.py")
    if not problems:
        fail(cfg, "traces.records", f"no records in {cfg.traces.records}: no problems for the teacher", "generate.py")
    return problems


def select_records(cfg: GenerateConfig) -> tuple[list[dict], dict]:
    """mode=select: the selection, made before anything is written, so that input that cannot be read or
    selected from (not JSONL, duplicate ids) is one line naming the key."""
    from envs.code import data
    from utils.config import fail

    try:
        return data.select(cfg.select, cfg.seed)
    except ValueError as e:  # the message names the file: the match file's, or one of select.data
        match = cfg.select.match and str(e).startswith(str(Path(cfg.select.match)))
        fail(cfg, "select.match" if match else "select.data", str(e), "generate.py")


def refuse_other_settings(cfg: GenerateConfig, fingerprint: str | None) -> None:
    """One line (exit 2) when out= holds a dataset that other settings made, before anything is
    written: its shards, config.yaml and run_info.json stay as they were."""
    from utils.config import config_changes, fail

    from utils.engine import SPEED_KEYS

    out, keys = Path(cfg.out), OUTPUT_KEYS.get(cfg.mode, ()) + ("mode",)
    speed = tuple(f"traces.teacher.{k}" for k in SPEED_KEYS)  # a slower teacher makes the same traces
    changed = [c for c in config_changes(out / "config.yaml", cfg, ignore=speed) if c.split(":")[0].split(".")[0] in keys]
    if changed:
        fail(cfg, changed[0].split(":")[0], f"{out} holds a dataset made with other settings ({'; '.join(changed)}): "
                                            f"choose another out= or delete it", "generate.py")
    fp_file = out / "fingerprint"  # config.yaml missing or edited by hand; traces: the input records changed
    if fingerprint is not None and fp_file.exists() and fp_file.read_text().strip() != fingerprint:
        fail(cfg, "traces.records" if cfg.mode == "sft_traces" else "out",
             f"{out} holds a dataset made with other settings" + (" or input records" if cfg.mode == "sft_traces"
                                                                   else "") +
             " (its fingerprint file says so): choose another out= or delete it", "generate.py")


def main(argv: list[str]) -> None:
    cfg = load(GenerateConfig, argv, prog="generate.py")
    from utils.config import save_run_info
    from utils.records import remove_stale_temps
    from utils.runlock import Locked, RunLock

    from utils import stopping
    from utils.records import atomic_write_text

    fingerprint, inputs = None, None  # inputs: read (and checked) before anything is written
    if cfg.mode in ("envs", "teacher_traces"):
        first_records(cfg)
        fingerprint = envs_fingerprint(cfg)
    if cfg.mode == "sft_traces":
        inputs = traces_records(cfg)
        fingerprint = traces_fingerprint(cfg, inputs)
    if cfg.mode == "select":
        inputs = select_records(cfg)
    stopping.writable_dir("generate.py", cfg.out)  # a file in the way, a read-only disk: one line now
    lock = RunLock(cfg.out, "generate.py")
    try:  # two runs into one directory would mix their shards and provenance
        lock.acquire()
    except Locked as e:
        print(f"generate.py: {e}", file=sys.stderr)
        sys.exit(2)
    try:
        refuse_other_settings(cfg, fingerprint)
        remove_stale_temps(cfg.out)  # a killed run's half-written files; none is in use while we hold the lock
        save_run_info(cfg, cfg.out, seed=cfg.seed)
        if fingerprint is not None:
            atomic_write_text(Path(cfg.out) / "fingerprint", fingerprint + "\n")
        run_mode(cfg, inputs)
    except OSError as e:  # disk full, read-only: one line; finished shards stay, to resume from
        stopping.io_fault("generate.py", cfg.out, e)
    finally:
        lock.release()


def run_mode(cfg: GenerateConfig, inputs=None) -> None:
    """Make the mode's output in cfg.out from `inputs`: mode=select the selection (select_records'
    result), mode=sft_traces the problems (traces_records')."""
    from utils.records import atomic_write_text, shard_paths

    if cfg.mode == "envs":
        summary = generate_envs(cfg)
        atomic_write_text(Path(cfg.out) / "manifest.json", json.dumps(summary, indent=2) + "\n")
        print_summary(summary)
    elif cfg.mode == "teacher_traces":  # the records as mode=envs writes them, then the traces of the train splits
        from envs.puzzles.teacher import format_summary, write_traces

        from utils.records import shard_entry

        summary = generate_envs(cfg)
        summary["teacher"] = write_traces(cfg.teacher, cfg.out, cfg.seed, list(cfg.splits))
        # the train shards now hold their traces: a shard is finished by the manifest's count and hash of
        # what is on disk, so a re-run keeps them (a run stopped before this line remakes and retraces them)
        summary["shards"] = {name: shard_entry(Path(cfg.out) / name) for name in summary["shards"]}
        atomic_write_text(Path(cfg.out) / "manifest.json", json.dumps(summary, indent=2) + "\n")
        print_summary(summary)
        print(format_summary(summary["teacher"]))
    elif cfg.mode == "races":
        from envs.compose.dataset import format_summary, generate_races

        summary = generate_races(cfg.races, cfg.out, cfg.seed, cfg.shard_size)
        atomic_write_text(Path(cfg.out) / "manifest.json", json.dumps(summary, indent=2) + "\n")
        print(format_summary(summary))
    elif cfg.mode == "bricks":
        from envs.compose.llm_bricks import format_summary, generate_bricks

        summary = generate_bricks(cfg.bricks, cfg.out, cfg.seed)  # its manifest.json lists the bricks
        atomic_write_text(Path(cfg.out) / "summary.json", json.dumps(summary, indent=2) + "\n")
        print(format_summary(summary))
    elif cfg.mode == "sft_traces":
        from envs.traces import format_summary, generate_traces

        summary = generate_traces(cfg.traces, cfg.out, cfg.seed, cfg.shard_size, inputs)
        atomic_write_text(Path(cfg.out) / "manifest.json", json.dumps(summary, indent=2) + "\n")
        print(format_summary(summary))
    elif cfg.mode == "synth":
        from envs.code.synth import format_summary, synthesize

        summary = synthesize(cfg.synth, cfg.out, cfg.seed)
        atomic_write_text(Path(cfg.out) / "manifest.json", json.dumps(summary, indent=2) + "\n")
        print(format_summary(summary))
    elif cfg.mode in ("seeds", "select"):
        from envs.code import data

        if cfg.mode == "seeds":
            rows, report = data.solved_seeds(cfg.seeds)
            from utils.records import write_jsonl

            write_jsonl(Path(cfg.out) / "seeds.jsonl", rows)
        else:
            rows, report = inputs
            for stale in shard_paths(cfg.out, "train"):  # an earlier selection's: fewer input records, fewer shards
                stale.unlink()
            data.write_shards(Path(cfg.out), rows, cfg.shard_size)
        atomic_write_text(Path(cfg.out) / "manifest.json", json.dumps({"out": cfg.out, "counts": report}, indent=2) + "\n")
        print(data.format_report(cfg.mode, cfg.out, report, len(rows)))


if __name__ == "__main__":
    from utils import stopping

    stopping.run("generate.py", main, sys.argv[1:])
