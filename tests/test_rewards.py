"""utils/rewards.py: top-k NLL and the novelty bonus on hand-computed cases."""
from __future__ import annotations

import math

import pytest
import torch

from utils.rewards import novelty_bonus, topk_nll


def test_topk_nll():
    nll = torch.tensor([[1.0, 5.0, 3.0, 2.0], [4.0, 9.0, 9.0, 9.0], [7.0, 7.0, 7.0, 7.0]])
    mask = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]])
    assert topk_nll(nll, mask, k=2).tolist() == [4.0, 4.0, 0.0]  # (5+3)/2; only one token; empty row
    assert topk_nll(nll, mask, k=100).tolist() == [3.0, 4.0, 0.0]  # fewer than k tokens: all of them
    assert topk_nll(nll, mask.bool(), k=1).tolist() == [5.0, 4.0, 0.0]


U = torch.tensor([3.0, 1.0, 2.0, 9.0, 5.0, 6.0, 0.0, 0.0])
CORRECT = torch.tensor([1, 1, 1, 0, 1, 0, 0, 0]).bool()
GROUPS = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])


def test_novelty_bonus_zscore():
    b = novelty_bonus(U, CORRECT, GROUPS, weight=0.1, norm="zscore")
    z = 1 / math.sqrt(2 / 3)  # group 0's correct u = 3, 1, 2: mean 2, population std sqrt(2/3)
    assert b.tolist() == pytest.approx([0.1 * z, -0.1 * z, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    # incorrect rollouts get nothing (u=9 is the most novel), and so does group 1 (one correct)


@pytest.mark.parametrize("norm,want", [("minmax", [1.0, 0.0, 0.5]), ("rank", [1.0, 0.0, 0.5])])
def test_novelty_bonus_other_norms(norm, want):
    b = novelty_bonus(U, CORRECT, GROUPS, weight=0.2, norm=norm)
    assert b[:3].tolist() == pytest.approx([0.2 * w for w in want])
    assert b[3:].tolist() == [0.0] * 5


@pytest.mark.parametrize("norm", ["zscore", "minmax", "rank"])
def test_novelty_bonus_order_preserving_and_tie_safe(norm):
    g = torch.manual_seed(0)
    u = torch.rand(16, generator=g)
    correct = torch.rand(16, generator=g) > 0.3
    groups = torch.arange(16) // 8
    b = novelty_bonus(u, correct, groups, weight=0.1, norm=norm)
    assert (b[~correct] == 0).all()
    for grp in (0, 1):
        idx = [i for i in range(16) if correct[i] and groups[i] == grp]
        order = sorted(idx, key=lambda i: u[i].item())
        assert [b[i].item() for i in order] == sorted(b[i].item() for i in order)
    ties = novelty_bonus(torch.ones(4), torch.ones(4).bool(), torch.zeros(4), weight=0.1, norm=norm)
    assert ties.tolist() == [0.0] * 4 if norm != "rank" else ties.tolist() == pytest.approx([0.05] * 4)
