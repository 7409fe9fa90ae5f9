"""pass@k: the unbiased estimator of Chen et al. (2021), averaged per problem then over problems."""
from __future__ import annotations

import random
from typing import Sequence


def pass_at_k(n: int, c: int, k: int) -> float:
    """1 - C(n-c, k) / C(n, k), as the stable product 1 - prod_{i=n-c+1}^{n} (1 - k/i).

    Exact to float precision for n in the thousands (no huge binomials). k > n is refused:
    silently dropping or clamping it would report a number that was never measured."""
    if not (0 <= c <= n) or k < 1:
        raise ValueError(f"pass_at_k needs 0 <= c <= n and k >= 1, got n={n}, c={c}, k={k}")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples per problem, got n={n}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def mean_pass_at_k(counts: Sequence[tuple[int, int]], k: int) -> float:
    """Mean over problems of pass@k, each problem given as (n, c)."""
    if not counts:
        raise ValueError("no problems")
    return sum(pass_at_k(n, c, k) for n, c in counts) / len(counts)


def bootstrap_ci(counts: Sequence[tuple[int, int]], k: int, *, resamples: int = 1000, seed: int = 0,
                 alpha: float = 0.05) -> tuple[float, float]:
    """Percentile bootstrap interval over problems for mean pass@k."""
    return bootstrap_mean_ci([pass_at_k(n, c, k) for n, c in counts], resamples=resamples, seed=seed, alpha=alpha)


def bootstrap_mean_ci(values: Sequence[float], *, resamples: int = 1000, seed: int = 0,
                      alpha: float = 0.05) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of per-problem values (e.g. pass@k, or the paired
    difference of two models' pass@k on the same problems)."""
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(values) for _ in values) / len(values) for _ in range(resamples))
    lo = means[int(alpha / 2 * resamples)]
    hi = means[min(resamples - 1, int((1 - alpha / 2) * resamples))]
    return lo, hi
