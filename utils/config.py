"""Typed configs for the entry scripts: dataclass schema + YAML files + key=value overrides.

    cfg = load(GenerateConfig, sys.argv[1:], prog="generate.py")

- `--config FILE.yaml` (optional) is merged over the schema defaults; a file may name
  `base: other.yaml` (relative to itself), merged first.
- `key=value` arguments are merged last (OmegaConf dotlist syntax, e.g. `rl.eps_low=0.1`,
  `inputs=[a.jsonl,b.jsonl]`); `benchmarks.0.path=x` changes one field of one list entry.
- Merge rules: mappings merge key by key (a file setting `operators: {sort: 1}` keeps the base's
  and the schema's other operators); lists and scalars replace. A key written with a trailing `!`
  replaces the mapping instead: `operators!: {sort: 1}` leaves only sort, `splits!: {train: [...]}`
  drops the base's test split (a dataclass section goes back to its defaults first).
- `--help` prints every field with its type, default and help text.

Any unknown key, wrong type, bad choice, number out of its range (`field(..., ge=0)`), NaN, missing
file or malformed override prints ONE line on stderr naming the key and the file it came from, and
exits with code 2. This module imports nothing heavy, so entry scripts can load their config before
importing torch.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import json
import math
import operator
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

CLI = "command line"


class ConfigError(Exception):
    """A config problem, always reported as one line naming the key and the file."""

    def __init__(self, key: str, source: str, msg: str):
        super().__init__(f"config error: {key or '<root>'} ({source}): {msg}")
        self.key, self.source, self.msg = key, source, msg


def field(default: Any = dataclasses.MISSING, help: str = "", choices: tuple | None = None,
          ge: float | None = None, gt: float | None = None, le: float | None = None, lt: float | None = None, **kw):
    """A schema field with a help string, optional allowed values, and for a number its range:
    `ge`/`gt`/`le`/`lt` bound the value (every number of a list or mapping field). load() refuses a
    number outside its range, and infinity always (no setting means it); a value with a documented
    meaning (0: off, -1: all) is part of the range and its help says so.

    Mutable defaults (list, dict, dataclass instances) are wrapped in a default_factory."""
    meta: dict[str, Any] = {"help": help}
    if choices is not None:
        meta["choices"] = tuple(choices)
    bounds = {op: b for op, b in (("ge", ge), ("gt", gt), ("le", le), ("lt", lt)) if b is not None}
    if bounds:
        meta["range"] = bounds
    if isinstance(default, (list, dict)) or dataclasses.is_dataclass(default):
        value = default
        return dataclasses.field(default_factory=lambda: _copy(value), metadata=meta, **kw)
    return dataclasses.field(default=default, metadata=meta, **kw)


_OPS = {"ge": (">=", operator.ge), "gt": (">", operator.gt), "le": ("<=", operator.le), "lt": ("<", operator.lt)}


def range_text(bounds: dict) -> str:
    """A field's range as the messages and --help write it: `>= 1`, `in (0, 1]`."""
    low = next(((op, bounds[op]) for op in ("ge", "gt") if op in bounds), None)
    high = next(((op, bounds[op]) for op in ("le", "lt") if op in bounds), None)
    if low and high:
        return f"in {'[' if low[0] == 'ge' else '('}{low[1]}, {high[1]}{']' if high[0] == 'le' else ')'}"
    op, b = low or high
    return f"{_OPS[op][0]} {b}"


def range_problem(bounds: dict, value: Any) -> str | None:
    """Why the number `value` is outside `bounds` (a field's ge/gt/le/lt), or None if it is inside."""
    if math.isfinite(value) and all(_OPS[op][1](value, b) for op, b in bounds.items()):
        return None
    return f"must be {'' if math.isfinite(value) else 'finite and '}{range_text(bounds)}, got {value}"


def _copy(value):
    return copy.deepcopy(value)


# ---------------------------------------------------------------- loading


def _read_yaml(path: Path, chain: tuple[Path, ...] = (), referrer: str = "") -> list[tuple[str, dict]]:
    """The layers of one YAML file: its bases first (recursively), then itself."""
    if not path.is_file():
        if referrer:  # a missing base is the referring file's mistake
            raise ConfigError("base", referrer, f"{path} not found")
        raise ConfigError("--config", str(path), "file not found")
    if path.resolve() in chain:
        raise ConfigError("base", str(path), "circular base: " + " -> ".join(map(str, chain)))
    try:
        node = OmegaConf.load(path)
    except Exception as e:  # yaml.YAMLError and friends; reported as one line
        raise ConfigError("", str(path), f"not valid YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(node, DictConfig):
        raise ConfigError("", str(path), "top level must be a mapping")
    data = OmegaConf.to_container(node)
    layers: list[tuple[str, dict]] = []
    base = data.pop("base", None)
    if base is not None:
        if not isinstance(base, str):
            raise ConfigError("base", str(path), "must be a path string")
        layers += _read_yaml((path.parent / base), chain + (path.resolve(),), referrer=str(path))
    layers.append((str(path), data))
    return layers


def _parse_overrides(args: list[str]) -> dict:
    for a in args:
        key = a.split("=", 1)[0]
        if "=" not in a or not key or any(c.isspace() for c in key):
            raise ConfigError(key if "=" in a else a, CLI, "malformed override, expected key=value")
    try:
        return OmegaConf.to_container(OmegaConf.from_dotlist(args))
    except yaml.YAMLError as e:  # e.g. `x=[1,` or a value the shell cut at `>`
        raise ConfigError(_bad_override_key(args), CLI, f"malformed value ({str(e).splitlines()[0]})") from None
    except OmegaConfBaseException as e:
        raise ConfigError(getattr(e, "full_key", "") or "", CLI, _first_line(e)) from None


def _bad_override_key(args: list[str]) -> str:
    """The first override whose value YAML cannot parse."""
    for a in args:
        try:
            yaml.safe_load(a.split("=", 1)[1])
        except yaml.YAMLError:
            return a.split("=", 1)[0]
    return ""


def _first_line(e: Exception) -> str:
    msg = getattr(e, "msg", None) or str(e)
    return str(msg).strip().splitlines()[0] if str(msg).strip() else type(e).__name__


def _flat_keys(d: Any, prefix: str = "") -> list[str]:
    """Dotted paths of every key in nested dicts and lists (list items by index)."""
    items = d.items() if isinstance(d, dict) else enumerate(d) if isinstance(d, list) else ()
    out = []
    for k, v in items:
        key = f"{prefix}.{k}" if prefix else str(k)
        out += [key] + _flat_keys(v, key)
    return out


def _full_key(key: str, data: dict) -> str:
    """OmegaConf names a bad key inside a list entry without its path (`foo` for
    `splits.test.0.foo`): recover the path from the layer that was being merged."""
    key = re.sub(r"\[(\d+)\]", r".\1", key)  # benchmarks[1].n -> benchmarks.1.n, as the user writes it
    paths = _flat_keys(data)
    if not key or key in paths:
        return key
    return next((p for p in paths if p.endswith("." + key)), key)


def _replaced(data: Any, prefix: str = "") -> tuple[Any, list[str]]:
    """data with `key!` written `key`, and the dotted paths of those keys (to replace, not merge)."""
    if not isinstance(data, dict):
        return data, []
    out, paths = {}, []
    for k, v in data.items():
        name = k[:-1] if isinstance(k, str) and k.endswith("!") else k
        path = f"{prefix}.{name}" if prefix else str(name)
        if name != k:
            paths.append(path)
        out[name], sub = _replaced(v, path)
        paths += sub
    return out, paths


def _by_index(node: Any, data: Any, path: str, source: str) -> Any:
    """data with every `{index: value}` mapping that falls on a list of `node` (the config merged
    so far) turned into that whole list with those entries changed: `benchmarks.0.path=x` parses
    to {benchmarks: {"0": {path: x}}}, which OmegaConf cannot merge into a list."""
    if not isinstance(data, dict):
        return data
    if OmegaConf.is_list(node):
        n = len(node)
        index = {}
        for i, value in data.items():
            if not str(i).isdigit() or int(i) >= n:
                raise ConfigError(f"{path}.{i}" if path else str(i), source,
                                  f"{path} has {n} entries (0..{n - 1}); to add or drop one, set the whole list")
            index[int(i)] = value
        out = []
        for j in range(n):
            entry = node[j]
            if j in index and isinstance(index[j], dict) and OmegaConf.is_config(entry):
                entry = OmegaConf.merge(entry, _by_index(entry, index[j], f"{path}.{j}", source))
            elif j in index:
                entry = index[j]
            out.append(OmegaConf.to_container(entry) if OmegaConf.is_config(entry) else entry)
        return out
    if OmegaConf.is_dict(node):
        return {k: _by_index(node[k] if isinstance(k, str) and k in node else None, v,
                             f"{path}.{k}" if path else str(k), source) for k, v in data.items()}
    return data


def _reset(merged: DictConfig, schema: type, path: str) -> None:
    """Empty the mapping at `path` (a dataclass section: back to the schema's default) before a
    layer that writes `key!:` is merged over it."""
    parent_path, _, key = path.rpartition(".")
    parent = OmegaConf.select(merged, parent_path) if parent_path else merged
    if not OmegaConf.is_dict(parent) or key not in parent or not OmegaConf.is_dict(parent[key]):
        return  # a list or scalar replaces anyway; an unknown key is reported by the merge
    if OmegaConf.get_type(parent[key]) is dict:
        parent[key] = {}
    else:
        parent[key] = OmegaConf.select(OmegaConf.structured(schema), path)


def _check_choices(obj: Any, sources: dict[str, str], prefix: str = "") -> None:
    for f in dataclasses.fields(obj):
        key = f"{prefix}.{f.name}" if prefix else f.name
        value = getattr(obj, f.name)
        choices = f.metadata.get("choices")
        if choices is not None and value not in choices:
            raise ConfigError(key, _source_of(key, sources), f"{value!r} is not one of {list(choices)}")
        _check_nested(value, sources, key)
        if "range" in f.metadata:
            _check_range(value, f.metadata["range"], sources, key)


def _check_nested(value: Any, sources: dict[str, str], key: str) -> None:
    """Choices inside sections and inside list / mapping entries (benchmarks.0.kind); NaN anywhere
    (it passes every comparison a validate() makes: `nan <= 0` is false)."""
    if isinstance(value, float) and math.isnan(value):
        raise ConfigError(key, _source_of(key, sources), "is NaN: give a number")
    if dataclasses.is_dataclass(value):
        _check_choices(value, sources, key)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_nested(v, sources, f"{key}.{i}")
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_nested(v, sources, f"{key}.{k}")


def _check_range(value: Any, bounds: dict, sources: dict[str, str], key: str) -> None:
    """A field's range, on its value or on every number inside it (keep_steps.2, bins.easy.0)."""
    if isinstance(value, (list, tuple, dict)):
        for k, v in (value.items() if isinstance(value, dict) else enumerate(value)):
            _check_range(v, bounds, sources, f"{key}.{k}")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        problem = range_problem(bounds, value)
        if problem:
            raise ConfigError(key, _source_of(key, sources), problem)


def _source_of(key: str, sources: dict[str, str]) -> str:
    while key:
        if key in sources:
            return sources[key]
        key = key.rpartition(".")[0]
    return "defaults"


def load(schema: type, argv: list[str], prog: str = "") -> Any:
    """Parse argv into an instance of `schema`; on any config problem print one line and exit 2."""
    if "-h" in argv or "--help" in argv:
        print(help_text(schema, prog))
        sys.exit(0)
    try:
        return load_or_raise(schema, argv)
    except ConfigError as e:
        print(f"{prog or 'config'}: {e}", file=sys.stderr)
        sys.exit(2)


@functools.lru_cache(maxsize=None)
def _defaults(schema: type) -> DictConfig:
    """The schema's defaults as a config. Built once per schema: building it is most of a load's
    time (a copy costs a fifth), and tests load configs by the hundred."""
    return OmegaConf.structured(schema)


def load_or_raise(schema: type, argv: list[str], validate: bool = True) -> Any:
    config_file, rest = None, []
    it = iter(argv)
    for a in it:
        if a == "--config":
            config_file = next(it, None)
            if config_file is None:
                raise ConfigError("--config", CLI, "missing file name after --config")
        elif a.startswith("--config="):
            config_file = a.split("=", 1)[1]
        elif a.startswith("-"):
            raise ConfigError(a, CLI, "unknown option (use --config FILE or key=value)")
        else:
            rest.append(a)
    layers = _read_yaml(Path(config_file)) if config_file else []
    layers.append((CLI, _parse_overrides(rest)))

    merged = _defaults(schema)  # merge() returns a copy; _reset() changes one in place, so it gets its own
    sources: dict[str, str] = {}
    for source, data in layers:
        data, replace = _replaced(data)
        try:
            merged = copy.deepcopy(merged) if replace else merged
            for path in replace:
                _reset(merged, schema, path)
            merged = OmegaConf.merge(merged, _by_index(merged, data, "", source))
        except OmegaConfBaseException as e:
            raise ConfigError(_full_key(getattr(e, "full_key", "") or "", data), source, _first_line(e)) from None
        sources.update({k: source for k in _flat_keys(data)})
    try:
        obj = OmegaConf.to_object(merged)
    except OmegaConfBaseException as e:
        key = getattr(e, "full_key", "") or ""
        raise ConfigError(key, _source_of(key, sources), _first_line(e)) from None
    object.__setattr__(obj, "_config_sources", sources)  # for fail(): run-time errors name the file too
    _check_choices(obj, sources)
    checks = getattr(obj, "validate", None) if validate else None
    if checks is not None:
        for key, msg in checks() or []:
            raise ConfigError(key, _source_of(key, sources), msg)
    return obj


def source(cfg: Any, key: str) -> str:
    """The file (or "command line", "defaults") that set `key` in a config returned by load()."""
    return _source_of(key, getattr(cfg, "_config_sources", {}))


def fail(cfg: Any, key: str, msg: str, prog: str) -> None:
    """A config problem only visible at run time (world size, data contents): the same one line
    as load() prints, naming the key and the file that set it; exit code 2."""
    print(f"{prog}: {ConfigError(key, source(cfg, key), msg)}", file=sys.stderr, flush=True)
    sys.exit(2)


# ---------------------------------------------------------------- help and provenance


def help_text(schema: type, prog: str = "") -> str:
    lines = [f"usage: {prog or 'script.py'} [--config FILE.yaml] [key=value ...]", "", "fields:"]

    def walk(obj, prefix: str):  # an instance, so a parent's default for a nested config shows
        for f in dataclasses.fields(obj):
            key = f"{prefix}{f.name}"
            default = getattr(obj, f.name)
            if dataclasses.is_dataclass(default):
                lines.append(f"  {key}: {f.metadata.get('help', '')}")
                walk(default, key + ".")
                continue
            tname = getattr(f.type, "__name__", str(f.type))
            extra = f" one of {list(f.metadata['choices'])}" if "choices" in f.metadata else ""
            extra += f" {range_text(f.metadata['range'])}" if "range" in f.metadata else ""
            lines.append(f"  {key} ({tname}, default {json.dumps(default, default=str)}){extra}")
            if f.metadata.get("help"):
                lines.append(f"      {f.metadata['help']}")

    walk(schema(), "")
    return "\n".join(lines)


def to_yaml(cfg: Any) -> str:
    return OmegaConf.to_yaml(OmegaConf.structured(cfg))


def _leaves(d: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(d, dict) and d:
        return {k: v for key, val in d.items() for k, v in _leaves(val, f"{prefix}.{key}" if prefix else str(key)).items()}
    return {prefix: d}


def config_changes(written: str | os.PathLike, cfg: Any, ignore: tuple[str, ...] = ()) -> list[str]:
    """"key: old -> new" for every setting of `cfg` that differs from the resolved config.yaml
    `written` (keys under `ignore` aside); [] when the file is missing. The old file is read through
    today's schema, so a field added since takes its default on both sides and is no difference."""
    path = Path(written)
    if not path.is_file():
        return []
    new = _leaves(OmegaConf.to_container(OmegaConf.structured(cfg)))
    try:
        old = _leaves(OmegaConf.to_container(OmegaConf.structured(
            load_or_raise(type(cfg), ["--config", str(path)], validate=False))))
        keys = set(old) | set(new)
    except ConfigError:  # written by a schema with fields this one no longer has: compare what both have
        old = _leaves(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
        keys = set(old) & set(new)
    skip = lambda k: any(k == i or k.startswith(i + ".") for i in ignore)  # noqa: E731
    return [f"{k}: {json.dumps(old.get(k))} -> {json.dumps(new.get(k))}"
            for k in sorted(keys) if not skip(k) and old.get(k) != new.get(k)]


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent.parent)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, timeout=5, cwd=Path(__file__).resolve().parent.parent)
        return out.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "") if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def package_versions(names=("torch", "transformers", "peft", "datasets", "omegaconf", "math-verify",
                            "sympy", "vllm", "numpy")) -> dict[str, str | None]:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for n in names:
        try:
            out[n] = metadata.version(n)
        except metadata.PackageNotFoundError:
            out[n] = None
    return out


def save_run_info(cfg: Any, out_dir: str | os.PathLike, seed: int | None = None, argv: list[str] | None = None,
                  config: bool = True) -> None:
    """Write config.yaml (resolved; config=False keeps the one there, e.g. a resumed run's) and
    run_info.json (commit, versions, seed, argv) into out_dir."""
    from utils.records import atomic_write_text

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if config:
        atomic_write_text(out / "config.yaml", to_yaml(cfg))
    info = {"git_commit": git_commit(), "packages": package_versions(), "seed": seed,
            "argv": list(sys.argv if argv is None else argv), "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "host": platform.node()}
    atomic_write_text(out / "run_info.json", json.dumps(info, indent=2) + "\n")
