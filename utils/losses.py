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
    recomputed in backward rather than kept (_ChunkedLogprobsEntropy). Peak: about three float32
    (chunk, V) tensors, where full logits need several (B, T, V) ones (~20 GB per copy for one
    32k-token row at V = 151,936), and one (V, H) weight gradient that every chunk adds into."""
    B = tokens.shape[0]
    step = max(1, chunk_tokens // max(1, B))
    return _ChunkedLogprobsEntropy.apply(hidden, weight, bias, tokens, temperature, step)


class _ChunkedLogprobsEntropy(torch.autograd.Function):
    """All chunks in one autograd node: the logits are computed in forward and again in backward,
    never saved; the gradient with respect to them is formed in place:
        d logp_t / du = onehot(t) - p,    d H / du = -p * (log p + H),    u = logits / temperature.
    One node, not one per chunk, so the chunks' (V, H) weight gradients add into one buffer (3.3 GB
    at V = 151,936, H = 3,584 in fp32 plus a chunk's bf16 product) instead of each chunk handing
    autograd its own fp32 (V, H) tensor to sum. Under autocast (bf16 over fp32 weights) the matmuls
    run in the autocast dtype, as the rest of the model; the softmax, log-probs and entropy always
    in float32 (a sum over 10^5 terms)."""

    @staticmethod
    def _log_probs(hidden, weight, bias, temperature):
        z = torch.nn.functional.linear(hidden.to(weight.dtype), weight, bias).float()
        if temperature != 1.0:
            z.div_(temperature)
        return z.sub_(torch.logsumexp(z, dim=-1, keepdim=True))  # log p, in place of the logits

    @staticmethod
    def _compute(ctx, hidden, weight, bias):
        """hidden, weight, bias in the dtype the matmuls run in (autocast's when it was on in forward)."""
        dtype = ctx.autocast_dtype or torch.promote_types(hidden.dtype, weight.dtype)
        return weight.to(dtype), None if bias is None else bias.to(dtype)

    @staticmethod
    def forward(ctx, hidden, weight, bias, tokens, temperature, step):
        device = hidden.device.type
        ctx.autocast_dtype = torch.get_autocast_dtype(device) if torch.is_autocast_enabled(device) else None
        ctx.temperature, ctx.step = temperature, step
        with torch.autocast(device, enabled=False):
            w, b = _ChunkedLogprobsEntropy._compute(ctx, hidden, weight, bias)
            picked, entropy = [], []
            for s in range(0, tokens.shape[1], step):
                logp = _ChunkedLogprobsEntropy._log_probs(hidden[:, s:s + step], w, b, temperature)
                picked.append(logp.gather(-1, tokens[:, s:s + step].unsqueeze(-1)).squeeze(-1))
                # -sum p log p as a batched dot product: no third (chunk, V) tensor
                entropy.append(-(logp.exp().unsqueeze(-2) @ logp.unsqueeze(-1)).squeeze(-1).squeeze(-1))
                del logp
        picked, entropy = torch.cat(picked, 1), torch.cat(entropy, 1)
        ctx.save_for_backward(hidden, weight, bias, tokens, entropy)
        return picked, entropy

    @staticmethod
    def backward(ctx, g_logp, g_entropy):
        hidden, weight, bias, tokens, entropy = ctx.saved_tensors
        g_logp = torch.zeros_like(entropy) if g_logp is None else g_logp.float()
        g_entropy = torch.zeros_like(entropy) if g_entropy is None else g_entropy.float()
        want_h, want_w, want_b = ctx.needs_input_grad[:3]
        d_hidden = torch.empty_like(hidden) if want_h else None
        # the one weight-gradient buffer, in the weight's dtype (fp32 master weights: fp32)
        d_weight = torch.zeros_like(weight) if want_w else None
        d_bias = torch.zeros(weight.shape[0], dtype=torch.float32, device=weight.device) if want_b else None
        with torch.autocast(hidden.device.type, enabled=False):
            w, b = _ChunkedLogprobsEntropy._compute(ctx, hidden, weight, bias)
            for s in range(0, tokens.shape[1], ctx.step):
                h = hidden[:, s:s + ctx.step]
                logp = _ChunkedLogprobsEntropy._log_probs(h, w, b, ctx.temperature)
                p = logp.exp()
                gl, ge = g_logp[:, s:s + ctx.step].unsqueeze(-1), g_entropy[:, s:s + ctx.step].unsqueeze(-1)
                # grad_u = -p * (g_logp + g_entropy * (log p + H)) + g_logp * onehot(t), built in logp's memory
                grad = logp.add_(entropy[:, s:s + ctx.step].unsqueeze(-1)).mul_(ge).add_(gl).mul_(p).neg_()
                del p
                grad.scatter_add_(-1, tokens[:, s:s + ctx.step].unsqueeze(-1), gl)
                if ctx.temperature != 1.0:
                    grad.div_(ctx.temperature)
                flat = grad.reshape(-1, grad.shape[-1])
                if want_b:
                    d_bias += flat.sum(0)
                flat = flat.to(w.dtype)  # autocast or bf16 weights: a bf16 matmul, as in forward
                if want_h:
                    d_hidden[:, s:s + ctx.step] = (flat @ w).view(h.shape)
                if want_w:
                    h2 = h.reshape(-1, h.shape[-1]).to(w.dtype)
                    if d_weight.dtype == w.dtype:  # accumulate in place: no (V, H) temporary
                        d_weight.addmm_(flat.t(), h2)
                    else:  # bf16 product over fp32 weights: one (V, H) bf16 chunk product at a time
                        d_weight += flat.t() @ h2
                del grad, flat
        return d_hidden, d_weight, None if d_bias is None else d_bias.to(bias.dtype), None, None, None


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
