"""docs/reproduce/rlve.md end to end on CPU: its command block is the reproduction script's, every stage runs
CPU-sized (tiny model, two held-out envs, one RL step per run), and every output file its tables name is
written. One pipeline run feeds every check."""
from __future__ import annotations

import json

import pytest
from reproduce_helpers import ROOT, check_doc_stages, check_outputs, cpu_run

import reproduce_lib  # noqa: E402 (scripts/ is on sys.path once reproduce_helpers is imported)
import reproduce_rlve as rlve  # noqa: E402

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
    assert "| rlve_envs_400 (trained on the held-out envs) |" in summary and "| rlve_envs_256 |" in summary
    # the figure's x: the envs each run trained on (on CPU the 256- and 400-env runs draw 24 and 74)
    assert "Environment count -> held-out pass@1: 1: " in summary and ", 24: " in summary and ", 74: " in summary


def stand_in_registry(monkeypatch, n: int) -> None:
    """The gym family as n names: the 50 held out and stand-ins (the real registry's size may change)."""
    import envs.gym
    import train
    from utils.config import load_or_raise

    held_out = load_or_raise(train.TrainConfig, ["--config", str(ROOT / "configs/paper/rlve_adaptive.yaml")],
                             validate=False).data.pool.exclude
    monkeypatch.setattr(envs.gym, "GYM", list(held_out) + [f"stand_in_{i:03d}" for i in range(n - len(held_out))])


def test_sweep_stops_with_one_line_when_the_registry_is_short(monkeypatch, capsys):
    stand_in_registry(monkeypatch, 300)  # 250 training envs: the 256 run needs 306
    with pytest.raises(SystemExit) as e:
        rlve.main(["--sweep"])
    assert e.value.code == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err == ("reproduce_rlve.py --sweep: configs/paper/rlve_envs_256.yaml needs 306 gym envs "
                                         "(256 to train + 50 held out); the registry has 300 (python -m envs.gym "
                                         "lists them)\n")
    stand_in_registry(monkeypatch, 399)
    with pytest.raises(SystemExit):
        rlve.main(["--sweep"])
    assert "rlve_envs_400.yaml needs 400 gym envs (400 to train, none held out); the registry has 399" in \
        capsys.readouterr().err


def test_sweep_prints_its_stages_once_the_registry_holds_400(monkeypatch, capsys):
    stand_in_registry(monkeypatch, 400)
    rlve.main(["--sweep"])
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in reproduce_lib.commands(rlve.STAGES) if line in lines] == lines
    assert [f"configs/paper/rlve_envs_{n}.yaml" in " ".join(lines) for n in (1, 4, 16, 256, 400)] == [True] * 5
    assert "rlve_adaptive.yaml" not in " ".join(lines) and lines[-1] == "python scripts/reproduce_rlve.py --summary"
