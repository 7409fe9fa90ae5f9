"""evaluate.py end to end: replayed responses with known grades, the tiny model with a killed and
resumed run, and `compare`."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from utils.benchmarks import MATH_SUFFIX, BenchmarkConfig, load_problems
from utils.passk import pass_at_k

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "bench"

MATH_RESPONSES = {  # problem id -> 4 responses; c = number correct
    "m1": (["\\boxed{2}", "\\boxed{3}", "It is 2.", "The final answer is 2"], 2),
    "m2": (["\\boxed{0.75}", "\\boxed{\\dfrac{3}{4}}", "\\boxed{3/4}", "\\boxed{\\frac{3}{5}}"], 3),
    "m3": (["\\boxed{2}"] * 4, 0),
    "m4": (["\\boxed{(-1, 1)}", "\\boxed{[-1,1]}", "", "\\boxed{(-1,1)} wait \\boxed{(0,1)}"], 1),
    "m5": (["\\boxed{44\\sqrt{30}+348}", "\\boxed{348}", "\\boxed{10^{10^{10^{10}}}}", "x"], 1),
    "m6": (["\\boxed{60}", "\\boxed{60^\\circ}", "\\boxed{60^{\\circ}}", "\\boxed{59}"], 3),
}
CODE_RESPONSES = {
    "c1": (["```python\na, b = map(int, input().split())\nprint(a + b)\n```",
            "```python\na, b = map(int, input().split())\nprint(a - b)\n```",
            "```python\nwhile True:\n    pass\n```",
            "```python\ndef broken(:\n```"], 1),
    "c2": (["```python\nclass Solution:\n    def twiceSum(self, nums):\n        return 2 * sum(nums)\n```",
            "```python\nclass Solution:\n    def twiceSum(self, nums):\n        return '12'\n```",
            "no code here",
            "```python\nclass Solution:\n    def twiceSum(self, nums):\n        raise ValueError\n```"], 1),
}


def run(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "evaluate.py", *args], cwd=ROOT, capture_output=True, text=True, **kw)


def write_replay(path: Path) -> None:
    rows = []
    math = {p.id: p for p in load_problems(BenchmarkConfig(name="m", kind="math", path=str(DATA / "math.jsonl"),
                                                           fields={"id": "unique_id"}))}
    for pid, (responses, _) in MATH_RESPONSES.items():
        rows.append({"prompt": math[pid].prompt[-1]["content"], "responses": responses})
    code = {p.id: p for p in load_problems(BenchmarkConfig(name="c", kind="code", path=str(DATA / "livecodebench.jsonl")))}
    for pid, (responses, _) in CODE_RESPONSES.items():
        rows.append({"prompt": code[pid].prompt[-1]["content"], "responses": responses})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def eval_config(tmp_path: Path, replay: Path) -> Path:
    cfg = tmp_path / "eval.yaml"
    cfg.write_text(f"""
name: replayed
out_root: {tmp_path}
engine: {{backend: replay, replay_path: {replay}}}
n: 4
k: [1, 2, 4]
bootstrap: 200
benchmarks:
  - {{name: math, kind: math, path: {DATA / 'math.jsonl'}, fields: {{id: unique_id}}}}
  - {{name: lcb, kind: code, path: {DATA / 'livecodebench.jsonl'}, timeout_s: 2.0}}
""")
    return cfg


def test_replayed_run_grades_exactly(tmp_path):
    replay = tmp_path / "replay.jsonl"
    write_replay(replay)
    r = run(["--config", str(eval_config(tmp_path, replay))], timeout=600)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "replayed"
    with open(out / "per_problem.csv") as f:
        got = {row["problem_id"]: int(row["c"]) for row in csv.DictReader(f)}
    assert got == {pid: c for pid, (_, c) in {**MATH_RESPONSES, **CODE_RESPONSES}.items()}
    results = json.loads((out / "results.json").read_text())
    for bench, table in (("math", MATH_RESPONSES), ("lcb", CODE_RESPONSES)):
        for k in (1, 2, 4):
            want = sum(pass_at_k(4, c, k) for _, c in table.values()) / len(table)
            assert results["benchmarks"][bench]["splits"]["all"][f"pass@{k}"]["mean"] == pytest.approx(want)
    assert set(results["benchmarks"]["lcb"]["splits"]) == {"all", "easy", "medium"}
    statuses = {(s["problem_id"], s["sample"]): s["status"] for s in map(json.loads, open(out / "samples.jsonl"))}
    assert statuses[("c1", 2)] == "timeout" and statuses[("c1", 3)] == "compile_error"
    assert statuses[("c1", 1)] == "wrong_answer" and statuses[("c2", 2)] == "no_code"
    assert statuses[("c2", 3)] == "runtime_error" and statuses[("c2", 1)] == "wrong_answer"
    assert statuses[("m5", 2)] in ("timeout", "ok") and statuses[("m4", 2)] == "no_answer"
    assert (out / "passk.png").stat().st_size > 1000
    seeds = {}  # one seed per problem, shared by its n samples (one request with n samples)
    for s in map(json.loads, open(out / "samples.jsonl")):
        seeds.setdefault((s["benchmark"], s["problem_id"]), set()).add(s["seed"])
    assert all(len(v) == 1 for v in seeds.values()) and len({v.pop() for v in seeds.values()}) == len(seeds)


def test_rerun_counts_only_samples_of_the_current_problems_and_prompts(tmp_path):
    # regression: samples of problems since filtered out, or of another prompt template, were counted
    replay = tmp_path / "replay.jsonl"
    write_replay(replay)
    bench = f"name: math, kind: math, path: {DATA / 'math.jsonl'}, fields: {{id: unique_id}}"
    common = [f"out_root={tmp_path}", "name=r", "engine.backend=replay", f"engine.replay_path={replay}",
              "engine.replay_missing=empty", "n=4", "k=[1,4]", "bootstrap=20", "grading_workers=1"]
    out = tmp_path / "r"

    def results(extra: str) -> tuple[dict, list[dict]]:
        r = run([*common, f"benchmarks=[{{{bench}{extra}}}]"], timeout=600)
        assert r.returncode == 0, r.stderr
        with open(out / "per_problem.csv") as f:
            return json.loads((out / "results.json").read_text())["benchmarks"]["math"], list(csv.DictReader(f))

    full, _ = results("")
    assert full["splits"]["all"]["pass@1"]["mean"] == pytest.approx(sum(c for _, c in MATH_RESPONSES.values()) / 24)
    sub, table = results(", sample: 3")  # served from the cache
    assert sub["problems"] == 3 and len(table) == 3 and len((out / "samples.jsonl").read_text().splitlines()) == 24
    other, table = results(", template: 'Q: {problem}'")  # replay knows no such prompt: ''
    assert other["problems"] == 6 and other["splits"]["all"]["pass@1"]["mean"] == 0.0
    assert [row["c"] for row in table] == ["0"] * 6 and len((out / "samples.jsonl").read_text().splitlines()) == 48


def test_unreachable_hub_dataset_is_one_named_error(monkeypatch):
    import datasets

    def offline(*args, **kwargs):
        raise ConnectionError("Couldn't reach 'org/data' on the Hub (LocalEntryNotFoundError)")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(ValueError, match="benchmark hub: org/data: Couldn't reach .* point path at a local file"):
        load_problems(BenchmarkConfig(name="hub", kind="math", path="org/data"))


@pytest.mark.parametrize("path", sorted(p.name for p in (ROOT / "configs" / "eval").glob("*.yaml") if p.name != "base.yaml"))
def test_shipped_eval_configs_load(path):
    from evaluate import EvalConfig
    from utils.config import load

    from utils.config import ConfigError, load_or_raise

    try:  # a served model name: not looked up on the hub
        cfg = load_or_raise(EvalConfig, ["--config", str(ROOT / "configs" / "eval" / path), "model=m",
                                         "engine.backend=openai"])
    except ConfigError as e:  # only inputs an earlier stage writes (the demo's data) may be missing
        assert e.key.startswith("benchmarks.") and "does not exist" in e.msg, str(e)
        return
    assert cfg.benchmarks and all(k <= cfg.n for k in cfg.k)


def test_a_crashing_env_scorer_marks_the_sample():
    # regression: an exception from envs.score on one record stopped the whole run
    import evaluate
    from utils.benchmarks import Problem

    bad = {"id": "x1", "env": "sorting", "difficulty": 1, "prompt": "p", "answer": None, "meta": {}}
    graders = evaluate.Graders(evaluate.EvalConfig())
    [grade] = graders.grade(BenchmarkConfig(name="e", kind="env"), Problem("x1", [], bad), ["<answer>1</answer>"])
    assert grade["status"] == "grader_error" and grade["correct"] is False and "meta.problem" in grade["error"]


def test_livecodebench_layout_private_tests_windows_and_difficulty():
    def ids(**kw):
        bench = BenchmarkConfig(name="lcb", kind="code", path=str(DATA / "livecodebench.jsonl"), **kw)
        return [p.id for p in load_problems(bench)]

    c1, c2 = load_problems(BenchmarkConfig(name="lcb", kind="code", path=str(DATA / "livecodebench.jsonl")))
    # c1's private tests are base64(zlib(pickle(JSON))), as in code_generation_lite; c2's plain JSON
    assert [t["input"] for t in c1.gold["tests"]] == ["1 2\n", "10 -3\n", "0 0\n"]
    assert {t["testtype"] for t in c1.gold["tests"]} == {"stdin"} and c1.gold["func_name"] is None
    assert len(c2.gold["tests"]) == 3 and c2.gold["func_name"] == "twiceSum"
    assert "class Solution" in c2.prompt[-1]["content"]  # the starter code is in the prompt
    assert ids(date_from="2024-09-01") == ["c2"] and ids(date_to="2024-08-31") == ["c1"]
    assert ids(date_from="2024-08-03", date_to="2024-09-10") == ["c1", "c2"]  # both ends inclusive
    assert ids(difficulty="easy") == ["c1"] and ids(difficulty="MEDIUM") == ["c2"] and ids(difficulty="hard") == []


STDIN = {"tests": [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}], "func_name": None}
FUNCTIONAL = {"tests": [{"input": "[1, 2]", "output": "[2, 1]", "testtype": "functional"}], "func_name": "rev"}
HARNESS_CASES = [  # (name, gold, code, status): LiveCodeBench's harness gives the same verdicts
    ("main guard", STDIN, "def main():\n    a, b = map(int, input().split())\n    print(a + b)\n"
                          "if __name__ == '__main__':\n    main()", "pass"),
    ("stdin.buffer", STDIN, "import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())))", "pass"),
    ("open(0)", STDIN, "print(sum(map(int, open(0).read().split())))", "pass"),
    ("exit after output", STDIN, "import sys\nprint(sum(map(int, input().split())))\nsys.exit(0)", "pass"),
    ("decimal-equal output", STDIN, "print(float(sum(map(int, input().split()))))", "pass"),
    ("padded output", STDIN, "print('  3  ')\nprint()", "pass"),
    ("wrong number", STDIN, "print(3.5)", "wrong_answer"),
    ("extra line", STDIN, "print(3)\nprint(3)", "wrong_answer"),
    ("exit before output", STDIN, "import sys\nsys.exit(0)\nprint(3)", "wrong_answer"),
    ("crash after output", STDIN, "print(3)\nraise ValueError", "runtime_error"),
    ("List without import", FUNCTIONAL, "class Solution:\n    def rev(self, xs: List[int]) -> List[int]:\n"
                                        "        return xs[::-1]", "pass"),
    ("tuple for list", FUNCTIONAL, "class Solution:\n    def rev(self, xs):\n        return tuple(xs[::-1])", "pass"),
    ("top-level function", FUNCTIONAL, "def rev(xs):\n    return xs[::-1]", "pass"),
    ("functional wrong", FUNCTIONAL, "class Solution:\n    def rev(self, xs):\n        return xs", "wrong_answer"),
]


def test_code_grading_follows_the_livecodebench_harness():
    # regression: `if __name__ == "__main__"` programs, sys.stdin.buffer, open(0), sys.exit and
    # LeetCode's un-imported `List` were all graded wrong although LiveCodeBench passes them
    from utils.codegrade import grade_code
    from utils.sandbox import Sandbox

    with Sandbox() as sandbox:
        got = {name: grade_code(f"```python\n{code}\n```", gold, sandbox, timeout_s=5.0)[1]
               for name, gold, code, _ in HARNESS_CASES}
    assert got == {name: status for name, _, _, status in HARNESS_CASES}


def test_a_looping_program_costs_one_round_of_timeouts():
    # regression: every one of a problem's tests ran to its timeout, so a looping sample on a problem
    # with 100 private tests cost 100 timeouts / cores
    from utils.codegrade import grade_code
    from utils.sandbox import Sandbox

    gold = {"tests": [{"input": f"{i}\n", "output": f"{i}\n", "testtype": "stdin"} for i in range(30)],
            "func_name": None}
    with Sandbox() as sandbox:
        assert grade_code("```python\nprint(input())\n```", gold, sandbox, timeout_s=1.0) == (True, "pass")
        t0 = time.time()
        assert grade_code("```python\nwhile True:\n    pass\n```", gold, sandbox, timeout_s=1.0) == (False, "timeout")
        assert time.time() - t0 < 30 / 2 * 1.0 / 2


def test_bad_benchmark_files_fail_with_field_and_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question": "1+1", "answer": "2"}) + "\n")
    with pytest.raises(ValueError, match="'problem'.*bad.jsonl|bad.jsonl.*'problem'"):
        load_problems(BenchmarkConfig(name="b", kind="math", path=str(bad)))
    with pytest.raises(ValueError, match="unknown split|no nope-"):
        load_problems(BenchmarkConfig(name="b", kind="env", path=str(tmp_path), split="nope"))
    lcb = json.loads((DATA / "livecodebench.jsonl").read_text().splitlines()[1])  # functional tests
    for change, message in (({"private_test_cases": "eJzz!!not base64"}, "'private_test_cases' is neither"),
                            ({"metadata": "{}"}, "functional tests but no function name"),
                            ({"public_test_cases": '[{"input": "1"}]'}, "needs 'input' and 'output'"),
                            ({"public_test_cases": '[{"input": "[1,", "output": "1", "testtype": "functional"}]'},
                             "must be JSON")):
        bad.write_text(json.dumps({**lcb, **change}) + "\n")
        with pytest.raises(ValueError, match=f"row 0 of .*bad.jsonl.*{message}"):
            load_problems(BenchmarkConfig(name="b", kind="code", path=str(bad)))
    bad.write_text(json.dumps({"problem": "1+1", "answer": " "}) + "\n")
    with pytest.raises(ValueError, match="bad.jsonl.*empty field 'answer'"):
        load_problems(BenchmarkConfig(name="b", kind="math", path=str(bad)))
    r = run(["benchmarks=[{name: x, path: a.jsonl}]", "k=[1,64]", "n=32", "model=m"])
    assert r.returncode == 2 and "pass@64" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "test-0.jsonl").write_text(json.dumps(
        {"id": "x1", "env": "no_such_env", "difficulty": 1, "prompt": "p", "answer": None, "meta": {}}) + "\n")
    r = run([f"out_root={tmp_path}", "name=e", "engine.backend=replay", f"engine.replay_path={bad}",
             f"benchmarks=[{{name: e, kind: env, path: {tmp_path / 'envs'}}}]"])
    assert r.returncode == 2 and r.stderr.strip() == f"evaluate.py: config error: benchmarks.0.path (command line): " \
        f"benchmark e: unknown env(s) ['no_such_env'] in {tmp_path / 'envs'}" and not (tmp_path / "e").exists()
    r = run(["benchmarks=[{name: x, path: a.jsonl}]", "bootstrap=0", "model=m"])  # used to crash at the end
    assert r.returncode == 2 and "bootstrap" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_tiny_model_run_resume_and_compare(tmp_path):
    from utils.tiny import build_tiny

    model = build_tiny(tmp_path / "tiny")
    gen = subprocess.run([sys.executable, "generate.py", f"out={tmp_path / 'data'}",
                          "splits.test=[{env: pattern, count: 6, params: {width: 4, height: 4}}]"],
                         cwd=ROOT, capture_output=True, text=True)
    assert gen.returncode == 0, gen.stderr
    common = [f"out_root={tmp_path}", f"model={model}", "n=3", "k=[1,3]", "max_tokens=12", "batch_problems=1",
              "bootstrap=100", f"benchmarks=[{{name: puzzles, kind: env, path: {tmp_path / 'data'}}},"
                               f"{{name: math, kind: math, path: {DATA / 'math.jsonl'}, fields: {{id: unique_id}}}}]"]
    # an uninterrupted reference run
    ref = run(["name=ref", *common], timeout=600)
    assert ref.returncode == 0, ref.stderr
    # a run killed after its first batch, then resumed
    p = subprocess.Popen([sys.executable, "evaluate.py", "name=killed", *common], cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    samples = tmp_path / "killed" / "samples.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline and (not samples.exists() or samples.read_text().count("\n") < 3):
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    assert samples.read_text().count("\n") < 36, "the kill came too late to test resume"
    resumed = run(["name=killed", *common], timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    key = lambda s: (s["benchmark"], s["problem_id"], s["sample"])  # noqa: E731
    a = sorted((json.loads(line) for line in open(tmp_path / "ref" / "samples.jsonl")), key=key)
    b = sorted((json.loads(line) for line in open(samples)), key=key)
    assert [(key(s), s["response"], s["correct"]) for s in a] == [(key(s), s["response"], s["correct"]) for s in b]
    assert len(a) == (6 + 6) * 3
    cmp = run(["compare", str(tmp_path / "ref"), str(tmp_path / "killed")])
    assert cmp.returncode == 0, cmp.stderr
    report = json.loads((tmp_path / "compare-ref-killed" / "compare.json").read_text())
    counts = report["benchmarks"]["puzzles"]["killed"]["counts"]
    assert sum(counts.values()) == 6 and counts["only ref"] == counts["only killed"] == 0
    # the same settings into a run with another model are refused
    import shutil

    shutil.copytree(model, tmp_path / "tiny2")
    other = run(["name=ref", *[c for c in common if not c.startswith("model=")], f"model={tmp_path / 'tiny2'}"])
    assert other.returncode != 0 and "another model" in other.stderr


def test_docs_local_benchmark_example_reports_per_difficulty(tmp_path):
    # docs/evaluation.md's "your own benchmark": id, problem, answer and an optional difficulty, which
    # gives pass@k per difficulty besides `all` (math benchmarks used to ignore it)
    import re

    page = (ROOT / "docs" / "evaluation.md").read_text()
    rows = re.search(r"cat > mine.jsonl <<'X'\n(.*?)\nX\n", page, re.S).group(1)
    (tmp_path / "mine.jsonl").write_text(rows + "\n")
    (tmp_path / "replay.jsonl").write_text(json.dumps({"match": "2^{10}", "responses": ["\\boxed{1024}"]}) + "\n"
                                           + json.dumps({"match": "x^2 = 9", "responses": ["\\boxed{-3}"]}) + "\n")
    r = run([f"out_root={tmp_path}", "name=mine", "n=2", "k=[1,2]", "engine.backend=replay",
             f"engine.replay_path={tmp_path / 'replay.jsonl'}",
             f"benchmarks=[{{name: mine, kind: math, path: {tmp_path / 'mine.jsonl'}}}]"], timeout=600)
    assert r.returncode == 0, r.stderr
    splits = json.loads((tmp_path / "mine" / "results.json").read_text())["benchmarks"]["mine"]["splits"]
    assert {s: v["pass@1"]["mean"] for s, v in splits.items()} == {"all": 0.5, "easy": 1.0, "hard": 0.0}
