"""train.py under torchrun with 2 and 4 gloo ranks on CPU against 1 rank on the same data: FSDP2
(minibatches 2 with the novelty bonus; 4 with LoRA, KL and the novelty bonus; 4 async without a
reference model), DDP, HSDP, LoRA, async rollouts, norm gains only (optim.trainable), and resume from a checkpoint 2 ranks wrote (on 2
ranks and on 4). `make test-dist` runs this file (`-m dist`; `make test` leaves it out).

Where the algorithm promises it, N ranks end with the weights 1 rank reaches: the rollouts, their
seeds and the minibatch split do not depend on the number of ranks, and gradients are averaged
over ranks. What differs is the order of floating-point sums (all-reduce, reduce-scatter): the
weights agree to atol 1e-5 / rtol 1e-4 after a few Adam steps at lr 1e-3 (Adam normalises the
gradient, so a 1e-7 relative difference in it moves a weight by ~lr * 1e-7 / |g|... well within).
A resumed run on the same ranks repeats the same operations: its weights are identical.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import envs
from envs.base import Env, Reward

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.dist


class ParityEnv(Env):
    """Test-only env that a random tiny model can learn from: even-seeded prompts reward responses
    of even length (in characters), about half of them; odd-seeded ones score 0.5 whatever the
    response, so their groups have zero advantage and the trainer skips them, which leaves the
    ranks with different numbers of rows to train (the stand-ins must even that out).
    PARITY_CRASH_AFTER=n makes the n+1-th score raise (a crash mid-run, for the resume test);
    PARITY_TERM_AFTER=n makes rank 1 alone send itself SIGTERM at its n-th score (a preemption
    signal that reaches one rank mid-step)."""

    name = "parity"
    reward_range = (0.0, 1.0)
    scored = 0

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        return {"id": f"parity-{seed}", "env": "parity", "difficulty": difficulty,
                "prompt": f"Say something of even length (request {seed % 1000}).", "answer": None, "meta": {}}

    def score(self, record: dict, response: str) -> Reward:
        ParityEnv.scored += 1
        if ParityEnv.scored == int(os.environ.get("PARITY_TERM_AFTER", "-1")) and os.environ.get("RANK") == "1":
            os.kill(os.getpid(), signal.SIGTERM)
        if ParityEnv.scored > int(os.environ.get("PARITY_CRASH_AFTER", "-1")) >= 0:
            os._exit(3)  # a kill: no cleanup, no checkpoint
        if int(record["id"].split("-")[1]) % 2:
            return Reward(0.5, False, {})
        ok = len(response) % 2 == 0
        return Reward(float(ok), ok, {})


BASE = ["stage=rl", "data.sources=[{env: parity}]", "rl.batch_size=32", "rl.group_size=4", "rl.max_tokens=8",
        "rl.micro_batch_size=2", "optim.lr=1e-3", "save_every=100", "cpu_threads=1"]


def torchrun(n: int, args: list[str], env_extra: dict | None = None, check: bool = True):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT), **(env_extra or {})}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={n}", __file__, *args]
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if check:
        assert res.returncode == 0, res.stderr[-4000:]
    return res


def weights(run_dir) -> dict:
    from safetensors.torch import load_file

    return load_file(f"{run_dir}/final/model.safetensors")


def metrics(run_dir) -> list[dict]:
    return [json.loads(line) for line in open(f"{run_dir}/metrics.jsonl")]


def assert_same_weights(a: dict, b: dict, exact: bool = False):
    assert a.keys() == b.keys()
    for k in a:
        if exact:
            assert torch.equal(a[k], b[k]), k
        else:
            assert torch.allclose(a[k], b[k], atol=1e-5, rtol=1e-4), (k, (a[k] - b[k]).abs().max().item())


# A: FSDP2 with 2 minibatches (old log-probs recomputed) and the novelty bonus (reference forwards
# on the correct rollouts only: a different number on each rank), against DDP, HSDP and 1 rank
# at temperature 0.7: the engine's log-probs and the trainer's are compared at the sampling temperature
A = BASE + ["rl.minibatches=2", "rl.steps=4", "save_every=2", "novelty.enabled=true", "rl.temperature=0.7"]


@pytest.fixture(scope="module")
def runs_a(tiny, tmp_path_factory):
    out = tmp_path_factory.mktemp("a")
    args = A + [f"model={tiny}", f"ref_model={tiny}", f"out_dir={out}"]
    for name, n, extra in (("one", 1, []), ("fsdp", 2, ["strategy=fsdp"]), ("ddp", 2, ["strategy=ddp"]),
                           ("hsdp", 2, ["strategy=hsdp", "hsdp_shard_size=1"]), ("fsdp4", 4, ["strategy=fsdp"]),
                           ("hsdp4", 4, ["strategy=hsdp", "hsdp_shard_size=2"])):  # 2 replicas x 2 shards
        torchrun(n, args + extra + [f"name={name}"])
    return out, args


@pytest.mark.parametrize("strategy", ["fsdp", "ddp", "hsdp", "fsdp4", "hsdp4"])
def test_two_and_four_ranks_match_one(runs_a, strategy):
    out, _ = runs_a
    assert_same_weights(weights(out / "one"), weights(out / strategy))
    m1, m2 = metrics(out / "one"), metrics(out / strategy)
    assert [x["reward_mean"] for x in m1] == [x["reward_mean"] for x in m2]  # the same rollouts
    assert m1[-1]["entropy"] == pytest.approx(m2[-1]["entropy"], rel=1e-4)
    assert 0 < m1[0]["trained_frac"] < 1 and m1[0]["trained_frac"] == m2[0]["trained_frac"]
    assert any(x["novelty/frac_rollouts_with_bonus"] > 0 for x in m1)
    if strategy != "ddp":  # FSDP: the hf engine is a copy synced each step; a failed sync shows here
        assert max(x["behaviour_logp_gap"] for x in m2) < 1e-4


def test_two_ranks_run_about_half_the_micro_batches_and_four_a_quarter(runs_a):
    # each rank runs as many micro-batches as the busiest rank, not the sum over ranks (which would
    # make every rank run what one rank alone runs); the busiest rank's share is above 1/N when the
    # trained rows do not split evenly (zero-advantage groups are skipped)
    out, _ = runs_a
    one, two, four = (sum(x["micro_batches"] for x in metrics(out / name)) for name in ("one", "fsdp", "fsdp4"))
    print(f"micro-batches over 4 steps: 1 rank {one}, 2 ranks {two} per rank, 4 ranks {four} per rank")
    assert two <= 0.65 * one and four <= 0.45 * one, (one, two, four)


def test_resume_from_a_two_rank_checkpoint_gives_the_same_weights(runs_a):
    out, args = runs_a
    cut = args + ["strategy=fsdp", "name=cut"]
    # each rank scores 16 rollouts a step: the crash comes during step 3, after the step-2 checkpoint
    res = torchrun(2, cut, {"PARITY_CRASH_AFTER": str(2 * 16 + 5)}, check=False)
    assert res.returncode != 0 and len(metrics(out / "cut")) == 2
    shutil.copytree(out / "cut", out / "cut4")  # the step-2 checkpoint, for the 4-rank resume below
    torchrun(2, cut + ["resume=true"])
    assert_same_weights(weights(out / "fsdp"), weights(out / "cut"), exact=True)
    assert [x["step"] for x in metrics(out / "cut")] == [1, 2, 3, 4]
    # the same checkpoint on 4 ranks: rollouts, seeds and minibatches do not depend on the ranks,
    # the optimizer state is gathered whole and re-sharded, so it continues to the 1-rank weights
    torchrun(4, args + ["strategy=fsdp", "name=cut4", "resume=true"])
    assert_same_weights(weights(out / "one"), weights(out / "cut4"))
    assert [x["step"] for x in metrics(out / "cut4")] == [1, 2, 3, 4]


# B: FSDP2 with 4 minibatches, LoRA, a KL term (reference forwards on every rollout) and the
# novelty bonus (on the correct ones)
B = BASE + ["rl.minibatches=4", "rl.steps=2", "rl.kl_coef=0.05", "lora.enabled=true", "lora.r=4", "optim.lr=1e-2",
            "novelty.enabled=true"]
# C: async rollouts (one step off-policy: the behaviour log-probs are the old ones), 4 minibatches,
# no reference model; a checkpoint after step 2 holds the batch already generated for step 3
C = BASE + ["rl.minibatches=4", "rl.steps=3", "rl.async_rollouts=true", "save_every=2"]


@pytest.mark.parametrize("config", ["lora_kl_novelty_minibatches4", "async_minibatches4"])
def test_fsdp_two_and_four_ranks_match_one(tiny, tmp_path, config):
    args = (C if config.startswith("async") else B) + [f"model={tiny}", f"ref_model={tiny}", f"out_dir={tmp_path}"]
    runs = {"one": 1, "two": 2, "four": 4}
    for name, n in runs.items():
        torchrun(n, args + [f"name={name}"] + (["strategy=fsdp"] if n > 1 else []))
    if config.startswith("async"):
        runs["ddp"] = 2
        torchrun(2, args + ["strategy=ddp", "name=ddp"])
    one = weights(tmp_path / "one")
    assert not all(torch.equal(one[k], v) for k, v in weights_of(tiny).items()), "nothing trained"
    for name in runs:
        assert_same_weights(one, weights(tmp_path / name))
        assert [x["reward_mean"] for x in metrics(tmp_path / "one")] == [x["reward_mean"] for x in metrics(tmp_path / name)]
    if config.startswith("async"):
        resume_async(tmp_path, args)


def test_trainable_norm_gains_on_two_ranks_match_one(tiny, tmp_path):
    """optim.trainable=[norm] (what the demo's RL stage trains): FSDP2 and DDP on 2 ranks reach the
    1-rank weights; frozen parameters, mixed with trained ones in the same FSDP2 unit, stay bit for
    bit the model's."""
    args = BASE + ["rl.steps=2", "optim.lr=1e-2", "optim.trainable=[norm]", f"model={tiny}", f"out_dir={tmp_path}"]
    torchrun(1, args + ["name=one"])
    for strategy in ("fsdp", "ddp"):
        torchrun(2, args + [f"strategy={strategy}", f"name={strategy}"])
    start, one = weights_of(tiny), weights(tmp_path / "one")
    changed = {k for k in one if not torch.equal(one[k], start[k])}
    assert changed and all("norm" in k for k in changed), sorted(changed)[:5]
    for strategy in ("fsdp", "ddp"):
        got = weights(tmp_path / strategy)
        assert_same_weights(one, got)
        assert all(torch.equal(got[k], start[k]) for k in one if "norm" not in k)


def resume_async(out: Path, args: list[str]):
    """Async: the checkpoint after step 2 holds each rank's share of step 3's rollouts, generated
    before it. Resumed on the same 2 ranks they are used: the same weights, bit for bit. On 4 ranks
    the shares do not fit: step 3's rollouts are generated again, with one line saying so."""
    for name in ("again", "other"):
        shutil.copytree(out / "two", out / name)
        shutil.rmtree(out / name / "checkpoints" / "step_00000003")
    torchrun(2, args + ["strategy=fsdp", "name=again", "resume=true"])
    assert_same_weights(weights(out / "two"), weights(out / "again"), exact=True)
    res = torchrun(4, args + ["strategy=fsdp", "name=other", "resume=true"])
    assert "written by 2 ranks, not 4" in res.stdout, res.stdout[-2000:]
    assert [x["step"] for x in metrics(out / "other")] == [1, 2, 3]


def test_sigterm_to_one_rank_stops_every_rank_after_the_same_step_and_resumes_exactly(tiny, tmp_path):
    """Issue 30: SIGTERM reaching rank 1 alone, mid-step: both ranks agree on the stop at the next
    step boundary (an all-reduce of the flag), write the checkpoint of that step together and exit;
    the same command resumes to the weights of an uninterrupted run, bit for bit."""
    from utils import checkpoint

    args = BASE + ["rl.steps=4", "strategy=fsdp", f"model={tiny}", f"out_dir={tmp_path}"]  # save_every=100
    torchrun(2, args + ["name=whole"])
    # each rank scores 16 rollouts a step: rank 1's signal comes during step 2
    res = torchrun(2, args + ["name=cut"], {"PARITY_TERM_AFTER": str(16 + 5)}, check=False)
    assert res.returncode != 0 and "stopped by SIGTERM at step 2/4" in res.stderr, res.stderr[-3000:]
    assert [x["step"] for x in metrics(tmp_path / "cut")] == [1, 2]
    assert checkpoint.latest(tmp_path / "cut").name == "step_00000002" and not (tmp_path / "cut" / "final").exists()
    torchrun(2, args + ["name=cut"])
    assert_same_weights(weights(tmp_path / "whole"), weights(tmp_path / "cut"), exact=True)
    assert [x["step"] for x in metrics(tmp_path / "cut")] == [1, 2, 3, 4]


def weights_of(model_dir) -> dict:
    from safetensors.torch import load_file

    return load_file(f"{model_dir}/model.safetensors")


class RecordingVLLM:
    """Stands in for utils.engine.VLLMEngine where there is no vLLM (FAKE_VLLM_LOG=<dir>): an hf
    engine on its own fp32 copy of the model, writing to <dir>/rank<R>.jsonl what this rank's engine
    was given: its seed and TP size, each generate call's prompts and seeds, each sync's tensor
    names and shapes (a real TP engine must get the full tensors on every rank of the group)."""

    def __init__(self, cfg, seed: int = 0):
        from transformers import AutoModelForCausalLM

        from utils.engine import HFEngine

        self.hf = HFEngine(cfg, model=AutoModelForCausalLM.from_pretrained(cfg.model, dtype=torch.float32))
        self.max_model_len, self.dtype = cfg.max_model_len, torch.float32
        self.file = Path(os.environ["FAKE_VLLM_LOG"]) / f"rank{os.environ.get('RANK', 0)}.jsonl"
        self._write(kind="init", seed=seed, tp=cfg.tensor_parallel_size)

    def _write(self, **row):
        with open(self.file, "a") as f:
            f.write(json.dumps(row) + "\n")

    def generate(self, prompts, params, seeds=None):
        from utils.engine import last_user_text

        self._write(kind="generate", prompts=[last_user_text(p) for p in prompts], seeds=list(seeds))
        return self.hf.generate(prompts, params, seeds)

    def sync_weights(self, named_tensors):
        shapes = {}

        def recorded():
            for name, t in named_tensors:
                shapes[name] = list(t.shape)
                yield name, t

        self.hf.sync_weights(recorded())
        self._write(kind="sync", shapes=shapes)

    def sleep(self):
        pass

    def close(self):
        pass


def engine_log(log_dir: Path, rank: int, kind: str) -> list[dict]:
    return [r for r in map(json.loads, open(log_dir / f"rank{rank}.jsonl")) if r["kind"] == kind]


@pytest.mark.parametrize("schedule", ["sync", "async"])
def test_tensor_parallel_vllm_rollouts_serve_one_prompt_list_per_group(tiny, tmp_path, schedule):
    """rl.engine.tensor_parallel_size=2 on 2 ranks (one TP group; FSDP2, so the synced weights are
    gathered from shards), with a recording stand-in for vLLM: both ranks give the engine the same
    prompts and seeds, the whole step's list, as the one TP-1 rank does; both engines get the same
    seed; every sync hands every rank the full tensors; and each rank trains its own share only:
    about half the micro-batches of the 1-rank TP-1 run, and the weights reach that run's (a
    rollout missed would move them). Async: the TP run generates between the steps (no thread) and
    reaches the 1-rank run's weights, whose rollouts come from a thread beside training."""
    from transformers import AutoModelForCausalLM

    args = BASE + ["rl.steps=2", "rl.engine.backend=vllm", f"model={tiny}", f"out_dir={tmp_path}",
                   f"rl.async_rollouts={'true' if schedule == 'async' else 'false'}"]
    logs = {name: tmp_path / f"log_{name}" for name in ("one", "tp2")}
    for name, log in logs.items():
        log.mkdir()
        n = 1 if name == "one" else 2
        torchrun(n, args + [f"name={name}"] + ([] if n == 1 else ["strategy=fsdp", "rl.engine.tensor_parallel_size=2"]),
                 {"FAKE_VLLM_LOG": str(log)})
    one = engine_log(logs["one"], 0, "generate")
    r0, r1 = (engine_log(logs["tp2"], r, "generate") for r in (0, 1))
    assert len(one) == 2 and len(one[0]["prompts"]) == 8 and len(set(one[0]["seeds"])) == 8
    assert r0 == r1 == one  # per step: the same prompts and seeds on both ranks, the whole batch
    assert [x["seed"] for r in (0, 1) for x in engine_log(logs["tp2"], r, "init")] == [0, 0]
    full = {n: list(p.shape) for n, p in AutoModelForCausalLM.from_pretrained(tiny).named_parameters()}
    for r in (0, 1):
        syncs = engine_log(logs["tp2"], r, "sync")
        assert len(syncs) == 3 and all(x["shapes"] == full for x in syncs)  # before step 1 and after each step
    assert_same_weights(weights(tmp_path / "one"), weights(tmp_path / "tp2"))
    m1, m2 = metrics(tmp_path / "one"), metrics(tmp_path / "tp2")
    assert [x["reward_mean"] for x in m1] == [x["reward_mean"] for x in m2]
    # each rank trains its half of the rows: the busiest rank's micro-batches, 16 of the 24 one rank
    # runs (zero-advantage groups are skipped, unevenly); both ranks training every row would run all
    # 24, and identical gradients on both would still reach the 1-rank weights
    assert sum(x["micro_batches"] for x in m2) <= 0.75 * sum(x["micro_batches"] for x in m1)


if __name__ == "__main__":  # the torchrun entry: train.py with the test env registered
    envs.REGISTRY["parity"] = "__main__:ParityEnv"
    if os.environ.get("FAKE_VLLM_LOG"):
        import utils.engine

        utils.engine.VLLMEngine = RecordingVLLM
    import train

    train.main(sys.argv[1:])
