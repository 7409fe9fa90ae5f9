"""Is this `model=` value loadable? Checked at config time, in well under a second, so a wrong
path is one line naming the key instead of a traceback (or minutes of hub retries) after start-up.

    problem("runs/sft/checkpoints/step_00000040")  # -> "... is a checkpoint folder: use .../model"

A value is a local directory when it exists, starts with / . or ~, or its first component is a
directory here (`runs/x` when ./runs exists); otherwise it is a hub id, which must be in the HF
cache when HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) is set, or when the hub does not answer within
a few seconds.

A revision (train.py model_revision / ref_model_revision, evaluate.py engine.revision) pins a hub
id to a branch, tag or commit: without it a hub id loads the repository's default branch. It is
refused for a local directory (our choice: a directory holds whichever revision was downloaded,
so a revision there would be silently ignored; one line says so).

Only headers are read: a flipped byte inside the weights is found by the checkpoint checksums
(utils/checkpoint.py), not here.
"""
from __future__ import annotations

import json
import os
import re
import socket
import struct
import threading
from pathlib import Path
from urllib.parse import urlparse

HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
REVISION = re.compile(r"^[\w./-]+$")  # a branch (refs/pr/1 included), tag or commit hash
TRUE = ("1", "true", "yes", "on")


def offline() -> bool:
    return any(os.environ.get(v, "").lower() in TRUE for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def looks_local(value: str) -> bool:
    if value.startswith(("/", "./", "../", "~")) or value in (".", ".."):
        return True
    first = value.split("/", 1)[0]
    return "/" in value and Path(first).is_dir() or value.count("/") > 1


def problem(value: str, revision: str = "") -> str | None:
    """None if `value` (at `revision`, for a hub id) can be loaded as an HF model, else one phrase
    saying what is wrong."""
    path = Path(value).expanduser()
    if path.is_dir():
        return _dir_problem(path)
    if path.exists():
        return f"{value} is a file, not a model directory"
    if looks_local(value):
        return f"{value} does not exist"
    if not HUB_ID.match(value):
        return f"{value} is neither a local directory nor a hub id (org/name)"
    return _hub_problem(value, revision)


def revision_problem(revision: str, value: str) -> str | None:
    """None if `revision` ('' is none) can pin the model `value`, else why not: a branch, tag or
    commit hash is one word, and only a hub id has revisions."""
    if not revision:
        return None
    if not REVISION.match(revision):
        return f"{revision!r} is not a revision name (a branch, tag or commit: one word, no spaces)"
    if Path(value).expanduser().exists() or looks_local(value):
        return (f"{revision!r} cannot apply to {value}, a local directory (it holds whichever revision was "
                f"downloaded): download that revision there (huggingface-cli download <hub id> --revision "
                f"{revision} --local-dir {value}) and drop the revision")
    return None


def _dir_problem(path: Path) -> str | None:
    config = path / "config.json"
    if not config.is_file():
        for sub in ("model", "final"):
            if (path / sub / "config.json").is_file():
                what = "a checkpoint folder" if sub == "model" else "a run directory"
                return f"{path} is {what}: use {path / sub}"
        steps = sorted((path / "checkpoints").glob("step_*/model/config.json"))
        if steps:
            return f"{path} is a run directory: use {steps[-1].parent} (or its final/ once the run ends)"
        if (path / "adapter_config.json").is_file():
            return f"{path} holds a LoRA adapter only: use the merged model directory beside it"
        return f"{path} has no config.json (not an HF model directory)"
    for f in sorted(path.glob("*.json")):  # config, generation config, tokenizer files, shard index
        if f.stat().st_size > 200 << 20:
            continue
        try:
            json.loads(f.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            return f"{f} is corrupt (not JSON: {e})"
    index = path / "model.safetensors.index.json"
    shards = sorted(path.glob("*.safetensors"))
    if index.is_file():
        try:
            names = set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values())
        except (UnicodeDecodeError, json.JSONDecodeError, KeyError, AttributeError) as e:
            return f"{index} is corrupt ({type(e).__name__})"
        missing = sorted(n for n in names if not (path / n).is_file())
        if missing:
            return f"{path / missing[0]} is missing (named in {index.name})"
    for shard in shards:
        bad = safetensors_problem(shard)
        if bad:
            return f"{shard} is corrupt ({bad})"
    if not shards and not any(path.glob("*.bin")) and not any(path.glob("*.pt")):
        return f"{path} has no weights (*.safetensors)"
    return None


def safetensors_problem(path: Path) -> str | None:
    """Checks the header (8-byte length + JSON) and that the file holds every tensor it lists."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            return "shorter than its header"
        (n,) = struct.unpack("<Q", head)
        if n > size - 8:
            return "truncated or garbled header"
        try:
            header = json.loads(f.read(n))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return "garbled header"
    try:
        end = max((t["data_offsets"][1] for k, t in header.items() if k != "__metadata__"), default=0)
    except (TypeError, KeyError, IndexError, AttributeError):
        return "garbled header"
    return f"truncated: {size} bytes, the header needs {8 + n + end}" if size < 8 + n + end else None


def _hub_problem(repo_id: str, revision: str = "") -> str | None:
    try:
        from huggingface_hub import try_to_load_from_cache
        from huggingface_hub.constants import HF_HUB_CACHE
    except ImportError:
        return None
    if isinstance(try_to_load_from_cache(repo_id, "config.json", revision=revision or None), str):
        return None  # cached (at that revision): loads with no network
    if offline():
        at = f" at revision {revision}" if revision else ""
        return (f"{repo_id} is not a local directory and not in the HF cache{at} ({HF_HUB_CACHE}); HF_HUB_OFFLINE is "
                f"set: download it where the hub is reachable or give a local directory")
    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname or "huggingface.co"
    if not reachable(host):
        return (f"{repo_id} is not a local directory, not in the HF cache ({HF_HUB_CACHE}), and {host} does not "
                f"answer (offline node?): download it where the hub is reachable or give a local directory")
    return None


def reachable(host: str, port: int = 443, timeout_s: float = 3.0) -> bool:
    """A TCP connection within timeout_s (name resolution included: it runs in a thread, since
    getaddrinfo ignores socket timeouts)."""
    ok = []

    def probe():
        try:
            socket.create_connection((host, port), timeout=timeout_s).close()
            ok.append(True)
        except OSError:
            pass

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(timeout_s)
    return bool(ok)
