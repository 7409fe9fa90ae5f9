"""Reward shaping as pure tensor functions: the novelty bonus of the puzzle-to-math paper (section 5).

A correct rollout earns a bonus when the frozen reference (the SFT checkpoint) finds it unlikely:
u = mean of its k largest token NLLs under the reference, normalised among the group's correct
rollouts, times a weight. The paper publishes neither the normalisation nor the weight; the
defaults here (z-score, 0.1) are ours.
"""
from __future__ import annotations

import torch

NORMS = ("zscore", "minmax", "rank")


def topk_nll(token_nll: torch.Tensor, mask: torch.Tensor, k: int = 100) -> torch.Tensor:
    """(B, T) token NLLs, (B, T) mask -> (B,): mean of each row's k largest masked NLLs (all of them
    if the row has fewer than k tokens; 0 for an empty row)."""
    mask = mask.bool()
    k = min(k, token_nll.shape[1])
    if k == 0:
        return token_nll.new_zeros(token_nll.shape[0])
    top = token_nll.masked_fill(~mask, float("-inf")).topk(k, dim=1).values
    valid = torch.isfinite(top)
    n = valid.sum(1)
    return torch.where(valid, top, 0.0).sum(1) / n.clamp(min=1)


def _normalise(u: torch.Tensor, norm: str) -> torch.Tensor:
    """Normalise a 1-D tensor of >= 2 values; order preserving; 0 where all values tie."""
    if norm == "zscore":
        std = u.std(unbiased=False)
        return (u - u.mean()) / std if std > 0 else torch.zeros_like(u)
    if norm == "minmax":
        span = u.max() - u.min()
        return (u - u.min()) / span if span > 0 else torch.zeros_like(u)
    if norm == "rank":  # ranks scaled to [0, 1]; ties share their average rank
        below = (u.unsqueeze(0) < u.unsqueeze(1)).sum(1).to(u.dtype)
        ties = (u.unsqueeze(0) == u.unsqueeze(1)).sum(1).to(u.dtype)
        return (below + (ties - 1) / 2) / (len(u) - 1)
    raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")


def novelty_bonus(u: torch.Tensor, correct: torch.Tensor, group_ids: torch.Tensor, *, weight: float = 0.1,
                  norm: str = "zscore") -> torch.Tensor:
    """(B,) novelty u, (B,) correct flags, (B,) group ids -> (B,) bonus.

    Zero for incorrect rollouts and for groups with fewer than two correct rollouts (nothing to
    compare against); otherwise weight * normalise(u) over the group's correct rollouts."""
    correct = correct.bool()
    bonus = torch.zeros_like(u, dtype=torch.float32)
    for g in torch.unique(group_ids[correct]):
        idx = torch.nonzero(correct & (group_ids == g)).squeeze(1)
        if len(idx) >= 2:
            bonus[idx] = weight * _normalise(u[idx].float(), norm)
    return bonus
