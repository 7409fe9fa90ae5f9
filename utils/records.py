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

import errno
import hashlib
import json
import os
import re
import sys
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


def follow_umask(folder: str | os.PathLike) -> None:
    """Give every file under `folder` the mode the umask gives a new file: safetensors (save_file,
    save_pretrained) writes its files 0600 whatever the umask."""
    mode = 0o666 & ~umask()
    for p in Path(folder).rglob("*"):
        if p.is_file() and not p.is_symlink():
            os.chmod(p, mode)


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


def remove_stale_temps(folder: str | os.PathLike) -> None:
    """Delete the temp files that atomic_write_text leaves in `folder` when killed mid-write
    (`.<name>.<random>.tmp`). Only for a writer that holds the folder's run lock (utils/runlock.py):
    no other writer can be using them."""
    for p in Path(folder).glob(".*.tmp"):
        if p.is_file():
            p.unlink(missing_ok=True)


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
    return (row for _, row in read_jsonl_numbered(path))


def read_jsonl_numbered(path: str | os.PathLike) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for every non-blank line: a check of the value can name its line."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise DataError(f"{path}: {e.strerror}") from None
    with f:
        for n, raw in enumerate(f, 1):  # binary lines: split at b"\n" only
            if raw.strip():
                yield n, _parse_line(path, n, raw)


def read_prompt_records(path: str | os.PathLike, check=None) -> Iterator[dict]:
    """read_jsonl for rows a model is prompted with (env records, traces input): each row checked
    where it is read, so that a row that is not a JSON object, has no string `prompt`, or fails
    `check` (a function returning what is wrong with a row, or None) is a DataError naming the
    file and the line, before anything is sampled or written."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise DataError(f"{path}: {e.strerror}") from None
    with f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            row = _parse_line(path, n, raw)
            if not isinstance(row, dict):
                raise DataError(f"{path}:{n}: not a JSON object (got {type(row).__name__})")
            if not isinstance(row.get("prompt"), str):
                got = "missing" if "prompt" not in row else f"got {type(row['prompt']).__name__}"
                problem = f"no string prompt ({got})"
            else:
                problem = check(row) if check else None
            if problem:
                raise DataError(f"{path}:{n}: record {row.get('id', '<no id>')}: {problem}")
            yield row


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


def cut_after_step(path: str | os.PathLike, step: int) -> None:
    """Cut an append-only per-step log (rows in step order, each with a "step") back to the rows of
    steps <= step, in place: what a run resumed from step's checkpoint does before it redoes the
    steps after it, so each is logged once. A torn last line goes too. Reads line by line (a
    samples.jsonl of a long run is large) and truncates at the first row past `step`."""
    path = Path(path)
    if not path.is_file():
        return
    keep = 0
    with open(path, "rb+") as f:
        for n, raw in enumerate(f, 1):
            if raw.strip():
                if not raw.endswith(b"\n"):
                    break  # torn: a crash mid-append
                row = _parse_line(path, n, raw)
                if isinstance(row, dict) and isinstance(row.get("step"), int) and row["step"] > step:
                    break
            keep += len(raw)
        f.truncate(keep)


def shard_path(out_dir: str | os.PathLike, split: str, index: int) -> Path:
    return Path(out_dir) / f"{split}-{index:05d}.jsonl"


def shard_entry(path: str | os.PathLike) -> dict:
    """What a manifest records of a written shard: its records and the SHA-256 of its bytes."""
    data = Path(path).read_bytes()
    return {"records": data.count(b"\n"), "sha256": hashlib.sha256(data).hexdigest()}


def recorded_shards(out_dir: str | os.PathLike) -> dict[str, dict]:
    """The shards <out_dir>/manifest.json records as finished (file name -> shard_entry); {} when
    there is none, or it is torn or of an older version (then every shard is checked anew)."""
    path = Path(out_dir) / "manifest.json"
    try:
        shards = json.loads(path.read_text(encoding="utf-8")).get("shards") if path.is_file() else None
    except (ValueError, AttributeError):
        shards = None
    return shards if isinstance(shards, dict) else {}


def finished_shard(path: str | os.PathLike, entry: dict | None, prog: str) -> list[dict] | None:
    """The records of a shard an earlier run finished, or None when it must be made (again). A
    shard is finished only when the manifest records it (`entry`) with its count and hash: a
    count alone cannot tell a cut shard from a whole one where rejected problems are dropped
    (traces), nor an edited one. One line says why a shard that exists is made again."""
    path = Path(path)
    if not path.exists():
        return None
    have = shard_entry(path)
    if have == entry:
        return list(read_jsonl(path))
    why = ("not in the manifest (a run stopped before recording it)" if entry is None else
           f"{have['records']} records, the manifest records {entry.get('records')} with another hash")
    print(f"{prog}: {path}: {why}; making it again", file=sys.stderr, flush=True)
    return None


def shard_paths(out_dir: str | os.PathLike, split: str) -> list[Path]:
    return sorted(Path(out_dir).glob(f"{split}-[0-9][0-9][0-9][0-9][0-9].jsonl"))


# ------------------------------------------------------------------ data references name a split
#
# Training data is referenced as (path, split): a directory of generate.py shards read for one split
# (`{data: runs/data/puzzles, split: train_rl}` reads train_rl-00000.jsonl, ... only), a single
# file, or a glob. A split whose name starts with "test" is held out: a training reference that
# resolves to one is refused, so a test shard can never reach SFT or RL by a directory or a glob.

_SHARD_NAME = re.compile(r"^(?P<split>.+)-\d{5}\.jsonl$")
_GLOB_CHARS = frozenset("*?[")


class DataRefError(ValueError):
    """A data reference that cannot be read as asked; `key` is "data" or "split" (the config key at fault)."""

    def __init__(self, key: str, msg: str):
        super().__init__(msg)
        self.key = key


def is_test_split(split: str | None) -> bool:
    """Held-out splits: `test` and every split whose name starts with it (test_ood, test_bridges8x8, ...)."""
    return bool(split) and split.lower().startswith("test")


def split_of(path: str | os.PathLike) -> str | None:
    """The split of a generate.py shard (`<split>-NNNNN.jsonl`), or None for any other file name."""
    m = _SHARD_NAME.match(Path(path).name)
    return m.group("split") if m else None


def splits_in(directory: str | os.PathLike) -> list[str]:
    return sorted({s for f in Path(directory).glob("*.jsonl") if (s := split_of(f)) is not None})


def resolve_split(path: str | os.PathLike, split: str = "", *, training: bool = True) -> list[Path]:
    """The JSONL files of a data reference, or DataRefError with one line saying what is wrong.

    path   a directory of shards (then `split` is required), a .jsonl file, or a glob
    split  the shard prefix to read; for a file or glob, files of other splits are refused / skipped
    training=True refuses any file of a test split (is_test_split)."""
    path = str(path)
    if _GLOB_CHARS & set(path):
        import glob

        files = [Path(f) for f in sorted(glob.glob(path)) if f.endswith(".jsonl")]
        files = [f for f in files if not split or split_of(f) == split]
        if not files:
            raise DataRefError("data", f"{path} matches no .jsonl file" + (f" of split {split!r}" if split else ""))
    elif Path(path).is_dir():
        present = splits_in(path)
        if not split:
            raise DataRefError("split", f"{path} is a directory of splits {present}: name the one to read "
                                        f"(split: ...)")
        files = shard_paths(path, split)
        if not files:
            raise DataRefError("split", f"no {split}-NNNNN.jsonl shards in {path} (splits there: {present})")
    elif Path(path).is_file():
        files = [Path(path)]
        if split and split_of(path) not in (None, split):
            raise DataRefError("split", f"{path} is a shard of split {split_of(path)!r}, not {split!r}")
    else:
        raise DataRefError("data", f"{path} does not exist")
    if training:
        for f in files:
            s = split_of(f) or split
            if is_test_split(s):  # the key at fault: the split asked for, else the path that reached a test shard
                raise DataRefError("split" if is_test_split(split) else "data",
                                   f"{f} is in test split {s!r}: training never reads a test split")
    return files


def load_split(path: str | os.PathLike, split: str = "", *, training: bool = True) -> list[dict]:
    """All records of one data reference (see resolve_split)."""
    return [r for f in resolve_split(path, split, training=training) for r in read_jsonl(f)]


def prompt_problem(row: Any) -> str | None:
    """What makes a row unusable as a prompt (not a JSON object, no string `prompt`), or None. Checked
    where training data is read, so one bad row among many is a startup error naming its line,
    not a crash at the step that draws it (and at every resume after)."""
    if not isinstance(row, dict):
        return f"expected a JSON object, got {type(row).__name__}"
    if not isinstance(row.get("prompt"), str):
        if "prompt" not in row:
            return "no string `prompt`"
        return f"`prompt` is a {type(row['prompt']).__name__}, not a string"
    return None


def sha256_file(path: str | os.PathLike) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def fingerprint_files(paths: Iterable[str | os.PathLike]) -> dict[str, dict]:
    """{path: {"size", "sha256"}} per file, hashed in parallel threads (hashlib releases the GIL):
    about 1.3 GB/s per core measured here, so data of a few GB costs seconds at a run's start."""
    from concurrent.futures import ThreadPoolExecutor

    files = sorted({str(p) for p in paths})
    with ThreadPoolExecutor(min(8, os.cpu_count() or 1)) as ex:
        sums = list(ex.map(sha256_file, files))
    return {f: {"size": os.path.getsize(f), "sha256": h} for f, h in zip(files, sums)}


_CAUSES = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded",
           errno.EROFS: "read-only file system", errno.EACCES: "permission denied", errno.EPERM: "permission denied",
           errno.ENOTDIR: "a part of the path is a file, not a directory",
           errno.EEXIST: "exists and is not a directory", errno.EIO: "input/output error"}


def io_fault(e: BaseException) -> OSError | None:
    """The storage fault behind an exception (an OSError of a full disk, a read-only or misplaced
    directory: _CAUSES), or None when it is not one (a bug: its traceback stays). Writers in C++ or
    Rust hide it: torch.save to a file object turns the OSError of a full disk into a RuntimeError
    raised while handling it (found in the chain), safetensors into a message naming os error 28
    (matched)."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, OSError) and e.errno in _CAUSES:
            return e
        if any(x in str(e) for x in ("No space left on device", "os error 28", "StorageFull")):
            return OSError(errno.ENOSPC, _CAUSES[errno.ENOSPC])
        e = e.__cause__ or e.__context__
    return None


def io_cause(e: BaseException) -> str | None:
    """io_fault's cause in words ("no space left on device", "read-only file system", ...), or None."""
    fault = io_fault(e)
    return None if fault is None else _CAUSES[fault.errno]


def record_group(rec: dict) -> str:
    """The distribution a record was drawn from, as generate.py's summary names it: "bridges 8x8 hard"
    for a puzzle (its meta holds width, height, level), else "<env> d=<difficulty>". Evaluation and
    training logs report per group (the paper's per-puzzle, per-size results)."""
    meta = rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
    if isinstance(meta.get("width"), int) and isinstance(meta.get("height"), int):
        level = f" {meta['level']}" if meta.get("level") else ""
        return f"{rec.get('env')} {meta['width']}x{meta['height']}{level}"
    return f"{rec.get('env')} d={rec.get('difficulty')}"


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
