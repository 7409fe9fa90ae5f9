"""docs/reproduce/puzzle_to_math.md end to end on CPU: its command block is the reproduction script's,
every stage runs CPU-sized (tiny model, a few puzzles, fixture benchmarks), and every output file the
table names is written with the content its row points at. One pipeline run feeds every check."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from reproduce_helpers import ROOT, check_doc_stages, check_outputs, cpu_run

import reproduce_puzzle_to_math as p2m  # noqa: E402 (scripts/ is on sys.path once reproduce_helpers is imported)

DOC = ROOT / "docs" / "reproduce" / "puzzle_to_math.md"
TABLE = "## Every figure and table"
run = cpu_run(p2m)


def rows_of(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_doc_command_block_is_the_scripts():
    check_doc_stages(DOC, p2m, TABLE)


def test_every_output_in_the_table_exists(run):
    check_outputs(run, DOC, TABLE, 25)


def test_data_and_training_rows(run):
    manifest = json.loads((run / "runs/data/puzzles/manifest.json").read_text())
    assert set(manifest["splits"]) == {"test", "train_sft", "train_rl"} and manifest["test_splits"] == ["test"]
    assert manifest["shared"] == {}
    traces = [json.loads(line) for line in (run / "runs/data/sft_traces/train-00000.jsonl").read_text().splitlines()]
    assert traces and all(r["id"].split("-")[0] in ("undead", "bridges") and r["responses"] for r in traces)
    kept = sorted(p.name for p in (run / "runs/paper/gspo_vanilla/kept").iterdir())
    assert kept == ["step_00000001", "step_00000002"]
    nov = [json.loads(line) for line in (run / "runs/paper/gspo_novelty/metrics.jsonl").read_text().splitlines()]
    assert "novelty/signal_ratio_std" in nov[-1] and "novelty/bonus_max" in nov[-1]
    samples = [json.loads(line) for line in (run / "runs/paper/gspo_vanilla/samples.jsonl").read_text().splitlines()]
    assert {s["step"] for s in samples} == {1, 2} and {s["split"] for s in samples} == {"undead 3x3 normal"}


def test_evaluation_rows(run):
    cfg_names = {b["name"] for b in json.loads(json.dumps(__import__("yaml").safe_load(
        (ROOT / "configs/eval/puzzle_to_math.yaml").read_text())))["benchmarks"]}
    for ck in ("base", "sft", "vanilla", "novelty"):
        res = json.loads((run / f"runs/eval/{ck}/results.json").read_text())
        assert set(res["benchmarks"]) == cfg_names, ck
        assert res["groups"]["hmmt"]["problems"] == 12  # 4 sets x 3 fixture problems (123 on the hub)
        assert set(res["benchmarks"]["puzzles"]["splits"]) == {"all", "bridges 5x5 easy", "undead 4x4 easy"}
    compare = json.loads((run / "runs/eval/compare-vanilla-novelty/compare.json").read_text())
    assert set(compare["benchmarks"]["olymmath_en_hard"]["novelty"]["sets"]) == {"both", "only vanilla",
                                                                                 "only novelty", "neither"}
    teacher = json.loads((run / "runs/eval/dsr_teacher/results.json").read_text())
    assert teacher["benchmarks"]["puzzles"]["splits"]["all"]["pass@1"]["mean"] == 1.0  # replayed gold answers


def test_analysis_rows(run):
    a = run / "runs/analysis/p2m/analysis"
    stats = rows_of(a / "stats.csv")
    assert [r["checkpoint"] for r in stats if r["benchmark"] == "olymmath_en_hard" and r["outcome"] == "all"
            and r["subset"] == "all"] == ["base", "sft", "vanilla", "novelty"]
    assert {"puzzles | bridges 5x5 easy", "puzzles | undead 4x4 easy"} <= {r["benchmark"] for r in stats}
    assert {r["subset"] for r in rows_of(a / "recovery.csv")} >= {"all", "neither"}
    assert json.loads((a / "labeler.json").read_text())["span_tokens"].startswith("tokens of ")
    vocab = rows_of(run / "runs/analysis/sft_vocabulary/analysis/stats.csv")
    assert {r["checkpoint"] for r in vocab if r["benchmark"] == "puzzles"} == {"base", "dsr_teacher", "sft_traces", "sft"}
    steps = rows_of(run / "runs/analysis/vanilla_steps/analysis/primitives.csv")
    assert {r["checkpoint"] for r in steps} == {"1", "2"} and {r["benchmark"] for r in steps} >= {"undead"}
    ckpts = rows_of(run / "runs/analysis/vanilla_checkpoints/analysis/stats.csv")
    assert [r["checkpoint"] for r in ckpts if r["outcome"] == "all" and r["subset"] == "all"] == \
        ["vanilla_step_00000001", "vanilla_step_00000002"]
    signal = json.loads((run / "runs/paper/gspo_novelty/novelty_signal.json").read_text())
    assert signal["paper"].startswith("10-15x") and "std" in signal
