"""Run a picklable function in a worker process under a hard wall-clock limit.

    worker = TimeoutWorker(memory_mb=2048)
    try:
        result = worker.call(fn, arg1, arg2, timeout=5.0)
    except TimeoutError:          # the worker was killed; the next call starts a fresh one
        ...

Why a process and not a thread or a signal: sympy and friends can spin in C code or blow up
memory on hostile input, and only killing a process reliably stops that. The worker is
long-lived (starting Python and importing sympy costs about a second), started lazily on the
first call and replaced after an overrun or a crash. Exceptions raised by `fn` come back to
the caller unchanged. One call at a time per worker (calls from several threads queue up).
"""
from __future__ import annotations

import os
import pickle
import socket
import subprocess
import sys
import threading
import traceback
from multiprocessing.connection import Connection
from typing import Any, Callable


class WorkerCrashed(RuntimeError):
    """The worker died (killed by the OS, out of memory, segfault) before answering."""


def _serve(fd: int, memory_mb: int | None) -> None:
    """The worker's loop: receive (fn, args, kwargs), send back ("ok", result) or ("err", exc)."""
    if memory_mb:
        import resource

        limit = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn = Connection(fd)
    while True:
        try:
            msg = conn.recv_bytes()
        except EOFError:  # the parent went away
            return
        try:
            fn, args, kwargs = pickle.loads(msg)  # fails here for a function defined in __main__
            out = ("ok", fn(*args, **kwargs))
        except Exception as e:  # (MemoryError included) returned to the caller; the worker lives on
            out = ("err", e, traceback.format_exc())
        try:
            conn.send(out)
        except (TypeError, AttributeError, ValueError, pickle.PicklingError) as e:  # unpicklable result or exception
            conn.send(("err", RuntimeError(f"worker could not send its result back: {e}"), ""))


class TimeoutWorker:
    """A killable child process that runs one function call at a time.

    `fn` must be importable by its module path (not defined in __main__). The child is a fresh
    interpreter started with subprocess rather than multiprocessing: fork is unsafe in processes
    that hold threads (torch, tokenizers), and multiprocessing's spawn re-imports the caller's
    __main__, which breaks scripts without a main guard. memory_mb caps the worker's address
    space (None: no cap)."""

    def __init__(self, memory_mb: int | None = None, init: Callable[[], Any] | None = None,
                 init_timeout: float = 120.0):
        self.memory_mb = memory_mb
        # run once in every fresh worker (e.g. heavy imports), so start-up never eats a call's timeout
        self.init, self.init_timeout = init, init_timeout
        self._proc: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._init_pending = False
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def _start(self) -> None:
        parent, child = socket.socketpair()
        boot = (f"import sys; sys.path[:] = {sys.path!r}; from {__name__} import _serve; "
                f"_serve({child.fileno()}, {self.memory_mb!r})")
        self._proc = subprocess.Popen([sys.executable, "-c", boot], pass_fds=[child.fileno()],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        child.close()
        self._conn = Connection(parent.detach())

    def _spawn(self) -> None:
        """Start a worker and send it the init call without waiting: after a kill, the
        replacement warms up while the caller is busy elsewhere."""
        self._start()
        if self.init is not None:
            try:
                self._conn.send((self.init, (), {}))
                self._init_pending = True
            except (BrokenPipeError, ConnectionResetError, OSError):  # died at birth: retry lazily
                self._kill()

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._conn.close()
        self._proc = self._conn = None

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float, **kwargs: Any) -> Any:
        """fn(*args, **kwargs) in the worker. TimeoutError after `timeout` seconds (the worker is
        killed), WorkerCrashed if it dies, or whatever exception fn raised."""
        if self._pid != os.getpid():  # a forked copy: the child and the socket belong to the parent
            self._proc = self._conn = None
            self._lock = threading.Lock()
            self._pid = os.getpid()
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._kill()
                self._spawn()
            if self._init_pending:
                self._init_pending = False
                self._reply(self.init, self.init_timeout, respawn=False)
            try:
                self._conn.send((fn, args, kwargs))
            except (BrokenPipeError, ConnectionResetError, OSError):
                self._kill()
                raise WorkerCrashed("timeout worker died before the call") from None
            reply = self._reply(fn, timeout, respawn=True)
        if reply[0] == "ok":
            return reply[1]
        error, trace = reply[1], reply[2]
        if trace and hasattr(error, "add_note"):  # the worker-side traceback, for debugging
            error.add_note(f"in the timeout worker:\n{trace}")
        raise error

    def _reply(self, fn: Callable[..., Any], timeout: float, respawn: bool):
        """Wait for the answer to the call just sent; on overrun or death kill the worker (and,
        for ordinary calls, start its replacement at once)."""
        try:
            ready = self._conn.poll(timeout)
            reply = self._conn.recv() if ready else None
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            self._kill()
            raise WorkerCrashed("timeout worker died before answering") from None
        if not ready:
            self._kill()
            if respawn:
                self._spawn()
            raise TimeoutError(f"{getattr(fn, '__name__', fn)} ran past {timeout} s; worker killed")
        return reply

    def close(self) -> None:
        with self._lock:
            self._kill()

    def __del__(self):
        if getattr(self, "_proc", None) is not None and self._pid == os.getpid():
            self._proc.kill()
            self._proc.wait()

    def __getstate__(self):
        # envs holding a worker get pickled into generate.py's pool: the copy starts its own
        return {"memory_mb": self.memory_mb, "init": self.init, "init_timeout": self.init_timeout}

    def __setstate__(self, state):
        self.__init__(**state)
