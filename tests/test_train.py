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

ROOT = Path(__file__).resolve().parents[1]
DIGITS = "0123456789"


class Crash(BaseException):
    """Not an Exception: the trainer's scorer guard must not catch it, as it would not catch a kill."""


class EvenEnv(Env):
    """Test-only env: name an even digit. SFT on uniformly random digits leaves the tiny model right
    about half the time; RL should move it towards the even ones."""

    name = "even"
    reward_range = (0.0, 1.0)
    crash_after: int | None = None  # the resume test kills the run after this many scores

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        return {"id": f"even-{seed}", "env": "even", "difficulty": difficulty,
                "prompt": f"Name an even digit (request {seed % 1000}).", "answer": "<answer>4</answer>", "meta": {}}

    def score(self, record: dict, response: str) -> Reward:
        if EvenEnv.crash_after is not None:
            EvenEnv.crash_after -= 1
            if EvenEnv.crash_after < 0:
                raise Crash("simulated crash")
        got = (extract_answer(response) or "").strip()
        ok = len(got) == 1 and got in "02468"
        return Reward(float(ok), ok, {})


@pytest.fixture
def even_env(monkeypatch):
    monkeypatch.setitem(envs.REGISTRY, "even", f"{__name__}:EvenEnv")


def run_train(argv: list[str]) -> None:
    import train

    train.main(argv)


def mean_reward(model_dir: str, records: list[dict], n: int = 4) -> float:
    from utils.engine import EngineConfig, SamplingParams, chat, make_engine

    eng = make_engine(EngineConfig(backend="hf", model=model_dir, batch_size=256))
    outs = eng.generate([chat(r["prompt"]) for r in records], SamplingParams(n=n, max_tokens=16, seed=123))
    env = EvenEnv()
    return sum(env.score(r, c.text).value for r, row in zip(records, outs) for c in row) / (n * len(records))


@pytest.fixture(scope="module")
def sft_model(tiny, tmp_path_factory):
    """The tiny model after brief SFT on random digits: right about half the time on EvenEnv."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    tmp = tmp_path_factory.mktemp("sft")
    rng = random.Random(0)
    write_jsonl(tmp / "sft.jsonl", [{"prompt": EvenEnv().generate(seed=s)["prompt"],
                                     "response": f"<answer>{rng.choice(DIGITS)}</answer>"} for s in range(200)])
    run_train(SFT_ARGS + [f"model={tiny}", f"out_dir={tmp}", "name=sft", f"sft.data=[{tmp}/sft.jsonl]"])
    torch.set_num_threads(n)
    return str(tmp / "sft" / "final")


SFT_ARGS = ["stage=sft", "sft.epochs=4", "sft.batch_size=16", "sft.micro_batch_size=16", "optim.lr=5e-3",
            "optim.warmup_steps=3"]
RL_ARGS = ["stage=rl", "data.sources=[{env: even}]", "rl.batch_size=64", "rl.group_size=8", "rl.minibatches=2",
           "rl.micro_batch_size=32", "rl.max_tokens=12", "optim.lr=1e-3", "save_every=100"]


def weights(model_dir: str) -> dict:
    from safetensors.torch import load_file

    return load_file(f"{model_dir}/model.safetensors")


def metrics(run_dir) -> list[dict]:
    return [json.loads(line) for line in open(f"{run_dir}/metrics.jsonl")]


def test_sft_then_gspo_raises_heldout_reward(sft_model, tmp_path, even_env, one_thread):
    held_out = [EvenEnv().generate(seed=s) for s in range(500, 532)]  # SFT saw seeds 0..199
    before = mean_reward(sft_model, held_out)
    run_train(RL_ARGS + [f"model={sft_model}", f"ref_model={sft_model}", f"out_dir={tmp_path}", "name=rl",
                         "rl.steps=14", "novelty.enabled=true"])
    after = mean_reward(f"{tmp_path}/rl/final", held_out)
    print(f"held-out mean reward: SFT {before:.3f} -> GSPO {after:.3f}")
    m = metrics(tmp_path / "rl")
    assert len(m) == 14 and {"reward_mean", "accuracy", "novelty/bonus_mean", "entropy", "clip_frac_high"} <= set(m[0])
    assert any(x["novelty/frac_rollouts_with_bonus"] > 0 for x in m)
    assert after > before + 0.15, (before, after)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_resume_gives_the_same_weights(sft_model, tmp_path, even_env, one_thread, mode):
    args = RL_ARGS + [f"model={sft_model}", f"out_dir={tmp_path}", "save_every=2", "rl.steps=4"]
    if mode == "async":
        args.append("rl.async_rollouts=true")
    run_train(args + ["name=full"])
    # dies while scoring step 4: step 3 is logged (samples and metrics), its checkpoint is step 2's
    EvenEnv.crash_after = 3 * 64 + 10
    try:
        with pytest.raises(Crash):
            run_train(args + ["name=cut"])
    finally:
        EvenEnv.crash_after = None
    assert len(metrics(tmp_path / "cut")) == 3
    run_train(args + ["name=cut"])  # the same command resumes from step 2 and redoes step 3
    # every per-step log is cut back to the checkpoint: step 3 once (issue 21.3: samples.jsonl had it twice)
    for name in ("samples.jsonl", "metrics.jsonl"):
        full_rows, cut_rows = ([json.loads(x) for x in open(tmp_path / run / name)] for run in ("full", "cut"))
        assert [r["step"] for r in cut_rows] == [r["step"] for r in full_rows], name
    assert (tmp_path / "full" / "samples.jsonl").read_bytes() == (tmp_path / "cut" / "samples.jsonl").read_bytes()
    full, cut = weights(f"{tmp_path}/full/final"), weights(f"{tmp_path}/cut/final")
    assert all(torch.equal(full[k], cut[k]) for k in full), "resumed weights differ"
    assert not all(torch.equal(full[k], v) for k, v in weights(sft_model).items() if k in full), "nothing trained"
    assert metrics(tmp_path / "full")[-1]["reward_mean"] == metrics(tmp_path / "cut")[-1]["reward_mean"]
    assert [x["step"] for x in metrics(tmp_path / "cut")] == [1, 2, 3, 4]


@pytest.mark.parametrize("argv,key", [
    (["rl.group_size=1"], "rl.group_size"),
    (["rl.batch_size=30"], "rl.batch_size"),
    (["rl.eps_low=-0.1"], "rl.eps_low"),
    (["rl.eps_high=-1"], "rl.eps_high"),
    (["model="], "model"),
    (["model=runs/no/such/dir"], "model"),
    (["novelty.enabled=true"], "novelty.enabled"),
    (["rl.kl_coef=0.01"], "rl.kl_coef"),
    (["data.sources=[{env: no_such_env}]"], "data.sources.0.env"),
    (["data.sources=[]"], "data.sources"),
    (["rl.async_rollouts=true", "rl.top_p=0.9"], "rl.async_rollouts"),
    (["rl.engine.tensor_parallel_size=2"], "rl.engine.tensor_parallel_size"),
    (["rl.engine.backend=vllm", "rl.max_tokens=7000", "rl.max_prompt_tokens=2000"], "rl.engine.max_model_len"),
    (["rl.engine.backend=vllm", "rl.max_tokens=8192"], "rl.engine.max_model_len"),
    (["logprob_chunk_tokens=0"], "logprob_chunk_tokens"),
    (["stage=sft"], "sft.data"),
    (["rl.level=tokens"], "rl.level"),
])
def test_bad_configs_fail_fast_naming_the_key(tiny, argv, key):
    from train import TrainConfig

    ok = [f"model={tiny}", "data.sources=[{env: sorting}]"]
    load_or_raise(TrainConfig, ok)  # the base is fine
    with pytest.raises(ConfigError) as e:
        load_or_raise(TrainConfig, ok + argv)
    assert e.value.key == key


def test_bad_config_is_one_line_on_stderr(tiny):
    res = subprocess.run([sys.executable, "train.py", f"model={tiny}", "data.sources=[{env: sorting}]",
                          "rl.group_size=1"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and "rl.group_size" in res.stderr, res.stderr


class NanEnv(EvenEnv):
    name = "nan_env"

    def score(self, record, response):
        return Reward(float("nan"), False, {})


def test_nan_loss_stops_the_run_with_the_batch_saved(sft_model, tmp_path, monkeypatch, one_thread):
    monkeypatch.setitem(envs.REGISTRY, "nan_env", f"{__name__}:NanEnv")
    with pytest.raises(SystemExit, match="non-finite .* at step 0"):
        run_train(RL_ARGS + [f"model={sft_model}", f"out_dir={tmp_path}", "name=nan", "rl.steps=2",
                             "data.sources=[{env: nan_env}]"])
    saved = torch.load(next((tmp_path / "nan" / "nonfinite").glob("step_00000000_rank0.pt")), weights_only=False)
    assert len(saved["responses"]) == 64 and torch.isnan(saved["rewards"]).all()
    assert not (tmp_path / "nan" / "checkpoints").exists()
