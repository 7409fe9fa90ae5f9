"""pass@k against brute-force enumeration, edge cases and large n."""
from itertools import combinations
from math import isfinite

import pytest

from utils.passk import bootstrap_ci, mean_pass_at_k, pass_at_k


def brute(n: int, c: int, k: int) -> float:
    samples = [1] * c + [0] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
def test_matches_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute(n, c, k), abs=1e-12)


def test_edges():
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(10, 7, 4) == 1.0  # n - c < k: every k-subset holds a correct sample
    assert pass_at_k(10, 1, 10) == 1.0  # k = n
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    with pytest.raises(ValueError, match="at least 32"):
        pass_at_k(16, 3, 32)
    with pytest.raises(ValueError):
        pass_at_k(5, 6, 1)


def test_large_n_is_finite_and_monotone():
    vals = [pass_at_k(2000, 3, k) for k in (1, 10, 100, 1000, 2000)]
    assert all(isfinite(v) and 0 <= v <= 1 for v in vals)
    assert vals == sorted(vals) and vals[0] == pytest.approx(3 / 2000) and vals[-1] == 1.0


def test_mean_and_bootstrap():
    counts = [(4, 0), (4, 4), (4, 2)]
    assert mean_pass_at_k(counts, 1) == pytest.approx((0 + 1 + 0.5) / 3)
    lo, hi = bootstrap_ci(counts, 1, resamples=500)
    assert 0 <= lo <= mean_pass_at_k(counts, 1) <= hi <= 1
