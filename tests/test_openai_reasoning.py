"""The OpenAI backend against a stand-in DeepSeek-Reasoner (no network): the chain of thought that
arrives in `reasoning_content` is kept as the <reasoning> block (puzzle_to_math line 39: SFT on
"rejection-sampled reasoning traces distilled from DeepSeek Reasoner"), ignored sampling fields are
not sent, and rejection sampling keeps the whole trace."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

import envs
from envs.base import format_score
from utils.engine import EngineConfig, SamplingParams, chat, make_engine, with_reasoning

COT = "Let me place the monsters. Row 0 sees 2 from the left... so cell (0,0) is a ghost. " * 5


class Reasoner(BaseHTTPRequestHandler):
    """Answers like deepseek-reasoner: the chain of thought in reasoning_content, a short final answer
    (with its own small reasoning summary) in content. `answer` is set per test."""

    calls: list = []
    answer = ""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls.append(body)
        msg = {"role": "assistant", "reasoning_content": COT,
               "content": f"<reasoning>\nSummary: deduced row by row.\n</reasoning>\n<answer>\n{type(self).answer}\n</answer>"}
        data = json.dumps({"choices": [{"message": msg, "finish_reason": "stop"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def reasoner():
    server = HTTPServer(("127.0.0.1", 0), Reasoner)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Reasoner.calls = []
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_with_reasoning_makes_one_reasoning_block():
    merged = with_reasoning("think hard", "<reasoning>short</reasoning>\n<answer>\n42\n</answer>")
    assert merged == "<reasoning>\nthink hard\n\nshort\n</reasoning>\n<answer>\n42\n</answer>"
    assert format_score(merged) == 1.0
    assert with_reasoning("", "<answer>1</answer>") == "<answer>1</answer>"  # nothing to add
    assert format_score(with_reasoning("cot", "<answer>1</answer>")) == 1.0  # content without its own block


def test_reasoning_content_is_kept_and_ignored_params_are_not_sent(reasoner):
    Reasoner.answer = "x"
    cfg = EngineConfig(backend="openai", base_url=reasoner, model="deepseek-reasoner", max_retries=0,
                       omit_params=["temperature", "top_p"])
    out = make_engine(cfg).generate([chat("p")], SamplingParams(n=1, temperature=0.6, top_p=0.95, max_tokens=32768))
    text = out[0][0].text
    assert text.startswith("<reasoning>\n" + COT.strip()) and "Summary: deduced row by row." in text
    assert text.count("<reasoning>") == 1 and text.endswith("<answer>\nx\n</answer>")
    sent = Reasoner.calls[-1]
    assert "temperature" not in sent and "top_p" not in sent and sent["max_tokens"] == 32768
    drop = make_engine(EngineConfig(backend="openai", base_url=reasoner, model="m", max_retries=0,
                                    reasoning_content="drop"))
    assert COT not in drop.generate(["p"], SamplingParams())[0][0].text
    assert "temperature" in Reasoner.calls[-1]  # sent unless omitted
    with pytest.raises(ValueError, match="omit_params"):
        make_engine(EngineConfig(backend="openai", omit_params=["temprature"]))


def test_rejection_sampling_keeps_the_teachers_chain_of_thought(reasoner, tmp_path):
    """The SFT trace of a solved puzzle holds the reasoning, not just the final board."""
    import generate
    from utils.records import load_split, write_jsonl

    rec = envs.make("undead", width=3, height=3, level="easy").generate(seed=1)
    write_jsonl(tmp_path / "train_sft-00000.jsonl", [rec])
    Reasoner.answer = "\n".join(rec["meta"]["solution"])
    generate.main(["mode=sft_traces", f"out={tmp_path}/traces", f"traces.records=[{tmp_path}]",
                   "traces.records_split=train_sft", "traces.samples=2", "traces.teacher.backend=openai",
                   f"traces.teacher.base_url={reasoner}", "traces.teacher.model=deepseek-reasoner",
                   "traces.teacher.omit_params=[temperature,top_p]"])
    rows = load_split(tmp_path / "traces", "train")
    assert len(rows) == 1 and rows[0]["id"] == rec["id"]
    trace = rows[0]["responses"][0]
    assert COT.strip() in trace and envs.score(rec, trace).parts["format"] == 1.0
