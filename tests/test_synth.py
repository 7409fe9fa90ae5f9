"""Multi-turn synthesis end to end on recorded teacher and student answers (tests/data/synth_*.jsonl).

The recorded scenario (configs/generate/synth.yaml: 4 seeds, 6 turns, 32 student samples):
  seed 0, induction: solved every time (p=1 > 0.97: not kept, next harder) -> harder problem kept
          (p=0.25) -> a renamed copy of turn 1 (duplicate) -> a one-token change of turn 2 (near
          duplicate) -> constant outputs (not diverse) -> a problem without a message, evaluated
          all the same and kept (p=0.875).
  seed 1, deduction (one input): f raises (execution) -> random output (nondeterministic) -> kept
          (p=0.5; wrong answers include [3, 3] for (3, 3)) -> kept (p=0.625) -> kept (p=0.125, a
          chain-hard problem whose easier variants come back malformed: no chain) -> no code.
  seed 2, fuzzing: kept (p=0.125, a hard problem: chained to a medium and an easy variant) -> no
          input breaks the test -> never solved (next easier) -> easier problem kept -> ...
  seed 3, abduction (one input): no input blocks (format) -> kept (p=0.5) -> no blocks -> the same
          problem again -> a near copy of seed 0's problem -> no blocks.
Every Table 3 bin and every chain level is held by some kept problem, and the disjoint baseline
finds an exact pass-rate match from another seed for each chain level.
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
    """Records of one output kind: "problems/train", "chains/train", "disjoint/train", "trace/trace"."""
    return [json.loads(line) for p in sorted(out.glob(f"{kind}-*.jsonl")) for line in p.read_text().splitlines()]


def files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.glob("*/*-0*.json*"))}


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
    assert "kept 8 problems of 24 teacher answers (yield 0.333); chains complete 1 of 2" in stdout
    for reason in ("format", "execution", "nondeterministic", "outputs_not_diverse", "no_failing_input", "duplicate",
                   "near_duplicate", "unsolved", "too_easy"):
        assert counts.get(f"rejected:{reason}", 0) >= 1, reason
    assert counts["next:harder"] >= 2 and counts["next:vary"] >= 2 and counts["next:easier"] == 1
    # malformed student answers are counted (and are failures), never a crash
    assert 0 < counts["student_unparsable"] < counts["student_answers"] and "unparsable (format)" in stdout
    assert counts["student_answers"] % 32 == 0
    trace = {(e["seed"], e["turn"]): e for e in read(out, "trace/trace") if "seed" in e}
    assert [trace[0, t]["outcome"] for t in range(1, 7)] == [
        "rejected:too_easy", "kept", "rejected:duplicate", "rejected:near_duplicate", "rejected:outputs_not_diverse",
        "kept"]
    # p = 1 is not kept (code_rl: 'pass rates between 0.01 and 0.97') but still steers the next turn
    assert (trace[0, 1]["pass_rate"], trace[0, 1]["next"], trace[0, 2]["strategy"]) == (1.0, "harder", "harder")
    assert [trace[1, t]["outcome"] for t in (1, 2, 3)] == ["rejected:execution", "rejected:nondeterministic", "kept"]
    assert trace[2, 3]["outcome"] == "rejected:unsolved" and trace[2, 4]["strategy"] == "easier"
    assert trace[3, 1]["outcome"] == "rejected:format"
    # an induction problem without a message is evaluated, not rejected (code_rl Appendix F)
    assert counts["induction_without_message"] == 1 and trace[0, 6]["pass_rate"] == 0.875


def test_kept_records_score_and_carry_their_provenance(demo):
    out, _ = demo
    records = read(out, "problems/train")
    assert Counter(r["env"] for r in records) == {"induction": 2, "deduction": 3, "fuzzing": 2, "abduction": 1}
    cfg = SynthConfig()
    for r in records:
        meta = r["meta"]
        assert 0.01 <= meta["pass_rate"] <= 0.97 and meta["student_samples"] == 32
        assert meta["bin"] == bin_of(meta["pass_rate"], cfg.bins)
        assert meta["chain_level"] == bin_of(meta["pass_rate"], cfg.chain_bins)
        assert r["difficulty"] == (list(cfg.bins).index(meta["bin"]) if meta["bin"] else -1)
        assert meta["synth"]["snippet"]["corpus"] == "stdlib" and meta["synth"]["turn"] >= 1
        assert envs.score(r, r["answer"]).correct, r["id"]
        # code_rl Table 1: the abduction and deduction teacher 'generates function f() and one input case'
        assert len(meta["cases"]) == (1 if r["env"] in ("abduction", "deduction") else 5)
    assert {r["meta"]["bin"] for r in records} == {"easy", "easy_medium", "medium", "hard"}
    by_id = {r["id"]: r for r in records}
    assert by_id["synth-induction-000000-t2"]["meta"]["synth"]["parent"] == "synth-induction-000000-t1"
    assert by_id["synth-deduction-000001-t3"]["meta"]["pass_rate"] == 0.5
    assert "Message from the author of `f`: (none)" in by_id["synth-induction-000000-t6"]["prompt"]
    chain = read(out, "chains/train")
    assert [r["meta"]["chain_level"] for r in chain] == ["hard", "medium", "easy"]
    assert len({r["meta"]["chain_id"] for r in chain}) == 1
    for r in chain:
        low, high = cfg.chain_bins[r["meta"]["chain_level"]]
        assert low <= r["meta"]["pass_rate"] <= high and envs.score(r, r["answer"]).correct


def test_disjoint_baseline_matches_the_chains_histogram_from_other_seeds(demo):
    out, stdout = demo
    chain, disjoint = read(out, "chains/train"), read(out, "disjoint/train")
    chain_seeds = {r["meta"]["synth"]["seed"] for r in chain}
    assert sorted((r["meta"]["chain_level"], r["meta"]["pass_rate"]) for r in disjoint) == \
        sorted((r["meta"]["chain_level"], r["meta"]["pass_rate"]) for r in chain)
    assert not chain_seeds & {r["meta"]["synth"]["seed"] for r in disjoint}
    assert "easy 1/1 (1 exact), medium 1/1 (1 exact), hard 1/1 (1 exact)" in stdout


def test_match_histogram_prefers_exact_then_nearest():
    from envs.code.data import match_histogram

    cands = [(0.5, "a"), (0.5, "b"), (0.125, "c"), (0.25, "d"), (0.75, "e")]
    assert match_histogram([0.5, 0.5, 0.125], cands) == (["c", "a", "b"], 3)
    # 0.5 takes the exact 0.5; 0.375 is then nearest to 0.25 (tie with 0.5 gone) -> d
    assert match_histogram([0.375, 0.5], [(0.5, "a"), (0.25, "d")]) == (["a", "d"], 1)
    assert match_histogram([0.1, 0.2, 0.3], [(0.2, "x")]) == (["x"], 1), "fewer candidates than targets"


def test_every_output_folder_holds_only_training_records(demo):
    from utils.records import check_record, load_records

    out, _ = demo
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["chains", "disjoint", "problems", "stats", "trace"]
    for name, n in (("problems", 8), ("chains", 3), ("disjoint", 3)):
        records = load_records(out / name)
        assert len(records) == n and all(check_record(r) is None for r in records)
        assert all({"bin", "chain_level", "pass_rate"} <= set(r["meta"]) for r in records)


def test_single_turn_baseline(tmp_path, monkeypatch_module):
    """The yield study's baseline: `turns` independent first-turn problems per seed, no summary."""
    summary = synthesize(demo_cfg(single_turn=True, chains=False), tmp_path / "single")
    trace = [e for e in read(tmp_path / "single", "trace/trace") if "seed" in e]
    assert len(trace) == 4 * 6 and all(e["strategy"] is None and "next" not in e for e in trace)
    assert summary["counts"]["teacher_answers"] == 24 and "next:harder" not in summary["counts"]
    from envs.code.synth import format_summary

    assert "single-turn" in format_summary(summary)


class Refuse:
    def generate(self, *a, **k):
        raise AssertionError("a finished shard must not call the models again")


def test_resume_gives_identical_files(demo, tmp_path, monkeypatch_module):
    out, _ = demo
    again = tmp_path / "again"
    shutil.copytree(out, again)
    for name in ("problems/train-00001.jsonl", "chains/train-00001.jsonl", "trace/trace-00001.jsonl",
                 "stats/stats-00001.json"):
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
    trace = read(tmp_path / "flaky", "trace/trace")
    assert [e["outcome"] for e in trace if e.get("seed") == 3] == ["skipped:teacher_error"]
    assert counts["kept"] == 2, "the other seeds go on (seeds 0 and 2 each keep their second-turn problem)"


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
    # two hard problems start chains (seeds 1 and 2): every attempt of both fails at the endpoint
    assert counts["rejected:teacher_error"] == 2 * cfg.chain_attempts and counts["chains_incomplete"] == 2
    # the deduction chain's malformed variants no longer reach the parser: 2 format rejections fewer
    assert counts["rejected:format"] == normal["rejected:format"] - cfg.chain_attempts
    assert counts["kept"] == normal["kept"]


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
    # code_rl: 'increasing complexity if p > 0.65' (strict), 'decreasing complexity if p = 0'
    assert [teacher.strategy_for(p) for p in (1.0, 0.66, 0.65, 0.64, 0.3, 1 / 32, 0.0)] == \
        ["harder", "harder", "vary", "vary", "vary", "vary", "easier"]
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
    for bad in ("", good.replace("def f", "def g"), good.replace("```input\n4\n```", "```input\nx\n```"),
                good.replace("return x", "return x +"), "```python\n" + "x = 1\n" * 5000 + "```"):
        assert teacher.parse(bad, "induction", 5) == (None, "format")
    assert teacher.parse(good, "fuzzing", 5) == (None, "format"), "fuzzing needs pre_test_f and test_f"
    one, reason = teacher.parse(good, "deduction", 1)
    assert reason is None and [c["input"] for c in one.cases] == ["0"], "one input: the first"
    # without a message: still a problem (code_rl Appendix F), and the next turn says what was missing
    bare, reason = teacher.parse(good, "induction", 5)
    assert reason is None and bare.message == ""
    bare.cases = [{"input": "1", "output": "1"}]
    assert teacher.NO_MESSAGE in teacher.render(bare, "induction")
    assert "Choose one input" in teacher.first_prompt("deduction", "x = 1", 1, 1)


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


PAPER_FUZZ = ("Here are the functions.\n\n```python\ndef f(n):\n    # pf1\n    return abs(n) if n != -7 else 6\n\n\n"
              "def pre_test_f(n):\n    return isinstance(n, int)\n\n\ndef test_f(n):\n    return f(n) == abs(n)\n```")


class Recorder:
    """An engine that records the last user message of every prompt it is sent."""

    def __init__(self, inner):
        self.inner, self.prompts = inner, []

    def generate(self, prompts, params, seeds=None):
        self.prompts += [p[-1]["content"] for p in prompts]
        return self.inner.generate(prompts, params, seeds=seeds)


@pytest.mark.parametrize("hint", [False, True])
def test_the_papers_fuzzing_teacher_and_turns_without_a_retry_hint(tmp_path, monkeypatch_module, hint):
    """code_rl Table 1: the fuzzing teacher 'Generates a function f(), which contains a subtle bug to be
    exploited, and tests pre_test_f() and test_f()', no inputs (inputs.fuzzing=0, the paper configs):
    the problem is kept on the student's pass rate and scores any breaking input. Sec. 3: 'each turn
    conditioned on the immediately preceding question and student summary': with retry_hint=false a
    rejected answer is not named in the next turn (ours names it)."""
    from utils.engine import EngineConfig

    teacher_file, student_file = tmp_path / "teacher.jsonl", tmp_path / "student.jsonl"
    teacher_file.write_text("\n".join(json.dumps(r) for r in [
        {"match": "rejected (format)", "responses": [PAPER_FUZZ.replace("# pf1", "# pf2").replace("-7", "-8")]},
        {"match": "# pf1", "responses": ["I have nothing more."]},  # turn 2: no code (format)
        {"match": "The problem is for the fuzzing task.", "responses": [PAPER_FUZZ]}]) + "\n")
    breaks = {"# pf1": "-7", "# pf2": "-8"}
    student_file.write_text("\n".join(json.dumps({"match": tag, "responses": [f"```input\n{bad}\n```"] + [
        f"```input\n{i}\n```" for i in (3, 4, 5)]}) for tag, bad in breaks.items()) + "\n")
    cfg = demo_cfg(**{"seeds": 1, "envs": "[fuzzing]", "turns": 3, "samples": 4, "chains": "false",
                      "inputs.fuzzing": 0, "retry_hint": str(hint).lower()})
    teacher_engine = Recorder(make_engine(EngineConfig(backend="replay", replay_path=str(teacher_file))))
    student_engine = make_engine(EngineConfig(backend="replay", replay_path=str(student_file)))
    synthesize(cfg, tmp_path / "out", teacher=teacher_engine, student=student_engine)
    first = teacher_engine.prompts[0]
    assert "```input" not in first and "one of your inputs" not in first and "pre_test_f" in first
    trace = [e["outcome"] for e in read(tmp_path / "out", "trace/trace") if "seed" in e]
    records = read(tmp_path / "out", "problems/train")
    rec = records[0]
    assert rec["meta"]["cases"] == [] and rec["meta"]["fuzz_input"] is None and rec["answer"] == ""
    assert rec["meta"]["pass_rate"] == 0.25 and envs.score(rec, "```input\n-7\n```").correct
    assert not envs.score(rec, "```input\n3\n```").correct
    assert "Inputs and outputs" not in teacher_engine.prompts[1]  # the previous problem: the functions only
    if hint:  # ours: the retry names the rejection and gets a new problem
        assert "rejected (format)" in teacher_engine.prompts[2] and trace == ["kept", "rejected:format", "kept"]
    else:  # the paper's: the third turn sees the same previous problem and summary as the second
        assert teacher_engine.prompts[2] == teacher_engine.prompts[1]
        assert trace == ["kept", "rejected:format", "rejected:format"] and len(records) == 1


def test_paper_synthesis_configs_use_the_papers_teacher_form(hub_ids_ok):
    """Every paper synthesis config: Table 1's fuzzing teacher (no inputs) and turns without a retry hint."""
    from generate import GenerateConfig

    for path in sorted((ROOT / "configs" / "paper" / "code_rl").glob("gen_*.yaml")):
        cfg = load_or_raise(GenerateConfig, ["--config", str(path)], validate=False)
        if cfg.mode == "synth":
            assert (cfg.synth.inputs["fuzzing"], cfg.synth.retry_hint) == (0, False), path.name
    demo = demo_cfg()  # ours stays available: the recorded demo scenario writes fuzzing inputs and hints
    assert (demo.inputs["fuzzing"], demo.retry_hint) == (5, True)
