"""Issue 30 item 5: every numeric setting has its range checked at config time.

Every numeric field of every config dataclass the four entry points load (found by walking their
schemas, sections and list and mapping entries included) is given -1, 0, NaN, inf and -inf: each is
refused with one ConfigError naming exactly that key, or accepted where the field's declared range
holds it (a value with a documented meaning: -1 is then named in the field's help). Then the
issue's own list by name, and the one line with exit code 2 on the command line."""
from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import analyze
import evaluate
import generate
import train
from utils.config import ConfigError, load_or_raise, range_problem

ROOT = Path(__file__).resolve().parents[1]
VALUES = ("-1", "0", "nan", "inf", "-inf")
PROGRAMS = ("train", "evaluate", "generate", "analyze")


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """A minimal valid command line per program, with one entry in every list of sections (so the
    walk reaches their fields): program -> (schema, argv). The model directory stands in for a
    model (config load checks its files, loads nothing), as in test_train_configs.py."""
    t = tmp_path_factory.mktemp("ranges")
    (t / "model").mkdir()
    (t / "model" / "config.json").write_text("{}")
    (t / "model" / "model.safetensors").write_bytes((2).to_bytes(8, "little") + b"{}")
    ok = t / "ok.jsonl"
    ok.write_text(json.dumps({"prompt": "a", "response": "b", "answer": "1"}) + "\n")
    return {
        "train": (train.TrainConfig, [f"model={t}/model", "data.sources=[{env: bridges}]"]),
        "evaluate": (evaluate.EvalConfig, [f"model={t}/model", f"benchmarks=[{{name: x, path: {ok}}}]"]),
        "generate": (generate.GenerateConfig, [f"out={t}/gen", "splits={train: [{env: bridges, count: 1}]}",
                                              "bricks.specs=[{name: b}]"]),
        "analyze": (analyze.AnalyzeConfig, [f"inputs=[{ok}]", "judges=[{name: j1}]",
                                            "strata=[{name: a, spans: 1}, {name: b, spans: 1}]"]),
        "ok": ok,
    }


def _types(t) -> list:
    """The leaf types of an annotation: List[float] -> [float], Dict[str, List[Entry]] -> [str, Entry]."""
    args = typing.get_args(t)
    return [leaf for a in args for leaf in _types(a)] if args else [t]


class Setting(typing.NamedTuple):
    prog: str
    key: str  # the field's dotted key (a list entry's by index: data.sources.0.weight)
    leaf: str  # the key of the number an override sets (keep_range.0, bins.easy.0, keep_steps.0)
    override: str  # with {} for the value
    field: dataclasses.Field
    integer: bool  # an int field: NaN and infinity are type errors


def numeric_settings(prog: str, obj, prefix: str = ""):
    """Every numeric field under the loaded config `obj`; a list or mapping of sections is walked
    through its first entry, a list or mapping of numbers is set at its first entry."""
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        key, value, leaves = prefix + f.name, getattr(obj, f.name), _types(hints[f.name])
        if any(dataclasses.is_dataclass(t) for t in leaves):
            while isinstance(value, (list, dict)):
                assert value, f"{prog} {key}: give the base config one entry, so the walk reaches its fields"
                first = next(iter(value)) if isinstance(value, dict) else 0
                key, value = f"{key}.{first}", value[first]
            yield from numeric_settings(prog, value, key + ".")
        elif (int in leaves or float in leaves) and bool not in leaves:
            leaf = key
            while isinstance(value, (list, dict)) and value:
                first = next(iter(value)) if isinstance(value, dict) else 0
                leaf, value = f"{leaf}.{first}", value[first]
            override = f"{key}=[{{}}]" if isinstance(value, list) else f"{leaf}={{}}"  # [] gets one entry
            yield Setting(prog, key, leaf + (".0" if isinstance(value, list) else ""), override, f,
                          float not in leaves)


def settings(bases, prog: str) -> list[Setting]:
    """A program's numeric fields. A section class met again (an engine, a benchmark, a judge: the
    same fields, checked by the same code) is tried at its first place only, to keep the test fast:
    the programs come in PROGRAMS order."""
    seen = set()
    for other in PROGRAMS[:PROGRAMS.index(prog)]:
        schema, argv = bases[other]
        seen |= {id(s.field) for s in numeric_settings(other, load_or_raise(schema, argv))}
    schema, argv = bases[prog]
    out = []
    for s in numeric_settings(prog, load_or_raise(schema, argv)):
        if id(s.field) not in seen:
            seen.add(id(s.field))
            out.append(s)
    return out


def test_the_walk_reaches_sections_lists_and_mappings(bases):
    keys = {(s.prog, s.key) for prog in PROGRAMS for s in settings(bases, prog)}
    for expected in [("train", "optim.min_lr_ratio"), ("train", "data.adaptive.window"),
                     ("train", "data.sources.0.weight"), ("train", "rl.engine.max_model_len"),
                     ("train", "keep_steps"), ("evaluate", "n"), ("evaluate", "k"),
                     ("evaluate", "benchmarks.0.timeout_s"), ("generate", "splits.train.0.count"),
                     ("generate", "traces.temperature"), ("generate", "synth.bins"), ("generate", "races.operators"),
                     ("generate", "synth.teacher.top_p"), ("analyze", "judges.0.temperature"),
                     ("analyze", "classifier.hf.lr")]:
        assert expected in keys
    assert len(keys) >= 150


@pytest.mark.parametrize("prog", PROGRAMS)
def test_every_numeric_field_refuses_or_documents_each_edge_value(bases, prog):
    schema, argv = bases[prog]
    failures = []
    for s in settings(bases, prog):
        bounds = s.field.metadata.get("range")
        if not bounds:
            failures.append(f"{s.key}: no declared range (field(..., ge=/gt=/le=/lt=))")
            continue
        for v in VALUES:
            refused = (s.integer and not math.isfinite(float(v))) or range_problem(bounds, float(v)) is not None
            override = s.override.format(v)
            try:
                load_or_raise(schema, argv + [override])
                error = None
            except ConfigError as e:
                error = e
            if error is not None and error.key != s.leaf:
                failures.append(f"{override}: blamed on {error.key} ({error.msg})")
            elif refused and error is None:
                failures.append(f"{override}: accepted, outside the declared range {bounds}")
            elif refused and error.source != "command line":
                failures.append(f"{override}: blamed on {error.source}")
            elif not refused and v == "-1" and "-1" not in s.field.metadata["help"]:
                failures.append(f"{s.key}: -1 is accepted, and its help does not say what it means")
    assert not failures, f"{prog}:\n" + "\n".join(failures)


# the issue's list: (program, extra overrides, the override, the key named, words in the message)
ISSUE = [
    ("train", [], "optim.min_lr_ratio=-2", "optim.min_lr_ratio", "in [0, 1]"),
    ("train", ["stage=sft", "sft.data=[{ok}]"], "sft.max_steps=-1", "sft.max_steps", ">= 0"),
    ("train", [], "rl.top_p=0", "rl.top_p", "in (0, 1]"),
    ("train", [], "rl.temperature=inf", "rl.temperature", "finite and > 0"),
    ("train", [], "optim.warmup_steps=-1", "optim.warmup_steps", ">= 0"),
    ("train", [], "optim.max_grad_norm=-1", "optim.max_grad_norm", ">= 0"),
    ("train", ["lora.enabled=true"], "lora.alpha=-16", "lora.alpha", "> 0"),
    ("train", [], "rl.log_samples=-2", "rl.log_samples", ">= -1"),  # -1: all, documented
    ("generate", ["mode=sft_traces"], "traces.temperature=-0.5", "traces.temperature", ">= 0"),
    ("generate", ["mode=sft_traces"], "traces.temperature=inf", "traces.temperature", "finite"),
    ("train", ["data.adaptive.enabled=true"], "data.adaptive.window=-1", "data.adaptive.window", ">= 1"),
]


@pytest.mark.parametrize("prog,extra,override,key,words", ISSUE, ids=[c[2] for c in ISSUE])
def test_the_issues_values_are_one_line_naming_their_key(bases, prog, extra, override, key, words):
    schema, argv = bases[prog]
    with pytest.raises(ConfigError) as e:
        load_or_raise(schema, argv + [a.format(ok=bases["ok"]) for a in extra] + [override])
    assert (e.value.key, e.value.source) == (key, "command line") and words in e.value.msg, str(e.value)


def test_a_file_that_sets_a_value_out_of_range_is_named(bases, tmp_path):
    schema, argv = bases["train"]
    run = tmp_path / "run.yaml"
    run.write_text("data:\n  sources: [{env: bridges}]\n  adaptive: {enabled: true, window: -1}\n")
    with pytest.raises(ConfigError) as e:
        load_or_raise(schema, ["--config", str(run), argv[0]])
    assert (e.value.key, e.value.source) == ("data.adaptive.window", str(run))


def test_the_command_line_gets_one_line_and_exit_code_2():
    p = subprocess.run([sys.executable, "train.py", "optim.min_lr_ratio=-2"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.splitlines() == ["train.py: config error: optim.min_lr_ratio (command line): "
                                     "must be in [0, 1], got -2.0"]
