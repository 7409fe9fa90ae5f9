"""Records on disk: JSONL shards written atomically, read back lazily.

A record is one problem (see docs/design.md):
    {"id", "env", "difficulty", "prompt", "answer", "meta"}
Shards are plain JSONL that `datasets.load_dataset("json", data_files=...)` reads.

Files are created with the permissions the umask allows (0644 under the usual 022), as `open()`
would, so colleagues and a server running as another user can read them.
A file that is not UTF-8 or holds a line that is not JSON raises DataError naming the file and
the line (lines are split at "\n" only: U+2028 inside a string is not a line break).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

RECORD_KEYS = ("id", "env", "difficulty", "prompt", "answer", "meta")


class DataError(ValueError):
    """A data file that cannot be read (not UTF-8, not JSON, no shards): the message names the file."""


def umask() -> int:
    """The process umask, read without changing it (os.umask can only be read by setting it)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write text to path via a temp file in the same directory + rename: readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~umask())  # mkstemp makes 0600 whatever the umask
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def dumps(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "))


def write_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> None:
    atomic_write_text(path, "".join(dumps(r) + "\n" for r in records))


def _parse_line(path, n: int, raw: bytes):
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise DataError(f"{path}:{n}: not UTF-8 text (byte {e.start} of the line)") from None
    except json.JSONDecodeError as e:
        raise DataError(f"{path}:{n}: not valid JSON ({e.msg}, column {e.colno})") from None


def read_jsonl(path: str | os.PathLike) -> Iterator[dict]:
    try:
        f = open(path, "rb")
    except OSError as e:
        raise DataError(f"{path}: {e.strerror}") from None
    with f:
        for n, raw in enumerate(f, 1):  # binary lines: split at b"\n" only
            if raw.strip():
                yield _parse_line(path, n, raw)


def append_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> None:
    """Append lines and fsync (for caches such as samples.jsonl that grow as results arrive).

    A crash can leave a torn last line: `read_jsonl_tolerant` skips it, and this cuts it off
    before appending, so it never turns into a corrupt middle line."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    drop_torn_tail(path)
    with open(path, "a", encoding="utf-8") as f:
        for r in records:
            f.write(dumps(r) + "\n")
        f.flush()
        os.fsync(f.fileno())


def drop_torn_tail(path: Path) -> None:
    """Truncate a file back to its last newline (a crash mid-append leaves a partial line)."""
    if not path.is_file():
        return
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def read_jsonl_tolerant(path: str | os.PathLike) -> list[dict]:
    """Read an append-only JSONL file, dropping a torn (unparsable) final line left by a crash."""
    if not Path(path).exists():
        return []
    lines = Path(path).read_bytes().split(b"\n")
    if lines and not lines[-1].strip():
        lines.pop()
    out = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            out.append(_parse_line(path, i + 1, line))
        except DataError:
            if i != len(lines) - 1:
                raise
    return out


def shard_path(out_dir: str | os.PathLike, split: str, index: int) -> Path:
    return Path(out_dir) / f"{split}-{index:05d}.jsonl"


def shard_paths(out_dir: str | os.PathLike, split: str) -> list[Path]:
    return sorted(Path(out_dir).glob(f"{split}-[0-9][0-9][0-9][0-9][0-9].jsonl"))


def load_records(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[dict]:
    """All records of one file, a directory of shards, or a list of those."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[dict] = []
    for p in map(Path, paths):
        files = sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
        if not files:
            raise DataError(f"{p}: a directory without *.jsonl files")
        for f in files:
            out.extend(read_jsonl(f))
    return out


def check_record(rec: Any) -> None:
    """Raise ValueError naming the record id and the problem if rec is not a well-formed record."""
    rid = rec.get("id", "<no id>") if isinstance(rec, dict) else "<not a dict>"
    if not isinstance(rec, dict):
        raise ValueError(f"record {rid}: expected a JSON object, got {type(rec).__name__}")
    missing = [k for k in RECORD_KEYS if k not in rec]
    if missing:
        raise ValueError(f"record {rid}: missing field(s) {missing}")
    if not isinstance(rec["meta"], dict):
        raise ValueError(f"record {rid}: meta must be an object, got {type(rec['meta']).__name__}")


def derive_seed(*parts: Any) -> int:
    """A stable 63-bit seed from any JSON-able parts (independent of PYTHONHASHSEED and platform)."""
    h = hashlib.blake2b(json.dumps(parts, sort_keys=True, default=str).encode(), digest_size=8)
    return int.from_bytes(h.digest(), "big") >> 1
