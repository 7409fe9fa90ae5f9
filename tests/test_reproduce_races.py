"""docs/reproduce/races.md end to end on CPU: its command block is the reproduction script's, every stage runs
CPU-sized (tiny model, replayed model-written bricks, two RL steps per run, one fixture problem per
benchmark), and every output file its table names is written. One pipeline run feeds every check."""
from __future__ import annotations

import json

from reproduce_helpers import ROOT, check_doc_stages, check_outputs, cpu_run

import reproduce_races as races  # noqa: E402 (scripts/ is on sys.path once reproduce_helpers is imported)

DOC = ROOT / "docs" / "reproduce" / "races.md"
TABLE = "## Every run and figure"
run = cpu_run(races)


def test_doc_command_block_is_the_scripts():
    check_doc_stages(DOC, races, TABLE)
    stages = {s.id for s in races.STAGES}
    text = DOC.read_text()
    for cfg in sorted((ROOT / "configs" / "paper").glob("races_*.yaml")):
        assert f"configs/paper/{cfg.name}" in text or cfg.stem.removeprefix("races_") in stages, cfg.name


def test_every_output_in_the_table_exists(run):
    check_outputs(run, DOC, TABLE, 15)


def test_runs_evaluations_and_figures(run):
    for name in races.RUNS:
        kept = sorted(p.name for p in (run / "runs/paper" / name / "kept").iterdir())
        assert kept == ["step_00000001", "step_00000002"], name
        res = json.loads((run / "runs/eval" / name / "results.json").read_text())
        assert set(res["benchmarks"]) == {"aime24", "aime25", "lcb", "enigmata", "ifeval", "longbench_v2"}, name
    samples = [json.loads(line) for line in (run / "runs/paper/races_300/samples.jsonl").read_text().splitlines()]
    assert samples and all(s["env"] == "races" for s in samples)
    manifest = json.loads((run / "runs/data/races_bricks/manifest.json").read_text())
    assert len(manifest["bricks"]) == 4  # the pool's four model-written bricks, all kept
    dynamics = (run / "runs/figures/races_dynamics.csv").read_text().splitlines()
    assert dynamics[0] == "run,step,benchmark_average" and len(dynamics) == 5  # 2 runs x 2 kept steps
    summary = (run / "runs/figures/races_summary.md").read_text()
    assert "RL_RACES (300)" in summary and "51.3 (line 18)" in summary


def test_case_studies(run):
    cases = [json.loads(line) for line in (run / "runs/analysis/races_cases/cases.jsonl").read_text().splitlines()]
    assert {c["benchmark"] for c in cases} == {"aime25", "enigmata"}
    for c in cases:
        assert set(c["responses"]) == {"Base", "RL_individual", "RL_RACES"} and c["prompt"]
    md = (run / "runs/analysis/races_cases/cases.md").read_text()
    assert "**RL_RACES**" in md and "solve rate: Base" in md


def test_case_selection_rule(tmp_path):
    """The problem where the last run gains most over the best other is first; a solved response is shown for
    the last run, a failed one for the others."""
    import analyze

    def write(name, rows):
        d = tmp_path / name
        d.mkdir()
        (d / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        return d

    def rows(pid_rates):
        return [{"benchmark": "b", "problem_id": pid, "sample": j, "correct": j < k, "response": f"{pid}-{j}"}
                for pid, k in pid_rates for j in range(4)]

    base = write("base", rows([("p1", 0), ("p2", 2), ("p3", 4)]))
    ind = write("ind", rows([("p1", 1), ("p2", 0), ("p3", 4)]))
    rac = write("rac", rows([("p1", 4), ("p2", 3), ("p3", 4)]))
    r = analyze.case_studies([base, ind, rac], ["Base", "Ind", "RACES"], tmp_path / "out", per_benchmark=2)
    assert r["cases"] == 2
    cases = [json.loads(line) for line in (tmp_path / "out/cases.jsonl").read_text().splitlines()]
    assert [c["problem_id"] for c in cases] == ["p1", "p2"]  # +0.75, then +0.25; p3 (no gap) last
    assert cases[0]["responses"]["RACES"]["correct"] and not cases[0]["responses"]["Ind"]["correct"]
    assert cases[0]["solve_rate"] == {"Base": 0.0, "Ind": 0.25, "RACES": 1.0}
