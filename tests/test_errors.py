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


@pytest.mark.parametrize("data,key,words", [
    ("empty.jsonl", "sft.data", "no SFT examples"),  # used to blame sft.batch_size
    ("nonutf.jsonl", "sft.data", "nonutf.jsonl:2: not UTF-8"),
    ("garbled.jsonl", "sft.data", "garbled.jsonl:3: not valid JSON"),
    ("ok.jsonl", "sft.batch_size", "1 examples make no batch of 32"),  # a run-time check names the file too
])
def test_run_time_errors_in_train_name_key_and_file(files, tmp_path, capsys, data, key, words):
    import train

    cfg = tmp_path / "sft.yaml"
    cfg.write_text(f"stage: sft\nmodel: {files}/tiny\nout_dir: {tmp_path}\nsft: {{data: [{files}/{data}]}}\n")
    with pytest.raises(SystemExit) as e:
        train.main(["--config", str(cfg)])
    line = one_line(capsys, "train.py")
    assert e.value.code == 2 and f"config error: {key} ({cfg})" in line and words in line, line


def test_evaluate_refuses_an_empty_benchmark_and_a_corrupt_one(files, tmp_path, capsys):
    import evaluate

    for data, words in (("empty.jsonl", "no problems in"), ("nonutf.jsonl", "nonutf.jsonl:2: not UTF-8")):
        with pytest.raises(SystemExit) as e:
            evaluate.main([f"out_root={tmp_path}", "engine.backend=replay", f"engine.replay_path={files}/ok.jsonl",
                           f"benchmarks=[{{name: b, kind: math, path: {files}/{data}}}]"])
        line = one_line(capsys, "evaluate.py")
        assert e.value.code == 2 and "benchmarks.0.path (command line)" in line and words in line, line
    assert not (tmp_path / "eval").exists()


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
