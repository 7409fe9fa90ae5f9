"""train.py end to end on the tiny model (CPU): learning, resume, bad configs."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import envs
from envs.base import Env, Reward, extract_answer
from utils.config import ConfigError, load_or_raise
from utils.records import write_jsonl
from utils.tiny import build_tiny

ROOT = Path(__file__).resolve().parents[1]
DIGITS = "0123456789"


class EvenEnv(Env):
    """Test-only env: name an even digit. SFT on uniformly random digits leaves the tiny model right
    about half the time; RL should move it towards the even ones."""

    name = "even"
    reward_range = (0.0, 1.0)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        return {"id": f"even-{seed}", "env": "even", "difficulty": difficulty,
                "prompt": f"Name an even digit (request {seed % 1000}).", "answer": "<answer>4</answer>", "meta": {}}

    def score(self, record: dict, response: str) -> Reward:
        got = (extract_answer(response) or "").strip()
        ok = len(got) == 1 and got in "02468"
        return Reward(float(ok), ok, {})


@pytest.fixture
def even_env(monkeypatch):
    monkeypatch.setitem(envs.REGISTRY, "even", f"{__name__}:EvenEnv")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return str(build_tiny(tmp_path_factory.mktemp("tiny") / "model"))


@pytest.fixture
def one_thread():
    """Two pytest workers on two cores: more torch threads than cores makes OpenMP spin, 10x slower."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def run_train(argv: list[str]) -> None:
    import train

    train.main(argv)


def mean_reward(model_dir: str, records: list[dict], n: int = 4) -> float:
    from utils.engine import EngineConfig, SamplingParams, chat, make_engine

    eng = make_engine(EngineConfig(backend="hf", model=model_dir, batch_size=256))
    outs = eng.generate([chat(r["prompt"]) for r in records], SamplingParams(n=n, max_tokens=16, seed=123))
    env = EvenEnv()
    return sum(env.score(r, c.text).value for r, row in zip(records, outs) for c in row) / (n * len(records))


def test_sft_then_gspo_raises_heldout_reward(tiny, tmp_path, even_env, one_thread):
    rng = random.Random(0)
    train_recs = [EvenEnv().generate(seed=s) for s in range(200)]
    held_out = [EvenEnv().generate(seed=s) for s in range(500, 532)]
    write_jsonl(tmp_path / "sft.jsonl", [{"prompt": r["prompt"], "response": f"<answer>{rng.choice(DIGITS)}</answer>"}
                                         for r in train_recs])
    out = str(tmp_path / "runs")
    run_train(["stage=sft", f"model={tiny}", f"out_dir={out}", "name=sft", f"sft.data=[{tmp_path}/sft.jsonl]",
               "sft.epochs=4", "sft.batch_size=16", "sft.micro_batch_size=16", "optim.lr=5e-3", "optim.warmup_steps=3"])
    sft_model = f"{out}/sft/final"
    before = mean_reward(sft_model, held_out)
    run_train(["stage=rl", f"model={sft_model}", f"ref_model={sft_model}", f"out_dir={out}", "name=rl",
               "data.sources=[{env: even}]", "rl.steps=16", "rl.batch_size=64", "rl.group_size=8",
               "rl.minibatches=2", "rl.micro_batch_size=32", "rl.max_tokens=12", "optim.lr=2e-3",
               "novelty.enabled=true", "save_every=100"])
    after = mean_reward(f"{out}/rl/final", held_out)
    metrics = [json.loads(line) for line in open(f"{out}/rl/metrics.jsonl")]
    print(f"held-out mean reward: SFT {before:.3f} -> GSPO {after:.3f}")
    assert {"reward_mean", "accuracy", "novelty/bonus_mean", "entropy", "clip_frac_high"} <= set(metrics[0])
    assert any(m["novelty/frac_rollouts_with_bonus"] > 0 for m in metrics)
    assert after > before + 0.15, (before, after)
