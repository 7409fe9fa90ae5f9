"""docs/reproduce/rlve.md end to end on CPU: its command block is the reproduction script's, every stage runs
CPU-sized (tiny model, two held-out envs, one RL step per run), and every output file its tables name is
written. One pipeline run feeds every check."""
from __future__ import annotations

import json

from reproduce_helpers import ROOT, check_doc_stages, check_outputs, cpu_run

import reproduce_rlve as rlve  # noqa: E402 (scripts/ is on sys.path once reproduce_helpers is imported)

DOC = ROOT / "docs" / "reproduce" / "rlve.md"
TABLE = "## Every experiment"
run = cpu_run(rlve)


def test_doc_command_block_is_the_scripts():
    check_doc_stages(DOC, rlve, TABLE, also=("every training run",))


def test_every_training_config_appears(run):
    text = DOC.read_text()
    for cfg in sorted((ROOT / "configs" / "paper").glob("rlve_*.yaml")):
        assert cfg.stem in text, cfg.name


def test_every_output_in_the_tables_exists(run):
    check_outputs(run, DOC, TABLE, 8)


def test_runs_and_evaluations(run):
    for name in rlve.RUNS:
        metrics = [json.loads(line) for line in (run / "runs/paper" / name / "metrics.jsonl").read_text().splitlines()]
        assert [m["step"] for m in metrics] == [1], name
        res = json.loads((run / "runs/eval" / name / "results.json").read_text())
        assert res["benchmarks"]["rlve_held_out"]["problems"] == 6, name
    adaptive = json.loads((run / "runs/paper/rlve_adaptive/metrics.jsonl").read_text().splitlines()[-1])
    assert any(k.startswith("difficulty/") for k in adaptive)
    summary = (run / "runs/figures/rlve_summary.md").read_text()
    assert "rlve_prorl_continued" in summary and "Environment count" in summary
