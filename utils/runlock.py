"""One writer per run directory: `with RunLock(out_dir, "evaluate.py"):` creates out_dir/.lock
(pid, host, start time) or refuses with one line naming the holder. A lock left by a process
that no longer runs on this host is taken over, with one line saying so. A lock held from
another host cannot be checked from here: the message says which file to delete if that run is
dead."""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path


class Locked(RuntimeError):
    pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, another user's
        return True
    return True


class RunLock:
    def __init__(self, out_dir: str | os.PathLike, prog: str):
        self.path = Path(out_dir) / ".lock"
        self.prog = prog
        self.mine = {"pid": os.getpid(), "host": platform.node(), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                     "prog": prog}

    def _create(self) -> bool:
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as f:
            json.dump(self.mine, f)
        return True

    def _holder(self) -> dict:
        try:
            return json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._create():
            return
        h = self._holder()
        who = f"pid {h.get('pid', '?')} on {h.get('host', '?')}, started {h.get('started', '?')}"
        stale = h.get("host") == platform.node() and isinstance(h.get("pid"), int) and not _alive(h["pid"])
        if not stale and h:
            hint = "" if h.get("host") == platform.node() else f" (if that run is dead, delete {self.path})"
            raise Locked(f"{self.path.parent} is in use by another {h.get('prog', 'run')}: {who}{hint}")
        self.path.unlink(missing_ok=True)
        if not self._create() or self._holder().get("pid") != os.getpid():  # another one took it first
            raise Locked(f"{self.path.parent} is in use by another run: {self._holder()}")
        print(f"{self.prog}: took over the lock of {self.path.parent} from {who}, which no longer runs",
              file=sys.stderr, flush=True)

    def release(self) -> None:
        if self._holder().get("pid") == os.getpid():
            self.path.unlink(missing_ok=True)

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
