"""`make demo-real`'s summary and published figures (scripts/demo_real.py): summary.md from the files
the stages write, and docs/demos.md quoting the last clean run's summary.md (docs/results/demo_real.md)
between `<!-- demo-real -->` markers, never typed by hand."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import demo_real  # noqa: E402
from utils.records import write_jsonl  # noqa: E402

SUMMARY = """# make demo-real: SmolLM2-135M-Instruct, base -> SFT -> RL

Run started then.

| benchmark | pass@1 |
|---|---|
| real | 0.5 |

- real all: RL better than SFT (+0.1 [+0.05, +0.15])

Figure: runs/real/sft_vs_rl.png (pass@k of SFT and RL per split).

SFT (16 steps): loss 1.0 -> 0.1

Time per step (this run; a step done by an earlier run costs nothing):

| step | CPU s | wall s |
|---|---:|---:|
| total | 1.0 | 2.0 |
"""


def test_docs_quote_the_published_run():
    p = subprocess.run([sys.executable, "scripts/demo_real.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    published = (ROOT / "docs/results/demo_real.md").read_text()
    assert "RL - SFT" in published and "Time per step" in published


def test_the_block_is_the_run_line_table_verdicts_and_timing():
    block = demo_real.page_block(SUMMARY)
    assert block.startswith("Run started then.") and "RL better than SFT" in block
    assert "Figure:" not in block and "SFT (16 steps)" not in block  # curves stay in the published file
    assert block.rstrip().endswith("| total | 1.0 | 2.0 |")


def test_check_fails_when_the_page_is_edited(tmp_path, monkeypatch):
    page = tmp_path / "demos.md"
    published = tmp_path / "demo_real.md"
    published.write_text(SUMMARY)
    page.write_text("intro\n<!-- demo-real -->\ntyped by hand: RL +0.9\n<!-- /demo-real -->\nend\n")
    monkeypatch.setattr(demo_real, "PAGE", page)
    monkeypatch.setattr(demo_real, "PUBLISHED", published)
    with pytest.raises(SystemExit, match="differs"):
        demo_real.publish(check=True)
    monkeypatch.setattr(demo_real, "OUT", tmp_path / "no-run")
    with pytest.raises(SystemExit, match="make demo-real"):
        demo_real.publish(check=False)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "summary.md").write_text(SUMMARY)
    monkeypatch.setattr(demo_real, "OUT", tmp_path / "run")
    demo_real.publish(check=False)  # the run's summary becomes the published file, its quote the block
    assert published.read_text() == SUMMARY
    assert page.read_text() == "intro\n<!-- demo-real -->\n" + demo_real.page_block(SUMMARY) + "<!-- /demo-real -->\nend\n"
    demo_real.publish(check=True)


def test_summary_of_three_models_with_novelty_primitives_and_the_run_line(tmp_path):
    """runs/real/summary.md from the files the stages write: when and at which commit the run began
    (the data stage's run_info.json), each model against the one before it on held-out pass@1 with a
    paired interval, the novelty bonus' statistics and the share of each primitive label per model."""
    out = tmp_path / "real"
    correct = {"base": [0, 0, 0, 0], "SFT": [2, 3, 2, 3], "RL": [6, 7, 6, 7]}  # of 8 samples, 4 problems
    evals = []
    for name, cs in correct.items():
        d = out / f"eval_{name.lower()}"
        d.mkdir(parents=True)
        d.joinpath("per_problem.csv").write_text("benchmark,problem_id,split,n,c\n" + "".join(
            f"real,p{i},sorting d=0,8,{c}\n" for i, c in enumerate(cs)))
        mean = sum(cs) / 32
        d.joinpath("results.json").write_text(json.dumps({"benchmarks": {"real": {"splits": {
            "sorting d=0": {"pass@1": {"mean": mean, "ci95": [mean, mean]}}}}}}))
        evals.append((name, d))
    (out / "data").mkdir()
    (out / "data/run_info.json").write_text(json.dumps({"time": "2026-12-03T01:32:49+0000",
                                                        "git_commit": "b532f42658881-dirty"}))
    sft, rl = out / "sft", out / "gspo"
    sft.mkdir(), rl.mkdir()
    write_jsonl(sft / "metrics.jsonl", [{"step": 1, "loss": 1.2}, {"step": 2, "loss": 0.1}])
    bonus = [(1, 0.0), (2, 0.02), (3, 0.01), (4, 0.03)]
    write_jsonl(rl / "metrics.jsonl", [{"step": s, "reward_mean": 0.3, "accuracy": 0.3, "novelty/bonus_mean": b,
                                        "novelty/bonus_max": 2 * b} for s, b in bonus])
    (out / "analysis").mkdir()
    rows = [("base", "other", 0.75), ("base", "compute", 0.25), ("sft", "compute", 1.0), ("rl", "compute", 1.0)]
    (out / "analysis/primitives.csv").write_text("benchmark,checkpoint,outcome,subset,label,share\n" + "".join(
        f"real,{m},all,all,{label},{share}\n" for m, label, share in rows) + "real | x,rl,all,all,other,0.9\n")
    text = demo_real.summary(evals, sft, rl, out / "analysis", out / "summary.md", [("train.py x", 2.0, 1.0)])
    assert text == (out / "summary.md").read_text()
    assert "Run started 2026-12-03T01:32:49+0000 at commit b532f42658 with uncommitted changes on " in text
    assert "- real sorting d=0: SFT better than base (+0.312 [+0.25, +0.38])" in text, text
    assert "- real sorting d=0: RL better than SFT (+0.500 [+0.50, +0.50])" in text
    assert "SFT (2 steps; " in text and "loss 1.200 -> 0.100" in text
    assert "- novelty/bonus_mean: 0.0150 [0.0000, 0.0300] over 4 steps" in text
    assert "| other | 0.750 | 0.000 | 0.000 |" in text and "| compute | 0.250 | 1.000 | 1.000 |" in text
    assert "| total | 2.0 | 1.0 |" in text
