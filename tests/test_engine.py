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


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return str(build_tiny(tmp_path_factory.mktemp("tiny") / "model"))


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
