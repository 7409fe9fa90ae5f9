"""A hub model pinned by revision (issue 28: RLVE's ProRL-1.5B-v2 is the `v2` revision of
nvidia/Nemotron-Research-Reasoning-Qwen-1.5B): train.py's model_revision / ref_model_revision and the
engines' engine.revision reach every loader (transformers, vLLM, the offline HF-cache check, --plan's
shape lookup); a revision with a local directory, or one that is not a revision name, is one line."""
from __future__ import annotations

import json
import types

import pytest
import torch
import transformers

import train
from utils import memplan, modelpath
from utils.config import ConfigError, load_or_raise
from utils.engine import EngineConfig, make_engine

PRORL = "nvidia/Nemotron-Research-Reasoning-Qwen-1.5B"
RLVE = "configs/paper/rlve_adaptive.yaml"


@pytest.fixture
def loads(monkeypatch):
    """(what, path, revision) of every transformers from_pretrained call; the real loaders still run
    (a local directory loads whatever revision is asked)."""
    seen = []
    for cls in (transformers.AutoTokenizer, transformers.AutoModelForCausalLM, transformers.AutoConfig):
        real = cls.from_pretrained

        def record(path, *args, _real=real, _name=cls.__name__, **kw):
            seen.append((_name, str(path), kw.get("revision")))
            return _real(path, *args, **kw)

        monkeypatch.setattr(cls, "from_pretrained", record)
    return seen


def rlve(tiny, *extra):
    """The RLVE config (model_revision v2) on the tiny model, unvalidated: the loaders below are what is tested."""
    return load_or_raise(train.TrainConfig, ["--config", RLVE, f"model={tiny}", *extra], validate=False)


def test_train_loaders_take_the_revision_of_the_configured_model(tiny, loads):
    cfg = rlve(tiny)
    assert cfg.model_revision == "v2"
    tok = train.load_tokenizer(cfg, tiny)
    train.build_model(cfg, None, tiny, tok=tok)
    train.prompt_check(cfg, tok, tiny)
    assert {what for what, *_ in loads} == {"AutoTokenizer", "AutoModelForCausalLM", "AutoConfig"}
    assert {rev for *_, rev in loads} == {"v2"}
    loads.clear()
    train.load_reference(tiny, types.SimpleNamespace(device=torch.device("cpu")), "v3")
    assert [rev for what, _, rev in loads if what == "AutoModelForCausalLM"] == ["v3"]
    loads.clear()
    # a resumed run loads its own checkpoint (a local directory, any other path): no revision
    train.load_tokenizer(cfg, tiny + "/")
    assert loads and {rev for *_, rev in loads} == {None}


def test_hf_engine_takes_the_revision(tiny, loads):
    make_engine(EngineConfig(backend="hf", model=tiny, revision="v2", device="cpu"))
    assert {what for what, *_ in loads} >= {"AutoTokenizer", "AutoModelForCausalLM"}
    assert {rev for *_, rev in loads} == {"v2"}, "every call (transformers' own config reads included)"


def test_vllm_engine_takes_the_revision(tiny, loads, monkeypatch):
    from test_engine import fake_vllm

    calls = []
    fake_vllm(monkeypatch, transformers.AutoTokenizer.from_pretrained(tiny), calls)
    monkeypatch.delenv("RANK", raising=False)
    loads.clear()
    make_engine(EngineConfig(backend="vllm", model=tiny, revision="v2"))
    init = calls[0][1]
    assert (init["model"], init["revision"], init["tokenizer_revision"]) == (tiny, "v2", "v2")
    assert [rev for what, _, rev in loads if what == "AutoConfig"] == ["v2"]
    calls.clear()
    make_engine(EngineConfig(backend="vllm", model=tiny))
    assert (calls[0][1]["revision"], calls[0][1]["tokenizer_revision"]) == (None, None), "no revision: the default"


def test_a_revision_with_a_local_directory_is_refused_in_one_line(tiny, capsys, tmp_path):
    import evaluate

    for argv, key in (([f"model={tiny}", "model_revision=v2"], "model_revision"),
                      ([f"model={tiny}", "model_revision=''", f"ref_model={tiny}", "ref_model_revision=v2"],
                       "ref_model_revision")):
        with pytest.raises(SystemExit) as e:
            train.main(["--config", RLVE, *argv])
        assert e.value.code == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"train.py: config error: {key} (command line): 'v2' cannot apply to {tiny}, a local "
                              "directory") and "\n" not in err
    with pytest.raises(SystemExit) as e:
        evaluate.main(["--config", "configs/eval/rlve_held_out.yaml", f"model={tiny}", "engine.revision=v2",
                       f"benchmarks=[{{name: held_out, kind: env, path: {tmp_path}, split: test}}]"])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and "config error: engine.revision" in err and "\n" not in err


def test_a_revision_is_one_name(hub_ids_ok):
    for value in ("[v2]", "'a b'", "'v2;rm'"):
        with pytest.raises(ConfigError) as e:
            load_or_raise(train.TrainConfig, ["--config", RLVE, f"model_revision={value}"])
        assert e.value.key == "model_revision", value
    for value in ("v2", "main", "refs/pr/3", "0123abcd" * 5):
        assert load_or_raise(train.TrainConfig, ["--config", RLVE, f"model_revision={value}"]).model_revision == value


def test_the_offline_cache_check_looks_for_that_revision(monkeypatch):
    import huggingface_hub

    asked = []
    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache",
                        lambda repo, name, revision=None: asked.append(revision) or (revision == "main" and "/c.json"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert modelpath.problem(PRORL, "main") is None
    assert "not in the HF cache at revision v2" in modelpath.problem(PRORL, "v2")
    assert asked == ["main", "v2"]


def test_the_plan_shape_lookup_takes_the_revision():
    shape, source = memplan.shape_of(PRORL, "v2")
    assert shape == memplan.shape_of(PRORL)[0], "a revision of one architecture: the table's shape"
    assert "at revision v2" in source
    cfg = load_or_raise(train.PlanConfig, ["--config", RLVE])
    assert "at revision v2" in train.plan_setup(cfg)[1]


def test_evaluations_of_two_revisions_never_share_samples(hub_ids_ok):
    import evaluate

    def settings(*extra):  # what a run directory's fingerprint records and every sample row is keyed on
        cfg = load_or_raise(evaluate.EvalConfig, [f"model={PRORL}", *extra], validate=False)
        return json.dumps(evaluate.sampling_settings(cfg), sort_keys=True)

    assert len({settings("engine.revision=v2"), settings("engine.revision=v1"), settings()}) == 3
