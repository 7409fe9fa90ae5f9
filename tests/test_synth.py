"""Multi-turn synthesis end to end on recorded teacher and student answers (tests/data/synth_*.jsonl).

The recorded scenario (configs/generate/synth.yaml: 4 seeds, 6 turns, 32 student samples):
  seed 0, induction: kept (p=1, next harder) -> harder problem kept (p=0.25, next vary) -> a renamed
          copy of turn 1 (duplicate) -> a one-token change of turn 2 (near duplicate) -> ...
  seed 1, deduction: f raises (execution) -> random output (nondeterministic) -> constant output
          (not diverse) -> kept (p=0.875; wrong answers include [3, 3] for (3, 3)) -> ...
  seed 2, fuzzing: kept (p=0.125, a hard problem: chained to a medium and an easy variant) -> no
          input breaks the test -> never solved (next easier) -> easier problem kept -> ...
  seed 3, abduction: no input blocks (format) -> kept (p=0.5) -> no blocks -> the same problem again.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import envs
from envs.code import filters, teacher
from envs.code.synth import SynthConfig, bin_of, synthesize
from utils.config import load_or_raise
from utils.engine import make_engine

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "generate" / "synth.yaml"


def demo_cfg(**overrides) -> SynthConfig:
    from generate import GenerateConfig

    args = ["--config", str(CONFIG)] + [f"synth.{k}={v}" for k, v in overrides.items()]
    return load_or_raise(GenerateConfig, args).synth


def read(out: Path, kind: str) -> list[dict]:
    return [json.loads(line) for p in sorted(out.glob(f"{kind}-*.jsonl")) for line in p.read_text().splitlines()]


def files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*-0*.json*"))}


@pytest.fixture(scope="module")
def demo(tmp_path_factory, monkeypatch_module):
    out = tmp_path_factory.mktemp("synth") / "demo"
    p = subprocess.run([sys.executable, "generate.py", "--config", str(CONFIG), f"out={out}"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return out, p.stdout


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    mp.chdir(ROOT)  # the configs name their replay files relative to the repository
    yield mp
    mp.undo()


def test_progression_filters_and_dedupe(demo):
    out, stdout = demo
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert "kept 6 problems; chains complete 1 of 1" in stdout
    for reason in ("format", "execution", "nondeterministic", "outputs_not_diverse", "no_failing_input", "duplicate",
                   "near_duplicate", "unsolved"):
        assert counts.get(f"rejected:{reason}", 0) >= 1, reason
    assert counts["next:harder"] >= 2 and counts["next:vary"] >= 2 and counts["next:easier"] == 1
    # malformed student answers are counted (and are failures), never a crash
    assert 0 < counts["student_unparsable"] < counts["student_answers"] and "unparsable (format)" in stdout
    assert counts["student_answers"] % 32 == 0
    trace = {(e["seed"], e["turn"]): e for e in read(out, "trace") if "seed" in e}
    assert [trace[0, t]["outcome"] for t in (1, 2, 3, 4)] == ["kept", "kept", "rejected:duplicate",
                                                              "rejected:near_duplicate"]
    assert (trace[0, 1]["next"], trace[0, 2]["strategy"], trace[0, 2]["next"]) == ("harder", "harder", "vary")
    assert [trace[1, t]["outcome"] for t in (1, 2, 3, 4)] == ["rejected:execution", "rejected:nondeterministic",
                                                              "rejected:outputs_not_diverse", "kept"]
    assert trace[2, 3]["outcome"] == "rejected:unsolved" and trace[2, 4]["strategy"] == "easier"
    assert trace[3, 1]["outcome"] == "rejected:format"


def test_kept_records_score_and_carry_their_provenance(demo):
    out, _ = demo
    records = read(out, "synth")
    assert Counter(r["env"] for r in records) == {"induction": 2, "deduction": 1, "fuzzing": 2, "abduction": 1}
    cfg = SynthConfig()
    for r in records:
        meta = r["meta"]
        assert 0 < meta["pass_rate"] <= 1 and meta["student_samples"] == 32
        assert meta["bin"] == bin_of(meta["pass_rate"], cfg.bins)
        assert r["difficulty"] == (list(cfg.bins).index(meta["bin"]) if meta["bin"] else -1)
        assert meta["synth"]["snippet"]["corpus"] == "stdlib" and meta["synth"]["turn"] >= 1
        assert envs.score(r, r["answer"]).correct, r["id"]
    by_id = {r["id"]: r for r in records}
    assert by_id["synth-induction-000000-t2"]["meta"]["synth"]["parent"] == "synth-induction-000000-t1"
    assert by_id["synth-deduction-000001-t4"]["meta"]["pass_rate"] == 0.875
    chain = read(out, "chains")
    assert [r["meta"]["chain_level"] for r in chain] == ["hard", "medium", "easy"]
    assert len({r["meta"]["chain_id"] for r in chain}) == 1
    for r in chain:
        low, high = cfg.chain_bins[r["meta"]["chain_level"]]
        assert low <= r["meta"]["pass_rate"] <= high and envs.score(r, r["answer"]).correct


class Refuse:
    def generate(self, *a, **k):
        raise AssertionError("a finished shard must not call the models again")


def test_resume_gives_identical_files(demo, tmp_path, monkeypatch_module):
    out, _ = demo
    again = tmp_path / "again"
    shutil.copytree(out, again)
    for name in ("synth-00001.jsonl", "chains-00001.jsonl", "trace-00001.jsonl", "stats-00001.json"):
        (again / name).unlink()  # as if killed during the second shard
    summary = synthesize(demo_cfg(), again)
    assert summary["records_generated_now"] == 3 and files(again) == files(out)
    summary = synthesize(demo_cfg(), again, teacher=Refuse(), student=Refuse())
    assert summary["records_generated_now"] == 0 and files(again) == files(out)


class Flaky:
    """A teacher endpoint that times out once, and always fails on abduction prompts."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def generate(self, prompts, params, seeds=None):
        self.calls += 1
        if self.calls == 1:
            raise TimeoutError("read timed out")
        if any("abduction task" in m["content"] for p in prompts for m in p):
            raise ConnectionError("HTTP 503")
        return self.inner.generate(prompts, params, seeds=seeds)


def test_teacher_errors_are_retried_then_the_seed_is_skipped(tmp_path, monkeypatch_module):
    cfg = demo_cfg(**{"teacher.retries": 1, "teacher.backoff_s": 0.01, "turns": 2})
    flaky = Flaky(make_engine(cfg.teacher.engine))
    summary = synthesize(cfg, tmp_path / "flaky", teacher=flaky)
    counts = summary["counts"]
    assert counts["skipped_seeds"] == 1 and counts["engine_errors"] >= 2  # the timeout, then the 503s
    trace = read(tmp_path / "flaky", "trace")
    assert [e["outcome"] for e in trace if e.get("seed") == 3] == ["skipped:teacher_error"]
    assert counts["kept"] >= 3, "the other seeds go on"


class NoVariants:
    """A teacher endpoint that fails on every request for an easier variant (the chains)."""

    def __init__(self, inner):
        self.inner = inner

    def generate(self, prompts, params, seeds=None):
        if any("Write an easier variant" in m["content"] for p in prompts for m in p):
            raise ConnectionError("HTTP 503")
        return self.inner.generate(prompts, params, seeds=seeds)


def test_teacher_errors_during_chains_are_not_format_rejections(demo, tmp_path, monkeypatch_module):
    out, _ = demo
    cfg = demo_cfg(**{"teacher.retries": 0})
    counts = synthesize(cfg, tmp_path / "nochains", teacher=NoVariants(make_engine(cfg.teacher.engine)))["counts"]
    normal = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts["rejected:teacher_error"] == cfg.chain_attempts and counts["chains_incomplete"] == 1
    assert counts["rejected:format"] == normal["rejected:format"] and counts["kept"] == normal["kept"]


def test_with_the_tiny_model(tmp_path, monkeypatch_module):
    from utils.tiny import build_tiny

    tiny = str(build_tiny(tmp_path / "tiny"))
    hf = {"backend": "hf", "model": tiny}
    cfg = demo_cfg(seeds=1, turns=2, samples=2, chains=False, **{f"student.engine.{k}": v for k, v in hf.items()},
                   **{"student.max_tokens": 8})
    counts = synthesize(cfg, tmp_path / "student")["counts"]
    assert counts["rejected:unsolved"] == 2 and counts["next:easier"] == 2  # untrained: never right
    cfg = demo_cfg(seeds=1, turns=1, chains=False, **{f"teacher.engine.{k}": v for k, v in hf.items()},
                   **{"teacher.max_tokens": 8})
    assert synthesize(cfg, tmp_path / "teacher")["counts"]["rejected:format"] == 1


def test_strategy_bins_and_config():
    assert [teacher.strategy_for(p) for p in (1.0, 0.65, 0.64, 0.3, 1 / 32, 0.0)] == \
        ["harder", "harder", "vary", "vary", "vary", "easier"]
    bins = SynthConfig().bins
    assert [bin_of(p, bins) for p in (0.97, 0.9, 0.85, 0.7, 0.5, 0.2, 0.05, 1.0)] == \
        ["easy", "easy", "easy", "easy_medium", "medium", "hard", None, None]
    chain = SynthConfig().chain_bins
    assert [bin_of(p, chain) for p in (0.875, 0.5, 0.125, 0.7)] == ["easy", "medium", "hard", None]
    from generate import GenerateConfig
    from utils.config import ConfigError

    with pytest.raises(ConfigError, match="synth.envs.0"):
        load_or_raise(GenerateConfig, ["mode=synth", "synth.envs=[bogus]"])
    with pytest.raises(ConfigError, match="synth.shown"):
        load_or_raise(GenerateConfig, ["mode=synth", "synth.shown=9"])
    # what used to surface as a traceback at run time
    for override, key in (("synth.corpus=/no/such/dir", "synth.corpus"), ("synth.timeout_s=0", "synth.timeout_s"),
                          ("synth.memory_mb=-1", "synth.memory_mb"), ("synth.harder_at=1.5", "synth.harder_at"),
                          ("synth.student.engine.replay_path=nope.jsonl", "synth.student.engine.replay_path")):
        with pytest.raises(ConfigError, match=key):
            load_or_raise(GenerateConfig, ["--config", str(CONFIG), override])


def test_teacher_parsing_is_strict():
    good = "```python\ndef f(x):\n    return x\n```\n" + "".join(f"```input\n{i}\n```\n" for i in range(5))
    problem, reason = teacher.parse(good + "```message\nhi\n```", "induction", 5)
    assert reason is None and [c["input"] for c in problem.cases] == ["0", "1", "2", "3", "4"]
    for bad in ("", good, good.replace("def f", "def g"), good.replace("```input\n4\n```", "```input\nx\n```"),
                good.replace("return x", "return x +"), "```python\n" + "x = 1\n" * 5000 + "```"):
        assert teacher.parse(bad, "induction", 5) == (None, "format")
    assert teacher.parse(good, "fuzzing", 5) == (None, "format"), "fuzzing needs pre_test_f and test_f"
    assert teacher.parse(good, "deduction", 5)[1] is None


def test_dedupe():
    d = filters.Dedupe(threshold=0.8)
    base = "def f(xs):\n    total = 0\n    for i, x in enumerate(xs):\n        if i % 2:\n            total += x\n    return total\n"
    assert d.check(base) is None
    d.add(base)
    renamed = '"""doc"""\ndef f(ys):\n    """Sum."""\n    t = 0\n    for j, y in enumerate(ys):  # c\n        if j % 2:\n            t += y\n    return t\n'
    assert d.check(renamed) == "duplicate"
    assert d.check(base.replace("return total", "return total + 1")) == "near_duplicate"
    assert d.check("def f(s):\n    return s.upper()[::-1]\n") is None


def test_snippets_are_windows_of_the_asked_length(tmp_path):
    from envs.code.snippets import SnippetSource

    (tmp_path / "short.py").write_text("x = 1\n" * 12)  # too short for a 25-line window: never used
    (tmp_path / "long.py").write_text("".join(f"line_{i} = {i}\n" for i in range(200)))
    source = SnippetSource(str(tmp_path))
    for seed in range(40):
        text, where = source.snippet(seed, 25, 50)
        assert where["document"] == "long.py" and 25 <= len(text.splitlines()) == where["lines"] <= 50
        assert text.splitlines()[0] == f"line_{where['start_line'] - 1} = {where['start_line'] - 1}"
        assert source.snippet(seed, 25, 50) == (text, where)
    with pytest.raises(ValueError, match="no usable snippet"):
        SnippetSource(str(tmp_path)).snippet(0, 300, 400)
