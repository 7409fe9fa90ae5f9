"""One writer per run directory: `with RunLock(out_dir, "evaluate.py"):` holds out_dir/.lock
(pid, host, start time inside) or refuses with one line naming the holder.

Holding the lock is holding an flock on that file, open for as long as the run lasts: the kernel
gives it to one process at a time and frees it when that process ends, however it ends, so two
runs started together never both hold it and a killed run's lock is free at once. The JSON only
names the holder. A file whose flock is free but which names a process still running on this
host (a lock written by an older version, or on a filesystem without flock, e.g. Lustre mounted
without `-o flock`, where only the JSON is checked) is respected; one naming a process that no
longer runs is taken over, with one line saying so. A lock held from another host cannot be
checked from here: the message says which file to delete if that run is dead. Forked children
(a worker pool) do not keep the lock: it ends with the process that took it."""
from __future__ import annotations

import errno
import fcntl
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


_HELD: set[RunLock] = set()  # held by this process (until released or the process ends)


def _forget_in_child() -> None:
    """After fork: the child drops its copies of the lock descriptors (the parent still holds them)."""
    for lock in list(_HELD):
        os.close(lock.fd)
        lock.fd = None
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_in_child)


class RunLock:
    def __init__(self, out_dir: str | os.PathLike, prog: str, name: str = ".lock"):
        self.path = Path(out_dir) / name
        self.prog = prog
        self.fd: int | None = None
        self.made_dir = False  # acquire() created out_dir: release() removes it again if left empty
        self.mine = {"pid": os.getpid(), "host": platform.node(), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                     "prog": prog}

    def _open_locked(self) -> int | None:
        """An fd of the lock file with its flock held, or None when another process holds it."""
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            except OSError as e:  # no flock on this filesystem: the JSON alone decides
                if e.errno not in (errno.ENOLCK, errno.ENOSYS, errno.EOPNOTSUPP):
                    os.close(fd)
                    raise
            try:  # the holder may have released (deleted) the file between our open and flock
                if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                    return fd
            except FileNotFoundError:
                pass
            os.close(fd)

    @staticmethod
    def _parse(data: bytes) -> dict:
        try:
            h = json.loads(data)
        except ValueError:
            return {}
        return h if isinstance(h, dict) else {}

    def _holder(self) -> dict:
        for _ in range(20):  # a holder that has just taken the lock writes its JSON a moment later
            try:
                h = self._parse(self.path.read_bytes())
            except OSError:
                h = {}
            if h:
                return h
            time.sleep(0.01)
        return h

    @staticmethod
    def _who(h: dict) -> str:
        return f"pid {h.get('pid', '?')} on {h.get('host', '?')}, started {h.get('started', '?')}"

    def _refusal(self, h: dict) -> Locked:
        hint = "" if h.get("host") in (platform.node(), None) else f" (if that run is dead, delete {self.path})"
        return Locked(f"{self.path.parent} is in use by another {h.get('prog', 'run')}: {self._who(h)}{hint}")

    def acquire(self) -> None:
        self.made_dir = not self.path.parent.is_dir()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = self._open_locked()
        if fd is None:
            raise self._refusal(self._holder())
        h = self._parse(os.pread(fd, 1 << 16, 0))  # what the last holder left, if anything
        pid = h.get("pid")  # our own pid: a dead run's, reused (a live one of ours would hold the flock)
        stale = h.get("host") == platform.node() and isinstance(pid, int) and (pid == os.getpid() or not _alive(pid))
        if h and not stale:  # a holder without flock (older version, no flock here, another host)
            os.close(fd)
            raise self._refusal(h)
        data = json.dumps(self.mine).encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        self.fd = fd
        _HELD.add(self)
        if h:
            print(f"{self.prog}: took over the lock of {self.path.parent} from {self._who(h)}, which no longer runs",
                  file=sys.stderr, flush=True)

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            if os.stat(self.path).st_ino == os.fstat(self.fd).st_ino:
                self.path.unlink()  # before the flock goes, so a waiter that opened this file retries
        except FileNotFoundError:
            pass
        os.close(self.fd)
        self.fd = None
        _HELD.discard(self)
        if self.made_dir:  # a run refused before writing anything leaves no empty directory behind
            try:
                self.path.parent.rmdir()
            except OSError:
                pass

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
