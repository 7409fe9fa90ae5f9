"""Math grading throughput: utils.grading.MathGrader (a pool of killable worker processes)
against math-verify called serially in one process, on the same responses, including
pathological ones (power towers, 100 kB of LaTeX, deeply nested fractions).

    python bench/grading.py [--n 2000] [--workers 2] [--timeout 5]

Target (evaluate.py issue): pool >= 1.8x the serial rate on 2 cores, and no pathological input
taking longer than its timeout (plus the worker restart it causes).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from utils.grading import MathGrader, _verify_timed, extract_answer  # noqa: E402

GOLDS = ["2", "\\frac{3}{4}", "241+44\\sqrt{30}", "(-1,1)", "60^\\circ", "\\{1,2,3\\}", "x^2+2x+1", "\\pi/2",
         "-7", "1000", "\\sqrt{2}", "[0,\\infty)", "123456789", "\\frac{\\pi}{3}", "2^{10}"]
RIGHT = {"2": "2", "\\frac{3}{4}": "0.75", "241+44\\sqrt{30}": "44\\sqrt{30}+241", "(-1,1)": "(-1, 1)",
         "60^\\circ": "60", "\\{1,2,3\\}": "\\{3,2,1\\}", "x^2+2x+1": "(x+1)^2", "\\pi/2": "\\frac{\\pi}{2}",
         "-7": "-7", "1000": "10^3", "\\sqrt{2}": "\\frac{2}{\\sqrt{2}}", "[0,\\infty)": "[0,\\infty)",
         "123456789": "123456789", "\\frac{\\pi}{3}": "60^\\circ", "2^{10}": "1024"}
PATHOLOGICAL = ["\\boxed{10^{10^{10^{10}}}}", "\\boxed{" + "\\frac{1}{" * 300 + "2" + "}" * 300 + "}",
                "\\boxed{" + "x+" * 30000 + "1}", "\\boxed{9^{9^{9^{9^{9}}}}}", "\\boxed{(" * 2000 + ")" * 2000 + "}",
                "a" * 100_000 + "\\boxed{3}"]


def responses(n: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        gold = rng.choice(GOLDS)
        r = rng.random()
        if i % 100 == 0:  # 1% pathological
            resp = rng.choice(PATHOLOGICAL)
        elif r < 0.4:
            resp = f"Some reasoning... so the answer is \\boxed{{{RIGHT[gold]}}}."
        elif r < 0.8:
            resp = f"Working. \\boxed{{{rng.choice(GOLDS)}+1}}"
        elif r < 0.9:
            resp = "I give up."
        else:
            resp = "\\boxed{\\frac{1}{" + "{" * rng.randint(1, 5)
        out.append((gold, resp))
    return out


def serial(pairs, timeout: int) -> tuple[float, float]:
    """math-verify in this process, with its own (SIGALRM) timeouts, one after another."""
    worst, t0 = 0.0, time.perf_counter()
    for gold, resp in pairs:
        t = time.perf_counter()
        answer = extract_answer(resp)
        if answer is not None:
            _verify_timed(gold, answer, timeout)  # the workers' own function: the same work, in-process
        worst = max(worst, time.perf_counter() - t)
    return time.perf_counter() - t0, worst


def pooled(pairs, workers: int, timeout: float) -> tuple[float, float, dict]:
    grader = MathGrader(workers=workers, timeout_s=timeout)
    grader.grade(pairs[:workers * 2])  # start the workers (import math-verify) before timing
    worst = 0.0
    statuses: dict[str, int] = {}

    def timed(pair):
        nonlocal worst
        t = time.perf_counter()
        g = grader.grade_one(*pair)
        worst = max(worst, time.perf_counter() - t)
        statuses[g.status] = statuses.get(g.status, 0) + 1
        return g

    from concurrent.futures import ThreadPoolExecutor

    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as ex:
        list(ex.map(timed, pairs))
    elapsed = time.perf_counter() - t0
    grader.close()
    return elapsed, worst, statuses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=5.0)
    args = ap.parse_args()
    pairs = responses(args.n)
    s_time, s_worst = serial(pairs, int(args.timeout))
    p_time, p_worst, statuses = pooled(pairs, args.workers, args.timeout)
    print("| grader | responses/s | slowest response (s) |")
    print("|---|---:|---:|")
    print(f"| math-verify, serial, one process | {args.n / s_time:.1f} | {s_worst:.2f} |")
    print(f"| MathGrader, {args.workers} workers | {args.n / p_time:.1f} | {p_worst:.2f} |")
    print(f"\nratio pool / serial: {s_time / p_time:.2f}x (target >= 1.8x); statuses {statuses}")


if __name__ == "__main__":
    main()
