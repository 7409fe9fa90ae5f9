"""docs/reproduce/races.md end to end on CPU: its command block is the reproduction script's, every stage runs
CPU-sized (tiny model, replayed model-written bricks, two RL steps per run, one fixture problem per
benchmark), and every output file its table names is written. One pipeline run feeds every check."""
from __future__ import annotations

import json

import pytest

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


PAPER_CASES = [  # the three Appendix E problems as the summary describes them, beside look-alikes
    ("aime25", {"id": "grid", "problem": "Four unit squares form a $2 \\times 2$ grid. Each of the $12$ unit line "
                "segments is colored either red or blue such that each unit square has $2$ red sides and $2$ blue "
                "sides. Find the number of such colorings.", "answer": "82"}),
    ("aime25", {"id": "decoy_grid", "problem": "A $2 \\times 2$ grid of red and blue tiles ...", "answer": "16"}),
    ("aime25", {"id": "other", "problem": "Find $1+1$.", "answer": "2"}),
    ("enigmata", {"id": "list", "prompt": "Rule induction. Examples: [1, 1, 2] -> [1, 1]. Test: [3, 8, 66, 5, 66, 66]",
                  "answer": "[66, 66, 66]", "task_name": "list"}),
    ("enigmata", {"id": "decoy_list", "prompt": "Rule induction. Test: [66, 2, 66]", "answer": "[66, 66]",
                  "task_name": "list"}),
    ("enigmata", {"id": "sky", "prompt": "Sum Skycraper is a logic puzzle game ... Example: [7] [4] [5] [9] ... "
                  "The puzzle to be solved is:\n\n7 9 4 5\n7 9 4 5\n5 4 7 9\n5 4 7 9\n\nPlease provide the answer",
                  "answer": [[3, 2, 4, 1], [2, 4, 1, 3], [4, 1, 3, 2], [1, 3, 2, 4]], "task_name": "sum_skyscraper"}),
    ("enigmata", {"id": "decoy_sky", "prompt": "Sum Skycraper ... The puzzle to be solved is:\n\n7 9 4 5\n7 9 4 5\n"
                  "5 4 7 9\n5 4 7 8", "answer": [[1]], "task_name": "sum_skyscraper"}),
]


def paper_case_runs(tmp_path):
    """Three evaluate.py-like runs and an evaluation config over fixture copies of the paper's three problems
    and look-alikes; the look-alikes are where RL_RACES gains most, so the rule alone would pick them."""
    import yaml

    for bench in ("aime25", "enigmata"):
        (tmp_path / f"{bench}.jsonl").write_text("".join(json.dumps(r) + "\n" for b, r in PAPER_CASES if b == bench))
    cfg = tmp_path / "eval.yaml"
    cfg.write_text(yaml.safe_dump({"name": "cases", "benchmarks": [
        {"name": "aime25", "kind": "math", "path": str(tmp_path / "aime25.jsonl")},
        {"name": "enigmata", "kind": "answer", "path": str(tmp_path / "enigmata.jsonl"),
         "fields": {"id": "id", "problem": "prompt", "answer": "answer", "difficulty": "task_name"}}]}))
    runs = []
    for name, solved in (("base", 0), ("ind", 0), ("rac", 1)):
        rows = [{"benchmark": b, "problem_id": r["id"], "sample": j, "response": f"{name}-{r['id']}-{j}",
                 "correct": bool(solved) and (j < 2 or r["id"].startswith("decoy"))} for b, r in PAPER_CASES
                for j in range(4)]
        (tmp_path / name).mkdir()
        (tmp_path / name / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        runs.append(tmp_path / name)
    return runs, cfg


def test_paper_cases_are_pinned(tmp_path):
    """configs/analyze/races_cases.yaml selects exactly the three problems of races Appendix E, in its order,
    where the divergence rule would have picked the look-alikes."""
    import analyze
    from utils.config import load_or_raise

    runs, cfg = paper_case_runs(tmp_path)
    pins = load_or_raise(analyze.CasesConfig, ["--config", str(ROOT / "configs/analyze/races_cases.yaml")]).cases
    labels = ["Base", "RL_individual", "RL_RACES"]
    analyze.case_studies(runs, labels, tmp_path / "pinned", str(cfg), pins=pins)
    cases = [json.loads(line) for line in (tmp_path / "pinned/cases.jsonl").read_text().splitlines()]
    assert [(c["benchmark"], c["problem_id"]) for c in cases] == [("aime25", "grid"), ("enigmata", "list"),
                                                                  ("enigmata", "sky")]
    assert [c["case"][:3] for c in cases] == ["E.1", "E.2", "E.3"] and all(c["prompt"] for c in cases)
    analyze.case_studies(runs, labels, tmp_path / "rule", str(cfg), per_benchmark=1)
    rule = {json.loads(line)["problem_id"] for line in (tmp_path / "rule/cases.jsonl").read_text().splitlines()}
    assert rule <= {"decoy_grid", "decoy_list", "decoy_sky"}


def test_a_pin_matching_several_problems_stops(tmp_path, capsys):
    import analyze

    runs, cfg = paper_case_runs(tmp_path)
    pins = tmp_path / "pins.yaml"
    pins.write_text("cases:\n  - {name: any list, benchmark: enigmata, answer: '66'}\n")
    with pytest.raises(SystemExit) as e:
        analyze.main(["cases", *map(str, runs), "--config", str(cfg), "--cases", str(pins), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1
    assert "cases.0 (any list): matches 2 problems" in err and "decoy_list" in err and not (tmp_path / "o").exists()
    with pytest.raises(SystemExit) as e:
        analyze.main(["cases", *map(str, runs), "--cases", str(tmp_path / "none.yaml"), "--out", str(tmp_path / "o")])
    assert e.value.code == 2 and capsys.readouterr().err.strip().endswith("none.yaml: not a file")
