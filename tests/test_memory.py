"""Memory: token log-probs and entropy never hold (batch, tokens, vocab) logits, and the memory
plan (train.py --plan, utils/memplan.py) matches measured peaks.

Peaks are measured in fresh processes (VmHWM is a lifetime peak; less the library pages the
process touched meanwhile) with one torch thread and glibc's mmap threshold fixed
(MALLOC_MMAP_THRESHOLD_=65536), so that a freed tensor leaves RSS instead of staying in the heap:
RSS then follows the live tensors.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from utils import memplan

ROOT = Path(__file__).resolve().parents[1]
GB = 2 ** 30
BOUND_GB = 1.0  # peak RSS growth of one RL micro-step at V = 151,936 and 4,096 response tokens


def probe(*args: str) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MALLOC_MMAP_THRESHOLD_": "65536", "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-m", "utils.memplan", "probe", *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_rl_step_at_vocab_152k_and_4k_tokens_stays_under_a_bound_full_logits_cannot_meet():
    # one RL micro-step (forward to log-probs and entropy, loss, backward, AdamW) of a random
    # model with hidden size 64 and Qwen's vocabulary
    chunked = probe("--vocab", "151936", "--hidden", "64", "--tokens", "4096", "--steps", "1")["measured_bytes"]
    # the same through the model's (B, T, V) logits, at an eighth of the tokens (it grows linearly)
    full = probe("--vocab", "151936", "--hidden", "64", "--tokens", "512", "--steps", "1",
                 "--full-logits")["measured_bytes"]
    one_copy = 4096 * 151936 * 4  # a single float32 logits tensor at 4,096 tokens
    print(f"\npeak RSS growth, V=151,936: chunked log-probs at 4,096 tokens {chunked / GB:.2f} GB (bound {BOUND_GB} GB); "
          f"full logits at 512 tokens {full / GB:.2f} GB, x8 for 4,096 = {8 * full / GB:.1f} GB; "
          f"one float32 logits tensor at 4,096 tokens alone {one_copy / GB:.2f} GB")
    assert chunked < BOUND_GB * GB
    assert full > BOUND_GB * GB and one_copy > 2 * BOUND_GB * GB  # full logits cannot meet the bound


LONG_ROWS = ("--vocab", "1000", "--hidden", "256", "--intermediate", "1024", "--layers", "2", "--tokens", "2048")


@pytest.mark.parametrize("args", [
    ("--vocab", "32000", "--hidden", "128", "--layers", "2", "--tokens", "1024", "--batch", "2"),
    ("--vocab", "1000", "--hidden", "256", "--intermediate", "1024", "--layers", "4", "--tokens", "1024"),
    ("--vocab", "1000", "--hidden", "256", "--layers", "6", "--tokens", "2048", "--checkpointing"),
    # activations the larger part of the peak, in each dtype train.py runs: fp32, bf16 weights, and bf16
    # autocast over fp32 weights (dtype=mixed; train.py's default on GPU)
    (*LONG_ROWS, "--dtype", "bf16"),
    (*LONG_ROWS, "--dtype", "mixed"),
], ids=["vocab32k", "wide-mlp", "checkpointed", "bf16", "mixed"])
def test_plan_is_within_25_percent_of_the_measured_peak(args):
    d = probe(*args)
    ratio = d["estimated_bytes"] / d["measured_bytes"]
    print(f"\n{d['dtype']}: measured {d['measured_bytes'] / 2**20:.0f} MB, estimated {d['estimated_bytes'] / 2**20:.0f} MB "
          f"({ratio:.2f})")
    assert 0.75 <= ratio <= 1.25


@pytest.mark.parametrize("dtype", ["fp32", "bf16", "mixed", "fsdp-mixed"])
def test_plan_counts_the_bytes_autograd_saves_per_token(dtype):
    # every tensor with a sequence axis saved for backward by one RL forward of a one-layer Qwen2
    # (deduplicated by storage), at two lengths: the difference per token is the activations'. Under
    # autocast over fp32 weights the residual stream and norms stay fp32 and each linear keeps its own
    # bf16 copy of its input; under FSDP2 with bf16 compute the gathered weights are bf16, and so is
    # the residual stream: the counts the plan makes
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from utils import dist

    shape = memplan.Shape(vocab=500, hidden=128, layers=1, intermediate=512, heads=4, kv_heads=2, head_dim=32)
    config = Qwen2Config(vocab_size=shape.vocab, hidden_size=shape.hidden, intermediate_size=shape.intermediate,
                         num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                         max_position_embeddings=2048, attn_implementation="sdpa")
    torch.manual_seed(0)
    lm = Qwen2ForCausalLM(config).to(torch.bfloat16 if dtype == "bf16" else torch.float32)
    fsdp = dtype == "fsdp-mixed"
    if fsdp:  # a one-process gloo group
        ctx = dist.init()
        model = dist.wrap(lm, "fsdp", ctx, mesh=dist.device_mesh("fsdp", ctx), bf16=True).train()
    else:
        model = dist.LogprobModel(lm, 512, torch.bfloat16 if dtype == "mixed" else None).train()

    def saved_bytes(T: int) -> int:
        storages = {}

        def pack(t):
            if T in t.shape or T + 1 in t.shape:  # not the weights (FSDP's gathered buffers among them)
                storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
            return t

        ids = torch.randint(0, shape.vocab, (1, T + 1))
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            model(ids, torch.ones_like(ids), torch.arange(T + 1)[None], ids[:, 1:])
        return sum(storages.values())

    try:
        measured = (saved_bytes(1024) - saved_bytes(256)) / 768
    finally:
        if fsdp:
            dist.close()
    setup = memplan.Setup(shape=shape, gpus=1, gpu_mem_gb=0, strategy="fsdp" if fsdp else "none", shard=1,
                          master_bytes=2 if dtype == "bf16" else 4, compute_bytes=4 if dtype == "fp32" else 2,
                          trainable=shape.params(), micro_batch=1, seq_len=1, checkpointing=False, chunk_tokens=512)
    planned = memplan.activation_bytes_per_token(setup)
    print(f"\n{dtype}: saved {measured:.0f} bytes per token, planned {planned}")
    assert planned == pytest.approx(measured, rel=0.01)


def test_paper_model_shapes_give_their_published_sizes():
    sizes = {"Qwen/Qwen2.5-7B-Instruct": 7.62, "Qwen/Qwen2.5-32B": 32.76, "Qwen/Qwen3-8B": 8.19,
             "Qwen/Qwen2.5-1.5B-Instruct": 1.54, "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B": 14.77,
             "meta-llama/Llama-3.1-8B-Instruct": 8.03, "allenai/Olmo-3-1025-7B": 7.30}
    for name, billions in sizes.items():
        shape, source = memplan.shape_of(name)
        assert shape.params() / 1e9 == pytest.approx(billions, abs=0.01) and "built-in" in source, name
    with pytest.raises(ValueError, match="built-in shapes"):
        memplan.shape_of("someone/unknown-model")


def test_plan_reads_a_local_config_and_prints_every_part(tmp_path, capsys):
    import train
    from utils.tiny import build_tiny

    tiny = build_tiny(tmp_path / "tiny")
    assert "config.json" in memplan.shape_of(str(tiny))[1]
    train.main(["--config", str(ROOT / "configs/paper/gspo_novelty.yaml"), "--plan", "gpus=8", "gpu_mem_gb=80",
                "model=Qwen/Qwen2.5-7B-Instruct"])
    out = capsys.readouterr().out
    for part in ("weights", "gradients", "Adam", "FSDP gathered", "activations", "log-prob chunk", "reference model",
                 "vLLM while training", "KV cache", "largest micro-batch that fits"):
        assert part in out, part
    cfg = train.load(train.PlanConfig, ["--config", str(ROOT / "configs/paper/gspo_novelty.yaml")])
    shape = memplan.shape_of("Qwen/Qwen2.5-32B")[0]
    on8, on64 = (memplan.setup_from_config(cfg, gpus, 80, shape) for gpus in (8, 64))
    assert memplan.total_bytes(on64) < memplan.total_bytes(on8)  # more GPUs: smaller shards
    assert memplan.largest_micro_batch(on64) >= memplan.largest_micro_batch(on8)


def test_every_paper_training_config_has_a_plan_as_shipped(capsys):
    # the plan reads the model's shape without downloading it and the GPUs from the config's hardware
    # section; a config whose model is an earlier stage's output (runs/...) names the model that stage
    # starts from (plan_model)
    import train
    from utils.config import ConfigError, load_or_raise

    planned = 0
    for path in sorted((ROOT / "configs/paper").rglob("*.yaml")):
        try:
            cfg = load_or_raise(train.PlanConfig, ["--config", str(path)])
        except ConfigError as e:
            assert e.key == "mode", (path, str(e))  # a generate.py config
            continue
        assert memplan_known(cfg.model) or (cfg.model.startswith("runs/") and memplan_known(cfg.plan_model)), path
        train.main(["--config", str(path), "--plan"])
        out = capsys.readouterr().out
        assert "largest micro-batch that fits" in out and f"x {cfg.hardware.gpu_mem_gb:g} GB ({cfg.hardware.name})" in out, path
        planned += 1
    assert planned >= 30


def memplan_known(model: str) -> bool:
    try:
        memplan.shape_of(model)
        return True
    except ValueError:
        return False
