"""Memory per GPU of a train.py run, estimated before booking a cluster, and a probe that measures it.

    python train.py --config configs/paper/gspo_novelty.yaml --plan [gpus=8 gpu_mem_gb=80] [model=Qwen/Qwen2.5-7B]
    python -m utils.memplan probe --vocab 151936 --tokens 32768 --hidden 3584 --layers 2 --device cuda

The plan needs the model's shape, never its weights: config.json when `model` is a local
directory, else a built-in table of the papers' models matched by name (PAPER_MODELS); nothing
is downloaded. The GPUs are the config's `hardware` section unless gpus= / gpu_mem_gb= say otherwise.
It prints both phases of a colocated RL step: training (weights, gradients, Adam, FSDP's gathered
layers, the log-prob chunk, the lm_head's weight-gradient buffer, the reference model, activations at
the micro-batch, vLLM asleep or awake) and rolling out (what the trainer keeps resident beside vLLM's
share), the largest micro-batch that fits, vLLM's weights per tensor-parallel shard and KV cache, and
the rows at full length in flight per engine and waves per step. strategy=auto is the cheapest
strategy whose plan fits (pick_strategy). The activation counts are exact against the tensors
autograd saves (fp32, bf16, and bf16 autocast over fp32 weights: tests/test_memory.py) and within 25%
of peaks measured on CPU; the CUDA figures are what scripts/gpu_check.sh measures. FSDP2's CPU
offload is not offered by train.py and not planned.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

GB = 2 ** 30


@dataclass(frozen=True)
class Shape:
    vocab: int
    hidden: int
    layers: int
    intermediate: int
    heads: int
    kv_heads: int
    head_dim: int
    tied: bool = False
    qkv_bias: bool = False

    def layer_params(self) -> int:
        H, q, kv = self.hidden, self.heads * self.head_dim, self.kv_heads * self.head_dim
        bias = q + 2 * kv if self.qkv_bias else 0
        return H * q + 2 * H * kv + q * H + 3 * H * self.intermediate + 2 * H + bias

    def root_params(self) -> int:
        """Embedding, lm_head (unless tied) and the final norm: FSDP2's root unit."""
        return self.vocab * self.hidden * (1 if self.tied else 2) + self.hidden

    def params(self) -> int:
        return self.root_params() + self.layers * self.layer_params()

    def kv_cache_bytes_per_token(self, nbytes: int = 2, tp: int = 1) -> int:
        """K and V of every layer for one token on one GPU of a tensor-parallel engine (vLLM shards the
        KV heads over the TP ranks and replicates them when there are fewer heads than ranks)."""
        return 2 * self.layers * max(1, self.kv_heads // tp) * self.head_dim * nbytes

    def activation_bytes_per_token_layer(self, r: int, c: int) -> int:
        """Bytes one decoder layer saves for backward per token (HF Llama/Qwen layer, SDPA attention),
        with the residual stream and norms in r-byte floats (the weights' dtype as the layers run:
        fp32 master weights give an fp32 residual stream, even under autocast) and the linears, attention
        and MLP in c-byte floats (bf16 under autocast). Counted with saved_tensors_hooks on a one-layer
        Qwen2 in fp32, bf16 and bf16 autocast over fp32 weights (exact) and checked against measured
        peaks (tests/test_memory.py)."""
        H, q, kv, I = self.hidden, self.heads * self.head_dim, self.kv_heads * self.head_dim, self.intermediate
        norm = 4 * H + 4 + r * H  # each RMSNorm: its fp32 input, 1/rms, the normed input (r bytes)
        # autocast (c < r): each linear casts its input itself and keeps its own copy (q, k and v of the
        # first norm's output, gate and up of the second's); else they share the two norms' outputs
        linear_inputs = 5 * c * H if c < r else 2 * r * H
        attention = c * (2 * q + 2 * kv) + 4 * self.heads  # q, k (rotated), v, the output (o_proj's input), fp32 lse
        mlp = 4 * c * I  # gate, up, act(gate), act(gate) * up (down_proj's input)
        return 2 * norm + linear_inputs + attention + mlp


# The papers' models (config.json values), for plans made without the weights or the hub.
PAPER_MODELS = {
    "OLMo-3-7B": (r"olmo-?3\b.*7b", Shape(100278, 4096, 32, 11008, 32, 32, 128)),
    "Qwen2.5-7B": (r"qwen2\.5-7b", Shape(152064, 3584, 28, 18944, 28, 4, 128, qkv_bias=True)),
    "Qwen2.5-32B": (r"qwen2\.5-32b", Shape(152064, 5120, 64, 27648, 40, 8, 128, qkv_bias=True)),
    "Qwen2.5-1.5B": (r"qwen2\.5-1\.5b", Shape(151936, 1536, 28, 8960, 12, 2, 128, tied=True, qkv_bias=True)),
    # RACES' DeepSeek-R1-Distill-Qwen-14B is a Qwen2.5-14B
    "Qwen2.5-14B": (r"qwen2\.5-14b|distill-qwen-14b", Shape(152064, 5120, 48, 13824, 40, 8, 128, qkv_bias=True)),
    "Qwen3-8B": (r"qwen3-8b", Shape(151936, 4096, 36, 12288, 32, 8, 128)),
    "Qwen3-14B": (r"qwen3-14b", Shape(151936, 5120, 40, 17408, 40, 8, 128)),
    # RLVE's ProRL-1.5B-v2 (Nemotron-Research-Reasoning-Qwen-1.5B) is a DeepSeek-R1-Distill-Qwen-1.5B
    "R1-Distill-Qwen-1.5B": (r"distill-qwen-1\.5b|reasoning-qwen-1\.5b",
                             Shape(151936, 1536, 28, 8960, 12, 2, 128, qkv_bias=True)),
    "Llama-3.1-8B": (r"llama-?3\.1-8b", Shape(128256, 4096, 32, 14336, 32, 8, 128)),
}


def shape_from_config(c: dict) -> Shape:
    """The shape in an HF config (config.json as a dict; a multimodal model's text_config)."""
    c = c.get("text_config") or c
    heads = c["num_attention_heads"]
    return Shape(vocab=c["vocab_size"], hidden=c["hidden_size"], layers=c["num_hidden_layers"],
                 intermediate=c["intermediate_size"], heads=heads, kv_heads=c.get("num_key_value_heads") or heads,
                 head_dim=c.get("head_dim") or c["hidden_size"] // heads,
                 tied=bool(c.get("tie_word_embeddings", False)),
                 qkv_bias=c.get("model_type") == "qwen2" or bool(c.get("attention_bias")))


def shape_of(model: str, revision: str = "") -> tuple[Shape, str]:
    """(shape, where it came from): the local config.json, else the built-in table by name. The
    table is keyed by name alone, revision or not (our choice): a revision of these checkpoints is
    more training of one architecture (ProRL-1.5B's v1 and v2 are both RL on R1-Distill-Qwen-1.5B,
    by their model card as we read it), which changes the weights, not config.json's shape; the
    source says which revision was asked."""
    cfg = Path(model) / "config.json"
    if cfg.is_file():
        return shape_from_config(json.loads(cfg.read_text())), f"{cfg}"
    at = f" at revision {revision}: the same shape" if revision else ""
    for name, (pattern, shape) in PAPER_MODELS.items():
        if re.search(pattern, model.lower()):
            return shape, f"built-in table: {name} (no local config.json{at})"
    known = ", ".join(PAPER_MODELS)
    raise ValueError(f"{model}: no local config.json and not one of the built-in shapes ({known}); "
                     f"pass model=<a local HF directory> or one of those names, or set plan_model (for an earlier "
                     f"stage's output not written yet: the model that stage starts from)")


@dataclass
class Setup:
    """What decides the memory of one GPU, in both phases of a colocated RL step (or an SFT step)."""
    shape: Shape
    gpus: int
    gpu_mem_gb: float
    strategy: str            # none, ddp, fsdp, hsdp
    shard: int               # ranks one parameter is sharded over (1: not sharded)
    master_bytes: int        # bytes per stored weight: 4 (fp32 master weights) or 2 (bf16)
    compute_bytes: int       # bytes per activation: 2 (bf16 autocast on GPU) or 4 (fp32)
    trainable: int           # trainable parameters (all, or the LoRA adapters)
    micro_batch: int         # rows per forward
    seq_len: int             # prompt + response tokens of a row
    checkpointing: bool      # activation checkpointing of the decoder layers
    chunk_tokens: int        # tokens whose full-vocabulary logits exist at once
    reference: bool = False  # a frozen reference model (novelty, KL)
    vllm_util: float = 0.0   # vLLM's share of the GPU (0: no vLLM)
    vllm_sleep: bool = False  # vLLM sleeps while the policy trains
    cuda: bool = True
    async_rollouts: bool = False  # vLLM generates the next step while this one trains: awake throughout
    tp: int = 1              # vLLM tensor_parallel_size: GPUs per engine
    rollouts: int = 0        # rollouts per RL step over all GPUs
    param_bytes: float = 0   # all parameters as loaded, each at its element size (0: params x master_bytes)


# float32 (chunk, V) tensors the log-prob chunk holds at its peak: logits turned into log-probs in
# place, their exp, the gradient built in place (measured ~1.9 on CPU); in bf16 the head's output
# (and in backward the gradient's bf16 copy) adds half a copy.
LOGIT_COPIES = 2
# CUDA context, NCCL buffers, allocator fragmentation: a fixed reserve (ours, not measured here)
CUDA_RESERVE_GB = 3.0
# vLLM asleep (level 2: weights and KV cache freed) still holds its CUDA graphs and context (ours)
VLLM_ASLEEP_GB = 1.5
# vLLM's own activations, sampler and CUDA graphs inside its share, beside weights and KV cache (ours)
VLLM_OVERHEAD_GB = 2.0
# the fewest rollouts at full length an engine should hold at once (issue 27; ours)
MIN_ROWS_IN_FLIGHT = 8


def residual_bytes(s: Setup) -> int:
    """Bytes per element of the residual stream: the weights' dtype as the layers run (FSDP2 gathers bf16)."""
    return s.compute_bytes if s.strategy in ("fsdp", "hsdp") else s.master_bytes


def _weights(s: Setup) -> float:
    return (s.param_bytes or s.shape.params() * s.master_bytes) / s.shard


def resident_parts(s: Setup) -> list[tuple[str, float]]:
    """(part, bytes) the trainer holds in both phases: weights, optimizer state, the reference."""
    parts = [(f"weights ({_dtype(s.master_bytes)}{_frac(s.shard)})", _weights(s)),
             (f"Adam moments (2 x {_dtype(s.master_bytes)}{_frac(s.shard)})", 2 * s.trainable * s.master_bytes / s.shard)]
    if s.strategy == "ddp":  # allocated with the DDP wrapper, kept beside .grad
        parts.append((f"DDP gradient buckets ({_dtype(s.master_bytes)})", s.trainable * s.master_bytes))
    if s.reference:
        ref_bytes, shard = 2 if s.cuda else 4, s.shard if s.strategy != "ddp" else 1
        parts.append((f"reference model ({_dtype(ref_bytes)}{_frac(shard)})", s.shape.params() * ref_bytes / shard))
    if s.cuda:
        parts.append(("CUDA context, NCCL, fragmentation (reserve)", CUDA_RESERVE_GB * GB))
    return parts


def fixed_parts(s: Setup) -> list[tuple[str, float]]:
    """(part, bytes) of the training phase that do not grow with the micro-batch."""
    sh, n, c = s.shape, s.shape.params(), s.compute_bytes
    parts = resident_parts(s)
    parts.insert(1, (f"gradients ({_dtype(s.master_bytes)}{_frac(s.shard)})", s.trainable * s.master_bytes / s.shard))
    if s.strategy in ("fsdp", "hsdp"):
        gathered = (2 * sh.layer_params() + sh.root_params()) * c + 2 * sh.layer_params() * 4
        parts.append(("FSDP gathered: root + 2 layers, their fp32 gradients in flight", gathered))
    elif c < s.master_bytes:
        parts.append(("autocast's bf16 copies of the weights", n * c))
    copies = LOGIT_COPIES + (0.5 if c == 2 else 0)
    parts.append((f"log-prob chunk ({s.chunk_tokens} tokens x {sh.vocab} vocab x {copies:g} fp32)",
                  copies * s.chunk_tokens * sh.vocab * 4))
    if s.trainable == n:  # the head is trained: its weight gradient is one (V, H) buffer the chunks add into
        r = residual_bytes(s)
        product = c if c < r else 0  # a chunk's bf16 product beside an fp32 buffer (utils/losses.py)
        parts.append((f"lm_head weight gradient ({_dtype(r)} (V, H) buffer" + (" + a chunk's bf16 product)"
                                                                               if product else ")"),
                      sh.vocab * sh.hidden * (r + product)))
    if s.vllm_util:
        awake = s.async_rollouts or not s.vllm_sleep
        held = s.vllm_util * s.gpu_mem_gb * GB if awake else VLLM_ASLEEP_GB * GB
        why = ("awake (async rollouts: it generates the next step meanwhile)" if s.async_rollouts else
               "awake (sleep mode off)" if awake else "asleep: context and graphs")
        parts.append((f"vLLM while training: {why}" + (f", {s.vllm_util:.0%} of the GPU" if awake else ""), held))
    return parts


def activation_bytes_per_token(s: Setup) -> int:
    """Bytes autograd keeps per token of a row until backward (tests/test_memory.py counts them)."""
    sh, c, r = s.shape, s.compute_bytes, residual_bytes(s)
    per_layer = sh.activation_bytes_per_token_layer(r, c)
    if s.checkpointing:  # each layer's input (the residual stream), plus one layer recomputed at a time
        per_token = sh.layers * sh.hidden * r + per_layer
    else:
        per_token = sh.layers * per_layer
    # outside the layers: token ids, rotary cos and sin, the final norm (fp32 input, 1/rms, normed input,
    # output: the head's input), the entropy
    return per_token + 8 + 2 * sh.head_dim * r + 4 * sh.hidden + 4 + 2 * r * sh.hidden + 4


def activation_bytes_per_row(s: Setup) -> float:
    """Activations of one row of seq_len tokens through forward and backward."""
    per_row = activation_bytes_per_token(s) * s.seq_len
    if s.micro_batch > 1:  # padded rows: SDPA's (B, 1, T, T) boolean mask (ours, not measured)
        per_row += s.seq_len ** 2
    return per_row


def total_bytes(s: Setup, micro_batch: int | None = None) -> float:
    """The training phase's peak (with vLLM as it is meanwhile)."""
    b = s.micro_batch if micro_batch is None else micro_batch
    return sum(v for _, v in fixed_parts(s)) + b * activation_bytes_per_row(s)


def rollout_parts(s: Setup) -> list[tuple[str, float]]:
    """(part, bytes) while a sync step rolls out: the trainer's resident state (gradients freed,
    its cache emptied before vLLM wakes) beside vLLM's share. [] without vLLM or with async rollouts
    (their vLLM share is in the training phase)."""
    if not s.vllm_util or s.async_rollouts:
        return []
    return resident_parts(s) + [(f"vLLM awake: {s.vllm_util:.0%} of the GPU", s.vllm_util * s.gpu_mem_gb * GB)]


def peak_bytes(s: Setup) -> float:
    return max(total_bytes(s), sum(v for _, v in rollout_parts(s)))


def fits(s: Setup) -> bool:
    return peak_bytes(s) <= s.gpu_mem_gb * GB


def largest_micro_batch(s: Setup) -> int:
    room = s.gpu_mem_gb * GB - sum(v for _, v in fixed_parts(s))
    return max(0, int(room // activation_bytes_per_row(s)))


def rollout_capacity(s: Setup) -> dict:
    """vLLM's side: bf16 weights per tensor-parallel shard, KV cache, rows at full length in flight per
    engine and the waves of them a step's rollouts take."""
    weights = s.shape.params() * 2 / s.tp
    kv = s.vllm_util * s.gpu_mem_gb * GB - weights - VLLM_OVERHEAD_GB * GB
    tokens = max(0, int(kv // s.shape.kv_cache_bytes_per_token(2, s.tp)))
    rows = tokens // max(1, s.seq_len)
    engines = max(1, s.gpus // s.tp)
    per_engine = -(-s.rollouts // engines)
    return {"weights": weights, "kv": max(kv, 0.0), "tokens": tokens, "rows": rows, "engines": engines,
            "per_engine": per_engine, "waves": -(-per_engine // rows) if rows else None}


def setup_from_config(cfg, gpus: int, gpu_mem_gb: float, shape: Shape, *, strategy: str = "", gpus_per_node: int = 8,
                      param_bytes: float = 0, trainable: int | None = None) -> Setup:
    """A Setup from a train.py TrainConfig (read by attribute; utils/ does not import train.py).
    strategy: this one instead of cfg.strategy (auto: pick_strategy's choice); param_bytes and
    trainable: as loaded (the live model), else from the config."""
    rl = cfg.stage == "rl"
    strategy = strategy or cfg.strategy
    if strategy == "auto":
        strategy = pick_strategy(cfg, gpus, gpu_mem_gb, shape, gpus_per_node, param_bytes=param_bytes,
                                 trainable=trainable)
    shard = {"fsdp": gpus, "hsdp": cfg.hsdp_shard_size or min(gpus, gpus_per_node)}.get(strategy, 1)
    if trainable is None and cfg.lora.enabled:
        per_module = {"q_proj": (shape.hidden, shape.heads * shape.head_dim),
                      "k_proj": (shape.hidden, shape.kv_heads * shape.head_dim),
                      "v_proj": (shape.hidden, shape.kv_heads * shape.head_dim),
                      "o_proj": (shape.heads * shape.head_dim, shape.hidden),
                      "gate_proj": (shape.hidden, shape.intermediate), "up_proj": (shape.hidden, shape.intermediate),
                      "down_proj": (shape.intermediate, shape.hidden)}
        trainable = shape.layers * sum(cfg.lora.r * (i + o) for m, (i, o) in per_module.items()
                                       if m in cfg.lora.target_modules)
    elif trainable is None:
        trainable = shape.params()
    engine = cfg.rl.engine
    vllm = rl and engine.backend == "vllm"
    return Setup(shape=shape, gpus=gpus, gpu_mem_gb=gpu_mem_gb, strategy=strategy, shard=shard,
                 master_bytes=2 if cfg.dtype == "bfloat16" else 4, compute_bytes=2, trainable=trainable,
                 micro_batch=cfg.rl.micro_batch_size if rl else cfg.sft.micro_batch_size,
                 # an RL row: as long as vLLM may make it (max_model_len: prompt + response budget)
                 seq_len=(cfg.rl.max_prompt_tokens + cfg.rl.max_tokens if cfg.rl.max_prompt_tokens
                          else max(engine.max_model_len, cfg.rl.max_tokens)) if rl else cfg.sft.max_len,
                 checkpointing=cfg.gradient_checkpointing, chunk_tokens=cfg.logprob_chunk_tokens,
                 reference=rl and (cfg.novelty.enabled or cfg.rl.kl_coef > 0),
                 vllm_util=engine.gpu_memory_utilization if vllm else 0.0,
                 vllm_sleep=engine.enable_sleep_mode, async_rollouts=rl and cfg.rl.async_rollouts,
                 tp=engine.tensor_parallel_size if vllm else 1, rollouts=cfg.rl.batch_size if rl else 0,
                 param_bytes=param_bytes)


def pick_strategy(cfg, gpus: int, gpu_mem_gb: float, shape: Shape, gpus_per_node: int = 8, **kw) -> str:
    """strategy=auto: none on one GPU; else the cheapest whose plan fits both phases, in the order
    ddp (nothing sharded, least communication), hsdp (over more than one node: sharded within a
    node, one all-reduce across nodes per step), fsdp (sharded over every GPU); if none fits, the one
    with the smallest peak (the plan then says by how much it misses)."""
    if gpus == 1:
        return "none"
    order = ["ddp"] + (["hsdp"] if gpus > gpus_per_node else []) + ["fsdp"]
    setups = [setup_from_config(cfg, gpus, gpu_mem_gb, shape, strategy=st, gpus_per_node=gpus_per_node, **kw)
              for st in order]
    return next((s.strategy for s in setups if fits(s)), min(setups, key=peak_bytes).strategy)


def summary(s: Setup) -> dict:
    """The plan in numbers (GB per GPU), for tables and tests."""
    out = {"gpus": s.gpus, "gpu_mem_gb": s.gpu_mem_gb, "strategy": s.strategy, "micro_batch": s.micro_batch,
           "seq_len": s.seq_len, "training_gb": total_bytes(s) / GB,
           "rollout_gb": sum(v for _, v in rollout_parts(s)) / GB or None, "peak_gb": peak_bytes(s) / GB,
           "fits": fits(s), "largest_micro_batch": largest_micro_batch(s), "tp": s.tp}
    if s.vllm_util:
        cap = rollout_capacity(s)
        out.update({k: cap[k] for k in ("rows", "engines", "per_engine", "waves", "tokens")})
    return out


def report(s: Setup, source: str, hardware: str = "") -> str:
    sh = s.shape
    lines = [f"memory plan: {sh.params() / 1e9:.2f}B parameters ({source})",
             f"  {s.gpus} GPUs x {s.gpu_mem_gb:g} GB{f' ({hardware})' if hardware else ''}, strategy {s.strategy}"
             + (f" (each parameter sharded over {s.shard})" if s.shard > 1 else ""),
             f"  rows of {s.seq_len} tokens, micro-batch {s.micro_batch}, activation checkpointing "
             f"{'on' if s.checkpointing else 'off'}", ""]
    act = activation_bytes_per_row(s)
    phase = "training, while vLLM rolls out the next step" if s.async_rollouts and s.vllm_util else "training"
    lines.append(f"  {'per GPU, ' + phase:<72}{'GB':>8}")
    for name, v in fixed_parts(s):
        lines.append(f"  {name:<72}{v / GB:8.1f}")
    lines.append(f"  {f'activations ({s.micro_batch} rows x {act / GB:.2f} GB)':<72}{s.micro_batch * act / GB:8.1f}")
    lines.append(f"  {'total':<72}{total_bytes(s) / GB:8.1f}")
    if rollout_parts(s):
        lines += ["", f"  {'per GPU, rolling out':<72}{'GB':>8}"]
        for name, v in rollout_parts(s):
            lines.append(f"  {name:<72}{v / GB:8.1f}")
        lines.append(f"  {'total':<72}{sum(v for _, v in rollout_parts(s)) / GB:8.1f}")
    best = largest_micro_batch(s)
    lines += ["", f"  {'fits' if fits(s) else 'does NOT fit'} in {s.gpu_mem_gb:g} GB (peak {peak_bytes(s) / GB:.1f} GB); "
              f"largest micro-batch that fits: {best}"
              + ("" if best else " (try gradient_checkpointing=true, more GPUs, or shorter rows)")]
    if s.vllm_util:
        cap = rollout_capacity(s)
        lines.append(f"  vLLM ({s.vllm_util:.0%} of the GPU, tensor parallel {s.tp}): bf16 weights "
                     f"{cap['weights'] / GB:.1f} GB per GPU, KV cache ~{cap['kv'] / GB:.1f} GB = ~{cap['tokens']:,} "
                     f"tokens per engine")
        waves = f"{cap['waves']} waves" if cap["waves"] else "never finishes: no row fits"
        lines.append(f"  rollouts: {cap['rows']} rows of {s.seq_len} tokens in flight per engine "
                     f"(at least {MIN_ROWS_IN_FLIGHT} wanted); {cap['engines']} engines x {cap['per_engine']} "
                     f"rollouts a step = {waves} at full length")
    lines.append("  (estimates: counted tensors, checked against measured CPU peaks within 25%; the CUDA reserve "
                 f"of {CUDA_RESERVE_GB:g} GB and vLLM's {VLLM_OVERHEAD_GB:g} GB overhead are allowances)")
    return "\n".join(lines)


def _dtype(nbytes: int) -> str:
    return {2: "bf16", 4: "fp32"}[nbytes]


def _frac(shard: int) -> str:
    return f", 1/{shard}" if shard > 1 else ""


# ----------------------------------------------------------------------------- the probe


def probe(shape: Shape, batch: int, tokens: int, chunk_tokens: int, device: str = "cpu", full_logits: bool = False,
          checkpointing: bool = False, steps: int = 2, prompt: int = 8, dtype: str = "") -> dict:
    """Peak memory of `steps` RL micro-steps on a randomly initialised model of `shape`: forward (token
    log-probs and entropy), a policy-gradient loss, backward, an AdamW step. CPU: peak RSS growth
    over the process before the model was built, less the file-backed pages (library code) it
    touched meanwhile (run it in a fresh process: VmHWM is a lifetime peak;
    MALLOC_MMAP_THRESHOLD_=65536 keeps glibc from holding freed tensors in its heap, so RSS
    follows the live tensors); CUDA: torch.cuda.max_memory_allocated. full_logits: the plain HF way, through
    (B, T, V) logits, for comparison. dtype: fp32, bf16 (bf16 weights) or mixed (bf16 autocast over fp32
    weights, train.py's dtype=mixed and its GPU default); '': mixed on CUDA, fp32 on CPU. Returns
    measured and estimated bytes."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from utils.dist import LogprobModel

    def rss() -> tuple[int, int, int]:
        """(resident bytes, their peak, of which file-backed: library code paged in, not tensors).
        The peak is this address space's own (VmHWM): ru_maxrss would also count the parent's
        resident set at fork (Linux keeps it across exec)."""
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        return tuple(int(status[k].split()[0]) * 1024 for k in ("VmRSS", "VmHWM", "RssFile"))

    cuda = device.startswith("cuda")
    dtype = dtype or ("mixed" if cuda else "fp32")
    base, _, base_file = (torch.cuda.memory_allocated(), 0, 0) if cuda else rss()
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=shape.vocab, hidden_size=shape.hidden, intermediate_size=shape.intermediate,
                         num_hidden_layers=shape.layers, num_attention_heads=shape.heads,
                         num_key_value_heads=shape.kv_heads, head_dim=shape.head_dim, tie_word_embeddings=shape.tied,
                         max_position_embeddings=prompt + tokens + 8, attn_implementation="sdpa")
    with torch.device(device):
        lm = Qwen2ForCausalLM(config).to(torch.bfloat16 if dtype == "bf16" else torch.float32)
    if checkpointing:
        lm.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    autocast = torch.bfloat16 if dtype == "mixed" else None
    model = LogprobModel(lm, chunk_tokens, autocast).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-6)
    ids = torch.randint(0, shape.vocab, (batch, prompt + tokens), device=device)
    attn = torch.ones_like(ids)
    pos = attn.cumsum(1) - 1
    targets = ids[:, prompt:]
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    for _ in range(steps):  # from the second step on, Adam's moments exist during backward
        if full_logits:
            with torch.autocast(device.split(":")[0], dtype=torch.bfloat16, enabled=autocast is not None):
                logits = lm(input_ids=ids, attention_mask=attn, position_ids=pos).logits[:, prompt - 1:-1].float()
            logp_all = torch.log_softmax(logits, -1)
            logp = logp_all.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
            ent = -(logp_all.exp() * logp_all).sum(-1)
            del logits, logp_all
        else:
            logp, ent = model(ids, attn, pos, targets)
        (-(logp.mean() + 0.01 * ent.mean())).backward()
        del logp, ent
        opt.step()
        opt.zero_grad(set_to_none=True)
    if cuda:
        measured = torch.cuda.max_memory_allocated() - base
    else:  # minus the library pages first touched meanwhile (how many varies with the page cache)
        _, peak, file_pages = rss()
        measured = peak - base - (file_pages - base_file)
    setup = Setup(shape=shape, gpus=1, gpu_mem_gb=0, strategy="none", shard=1, master_bytes=2 if dtype == "bf16" else 4,
                  compute_bytes=4 if dtype == "fp32" else 2, trainable=shape.params(), micro_batch=batch, seq_len=prompt + tokens,
                  checkpointing=checkpointing, chunk_tokens=chunk_tokens, cuda=False)
    return {"device": device, "dtype": dtype, "shape": asdict(shape), "batch": batch, "tokens": tokens, "chunk_tokens": chunk_tokens,
            "full_logits": full_logits, "checkpointing": checkpointing, "steps": steps, "measured_bytes": measured,
            "estimated_bytes": None if full_logits else total_bytes(setup)}


def main(argv: list[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m utils.memplan probe", description=probe.__doc__)
    ap.add_argument("what", choices=["probe"])
    ap.add_argument("--vocab", type=int, default=151936)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--intermediate", type=int, default=0, help="default: 2 x hidden")
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--kv-heads", type=int, default=1)
    ap.add_argument("--tokens", type=int, default=4096, help="response tokens per row")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=512, help="logprob_chunk_tokens")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--full-logits", action="store_true")
    ap.add_argument("--checkpointing", action="store_true")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--dtype", choices=["", "fp32", "bf16", "mixed"], default="",
                    help="bf16 weights, or bf16 autocast over fp32 weights (mixed); default: mixed on CUDA, fp32 on CPU")
    a = ap.parse_args(argv)
    import torch

    if a.device == "cpu":
        torch.set_num_threads(1)
    heads = max(1, a.hidden // a.head_dim)
    shape = Shape(a.vocab, a.hidden, a.layers, a.intermediate or 2 * a.hidden, heads, min(a.kv_heads, heads),
                  a.head_dim, tied=True)
    print(json.dumps(probe(shape, a.batch, a.tokens, a.chunk, a.device, a.full_logits, a.checkpointing, a.steps,
                           dtype=a.dtype)))


if __name__ == "__main__":
    main(sys.argv[1:])
