"""`make study-p2m` (scripts/study_p2m.py): the verdict rule on intervals, the claims it judges on
constructed evaluations, every stage run end to end on the tiny model (--smoke), and docs/studies.md's
block quoting the published summary."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import study_p2m  # noqa: E402

VERDICTS = ("reproduced", "not reproduced", "inconclusive")


def test_the_verdict_rule_on_intervals_either_side_and_across_zero():
    v = study_p2m.verdict
    assert v(0.02, 0.10, +1) == "reproduced"          # above 0, an increase claimed
    assert v(-0.10, -0.02, +1) == "not reproduced"    # below 0 against an increase
    assert v(-0.05, 0.10, +1) == "inconclusive"       # straddles 0
    assert v(-0.10, -0.02, -1) == "reproduced"        # a decrease claimed (suppression)
    assert v(0.02, 0.10, -1) == "not reproduced"
    assert v(0.0, 0.10, +1) == "inconclusive"         # touching 0 does not exclude it
    assert v(None, None, +1) == "inconclusive"        # nothing measured
    c = study_p2m.combined
    assert c(["reproduced", "reproduced"]) == "reproduced"
    assert c(["reproduced", "inconclusive"]) == "inconclusive"
    assert c(["reproduced", "not reproduced", "inconclusive"]) == "not reproduced"
    assert c([]) == "inconclusive"


def constructed():
    """12 held-out problems, 16 samples each, 6 at the training size and 6 larger. Training size:
    vanilla solves 2 (2 of 16 each), novelty all 6 (10 of 16): 4 are unique to novelty. Larger: vanilla
    2 of 16 against SFT's 4 everywhere. SFT's traces hold two hypothesize-backtrack motifs each,
    vanilla's none (deeper compute-check chains); novelty's hold one in half its traces on the
    problems only it solves, solved and failed alike, none elsewhere."""
    train = [f"t{i}" for i in range(6)]
    larger = [f"l{i}" for i in range(6)]
    size = {**{p: "training size" for p in train}, **{p: "larger size" for p in larger}}
    nc = {"base": {p: (16, 0) for p in size}, "sft": {p: (16, 4) for p in size},
          "vanilla": {**{p: (16, 2 if p in train[:2] else 0) for p in train}, **{p: (16, 2) for p in larger}},
          "novelty": {**{p: (16, 10) for p in train}, **{p: (16, 6) for p in larger}}}
    unique = set(train[2:])
    recovery = ["hypothesize", "compute", "backtrack"]
    direct = ["setup", "compute", "check", "compute", "check"]

    def trace(labels, correct):
        return {"hypothesize": labels.count("hypothesize"), "backtrack": labels.count("backtrack"),
                "check": labels.count("check"), "chain_depth": 4 if "check" in labels else 1,
                "recovery": float("backtrack" in labels), "correct": correct}

    traces = {"sft": {p: [trace(recovery + recovery, True)] * 4 for p in size},
              "vanilla": {p: [trace(direct, True)] * 4 for p in size},
              "novelty": {p: [trace(recovery if p in unique and j % 2 == 0 else direct, j < 2) for j in range(4)]
                          for p in size}}
    # vanilla's training rollouts: SFT's recovery at the first of 4 steps, direct execution at the last
    steps = {str(s): {p: [trace(recovery if s == 1 else direct, True)] * 2 for p in train} for s in range(1, 5)}
    return nc, size, traces, steps


def test_claims_on_a_constructed_case_follow_the_rule():
    nc, size, traces, steps = constructed()
    rows = {r["claim"]: r for r in study_p2m.claims(nc, size, traces, steps)}
    got = {claim: r["verdict"] for claim, r in rows.items()}
    assert got == {
        "vanilla GSPO suppresses hypothesize": "reproduced",  # 2 -> 0 per trace
        "vanilla GSPO suppresses backtrack": "reproduced",
        "vanilla GSPO suppresses hypothesize and backtrack during training": "reproduced",  # 1 -> 0 per rollout
        "vanilla GSPO lengthens compute-check chains": "reproduced",  # depth 1 -> 4
        "the novelty bonus restores hypothesize": "reproduced",  # 0 -> 0.5 on 4 of the 6 problems
        "the novelty bonus restores backtrack": "reproduced",
        "novelty gains pass@k at large k over vanilla": "reproduced",  # pass@16: 1 against 0 on 4 of 6
        "problems only the novelty run solves are enriched in recovery motifs": "reproduced",  # 0.5 against 0
        "on those problems, recovery motifs are enriched in solved traces": "inconclusive",  # 0.5 against 0.5
        "both RL runs raise pass@k over SFT on larger grids": "not reproduced",  # vanilla below SFT at k = 1
    }, got
    assert "unique-to-novelty (4) - shared (8)" in rows["problems only the novelty run solves are enriched in "
                                                       "recovery motifs"]["measure"]
    assert rows["vanilla GSPO suppresses hypothesize"]["result"] == "-2.000 [-2.000, -2.000]"


def test_smoke_runs_every_stage_and_the_summary_judges_every_claim(tmp_path):
    p = subprocess.run([sys.executable, "scripts/study_p2m.py", "--smoke", "--out", str(tmp_path)], cwd=ROOT,
                       capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert p.returncode == 0, p.stderr[-3000:]
    out = tmp_path / "study_p2m"
    text = (out / "summary.md").read_text()
    assert "Rule: " + study_p2m.RULE in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and line.endswith("** |")]
    claims = [r.split(" | ")[0][2:] for r in rows]
    assert claims == [r["claim"] for r in study_p2m.claims(*constructed())]  # every claim, in order
    for row in rows:
        assert re.search(r"\*\*(reproduced|not reproduced|inconclusive)\*\* \|$", row), row
    for stage in ("eval_base", "eval_sft", "eval_vanilla", "eval_novelty"):
        assert (out / stage / "per_problem.csv").is_file()
    assert (out / "analysis/traces.csv").is_file() and (out / "passk_training.png").is_file()
    assert "| training size | 2 | 16 |" in text and "| larger size | 2 | 16 |" in text  # pass@16 per size class
    assert "## Training: novelty" in text and "share of correct rollouts with a non-zero bonus" in text
    assert text.count("| train.py configs/study/") == 3 and "| total |" in text


def test_docs_block_and_publish(tmp_path, monkeypatch):
    p = subprocess.run([sys.executable, "scripts/study_p2m.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    page, published = tmp_path / "studies.md", tmp_path / "study_p2m.md"
    page.write_text("intro\n<!-- study-p2m -->\ntyped by hand\n<!-- /study-p2m -->\n")
    monkeypatch.setattr(study_p2m, "PAGE", page)
    monkeypatch.setattr(study_p2m, "PUBLISHED", published)
    nav = tmp_path / "mkdocs.yml"
    nav.write_text('nav:\n      - "make demo-real": results/demo_real.md\n')
    monkeypatch.setattr(study_p2m, "NAV", nav)
    with pytest.raises(SystemExit, match="unpublished note"):
        study_p2m.publish(check=True)
    with pytest.raises(SystemExit, match="make study-p2m"):
        study_p2m.publish(check=False, out=tmp_path / "no-run")
    (tmp_path / "run").mkdir()
    summary = "# title\n\nRun started then.\n\n## The paper's claims\n\n| c | **reproduced** |\n\n## Held-out pass@k\n\nx\n"
    (tmp_path / "run/summary.md").write_text(summary)
    study_p2m.publish(check=False, out=tmp_path / "run")
    assert published.read_text() == summary
    assert nav.read_text().endswith('results/demo_real.md\n      - "make study-p2m": results/study_p2m.md\n')
    assert page.read_text() == ("intro\n<!-- study-p2m -->\nRun started then.\n\n## The paper's claims\n\n"
                                "| c | **reproduced** |\n<!-- /study-p2m -->\n")
    study_p2m.publish(check=True)
    page.write_text(page.read_text().replace("**reproduced**", "**not reproduced**"))
    with pytest.raises(SystemExit, match="differs"):
        study_p2m.publish(check=True)


def test_the_teachers_labels_are_read_beside_the_classifiers(tmp_path):
    """The teacher's per-step labels (one list per response; plain labels or {label, text} steps) give a
    second count per trace; rows without them say there are none."""
    from utils.records import write_jsonl

    write_jsonl(tmp_path / "train-00000.jsonl", [
        {"id": "a", "responses": ["r1", "r2"], study_p2m.TEACHER_LABELS: [
            ["plan", "hypothesize", "compute", "backtrack"], [{"label": "check", "text": "x"}]]}])
    ours = {"teacher": {"a": [{"hypothesize": 0, "backtrack": 0, "check": 1, "recovery": 0.0}] * 2}}
    lines = "\n".join(study_p2m.teacher_section(tmp_path, ours))
    assert "| hypothesize | 0.50 | 0.00 |" in lines and "| check | 0.50 | 1.00 |" in lines
    assert "| recovery motif share | 0.500 | 0.000 |" in lines and "(2 labelled traces" in lines
    write_jsonl(tmp_path / "train-00000.jsonl", [{"id": "a", "responses": ["r1"]}])
    assert "none: the teacher's rows carry no per-step labels" in "\n".join(study_p2m.teacher_section(tmp_path, ours))
