"""Benchmark loading: a dataset (HF hub id, local JSONL/JSON/parquet file, or a directory of
generate.py shards) plus a field mapping, turned into a list of Problems.

Field names of hub datasets that cannot be confirmed offline live in configs/eval/*.yaml, not
here. Missing fields and unknown splits fail at load with the field and the file named.
"""
from __future__ import annotations

import base64
import json
import pickle
import random
import re
import zlib
from dataclasses import dataclass, field as dc_field
from pathlib import Path
from typing import Any, Dict

from utils.config import field
from utils.engine import chat

KINDS = ("math", "code", "env", "ifeval", "choice", "answer")
MATH_SUFFIX = "\n\nPlease reason step by step, and put your final answer within \\boxed{}."


@dataclass
class BenchmarkConfig:
    name: str = field("bench", help="label used in outputs")
    kind: str = field("math", help="grader: math (math-verify), code (sandboxed tests), env (envs.score), ifeval "
                                    "(IFEval's verifiable instructions, utils/ifeval.py), choice (multiple choice in "
                                    "LongBench v2's answer format), answer (exact final answer: Enigmata)",
                      choices=KINDS)
    path: str = field("", help="HF dataset id, a local .jsonl/.json/.parquet file, a glob of such files (e.g. "
                              "data/livecodebench/test*.jsonl: every release file, concatenated), or a directory "
                              "of shards")
    subset: str = field("", help="HF dataset config name (e.g. en-hard)")
    data_files: str = field("", help="HF hub: read these files of the dataset repo (a glob, e.g. "
                                     "*/test_out-*.parquet: every OMEGA family's test_out) as split `train`")
    split: str = field("test", help="HF split; for a directory of shards, the shard prefix (test-*.jsonl)")
    fields: Dict[str, str] = field({}, help="our field -> dataset column: id, problem, answer, difficulty "
                                            "(code: tests, public_tests, private_tests, starter_code, "
                                            "func_name, difficulty, date; ifeval: instructions, kwargs; choice: "
                                            "context, choices = one list column or comma-separated columns)")
    sample: int = field(0, help="evaluate a fixed-seed random subset of this many problems (0: all), "
                                "e.g. the paper's N=100 OMEGA subsets", ge=0)
    sample_seed: int = field(0, help="seed of that subset", ge=0)
    problems: int = field(0, help="the number of problems this benchmark must have after filtering and sampling "
                                  "(0: any); a hub copy that differs stops the run before sampling", ge=0)
    system_prompt: str = field("", help="system message for every problem")
    template: str = field("", help="user message, {problem} replaced by the problem; empty: the kind's "
                                   "default (math: ask for the answer in \\boxed{}; code: ask for a python block)")
    difficulty: str = field("", help="code, choice, answer: keep only this difficulty (code: easy/medium/hard; "
                                     "LongBench v2 with fields.difficulty: length: short/medium/long)")
    date_from: str = field("", help="code: keep problems dated on or after this (YYYY-MM-DD)")
    date_to: str = field("", help="code: keep problems dated on or before this (YYYY-MM-DD)")
    timeout_s: float = field(6.0, help="code: per-test time limit in seconds", gt=0)
    expect: int = field(0, help="the problem count the paper reports for this selection (0: none); another count "
                                "after filtering is reported on stderr (e.g. a different release file)", ge=0)


@dataclass
class Problem:
    id: str
    prompt: list  # chat messages
    gold: Any  # math: answer string; code: list of tests; env: the record
    meta: dict = dc_field(default_factory=dict)  # e.g. difficulty, for per-split metrics


DEFAULT_FIELDS = {
    "math": {"id": "id", "problem": "problem", "answer": "answer", "difficulty": "difficulty"},
    "code": {"id": "question_id", "problem": "question_content", "public_tests": "public_test_cases",
             "private_tests": "private_test_cases", "starter_code": "starter_code", "func_name": "metadata",
             "difficulty": "difficulty", "date": "contest_date"},
    "env": {},
    # google/IFEval
    "ifeval": {"id": "key", "problem": "prompt", "instructions": "instruction_id_list", "kwargs": "kwargs"},
    # THUDM/LongBench-v2
    "choice": {"id": "_id", "problem": "question", "context": "context", "answer": "answer",
               "choices": "choice_A,choice_B,choice_C,choice_D", "difficulty": "difficulty"},
    "answer": {"id": "id", "problem": "problem", "answer": "answer", "difficulty": "difficulty"},
}
# LongBench v2's zero-shot prompt (its repository's prompts/0shot.txt, in substance)
CHOICE_TEMPLATE = ("Please read the following text and answer the question below.\n\n<text>\n{context}\n</text>\n\n"
                   "What is the correct answer to this question: {problem}\nChoices:\n{choices}\n\n"
                   "Format your response as follows: \"The correct answer is (insert answer here)\".")


def _rows(cfg: BenchmarkConfig) -> tuple[list[dict], str]:
    """Raw rows and a name for error messages."""
    if any(c in cfg.path for c in "*?["):
        import glob

        files = sorted(glob.glob(cfg.path))
        if not files:
            raise ValueError(f"benchmark {cfg.name}: no file matches {cfg.path}")
        rows = []
        for f in files:
            rows += _rows(BenchmarkConfig(**{**cfg.__dict__, "path": str(f)}))[0]
        return rows, cfg.path
    from utils.records import read_jsonl

    p = Path(cfg.path)
    if p.is_dir():
        files = sorted(p.glob(f"{cfg.split}-*.jsonl"))
        if not files:
            raise ValueError(f"benchmark {cfg.name}: no {cfg.split}-*.jsonl shards in {p} (unknown split?)")
        return [row for f in files for row in read_jsonl(f)], str(p)  # errors name the file and line
    if p.suffix in (".jsonl", ".json", ".parquet"):
        if not p.is_file():
            raise ValueError(f"benchmark {cfg.name}: file {p} not found")
        if p.suffix == ".parquet":
            import datasets

            return list(datasets.load_dataset("parquet", data_files=str(p), split="train")), str(p)
        if p.suffix == ".json" and p.read_bytes().lstrip().startswith(b"["):
            try:
                return json.loads(p.read_text(encoding="utf-8")), str(p)
            except UnicodeDecodeError as e:
                raise ValueError(f"{p}: not UTF-8 text (byte {e.start})") from None
            except json.JSONDecodeError as e:
                raise ValueError(f"{p}:{e.lineno}: not valid JSON ({e.msg}, column {e.colno})") from None
        return list(read_jsonl(p)), str(p)
    import datasets  # a hub id: needs the network (or a warm HF cache)

    try:
        ds = datasets.load_dataset(cfg.path, cfg.subset or None, split=cfg.split, data_files=cfg.data_files or None)
    except ValueError as e:  # unknown split / config
        raise ValueError(f"benchmark {cfg.name}: {cfg.path}: {e}") from None
    except (ConnectionError, FileNotFoundError) as e:  # offline node, or no such dataset
        raise ValueError(f"benchmark {cfg.name}: {cfg.path}: {e} (no cached copy: load it where the hub is "
                         f"reachable, or point path at a local file)") from None
    return list(ds), cfg.path


def load_problems(cfg: BenchmarkConfig) -> list[Problem]:
    rows, source = _rows(cfg)
    fields = {**DEFAULT_FIELDS[cfg.kind], **cfg.fields}
    problems = [_problem(cfg, fields, row, i, source) for i, row in enumerate(rows)]
    if cfg.kind in ("code", "choice", "answer"):
        problems = [p for p in problems if _keep_code(cfg, p)]
    if cfg.sample and cfg.sample < len(problems):  # drawn from the id order: independent of file order
        problems = random.Random(cfg.sample_seed).sample(sorted(problems, key=lambda p: p.id), cfg.sample)
    if cfg.problems and len(problems) != cfg.problems:
        raise ValueError(f"benchmark {cfg.name}: {len(problems)} problems in {source}, the config expects "
                         f"{cfg.problems} (set problems=0 to accept any)")
    ids = [p.id for p in problems]
    if len(set(ids)) != len(ids):
        raise ValueError(f"benchmark {cfg.name}: duplicate problem ids in {source}")
    if cfg.expect and len(problems) != cfg.expect:
        import sys

        print(f"benchmark {cfg.name}: {len(problems)} problems selected from {source}, the paper reports "
              f"{cfg.expect}: results are not comparable with its numbers", file=sys.stderr, flush=True)
    return problems


def problem_from_row(cfg: BenchmarkConfig, row: dict, i: int) -> Problem:
    """One dataset row as a Problem, with cfg's field mapping over the kind's defaults (the code
    env envs/code/contest.py reads training problems this way); ValueError naming the row."""
    return _problem(cfg, {**DEFAULT_FIELDS[cfg.kind], **cfg.fields}, row, i, cfg.path)


def _get(row: dict, fields: dict, key: str, cfg: BenchmarkConfig, source: str, i: int, required: bool = True):
    col = fields.get(key)
    if col is None or col not in row:
        if required:
            raise ValueError(f"benchmark {cfg.name}: row {i} of {source} has no field {col or key!r} "
                             f"(our '{key}'; set fields.{key} in the config)")
        return None
    return row[col]


def _problem(cfg: BenchmarkConfig, fields: dict, row: dict, i: int, source: str) -> Problem:
    if cfg.kind == "env":
        from utils.records import check_record

        check_record(row)
        return Problem(id=row["id"], prompt=chat(row["prompt"], cfg.system_prompt), gold=row,
                       meta={"difficulty": row.get("difficulty"), "env": row.get("env")})
    pid = _get(row, fields, "id", cfg, source, i, required=False)
    pid = str(pid) if pid is not None else f"{cfg.name}-{i}"
    problem = _get(row, fields, "problem", cfg, source, i)
    where = f"benchmark {cfg.name}: row {i} of {source} ({pid})"
    if cfg.kind in ("ifeval", "choice", "answer"):
        return _other_problem(cfg, fields, row, i, source, pid, problem, where)
    if cfg.kind == "math":
        answer = _get(row, fields, "answer", cfg, source, i)
        if answer is None or not str(answer).strip():  # every response would be silently wrong
            raise ValueError(f"{where}: empty field {fields['answer']!r} (our 'answer')")
        if isinstance(problem, list):  # a chat (OMEGA's `messages`): the last user turn is the problem
            users = [m.get("content") for m in problem if isinstance(m, dict) and m.get("role") == "user"]
            if not users or not isinstance(users[-1], str):
                raise ValueError(f"{where}: field {fields['problem']!r} is a list without a user message")
            problem = users[-1]
        text = (cfg.template or "{problem}" + MATH_SUFFIX).replace("{problem}", str(problem))
        return Problem(id=pid, prompt=chat(text, cfg.system_prompt), gold=str(answer),
                       meta={"difficulty": _get(row, fields, "difficulty", cfg, source, i, required=False)})
    tests = []
    for key, required in (("public_tests", True), ("private_tests", False)):
        try:
            tests += decode_tests(_get(row, fields, key, cfg, source, i, required=required))
        except (ValueError, TypeError, zlib.error, pickle.UnpicklingError, EOFError) as e:
            raise ValueError(f"{where}: field {fields[key]!r} is neither a JSON list of tests nor "
                             f"base64(zlib(pickle(JSON))): {type(e).__name__}: {e}") from None
    if not tests:
        raise ValueError(f"{where} has no tests")
    if not all(isinstance(t, dict) and "input" in t and "output" in t for t in tests):
        raise ValueError(f"{where}: every test needs 'input' and 'output'")
    starter = _get(row, fields, "starter_code", cfg, source, i, required=False) or ""
    func = _func_name(_get(row, fields, "func_name", cfg, source, i, required=False))
    functional = [t for t in tests if t.get("testtype") == "functional"]
    if functional and func is None:
        raise ValueError(f"{where}: functional tests but no function name in field {fields['func_name']!r}")
    try:  # the grader parses these for every sample: bad ones fail here, once
        [json.loads(x) for t in functional for x in [*str(t["input"]).splitlines(), str(t["output"])] if x.strip()]
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}: a functional test's input lines and output must be JSON ({e})") from None
    text = cfg.template.replace("{problem}", str(problem)) if cfg.template else code_prompt(str(problem), starter)
    return Problem(id=pid, prompt=chat(text, cfg.system_prompt),
                   gold={"tests": tests, "func_name": func},
                   meta={"difficulty": _get(row, fields, "difficulty", cfg, source, i, required=False),
                         "date": str(_get(row, fields, "date", cfg, source, i, required=False) or "")})


def _other_problem(cfg: BenchmarkConfig, fields: dict, row: dict, i: int, source: str, pid: str, problem,
                   where: str) -> Problem:
    """Problems of the kinds ifeval, choice and answer (graded by utils/ifeval.py and utils/grading.py)."""
    difficulty = _get(row, fields, "difficulty", cfg, source, i, required=False)
    if cfg.kind == "ifeval":
        ids = _get(row, fields, "instructions", cfg, source, i)
        kwargs = _get(row, fields, "kwargs", cfg, source, i, required=False)
        kwargs = [{}] * len(ids or []) if kwargs is None else kwargs
        if isinstance(kwargs, str):
            kwargs = json.loads(kwargs)
        if not isinstance(ids, list) or not ids or not isinstance(kwargs, list) or len(kwargs) != len(ids):
            raise ValueError(f"{where}: needs a non-empty list {fields['instructions']!r} and as many kwargs")
        from utils.ifeval import CHECKS

        unknown = sorted(set(ids) - set(CHECKS))
        if unknown:
            raise ValueError(f"{where}: unknown instruction id(s) {unknown}")
        text = (cfg.template or "{problem}").replace("{problem}", str(problem))
        return Problem(id=pid, prompt=chat(text, cfg.system_prompt),
                       gold={"instruction_id_list": list(ids), "kwargs": [dict(k or {}) for k in kwargs]},
                       meta={"difficulty": difficulty})
    answer = _get(row, fields, "answer", cfg, source, i)
    if answer is None or not str(answer).strip():
        raise ValueError(f"{where}: empty field {fields['answer']!r} (our 'answer')")
    if cfg.kind == "answer":
        text = (cfg.template or "{problem}").replace("{problem}", str(problem))
        return Problem(id=pid, prompt=chat(text, cfg.system_prompt), gold=str(answer),
                       meta={"difficulty": difficulty})
    spec = fields.get("choices", "")
    options = row.get(spec) if spec in row else [row.get(c.strip()) for c in spec.split(",")]
    if not isinstance(options, list) or not 2 <= len(options) <= 10 or any(o is None for o in options):
        raise ValueError(f"{where}: choices {spec!r} must name 2-10 present columns or one list column")
    letters = "ABCDEFGHIJ"[:len(options)]
    gold = str(answer).strip()
    gold = letters[int(gold)] if gold.isdigit() and int(gold) < len(options) else gold.upper()
    if gold not in letters:
        raise ValueError(f"{where}: answer {answer!r} is not one of {list(letters)} (or an index)")
    context = _get(row, fields, "context", cfg, source, i, required=False) or ""
    listed = "\n".join(f"({letter}) {option}" for letter, option in zip(letters, options))
    values = {"context": str(context), "choices": listed, "problem": str(problem)}
    text = re.sub(r"\{(context|choices|problem)\}", lambda m: values[m.group(1)], cfg.template or CHOICE_TEMPLATE)
    return Problem(id=pid, prompt=chat(text, cfg.system_prompt), gold=gold, meta={"difficulty": difficulty})


def code_prompt(problem: str, starter: str) -> str:
    if starter:
        return (f"{problem}\n\nComplete this starter code and return the whole solution in one "
                f"```python``` block:\n```python\n{starter}\n```")
    return (f"{problem}\n\nWrite a Python program that reads the input from stdin and writes the answer to "
            f"stdout. Return it in one ```python``` block.")


def decode_tests(raw: Any) -> list[dict]:
    """LiveCodeBench test cases: a JSON list, or base64(zlib(pickle(JSON string))) for private tests.
    Each test: {"input": str, "output": str, "testtype": "stdin" | "functional"}."""
    if raw is None or raw == "":
        return []
    if isinstance(raw, list):
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        pass
    # Trusted benchmark file (never model output): unpickling is how LiveCodeBench ships these.
    return json.loads(pickle.loads(zlib.decompress(base64.b64decode(raw))))


def _func_name(meta: Any) -> str | None:
    if isinstance(meta, str) and meta.strip().startswith("{"):
        try:
            meta = json.loads(meta)
        except json.JSONDecodeError:
            return None  # the caller names the file if functional tests need the name
    if isinstance(meta, dict):
        return meta.get("func_name")
    return meta or None


def _keep_code(cfg: BenchmarkConfig, p: Problem) -> bool:
    if cfg.difficulty and str(p.meta.get("difficulty")).lower() != cfg.difficulty.lower():
        return False
    date = p.meta.get("date", "")[:10]
    return not ((cfg.date_from and date < cfg.date_from) or (cfg.date_to and date > cfg.date_to))
