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


def token_logprobs_entropy(hidden: torch.Tensor, weight: torch.Tensor, tokens: torch.Tensor, temperature: float = 1.0,
                           chunk_tokens: int = 512, bias: torch.Tensor | None = None
                           ) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token log p(token) and entropy of softmax((hidden @ weight.T + bias) / temperature),
    both (B, T) float32 and differentiable (the entropy's gradient serves an entropy bonus).

    hidden (B, T, H) are the final hidden states at the positions that predict `tokens` (B, T);
    weight (V, H) is the lm_head. The vocabulary axis never exists for the whole sequence: T is cut
    into chunks of about `chunk_tokens` tokens (over the B rows), and each chunk's logits are
    recomputed in backward rather than kept (_ChunkLogprobsEntropy). Peak: about three float32
    (chunk, V) tensors, where full logits need several (B, T, V) ones (~20 GB per copy for one
    32k-token row at V = 151,936)."""
    B, T = tokens.shape
    step = max(1, chunk_tokens // max(1, B))
    out = [_ChunkLogprobsEntropy.apply(hidden[:, s:s + step], weight, bias, tokens[:, s:s + step], temperature)
           for s in range(0, T, step)]
    return torch.cat([lp for lp, _ in out], 1), torch.cat([ent for _, ent in out], 1)


class _ChunkLogprobsEntropy(torch.autograd.Function):
    """One chunk: the logits are computed in forward and again in backward, never saved; the
    gradient with respect to them is formed in place:
        d logp_t / du = onehot(t) - p,    d H / du = -p * (log p + H),    u = logits / temperature."""

    @staticmethod
    def _log_probs(hidden, weight, bias, temperature):
        z = torch.nn.functional.linear(hidden, weight, bias).float()  # float32: a sum over 10^5 terms
        if temperature != 1.0:
            z.div_(temperature)
        lse = torch.logsumexp(z, dim=-1)
        return z.sub_(lse.unsqueeze(-1)), lse  # log p, in place of the logits

    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda")
    def forward(ctx, hidden, weight, bias, tokens, temperature):
        logp, _ = _ChunkLogprobsEntropy._log_probs(hidden, weight, bias, temperature)
        picked = logp.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
        # -sum p log p as a batched dot product: no third (chunk, V) tensor
        entropy = -(logp.exp().unsqueeze(-2) @ logp.unsqueeze(-1)).squeeze(-1).squeeze(-1)
        ctx.save_for_backward(hidden, weight, bias, tokens, entropy)
        ctx.temperature = temperature
        return picked, entropy

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx, g_logp, g_entropy):
        hidden, weight, bias, tokens, entropy = ctx.saved_tensors
        g_logp = torch.zeros_like(entropy) if g_logp is None else g_logp.float()
        g_entropy = torch.zeros_like(entropy) if g_entropy is None else g_entropy.float()
        logp, _ = _ChunkLogprobsEntropy._log_probs(hidden, weight, bias, ctx.temperature)
        p = logp.exp()
        # grad_u = -p * (g_logp + g_entropy * (log p + H)) + g_logp * onehot(t), built in logp's memory
        grad = logp.add_(entropy.unsqueeze(-1)).mul_(g_entropy.unsqueeze(-1)).add_(g_logp.unsqueeze(-1)).mul_(p).neg_()
        del p
        grad.scatter_add_(-1, tokens.unsqueeze(-1), g_logp.unsqueeze(-1))
        if ctx.temperature != 1.0:
            grad.div_(ctx.temperature)
        grad = grad.to(torch.promote_types(hidden.dtype, weight.dtype))  # bf16 weights: a bf16 matmul
        flat = grad.reshape(-1, grad.shape[-1])
        d_hidden = (grad @ weight.to(grad.dtype)).to(hidden.dtype) if ctx.needs_input_grad[0] else None
        d_weight = ((flat.t() @ hidden.reshape(-1, hidden.shape[-1]).to(grad.dtype)).to(weight.dtype)
                    if ctx.needs_input_grad[1] else None)
        d_bias = flat.sum(0).to(bias.dtype) if bias is not None and ctx.needs_input_grad[2] else None
        return d_hidden, d_weight, d_bias, None, None


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
