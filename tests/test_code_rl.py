"""The code-RL paper's protocol as configs and pieces: evaluation settings, the teacher's reasoning
effort, the real-data env, and the seeds step."""
from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

import envs
from utils.config import ConfigError, load_or_raise

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import code_rl_cpu as cpu  # noqa: E402

pytestmark = pytest.mark.usefixtures("hub_ids_ok")  # paper configs name hub models; tests run offline

BENCH = ROOT / "tests" / "data" / "bench"


# ------------------------------------------------------------------ evaluation protocol


def eval_cfg(name: str, *extra: str):
    """An eval config as shipped, its local benchmark files (LiveCodeBench releases, absent here)
    replaced by the fixture unless extra says otherwise."""
    from evaluate import EvalConfig

    benches = [{**b, "path": str(BENCH / "livecodebench.jsonl")} if b["kind"] == "code" else b
               for b in cpu.raw_config(ROOT / "configs" / "eval" / name)["benchmarks"]]
    return load_or_raise(EvalConfig, ["--config", str(ROOT / "configs" / "eval" / name), "model=Qwen/any",
                                      "engine.backend=replay", f"engine.replay_path={BENCH / 'livecodebench.jsonl'}",
                                      f"benchmarks={json.dumps(benches)}", *extra])


def test_shipped_lcb_config_fails_at_load_without_its_files(tmp_path, monkeypatch):
    from evaluate import EvalConfig

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"benchmarks\.0\.path.*test\*\.jsonl matches no file"):
        load_or_raise(EvalConfig, ["--config", str(ROOT / "configs" / "eval" / "livecodebench.yaml"), "model=Qwen/any",
                                   "engine.backend=replay"])
    (tmp_path / "data" / "livecodebench").mkdir(parents=True)
    (tmp_path / "data" / "livecodebench" / "test5.jsonl").write_text((BENCH / "livecodebench.jsonl").read_text())
    load_or_raise(EvalConfig, ["--config", str(ROOT / "configs" / "eval" / "livecodebench.yaml"), "model=Qwen/any",
                               "engine.backend=replay", f"engine.replay_path={BENCH / 'livecodebench.jsonl'}"])


def test_eval_configs_are_the_papers_protocol():
    """code_rl Appendix E: T = 0.2 at evaluation; 20 samples on LCB, 10 on MATH-500, 64 on AIME
    2024; LCB 08.2024-05.2025 (454 problems) and LCBv5 05.2023-01.2025; pass@1 and pass@10 (code),
    pass@1 and pass@5 (math)."""
    lcb = eval_cfg("livecodebench.yaml")
    assert (lcb.temperature, lcb.n, lcb.k) == (0.2, 20, [1, 10])
    window = {b.name: (b.date_from, b.date_to, b.expect) for b in lcb.benchmarks}
    assert window == {"lcb": ("2024-08-01", "2025-05-31", 454), "lcbv5": ("2023-05-01", "2025-01-31", 0)}
    math500, aime = eval_cfg("code_paper_math500.yaml"), eval_cfg("code_paper_aime24.yaml")
    assert (math500.temperature, math500.n, math500.k, math500.benchmarks[0].path) == \
        (0.2, 10, [1, 5], "HuggingFaceH4/MATH-500")
    assert (aime.temperature, aime.n, aime.k, aime.benchmarks[0].name) == (0.2, 64, [1, 5], "aime24")


def test_lcb_windows_select_by_date_from_release_files(tmp_path, capsys):
    """The release files are globbed and concatenated; each window keeps its dates; a count other
    than the paper's is reported."""
    from evaluate import load_benchmarks

    rows = [json.loads(line) for line in (BENCH / "livecodebench.jsonl").read_text().splitlines()]
    (tmp_path / "test.jsonl").write_text(json.dumps({**rows[0], "contest_date": "2023-06-01T00:00:00"}) + "\n")
    (tmp_path / "test2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows).replace('"c1"', '"c3"'))
    def with_path(path):
        benches = [{**b, "path": path} for b in cpu.raw_config(ROOT / "configs" / "eval" / "livecodebench.yaml")["benchmarks"]]
        return eval_cfg("livecodebench.yaml", f"benchmarks={json.dumps(benches)}")

    got = {b.name: sorted(p.id for p in ps) for b, ps in load_benchmarks(with_path(f"{tmp_path}/test*.jsonl"))}
    assert got == {"lcb": ["c2", "c3"], "lcbv5": ["c1", "c2", "c3"]}
    err = capsys.readouterr().err
    assert "lcb: 2 problems selected" in err and "the paper reports 454" in err and "lcbv5" not in err
    with pytest.raises(ConfigError, match="none\\*.jsonl matches no file"):
        with_path(f"{tmp_path}/none*.jsonl")


# ------------------------------------------------------------------ reasoning effort


class _Echo(BaseHTTPRequestHandler):
    bodies: list = []

    def do_POST(self):
        type(self).bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        data = json.dumps({"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_reasoning_effort_reaches_the_endpoint_and_the_chat_template(tmp_path):
    from transformers import AutoTokenizer

    from utils.engine import EngineConfig, SamplingParams, chat, encode, make_engine
    from utils.tiny import build_tiny

    server = HTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/v1"
        for effort in ("high", ""):
            make_engine(EngineConfig(backend="openai", base_url=url, model="gpt-oss-120b",
                                     reasoning_effort=effort)).generate([chat("hi")], SamplingParams())
        assert _Echo.bodies[0]["reasoning_effort"] == "high" and "reasoning_effort" not in _Echo.bodies[1]
    finally:
        server.shutdown()
    tok = AutoTokenizer.from_pretrained(build_tiny(tmp_path / "tiny"))
    tok.chat_template = "Reasoning: {{ reasoning_effort | default('none') }}{% for m in messages %} {{ m.content }}{% endfor %}"
    assert tok.decode(encode(tok, chat("x"), reasoning_effort="low")) == "Reasoning: low x"
    assert tok.decode(encode(tok, chat("x"))) == "Reasoning: none x"


def test_paper_synth_config_teacher_high_student_low():
    from generate import GenerateConfig

    cfg = load_or_raise(GenerateConfig, ["--config", str(ROOT / "configs" / "paper" / "code_rl" /
                                                         "gen_synth_star_induction.yaml")]).synth
    assert (cfg.teacher.engine.model, cfg.teacher.engine.reasoning_effort) == ("openai/gpt-oss-120b", "high")
    assert (cfg.student.engine.model, cfg.student.engine.reasoning_effort) == ("openai/gpt-oss-120b", "low")
    assert (cfg.corpus, cfg.corpus_data_dir, cfg.snippet_lines, cfg.samples, cfg.turns) == \
        ("hf:bigcode/starcoderdata", "python", [25, 50], 32, 6)
    assert cfg.envs == ["induction"] and cfg.keep_range == [0.01, 0.97]


# ------------------------------------------------------------------ real data


def test_code_contest_reads_local_files_with_a_field_mapping(tmp_path):
    rows = [json.loads(line) for line in (BENCH / "livecodebench.jsonl").read_text().splitlines()]
    renamed = [{"pid": r["question_id"], "statement": r["question_content"], "tests": r["public_test_cases"],
                "hidden": r["private_test_cases"], "starter": r["starter_code"], "meta": r["metadata"],
                "level": r["difficulty"]} for r in rows]
    path = tmp_path / "real.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in renamed))
    fields = {"id": "pid", "problem": "statement", "public_tests": "tests", "private_tests": "hidden",
              "starter_code": "starter", "func_name": "meta", "difficulty": "level"}
    env = envs.make("code_contest", path=str(path), fields=fields)
    recs = {r["id"]: r for r in (env.generate(seed) for seed in range(30))}
    assert sorted(recs) == ["code_contest-c1", "code_contest-c2"]
    c1, c2 = recs["code_contest-c1"], recs["code_contest-c2"]
    assert c1["prompt"].startswith("Read two integers") and c1["difficulty"] == 0 and c2["difficulty"] == 1
    assert len(c1["meta"]["tests"]) == 3, "1 public + 2 decoded private (base64 zlib pickle) tests"
    assert c2["meta"]["func_name"] == "twiceSum" and "class Solution" in c2["prompt"]
    right = "```python\nclass Solution:\n    def twiceSum(self, nums):\n        return 2 * sum(nums)\n```"
    assert envs.score(c2, right).correct and not envs.score(c2, right.replace("2 *", "3 *")).correct
    assert envs.score(c1, "```python\nprint(sum(map(int, input().split())))\n```").correct
    assert envs.score(c1, "no code").parts == {"correct": 0.0, "format": 0.0}
    # the parquet path gives the same records
    import datasets

    datasets.Dataset.from_list(renamed).to_parquet(str(tmp_path / "real.parquet"))
    pq = envs.make("code_contest", path=str(tmp_path / "real.parquet"), fields=fields)
    a, b = pq.generate(5), env.generate(5)
    assert a["meta"].pop("source")["path"].endswith(".parquet") and b["meta"].pop("source")["path"].endswith(".jsonl")
    assert a == b


def test_code_contest_bad_inputs_fail_at_config_load():
    import train

    with pytest.raises(ConfigError, match=r"data\.sources\.0\.params.*no/such\.jsonl does not exist"):
        load_or_raise(train.TrainConfig, ["stage=rl", "model=Qwen/any", "rl.engine.backend=hf",
                                          "data.sources=[{env: code_contest, params: {path: no/such.jsonl}}]"])


# ------------------------------------------------------------------ seed corpus and bins


class _Stream:
    def __init__(self, rows):
        self.rows, self.shuffled = rows, None

    def shuffle(self, seed, buffer_size):
        self.shuffled = (seed, buffer_size)
        return iter(self.rows)


def test_starcoderdata_python_windows_and_the_offline_fallback(monkeypatch, capsys):
    """The hub path asks for starcoderdata's Python data and cuts 25-50 line windows; offline it
    stops with one line, or falls back to the standard library when asked and says so."""
    import datasets

    from envs.code.snippets import SnippetSource

    calls, stream = [], _Stream([{"content": "".join(f"x{i} = {i}\n" for i in range(80))}, {"content": "short\n"}])

    def online(name, data_dir=None, split=None, streaming=False):
        calls.append((name, data_dir, split, streaming))
        return stream

    monkeypatch.setattr(datasets, "load_dataset", online)
    text, where = SnippetSource("hf:bigcode/starcoderdata", data_dir="python").snippet(0, 25, 50)
    assert calls == [("bigcode/starcoderdata", "python", "train", True)] and stream.shuffled[0] == 0
    assert where["corpus"] == "hf:bigcode/starcoderdata" and 25 <= len(text.splitlines()) == where["lines"] <= 50

    def offline(*a, **k):
        raise ConnectionError("no network")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(ValueError, match="corpus_fallback=stdlib"):
        SnippetSource("hf:bigcode/starcoderdata", data_dir="python").snippet(0)
    text, where = SnippetSource("hf:bigcode/starcoderdata", data_dir="python", fallback="stdlib").snippet(0, 25, 50)
    assert where["corpus"] == "stdlib" and 25 <= where["lines"] <= 50
    assert "falling back to the standard library" in capsys.readouterr().err


def test_records_in_no_bin_are_never_drawn_by_a_curriculum(tmp_path):
    """Synthesis writes meta.bin = null for pass rates between bins: such records stay out of a
    curriculum's draws; a record without the field at all is still a config error."""
    from envs.sampler import PromptSampler, SamplerConfig, Source
    from utils.records import write_jsonl

    def rec(i, **meta):
        return {"id": f"r{i}", "env": "deduction", "difficulty": 0, "prompt": "p", "answer": None, "meta": meta}

    write_jsonl(tmp_path / "a" / "train-00000.jsonl", [rec(0, bin="easy"), rec(1, bin=None), rec(2, bin="hard")])
    cfg = SamplerConfig(sources=[Source(data=str(tmp_path / "a"), split="train")])
    cfg.curriculum.path = "classic"
    sampler = PromptSampler(cfg, seed=0, rollouts_per_problem=8, total_steps=40000)
    assert {it.record["id"] for it in sampler.sample(0, 64)} == {"r0"}
    assert {it.record["id"] for it in sampler.sample(35000, 64)} == {"r2"}
    write_jsonl(tmp_path / "b" / "train-00000.jsonl", [rec(0, bin="easy"), rec(3)])
    with pytest.raises(ValueError, match="r3 has no meta.bin"):
        PromptSampler(SamplerConfig(sources=[Source(data=str(tmp_path / "b"), split="train")], curriculum=cfg.curriculum),
                      seed=0,
                      rollouts_per_problem=8, total_steps=10)


def test_ranks_on_a_node_share_the_cores_when_grading(monkeypatch):
    """Eight torchrun ranks on a node each score their rollouts: each grades with its share of the
    cores, not all of them (8 x cpu_count sandboxed processes otherwise)."""
    from envs.code import contest
    from utils.sandbox import Result

    seen = []

    class Stub:
        def run_many(self, jobs, workers=None, *, timeout_s=2.0, memory_mb=512):
            seen.append(workers)
            return [Result("ok", stdout="3\n") for _ in jobs]

    monkeypatch.setattr(contest, "_sandbox", lambda: Stub())
    monkeypatch.setattr(contest.os, "cpu_count", lambda: 16)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")
    rec = envs.make("code_contest").generate(0)
    envs.score(rec, "```python\nprint(3)\n```")
    assert seen and set(seen) == {2}


def test_seeds_are_the_first_solution_of_each_solved_real_problem(tmp_path):
    from envs.code.data import SeedsConfig, solved_seeds
    from utils.records import write_jsonl

    code = "```python\nprint({})\n```"
    write_jsonl(tmp_path / "samples.jsonl", [
        {"step": 1, "id": "a", "env": "code_contest", "response": code.format(1), "correct": True},
        {"step": 2, "id": "a", "env": "code_contest", "response": code.format(2), "correct": True},
        {"step": 2, "id": "b", "env": "code_contest", "response": code.format(3), "correct": False},
        {"step": 3, "id": "c", "env": "induction", "response": code.format(4), "correct": True},
        {"step": 3, "id": "d", "env": "code_contest", "response": "no code", "correct": True}])
    seeds, counts = solved_seeds(SeedsConfig(samples=[str(tmp_path)]))
    assert [s["text"] for s in seeds] == ["print(1)\n"] and seeds[0]["source"]["id"] == "a"
    assert counts["correct"] == 3 and counts["seeds"] == 1
    assert len(solved_seeds(SeedsConfig(samples=[str(tmp_path)], per_problem=2, env=""))[0]) == 3
