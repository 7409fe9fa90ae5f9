"""RL math as pure tensor functions: group advantages, the GRPO/GSPO clipped policy loss, KL.

Shapes: B rollouts, T response tokens (right padded); `mask` (B, T) is 1 on response tokens
(float or bool); `advantages` (B,); `group_ids` (B,) integer id of each rollout's prompt group.
"""
from __future__ import annotations

import torch

AGGS = ("seq_mean_token_mean", "token_mean")
LEVELS = ("token", "sequence")


def group_mean(x: torch.Tensor, group_ids: torch.Tensor) -> torch.Tensor:
    """Mean of x over each rollout's group, broadcast back to (B,)."""
    _, inv, counts = torch.unique(group_ids, return_inverse=True, return_counts=True)
    sums = torch.zeros(len(counts), dtype=x.dtype, device=x.device).index_add_(0, inv, x)
    return (sums / counts.to(x.dtype))[inv]


def group_advantages(rewards: torch.Tensor, group_ids: torch.Tensor, *, scale: str = "none",
                     eps: float = 1e-4) -> torch.Tensor:
    """A_i = r_i - mean(group); divided by the group's std (unbiased, + eps) only when scale="group".

    "none" is the code-RL paper's choice (and Dr. GRPO's): std scaling over-weights groups whose
    rewards barely differ."""
    rewards = rewards.to(torch.float32)
    mean = group_mean(rewards, group_ids)
    adv = rewards - mean
    if scale == "group":
        _, inv, counts = torch.unique(group_ids, return_inverse=True, return_counts=True)
        sq = torch.zeros(len(counts), dtype=adv.dtype, device=adv.device).index_add_(0, inv, adv ** 2)
        std = (sq / (counts - 1).clamp(min=1).to(adv.dtype)).sqrt()[inv]
        adv = adv / (std + eps)
    elif scale != "none":
        raise ValueError(f"scale must be 'none' or 'group', got {scale!r}")
    return adv


def token_logprobs(logits: torch.Tensor, tokens: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """log p(token) under softmax(logits / temperature); (B, T, V), (B, T) -> (B, T) in float32.

    logsumexp + gather instead of a full log_softmax: one (B, T, V) float32 copy fewer."""
    logits = logits.float()
    if temperature != 1.0:
        logits = logits / temperature
    picked = logits.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
    return picked - torch.logsumexp(logits, dim=-1)


@torch.no_grad()
def entropy(logits: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """Entropy of softmax(logits / temperature) per position; (B, T, V) -> (B, T). Logging only."""
    logits = logits.float() / temperature
    logp = torch.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(-1)


def masked_mean(x: torch.Tensor, mask: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    mask = mask.to(x.dtype)
    if dim is None:
        return (x * mask).sum() / mask.sum().clamp(min=1)
    return (x * mask).sum(dim) / mask.sum(dim).clamp(min=1)


def aggregate(per_token: torch.Tensor, mask: torch.Tensor, agg: str) -> torch.Tensor:
    """seq_mean_token_mean: mean over each sequence's tokens, then over sequences (GRPO);
    token_mean: sum over all tokens / number of tokens (DAPO)."""
    if agg == "seq_mean_token_mean":
        return masked_mean(per_token, mask, dim=1).mean()
    if agg == "token_mean":
        return masked_mean(per_token, mask)
    raise ValueError(f"agg must be one of {AGGS}, got {agg!r}")


def entropy_bonus(entropy: torch.Tensor, mask: torch.Tensor, coef: float, agg: str = "seq_mean_token_mean") -> torch.Tensor:
    """The loss term of an entropy bonus: -coef * (per-token entropy aggregated like the policy loss).
    Added to the loss, its gradient raises the policy's entropy (puzzle_to_math line 111: "a loss-level
    entropy bonus", screened in pilots). `entropy` (B, T) must carry gradient."""
    return -coef * aggregate(torch.where(mask > 0, entropy, 0.0), mask, agg)


def kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """Per-token k3 estimator of KL(pi || ref): exp(ref - logp) - (ref - logp) - 1 >= 0 (Schulman)."""
    d = ref_logp - logp
    return torch.exp(d) - d - 1


def policy_loss(logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor, *,
                level: str, eps_low: float, eps_high: float, agg: str = "seq_mean_token_mean",
                ref_logp: torch.Tensor | None = None, kl_coef: float = 0.0) -> tuple[torch.Tensor, dict]:
    """Clipped surrogate loss; returns (loss, stats) with stats detached scalars.

    level="token" (GRPO): r_t = exp(logp_t - old_logp_t); per token -min(r_t A, clip(r_t, 1-eps_low,
        1+eps_high) A), aggregated by `agg`.
    level="sequence" (GSPO): s = exp(mean_t(logp - old_logp)) per sequence; per sequence
        -min(s A, clip(s) A); mean over sequences ("token_mean" weights each sequence by its length).
    kl_coef > 0 adds kl_coef * k3 KL to `ref_logp`, aggregated like the token loss.
    """
    mask = mask.to(logp.dtype)
    adv = advantages.to(logp.dtype)
    log_ratio = torch.where(mask > 0, logp - old_logp, 0.0)  # padding may hold anything, even inf
    if level == "token":
        ratio = torch.exp(log_ratio)
        a = adv.unsqueeze(1)
        per_token = -torch.minimum(ratio * a, ratio.clamp(1 - eps_low, 1 + eps_high) * a)
        loss = aggregate(per_token, mask, agg)
        low, high = (ratio < 1 - eps_low) & (a < 0), (ratio > 1 + eps_high) & (a > 0)
        clip_low, clip_high = masked_mean(low.to(logp.dtype), mask), masked_mean(high.to(logp.dtype), mask)
        ratio_mean = masked_mean(ratio.detach(), mask)
    elif level == "sequence":
        lengths = mask.sum(1)
        ratio = torch.exp(log_ratio.sum(1) / lengths.clamp(min=1))
        per_seq = -torch.minimum(ratio * adv, ratio.clamp(1 - eps_low, 1 + eps_high) * adv)
        if agg == "seq_mean_token_mean":
            loss = per_seq.mean()
        elif agg == "token_mean":
            loss = (per_seq * lengths).sum() / lengths.sum().clamp(min=1)
        else:
            raise ValueError(f"agg must be one of {AGGS}, got {agg!r}")
        low, high = (ratio < 1 - eps_low) & (adv < 0), (ratio > 1 + eps_high) & (adv > 0)
        clip_low, clip_high = low.to(logp.dtype).mean(), high.to(logp.dtype).mean()
        ratio_mean = ratio.detach().mean()
    else:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    stats = {"clip_frac_low": clip_low.detach(), "clip_frac_high": clip_high.detach(),
             "ratio_mean": ratio_mean.detach()}
    if ref_logp is not None:
        kl = aggregate(torch.where(mask > 0, kl_k3(logp, ref_logp), 0.0), mask, agg)
        stats["kl"] = kl.detach()
        if kl_coef:
            loss = loss + kl_coef * kl
    stats["loss"] = loss.detach()
    return loss, stats
