"""Reward and advantage shaping as pure functions: the novelty bonus of the puzzle-to-math paper
(section 5) and the entropy-advantage variant it screened in pilots (line 111, Cheng et al. 2025a).

Novelty (puzzle_to_math line 99): "a reward bonus for correct rollouts whose reasoning is unusually
surprising under the frozen SFT reference model ... applied only to verifier-correct rollouts and
normalised within the correct rollouts on the same prompt". Per correct rollout, u = the mean of the
k = 100 largest token NLLs of its reasoning under the reference (line 105; `topk_nll` over the
tokens `reasoning_span` selects), then normalised among the group's correct rollouts and scaled.

The paper does not publish the normalisation or the weight. The default normalisation is minmax:
bonus = weight * (u - min) / (max - min) lies in [0, weight], 0 for the least surprising correct
rollout, so it is a bonus and never a penalty for a correct rollout (z-score subtracts from every
correct rollout below the mean: half of them), and it keeps how much more surprising a rollout is,
which rank discards. zscore and rank stay available.
"""
from __future__ import annotations

import math
from typing import Sequence

import torch

NORMS = ("minmax", "rank", "zscore")


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


def reasoning_span(pieces: Sequence[str]) -> tuple[int, int]:
    """[start, end) of the tokens holding a response's reasoning, from each token's decoded text:
    the tokens strictly inside <reasoning> ... </reasoning> (to the end if the block was cut), or, in
    a response without a reasoning block, every token before the last <answer> (all if none). The
    novelty bonus scores the reasoning, not the answer (line 99), and one token per piece keeps this
    O(T) on 25k-token rollouts. A token that straddles a tag is left out."""
    text = "".join(pieces)
    ends, pos = [], 0
    for p in pieces:
        pos += len(p)
        ends.append(pos)  # ends[i]: characters covered by tokens 0..i
    open_at = text.find("<reasoning>")
    if open_at >= 0:
        lo = open_at + len("<reasoning>")
        close = text.find("</reasoning>", lo)
        hi = close if close >= 0 else len(text)
    else:
        lo, answer = 0, text.rfind("<answer>")
        hi = answer if answer >= 0 else len(text)
    start = next((i + 1 for i, e in enumerate(ends) if e >= lo), len(pieces)) if lo > 0 else 0
    end = start
    while end < len(pieces) and ends[end] <= hi:
        end += 1
    return start, end


def _normalise(u: torch.Tensor, norm: str) -> torch.Tensor:
    """Normalise a 1-D tensor of >= 2 values; order preserving; 0 where all values tie (rank: 0.5)."""
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
                  norm: str = "minmax") -> torch.Tensor:
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


def within_group_spread(u: Sequence[float], correct: Sequence[bool], group_ids: Sequence[int], *,
                        relative: bool = False) -> float:
    """How much a novelty statistic varies among a group's correct rollouts (where the bonus compares
    them): the mean over groups with >= 2 correct rollouts of the population std, or of std / mean
    (relative=True). nan when no group qualifies.

    The paper reports that top-k NLL "amplifies the within-group signal by 10-15x" over mean NLL
    (line 105; Appendix O, whose exact definition is not in the text). train.py logs the ratio of
    both readings, std (the paper's "within-group variance" wording) and std / mean (scale-free)."""
    by: dict[int, list[float]] = {}
    for x, ok, g in zip(u, correct, group_ids):
        if ok:
            by.setdefault(int(g), []).append(float(x))
    out = []
    for xs in by.values():
        mean = sum(xs) / len(xs)
        if len(xs) < 2 or (relative and mean <= 0):
            continue
        std = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
        out.append(std / mean if relative else std)
    return sum(out) / len(out) if out else float("nan")


def entropy_advantage(advantages: torch.Tensor, entropy: torch.Tensor, *, alpha: float,
                      kappa: float) -> torch.Tensor:
    """Entropy-shaped advantages (Cheng et al. 2025a, "Reasoning with exploration: an entropy
    perspective"; puzzle_to_math line 111 screened such variants): A + min(alpha * H, |A| / kappa),
    with H detached. Cheng et al. shape each token's advantage by its entropy; GSPO has one advantage
    per sequence, so here H is a rollout's mean token entropy (B,). The clip keeps the sign of A, and a
    rollout with A = 0 is left alone."""
    h = entropy.detach().to(advantages.dtype)
    return advantages + torch.minimum(alpha * h, advantages.abs() / kappa)
