"""The RLVE paper's comparisons as configs (issue 14.9, issue 28): adaptive vs static difficulty,
environment-count scaling 1 / 4 / 16 / 256 / 400 in nested picks, evaluation on 50 held-out
environments never trained on (but by the 400-env run, which holds none out). Every training config
runs two steps on CPU with the tiny model (the 256- and 400-env runs on fewer envs, as the registry
may hold fewer); the held-out set is generated and evaluated with it. The sweep's draws are checked on
stand-in registries of 400 and 460 envs, so the checks hold whatever the real registry holds."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from utils.config import ConfigError, load_or_raise

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "configs" / "paper"
SWEEP = [1, 4, 16, 256, 400]
TRAINING = ["rlve_adaptive", *(f"rlve_envs_{n}" for n in SWEEP), "rlve_static_low", "rlve_static_high"]
# what turns a paper config into a CPU run of the tiny model (everything else stays as shipped)
CPU = ["rl.engine.backend=hf", "rl.steps=2", "rl.batch_size=8", "rl.group_size=4", "rl.micro_batch_size=8",
       "rl.max_tokens=8", "save_every=100", "cpu_threads=1", "gradient_checkpointing=false",
       "data.adaptive.min_samples_factor=1", "model_revision=''"]
CPU_COUNT = {"rlve_envs_256": 24, "rlve_envs_400": 74}  # nested: 74 = 24 + the 50 held out


def load(name: str, model: str, *extra: str):
    import train

    return load_or_raise(train.TrainConfig, ["--config", str(PAPER / f"{name}.yaml"), f"model={model}",
                                             "model_revision=''", *extra])


def held_out_envs() -> list[str]:
    import generate

    cfg = load_or_raise(generate.GenerateConfig, ["--config", str(ROOT / "configs" / "generate" / "rlve_held_out.yaml")])
    return sorted({e.env for e in cfg.splits["test"]})


@pytest.fixture
def registry(monkeypatch):
    """registry(n): the gym family becomes the held-out envs plus stand-in names, n in all."""
    import envs.gym

    def make(n: int) -> list[str]:
        names = held_out_envs() + [f"stand_in_{i:03d}" for i in range(n - 50)]
        monkeypatch.setattr(envs.gym, "GYM", names)
        return names

    return make


def test_fifty_held_out_envs_from_every_source_and_no_training_config_draws_them(tiny):
    import envs
    from envs.gym import GYM
    from envs.gym.base import CATEGORIES

    held_out = held_out_envs()
    assert len(held_out) == 50 and set(held_out) <= set(GYM)
    assert {envs.env_class(n).category for n in held_out} == set(CATEGORIES), "every one of the six sources"
    for name in TRAINING:
        pool = load(name, tiny, *([f"data.pool.count={CPU_COUNT[name]}"] if name in CPU_COUNT else [])).data.pool
        if name == "rlve_envs_400":
            assert pool.exclude == [], "400 training envs: RLVE-Gym's all (rlve line 37), none held out"
            continue
        assert sorted(pool.exclude) == held_out, f"{name}: the held-out lists must agree"
        assert not set(pool.names()) & set(held_out)
    assert len(load("rlve_adaptive", tiny).data.pool.names()) == len(GYM) - 50, "every gym env but the held out"
    for name in ("rlve_static_low", "rlve_static_high"):
        cfg = load(name, tiny)
        assert not cfg.data.adaptive.enabled and cfg.data.pool.difficulty_max > cfg.data.pool.difficulty == 0
    assert load("rlve_adaptive", tiny).data.adaptive.enabled


@pytest.mark.parametrize("size", [400, 460])
def test_the_sweep_draws_nested_picks_of_its_sizes(size, tiny, registry):
    everything = registry(size)
    held_out = set(held_out_envs())
    picks = {n: load(f"rlve_envs_{n}", tiny).data.pool.names() for n in SWEEP}
    assert [len(picks[n]) for n in SWEEP] == SWEEP
    for small, big in zip(SWEEP, SWEEP[1:]):
        assert set(picks[small]) < set(picks[big]), f"{small} inside {big}"
    assert not set(picks[256]) & held_out, "1 ... 256 never train on a held-out env"
    if size == 400:
        assert sorted(picks[400]) == sorted(everything), "a 400-env registry: the 400 run trains on all of it"


def test_a_registry_short_of_envs_stops_the_config_with_one_line(tiny, registry):
    registry(70)  # 20 training envs beside the 50 held out
    assert len(load("rlve_envs_16", tiny).data.pool.names()) == 16
    for n, available in ((256, 20), (400, 70)):
        with pytest.raises(ConfigError) as e:
            load(f"rlve_envs_{n}", tiny)
        assert e.value.key == "data.pool.count" and f"{n} envs needed, {available} available" in str(e.value)
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("name", TRAINING)
def test_training_config_runs_on_cpu(name, tiny, tmp_path, one_thread):
    import train

    smaller = [f"data.pool.count={CPU_COUNT[name]}"] if name in CPU_COUNT else []
    train.main(["--config", str(PAPER / f"{name}.yaml"), f"model={tiny}", f"out_dir={tmp_path}", *CPU, *smaller])
    run = tmp_path / "paper" / name
    metrics = [json.loads(line) for line in open(run / "metrics.jsonl")]
    assert [m["step"] for m in metrics] == [1, 2]
    cfg = load(name, tiny, *smaller)
    live = {k.split("/", 1)[1] for k in metrics[-1] if k.startswith("difficulty/")}
    assert live == set(cfg.data.pool.names()), "the run trains on exactly the pool's envs"
    drawn = [json.loads(line) for line in open(run / "samples.jsonl")]
    difficulties = {int(re.search(r"-d(\d+)-", s["id"]).group(1)) for s in drawn}
    assert {s["env"] for s in drawn} <= live
    if not cfg.data.adaptive.enabled:
        assert difficulties <= set(range(cfg.data.pool.difficulty_max + 1))


def test_the_model_is_pinned_to_prorls_v2_revision():
    import train

    for name in TRAINING:
        cfg = load_or_raise(train.TrainConfig, ["--config", str(PAPER / f"{name}.yaml")], validate=False)
        assert (cfg.model, cfg.model_revision) == ("nvidia/Nemotron-Research-Reasoning-Qwen-1.5B", "v2"), name


def test_held_out_set_generates_and_evaluates_on_cpu(tiny, tmp_path, one_thread):
    import evaluate
    import generate

    generate.main(["--config", str(ROOT / "configs" / "generate" / "rlve_held_out.yaml"), f"out={tmp_path / 'data'}",
                   "workers=1"])
    records = [json.loads(line) for p in sorted((tmp_path / "data").glob("test-*.jsonl")) for line in open(p)]
    assert len(records) == 50 * 2 * 16 and {r["env"] for r in records} == set(held_out_envs())
    evaluate.main(["--config", str(ROOT / "configs" / "eval" / "rlve_held_out.yaml"), f"model={tiny}",
                   f"out_root={tmp_path}", "engine.backend=hf", "n=2", "k=[1,2]", "max_tokens=8", "bootstrap=20",
                   f"benchmarks=[{{name: rlve_held_out, kind: env, path: {tmp_path / 'data'}, split: test, sample: 12}}]"])
    results = json.loads((tmp_path / "rlve_held_out" / "results.json").read_text())
    assert "rlve_held_out" in json.dumps(results)
