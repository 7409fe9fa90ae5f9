"""The RACES paper runs (configs/paper/races_*.yaml): their settings, and each trains on CPU at the
tiny model's size (the smoke variant's overrides), so a typo in a paper config fails here. The
model-written bricks of the races300 pool come from configs/paper/races_bricks.yaml on replayed answers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import envs
from utils.config import load_or_raise

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "configs" / "paper"
SIZES = range(2, 7)
REPLAY = ROOT / "tests" / "data" / "races_bricks.jsonl"


@pytest.fixture(scope="module")
def bricks(tmp_path_factory) -> Path:
    """runs/data/races_bricks as configs/paper/races_bricks.yaml writes it, from the recorded answers."""
    import generate

    out = tmp_path_factory.mktemp("races_bricks")
    generate.main(["--config", str(PAPER / "races_bricks.yaml"), f"out={out}", "bricks.engine.backend=replay",
                   f"bricks.engine.replay_path={REPLAY}"])
    return out


def cpu_overrides(tiny: str, out: Path, bricks: Path | None = None) -> list[str]:
    """What configs/smoke/races.yaml changes, and one step; the model-written bricks from `bricks`."""
    return [f"model={tiny}", f"out_dir={out}", "cpu_threads=1", "gradient_checkpointing=false", "rl.steps=1",
            "rl.batch_size=4", "rl.group_size=2", "rl.micro_batch_size=4", "rl.max_tokens=8", "rl.engine.backend=hf",
            "save_every=1", "data.sources.0.params.composites=400"] + \
        ([f"data.sources.0.params.brick_dirs=[{bricks}]"] if bricks else [])


def load(name: str, tiny: str, out: Path, bricks: Path):
    import train
    import yaml

    raw = yaml.safe_load((PAPER / name).read_text())
    has_bricks = bool(raw.get("data", {}).get("sources", [{}])[0].get("params", {}).get("brick_dirs", [1]))
    return load_or_raise(train.TrainConfig, ["--config", str(PAPER / name),
                                             *cpu_overrides(tiny, out, bricks if has_bricks else None)])


def test_paper_settings(tiny, tmp_path, bricks):
    raw = (PAPER / "races_300.yaml").read_text()
    assert "model: deepseek-ai/DeepSeek-R1-Distill-Qwen-14B" in raw
    import yaml

    assert yaml.safe_load(raw)["rl"]["steps"] == 200  # races line 47
    assert yaml.safe_load((PAPER / "races_300_qwen3_14b.yaml").read_text())["model"] == "Qwen/Qwen3-14B"
    sizes = {}
    for name in ["races_300.yaml", "races_50.yaml", "races_individual.yaml"] + [f"races_size{k}.yaml" for k in SIZES]:
        cfg = load(name, tiny, tmp_path, bricks)
        (source,) = cfg.data.sources
        env = envs.make(source.env, **source.params)
        recs = [env.generate(seed, source.difficulty) for seed in range(12)]
        sizes[name] = {r["difficulty"] for r in recs}
        ops = {r["meta"]["operator"] for r in recs}
        if name == "races_individual.yaml":
            assert ops == {"sequential"} and len(env.pool.bricks) == 300
        else:
            assert ops <= {"sequential", "parallel", "sort", "select"} and len(ops) >= 3
        assert len(env.pool.bricks) == (50 if name == "races_50.yaml" else 300)
        assert env.sampling == "search" and env.pool.bank is not None  # drawn from the frontier search's bank
        if name != "races_50.yaml":  # the model-written bricks are in the pool, run in the sandbox
            assert {"count_peaks", "median_value"} <= env.pool.bricks.keys()
    assert sizes["races_individual.yaml"] == {1}
    assert sizes["races_300.yaml"] <= {2, 3, 4, 5} and len(sizes["races_300.yaml"]) >= 3
    for k in SIZES:
        assert sizes[f"races_size{k}.yaml"] == {k}


@pytest.mark.parametrize("name", ["races_individual.yaml", "races_300.yaml", "races_50.yaml"])
def test_paper_run_trains_on_cpu(name, tiny, tmp_path, bricks):
    import train

    threads = torch.get_num_threads()
    try:
        train.main(["--config", str(PAPER / name),
                    *cpu_overrides(tiny, tmp_path, None if name == "races_50.yaml" else bricks)])
    finally:
        torch.set_num_threads(threads)
    run = tmp_path / "paper" / name.removesuffix(".yaml")
    assert (run / "final" / "config.json").is_file()
    (step,) = [m for m in map(json.loads, (run / "metrics.jsonl").read_text().splitlines()) if m.get("step") == 1]
    assert step["count/races"] == 4 and step["score_errors"] == 0  # 4 rollouts on RACES problems, all scored
    samples = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    assert samples and all(s["env"] == "races" for s in samples)
    if name == "races_individual.yaml":
        assert all(s["id"].startswith("races-sequential-1-") for s in samples)


def documented_commands(config: Path) -> list[str]:
    """The commands a config's header documents (comment lines `#   python ...`), in order."""
    return [line.split("#", 1)[1].strip() for line in config.read_text().splitlines()
            if line.startswith("#   python ")]


def run_documented(commands: list[str], cwd: Path) -> None:
    """Run documented commands as written, in process, from cwd (which holds a link to configs/)."""
    import os
    import shlex

    import evaluate
    import generate
    import train
    from utils.tiny import build_tiny

    entry = {"generate.py": generate.main, "evaluate.py": evaluate.main, "train.py": train.main}
    here, threads = os.getcwd(), torch.get_num_threads()
    os.chdir(cwd)
    try:
        for cmd in commands:
            argv = shlex.split(cmd)
            assert argv[0] == "python", cmd
            if argv[1:3] == ["-m", "utils.tiny"]:
                build_tiny(argv[3])
            else:
                entry[argv[1]](argv[2:])
    finally:
        os.chdir(here)
        torch.set_num_threads(threads)


def test_eval_cpu_variant_runs_as_documented(tmp_path):
    """configs/eval/races_smoke.yaml, the CPU stand-in for races_paper.yaml: its header's commands (build the
    tiny model, generate a held-out RACES split, evaluate) run as written; the data and the evaluation land in
    separate folders, so the evaluation does not find the generator's fingerprint in its folder."""
    commands = documented_commands(ROOT / "configs/eval/races_smoke.yaml")
    assert [c.split()[1] for c in commands] == ["-m", "generate.py", "evaluate.py"]
    (tmp_path / "configs").symlink_to(ROOT / "configs")
    run_documented(commands, tmp_path)
    results = json.loads((tmp_path / "runs/smoke/races_eval/results.json").read_text())
    races = results["benchmarks"]["races"]
    assert races["problems"] == 16 and sum(races["status_counts"].values()) == 32  # n = 2 samples each, all graded
    assert 0.0 <= races["splits"]["all"]["pass@1"]["mean"] <= 1.0
    assert (tmp_path / "runs/data/races_smoke/manifest.json").is_file()


def test_smoke_run_as_documented(tmp_path):
    """configs/smoke/races.yaml's header: build the tiny model, write the pool's model-written bricks from the
    recorded answers, train two steps on the races300 pool, all as written."""
    commands = documented_commands(ROOT / "configs/smoke/races.yaml")
    assert [c.split()[1] for c in commands] == ["-m", "generate.py", "train.py"]
    for d in ("configs", "tests"):
        (tmp_path / d).symlink_to(ROOT / d)
    run_documented(commands, tmp_path)
    run = tmp_path / "runs/smoke/races"
    metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [m["step"] for m in metrics] == [1, 2] and all(m["score_errors"] == 0 for m in metrics)
    assert len(json.loads((tmp_path / "runs/data/races_bricks/manifest.json").read_text())["bricks"]) == 4
