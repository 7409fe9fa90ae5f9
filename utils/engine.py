"""Model backends behind one interface: rollouts, evaluation, teacher/student synthesis, judges.

    eng = make_engine(EngineConfig(backend="hf", model="runs/tiny"))
    outs = eng.generate(prompts, SamplingParams(n=8, temperature=0.6, max_tokens=512, seed=0))
    outs[i][j].text   # the j-th sample for prompt i

A prompt is a chat (a list of {"role", "content"} messages; the chat template is applied here, by
the caller of the model, never stored in records) or a plain string (used as-is: already templated).

Seeds: prompt i gets seed `seeds[i]` if given, else derive_seed(params.seed, i). With vLLM that is
one request with n samples and that seed (vLLM varies the n samples itself); with HF, sample j
draws from its own torch.Generator seeded derive_seed(seed_i, j). Completion.seed records the
prompt's seed. A sampling seed of None means nondeterministic.

Backends:
- hf      transformers model on CPU/GPU with our own batched sampling loop (per-sample generators,
          behaviour log-probs of the sampled tokens). The trainer passes its live model, so there
          is nothing to sync.
- vllm    offline vllm.LLM colocated with training; `sync_weights(named_tensors)` after each
          optimizer step (requires requirements-gpu.txt).
- openai  any OpenAI-compatible chat endpoint (a served teacher or judge), retried with backoff.
- replay  recorded responses from JSONL, for tests and demos of pipelines needing a strong model.
"""
from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field as dc_field
from pathlib import Path
from typing import Any, Iterable, Sequence

from utils.config import field
from utils.records import derive_seed

Prompt = "str | list[dict]"
BACKENDS = ("hf", "vllm", "openai", "replay")


@dataclass
class EngineConfig:
    backend: str = field("hf", help="model backend", choices=BACKENDS)
    model: str = field("", help="HF directory or hub name (hf, vllm); model name sent to the endpoint (openai)")
    base_url: str = field("http://localhost:8000/v1", help="openai: endpoint base URL")
    api_key_env: str = field("OPENAI_API_KEY", help="openai: environment variable holding the API key")
    replay_path: str = field("", help="replay: JSONL of {prompt|match, responses}")
    replay_missing: str = field("error", help="replay: a prompt not in the file raises, or gets ''",
                                choices=("error", "empty"))
    dtype: str = field("auto", help="hf/vllm weights dtype: auto, float32, bfloat16, float16")
    device: str = field("auto", help="hf: cpu, cuda, or auto")
    batch_size: int = field(64, help="hf: rows (prompt x sample) decoded together")
    max_model_len: int = field(8192, help="vllm: context length")
    tensor_parallel_size: int = field(1, help="vllm: GPUs per engine")
    gpu_memory_utilization: float = field(0.45, help="vllm: share of GPU memory (colocated with training)")
    enable_sleep_mode: bool = field(False, help="vllm: free GPU memory between rollout phases (sleep level 1: "
                                                "weights to CPU memory, KV cache dropped)")
    request_timeout_s: float = field(600.0, help="openai: seconds per HTTP request")
    max_retries: int = field(4, help="openai: retries with exponential backoff before giving up")
    concurrency: int = field(16, help="openai: requests in flight")


@dataclass
class SamplingParams:
    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 256
    seed: int | None = 0
    stop: Sequence[str] = ()
    logprobs: bool = False  # return the log-prob of each sampled token (hf: at the sampling temperature, before top_p)


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


def last_user_text(prompt) -> str:
    if isinstance(prompt, str):
        return prompt
    users = [m["content"] for m in prompt if m.get("role") == "user"]
    return users[-1] if users else (prompt[-1]["content"] if prompt else "")


def chat(prompt_text: str, system: str | None = None) -> list[dict]:
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt_text}]


def encode(tokenizer, prompt) -> list[int]:
    """Token ids of a plain string (as-is) or a chat (template applied, generation prompt added).
    transformers 5 returns a BatchEncoding from apply_chat_template: list() of it gives its keys."""
    if isinstance(prompt, str):
        return tokenizer(prompt, add_special_tokens=False)["input_ids"]
    ids = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True)
    return list(ids["input_ids"] if hasattr(ids, "keys") else ids)


# --------------------------------------------------------------------------- hf


class HFEngine:
    """transformers model, our own sampling loop (batched, KV cache, left padding)."""

    def __init__(self, cfg: EngineConfig, model=None, tokenizer=None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.cfg = cfg
        self.tokenizer = tokenizer or AutoTokenizer.from_pretrained(cfg.model)
        if model is None:
            dtype = "auto" if cfg.dtype == "auto" else getattr(torch, cfg.dtype)
            model = AutoModelForCausalLM.from_pretrained(cfg.model, dtype=dtype)
            device = cfg.device if cfg.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
            model.to(device)
        self.model = model
        eos = model.generation_config.eos_token_id
        eos = eos if isinstance(eos, list) else [eos]
        self.stop_ids = {i for i in eos + [self.tokenizer.eos_token_id] if i is not None}
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else min(self.stop_ids)

    def generate(self, prompts: list, params: SamplingParams, seeds: Sequence[int] | None = None) -> list[list[Completion]]:
        pseeds = _prompt_seeds(len(prompts), params, seeds)
        encoded = [encode(self.tokenizer, p) for p in prompts]
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


class VLLMWeightSync:
    """vLLM worker extension: receives trainer weights (loaded by vLLM's own weight loader)."""

    def load_named_weights(self, weights: list[tuple[str, Any]]) -> None:
        self.model_runner.model.load_weights(weights=weights)  # type: ignore[attr-defined]


class VLLMEngine:
    def __init__(self, cfg: EngineConfig, seed: int = 0):
        # in-process engine core: weight sync passes tensors without pickling them
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        from vllm import LLM

        self.cfg = cfg
        self.llm = LLM(model=cfg.model, dtype=cfg.dtype, max_model_len=cfg.max_model_len,
                       tensor_parallel_size=cfg.tensor_parallel_size,
                       gpu_memory_utilization=cfg.gpu_memory_utilization, seed=seed,
                       enable_sleep_mode=cfg.enable_sleep_mode, enable_prefix_caching=True,
                       worker_extension_cls="utils.engine.VLLMWeightSync")
        self.tokenizer = self.llm.get_tokenizer()

    def generate(self, prompts: list, params: SamplingParams, seeds: Sequence[int] | None = None) -> list[list[Completion]]:
        from vllm import SamplingParams as VSP
        from vllm.inputs import TokensPrompt

        pseeds = _prompt_seeds(len(prompts), params, seeds)
        encoded = [encode(self.tokenizer, p) for p in prompts]
        sps = [VSP(n=params.n, temperature=params.temperature, top_p=params.top_p, max_tokens=params.max_tokens,
                   seed=s, stop=list(params.stop) or None, logprobs=0 if params.logprobs else None)
               for s in pseeds]
        results = self.llm.generate([TokensPrompt(prompt_token_ids=e) for e in encoded], sps, use_tqdm=False)
        out = []
        for res, s, enc in zip(results, pseeds, encoded):
            comps = []
            for o in res.outputs:
                lps = None
                if params.logprobs and o.logprobs is not None:
                    lps = [float(step[t].logprob) for step, t in zip(o.logprobs, o.token_ids)]
                comps.append(Completion(text=o.text, token_ids=list(o.token_ids), logprobs=lps,
                                        finish_reason="length" if o.finish_reason == "length" else "stop",
                                        seed=s, prompt_token_ids=enc))
            out.append(comps)
        return out

    def sync_weights(self, named_tensors: Iterable[tuple[str, Any]]) -> None:
        """Load trainer weights (names as in the HF checkpoint; LoRA merged by the caller)."""
        self.llm.reset_prefix_cache()
        self.llm.collective_rpc("load_named_weights", args=(list(named_tensors),))

    def sleep(self) -> None:
        if self.cfg.enable_sleep_mode:
            self.llm.sleep(level=1)

    def wake_up(self) -> None:
        if self.cfg.enable_sleep_mode:
            self.llm.wake_up()


# --------------------------------------------------------------------------- openai


class OpenAIEngine:
    def __init__(self, cfg: EngineConfig):
        self.cfg = cfg
        self.url = cfg.base_url.rstrip("/") + "/chat/completions"
        self.key = os.environ.get(cfg.api_key_env, "")

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
            body = {"model": self.cfg.model, "messages": messages, "n": params.n - len(comps),
                    "temperature": params.temperature, "top_p": params.top_p, "max_tokens": params.max_tokens}
            if seed is not None:
                body["seed"] = derive_seed(seed, len(comps))
            if params.stop:
                body["stop"] = list(params.stop)
            choices = self._post(body).get("choices") or []
            if not choices:
                raise EngineError(f"{self.url}: response without choices")
            for c in choices:
                text = (c.get("message") or {}).get("content") or ""
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
