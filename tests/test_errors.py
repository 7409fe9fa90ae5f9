"""Every bad input of issue 15's list is one line naming the key and the file, exit code 2, found
before anything is written: model paths, choices inside list entries, data files, run-time config
problems, API keys."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from utils.config import ConfigError, load_or_raise
from utils.records import DataError, load_records, read_jsonl_tolerant
from utils.tiny import build_tiny

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A tiny model and broken copies of it, and broken data files."""
    import shutil

    t = tmp_path_factory.mktemp("errors")
    tiny = build_tiny(t / "tiny")
    shutil.copytree(tiny, t / "run" / "checkpoints" / "step_00000001" / "model")
    shutil.copytree(tiny, t / "badcfg")
    (t / "badcfg" / "config.json").write_text("{not json")
    shutil.copytree(tiny, t / "badtok")
    (t / "badtok" / "tokenizer.json").write_bytes((t / "badtok" / "tokenizer.json").read_bytes()[:100])
    shutil.copytree(tiny, t / "trunc")
    with open(t / "trunc" / "model.safetensors", "r+b") as f:
        f.truncate(5000)
    (t / "nonutf.jsonl").write_bytes(b'{"prompt": "a", "response": "b"}\n\xff\xfe\n')
    # U+2028 inside a string is not a line break: the bad line is the third
    (t / "garbled.jsonl").write_bytes('{"prompt": "a", "response": "b"}\n{"prompt": "a\u2028b", "response": "c"}\n'
                                      '{"prompt": oops}\n'.encode())
    (t / "empty.jsonl").write_text("")
    (t / "ok.jsonl").write_text(json.dumps({"prompt": "a", "response": "b"}) + "\n")
    (t / "child.yaml").write_text("base: nothere.yaml\n")
    return t


def config_error(schema, argv, monkeypatch=None) -> ConfigError:
    with pytest.raises(ConfigError) as e:
        load_or_raise(schema, argv)
    return e.value


# (script, argv with {t} for the fixture dir, key, words in the message); source is the command line
CASES = [
    ("train", ["model={t}/run/checkpoints/step_00000001"], "model", "is a checkpoint folder: use"),
    ("train", ["model={t}/run"], "model", "is a run directory: use"),
    ("train", ["model={t}"], "model", "has no config.json"),
    ("train", ["model={t}/no/such/dir"], "model", "does not exist"),
    ("train", ["model=someorg/not-cached-model"], "model", "HF_HUB_OFFLINE is set"),
    ("train", ["model={t}/badcfg"], "model", "config.json is corrupt"),
    ("train", ["model={t}/trunc"], "model", "model.safetensors is corrupt (truncated"),
    ("train", ["model={t}/badtok"], "model", "tokenizer.json is corrupt (not JSON"),
    ("train", ["ref_model={t}/trunc"], "ref_model", "truncated"),
    ("train", ["chat_template={t}/none.jinja", "stage=sft"], "chat_template", ""),
    ("train", ["rl.engine.enable_thinking=false"], "rl.engine.enable_thinking", "top-level"),
    ("evaluate", ["benchmarks=[{name: x, kind: maths, path: {t}/ok.jsonl}]"], "benchmarks.0.kind", "'maths'"),
    ("evaluate", ["benchmarks=[{name: x, kind: math, path: {t}/nothere.jsonl}]"], "benchmarks.0.path",
     "does not exist"),
    ("evaluate", ["benchmarks=[{name: x, path: {t}/ok.jsonl}]", "model={t}/run"], "model", "use"),
    ("evaluate", ["benchmarks=[{name: x, path: {t}/ok.jsonl}]", "engine.backend=openai", "model=deepseek-chat",
                  "engine.base_url=https://api.deepseek.com/v1", "engine.api_key_env=DEEPSEEK_API_KEY"],
     "engine.api_key_env", "DEEPSEEK_API_KEY is not set"),
    ("analyze", ["inputs=[{t}/ok.jsonl]", "labeler=judges", "judges=[{name: a, engine: {backend: openia}}]"],
     "judges.0.engine.backend", "'openia'"),
    ("analyze", ["inputs=[{t}/ok.jsonl]", "judge_batch=-1"], "judge_batch", ">= 1"),
    ("analyze", ["inputs=[{t}/ok.jsonl]", "bootstrap=-5"], "bootstrap", ">= 1"),
    ("generate", ["splits.test=[{env: bridges, count: 1, params: {width: 3, height: 3, level: nightmare}}]"],
     "splits.test.0.params", "nightmare"),
    # issue 21.7-8: tracebacks, or accepted silently
    ("train", ["optim.lr=nan"], "optim.lr", "NaN"),
    ("train", ["optim.weight_decay=nan"], "optim.weight_decay", "NaN"),  # any float field: one mechanism
    ("train", ["optim.lr=.inf"], "optim.lr", "finite"),
    ("train", ["optim.betas=[2.0,3.0]"], "optim.betas.0", "[0, 1)"),  # a list entry: by its index
    ("train", ["optim.betas=[0.9]"], "optim.betas", "two"),
    ("train", ["stage=sft", "sft.batch_size=8", "sft.micro_batch_size=16"], "sft.micro_batch_size",
     "<= sft.batch_size"),
    ("train", ["rl.batch_size=16", "rl.micro_batch_size=32"], "rl.micro_batch_size", "<= rl.batch_size"),
    ("evaluate", ["benchmarks=[{name: x, path: {t}/ok.jsonl}]", "max_tokens=0"], "max_tokens", ">= 1"),
    ("evaluate", ["benchmarks=[{name: x, path: {t}/ok.jsonl}]", "temperature=-1"], "temperature", ">= 0"),
    ("evaluate", ["benchmarks=[{name: x, path: {t}/ok.jsonl}]", "top_p=2"], "top_p", "(0, 1]"),
    ("evaluate", ["benchmarks=[{name: x, path: {t}/ok.jsonl}]", "k=[]"], "k", "no pass@k"),
    ("evaluate", ["benchmarks=[{name: x, path: {t}/ok.jsonl}]", "engine.backend=replay",
                  "engine.replay_path={t}/nothere.jsonl"], "engine.replay_path", "is not a file"),
    ("analyze", ["inputs=[{t}/ok.jsonl]", "passk=[0]"], "passk.0", ">= 1"),
    ("analyze", ["inputs=[{t}/ok.jsonl]", "compare={t}/garbled.jsonl"], "compare", "not valid JSON"),
    ("analyze", ["inputs=[{t}/ok.jsonl]", "compare={t}/ok.jsonl"], "compare", "evaluate.py compare"),
]


@pytest.mark.parametrize("script,argv,key,words", CASES)
def test_config_time_errors_name_key_and_file(files, monkeypatch, capsys, tmp_path, script, argv, key, words):
    """Each case as the entry script sees it (utils.config.load: exit 2, one line on stderr), once
    on the command line and once written in a config file, which the line must name."""
    import importlib

    from omegaconf import OmegaConf

    from utils.config import load

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    mod = importlib.import_module(script)
    schema = {"train": "TrainConfig", "evaluate": "EvalConfig", "analyze": "AnalyzeConfig",
              "generate": "GenerateConfig"}[script]
    base = {"train": [f"model={files}/tiny", "data.sources=[{env: sorting}]", f"sft.data=[{files}/ok.jsonl]"],
            "evaluate": [f"model={files}/tiny"], "analyze": [], "generate": []}[script]
    args = base + [a.replace("{t}", str(files)) for a in argv]
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(OmegaConf.to_yaml(OmegaConf.from_dotlist(args)))
    for argv_, where in ((args, "command line"), (["--config", str(cfg)], str(cfg))):
        with pytest.raises(SystemExit) as e:
            load(getattr(mod, schema), argv_, prog=f"{script}.py")
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1, err
        assert err.startswith(f"{script}.py: config error: {key} ({where}): ") and words in err, err


def test_a_missing_base_file_is_named_by_the_file_that_refers_to_it(files):
    from train import TrainConfig

    e = config_error(TrainConfig, ["--config", str(files / "child.yaml")])
    assert (e.key, e.source) == ("base", str(files / "child.yaml")) and "nothere.yaml not found" in e.msg


def test_corrupt_data_files_name_the_file_and_line(files):
    with pytest.raises(DataError, match=r"nonutf.jsonl:2: not UTF-8"):
        load_records(files / "nonutf.jsonl")
    with pytest.raises(DataError, match=r"garbled.jsonl:3: not valid JSON"):
        load_records(files / "garbled.jsonl")
    assert len(read_jsonl_tolerant(files / "garbled.jsonl")) == 2  # a torn last line is dropped, as after a crash
    from utils.benchmarks import BenchmarkConfig, load_problems

    with pytest.raises(ValueError, match=r"garbled.jsonl:3: not valid JSON"):
        load_problems(BenchmarkConfig(name="b", kind="math", path=str(files / "garbled.jsonl")))


def one_line(capsys, prog: str) -> str:
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith(prog)]
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("stage,data,extra,key,words", [
    ("sft", "empty.jsonl", "", "sft.data", "no SFT examples"),  # used to blame sft.batch_size
    ("sft", "nonutf.jsonl", "", "sft.data", "nonutf.jsonl:2: not UTF-8"),
    ("sft", "garbled.jsonl", "", "sft.data", "garbled.jsonl:3: not valid JSON"),
    ("sft", "ok.jsonl", "", "sft.batch_size", "1 examples make no batch of 32"),  # a run-time check names the file
    ("sft", "ok.jsonl", "optim: {trainable: [no_such_weight]}", "optim.trainable", "no parameter"),
    ("rl", "ok.jsonl", "optim: {trainable: [no_such_weight]}", "optim.trainable", "no parameter"),
    ("rl", "ok.jsonl", "data: {sources: [{data: EMPTY}]}", "data.sources", "no records"),  # was a traceback
])
def test_run_time_errors_in_train_name_key_and_file(files, tmp_path, capsys, stage, data, extra, key, words):
    import train

    cfg = tmp_path / "train.yaml"
    cfg.write_text(f"stage: {stage}\nmodel: {files}/tiny\nout_dir: {tmp_path}\nsft: {{data: [{files}/{data}]}}\n"
                   + ("" if extra.startswith("data:") else "data: {sources: [{env: sorting}]}\n")
                   + extra.replace("EMPTY", f"{files}/empty.jsonl") + "\n")
    with pytest.raises(SystemExit) as e:
        train.main(["--config", str(cfg)])
    line = one_line(capsys, "train.py")
    assert e.value.code == 2 and f"config error: {key} ({cfg})" in line and words in line, line
    # issue 21.9: found before anything is written (config.yaml and run_info.json were)
    assert not (tmp_path / "train").exists()


@pytest.mark.parametrize("lines,argv,key,words", [
    ([], [], "inputs", "is empty"),
    (["not json", "[1, 2]"], [], "inputs", "no JSON object rows"),
    ([{"problem_id": "a", "text": "Compute 2 + 2 = 4."}], [], "inputs", "has no response"),
    ([{"problem_id": "a", "text": "Compute 2 + 2 = 4."}], ["fields={response: txt}"], "fields.response",
     "no row of"),
    ([{"problem_id": "a", "response": "Compute 2 + 2 = 4."}], ["fields={correct: ok}"], "fields.correct",
     "no row of"),
])
def test_run_time_errors_in_analyze_name_key_and_file(tmp_path, capsys, lines, argv, key, words):
    # issue 21.8: empty or non-JSON input, rows without a response, a field naming a missing column
    # were analysed (an empty summary, or every trace counted as bad); one line, nothing written
    import analyze

    path = tmp_path / "run" / "samples.jsonl"
    path.parent.mkdir()
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    with pytest.raises(SystemExit) as e:
        analyze.main([f"inputs=[{path}]", *argv])
    line = one_line(capsys, "analyze.py")
    assert e.value.code == 2 and f"config error: {key} (command line)" in line and words in line, line
    assert str(path) in line
    assert not (tmp_path / "run" / "analysis").exists()


def test_evaluate_refuses_an_empty_benchmark_and_a_corrupt_one(files, tmp_path, capsys):
    import evaluate

    for data, words in (("empty.jsonl", "no problems in"), ("nonutf.jsonl", "nonutf.jsonl:2: not UTF-8")):
        with pytest.raises(SystemExit) as e:
            evaluate.main([f"out_root={tmp_path}", "engine.backend=replay", f"engine.replay_path={files}/ok.jsonl",
                           f"benchmarks=[{{name: b, kind: math, path: {files}/{data}}}]"])
        line = one_line(capsys, "evaluate.py")
        assert e.value.code == 2 and "benchmarks.0.path (command line)" in line and words in line, line
    assert not (tmp_path / "eval").exists()


@pytest.mark.parametrize("data,match,key,words", [
    ("dup.jsonl", "", "select.data", "duplicate record ids"),
    ("garbled.jsonl", "", "select.data", "garbled.jsonl:3: not valid JSON"),
    ("one.jsonl", "garbled.jsonl", "select.match", "garbled.jsonl:3: not valid JSON"),
])
def test_generate_select_errors_are_one_config_line(files, tmp_path, capsys, data, match, key, words):
    # issue 21: mode=select said `generate.py: <error>` with exit 1, after writing config.yaml and run_info.json
    import generate

    rec = {"id": "a", "env": "sorting", "difficulty": 0, "prompt": "p", "answer": None, "meta": {"pass_rate": 0.5}}
    (tmp_path / "one.jsonl").write_text(json.dumps(rec) + "\n")
    (tmp_path / "dup.jsonl").write_text((json.dumps(rec) + "\n") * 2)
    (tmp_path / "garbled.jsonl").write_bytes((files / "garbled.jsonl").read_bytes())
    argv = ["mode=select", f"out={tmp_path}/out", f"select.data=[{tmp_path / data}]"]
    with pytest.raises(SystemExit) as e:
        generate.main(argv + ([f"select.match={tmp_path / match}"] if match else []))
    line = one_line(capsys, "generate.py")
    assert e.value.code == 2 and f"config error: {key} (command line)" in line and words in line, line
    assert not (tmp_path / "out").exists()


def test_entry_scripts_say_it_in_one_line_with_exit_2(files):
    r = subprocess.run([sys.executable, "train.py", "--config", str(files / "child.yaml")], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "child.yaml" in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "evaluate.py", "compare", "--help"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and "usage: evaluate.py compare RUN_A RUN_B" in r.stdout
    r = subprocess.run([sys.executable, "generate.py", f"out={files}/gen",
                        "splits.test=[{env: bridges, count: 2, params: {width: 2, height: 2}}]"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "splits.test.0.params" in r.stderr, r.stderr
    assert not (files / "gen").exists()  # found before the output folder exists


def test_missing_api_key_fails_at_once():
    from utils.engine import EngineConfig, EngineError, make_engine

    cfg = EngineConfig(backend="openai", base_url="https://api.deepseek.com/v1", api_key_env="RLVR_TEST_NO_SUCH_KEY")
    with pytest.raises(EngineError, match="RLVR_TEST_NO_SUCH_KEY is not set"):
        make_engine(cfg)
    make_engine(EngineConfig(backend="openai", base_url="http://localhost:8000/v1", api_key_env="RLVR_TEST_NO_SUCH_KEY"))


def test_an_unreachable_hub_is_one_line_within_seconds(files, tmp_path):
    # regression: a hub id on a node without network retried for 57 s, then a traceback. Here the
    # hub is this host's port 443 (nothing listens there), HF_HUB_OFFLINE unset.
    import os
    import time

    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(HF_ENDPOINT="https://127.0.0.1", HF_HOME=str(tmp_path / "hf"))
    cfg = tmp_path / "eval.yaml"
    cfg.write_text(f"model: someorg/not-cached-model\nbenchmarks: [{{name: b, path: {files}/ok.jsonl}}]\n")
    t = time.monotonic()
    r = subprocess.run([sys.executable, "evaluate.py", "--config", str(cfg)], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"config error: model ({cfg})" in r.stderr and "127.0.0.1 does not answer" in r.stderr, r.stderr
    assert time.monotonic() - t < 60  # python start and imports under load; no retries
