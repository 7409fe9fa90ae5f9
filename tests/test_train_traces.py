"""generate.py mode=sft_traces: rejection sampling keeps only verified responses; train.py reads them."""
from __future__ import annotations

import json

import envs
import generate
from utils.records import read_jsonl, write_jsonl


def test_rejection_sampling_keeps_distinct_correct_responses(tmp_path):
    env = envs.make("sorting")
    recs = [env.generate(seed=s, difficulty=0) for s in range(3)]
    write_jsonl(tmp_path / "problems.jsonl", recs)
    wrong = "<answer>9 9 9</answer>"
    replay = [{"prompt": recs[0]["prompt"], "responses": [wrong, recs[0]["answer"], recs[0]["answer"]]},
              {"prompt": recs[1]["prompt"], "responses": [wrong]},
              {"prompt": recs[2]["prompt"],
               "responses": [recs[2]["answer"], "<reasoning>x</reasoning>" + recs[2]["answer"]]}]
    write_jsonl(tmp_path / "replay.jsonl", replay)
    out = tmp_path / "traces"
    argv = ["mode=sft_traces", f"out={out}", f"traces.records=[{tmp_path}/problems.jsonl]", "traces.samples=3",
            "traces.teacher.backend=replay", f"traces.teacher.replay_path={tmp_path}/replay.jsonl"]
    generate.main(argv)
    rows = list(read_jsonl(out / "train-00000.jsonl"))
    assert [r["id"] for r in rows] == [recs[0]["id"], recs[2]["id"]]  # the all-wrong problem is dropped
    assert rows[0]["responses"] == [recs[0]["answer"]]  # wrong rejected, duplicate merged
    assert len(rows[1]["responses"]) == 2 and rows[1]["traces"] == {"k": 3, "correct": 2}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["per_env"]["sorting"] == {"problems": 3, "kept": 2, "responses": 3}
    generate.main(argv)  # a finished run re-reads its shards
    assert json.loads((out / "manifest.json").read_text())["problems_sampled_now"] == 0


def test_sft_reads_traces(tmp_path):
    from train import TrainConfig, load_sft_examples
    from utils.config import load_or_raise
    from utils.tiny import build_tiny

    tiny = build_tiny(tmp_path / "tiny")
    write_jsonl(tmp_path / "t.jsonl", [{"id": "a", "env": "sorting", "difficulty": 0, "prompt": "Sort 2 1",
                                        "answer": "<answer>1 2</answer>", "meta": {}, "responses": ["r1", "r2 " * 50]},
                                       {"prompt": "p", "response": "r3"}])
    cfg = load_or_raise(TrainConfig, ["stage=sft", f"model={tiny}", f"sft.data=[{tmp_path}/t.jsonl]", "sft.max_len=40"])
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny)
    examples, truncated, dropped = load_sft_examples(cfg, tok)
    assert len(examples) == 3 and truncated == 1 and dropped == 0
    prompt, resp, _ = examples[0]
    assert tok.decode(prompt) == "<|im_start|>user\nSort 2 1<|im_end|>\n<|im_start|>assistant\n"
    assert tok.decode(resp) == "r1<|im_end|>"  # the loss covers the response and its stop token only
    assert all(len(p) + len(r) <= 40 for p, r, _ in examples)
