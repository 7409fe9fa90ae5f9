"""utils/timeout.py: the killable worker that bounds sympy (and other third-party) scoring."""
from __future__ import annotations

import math
import os
import signal
import time

import pytest

from utils.timeout import TimeoutWorker, WorkerCrashed


@pytest.fixture()
def worker():
    w = TimeoutWorker(memory_mb=1024)
    yield w
    w.close()


def test_result_and_exception_come_back(worker):
    assert worker.call(math.factorial, 6, timeout=30) == 720
    with pytest.raises(ValueError, match="negative"):
        worker.call(math.factorial, -1, timeout=30)
    with pytest.raises(MemoryError):
        worker.call(bytearray, 2**31, timeout=30)  # over the address-space cap
    assert worker.call(abs, -2, timeout=30) == 2


def test_overrun_kills_and_replaces_the_worker(worker):
    worker.call(abs, 1, timeout=30)
    first = worker._proc.pid
    t0 = time.monotonic()
    with pytest.raises(TimeoutError):
        worker.call(time.sleep, 60, timeout=0.5)
    assert time.monotonic() - t0 < 10
    assert worker.call(abs, -3, timeout=30) == 3 and worker._proc.pid != first


def test_a_dead_worker_is_restarted(worker):
    worker.call(abs, 1, timeout=30)
    os.kill(worker._proc.pid, signal.SIGKILL)
    worker._proc.wait()
    assert worker.call(abs, -4, timeout=30) == 4


def test_worker_crash_during_a_call_is_reported(worker):
    worker.call(abs, 1, timeout=30)
    with pytest.raises(WorkerCrashed):
        worker.call(os.kill, worker._proc.pid, signal.SIGKILL, timeout=30)
    assert worker.call(abs, -5, timeout=30) == 5


def test_functions_from_main_are_refused_not_fatal(worker):
    def local(x):
        return x

    with pytest.raises(Exception):
        worker.call(local, 1, timeout=30)
    assert worker.call(abs, -6, timeout=30) == 6
