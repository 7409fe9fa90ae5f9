"""Real coding problems graded by their tests: the real-data side of the code-RL paper ('RL training
on 25K and 81K real coding problems', and the real + synthetic augmentation mixes).

    env = envs.make("code_contest", path="data/code_rl/real_25k.jsonl")   # or a .parquet, or a hub id
    rec = env.generate(seed=3)        # a uniformly drawn problem: statement + tests in meta
    envs.score(rec, response)         # 1 iff the last code block passes every test (utils/codegrade.py)

A problem is a row of a dataset in the LiveCodeBench layout by default (question_content,
public_test_cases, private_test_cases, starter_code, metadata.func_name, difficulty); `fields`
maps other column names, exactly as a code benchmark does in configs/eval (utils/benchmarks.py
reads and checks the rows). The record holds the statement as its prompt and the decoded tests in
meta, so scoring needs nothing but the record: the response runs in the sandbox under the same
harness rules as evaluation (utils/codegrade.py), and a record is re-verifiable anywhere.

Rows are read when drawn: a .jsonl file is indexed by line offsets, a .parquet file or hub
dataset is memory-mapped by `datasets`, so 81K problems with large private tests do not sit in
every rank's memory. Without `path` the env draws from a small shipped sample
(contest_sample.jsonl), which is what the tests and the CPU variants of the paper's configs use.
"""
from __future__ import annotations

import json
import os
import random
from functools import cached_property
from pathlib import Path

from envs.base import Env, Reward

SAMPLE = Path(__file__).with_name("contest_sample.jsonl")
LEVELS = {"easy": 0, "medium": 1, "hard": 2}  # record difficulty from the dataset's label (others: 0)


class JsonlRows:
    """Random access to the lines of a JSONL file through their byte offsets."""

    def __init__(self, path: Path):
        self.path, self.offsets = path, []
        with open(path, "rb") as f:
            at = 0
            for line in f:
                if line.strip():
                    self.offsets.append(at)
                at += len(line)

    def __len__(self) -> int:
        return len(self.offsets)

    def __getitem__(self, i: int) -> dict:
        with open(self.path, "rb") as f:
            f.seek(self.offsets[i])
            try:
                return json.loads(f.readline())
            except json.JSONDecodeError as e:
                raise ValueError(f"{self.path}: row {i} is not valid JSON ({e.msg})") from None


class CodeContest(Env):
    name = "code_contest"
    reward_range = (0.0, 1.0)

    def __init__(self, path: str = "", subset: str = "", split: str = "train", fields: dict | None = None,
                 timeout_s: float = 6.0, memory_mb: int = 1024):
        """path: a .jsonl or .parquet file or a hub dataset id (subset, split); '' the shipped sample.
        fields: our field -> column, as for code benchmarks (id, problem, public_tests, private_tests,
        starter_code, func_name, difficulty; and `answer`, a column holding a reference solution)."""
        if not timeout_s > 0 or memory_mb < 1:
            raise ValueError("code_contest: need timeout_s > 0 and memory_mb >= 1")
        local = path.endswith((".jsonl", ".parquet"))
        if local and not Path(path).is_file():
            raise ValueError(f"code_contest: {path} does not exist")
        self.path, self.subset, self.split = path or str(SAMPLE), subset, split
        self.fields, self.timeout_s, self.memory_mb = dict(fields or {}), float(timeout_s), int(memory_mb)

    @cached_property
    def rows(self):
        if self.path.endswith(".jsonl"):
            rows = JsonlRows(Path(self.path))
        else:
            import datasets  # parquet or a hub id: memory-mapped Arrow

            if self.path.endswith(".parquet"):
                rows = datasets.load_dataset("parquet", data_files=self.path, split="train")
            else:
                try:
                    rows = datasets.load_dataset(self.path, self.subset or None, split=self.split)
                except (ConnectionError, FileNotFoundError, ValueError) as e:
                    raise ValueError(f"code_contest: {self.path}: {e} (offline: point path at a local file)") from None
        if len(rows) == 0:
            raise ValueError(f"code_contest: {self.path} has no rows")
        return rows

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        """A problem drawn uniformly by seed (difficulty is the dataset's own label, not a choice)."""
        from utils.benchmarks import BenchmarkConfig, problem_from_row

        i = random.Random(seed).randrange(len(self.rows))
        row = dict(self.rows[i])
        bench = BenchmarkConfig(name=self.name, kind="code", path=self.path, fields=self.fields)
        problem = problem_from_row(bench, row, i)
        label = str(problem.meta.get("difficulty") or "").lower()
        answer_col = self.fields.get("answer", "solution")
        answer = row.get(answer_col) if isinstance(row.get(answer_col), str) else None
        return {"id": f"{self.name}-{problem.id}", "env": self.name, "difficulty": LEVELS.get(label, 0),
                "prompt": problem.prompt[-1]["content"], "answer": f"```python\n{answer}\n```" if answer else None,
                "meta": {**problem.gold, "source": {"path": self.path, "row": i, "id": problem.id},
                         "level": label or None, "timeout_s": self.timeout_s}}

    def score(self, record: dict, response: str) -> Reward:
        from utils.codegrade import extract_code, grade_code

        meta = record["meta"]
        if not isinstance(meta.get("tests"), list) or not meta["tests"]:
            raise ValueError(f"record {record.get('id')}: meta lacks a list of tests")
        ok, status = grade_code(response, {"tests": meta["tests"], "func_name": meta.get("func_name")}, _sandbox(),
                                timeout_s=float(meta.get("timeout_s", self.timeout_s)), memory_mb=self.memory_mb)
        formatted = status != "no_code" and extract_code(response) is not None
        return Reward(value=float(ok), correct=ok, parts={"correct": float(ok), "format": float(formatted)})


_SANDBOX: dict = {}


def _sandbox():
    """One sandbox per process (after a fork, a new one), with room for a program's whole stdout."""
    from utils.sandbox import Sandbox

    if _SANDBOX.get("pid") != os.getpid():
        import atexit

        _SANDBOX.update(pid=os.getpid(), box=Sandbox(output_chars=1 << 20))
        atexit.register(_SANDBOX["box"].close)
    return _SANDBOX["box"]
