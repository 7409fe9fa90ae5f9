"""train.py: SFT, then GRPO/GSPO (+ the novelty bonus) on torchrun.

    torchrun --nproc_per_node N train.py --config configs/paper/gspo_novelty.yaml [key=value ...]
    python train.py --config configs/smoke/sft.yaml            # one process (CPU: gloo)
    python train.py --config configs/paper/gspo_novelty.yaml --plan gpus=8 gpu_mem_gb=80 model=Qwen/Qwen2.5-7B
                                                               # memory per GPU, before booking the cluster

stage=sft: prompt + response pairs (or records + rejection-sampled `responses` from
    `generate.py --config configs/generate/sft_traces.yaml`), the tokenizer's chat template, loss on
    response tokens only.
stage=rl: each step reads top to bottom: sample prompts -> rollouts -> rewards (+ novelty bonus)
    -> advantages -> loss -> optimizer steps -> log -> checkpoint. The math is in utils/losses.py
    and utils/rewards.py.

Everything goes to runs/<name>/: config.yaml, run_info.json, metrics.jsonl, samples.jsonl,
checkpoints/step_*/ (HF model dir + trainer_state.pt) and final/ (the last model).
Re-running the same command continues from the newest intact checkpoint exactly; a changed
config or changed data is refused (naming the keys or the file) unless resume=true, which records
the change as a new segment in config_segments.yaml (config.yaml keeps the settings the run
started with). One train.py per run directory (its .lock); SIGTERM or SIGINT finishes the step,
writes a checkpoint and exits 128 + the signal number. docs/reliability.md lists the guarantees.
"""
from __future__ import annotations

import json
import math
import os
import re
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from envs.sampler import SamplerConfig
from utils.config import field, load
from utils.engine import EngineConfig

STAGES = ("sft", "rl")


@dataclass
class LoraSection:
    enabled: bool = field(False, help="train LoRA adapters (peft) instead of all weights; checkpoints hold "
                                      "merged weights in model/ and the adapter alone (peft format) in adapter/")
    r: int = field(16, help="LoRA rank", ge=1)
    alpha: int = field(32, help="LoRA alpha (scaling alpha / r)", gt=0)
    dropout: float = field(0.0, help="LoRA dropout probability", ge=0, lt=1)
    target_modules: List[str] = field(["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
                                      help="module names that get adapters")


@dataclass
class OptimSection:
    lr: float = field(1e-6, help="peak AdamW learning rate (typical: 1e-5 SFT, 1e-6 RL)", gt=0)
    weight_decay: float = field(0.0, help="AdamW weight decay", ge=0)
    betas: List[float] = field([0.9, 0.999], help="AdamW betas (two)", ge=0, lt=1)
    max_grad_norm: float = field(1.0, help="clip the global gradient norm; 0: no clipping (the norm is still logged)",
                                 ge=0)
    warmup_steps: int = field(0, help="linear warmup, in optimizer steps (RL: rl.minibatches per step)", ge=0)
    schedule: str = field("constant", help="learning-rate shape after warmup", choices=("constant", "cosine", "linear"))
    min_lr_ratio: float = field(0.0, help="cosine/linear: final lr as a fraction of lr (0: decay to 0; 1: no decay)",
                                ge=0, le=1)
    trainable: List[str] = field([], help="regular expressions: only the parameters whose HF name matches one "
                                          "are trained, the rest are frozen (e.g. [norm]: the RMSNorm gains, "
                                          "BitFit-style); empty: all (or LoRA's adapters)")


@dataclass
class SFTSection:
    data: List[str] = field([], help="JSONL files, globs or shard directories (read for `split`): {prompt, "
                                     "response}, or records with `responses` (generate.py mode=sft_traces), or "
                                     "records with a gold `answer` (use_answer). A test split is refused")
    split: str = field("", help="the split read from each directory in `data` (e.g. train: the "
                                "<split>-NNNNN.jsonl shards); required for a directory")
    use_answer: bool = field(False, help="also train on records' gold `answer` (rows without response(s))")
    max_len: int = field(4096, help="prompt + response tokens; longer responses are truncated (counted and logged)",
                         ge=1)
    epochs: int = field(1, help="passes over the data", ge=1)
    max_steps: int = field(0, help="stop after this many optimizer steps; 0: epochs decide", ge=0)
    batch_size: int = field(32, help="examples per optimizer step, over all ranks", ge=1)
    micro_batch_size: int = field(8, help="examples per forward pass on one rank (gradient accumulation)", ge=1)


@dataclass
class NoveltySection:
    enabled: bool = field(False, help="puzzle_to_math line 99: bonus for correct rollouts whose reasoning the frozen "
                                      "reference (ref_model: the SFT checkpoint) finds unlikely")
    weight: float = field(0.1, help="bonus scale. The paper does not publish its weight; 0.1 is ours", ge=0)
    norm: str = field("minmax", help="normalisation of u among a group's correct rollouts (the paper does not publish "
                                     "it). minmax (default): the bonus lies in [0, weight], never a penalty for a "
                                     "correct rollout; rank: the same range, outlier-robust; zscore subtracts from "
                                     "the correct rollouts below the group mean", choices=("minmax", "rank", "zscore"))
    k: int = field(100, help="u = mean of the k largest token NLLs under the reference (paper: k=100, line 105)", ge=1)
    stat: str = field("topk", help="the novelty statistic: topk (the paper's) or mean (mean token NLL: the ablation "
                                   "of Appendix O)", choices=("topk", "mean"))
    scope: str = field("reasoning", help="tokens scored: reasoning (inside <reasoning>, or before <answer>: the "
                                         "paper rewards surprising reasoning, not a surprising answer format) or "
                                         "response (all)", choices=("reasoning", "response"))


@dataclass
class RLSection:
    steps: int = field(100, help="RL steps (one rollout batch each)", ge=1)
    batch_size: int = field(256, help="rollouts per step over all ranks (= prompts x group_size)", ge=1)
    group_size: int = field(8, help="rollouts per prompt, G (code-RL paper: 8); at least 2: advantages compare the "
                                        "rollouts of one prompt", ge=2)
    minibatches: int = field(4, help="optimizer steps per rollout batch (GSPO: 4)", ge=1)
    micro_batch_size: int = field(8, help="rollouts per forward pass on one rank (gradient accumulation)", ge=1)
    level: str = field("sequence", help="importance ratio: token (GRPO) or sequence (GSPO)",
                       choices=("token", "sequence"))
    eps_low: Optional[float] = field(None, help="lower clip; default by level: token 0.2 (code-RL paper), "
                                                "sequence 3e-4 (GSPO paper); below 1: the ratio's lower bound is "
                                                "1 - eps_low", ge=0, lt=1)
    eps_high: Optional[float] = field(None, help="upper clip (clip-higher); default by level: token 0.25 (code-RL "
                                                 "paper), sequence 4e-4 (GSPO paper)", ge=0)
    agg: str = field("seq_mean_token_mean", help="loss aggregation over tokens",
                     choices=("seq_mean_token_mean", "token_mean"))
    scale_rewards: str = field("none", help="divide advantages by the group's reward std: none (code-RL paper, "
                                            "Dr. GRPO) or group (original GRPO, and GSPO's group-based advantage)",
                               choices=("none", "group"))
    entropy_coef: float = field(0.0, help="loss-level entropy bonus: loss -= coef * mean token entropy (puzzle_to_math "
                                          "line 111 screened it in pilots; off by default)", ge=0)
    entropy_adv_alpha: float = field(0.0, help="entropy-shaped advantage A + min(alpha * H, |A| / kappa) with H the "
                                               "rollout's mean token entropy (Cheng et al. 2025a; puzzle_to_math line "
                                               "111 screened it); 0: off", ge=0)
    entropy_adv_kappa: float = field(2.0, help="the clip of the entropy-shaped advantage: at most |A| / kappa "
                                               "(above 1: the shaped advantage keeps A's sign)", gt=1)
    kl_coef: float = field(0.0, help="weight of the k3 KL to ref_model (code-RL paper: 0, no reference loaded)", ge=0)
    temperature: float = field(1.0, help="rollout sampling temperature (also applied to training log-probs); > 0: "
                                                  "the ratio needs the sampling distribution", gt=0)
    top_p: float = field(1.0, help="rollout nucleus sampling", gt=0, le=1)
    max_tokens: int = field(2048, help="response budget per rollout; longer ones are cut (clipped_ratio)", ge=1)
    max_prompt_tokens: int = field(0, help="the longest prompt allowed (chat template included), in tokens; 0: "
                                           "what the model's positions (vllm: engine.max_model_len) leave after "
                                           "max_tokens. A longer static record stops the run at load with one line "
                                           "naming file:line (vLLM would cut its response short)", ge=0)
    async_rollouts: bool = field(False, help="one-step off-policy: generate step t+1 while step t trains; the "
                                             "ratio uses the behaviour log-probs (`async` is a Python keyword)")
    engine: EngineConfig = field(EngineConfig(), help="rollout backend: hf (the live model; a synced copy under "
                                                      "FSDP or async) or vllm (colocated, one engine per GPU, or per "
                                                      "group of engine.tensor_parallel_size consecutive ranks, weights "
                                                      "synced each step); engine.model and engine.revision are ignored "
                                                      "(model, model_revision)")
    log_samples: int = field(4, help="rollouts per step written to samples.jsonl (whole groups first), for the "
                                     "training-dynamics analyses (analyze.py over steps); 0: none; -1: all", ge=-1)


@dataclass
class HardwareSection:
    nodes: int = field(1, help="nodes of the cluster this config is planned for", ge=1)
    gpus_per_node: int = field(8, help="GPUs per node", ge=1)
    gpu_mem_gb: float = field(80.0, help="memory per GPU, GB", gt=0)
    name: str = field("", help="the GPUs, and where the choice comes from (the paper's line, or ours)")


@dataclass
class TrainConfig:
    stage: str = field("rl", help="sft or rl", choices=STAGES)
    name: str = field("train", help="run name: everything goes to <out_dir>/<name>/")
    out_dir: str = field("runs", help="parent of run directories")
    model: str = field("", help="policy: HF directory (e.g. the SFT run's final/) or hub name")
    ref_model: str = field("", help="frozen reference for the novelty bonus and KL (the SFT checkpoint); "
                                    "loaded only when one of them needs it")
    model_revision: str = field("", help="the hub branch, tag or commit of a hub-name `model` (empty: the "
                                         "repository's default branch); every loader takes it (weights, tokenizer, "
                                         "vLLM, --plan). Refused with a local directory")
    ref_model_revision: str = field("", help="as model_revision, for ref_model")
    system_prompt: str = field("", help="system message added to every prompt (SFT and RL)")
    chat_template: str = field("", help="replace the tokenizer's chat template (a Jinja string or a .jinja file) "
                                        "for SFT, rollouts and the saved checkpoints; empty: the model's own")
    enable_thinking: Optional[bool] = field(None, help="the chat template's enable_thinking switch (Qwen3: false "
                                                       "skips the <think> block), fixed in the saved tokenizer too; "
                                                       "null: the template's default")
    seed: int = field(0, help="seeds prompts, rollouts and data order (an integer >= 0)", ge=0)
    dtype: str = field("auto", help="auto: fp32 weights with bf16 autocast on GPU, fp32 on CPU; mixed: bf16 autocast "
                                    "on CPU too (x86 with AVX512-BF16: about 1.8x faster than fp32 for SmolLM2-135M "
                                    "on one core); bfloat16: bf16 weights",
                       choices=("auto", "mixed", "float32", "bfloat16"))
    strategy: str = field("auto", help="auto: none on one process, FSDP2 if the model does not fit one GPU, "
                                       "else DDP. hsdp: FSDP2 sharded within groups of hsdp_shard_size ranks "
                                       "(a node), replicated across them (2+ nodes)",
                          choices=("auto", "none", "ddp", "fsdp", "hsdp"))
    hsdp_shard_size: int = field(0, help="strategy=hsdp: ranks per shard group; 0: the ranks of one node "
                                         "(torchrun's LOCAL_WORLD_SIZE)", ge=0)
    logprob_chunk_tokens: int = field(512, help="tokens (over a micro-batch's rows) whose full-vocabulary logits "
                                                "exist at once when computing log-probs and entropy from the hidden "
                                                "states (never batch x tokens x vocab): ~3 float32 copies, 0.9 GB at "
                                                "vocabulary 152k", ge=1)
    gradient_checkpointing: bool = field(False, help="recompute activations in backward (less memory)")
    lora: LoraSection = field(LoraSection(), help="optional LoRA (both stages)")
    optim: OptimSection = field(OptimSection(), help="optimizer and learning-rate schedule")
    sft: SFTSection = field(SFTSection(), help="stage=sft")
    rl: RLSection = field(RLSection(), help="stage=rl")
    novelty: NoveltySection = field(NoveltySection(), help="stage=rl: novelty bonus")
    data: SamplerConfig = field(SamplerConfig(), help="stage=rl: prompt sources, env mix, curriculum, adaptive "
                                                      "difficulty")
    save_every: int = field(50, help="checkpoint every this many steps (and at the end)", ge=1)
    keep_last: int = field(2, help="checkpoints kept for resuming", ge=1)
    keep_steps: List[int] = field([], help="steps whose model is kept in <run>/kept/step_N/ (hard links, never pruned) "
                                           "for training-dynamics analyses (puzzle_to_math line 29: ten checkpoints)",
                                  ge=1)
    keep_every: int = field(0, help="also keep the model every this many steps (0: only keep_steps)", ge=0)
    resume: bool = field(False, help="the same config always continues from the run's newest intact checkpoint; "
                                     "true: continue even if the config differs from the one that wrote it "
                                     "(e.g. more steps)")
    tensorboard: bool = field(False, help="also log to TensorBoard in <run>/tb (needs `pip install tensorboard`)")
    wandb: bool = field(False, help="also log to Weights & Biases (needs `pip install wandb` and `wandb login`, or "
                                    "WANDB_MODE=offline); a resumed run continues the same W&B run")
    wandb_project: str = field("rlvr-lab", help="W&B project")
    log_every: int = field(0, help="print a step line every this many steps (the first and last always); 0: at most "
                                   "one line per 30 s. metrics.jsonl and curves.png get every step", ge=0)
    peak_tflops: float = field(0.0, help="GPU peak bf16 TFLOPS for the MFU metric; 0: guess from the GPU name", ge=0)
    cpu_threads: int = field(0, help="torch threads on CPU; 0: torch's default. On a small or shared machine 1 is "
                                     "often several times faster (idle OpenMP threads spin)", ge=0)
    hardware: HardwareSection = field(HardwareSection(), help="the cluster this config is for: `train.py --plan` "
                                                              "checks that the run fits it (training reads the GPUs "
                                                              "it runs on)")
    plan_model: str = field("", help="--plan: the model whose shape is planned when `model` is an earlier stage's "
                                     "output not written yet (the model that stage starts from)")

    def keep(self, step: int) -> bool:
        """Whether step's model is kept for analysis (and so checkpointed even off save_every)."""
        return step in self.keep_steps or (self.keep_every > 0 and step % self.keep_every == 0)

    def clip_eps(self) -> tuple[float, float]:
        low, high = (0.2, 0.25) if self.rl.level == "token" else (3e-4, 4e-4)
        return (low if self.rl.eps_low is None else self.rl.eps_low,
                high if self.rl.eps_high is None else self.rl.eps_high)

    def validate(self):
        from utils import modelpath

        if not self.model:
            yield "model", "missing model path (an HF directory or hub name)"
        for key in ("model", "ref_model"):
            value, revision = getattr(self, key), getattr(self, f"{key}_revision")
            if bad := modelpath.revision_problem(revision, value):
                yield f"{key}_revision", bad
            elif bad := value and modelpath.problem(value, revision):
                yield key, bad
        from utils.engine import template_problem

        if template_problem(self.chat_template):
            yield "chat_template", template_problem(self.chat_template)
        if len(self.optim.betas) != 2:  # their range is the field's
            yield "optim.betas", f"AdamW takes two betas in [0, 1), not {list(self.optim.betas)}"
        if self.optim.trainable and self.lora.enabled:
            yield "optim.trainable", "choose it or lora.enabled, not both (LoRA trains its adapters only)"
        for pattern in self.optim.trainable:
            try:
                re.compile(pattern)
            except re.error as e:
                yield "optim.trainable", f"{pattern!r} is not a regular expression ({e})"
        if self.tensorboard:
            import importlib.util

            if importlib.util.find_spec("tensorboard") is None:
                yield "tensorboard", "needs the tensorboard package (pip install tensorboard)"
        if self.wandb:
            import importlib.util

            if importlib.util.find_spec("wandb") is None:
                yield "wandb", "needs the wandb package (pip install wandb)"
        if self.stage == "sft":
            s = self.sft
            if not s.data:
                yield "sft.data", "no SFT data files given"
            from utils.records import DataRefError, resolve_split

            for i, p in enumerate(s.data):
                try:
                    resolve_split(p, s.split)
                except DataRefError as e:
                    yield f"sft.data.{i}" if e.key == "data" else "sft.split", str(e)
            if s.micro_batch_size > s.batch_size:
                yield "sft.micro_batch_size", (f"{s.micro_batch_size} must be <= sft.batch_size {s.batch_size} "
                                               f"(examples per forward pass on one rank, of a step's batch)")
            return
        r = self.rl
        if r.batch_size % r.group_size:
            yield "rl.batch_size", f"{r.batch_size} rollouts is not a multiple of rl.group_size={r.group_size}"
        if r.batch_size % r.minibatches:
            yield "rl.minibatches", f"rl.batch_size={r.batch_size} is not a multiple of {r.minibatches}"
        if r.micro_batch_size > r.batch_size:  # no forward pass on any rank holds more than a step's rollouts
            yield "rl.micro_batch_size", (f"{r.micro_batch_size} must be <= rl.batch_size {r.batch_size} "
                                          f"(rollouts per forward pass on one rank, of a step's batch)")
        if r.kl_coef > 0 and not self.ref_model:
            yield "rl.kl_coef", "KL needs ref_model (the frozen reference)"
        if self.novelty.enabled and not self.ref_model:
            yield "novelty.enabled", "the novelty bonus needs ref_model (the frozen SFT checkpoint)"
        if r.async_rollouts and r.top_p < 1.0:
            # the trainer's log-probs are of the whole distribution at the temperature; the hf
            # engine's too (not the nucleus it sampled from), vLLM's of the nucleus renormalised
            yield "rl.async_rollouts", ("the ratio divides by the behaviour log-probs of the distribution sampled "
                                        "from, which top_p < 1 cuts to a nucleus the trainer does not recompute: "
                                        "use rl.top_p=1")
        if r.engine.backend not in ("hf", "vllm"):
            yield "rl.engine.backend", "rollouts need hf or vllm (log-probs and token ids)"
        tp = r.engine.tensor_parallel_size
        if tp > 1 and r.engine.backend != "vllm":
            yield "rl.engine.tensor_parallel_size", ("only the vllm backend shards one engine over the GPUs of a "
                                                     "tensor-parallel group; the hf engine is one whole model per rank")
        if r.engine.backend == "vllm" and (r.max_prompt_tokens or 1) + r.max_tokens > r.engine.max_model_len:
            yield "rl.engine.max_model_len", (f"{r.engine.max_model_len} < rl.max_prompt_tokens {r.max_prompt_tokens} "
                                              f"+ rl.max_tokens {r.max_tokens}: vLLM would cut responses short")
        for key in ("chat_template", "enable_thinking"):
            if getattr(r.engine, key) not in ("", None):
                yield f"rl.engine.{key}", f"set the top-level {key}: it applies to SFT, rollouts and checkpoints alike"
        yield from self.data.validate("data")


# =============================================================================== shared pieces


def encode_prompt(tokenizer, text: str, system: str) -> list[int]:
    from utils.engine import chat

    ids = tokenizer.apply_chat_template(chat(text, system or None), add_generation_prompt=True, tokenize=True)
    return list(ids["input_ids"] if hasattr(ids, "keys") else ids)


def revision(cfg: TrainConfig, path: str) -> str | None:
    """model_revision when `path` is the configured model (a resumed run loads its own checkpoint, a
    local directory: no revision)."""
    return (cfg.model_revision or None) if path == cfg.model else None


def load_tokenizer(cfg: TrainConfig, path: str):
    """The policy's tokenizer with this run's chat template (saved with every checkpoint): alone,
    so the data can be checked against it before the weights load."""
    from transformers import AutoTokenizer

    from utils.engine import template_overrides

    tok = AutoTokenizer.from_pretrained(path, revision=revision(cfg, path))
    template_overrides(tok, cfg.chat_template, cfg.enable_thinking)
    return tok


def build_model(cfg: TrainConfig, ctx, path: str, lora_state: dict | None = None, tok=None):
    """The trainable policy: HF weights from `path`, LoRA on top if enabled (with saved LoRA weights
    when resuming). Returns (unwrapped model, tokenizer)."""
    import torch
    from transformers import AutoModelForCausalLM

    tok = load_tokenizer(cfg, path) if tok is None else tok
    dtype = torch.bfloat16 if cfg.dtype == "bfloat16" else torch.float32
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, revision=revision(cfg, path))
    if cfg.gradient_checkpointing:
        # non-reentrant: reentrant checkpointing drops the gradients of LoRA weights behind frozen inputs
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.config.use_cache = False
    if cfg.lora.enabled:
        from peft import LoraConfig, get_peft_model

        # the adapters' random init: the same on every rank (FSDP2 does not broadcast it) as in one process
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(cfg.seed)
            model = get_peft_model(model, LoraConfig(r=cfg.lora.r, lora_alpha=cfg.lora.alpha,
                                                     lora_dropout=cfg.lora.dropout, task_type="CAUSAL_LM",
                                                     target_modules=list(cfg.lora.target_modules)))
        if lora_state:
            missing = set(lora_state) - set(model.state_dict())
            if missing:
                raise RuntimeError(f"checkpoint LoRA weights do not match this model: {sorted(missing)[:3]}")
            model.load_state_dict(lora_state, strict=False)
    if cfg.optim.trainable:  # frozen parameters get no gradient and no optimizer state
        for name, p in model.named_parameters():
            p.requires_grad_(any(re.search(pattern, name) for pattern in cfg.optim.trainable))
        if not any(p.requires_grad for p in model.parameters()):
            stop(cfg, "optim.trainable", f"no parameter of {path} matches {cfg.optim.trainable}")
    return model, tok  # on CPU: dist.wrap places it (FSDP2 moves one shard unit at a time)


def load_reference(path: str, ctx, revision: str = ""):
    """The frozen reference (novelty bonus, KL), on CPU until dist.wrap shards or places it."""
    import torch
    from transformers import AutoModelForCausalLM

    dtype = torch.bfloat16 if ctx.device.type == "cuda" else torch.float32
    ref = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, revision=revision or None)
    ref.requires_grad_(False)
    return ref.eval()


def wrap(model, strategy: str, mesh, cfg: TrainConfig, ctx, trainable: bool = True):
    """dist.wrap with this run's settings: the model as a LogprobModel, placed, DDP- or FSDP2-wrapped."""
    from utils import dist

    autocast = cfg.dtype == "mixed" or (cfg.dtype == "auto" and ctx.device.type == "cuda")
    return dist.wrap(model, strategy, ctx, mesh=mesh, bf16=autocast, chunk_tokens=cfg.logprob_chunk_tokens,
                     trainable=trainable)


def make_optimizer(cfg: TrainConfig, model, total_steps: int):
    import torch

    o = cfg.optim
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=o.lr, betas=tuple(o.betas), weight_decay=o.weight_decay)

    def shape(step: int) -> float:
        if step < o.warmup_steps:
            return (step + 1) / o.warmup_steps
        if o.schedule == "constant":
            return 1.0
        frac = min(1.0, (step - o.warmup_steps) / max(1, total_steps - o.warmup_steps))
        decay = 0.5 * (1 + math.cos(math.pi * frac)) if o.schedule == "cosine" else 1 - frac
        return o.min_lr_ratio + (1 - o.min_lr_ratio) * decay

    return opt, torch.optim.lr_scheduler.LambdaLR(opt, shape)


def collate(rows: list[tuple[list[int], list[int]]], pad_id: int, device):
    """(prompt ids, response ids) pairs -> model inputs with prompts left-padded and responses
    right-padded, so the responses are the last columns; also the response ids and their mask."""
    import torch

    P = max(len(p) for p, _ in rows)
    T = max(1, max(len(r) for _, r in rows))
    ids = torch.full((len(rows), P + T), pad_id, dtype=torch.long)
    attn = torch.zeros((len(rows), P + T), dtype=torch.long)
    for b, (p, r) in enumerate(rows):
        ids[b, P - len(p):P] = torch.tensor(p, dtype=torch.long)
        ids[b, P:P + len(r)] = torch.tensor(r, dtype=torch.long)
        attn[b, P - len(p):P + len(r)] = 1
    pos = (attn.cumsum(1) - 1).clamp(min=0)
    ids, attn, pos = ids.to(device), attn.to(device), pos.to(device)
    return {"input_ids": ids, "attention_mask": attn, "position_ids": pos}, ids[:, P:], attn[:, P:].float()


def clip_and_check(model, cfg: TrainConfig):
    """Clip the global gradient norm; returns it (identical on every rank: computed on reduced grads)."""
    import torch

    norm = torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad],
                                          cfg.optim.max_grad_norm if cfg.optim.max_grad_norm > 0 else float("inf"))
    if hasattr(norm, "full_tensor"):  # FSDP2: a DTensor
        norm = norm.full_tensor()
    return float(norm)


class NonFinite(RuntimeError):
    pass


def keep_model(cfg: TrainConfig, ctx, run_dir: Path, step: int, ckpt: Path) -> None:
    """<run>/kept/step_N/: the model of a step kept for analysis, hard-linked from its checkpoint, so
    pruning to keep_last leaves it."""
    if ctx.main and cfg.keep(step):
        from utils import checkpoint

        checkpoint.link_final(ckpt, run_dir / "kept" / f"step_{step:08d}")


def stop(cfg: TrainConfig, key: str, msg: str) -> None:
    """A config problem only visible at run time (world size, data size): one line naming the key and
    the file, like load()'s, exit code 2."""
    from utils.config import fail

    fail(cfg, key, msg, "train.py")


# Every file of the run directory a step appends to; each row carries its "step". A resumed run
# redoes the steps after its checkpoint, so Log cuts each of these back to the checkpoint's step
# first (one mechanism for all of them), and Log.append writes to no other file.
STEP_LOGS = ("metrics.jsonl", "samples.jsonl", "solved.jsonl")


class Log:
    """Rank 0: metrics.jsonl (every step), samples.jsonl (Log.append), runs/<name>/curves.png
    (redrawn at most once a minute and at the end), TensorBoard and Weights & Biases when enabled;
    a step line on stdout every `log_every` steps (0: at most one per 30 s), always the first and
    the last, with the adaptive controller's difficulty per env when there is one."""

    def __init__(self, run_dir: Path, cfg: TrainConfig, ctx, resume_step: int):
        from utils.records import cut_after_step, read_jsonl_tolerant

        self.path, self.main, self.run_dir, self.cfg = run_dir / "metrics.jsonl", ctx.main, run_dir, cfg
        self.tb = self.wandb = None
        self.pending, self.printed_at, self.plotted_at = None, 0.0, 0.0
        if not self.main:
            return
        # a resumed run redoes the steps after its checkpoint: each step is logged once, in every file
        for name in STEP_LOGS:
            cut_after_step(run_dir / name, resume_step)
        self.rows = read_jsonl_tolerant(self.path)
        if cfg.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            # the events of steps after the checkpoint that a crashed run wrote are hidden
            self.tb = SummaryWriter(str(run_dir / "tb"), purge_step=resume_step + 1 if resume_step else None)
        if cfg.wandb:
            self.wandb = _wandb_run(run_dir, cfg)

    def append(self, name: str, rows: list[dict]) -> None:
        """Rank 0: this step's rows (each with its "step") to one of STEP_LOGS."""
        if name not in STEP_LOGS:
            raise ValueError(f"{name} is not in STEP_LOGS: a resume would not cut it back")
        if self.main:
            from utils.records import append_jsonl

            append_jsonl(self.run_dir / name, rows)

    def __call__(self, step: int, metrics: dict, line: str) -> None:
        if not self.main:
            return
        row = {"step": step, **metrics}
        self.append(self.path.name, [row])
        self.rows.append(row)
        scalars = {k: v for k, v in metrics.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if self.tb is not None:
            for k, v in scalars.items():
                self.tb.add_scalar(k, v, step)
        if self.wandb is not None:
            self.wandb.log(scalars, step=step)
        difficulty = {k.split("/", 1)[1]: v for k, v in metrics.items() if k.startswith("difficulty/")}
        if difficulty:
            line += " | difficulty " + " ".join(f"{env} {d}" for env, d in difficulty.items())
        now = time.time()
        every = self.cfg.log_every
        if len(self.rows) == 1 or (step % every == 0 if every else now - self.printed_at >= 30):
            print(line, flush=True)
            self.printed_at, self.pending = now, None
        else:
            self.pending = line
        if now - self.plotted_at >= 60:
            self.plot()

    def plot(self) -> None:
        from utils.plots import training_curves

        self.plotted_at = time.time()
        if self.rows:
            training_curves(self.rows, self.run_dir / "curves.png", title=f"{self.cfg.name} ({self.cfg.stage})")

    def close(self) -> None:
        """At the end of training: the last step's line, the final curves, flushed loggers."""
        if not self.main:
            return
        if self.pending:
            print(self.pending, flush=True)
        self.plot()
        if self.tb is not None:
            self.tb.close()
        if self.wandb is not None:
            self.wandb.finish()


def _wandb_run(run_dir: Path, cfg: TrainConfig):
    """A W&B run whose id is kept in the run directory, so a resumed run continues the same curves."""
    import dataclasses
    import uuid

    import wandb

    id_file = run_dir / "wandb_id"
    run_id = id_file.read_text().strip() if id_file.is_file() else uuid.uuid4().hex[:12]
    id_file.write_text(run_id + "\n")
    return wandb.init(project=cfg.wandb_project, name=cfg.name, id=run_id, resume="allow", dir=str(run_dir),
                      config=dataclasses.asdict(cfg))


def peak_flops(cfg: TrainConfig, ctx) -> float | None:
    if ctx.device.type != "cuda":
        return None
    if cfg.peak_tflops:
        return cfg.peak_tflops * 1e12
    import torch

    name = torch.cuda.get_device_name(ctx.device)
    table = {"H100": 989e12, "H200": 989e12, "H800": 989e12, "A100": 312e12, "A800": 312e12, "B200": 2250e12,
             "L40S": 362e12, "4090": 165e12}
    return next((v for k, v in table.items() if k in name), None)


# keys that change how a run is watched or saved, not what it computes: a resume may change them
RUN_ONLY_KEYS = ("resume", "cpu_threads", "tensorboard", "wandb", "wandb_project", "log_every", "save_every",
                 "keep_last", "keep_steps", "keep_every", "rl.log_samples", "peak_tflops", "lora.save_adapter",
                 "hardware", "plan_model")


@dataclass
class RunStart:
    """Where a run starts: its directory, the checkpoint it resumes (None: from scratch) and that
    checkpoint's trainer state, its data's fingerprint, and the settings or data that changed
    since that checkpoint (resume=true)."""
    dir: Path
    ckpt: Optional[Path]
    state: Optional[dict]
    data: dict
    changes: List[str]

    @property
    def step(self) -> int:
        return self.state["step"] if self.state is not None else 0

    def files(self, cfg: TrainConfig) -> dict:
        """What each checkpoint holds beside the weights: the config and the data fingerprint that
        wrote it (a resume compares against both)."""
        from utils.config import to_yaml

        return {"config.yaml": to_yaml(cfg), DATA_PRINT: json.dumps(self.data, indent=1, sort_keys=True) + "\n"}


DATA_PRINT = "data_fingerprint.json"  # in each checkpoint: {file: {size, sha256}} of the data it trained on
SEGMENTS = "config_segments.yaml"  # in the run directory: the settings changed by resume=true, from which step


def data_files(cfg: TrainConfig) -> list[Path]:
    """The record files this run reads (SFT data, RL static sources)."""
    from utils.records import resolve_split

    refs = [(p, cfg.sft.split) for p in cfg.sft.data] if cfg.stage == "sft" else \
        [(s.data, s.split) for s in cfg.data.sources if s.data]
    return [f for p, split in refs for f in resolve_split(p, split)]


def data_changes(old: dict, new: dict) -> list[str]:
    """"data <file>: ..." for every data file added, removed or changed since the fingerprint `old`."""
    out = []
    for f in sorted(set(old) | set(new)):
        a, b = old.get(f), new.get(f)
        if a != b:
            what = ("added" if a is None else "removed" if b is None else
                    f"size {a['size']} -> {b['size']}, sha256 {a['sha256'][:12]} -> {b['sha256'][:12]}")
            out.append(f"data {f}: {what}")
    return out


def start(cfg: TrainConfig, ctx) -> RunStart:
    """Run directory and resume point (the caller holds the run's lock). The same command resumes:
    rank 0 picks the newest checkpoint whose checksums hold (a corrupt one is set aside with one
    line) and every rank takes that one. A checkpoint written under another config or on other
    data (a file's size or sha256) is refused, naming the first key or file that differs, unless
    resume=true; a run is never overwritten by accident. Nothing is written here: provenance()
    writes config.yaml and run_info.json once the model and data have passed."""
    from utils import checkpoint, dist
    from utils.config import config_changes
    from utils.records import fingerprint_files

    run_dir = Path(cfg.out_dir) / cfg.name

    def warn(msg: str) -> None:
        print(f"train.py: {msg}", file=sys.stderr, flush=True)

    ckpt = dist.broadcast_object(checkpoint.latest_intact(run_dir, warn) if ctx.main else None)
    data = dist.broadcast_object(fingerprint_files(data_files(cfg)) if ctx.main else None)
    changed = []
    if ckpt is not None:
        written = ckpt / "config.yaml" if (ckpt / "config.yaml").is_file() else run_dir / "config.yaml"
        changed = config_changes(written, cfg, ignore=RUN_ONLY_KEYS)
        if (ckpt / DATA_PRINT).is_file():  # checkpoints of older versions have none: nothing to compare
            changed += data_changes(json.loads((ckpt / DATA_PRINT).read_text()), data)
        if changed and not cfg.resume:
            first = changed[0]
            key = ("sft.data" if cfg.stage == "sft" else "data.sources") if first.startswith("data ") \
                else first.split(":")[0]
            what = "other data" if first.startswith("data ") else "another config"
            stop(cfg, key, f"{run_dir} has checkpoints of {what} ({'; '.join(changed)}): pass resume=true to "
                           f"continue with this one (recorded in {SEGMENTS}), or choose another name=")
        if ctx.main:
            print(f"train.py: resuming {run_dir} from {ckpt.name}" + (f" with {'; '.join(changed)}" if changed else ""),
                  flush=True)
    state = checkpoint.load_state(ckpt, ctx.main) if ckpt is not None else None
    return RunStart(run_dir, ckpt, state, data, changed)


def provenance(cfg: TrainConfig, ctx, run: RunStart) -> None:
    """config.yaml and run_info.json, the first files of a run: written only after every run-time
    check of the config (optim.trainable against the model, the data's contents, batch sizes)
    has passed, so a refused run leaves nothing behind. A resumed run keeps config.yaml (the
    settings its first steps ran with: history is not rewritten); a setting or data file that
    resume=true changed is recorded in config_segments.yaml as a segment from the next step on.
    Segments from steps this resume redoes are dropped, as the metrics of those steps are."""
    import yaml

    from utils.config import save_run_info
    from utils.records import atomic_write_text

    if not ctx.main:
        return
    seg_file = run.dir / SEGMENTS
    if run.ckpt is None or not (run.dir / "config.yaml").is_file():
        save_run_info(cfg, run.dir, seed=cfg.seed)
        seg_file.unlink(missing_ok=True)  # of an earlier run whose checkpoints are gone
        return
    save_run_info(cfg, run.dir, seed=cfg.seed, config=False)
    old = yaml.safe_load(seg_file.read_text()) if seg_file.is_file() else []
    segments = [g for g in old or [] if g["from_step"] <= run.step]
    if run.changes:
        segments.append({"from_step": run.step + 1, "changes": list(run.changes)})
    if segments:
        atomic_write_text(seg_file, yaml.safe_dump(segments, sort_keys=False, width=1000))
    else:
        seg_file.unlink(missing_ok=True)


def save_bad_batch(run_dir: Path, step: int, ctx, payload: dict, what: str) -> None:
    import torch

    path = run_dir / "nonfinite" / f"step_{step:08d}_rank{ctx.rank}.pt"
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(payload, path)
    raise NonFinite(f"train.py: {what} at step {step}; the batch is saved in {path.parent}/ for inspection")


def finish(cfg: TrainConfig, ctx, run_dir: Path, ckpt: Path | None, signum: int, step: int,
           total: int) -> Stopped | None:
    """After the loop: final/ from the last checkpoint; stopped by a signal, no final/ (the run is
    not done) and the Stopped to raise once the caller has closed what it holds."""
    from utils import checkpoint, dist

    if ctx.main and ckpt is not None and not signum:
        checkpoint.prune(run_dir, cfg.keep_last)
        checkpoint.link_final(ckpt, run_dir / "final")
    dist.barrier()
    if signum:
        where = f"checkpoint {ckpt} holds step {step}" if ckpt is not None else "no step was done, nothing to save"
        return Stopped(signum, f"stopped by {signal.Signals(signum).name} at step {step}/{total}: {where}; "
                              f"the same command resumes")


class Stopped(Exception):
    """A run stopped by SIGTERM/SIGINT after checkpointing: exit 128 + signum with this one line."""

    def __init__(self, signum: int, msg: str):
        super().__init__(msg)
        self.signum = signum


class StopSignals:
    """SIGTERM (what SLURM and torchrun send before a kill) and SIGINT (Ctrl-C) ask the run to stop:
    the step in flight finishes, a checkpoint is written and train.py exits 128 + signum. The
    handler only sets a flag; agreed() reduces it over the ranks once per step, so every rank
    stops after the same step even when only one got the signal. A repeat within 2 s is the same
    request (Ctrl-C reaches torchrun and its workers, which torchrun forwards it to again); a repeat
    later means now: one line, exit at once, the last checkpoint resumes (our choice)."""

    def __init__(self):
        self.signum, self.at, self.old = 0, 0.0, {}
        import threading

        if threading.current_thread() is threading.main_thread():  # only the main thread may set handlers
            self.old = {s: signal.signal(s, self._handle) for s in (signal.SIGTERM, signal.SIGINT)}

    def _handle(self, signum, frame) -> None:
        if not self.signum:
            self.signum, self.at = signum, time.monotonic()
        elif time.monotonic() - self.at > 2:
            print(f"train.py: {signal.Signals(signum).name} again: stopping now, without a checkpoint (the last "
                  f"one resumes)", file=sys.stderr, flush=True)
            os._exit(128 + signum)

    def agreed(self) -> int:
        """The signal any rank got (0: none). A collective: every rank calls it at each step boundary."""
        import torch

        from utils import dist

        return int(dist.all_reduce(torch.tensor([self.signum]), "max")[0])

    def restore(self) -> None:
        for s, handler in self.old.items():
            signal.signal(s, handler)


# =============================================================================== SFT


def sft_responses(row, use_answer: bool) -> list[str]:
    """A row's training targets: its `response`, its `responses` (sft_traces), or with use_answer
    its gold `answer`; [] for a row with none (skipped). A malformed row raises ValueError saying
    what is wrong, which the caller prefixes with the file and line."""
    from utils.records import prompt_problem

    bad = prompt_problem(row)
    if bad:
        raise ValueError(bad)
    if "response" in row:
        responses = [row["response"]]
    elif "responses" in row:
        if not isinstance(row["responses"], list):
            raise ValueError(f"`responses` is a {type(row['responses']).__name__}, not a list of strings")
        responses = row["responses"]
    elif use_answer and row.get("answer"):
        responses = [row["answer"]]
    else:
        return []
    if not all(isinstance(r, str) for r in responses):
        raise ValueError("a response is not a string")
    return responses


def load_sft_examples(cfg: TrainConfig, tok):
    """(prompt ids, response ids + eos) pairs, and how many were truncated / dropped. Every row is
    checked as it is read: a malformed one (not an object, no string prompt, a response that is
    not a string) is a DataError naming the file and line, before anything is written."""
    from utils.records import DataError, read_jsonl_numbered, resolve_split

    eos = tok.eos_token_id
    out, truncated, dropped = [], 0, 0
    for f in (f for p in cfg.sft.data for f in resolve_split(p, cfg.sft.split)):
        for n, row in read_jsonl_numbered(f):
            try:
                responses = sft_responses(row, cfg.sft.use_answer)
            except ValueError as e:
                raise DataError(f"{f}:{n}: {e}") from None
            if not responses:
                continue
            prompt = encode_prompt(tok, row["prompt"], cfg.system_prompt)
            if len(prompt) >= cfg.sft.max_len:
                dropped += len(responses)
                continue
            for text in responses:
                # the response is tokenized alone + eos: exactly the tokens a rollout generates
                resp = tok(text, add_special_tokens=False)["input_ids"] + [eos]
                room = cfg.sft.max_len - len(prompt)
                truncated += len(resp) > room
                out.append((prompt, resp[:room], len(resp) > room))
    return out, truncated, dropped


def train_sft(cfg: TrainConfig, ctx, signals: StopSignals) -> None:
    import random

    import torch

    from utils import checkpoint, dist
    from utils.records import derive_seed

    run = start(cfg, ctx)
    run_dir, state, ckpt = run.dir, run.state, run.ckpt
    path = str(ckpt / "model") if ckpt and not cfg.lora.enabled else cfg.model
    tok = load_tokenizer(cfg, path)
    examples, n_trunc, n_drop = load_sft_examples(cfg, tok)  # every row is checked before the weights load
    model, tok = build_model(cfg, ctx, path, state["lora"] if state and cfg.lora.enabled else None, tok=tok)
    s = cfg.sft
    per_epoch = len(examples) // s.batch_size
    if not examples:  # an empty shard, or rows without response(s): not a batch-size problem
        stop(cfg, "sft.data", f"no SFT examples in {list(s.data)}: rows need `response` or `responses` (or an "
                              f"`answer` with sft.use_answer=true)")
    if per_epoch == 0:
        stop(cfg, "sft.batch_size", f"{len(examples)} examples make no batch of {s.batch_size}")
    if s.batch_size % ctx.world:
        stop(cfg, "sft.batch_size", f"{s.batch_size} does not split over {ctx.world} ranks")
    total = min(s.max_steps, per_epoch * s.epochs) if s.max_steps else per_epoch * s.epochs
    provenance(cfg, ctx, run)
    if ctx.main:
        print(f"sft: {len(examples)} examples ({n_trunc} truncated to sft.max_len={s.max_len}, {n_drop} dropped: "
              f"prompt too long), {total} steps of {s.batch_size}", flush=True)
    strategy = dist.pick_strategy(cfg.strategy, model, ctx, cfg)
    model = wrap(model, strategy, dist.device_mesh(strategy, ctx, cfg.hsdp_shard_size), cfg, ctx)
    opt, sched = make_optimizer(cfg, model, total)
    step = saved = 0
    if state is not None:
        checkpoint.restore(state, model, opt, sched, ctx)
        step = saved = state["step"]
    log = Log(run_dir, cfg, ctx, step)

    def save() -> Path:
        path = checkpoint.save(run_dir, step, model, opt, sched, tok, state={}, rank_state={},
                               keep_last=cfg.keep_last, ctx=ctx, files=run.files(cfg))
        keep_model(cfg, ctx, run_dir, step, path)
        return path

    model.train()
    signum = 0
    while step < total:
        signum = signals.agreed()  # at every step boundary, on every rank: all stop at the same one
        if signum:
            if step > saved:
                ckpt, saved = save(), step
            break
        t0 = time.time()
        epoch, k = divmod(step, per_epoch)
        order = list(range(len(examples)))
        random.Random(derive_seed(cfg.seed, "sft", epoch)).shuffle(order)
        batch = [examples[i] for i in order[k * s.batch_size:(k + 1) * s.batch_size]][ctx.rank::ctx.world]
        # token mean over the global batch: every rank divides by the global count / world
        n_tok = dist.all_reduce(torch.tensor([float(sum(len(r) for _, r, _ in batch))]))[0].item()
        micro = [batch[i:i + s.micro_batch_size] for i in range(0, len(batch), s.micro_batch_size)]
        loss_sum = 0.0
        for m, rows in enumerate(micro):
            inputs, resp, mask = collate([(p, r) for p, r, _ in rows], tok.pad_token_id, ctx.device)
            with dist.grad_sync(model, m == len(micro) - 1):
                logp, _ = model(**inputs, targets=resp)
                loss = -(logp * mask).sum() / (n_tok / ctx.world)
                loss.backward()
            loss_sum += loss.item()
        grad_norm = clip_and_check(model, cfg)
        if not math.isfinite(grad_norm):
            save_bad_batch(run_dir, step, ctx, {"rows": batch, "grad_norm": grad_norm}, "non-finite SFT loss/gradient")
        lr = sched.get_last_lr()[0]
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        loss_all = dist.all_reduce(torch.tensor([loss_sum]))[0].item() / ctx.world  # each rank's share is x world
        trunc = dist.all_reduce(torch.tensor([float(sum(t for _, _, t in batch))]))[0].item() / s.batch_size
        dt = time.time() - t0
        log(step, {"loss": loss_all, "grad_norm": grad_norm, "lr": lr, "epoch": epoch, "truncated_ratio": trunc,
                   "tokens": n_tok, "tokens_per_s": n_tok / dt, "time/step": dt},
            f"sft step {step}/{total} | loss {loss_all:.4f} | grad {grad_norm:.3f} | lr {lr:.2e} | {dt:.2f}s")
        if step % cfg.save_every == 0 or step == total or cfg.keep(step):
            ckpt, saved = save(), step
    log.close()
    stopped = finish(cfg, ctx, run_dir, ckpt, signum, step, total)
    if stopped:
        raise stopped


# =============================================================================== RL


@dataclass
class Rollouts:
    """One rank's share of a rollout batch: G consecutive rows per prompt."""
    step: int
    items: list  # envs.sampler.Item per prompt
    comps: list  # per prompt, G utils.engine.Completion


def generate_rollouts(engine, tok, cfg: TrainConfig, ctx, step: int, items: list, first_index: int,
                      own: slice = slice(None)) -> Rollouts:
    """Sample G responses per prompt and keep the prompts in `own` (a tensor-parallel group samples
    its ranks' prompts together, each rank keeps its share); prompt i's seed depends only on (seed,
    step, its global index), so the rollouts do not depend on the number of ranks or on TP."""
    from utils.engine import SamplingParams, chat, encode
    from utils.records import derive_seed

    r = cfg.rl
    params = SamplingParams(n=r.group_size, temperature=r.temperature, top_p=r.top_p, max_tokens=r.max_tokens,
                            logprobs=True, seed=None)
    seeds = [derive_seed(cfg.seed, "rollout", step, first_index + i) for i in range(len(items))]
    prompts = [chat(it.record["prompt"], cfg.system_prompt or None) for it in items]
    if r.engine.backend == "vllm":  # vLLM would silently cut the response of a longer prompt
        context = engine.max_model_len  # capped at the model's max_position_embeddings
        limit = min(r.max_prompt_tokens or context, context - r.max_tokens)
        longest = max(len(encode(tok, p)) for p in prompts)
        if longest > limit:
            stop(cfg, "rl.max_prompt_tokens", f"a step {step} prompt has {longest} tokens, more than the {limit} that "
                                              f"rl.max_prompt_tokens and the engine's max_model_len {context} - "
                                              f"rl.max_tokens {r.max_tokens} leave: raise rl.engine.max_model_len")
    # both hf and vllm keep a generated stop token in token_ids: the policy learns to emit it
    comps = engine.generate(prompts, params, seeds=seeds)
    return Rollouts(step, items[own], comps[own])


def score_rollouts(sampler, batch: Rollouts) -> tuple[list[float], list[bool], list[str]]:
    """envs.score per rollout; an exception is logged and scores the env's minimum reward."""
    import envs

    values, correct, errors = [], [], []
    for item, row in zip(batch.items, batch.comps):
        env = sampler.env_of(item)
        for c in row:
            try:
                rew = envs.score(item.record, c.text, env=env)
                values.append(float(rew.value))
                correct.append(bool(rew.correct))
            except Exception as e:  # a scorer bug must not kill a long run, but it is never silent
                errors.append(f"{item.record.get('id')}: {type(e).__name__}: {e}")
                values.append(float(env.reward_range[0]))
                correct.append(False)
    return values, correct, errors


def stand_in(pad_id: int) -> tuple[list[int], list[int]]:
    """A two-token row for a rank with nothing left to run while others still have work: FSDP2
    all-gathers in every forward (and reduce-scatters in every backward), DDP syncs buffers and
    gradients, so every rank must run the same number of passes, in the same order."""
    return [pad_id], [pad_id]


def sequence_logps(scorer, rows: list, idx, ctx, pad_id: int, temperature: float, mb: int) -> list:
    """No-grad log-probs of the response tokens of rows[i] for i in idx, as 1-D CPU tensors.
    Every rank runs as many forwards as the busiest one (stand-ins for the rest)."""
    import torch

    from utils import dist

    chunks = [idx[k:k + mb] for k in range(0, len(idx), mb)]
    n = int(dist.all_reduce(torch.tensor([len(chunks)]), "max")[0])
    out = []
    with torch.no_grad():
        for k in range(n):
            batch = [rows[i] for i in chunks[k]] if k < len(chunks) else [stand_in(pad_id)]
            inputs, resp, _ = collate(batch, pad_id, ctx.device)
            lp, _ = scorer(**inputs, targets=resp, temperature=temperature)
            if k < len(chunks):
                out += [lp[b, :len(r)].float().cpu() for b, (_, r) in enumerate(batch)]
    return out


def scored_tokens(comps: list, tok, T: int, scope: str):
    """(len(comps), T) mask of the tokens the novelty statistic reads: each response's reasoning
    (utils.rewards.reasoning_span over its tokens' text), or every response token."""
    from utils.rewards import reasoning_span

    rows = []
    for c in comps:
        if scope == "response":
            rows.append([1.0] * len(c.token_ids))
        else:
            a, b = reasoning_span(tok.batch_decode([[t] for t in c.token_ids]))
            rows.append([0.0] * a + [1.0] * (b - a))
    return padded(rows, T)


def padded(seqs: list, T: int, fill: float = 0.0):
    import torch

    out = torch.full((len(seqs), T), fill)
    for b, s in enumerate(seqs):
        s = torch.as_tensor(s, dtype=torch.float32)
        out[b, :len(s)] = s
    return out


def rollout_engine(cfg: TrainConfig, ctx, path: str, model, policy, tok, strategy: str):
    """The rollout engine and a function that gives it the trained weights.

    hf, sync rollouts, one process or DDP: the live policy itself (nothing to sync). hf under
    FSDP2 (the policy is sharded) or async (the policy trains while the engine samples): its own
    unsharded copy. vllm: its own weights, one engine per tensor-parallel group of
    rl.engine.tensor_parallel_size ranks (one shard on each GPU of the group; its ranks share the
    engine's seed). Copies get the weights streamed in one parameter at a time
    (checkpoint.iter_hf_weights: gathered, cast, LoRA merged): every rank of a TP group streams the
    full tensors, vLLM's weight loaders keep each rank's shard."""
    import copy

    import torch
    from transformers import AutoModelForCausalLM

    from utils import checkpoint
    from utils.engine import make_engine

    r = cfg.rl
    ecfg = copy.deepcopy(r.engine)
    ecfg.model, ecfg.revision = path, revision(cfg, path) or ""
    if cfg.chat_template or cfg.enable_thinking is not None:  # vLLM's own tokenizer renders what SFT saw
        ecfg.chat_template = tok.chat_template
    train_dtype = torch.bfloat16 if cfg.dtype == "bfloat16" else torch.float32
    if ecfg.backend == "hf":
        if strategy in ("none", "ddp") and not r.async_rollouts:
            return make_engine(ecfg, model=policy, tokenizer=tok), lambda: None
        own = AutoModelForCausalLM.from_pretrained(path, dtype=train_dtype, revision=revision(cfg, path))
        own = own.to(ctx.device).eval()
        engine, dtype = make_engine(ecfg, model=own, tokenizer=tok), train_dtype
    else:
        engine = make_engine(ecfg, seed=cfg.seed + ctx.rank // ecfg.tensor_parallel_size)  # one per TP group
        dtype = engine.dtype  # what vLLM holds (auto: the checkpoint's dtype on GPU, fp32 on CPU)

    def sync():
        engine.sync_weights(checkpoint.iter_hf_weights(model, dtype))

    return engine, sync


class InlinePool:
    """submit() runs the call at once, in this thread, and returns its finished Future."""

    def submit(self, fn, *args):
        from concurrent.futures import Future

        done = Future()
        done.set_result(fn(*args))
        return done

    def shutdown(self):
        pass


def rollout_pool(ctx, tp: int = 1):
    """The async rollouts' thread. The CUDA device is per thread: without setting it, the thread
    of every rank would generate on cuda:0. A tensor-parallel engine (tp > 1) gets no thread: its
    collectives would run beside the trainer's on other NCCL communicators, and NCCL's kernels on
    two communicators at once can deadlock (NCCL's docs). Its rollouts keep the async schedule
    (step s + 1 sampled with the weights step s starts from, one step off-policy), generated
    between the steps instead of during them (our choice: the same batches, no overlap)."""
    from concurrent.futures import ThreadPoolExecutor

    from utils import dist

    if tp > 1:
        return InlinePool()
    return ThreadPoolExecutor(1, initializer=dist.use_device, initargs=(ctx,))


def prompt_check(cfg: TrainConfig, tok, path: str):
    """A check of one RL record's prompt: None, or why it is too long. The limit: what the model's
    positions (max_position_embeddings; vllm: rl.engine.max_model_len if smaller) leave after
    rl.max_tokens, and rl.max_prompt_tokens if set. Our choice, to keep the check cheap on large
    data: a prompt of B UTF-8 bytes has at most B + 1 tokens (a byte-level or byte-fallback
    tokenizer spends at least one byte per token; +1 for a sentencepiece prefix), so only prompts
    whose bytes could exceed the limit are tokenized (about 0.3 ms each here)."""
    from transformers import AutoConfig

    r = cfg.rl
    positions = getattr(AutoConfig.from_pretrained(path, revision=revision(cfg, path)).get_text_config(),
                        "max_position_embeddings", None)
    context = min(positions or r.engine.max_model_len, r.engine.max_model_len) if r.engine.backend == "vllm" \
        else positions
    if context is None:
        return None  # the model does not say: nothing to check against
    limit = min(r.max_prompt_tokens or context, context - r.max_tokens)
    template = len(encode_prompt(tok, "", cfg.system_prompt))

    def check(rec: dict) -> str | None:
        if template + len(rec["prompt"].encode()) + 1 <= limit:
            return None
        n = len(encode_prompt(tok, rec["prompt"], cfg.system_prompt))
        if n <= limit:
            return None
        return (f"the prompt has {n} tokens (chat template included), more than the {limit} that the model's "
                f"{context} positions leave after rl.max_tokens {r.max_tokens}"
                + (f" (rl.max_prompt_tokens {r.max_prompt_tokens})" if r.max_prompt_tokens else ""))

    return check


def train_rl(cfg: TrainConfig, ctx, signals: StopSignals) -> None:
    from concurrent.futures import Future

    import torch

    from envs.sampler import PromptSampler
    from utils import checkpoint, dist
    from utils.losses import entropy_bonus, group_advantages, masked_mean, policy_loss
    from utils.rewards import entropy_advantage, novelty_bonus, topk_nll

    r, G = cfg.rl, cfg.rl.group_size
    n_prompts = r.batch_size // G
    if n_prompts % ctx.world:
        stop(cfg, "rl.batch_size", f"{n_prompts} prompts per step do not split over {ctx.world} ranks")
    rows_local = r.batch_size // ctx.world
    if rows_local % r.minibatches:
        stop(cfg, "rl.minibatches", f"{rows_local} rollouts per rank do not split into {r.minibatches} minibatches")
    per_rank = n_prompts // ctx.world
    tp = r.engine.tensor_parallel_size
    if ctx.world % tp:
        stop(cfg, "rl.engine.tensor_parallel_size", f"{ctx.world} rank(s) do not split into tensor-parallel groups of "
                                                    f"{tp} (each GPU of a group holds one shard of its engine and "
                                                    f"trains too): start a multiple of {tp} ranks with torchrun")
    group = dist.tp_group(ctx, tp)
    eps_low, eps_high = cfg.clip_eps()

    run = start(cfg, ctx)
    run_dir, state, ckpt = run.dir, run.state, run.ckpt
    path = str(ckpt / "model") if ckpt and not cfg.lora.enabled else cfg.model
    tok = load_tokenizer(cfg, path)
    try:  # every record is checked here, before the weights load
        sampler = PromptSampler(cfg.data, seed=cfg.seed, rollouts_per_problem=G, total_steps=r.steps,
                                check=prompt_check(cfg, tok, path))
    except ValueError as e:  # a malformed record, a source with no records or none in the curriculum's bin field
        stop(cfg, "data.sources", str(e))
    model, tok = build_model(cfg, ctx, path, state["lora"] if state and cfg.lora.enabled else None, tok=tok)
    policy = model  # the unwrapped module: what the hf engine samples from
    strategy = dist.pick_strategy(cfg.strategy, model, ctx, cfg)
    mesh = dist.device_mesh(strategy, ctx, cfg.hsdp_shard_size)
    model = wrap(model, strategy, mesh, cfg, ctx)
    opt, sched = make_optimizer(cfg, model, r.steps * r.minibatches)
    provenance(cfg, ctx, run)
    ref = None  # sharded like the policy under FSDP2, not a whole copy per GPU
    if cfg.novelty.enabled or r.kl_coef > 0:
        ref = wrap(load_reference(cfg.ref_model, ctx, cfg.ref_model_revision), strategy, mesh, cfg, ctx,
                   trainable=False)
    # before restoring the RNG state: building a vLLM engine reseeds the global RNGs
    engine, sync_engine = rollout_engine(cfg, ctx, str(ckpt / "model") if ckpt else cfg.model, model, policy, tok,
                                         strategy)

    step, pending = 0, None
    if state is not None:
        mine = checkpoint.restore(state, model, opt, sched, ctx)
        sampler.load_state_dict(state["sampler"])
        step = state["step"]
        if mine.get("pending") is not None and state.get("world") == ctx.world:
            pending = Future()  # async: this rank's share of the batch generated before the checkpoint
            pending.set_result(mine["pending"])
        elif mine.get("pending") is not None and ctx.main:  # other ranks, other shares: generate it again
            print(f"train.py: the checkpoint was written by {state.get('world')} ranks, not {ctx.world}: step "
                  f"{step + 1}'s rollouts are generated again with the restored weights", flush=True)
        del state
        run.state = None  # the mapped optimizer state: not kept for the whole run
    saved = step

    pool = rollout_pool(ctx, tp) if r.async_rollouts else None
    if pool is not None and tp > 1 and ctx.main:
        print(f"train.py: rl.async_rollouts with rl.engine.tensor_parallel_size {tp}: each step's rollouts are "
              "generated between the training steps, not beside them (one step off-policy as configured, without "
              "the overlap): the engine's collectives and the trainer's must not run at once", flush=True)

    def launch(s: int):
        """Draw step s's prompts (every rank draws the same list) and roll out its TP group's slice:
        the ranks of a group give their one engine the same prompts and seeds; each keeps its own
        share, the slice it would have at TP 1 (the batch does not depend on TP)."""
        lo = group.start * per_rank
        items = sampler.sample(s, n_prompts)[lo:group.stop * per_rank]
        own = slice((ctx.rank - group.start) * per_rank, (ctx.rank - group.start + 1) * per_rank)
        if pool is None:
            return generate_rollouts(engine, tok, cfg, ctx, s, items, lo, own)
        return pool.submit(generate_rollouts, engine, tok, cfg, ctx, s, items, lo, own)

    log = Log(run_dir, cfg, ctx, step)
    peak = peak_flops(cfg, ctx)
    n_params = sum(p.numel() for p in policy.parameters())
    def save() -> Path:  # async: with the batch already generated for the next step
        rank_state = {"pending": pending.result() if pending is not None else None}
        path = checkpoint.save(run_dir, step, model, opt, sched, tok, state={"sampler": sampler.state_dict()},
                               rank_state=rank_state, keep_last=cfg.keep_last, ctx=ctx, files=run.files(cfg))
        keep_model(cfg, ctx, run_dir, step, path)
        return path

    sync_engine()
    model.train()
    signum = 0
    while step < r.steps:
        signum = signals.agreed()  # at every step boundary, on every rank: all stop at the same one
        if signum:
            if step > saved:
                ckpt, saved = save(), step
            break
        t_step = time.time()
        times = {}

        # 1-2. sample prompts -> rollouts (async: this batch was generated during the last step)
        t = time.time()
        if pool is None:
            batch = launch(step)
            if r.engine.backend == "vllm":
                engine.sleep()  # sleep mode (engine.enable_sleep_mode) frees its memory while we train
        else:
            batch = (pending or launch(step)).result()
            sync_engine()
            pending = launch(step + 1) if step + 1 < r.steps else None
        times["rollout"] = time.time() - t
        comps = [c for row in batch.comps for c in row]
        rows = [(c.prompt_token_ids, c.token_ids) for c in comps]
        group_ids = torch.arange(len(batch.items)).repeat_interleave(G)

        # 3. rewards (+ novelty bonus: only correct rollouts need the reference's forward pass)
        t = time.time()
        values, correct, errors = score_rollouts(sampler, batch)
        for e in errors[:3]:
            print(f"rank {ctx.rank} step {step}: score error, minimum reward given: {e}", file=sys.stderr, flush=True)
        rewards = torch.tensor(values, dtype=torch.float32)
        correct_t = torch.tensor(correct)
        times["reward"] = time.time() - t
        t = time.time()
        T = max(len(c.token_ids) for c in comps)
        mask = padded([[1.0] * len(c.token_ids) for c in comps], T)
        bonus, u_topk, u_mean = (torch.zeros_like(rewards) for _ in range(3))
        if cfg.novelty.enabled:
            idx = [i for i, ok in enumerate(correct) if ok]  # every rank runs the same number of forwards
            nll = [-lp for lp in sequence_logps(ref, rows, idx, ctx, tok.pad_token_id, 1.0, r.micro_batch_size)]
            if idx:
                nll = padded(nll, T)
                scored = scored_tokens([comps[i] for i in idx], tok, T, cfg.novelty.scope)
                u_topk[idx], u_mean[idx] = topk_nll(nll, scored, k=cfg.novelty.k), masked_mean(nll, scored, dim=1)
            u = u_topk if cfg.novelty.stat == "topk" else u_mean
            bonus = novelty_bonus(u, correct_t, group_ids, weight=cfg.novelty.weight, norm=cfg.novelty.norm)
        ref_logp = None
        if r.kl_coef > 0:
            ref_logp = padded(sequence_logps(ref, rows, range(len(rows)), ctx, tok.pad_token_id, r.temperature,
                                             r.micro_batch_size), T)
        times["reference"] = time.time() - t

        # 4. advantages: r - group mean (divided by the group std only if rl.scale_rewards=group)
        adv = group_advantages(rewards + bonus, group_ids, scale=r.scale_rewards)

        # 5-6. loss -> optimizer steps. Minibatch m holds the rows whose global index is m (mod
        # minibatches): the same rows for any number of ranks, so 2 processes match 1. A row with
        # zero advantage and no KL term has zero loss and zero gradient: it is counted in the
        # normalisation but never run through the model (groups whose rollouts all scored alike).
        offset = ctx.rank * rows_local
        minibatch_rows = [[i for i in range(len(rows)) if (offset + i) % r.minibatches == m]
                          for m in range(r.minibatches)]
        trained = [[i for i in mine if r.kl_coef > 0 or r.entropy_coef > 0 or adv[i] != 0] for mine in minibatch_rows]
        micro = [[idx[i:i + r.micro_batch_size] for i in range(0, len(idx), r.micro_batch_size)] for idx in trained]
        # every rank runs as many micro-batches as the busiest one (stand-ins for the rest); the
        # token counts that normalise token_mean are global sums
        n_micro = dist.all_reduce(torch.tensor([len(mb) for mb in micro]), "max").tolist()
        tok_counts = dist.all_reduce(torch.tensor([float(mask[mine].sum()) for mine in minibatch_rows]))

        # old_logp: the behaviour log-probs when async (one step off-policy); else the policy before
        # this step's updates, recomputed (an engine's log-probs differ numerically, which GSPO's
        # 3e-4 clip would see); with one minibatch that is the current logp itself.
        t = time.time()
        behaviour = padded([c.logprobs if c.logprobs is not None else [] for c in comps], T, float("nan"))
        if r.async_rollouts:
            old_logp = behaviour
        elif r.minibatches > 1:
            todo = [i for idx in trained for i in idx]
            old_logp = torch.full((len(rows), T), float("nan"))
            for i, lp in zip(todo, sequence_logps(model, rows, todo, ctx, tok.pad_token_id, r.temperature,
                                                  r.micro_batch_size)):
                old_logp[i, :len(lp)] = lp
        else:
            old_logp = None
        times["old_logp"] = time.time() - t
        t = time.time()
        sums = {"entropy": 0.0, "clip_frac_low": 0.0, "clip_frac_high": 0.0, "ratio_mean": 0.0, "kl": 0.0,
                "loss": 0.0, "behaviour_logp_gap": 0.0}
        n_tokens, grad_norms, lrs = 0.0, [], []
        for m in range(r.minibatches):
            mine = minibatch_rows[m]
            for j in range(n_micro[m]):
                last = j == n_micro[m] - 1
                if j >= len(micro[m]):  # this rank is done: a stand-in pass with zero gradient
                    inputs, resp, _ = collate([stand_in(tok.pad_token_id)], tok.pad_token_id, ctx.device)
                    with dist.grad_sync(model, last):
                        logp, _ = model(**inputs, targets=resp)
                        (logp.sum() * 0.0).backward()
                    continue
                idx = micro[m][j]
                inputs, resp, mmask = collate([rows[i] for i in idx], tok.pad_token_id, ctx.device)
                Tm = resp.shape[1]
                with dist.grad_sync(model, last):
                    # per-token log-probs and entropy, both with gradient (the entropy bonus uses it)
                    logp, ent = model(**inputs, targets=resp, temperature=r.temperature)
                    old = logp.detach() if old_logp is None else old_logp[idx, :Tm].to(ctx.device)
                    # a token whose behaviour log-prob is unknown (the stop token the hf backend
                    # leaves out) takes the current one: ratio 1 for that token
                    old = torch.where(torch.isnan(old), logp.detach(), old)
                    a = adv[idx].to(ctx.device)
                    if r.entropy_adv_alpha > 0:
                        a = entropy_advantage(a, masked_mean(ent.detach(), mmask, dim=1), alpha=r.entropy_adv_alpha,
                                              kappa=r.entropy_adv_kappa)
                    loss, st = policy_loss(logp, old, a, mmask, level=r.level, eps_low=eps_low,
                                           eps_high=eps_high, agg=r.agg, kl_coef=r.kl_coef,
                                           ref_logp=None if ref_logp is None else ref_logp[idx, :Tm].to(ctx.device))
                    if r.entropy_coef > 0:  # pilot option, puzzle_to_math line 111
                        loss = loss + entropy_bonus(ent, mmask, r.entropy_coef, r.agg)
                    # scale to this micro-batch's share of the global minibatch; DDP/FSDP then average ranks
                    if r.agg == "token_mean":
                        weight = float(mmask.sum()) / float(tok_counts[m]) * ctx.world
                    else:
                        weight = len(idx) / len(mine)
                    (loss * weight).backward()
                if not torch.isfinite(loss):
                    print(f"rank {ctx.rank} step {step}: non-finite loss {loss.item()} (minibatch {m})",
                          file=sys.stderr, flush=True)
                # how far the engine's log-probs are from the trainer's, both at the sampling
                # temperature (vLLM vs FSDP numerics; large after a failed weight sync)
                beh = behaviour[idx, :Tm].to(ctx.device)
                known = (~torch.isnan(beh)) & (mmask > 0)
                # token-weighted means over the trained rows, whatever the micro-batching
                w = float(mmask.sum())
                sums["behaviour_logp_gap"] += w * float(masked_mean((old - torch.nan_to_num(beh)).abs(), known))
                sums["entropy"] += w * float(masked_mean(ent.detach(), mmask))
                for k, v in st.items():
                    sums[k] += w * float(v)
                n_tokens += w
            if n_micro[m] == 0:  # nothing to learn from: still an Adam step (momentum, decay) on zero grads
                for p in model.parameters():
                    if p.requires_grad and p.grad is None:
                        p.grad = torch.zeros_like(p)
            grad_norm = clip_and_check(model, cfg)
            if not math.isfinite(grad_norm):
                save_bad_batch(run_dir, step, ctx, {
                    "records": [it.record for it in batch.items], "responses": [c.text for c in comps],
                    "rows": rows, "rewards": rewards, "bonus": bonus, "advantages": adv, "old_logp": old_logp,
                    "behaviour_logp": behaviour, "minibatch": m, "grad_norm": grad_norm},
                    f"non-finite loss/gradient (minibatch {m}, grad norm {grad_norm})")
            grad_norms.append(grad_norm)
            lrs.append(sched.get_last_lr()[0])
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
        times["train"] = time.time() - t
        t = time.time()
        if not r.async_rollouts:
            sync_engine()
        times["sync"] = time.time() - t

        # 7. feed the controller, log. Every rank sees every rollout's outcome, so the controller
        # state (and the next prompts) is the same on every rank.
        lens = [len(c.token_ids) for c in comps]
        local = {"env": [it.record["env"] for it in batch.items for _ in range(G)],
                 "difficulty": [int(it.record.get("difficulty") or 0) for it in batch.items for _ in range(G)],
                 "bin": [it.bin for it in batch.items for _ in range(G)],
                 "id": [it.record.get("id") for it in batch.items for _ in range(G)],
                 "reward": values, "correct": correct, "len": lens, "prompt_len": [len(p) for p, _ in rows],
                 "clipped": [c.finish_reason == "length" for c in comps], "bonus": bonus.tolist(),
                 "u": u_topk.tolist(), "u_mean": u_mean.tolist(), "errors": len(errors)}
        everything = dist.all_gather_object(local)
        outcomes = [(it, correct[i * G + j]) for i, it in enumerate(batch.items) for j in range(G)]
        for rank_outcomes in dist.all_gather_object(outcomes):  # in rank order: the same on every rank
            sampler.update(rank_outcomes)
        train_stats = dist.all_reduce(torch.tensor([sums[k] for k in sums] + [n_tokens], dtype=torch.float64))
        # over the trained rows; null when every group scored alike (nothing was run)
        train_stats = {k: float(train_stats[i] / train_stats[-1]) if train_stats[-1] > 0 else None
                       for i, k in enumerate(sums)}
        n_trained = dist.all_reduce(torch.tensor([float(sum(map(len, trained)))]))[0]
        train_stats["trained_frac"] = float(n_trained) / r.batch_size
        train_stats["micro_batches"] = sum(n_micro)  # forward + backward passes per rank (max over ranks)
        step += 1
        times["step"] = time.time() - t_step
        if ctx.main:
            metrics = rl_metrics(everything, G, train_stats, sampler.difficulties(), times, cfg)
            metrics.update(grad_norm=max(grad_norms), lr=lrs[-1])
            if peak:
                flops = 6 * n_params * metrics["tokens"]  # forward + backward of the policy
                metrics["mfu"] = flops / (times["train"] * peak * ctx.world)
            from utils.records import record_group

            samples = [{"step": step, "id": it.record.get("id"), "env": it.record["env"], "split": record_group(it.record),
                        "sample": j, "response": c.text, "reward": values[i * G + j], "correct": correct[i * G + j],
                        "bonus": float(bonus[i * G + j]), "tokens": len(c.token_ids)}
                       for i, (it, row) in enumerate(zip(batch.items, batch.comps)) for j, c in enumerate(row)]
            log.append("samples.jsonl", samples if r.log_samples < 0 else samples[:r.log_samples])
            # every rank's rollouts, not only the logged samples: the ids of the problems solved at
            # least once this step (code_rl Fig. 9's cumulative solve rate, scripts/code_rl_curves.py)
            solved = {i for d in everything for i, ok in zip(d["id"], d["correct"]) if ok and i is not None}
            log.append("solved.jsonl", [{"step": step, "ids": sorted(map(str, solved))}])
            clip = None if metrics["clip_frac_low"] is None else metrics["clip_frac_low"] + metrics["clip_frac_high"]
            line = (f"rl step {step}/{r.steps} | reward {metrics['reward_mean']:.3f} acc {metrics['accuracy']:.3f} | "
                    f"len {metrics['response_len']:.0f} | trained {metrics['trained_frac']:.2f} | clip {_fmt(clip)} | "
                    f"ent {_fmt(metrics['entropy'])}" + (f" | bonus {metrics['novelty/bonus_abs_mean']:.3f}"
                                                        if cfg.novelty.enabled else "") + f" | {times['step']:.1f}s")
            log(step, metrics, line)

        # 8. checkpoint
        if step % cfg.save_every == 0 or step == r.steps or cfg.keep(step):
            ckpt, saved = save(), step
    if pool is not None:
        pool.shutdown()
    log.close()
    stopped = finish(cfg, ctx, run_dir, ckpt, signum, step, r.steps)
    if r.engine.backend == "vllm":
        engine.close()  # its teardown destroys the process group: after our last collective
    if stopped:
        raise stopped


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def rl_metrics(per_rank: list[dict], G: int, train: dict, difficulty: dict, times: dict, cfg: TrainConfig) -> dict:
    """One step's log line: rewards per env, accuracy, lengths, clip fractions, novelty, timing."""
    import statistics as st
    from collections import Counter

    cols = {k: [v for d in per_rank for v in d[k]] for k in per_rank[0] if k != "errors"}
    n = len(cols["reward"])
    rewards = cols["reward"]
    groups = [rewards[i:i + G] for i in range(0, n, G)]
    out = {"reward_mean": st.fmean(rewards), "reward_std": st.pstdev(rewards),
           "accuracy": sum(cols["correct"]) / n,
           "frac_reward_zero_std": sum(max(g) == min(g) for g in groups) / len(groups),
           "response_len": st.fmean(cols["len"]), "response_len_max": max(cols["len"]),
           "clipped_ratio": sum(cols["clipped"]) / n, "score_errors": sum(d["errors"] for d in per_rank),
           "tokens": sum(cols["len"]) + sum(cols["prompt_len"])}
    for env in sorted(set(cols["env"])):
        rs = [x for x, e in zip(rewards, cols["env"]) if e == env]
        cs = [x for x, e in zip(cols["correct"], cols["env"]) if e == env]
        out.update({f"reward_mean/{env}": st.fmean(rs), f"reward_std/{env}": st.pstdev(rs),
                    f"accuracy/{env}": sum(cs) / len(cs), f"count/{env}": len(rs)})
    for env, d in difficulty.items():
        out[f"difficulty/{env}"] = d
    for b, count in sorted(Counter(x for x in cols["bin"] if x is not None).items()):
        out[f"curriculum/frac_{b}"] = count / n
    out.update(train)
    if cfg.novelty.enabled:
        from utils.rewards import within_group_spread

        bonus = cols["bonus"]
        nz = [b for b in bonus if b != 0]
        u = [x for x, ok in zip(cols["u"], cols["correct"]) if ok]
        out.update({"novelty/bonus_mean": st.fmean(bonus), "novelty/bonus_abs_mean": st.fmean(abs(b) for b in bonus),
                    "novelty/bonus_max": max(bonus), "novelty/frac_rollouts_with_bonus": len(nz) / n,
                    "novelty/u_mean_correct": st.fmean(u) if u else 0.0})
        # Appendix O: top-k NLL varies 10-15x more within a group than mean NLL (analyze.py novelty-signal RUN)
        gids = [i // G for i in range(n)]
        for tag, rel in (("std", False), ("cv", True)):
            top, mean = (within_group_spread(cols[k], cols["correct"], gids, relative=rel) for k in ("u", "u_mean"))
            out[f"novelty/within_{tag}_topk"] = top if math.isfinite(top) else None
            out[f"novelty/within_{tag}_mean"] = mean if math.isfinite(mean) else None
            ok = math.isfinite(top) and math.isfinite(mean) and mean > 0
            out[f"novelty/signal_ratio_{tag}"] = top / mean if ok else None
    out["tokens_per_s"] = out["tokens"] / times["step"]
    out["rollout_tokens_per_s"] = sum(cols["len"]) / max(times["rollout"], 1e-9)
    out.update({f"time/{k}": v for k, v in times.items()})
    return out


@dataclass
class PlanConfig(TrainConfig):
    def validate(self):
        """--plan reads shapes and settings, neither weights nor data: the model need not be
        downloaded (utils.memplan.shape_of finds its shape), earlier stages' outputs may be missing, and
        the env registry may not yet hold the envs a pool draws (RLVE's 256- and 400-env runs)."""
        missing = ("does not exist", "is not a directory", "is not a file")
        return ((k, m) for k, m in super().validate()
                if k not in ("model", "ref_model", "data.pool.count") and not any(x in m for x in missing))


def plan(argv: list[str]) -> None:
    """`--plan [gpus=N] [gpu_mem_gb=G]`: this config's memory per GPU on its `hardware` (or N GPUs of
    G GB), by part, in both phases of a step, the largest micro-batch that fits and the rollouts in
    flight (utils/memplan.py). Nothing is loaded but config.json, if local."""
    from utils import memplan

    i = argv.index("--plan")
    counts, rest = {}, []
    for a in argv[i + 1:]:
        key, _, value = a.partition("=")
        if key not in ("gpus", "gpu_mem_gb"):
            rest.append(a)
            continue
        try:
            counts[key] = int(value) if key == "gpus" else float(value)
        except ValueError:
            sys.exit(print(f"train.py --plan: {a}: {key} must be a number", file=sys.stderr) or 2)
    cfg = load(PlanConfig, argv[:i] + rest, prog="train.py --plan")
    s, source = plan_setup(cfg, **counts)
    hw = cfg.hardware
    print(memplan.report(s, source, hw.name if not counts else ""))


def plan_setup(cfg: TrainConfig, gpus: int = 0, gpu_mem_gb: float = 0.0):
    """(utils.memplan.Setup, where the shape came from) for cfg on its hardware, or on gpus x gpu_mem_gb:
    the model's shape, else plan_model's (an earlier stage's output not written yet)."""
    from utils import memplan

    hw = cfg.hardware
    try:
        shape, source = memplan.shape_of(cfg.model, cfg.model_revision)
    except ValueError as e:
        if not cfg.plan_model:
            stop(cfg, "model", str(e))
        try:
            shape, source = memplan.shape_of(cfg.plan_model)
        except ValueError as e2:
            stop(cfg, "plan_model", str(e2))
        source = f"plan_model {cfg.plan_model}: {source}; {cfg.model} is written by an earlier stage"
    gpus = gpus or hw.nodes * hw.gpus_per_node
    return memplan.setup_from_config(cfg, gpus, gpu_mem_gb or hw.gpu_mem_gb, shape,
                                     gpus_per_node=min(gpus, hw.gpus_per_node)), source


def main(argv: list[str]) -> None:
    if "--plan" in argv:
        return plan(argv)
    cfg = load(TrainConfig, argv, prog="train.py")
    import torch

    from utils import dist

    ctx = dist.init()
    if ctx.device.type == "cpu" and cfg.cpu_threads:
        torch.set_num_threads(cfg.cpu_threads)
    torch.manual_seed(cfg.seed + ctx.rank)
    # Python's generator too: checkpoints save its state, which would otherwise be whatever this
    # process started with, so two runs of one config would not write the same trainer_state.pt
    import random

    random.seed(cfg.seed + ctx.rank)
    if cfg.strategy == "hsdp":  # before any weights are loaded: a bad group size is a config error
        try:
            dist.hsdp_shape(ctx, cfg.hsdp_shard_size)
        except ValueError as e:
            stop(cfg, "hsdp_shard_size", str(e))
    from utils.records import DataError, io_cause, io_fault

    signals = StopSignals()
    lock = None
    try:
        lock = take_lock(cfg, ctx)
        if cfg.stage == "sft":
            train_sft(cfg, ctx, signals)
        else:
            train_rl(cfg, ctx, signals)
    except NonFinite as e:
        sys.exit(str(e))
    except DataError as e:  # a corrupt or empty data file: one line naming it (and the line)
        stop(cfg, "sft.data" if cfg.stage == "sft" else "data.sources", str(e))
    except Stopped as e:
        if ctx.main:
            print(f"train.py: {e}", file=sys.stderr, flush=True)
        sys.exit(128 + e.signum)
    except Exception as e:  # a full disk, a read-only or vanished run directory: one line, the run resumable
        fault = io_fault(e)
        if fault is None:
            raise
        where = fault.filename or Path(cfg.out_dir) / cfg.name
        sys.exit(f"train.py: {where}: {io_cause(fault)} (rank {ctx.rank}); no partial checkpoint is ever resumed "
                 f"from: free the space (or fix the directory) and run the same command to resume")
    finally:
        if lock is not None:
            lock.release()
        signals.restore()
        dist.close()


def take_lock(cfg: TrainConfig, ctx):
    """Rank 0 takes the run directory's lock (utils/runlock.py) before any checkpoint is read or
    anything written; every rank learns the outcome (a collective), so a refusal stops them all
    with one line, exit 2. Creating the lock file is also the check that the run directory can be
    written (a file in its way, a read-only file system), before any model loads."""
    from utils import dist
    from utils.records import io_cause
    from utils.runlock import Locked, RunLock

    run_dir = Path(cfg.out_dir) / cfg.name
    lock, refusal = None, None
    if ctx.main:
        lock = RunLock(run_dir, "train.py")
        try:
            lock.acquire()
        except Locked as e:
            refusal = f"train.py: {e}"
        except OSError as e:
            if io_cause(e) is None:
                raise
            refusal = f"train.py: cannot use {run_dir} as the run directory: {e.filename}: {io_cause(e)}"
    refusal = dist.broadcast_object(refusal)
    if refusal:
        if ctx.main:
            print(refusal, file=sys.stderr, flush=True)
        sys.exit(2)
    return lock


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:  # Ctrl-C before main() set its handlers (while importing): nothing to save yet
        sys.exit(print("train.py: interrupted before training started", file=sys.stderr) or 130)
