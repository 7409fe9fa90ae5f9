"""Model backends: the tiny HF model, the replay backend, and an OpenAI-compatible mock server."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
import torch

from utils.engine import Completion, EngineConfig, EngineError, SamplingParams, chat, make_engine
from utils.tiny import build_tiny


def test_tiny_model_loads_with_chat_template(tiny):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny)
    model = AutoModelForCausalLM.from_pretrained(tiny)
    text = tok.apply_chat_template(chat("Sort 3 1 2", system="Be brief."), add_generation_prompt=True, tokenize=False)
    assert text == "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nSort 3 1 2<|im_end|>\n<|im_start|>assistant\n"
    ids = tok(text)["input_ids"]
    assert tok.decode(ids) == text  # byte-level BPE: lossless
    assert model(torch.tensor([ids])).logits.shape[-1] == len(tok)
    mtime = (Path(tiny) / "model.safetensors").stat().st_mtime_ns
    assert build_tiny(tiny) == Path(tiny) and (Path(tiny) / "model.safetensors").stat().st_mtime_ns == mtime


def test_hf_engine_seeds_logprobs_and_batching(tiny):
    eng = make_engine(EngineConfig(backend="hf", model=tiny, batch_size=4))
    prompts = [chat("Sort 3 1 2"), chat("a much longer prompt " * 5)]
    params = SamplingParams(n=3, max_tokens=12, logprobs=True, seed=7)
    a = eng.generate(prompts, params)
    b = eng.generate(prompts, params)
    assert [[c.text for c in row] for row in a] == [[c.text for c in row] for row in b], "same seed, same samples"
    assert len({c.text for c in a[0]}) > 1, "the n samples of one prompt differ"
    alone = eng.generate([prompts[1]], SamplingParams(n=3, max_tokens=12, seed=None), seeds=[a[1][0].seed])
    assert [c.token_ids for c in alone[0]] == [c.token_ids for c in a[1]], "a sample does not depend on its batch"
    c = a[0][0]
    assert c.finish_reason in ("stop", "length") and len(c.logprobs) == len(c.token_ids) <= 12
    ids = torch.tensor([c.prompt_token_ids + c.token_ids])
    with torch.no_grad():
        lp = torch.log_softmax(eng.model(ids).logits[0, :-1].float(), -1)
    ref = [lp[len(c.prompt_token_ids) - 1 + k, t].item() for k, t in enumerate(c.token_ids)]
    assert ref == pytest.approx(c.logprobs, abs=1e-4), "behaviour log-probs are the model's"
    greedy = eng.generate(prompts[:1], SamplingParams(n=2, temperature=0, max_tokens=8, seed=1))
    assert greedy[0][0].token_ids == greedy[0][1].token_ids
    # at temperature 0.7: the log-probs of the distribution sampled from, which the trainer compares with
    c = eng.generate(prompts[:1], SamplingParams(n=1, temperature=0.7, max_tokens=12, logprobs=True, seed=7))[0][0]
    ids = torch.tensor([c.prompt_token_ids + c.token_ids])
    with torch.no_grad():
        lp = torch.log_softmax(eng.model(ids).logits[0, :-1].float() / 0.7, -1)
    ref = [lp[len(c.prompt_token_ids) - 1 + k, t].item() for k, t in enumerate(c.token_ids)]
    assert ref == pytest.approx(c.logprobs, abs=1e-4)


def test_replay_engine(tmp_path):
    path = tmp_path / "replay.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"prompt": "exact prompt", "responses": ["r1", "r2"]},
        {"match": "needle", "responses": ["found"]},
    ]))
    eng = make_engine(EngineConfig(backend="replay", replay_path=str(path)))
    out = eng.generate([chat("exact prompt"), "with a needle inside"], SamplingParams(n=3))
    assert [c.text for c in out[0]] == ["r1", "r2", "r1"] and [c.text for c in out[1]] == ["found"] * 3
    with pytest.raises(KeyError, match="unknown"):
        eng.generate(["unknown"], SamplingParams())
    lenient = make_engine(EngineConfig(backend="replay", replay_path=str(path), replay_missing="empty"))
    assert lenient.generate(["unknown"], SamplingParams())[0][0].text == ""


class _Handler(BaseHTTPRequestHandler):
    calls: list = []
    fail_first = 0

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls.append(body)
        if type(self).fail_first > 0:
            type(self).fail_first -= 1
            self.send_response(503)
            self.end_headers()
            return
        user = body["messages"][-1]["content"]
        # answer one choice at a time, as some servers do, to exercise the top-up loop
        payload = {"choices": [{"message": {"content": f"echo {user}"}, "finish_reason": "stop"}]}
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_openai_engine_against_local_server():
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/v1"
        _Handler.calls, _Handler.fail_first = [], 1
        eng = make_engine(EngineConfig(backend="openai", base_url=url, model="m", max_retries=2, concurrency=2))
        out = eng.generate([chat("hi"), "there"], SamplingParams(n=2, seed=3))
        assert [[c.text for c in row] for row in out] == [["echo hi"] * 2, ["echo there"] * 2]
        assert all(isinstance(c, Completion) for row in out for c in row)
        assert _Handler.calls[-1]["model"] == "m" and "seed" in _Handler.calls[-1]
        _Handler.fail_first = 10
        eng = make_engine(EngineConfig(backend="openai", base_url=url, model="m", max_retries=1))
        with pytest.raises(EngineError, match="503"):
            eng.generate(["x"], SamplingParams())
    finally:
        server.shutdown()


def test_hf_engine_stop_strings_cut_text_tokens_and_logprobs(tiny):
    # regression: a stop string cut the text but left token_ids/logprobs running to max_tokens
    from transformers import AutoTokenizer

    eng = make_engine(EngineConfig(backend="hf", model=tiny, batch_size=4))
    tok = AutoTokenizer.from_pretrained(tiny)
    params = dict(n=4, max_tokens=24, seed=3, logprobs=True)
    free = eng.generate([chat("Sort 3 1 2")], SamplingParams(**params))[0]
    longest = max(free, key=lambda c: len(c.text)).text
    stop = longest[len(longest) // 2:len(longest) // 2 + 2]
    cut = eng.generate([chat("Sort 3 1 2")], SamplingParams(**params, stop=[stop]))[0]
    hits = 0
    for f, c in zip(free, cut):
        assert c.token_ids == f.token_ids[:len(c.token_ids)] and len(c.logprobs) == len(c.token_ids)
        assert c.logprobs == f.logprobs[:len(c.token_ids)]
        if stop in f.text:
            hits += 1
            assert c.text == f.text[:f.text.index(stop)] and c.finish_reason == "stop"
            assert stop in tok.decode(c.token_ids) and stop not in tok.decode(c.token_ids[:-1])
        else:
            assert c.text == f.text and c.token_ids == f.token_ids
    assert hits >= 1


def test_chat_prompts_encode_to_token_ids(tiny):
    # regression: transformers 5 returns a BatchEncoding from apply_chat_template, and the vLLM
    # backend sent its keys ("input_ids", "attention_mask") as the prompt
    from transformers import AutoTokenizer

    from utils.engine import encode

    tok = AutoTokenizer.from_pretrained(tiny)
    text = tok.apply_chat_template(chat("Sort 3 1 2"), add_generation_prompt=True, tokenize=False)
    assert encode(tok, chat("Sort 3 1 2")) == tok(text, add_special_tokens=False)["input_ids"]
    assert encode(tok, "plain") == tok("plain", add_special_tokens=False)["input_ids"]


def fake_vllm(monkeypatch, tok, calls: list, sleep_mode: bool = True, device: str = "cpu"):
    """A stand-in for the vllm API: records what VLLMEngine asks of it (the real engine runs in
    tests/vllm/ under `make test-vllm`)."""
    import sys
    import types

    class LLM:
        def __init__(self, **kw):
            calls.append(("init", kw))
            self.llm_engine = types.SimpleNamespace(model_config=types.SimpleNamespace(dtype=kw["dtype"]))

        def get_tokenizer(self):
            return tok

        def generate(self, prompts, params, use_tqdm):
            calls.append(("generate", prompts, params))
            lp = types.SimpleNamespace
            return [lp(outputs=[lp(text=f"{p.seed}/{j}", token_ids=[7, 8], finish_reason="length" if j or
                                   (p.seed or 0) % 2 else "stop",
                                   logprobs=[{7: lp(logprob=-1.0), 9: lp(logprob=-3.0)}, {8: lp(logprob=-2.0)}])
                                for j in range(p.n)], prompt_token_ids=prompt["prompt_token_ids"])
                    for prompt, p in zip(prompts, params)]

        def collective_rpc(self, method, args=()):
            if method.__name__ == "_weights_device":
                return [device]
            (weights,) = args
            first = next(weights)  # lazily: the engine must hand over the iterator, not a list
            calls.append(("rpc", method.__name__, [first] + list(weights)))
            return [None]

        def reset_prefix_cache(self):
            calls.append(("reset",))

        def sleep(self, level):
            calls.append(("sleep", level))

        def wake_up(self, tags=None):
            calls.append(("wake_up", tags))

    vllm = types.ModuleType("vllm")
    vllm.LLM, vllm.SamplingParams = LLM, lambda **kw: types.SimpleNamespace(**kw)
    inputs = types.ModuleType("vllm.inputs")
    inputs.TokensPrompt = dict
    platforms = types.ModuleType("vllm.platforms")
    platforms.current_platform = types.SimpleNamespace(is_sleep_mode_available=lambda: sleep_mode,
                                                       device_type=device.split(":")[0],
                                                       is_cpu=lambda: device == "cpu")
    for name, mod in [("vllm", vllm), ("vllm.inputs", inputs), ("vllm.platforms", platforms)]:
        monkeypatch.setitem(sys.modules, name, mod)


def test_vllm_engine_sends_one_seeded_request_per_sample(tiny, monkeypatch):
    """VLLMEngine against a stand-in for the vllm API: one request per sample, sample j of a prompt
    seeded derive_seed(prompt seed, j) as the hf engine's (n independent draws, not vLLM's own
    handling of n), token-id prompts, behaviour log-probs, the samples back in prompt order."""
    from transformers import AutoTokenizer

    from utils.engine import encode
    from utils.records import derive_seed

    tok = AutoTokenizer.from_pretrained(tiny)
    calls = []
    fake_vllm(monkeypatch, tok, calls)
    monkeypatch.delenv("RANK", raising=False)
    eng = make_engine(EngineConfig(backend="vllm", model=tiny), seed=5)
    init = calls[0][1]
    assert init["seed"] == 5 and init["distributed_executor_backend"] is None and eng.device == "cpu"
    prompts = [chat("Sort 3 1 2"), chat("Sort 2 1")]
    out = eng.generate(prompts, SamplingParams(n=3, temperature=0.6, max_tokens=9, logprobs=True), seeds=[11, 12])
    (_, sent, params), = [c for c in calls if c[0] == "generate"]  # one call for every sample
    seeds = [[derive_seed(s, j) for j in range(3)] for s in (11, 12)]
    assert [p["prompt_token_ids"] for p in sent] == [encode(tok, p) for p in prompts for _ in range(3)]
    assert [(p.n, p.seed, p.logprobs, p.max_tokens) for p in params] == [(1, s, 0, 9) for row in seeds for s in row]
    assert len({s for row in seeds for s in row}) == 6
    assert [[c.text for c in row] for row in out] == [[f"{s}/0" for s in row] for row in seeds]
    assert out[0][0].logprobs == [-1.0, -2.0] and [c.seed for c in out[0]] == [11] * 3
    assert [c.finish_reason for row in out for c in row] == ["length" if s % 2 else "stop" for r in seeds for s in r]
    unseeded = eng.generate(prompts[:1], SamplingParams(n=2, seed=None))
    assert [p.seed for p in calls[-1][2]] == [None, None] and [c.seed for c in unseeded[0]] == [None, None]


def test_vllm_on_cpu_never_splits_a_prefill_and_fits_the_models_context(tiny, monkeypatch, capsys):
    """On CPU: chunked prefill off with a step budget of at least max_model_len (a prefill split over
    two steps made vLLM rewind a seeded CPU generator: 'CPU Generator does not use offset'), fp32
    under dtype auto (what the trainer holds), and max_model_len capped at the model's positions
    (2048 for the tiny model; vLLM refused 8192 with a pydantic traceback). On GPU: vLLM's own."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny)
    calls = []
    fake_vllm(monkeypatch, tok, calls)
    eng = make_engine(EngineConfig(backend="vllm", model=tiny, max_num_batched_tokens=512), seed=0)
    init = calls[0][1]
    assert (init["enable_chunked_prefill"], init["max_num_batched_tokens"], init["max_model_len"], init["dtype"]) == \
        (False, 2048, 2048, "float32") and eng.max_model_len == 2048
    err = capsys.readouterr().err.strip()
    assert err == f"engine.max_model_len 8192 is past {tiny}'s max_position_embeddings (2048, config.json): capped to 2048"
    calls.clear()
    fake_vllm(monkeypatch, tok, calls, device="cuda:0")
    monkeypatch.setenv("LOCAL_RANK", "0")
    import torch

    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    make_engine(EngineConfig(backend="vllm", model=tiny, max_model_len=1024), seed=0)
    init = calls[0][1]
    assert "enable_chunked_prefill" not in init and "max_num_batched_tokens" not in init and init["dtype"] == "auto"


def test_vllm_weight_sync_streams_and_wakes_weights_before_kv_cache(tiny, monkeypatch):
    """Level-2 sleep after the rollouts; a sync wakes the weights, streams the pairs (the iterator
    itself reaches the worker: nothing is collected into a list), then wakes the KV cache. A
    sleeping engine refuses to generate (its weights are gone)."""
    from transformers import AutoTokenizer

    from utils.engine import EngineError

    calls = []
    fake_vllm(monkeypatch, AutoTokenizer.from_pretrained(tiny), calls)
    eng = make_engine(EngineConfig(backend="vllm", model=tiny, enable_sleep_mode=True))
    assert calls[0][1]["enable_sleep_mode"] is True
    pulled = []

    def weights():
        for name in ("a", "b"):
            pulled.append(name)
            yield name, name.upper()

    eng.sync_weights(weights())  # awake: no wake_up
    assert calls[1:] == [("rpc", "_stream_weights", [("a", "A"), ("b", "B")]), ("reset",)]
    eng.sleep()
    eng.sleep()  # idempotent
    with pytest.raises(EngineError, match="asleep"):
        eng.generate([chat("x")], SamplingParams())
    del calls[:]
    gen = weights()
    eng.sync_weights(gen)
    assert calls == [("wake_up", ["weights"]), ("rpc", "_stream_weights", [("a", "A"), ("b", "B")]),
                     ("wake_up", ["kv_cache"]), ("reset",)]
    eng.generate([chat("x")], SamplingParams())


def test_vllm_sleep_mode_is_dropped_where_the_platform_has_none(tiny, monkeypatch, capsys):
    from transformers import AutoTokenizer

    calls = []
    fake_vllm(monkeypatch, AutoTokenizer.from_pretrained(tiny), calls, sleep_mode=False)
    eng = make_engine(EngineConfig(backend="vllm", model=tiny, enable_sleep_mode=True))
    assert calls[0][1]["enable_sleep_mode"] is False and "no sleep mode on cpu" in capsys.readouterr().err
    eng.sleep()
    eng.sync_weights([("a", 1)])
    assert [c[0] for c in calls[1:]] == ["rpc", "reset"]


def test_vllm_under_torchrun_uses_the_external_launcher_on_the_local_rank(tiny, monkeypatch):
    """Defect: with TP=1 and no executor backend every rank's engine landed on cuda:0. Under
    torchrun the engine joins as external_launcher and must sit on cuda:LOCAL_RANK."""
    from transformers import AutoTokenizer

    from utils.engine import EngineError

    tok = AutoTokenizer.from_pretrained(tiny)
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    calls = []
    fake_vllm(monkeypatch, tok, calls, device="cuda:1")
    eng = make_engine(EngineConfig(backend="vllm", model=tiny))
    assert calls[0][1]["distributed_executor_backend"] == "external_launcher" and eng.device == "cuda:1"
    fake_vllm(monkeypatch, tok, calls, device="cuda:0")
    with pytest.raises(EngineError, match="expected cuda:1"):
        make_engine(EngineConfig(backend="vllm", model=tiny))


def test_draw_follows_temperature_and_top_p():
    from utils.engine import _draw

    probs = torch.tensor([0.5, 0.3, 0.15, 0.05])
    logits = probs.log().repeat(4000, 1)
    gens = [torch.Generator().manual_seed(i) for i in range(4000)]

    def freq(**kw):
        drawn = _draw(logits, SamplingParams(**kw), gens)
        return (torch.bincount(drawn, minlength=4).float() / len(drawn)).tolist()

    assert freq(temperature=1.0) == pytest.approx([0.5, 0.3, 0.15, 0.05], abs=0.03)
    # top_p keeps the smallest head whose mass reaches p: tokens 0 and 1 (0.8 >= 0.7), renormalised
    assert freq(temperature=1.0, top_p=0.7) == pytest.approx([0.625, 0.375, 0, 0], abs=0.03)
    sharp = probs ** 2 / (probs ** 2).sum()  # temperature 0.5 squares the probabilities
    assert freq(temperature=0.5) == pytest.approx(sharp.tolist(), abs=0.03)
    assert freq(temperature=0.0) == [1.0, 0, 0, 0]


def test_evaluate_uses_every_visible_gpu_by_default(monkeypatch):
    """evaluate.py's num_shards default (0): one shard per visible GPU at engine TP 1, as
    puzzle_to_math line 135's 8 GPUs at vLLM TP 1; TP GPUs per shard; 1 on CPU and for endpoints."""
    import evaluate

    cfg = evaluate.EvalConfig()
    assert cfg.num_shards == 0
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 8)
    cfg.engine.backend = "vllm"
    assert evaluate.default_shards(cfg) == 8
    cfg.engine.tensor_parallel_size = 2
    assert evaluate.default_shards(cfg) == 4
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    assert evaluate.default_shards(cfg) == 1
    cfg.engine.tensor_parallel_size = 1
    assert evaluate.default_shards(cfg) == 2
    cfg.engine.backend = "openai"
    assert evaluate.default_shards(cfg) == 1
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)  # CPU
    cfg.engine.backend = "hf"
    assert evaluate.default_shards(cfg) == 1
