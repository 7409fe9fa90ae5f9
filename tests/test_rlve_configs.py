"""The RLVE paper's comparisons as configs (issue 14.9): adaptive vs static difficulty,
environment-count scaling 1 / 4 / 16 / 64 / all, evaluation on held-out environments never
trained on. Every training config runs two steps on CPU with the tiny model; the held-out set
is generated and evaluated with it."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from utils.config import load_or_raise

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "configs" / "paper"
TRAINING = ["rlve_adaptive", "rlve_envs_1", "rlve_envs_4", "rlve_envs_16", "rlve_envs_64", "rlve_static_low",
            "rlve_static_high"]
# what turns a paper config into a CPU run of the tiny model (everything else stays as shipped)
CPU = ["rl.engine.backend=hf", "rl.steps=2", "rl.batch_size=8", "rl.group_size=4", "rl.micro_batch_size=8",
       "rl.max_tokens=8", "save_every=100", "cpu_threads=1", "gradient_checkpointing=false",
       "data.adaptive.min_samples_factor=1"]


def load(name: str, model: str):
    import train

    return load_or_raise(train.TrainConfig, ["--config", str(PAPER / f"{name}.yaml"), f"model={model}"])


def held_out_envs() -> list[str]:
    import generate

    cfg = load_or_raise(generate.GenerateConfig, ["--config", str(ROOT / "configs" / "generate" / "rlve_held_out.yaml")])
    return sorted({e.env for e in cfg.splits["test"]})


def test_no_training_config_draws_a_held_out_env(tiny):
    from envs.gym import GYM

    held_out = held_out_envs()
    assert len(held_out) == 18 and set(held_out) <= set(GYM)
    picks = {}
    for name in TRAINING:
        pool = load(name, tiny).data.pool
        assert sorted(pool.exclude) == held_out, f"{name}: the held-out lists must agree"
        picks[name] = pool.names()
        assert not set(picks[name]) & set(held_out)
    assert picks["rlve_adaptive"] == [n for n in picks["rlve_adaptive"] if n in GYM]
    assert len(picks["rlve_adaptive"]) == len(GYM) - 18, "all: every discovered gym env but the held-out ones"
    sizes = [1, 4, 16, 64]
    for small, big in zip(sizes, sizes[1:]):
        assert set(picks[f"rlve_envs_{small}"]) < set(picks[f"rlve_envs_{big}"]), "nested picks"
    assert set(picks["rlve_envs_64"]) < set(picks["rlve_adaptive"])
    for name in ("rlve_static_low", "rlve_static_high"):
        cfg = load(name, tiny)
        assert not cfg.data.adaptive.enabled and cfg.data.pool.difficulty_max > cfg.data.pool.difficulty == 0
    assert load("rlve_adaptive", tiny).data.adaptive.enabled


@pytest.mark.parametrize("name", TRAINING)
def test_training_config_runs_on_cpu(name, tiny, tmp_path, one_thread):
    import train

    train.main(["--config", str(PAPER / f"{name}.yaml"), f"model={tiny}", f"out_dir={tmp_path}", *CPU])
    run = tmp_path / "paper" / name
    metrics = [json.loads(line) for line in open(run / "metrics.jsonl")]
    assert [m["step"] for m in metrics] == [1, 2]
    cfg = load(name, tiny)
    live = {k.split("/", 1)[1] for k in metrics[-1] if k.startswith("difficulty/")}
    assert live == set(cfg.data.pool.names()), "the run trains on exactly the pool's envs"
    drawn = [json.loads(line) for line in open(run / "samples.jsonl")]
    difficulties = {int(re.search(r"-d(\d+)-", s["id"]).group(1)) for s in drawn}
    assert {s["env"] for s in drawn} <= live
    if not cfg.data.adaptive.enabled:
        assert difficulties <= set(range(cfg.data.pool.difficulty_max + 1))


def test_held_out_set_generates_and_evaluates_on_cpu(tiny, tmp_path, one_thread):
    import evaluate
    import generate

    generate.main(["--config", str(ROOT / "configs" / "generate" / "rlve_held_out.yaml"), f"out={tmp_path / 'data'}",
                   "workers=1"])
    records = [json.loads(line) for p in sorted((tmp_path / "data").glob("test-*.jsonl")) for line in open(p)]
    assert len(records) == 18 * 2 * 16 and {r["env"] for r in records} == set(held_out_envs())
    evaluate.main(["--config", str(ROOT / "configs" / "eval" / "rlve_held_out.yaml"), f"model={tiny}",
                   f"out_root={tmp_path}", "engine.backend=hf", "n=2", "k=[1,2]", "max_tokens=8", "bootstrap=20",
                   f"benchmarks=[{{name: rlve_held_out, kind: env, path: {tmp_path / 'data'}, split: test, sample: 12}}]"])
    results = json.loads((tmp_path / "rlve_held_out" / "results.json").read_text())
    assert "rlve_held_out" in json.dumps(results)
