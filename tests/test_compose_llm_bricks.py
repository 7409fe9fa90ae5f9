"""generate.py mode=bricks on the replay backend: recorded answers, some good and some failing each
filter (static self-consistency, the sandboxed run, multi-sample output consistency); the accepted
bricks load into the pool and run only in the sandbox."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import envs
import generate
from envs.compose.brick import Counter
from envs.compose.llm_bricks import BrickSpec, load_bricks, static_problem
from utils.records import load_records

ROOT = Path(__file__).resolve().parents[1]
CONFIG = str(ROOT / "configs" / "generate" / "bricks.yaml")

GOOD = '''NAME = "count_odd"
INPUT = "list[int]"
OUTPUT = "int"
TEXT = "Count the odd numbers."


def sample(rng):
    return [rng.randint(0, 9) for _ in range(5)]


def apply(x, tick):
    tick(len(x))
    return sum(v % 2 for v in x)
'''
SPEC = BrickSpec("count_odd", "list[int]", "int", "Count the odd numbers.")


@pytest.fixture(scope="module")
def bricks_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("bricks")
    generate.main(["--config", CONFIG, f"out={out}"])
    return out


def test_static_self_consistency():
    assert static_problem(GOOD, SPEC) == ""
    for change, reason in ((("import math", "import os"), "imports os"),
                           (("tick(len(x))", "pass"), "never calls tick"),
                           (('NAME = "count_odd"', 'NAME = "count_even"'), "NAME is 'count_even'"),
                           (('OUTPUT = "int"', 'OUTPUT = "list[int]"'), "OUTPUT is 'list[int]'"),
                           (("return sum(", "return getattr(x, 'count')(1) + sum("), "uses getattr"),
                           (("return sum(", "return rng.random() + sum("), "randomness"),
                           (("def sample(rng):", "def sample():"), "sample must take"),
                           (("return sum(", "return _call + sum("), "harness")):
        code = ("import math\n" + GOOD).replace(*change)
        assert reason in static_problem(code, SPEC), (change, static_problem(code, SPEC))
    assert "does not parse" in static_problem("def apply(:", SPEC)


def test_the_filters_keep_and_refuse_the_recorded_candidates(bricks_dir, capsys):
    summary = json.loads((bricks_dir / "summary.json").read_text())
    assert summary["accepted"] == ["count_peaks", "digit_product"]
    report = {r["spec"]["name"]: r for r in map(json.loads, (bricks_dir / "report.jsonl").read_text().splitlines())}
    reasons = {name: [c["reason"] for c in r["candidates"]] for name, r in report.items()}
    assert reasons["count_peaks"][2].startswith("run: returned") and reasons["count_peaks"][0] == ""
    assert [r.split(":")[0] for r in reasons["second_largest_distinct"]] == ["static"] * 4
    assert all(r.startswith("consistency") for r in reasons["median_value"])  # four conventions, no two agree
    assert "Appendix D" in reasons["digit_product"][1] and "raises ZeroDivisionError" in reasons["digit_product"][3]
    manifest = json.loads((bricks_dir / "manifest.json").read_text())["bricks"]
    assert [(b["name"], b["agreeing"]) for b in manifest] == [("count_peaks", 3), ("digit_product", 2)]


def test_loaded_bricks_run_in_the_sandbox_and_count_steps(bricks_dir, tmp_path):
    peaks, product = load_bricks(str(bricks_dir))
    c = Counter(400, 5.0)
    assert peaks.fn([3, 1, 2], c) == 2 and c.steps == 3
    assert product.fn(205, Counter(400, 5.0)) == 10
    from envs.compose.brick import StepLimit

    with pytest.raises(StepLimit):
        product.fn(205, Counter(401, 5.0, steps=399))  # 3 more steps than the budget left
    import random

    assert type(peaks.sample(random.Random(0))) is list
    # a brick's code never runs in this process
    spy = tmp_path / "spy"
    (spy / "bricks").mkdir(parents=True)
    code = GOOD.replace("return sum(v % 2 for v in x)", "import os\n    return os.getpid()")
    (spy / "bricks" / "count_odd.py").write_text(code)
    entry = {"name": "count_odd", "input": "list[int]", "output": "int", "text": "t", "file": "bricks/count_odd.py",
             "sha256": hashlib.sha256(code.encode()).hexdigest()}
    (spy / "manifest.json").write_text(json.dumps({"bricks": [entry]}))
    (brick,) = load_bricks(str(spy))
    assert brick.fn([1], Counter(400, 5.0)) != os.getpid()
    (spy / "bricks" / "count_odd.py").write_text(code + "\n# edited\n")
    with pytest.raises(ValueError, match="changed since it was checked"):
        load_bricks(str(spy))


def test_races_pool_loads_them(bricks_dir, tmp_path):
    out = tmp_path / "races"
    generate.main(["--config", str(ROOT / "configs/generate/races.yaml"), f"out={out}", "races.pool=core50",
                   f"races.brick_dirs=[{bricks_dir}]", "races.count=60"])
    records = load_records(out)
    loaded = [r for r in records if {"count_peaks", "digit_product"} & set(json.dumps(r["meta"]["steps"]).split('"'))]
    assert loaded, "no record uses a loaded brick"
    env = envs.make("races", pool="core50", brick_dirs=[str(bricks_dir)])
    for r in loaded:
        assert envs.score(r, r["answer"], env=env).correct
        assert "count_peaks" not in r["prompt"] or "larger than each neighbour" in r["prompt"]


def test_bad_bricks_configs_fail_at_once(tmp_path):
    for override, key in (("bricks.specs=[{name: digits, input: int, output: int, task: x}]", "bricks.specs.0.name"),
                          ("bricks.specs=[{name: new_one, input: intt, output: int, task: x}]", "bricks.specs.0.input"),
                          ("bricks.min_agree=9", "bricks.min_agree")):
        p = subprocess.run([sys.executable, "generate.py", "--config", CONFIG, f"out={tmp_path}", override],
                           cwd=ROOT, capture_output=True, text=True)
        assert p.returncode == 2 and key in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    p = subprocess.run([sys.executable, "generate.py", "--config", str(ROOT / "configs/generate/races.yaml"),
                        f"out={tmp_path}", f"races.brick_dirs=[{tmp_path}]"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 2 and "races.brick_dirs.0" in p.stderr, p.stderr
