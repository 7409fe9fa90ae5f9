"""Stopping evaluate.py and generate.py on a signal: one line, exit 128 + signal number, no orphan;
and I/O faults (disk full, read-only, a file in the way) as one line naming the path and the cause.

    if __name__ == "__main__":
        stopping.run("generate.py", main, sys.argv[1:])

SIGINT (Ctrl-C, which the terminal sends to the whole process group) and SIGTERM (kill, scancel,
SLURM's time limit) raise Stopped in the main thread, so every `finally` runs: worker pools are
terminated, shard processes stopped, the run lock released. What was written stays (samples files
are appended per batch, shards written whole), so the same command resumes.

Children. Our choice: both ways, because each covers what the other cannot.
- The parent stops its children in `finally` (a signal it can catch): they end cleanly, in seconds.
- Each child also asks the kernel for a signal when its parent dies (prctl PR_SET_PDEATHSIG,
  `death_signal`): that covers the deaths the parent cannot act on (SIGKILL, the OOM killer),
  where a child would otherwise go on running under PID 1. The death signal is tied to the thread
  that started the child: shard processes are started from the main thread (a pool's replacement
  workers, forked by its handler thread, get it when the pool ends, which is when they should go).
Worker pools' workers ignore SIGINT (`worker_init`): a Ctrl-C to the group would kill them in the
middle of a job, and multiprocessing waits forever for a job whose worker died; the parent
terminates them instead.
"""
from __future__ import annotations

import ctypes
import errno
import os
import signal
import sys

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
PR_SET_PDEATHSIG = 1  # linux/prctl.h


class Stopped(BaseException):
    """A stop signal arrived. BaseException: an `except Exception` on the way does not swallow it."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _stop(signum, frame):
    for s in STOP_SIGNALS:  # a second Ctrl-C must not interrupt the clean-up the first one started
        signal.signal(s, signal.SIG_IGN)
    raise Stopped(signum)


def run(prog: str, main, argv: list[str]) -> None:
    """main(argv) with SIGINT and SIGTERM as Stopped: one line on stderr and exit 128 + signum."""
    for s in STOP_SIGNALS:
        signal.signal(s, _stop)
    try:
        main(argv)
    except (Stopped, KeyboardInterrupt) as e:
        signum = getattr(e, "signum", signal.SIGINT)
        print(f"{prog}: stopped by {signal.Signals(signum).name}; re-run the same command to resume",
              file=sys.stderr, flush=True)
        sys.exit(128 + signum)


def death_signal(sig: int = signal.SIGTERM):
    """A function for a child to call right after the fork (Popen's preexec_fn, a pool's
    initializer): it has the kernel send the child `sig` when this process, its parent, dies
    (Linux only; elsewhere it does nothing). libc is loaded here, in the parent, so that the
    forked child runs nothing but the prctl call; a parent that died before it is caught by the
    check after it."""
    parent = os.getpid()
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return lambda: None

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), sig)

    return arm


def worker_init(arm) -> None:
    """Initializer of a fork pool's workers (initargs: (death_signal(),)): Ctrl-C is the parent's
    to handle (it terminates the pool), SIGTERM kills quietly (the parent's Stopped handler would
    print a traceback per worker), and the worker dies with its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    arm()


def block_in_thread() -> None:
    """For a helper thread (ThreadPoolExecutor initializer): block the stop signals in it, so the
    processes it starts (grading workers, the code sandbox) inherit the mask and ignore a Ctrl-C
    sent to the group (no traceback of theirs); their owner stops them. Python runs signal
    handlers in the main thread only, so nothing is lost here."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


# I/O faults: the causes a user can fix (disk full, read-only, a file in the way), said in one line.
FAULTS = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded",
          errno.EROFS: "read-only file system", errno.EACCES: "permission denied", errno.EPERM: "permission denied",
          errno.ENOTDIR: "not a directory", errno.EEXIST: "not a directory", errno.EIO: "input/output error"}


def io_fault(prog: str, path, e: OSError, code: int = 1) -> None:
    """An OSError of FAULTS as one line naming the path (the error's, else `path`: a write or fsync
    error names no file) and the cause, then exit `code`; any other OSError is raised on."""
    if e.errno not in FAULTS:
        raise e
    from pathlib import Path

    where = Path(e.filename if e.filename is not None else path)
    cause = FAULTS[e.errno]
    if e.errno in (errno.ENOTDIR, errno.EEXIST):  # name the file in the way: the path or one of its parents
        cause = f"{next((p for p in (where, *where.parents) if p.exists() and not p.is_dir()), where)} is a file, " \
                f"not a directory"
    print(f"{prog}: cannot write {where}: {cause}; fix it and re-run the same command to resume", file=sys.stderr,
          flush=True)
    sys.exit(code)


def writable_dir(prog: str, path) -> None:
    """Create `path` and write a probe file in it, so that a file in the way, a read-only file
    system or a missing permission is one line before a model loads (exit 2). The probe's name
    is a temp file's (.*.tmp), which remove_stale_temps clears should we be killed right here."""
    import tempfile

    try:
        os.makedirs(path, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".write-probe.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        io_fault(prog, path, e, code=2)
