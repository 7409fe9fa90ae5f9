"""Sandbox throughput: executions per second of a deduction workload (a 20-line `f`, one call),
utils/sandbox.py against one fresh `python -c` subprocess per call (the way LiveCodeBench-style
harnesses run code), both with the same limits: CPU seconds, address space, file size and
process count, a wall-clock timeout, a fresh temporary working directory, a scrubbed environment.

    python bench/sandbox.py [--calls 400] [--workers 2]

Prints a markdown table; target: sandbox / subprocess >= 20.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from utils.sandbox import Sandbox  # noqa: E402

F = '''\
def f(text, k):
    words = text.split()
    counts = {}
    for w in words:
        w = w.strip(".,;!?").lower()
        if not w:
            continue
        counts[w] = counts.get(w, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    top = [w for w, _ in ranked[:k]]
    lengths = [len(w) for w in top]
    total = sum(lengths)
    if total == 0:
        return {"top": [], "mean": 0.0}
    mean = total / len(lengths)
    longest = max(top, key=len)
    vowels = sum(ch in "aeiou" for ch in longest)
    shape = "".join("v" if ch in "aeiou" else "c" for ch in longest)
    code = sum(ord(ch) * (i + 1) for i, ch in enumerate(shape)) % 97
    return {"top": top, "mean": round(mean, 3), "longest": longest, "vowels": vowels, "code": code}
'''
TIMEOUT_S, MEMORY_MB, FSIZE_MB, NPROC = 2.0, 512, 16, 64


def job(i: int) -> tuple[str, str]:
    return F, f"f('the cat and the hat and the bat sat on the mat number {i}', 3)"


def _limits() -> None:  # what the sandbox's job sets for itself, here for the fresh interpreter
    os.setsid()
    cpu = int(TIMEOUT_S) + 1
    for lim, value in ((resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_AS, (MEMORY_MB << 20,) * 2),
                       (resource.RLIMIT_FSIZE, (FSIZE_MB << 20,) * 2), (resource.RLIMIT_NPROC, (NPROC,) * 2),
                       (resource.RLIMIT_CORE, (0, 0))):
        resource.setrlimit(lim, value)


def fresh_subprocess(code: str, expr: str) -> str | None:
    workdir = tempfile.mkdtemp(prefix="bench-")
    try:
        p = subprocess.run([sys.executable, "-c", f"{code}\nprint(repr({expr}))"], capture_output=True,
                           timeout=TIMEOUT_S, preexec_fn=_limits, cwd=workdir, env={"PATH": "/usr/bin:/bin"})
        return p.stdout.decode().strip() if p.returncode == 0 else None
    except subprocess.TimeoutExpired:
        return None
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def bench_subprocess(calls: int, workers: int) -> tuple[float, list]:
    jobs = [job(i) for i in range(calls)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as ex:
        out = list(ex.map(lambda j: fresh_subprocess(*j), jobs))
    return calls / (time.perf_counter() - t0), out


def bench_sandbox(calls: int, workers: int, reuse: bool = True) -> tuple[float, list, dict]:
    jobs = [job(i) for i in range(calls)]
    with Sandbox(reuse=reuse) as sb:
        sb.run_many(jobs[:workers * 4], workers=workers, timeout_s=TIMEOUT_S, memory_mb=MEMORY_MB)  # warm up
        t0 = time.perf_counter()
        res = sb.run_many(jobs, workers=workers, timeout_s=TIMEOUT_S, memory_mb=MEMORY_MB)
        rate = calls / (time.perf_counter() - t0)
        iso = sb.isolation
    return rate, [r.value for r in res], iso


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=400, help="executions per side")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="executions in parallel, both sides")
    args = ap.parse_args()
    sub_rate, sub_out = bench_subprocess(max(args.calls // 10, 20), args.workers)
    sb_rate, sb_out, iso = bench_sandbox(args.calls, args.workers)
    fork_rate, fork_out, _ = bench_sandbox(max(args.calls // 4, 20), args.workers, reuse=False)
    assert sb_out[:len(sub_out)] == sub_out == fork_out[:len(sub_out)], "the harnesses disagree on the values"
    ratio = sb_rate / sub_rate
    print(f"isolation: {', '.join(k for k, v in iso.items() if v)}; workers: {args.workers}\n")
    print("| harness | executions/s | ratio |")
    print("|---|---:|---:|")
    print(f"| fresh `python -c` per call | {sub_rate:.1f} | 1.0 |")
    print(f"| utils/sandbox.py, reuse=False (a forked process per job) | {fork_rate:.1f} | {fork_rate / sub_rate:.1f} |")
    print(f"| utils/sandbox.py (default: runners reused while code leaves no trace) | {sb_rate:.1f} | {ratio:.1f} |")
    print(f"\ntarget >= 20x: {'met' if ratio >= 20 else 'NOT met'}")


if __name__ == "__main__":
    main()
