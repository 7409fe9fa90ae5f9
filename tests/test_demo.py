"""scripts/demo.py's summary: the training accuracy per difficulty (the mean over a step falls when
the adaptive controller adds a harder difficulty, whatever the policy learned) and what was trained;
and its published copy (docs/results/demo.md), which docs/demos.md quotes."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from utils.records import write_jsonl

ROOT = Path(__file__).resolve().parents[1]


def load_demo():
    spec = importlib.util.spec_from_file_location("demo", ROOT / "scripts" / "demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    return demo


def test_training_accuracy_is_per_difficulty_over_its_own_first_and_last_steps(tmp_path):
    demo = load_demo()
    rows = []
    for step in range(1, 11):  # d=0 every step, right 2 then 6 of 8; d=2 from step 5 on, never right
        rows += [{"step": step, "split": "sorting d=0", "correct": i < (2 if step <= 2 else 6)} for i in range(8)]
        if step >= 5:
            rows += [{"step": step, "split": "sorting d=2", "correct": False} for _ in range(8)]
        if step == 10:
            rows += [{"step": step, "split": "sorting d=4", "correct": True}]  # one step: left out
    write_jsonl(tmp_path / "samples.jsonl", rows)
    acc = demo.training_accuracy(tmp_path / "samples.jsonl", k=2)
    assert acc == {"sorting d=0": (0.25, 0.75, 16, 16), "sorting d=2": (0.0, 0.0, 16, 16)}
    assert demo.training_accuracy(tmp_path / "none.jsonl", k=2) == {}


def test_summary_reports_accuracy_per_difficulty_entropy_and_the_trained_parameters(tmp_path):
    demo = load_demo()
    for name in ("sft", "rl"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "per_problem.csv").write_text("benchmark,problem_id,split,n,c\nsorting,p0,sorting d=0,8,4\n")
        (tmp_path / name / "results.json").write_text(json.dumps({"benchmarks": {"sorting": {"splits": {
            "sorting d=0": {"pass@1": {"mean": 0.5, "ci95": [0.4, 0.6]}}}}}}))
    run = tmp_path / "run"
    run.mkdir()
    write_jsonl(run / "metrics.jsonl", [{"step": s, "reward_mean": 0.5, "accuracy": 0.5 - s / 100,
                                         "entropy": None if s == 1 else 0.2 - s / 100, "difficulty/sorting": s // 4}
                                        for s in range(1, 9)])
    write_jsonl(run / "samples.jsonl", [{"step": s, "split": "sorting d=0", "correct": s > 4} for s in range(1, 9)])
    (run / "config.yaml").write_text("optim:\n  lr: 0.05\n  trainable: [norm]\n")
    text = demo.summary(tmp_path / "sft", tmp_path / "rl", run, tmp_path / "summary.md")
    assert "- accuracy: 0.485 -> 0.425" in text, text
    assert "- entropy: 0.180 -> 0.125" in text  # step 1's None (no row trained) is left out
    assert "- accuracy at sorting d=0 (rollouts of the first and last 2 steps that drew it: 2 and 2): 0.000 -> 1.000" \
        in text
    assert "- trained parameters: only those whose name matches ['norm'] (optim.trainable)" in text


def test_training_curves_show_the_entropy(tmp_path):
    # the demo's RL gains come from sharpening the policy: curves.png must show the entropy fall
    from utils.plots import training_curves

    rows = [{"step": s, "reward_mean": 0.4, "accuracy": 0.4, "entropy": 0.16 - s / 100} for s in range(1, 6)]
    fig = training_curves(rows, tmp_path / "c.png")
    panel = next(ax for ax in fig.axes if ax.get_title().startswith("entropy"))
    assert [round(y, 2) for y in panel.get_lines()[0].get_ydata()] == [0.15, 0.14, 0.13, 0.12, 0.11]


def test_training_accuracy_figure_draws_one_curve_per_difficulty(tmp_path):
    demo = load_demo()
    rows = [{"step": s, "split": f"sorting d={d}", "correct": (s + i) % 3 == 0}
            for s in range(1, 9) for d in (0, 2) for i in range(4) if d == 0 or s > 4]
    write_jsonl(tmp_path / "samples.jsonl", rows)
    out = tmp_path / "fig" / "rl_accuracy.png"
    assert demo.training_accuracy_figure(tmp_path / "samples.jsonl", out, k=2) == ["sorting d=0", "sorting d=2"]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert demo.training_accuracy_figure(tmp_path / "none.jsonl", tmp_path / "none.png") == []
    assert not (tmp_path / "none.png").exists()


def test_docs_quote_the_published_demo_run():
    """docs/demos.md's demo block is docs/results/demo.md, the summary of a real run of `make demo`
    (`python scripts/demo.py --publish`): its figures are never typed by hand."""
    p = subprocess.run([sys.executable, "scripts/demo.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    published = (ROOT / "docs/results/demo.md").read_text()
    assert published.startswith("# make demo") and "RL - SFT" in published and "Time per step" in published


def test_publish_adds_the_run_line_and_check_sees_an_edited_page(tmp_path, monkeypatch):
    demo = load_demo()
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))  # bench.machine, as when the script runs
    out = tmp_path / "demo"
    (out / "data").mkdir(parents=True)
    (out / "summary.md").write_text("# make demo: SFT, then RL\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    (out / "data" / "run_info.json").write_text(json.dumps({"git_commit": "0123456789abcdef-dirty", "time": "T0"}))
    text = demo.published_summary(out)
    assert text.startswith("# make demo: SFT, then RL\n\nRun started T0 at commit 0123456789 with uncommitted changes")
    assert text.endswith("| 1 | 2 |\n")
    page, published = tmp_path / "demos.md", tmp_path / "results" / "demo.md"
    page.write_text("intro\n<!-- demo -->\ntyped by hand\n<!-- /demo -->\nend\n")
    demo.publish(text, published, page, "demo", demo.page_block, "`make demo`")
    assert published.read_text() == text
    assert page.read_text() == "intro\n<!-- demo -->\n" + text.split("\n", 1)[1].strip() + "\n<!-- /demo -->\nend\n"
    demo.publish(None, published, page, "demo", demo.page_block, "`make demo`")  # unchanged: passes
    page.write_text(page.read_text().replace("| 1 | 2 |", "| 1 | 3 |"))
    with pytest.raises(SystemExit, match="demos.md's demo block differs"):
        demo.publish(None, published, page, "demo", demo.page_block, "`make demo`")
    with pytest.raises(SystemExit, match="make demo"):
        demo.published_summary(tmp_path / "no-run")
