"""Configs: YAML + base inheritance + overrides; every bad input is one line naming key and file, exit 2."""
from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from utils.config import ConfigError, field, help_text, load_or_raise

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Inner:
    eps: float = field(0.2, help="clip")
    level: str = field("token", help="ratio level", choices=("token", "sequence"))


@dataclass
class Schema:
    name: str = field("run", help="run name")
    steps: int = field(10, help="steps")
    tags: list = field([], help="tags")
    rl: Inner = field(Inner(), help="RL settings")

    def validate(self):
        if self.steps < 0:
            yield "steps", "must be >= 0"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_defaults_file_base_and_overrides(tmp_path):
    base = write(tmp_path / "base.yaml", "steps: 5\nrl: {eps: 0.1}\n")
    child = write(tmp_path / "child.yaml", "base: base.yaml\nname: child\nrl: {level: sequence}\n")
    cfg = load_or_raise(Schema, ["--config", str(child), "rl.eps=0.3", "tags=[a,b]"])
    assert (cfg.name, cfg.steps, cfg.rl.eps, cfg.rl.level, cfg.tags) == ("child", 5, 0.3, "sequence", ["a", "b"])
    assert load_or_raise(Schema, []).rl.eps == 0.2
    assert Schema().tags is not Schema().tags  # mutable defaults are not shared


@pytest.mark.parametrize("argv,key,source", [
    (["stepz=3"], "stepz", "command line"),
    (["steps=abc"], "steps", "command line"),
    (["rl.level=word"], "rl.level", "command line"),
    (["steps"], "steps", "command line"),
    (["steps=-1"], "steps", "command line"),
    (["--config", "missing.yaml"], "--config", "missing.yaml"),
])
def test_errors_name_key_and_source(argv, key, source):
    with pytest.raises(ConfigError) as e:
        load_or_raise(Schema, argv)
    assert e.value.key == key and source in e.value.source


def test_error_in_file_names_the_file(tmp_path):
    base = write(tmp_path / "base.yaml", "rl: {epz: 1}\n")
    child = write(tmp_path / "child.yaml", "base: base.yaml\n")
    with pytest.raises(ConfigError) as e:
        load_or_raise(Schema, ["--config", str(child)])
    assert e.value.source == str(base) and "epz" in e.value.key
    bad = write(tmp_path / "bad.yaml", "steps: 3\n  oops: [\n")
    with pytest.raises(ConfigError) as e:
        load_or_raise(Schema, ["--config", str(bad)])
    assert e.value.source == str(bad)
    loop = write(tmp_path / "loop.yaml", "base: loop.yaml\n")
    with pytest.raises(ConfigError, match="circular"):
        load_or_raise(Schema, ["--config", str(loop)])
    # a later layer is blamed for the key it set
    write(tmp_path / "ok.yaml", "steps: 3\n")
    neg = write(tmp_path / "neg.yaml", "base: ok.yaml\nsteps: -4\n")
    with pytest.raises(ConfigError) as e:
        load_or_raise(Schema, ["--config", str(neg)])
    assert (e.value.key, e.value.source) == ("steps", str(neg))


def test_help_lists_fields():
    text = help_text(Schema, "x.py")
    assert "rl.eps (float, default 0.2)" in text and "clip" in text and "one of ['token', 'sequence']" in text


def test_entry_script_fails_fast_with_one_line(tmp_path):
    cfg = write(tmp_path / "g.yaml", "mode: envs\nworkerz: 2\n")
    code = ("import sys, generate\n"
            "try:\n    generate.main(sys.argv[1:])\n"
            "except SystemExit as e:\n"
            "    assert 'torch' not in sys.modules, 'config errors must come before heavy imports'\n"
            "    raise\n")
    r = subprocess.run([sys.executable, "-c", code, "--config", str(cfg)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "workerz" in lines[0] and str(cfg) in lines[0]
    r = subprocess.run([sys.executable, "generate.py", "splits.test=[{env: nope, count: 1}]"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "nope" in r.stderr
    r = subprocess.run([sys.executable, "generate.py", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and "splits" in r.stdout and "workers" in r.stdout


@dataclass
class Parent:
    rl: Inner = field(Inner(level="sequence"), help="nested with a non-class default")


def test_help_shows_the_parents_default_for_nested_configs():
    # regression: help used to show the nested class's own default ("token")
    assert 'rl.level (str, default "sequence")' in help_text(Parent)


def test_unparsable_override_value_is_one_line():
    # regression: a YAML error in an override value printed a traceback
    with pytest.raises(ConfigError) as e:
        load_or_raise(Schema, ["tags=[a,"])
    assert e.value.key == "tags" and e.value.source == "command line"


@pytest.mark.parametrize("entry,key,words", [
    ("{env: bridges, count: 1, params: {widht: 7}}", "splits.test.0.params", "widht"),
    ("{env: bridges, count: 1, params: {width: 7, height: 7, level: extreme}}", "splits.test.0.params", "extreme"),
    ("{env: sorting, count: 1, difficulty: -1}", "splits.test.0.difficulty", ">= 0"),
])
def test_generate_entry_params_are_checked_up_front(tmp_path, entry, key, words):
    # regression: a bad env param passed validation and failed in a pool worker with a traceback
    from generate import GenerateConfig

    cfg = write(tmp_path / "g.yaml", f"mode: envs\nsplits:\n  test:\n    - {entry}\n")
    with pytest.raises(ConfigError) as e:
        load_or_raise(GenerateConfig, ["--config", str(cfg)])
    assert (e.value.key, e.value.source) == (key, str(cfg)) and words in e.value.msg


def test_bad_key_inside_a_list_entry_is_named_by_its_path(tmp_path):
    # regression: OmegaConf reported only `widht`, without the list entry it sits in
    from generate import GenerateConfig

    cfg = write(tmp_path / "g.yaml", "splits:\n  test:\n    - {env: pattern, count: 1, widht: 5}\n")
    with pytest.raises(ConfigError) as e:
        load_or_raise(GenerateConfig, ["--config", str(cfg)])
    assert e.value.key == "splits.test.0.widht" and e.value.source == str(cfg)


def test_mappings_merge_unless_the_key_ends_with_a_bang(tmp_path):
    # the examples: a RACES config setting two operators still produced sequential and
    # parallel, and a split list inherited the base's test split
    from generate import GenerateConfig

    base = write(tmp_path / "base.yaml", "mode: races\nraces: {operators: {sequential: 1, parallel: 1}, count: 7}\n"
                                         "splits:\n  test: [{env: sorting, count: 2}]\n  train: [{env: sorting}]\n")
    merged = write(tmp_path / "merged.yaml", "base: base.yaml\nraces: {operators: {sort: 1, select: 1}}\n"
                                             "splits: {train: [{env: pattern, count: 3}]}\n")
    cfg = load_or_raise(GenerateConfig, ["--config", str(merged)])
    assert cfg.races.operators["sequential"] == 1 and cfg.races.operators["sort"] == 1
    assert set(cfg.splits) == {"test", "train"} and cfg.splits["train"][0].env == "pattern"
    replaced = write(tmp_path / "replaced.yaml", "base: base.yaml\nraces: {operators!: {sort: 1, select: 1}}\n"
                                                 "splits!: {train: [{env: pattern, count: 3}]}\n")
    cfg = load_or_raise(GenerateConfig, ["--config", str(replaced)])
    assert cfg.races.operators == {"sort": 1.0, "select": 1.0} and cfg.races.count == 7
    assert list(cfg.splits) == ["train"] and cfg.splits["train"][0].count == 3
    # a section (dataclass) written with ! goes back to its defaults before the layer is merged
    cfg = load_or_raise(GenerateConfig, ["--config", str(replaced), "races!={pool_size: 50}"])
    assert cfg.races.pool_size == 50 and cfg.races.count == GenerateConfig().races.count
    # the bang is not part of the key: a typo under it is still named
    bad = write(tmp_path / "bad.yaml", "base: base.yaml\nraces!: {countt: 1}\n")
    with pytest.raises(ConfigError) as e:
        load_or_raise(GenerateConfig, ["--config", str(bad)])
    assert "countt" in e.value.key and e.value.source == str(bad)


def test_config_changes_names_differences_not_fields_added_since(tmp_path):
    from utils.config import config_changes, to_yaml

    old = Schema(name="a", steps=3, tags=["x"])
    written = write(tmp_path / "config.yaml", to_yaml(old).replace("  level: token\n", ""))  # a field added since
    assert config_changes(written, Schema(name="a", steps=3, tags=["x"])) == []
    assert config_changes(written, Schema(name="a", steps=4, tags=["x", "y"]), ignore=("name",)) == \
        ['steps: 3 -> 4', 'tags: ["x"] -> ["x", "y"]']
    assert config_changes(written, Schema(name="b", steps=3, tags=["x"]), ignore=("name",)) == []
    assert config_changes(tmp_path / "none.yaml", old) == []


def test_one_list_entry_is_overridden_by_its_index(tmp_path):
    # regression: `benchmarks.0.path=x` crashed with OmegaConf's "Cannot merge incompatible
    # container types" traceback
    from evaluate import EvalConfig

    cfg = write(tmp_path / "e.yaml", "benchmarks:\n  - {name: a, kind: math, path: a.jsonl}\n"
                                     "  - {name: b, kind: env, path: runs/x, split: test}\n")
    c = load_or_raise(EvalConfig, ["--config", str(cfg), "benchmarks.0.path=other.jsonl", "benchmarks.1.sample=3"],
                      validate=False)
    assert [(b.name, b.kind, b.path, b.split, b.sample) for b in c.benchmarks] == [
        ("a", "math", "other.jsonl", "test", 0), ("b", "env", "runs/x", "test", 3)]
    from utils.config import source
    assert source(c, "benchmarks.0.path") == "command line" and source(c, "benchmarks.0.name") == str(cfg)
    for argv, key, words in ((["benchmarks.2.path=x"], "benchmarks.2", "benchmarks has 2 entries"),
                             (["benchmarks.1.nosuch=3"], "benchmarks.1.nosuch", "nosuch"),
                             (["benchmarks.1.sample=abc"], "benchmarks.1.sample", "abc"),
                             (["benchmarks.0.kind=maths"], "benchmarks.0.kind", "'maths'")):
        with pytest.raises(ConfigError) as e:
            load_or_raise(EvalConfig, ["--config", str(cfg), *argv], validate=False)
        assert (e.value.key, e.value.source) == (key, "command line") and words in e.value.msg, e.value
    # a nested mapping inside an entry, and the entry script: one line, exit 2
    from generate import GenerateConfig

    g = load_or_raise(GenerateConfig, ["--config", "configs/generate/demo.yaml", "splits.test.0.params.width=5"])
    assert g.splits["test"][0].params == {"width": 5, "height": 7, "level": "medium"}
    r = subprocess.run([sys.executable, "evaluate.py", "--config", str(cfg), "benchmarks.3.path=x"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "benchmarks.3 (command line)" in r.stderr, r.stderr
