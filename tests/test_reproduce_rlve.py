"""docs/reproduce/rlve.md end to end on CPU: its command block is the reproduction script's, every stage runs
CPU-sized (tiny model, two held-out envs, one RL step per run), and every output file its tables name is
written. One pipeline run feeds every check."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reproduce" / "rlve.md"
sys.path.insert(0, str(ROOT / "scripts"))
import reproduce_lib  # noqa: E402
import reproduce_rlve as rlve  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("rlve")
    try:
        rlve.main(["--cpu", str(out)])
    finally:
        torch.set_num_threads(n)
    return out


def test_doc_command_block_is_the_scripts():
    assert reproduce_lib.doc_block(DOC) == reproduce_lib.commands(rlve.STAGES)
    stages = {s.id for s in rlve.STAGES}
    table = DOC.read_text().split("## Every experiment", 1)[1].split("## Choices", 1)[0]
    for row in table.splitlines():
        if row.startswith("| ") and not row.startswith("| experiment"):
            named = {s.strip() for s in row.split(" | ")[2].replace("...", ",").split(",") if s.strip()}
            assert named - {"every training run"} <= stages, row


def test_every_training_config_appears(run):
    text = DOC.read_text()
    for cfg in sorted((ROOT / "configs" / "paper").glob("rlve_*.yaml")):
        assert cfg.stem in text, cfg.name


def test_every_output_in_the_tables_exists(run):
    table = DOC.read_text().split("## Every experiment", 1)[1]
    paths = set(re.findall(r"`(runs/[^`\s]+)`", table))
    assert len(paths) >= 8
    missing = [p for p in sorted(paths) if not (run / p).exists()]
    assert not missing, missing


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
