"""utils/losses.py against hand-computed values and gradients (open-instruct style)."""
from __future__ import annotations

import math

import pytest
import torch

from utils.losses import group_advantages, kl_k3, policy_loss, token_logprobs_entropy

# Two rollouts, 3 response tokens; the second has 2 (one padding column holding garbage).
RATIOS = [[1.5, 0.5, 1.1], [1.5, 0.5, 1.0]]
MASK = [[1, 1, 1], [1, 1, 0]]
ADV = [1.0, -2.0]


def _inputs(ratios, pad_garbage=True):
    old = torch.tensor([[-1.0, -2.0, -0.5], [-0.7, -1.2, -3.0]])
    logp = (old + torch.log(torch.tensor(ratios))).clone().requires_grad_(True)
    if pad_garbage:  # padding may hold anything; it must not leak into loss or gradient
        old = old.clone()
        old[1, 2] = float("inf")
    return logp, old


def test_token_level_value_and_gradient():
    logp, old = _inputs(RATIOS)
    loss, stats = policy_loss(logp, old, torch.tensor(ADV), torch.tensor(MASK), level="token",
                              eps_low=0.2, eps_high=0.25)
    # per token -min(rA, clip(r, 0.8, 1.25) A):
    #   A=+1: r=1.5 -> clipped at 1.25 (no gradient); r=0.5 -> 0.5 (below the low bound but A>0:
    #         not clipped); r=1.1 -> 1.1
    #   A=-2: r=1.5 -> min(-3, -2.5) = -3, unclipped; r=0.5 -> min(-1, -1.6) = -1.6, clipped
    row0 = [-1.25, -0.5, -1.1]
    row1 = [3.0, 1.6]
    want = (sum(row0) / 3 + sum(row1) / 2) / 2
    assert loss.item() == pytest.approx(want, abs=1e-6)
    loss.backward()
    # d/dlogp of -rA is -rA (dr/dlogp = r); clipped tokens get 0; each row / its length / 2 rows
    grad = [[0.0, -0.5 / 6, -1.1 / 6], [3.0 / 4, 0.0, 0.0]]
    assert logp.grad.tolist() == [pytest.approx(g, abs=1e-6) for g in grad]
    assert stats["clip_frac_high"].item() == pytest.approx(1 / 5)  # r=1.5 with A>0
    assert stats["clip_frac_low"].item() == pytest.approx(1 / 5)  # r=0.5 with A<0


def test_token_level_token_mean():
    logp, old = _inputs(RATIOS)
    loss, _ = policy_loss(logp, old, torch.tensor(ADV), torch.tensor(MASK, dtype=torch.bool), level="token",
                          eps_low=0.2, eps_high=0.25, agg="token_mean")
    assert loss.item() == pytest.approx((-1.25 - 0.5 - 1.1 + 3.0 + 1.6) / 5, abs=1e-6)
    loss.backward()
    grad = [[0.0, -0.5 / 5, -1.1 / 5], [3.0 / 5, 0.0, 0.0]]
    assert logp.grad.tolist() == [pytest.approx(g, abs=1e-6) for g in grad]


def test_sequence_level_value_and_gradient():
    # four sequences covering: below the low bound (A>0: unclipped; A<0: clipped) and above the
    # high bound (A>0: clipped; A<0: unclipped); unequal lengths
    ratios = [[1.5, 0.5, 1.1], [1.5, 0.5, 1.0], [1.01, 1.02, 1.0], [1.01, 1.03, 1.0]]
    mask = [[1, 1, 1], [1, 1, 0], [1, 1, 1], [1, 1, 0]]
    adv = [1.0, -2.0, 0.5, -1.0]
    old = torch.zeros(4, 3)
    logp = torch.log(torch.tensor(ratios)).requires_grad_(True)
    eps_low, eps_high = 3e-4, 4e-4
    loss, stats = policy_loss(logp, old, torch.tensor(adv), torch.tensor(mask), level="sequence",
                              eps_low=eps_low, eps_high=eps_high)
    lengths = [3, 2, 3, 2]
    s = [math.prod(r[:n]) ** (1 / n) for r, n in zip(ratios, lengths)]
    assert s[0] < 1 - eps_low and s[1] < 1 - eps_low and s[2] > 1 + eps_high and s[3] > 1 + eps_high
    clip = [min(max(x, 1 - eps_low), 1 + eps_high) for x in s]
    per_seq = [-min(x * a, c * a) for x, c, a in zip(s, clip, adv)]
    assert loss.item() == pytest.approx(sum(per_seq) / 4, rel=1e-6)
    loss.backward()
    # unclipped sequences: d(-s A)/dlogp_t = -A s / L, on each of their tokens; clipped ones: 0
    unclipped = [True, False, False, True]
    for i in range(4):
        g = -adv[i] * s[i] / lengths[i] / 4 if unclipped[i] else 0.0
        want = [g if t < lengths[i] else 0.0 for t in range(3)]
        assert logp.grad[i].tolist() == pytest.approx(want, abs=1e-7), i
    assert stats["clip_frac_low"].item() == pytest.approx(1 / 4)  # seq 1: s below, A<0
    assert stats["clip_frac_high"].item() == pytest.approx(1 / 4)  # seq 2: s above, A>0


def test_sequence_level_token_mean_weights_by_length():
    logp = torch.zeros(2, 3, requires_grad=True)
    loss, _ = policy_loss(logp, torch.zeros(2, 3), torch.tensor([1.0, -1.0]), torch.tensor([[1, 1, 1], [1, 0, 0]]),
                          level="sequence", eps_low=0.1, eps_high=0.1, agg="token_mean")
    assert loss.item() == pytest.approx((3 * -1.0 + 1 * 1.0) / 4)


def test_on_policy_ratio_one_gives_plain_policy_gradient():
    logp = torch.randn(3, 4, requires_grad=True)
    adv = torch.tensor([1.0, -0.5, 0.0])
    loss, _ = policy_loss(logp, logp.detach(), adv, torch.ones(3, 4), level="token", eps_low=0.2, eps_high=0.25)
    loss.backward()
    assert torch.allclose(logp.grad, -adv.unsqueeze(1).expand(3, 4) / 12)


def test_kl_k3_and_its_place_in_the_loss():
    logp = torch.log(torch.tensor([[0.5, 0.5]]))
    ref = torch.log(torch.tensor([[0.25, 0.5]]))
    d = math.log(0.5)
    assert kl_k3(logp, ref).tolist()[0] == pytest.approx([math.exp(d) - d - 1, 0.0])
    mask = torch.tensor([[1, 1]])
    base, _ = policy_loss(logp, logp, torch.tensor([0.0]), mask, level="token", eps_low=0.2, eps_high=0.2)
    with_kl, st = policy_loss(logp, logp, torch.tensor([0.0]), mask, level="token", eps_low=0.2, eps_high=0.2,
                              ref_logp=ref, kl_coef=0.5)
    assert st["kl"].item() == pytest.approx((math.exp(d) - d - 1) / 2)
    assert with_kl.item() - base.item() == pytest.approx(0.5 * (math.exp(d) - d - 1) / 2)


def test_group_advantages_with_and_without_std():
    r = torch.tensor([1.0, 0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 2.0])
    g = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])
    assert group_advantages(r, g).tolist() == [0.5, -0.5, -0.5, 0.5, 0, 0, 0, 0]
    std = math.sqrt((4 * 0.25) / 3)  # unbiased, as TRL
    scaled = group_advantages(r, g, scale="group")
    assert scaled.tolist() == pytest.approx([a := 0.5 / (std + 1e-4), -a, -a, a] + [0.0] * 4, rel=1e-6)
    # groups need not be contiguous
    assert group_advantages(torch.tensor([3.0, 1.0, 5.0, 1.0]), torch.tensor([7, 2, 7, 2])).tolist() == [-1, 0, 1, 0]


@pytest.mark.parametrize("chunk,bias", [(1, False), (4, True), (7, False), (10_000, True)])
def test_chunked_logprobs_and_entropy_match_full_logits_in_value_and_gradient(chunk, bias):
    # what the trainer computes from hidden states chunk by chunk (logits recomputed in backward)
    # must equal the full-vocabulary computation, gradients of both outputs included (an entropy
    # bonus needs the entropy's)
    torch.manual_seed(0)
    B, T, H, V, temp = 3, 11, 8, 13, 0.7
    head = torch.nn.Linear(H, V, bias=bias)
    hidden = torch.randn(B, T, H, requires_grad=True)
    tokens = torch.randint(0, V, (B, T))
    wl, we = torch.randn(B, T), torch.randn(B, T)  # any loss mixing both outputs
    params = [hidden, head.weight] + ([head.bias] if bias else [])

    logp, ent = token_logprobs_entropy(hidden, head.weight, tokens, temp, chunk_tokens=chunk, bias=head.bias)
    got = [logp.detach(), ent.detach(), *torch.autograd.grad((logp * wl + ent * we).sum(), params)]

    full = torch.log_softmax(head(hidden) / temp, -1)
    want_logp = full.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
    want_ent = -(full.exp() * full).sum(-1)
    want = [want_logp.detach(), want_ent.detach(), *torch.autograd.grad((want_logp * wl + want_ent * we).sum(), params, retain_graph=True)]
    for g, w, what in zip(got, want, ("logp", "entropy", "d hidden", "d weight", "d bias")):
        assert torch.allclose(g, w, atol=1e-5, rtol=1e-5), what
    # one output alone (the other's gradient is None)
    d_only_logp = torch.autograd.grad(token_logprobs_entropy(hidden, head.weight, tokens, temp, chunk, bias=head.bias)[0].sum(),
                                  hidden)
    assert torch.allclose(d_only_logp[0], torch.autograd.grad(want_logp.sum(), hidden)[0],
                          atol=1e-5)
    with torch.no_grad():
        lp2, ent2 = token_logprobs_entropy(hidden, head.weight, tokens, temp, chunk, bias=head.bias)
    assert torch.allclose(lp2, got[0]) and torch.allclose(ent2, got[1])


@pytest.mark.parametrize("weights", ["float32", "bfloat16"])
def test_chunked_logprobs_under_bf16_autocast_match_one_chunk_and_full_fp32_logits(weights):
    # train.py dtype=mixed (bf16 autocast over fp32 weights) and dtype=bfloat16: the chunks' weight
    # gradients add into one buffer in the weight's dtype; the result must be what one chunk (and, to
    # bf16 precision, the float32 full-vocabulary computation) gives, with float32 log-probs and entropy
    torch.manual_seed(0)
    B, T, H, V = 2, 24, 16, 50
    head = torch.nn.Linear(H, V, bias=True).to(getattr(torch, weights))
    hidden = torch.randn(B, T, H, dtype=head.weight.dtype, requires_grad=True)
    tokens = torch.randint(0, V, (B, T))
    wl, we = torch.randn(B, T), torch.randn(B, T)
    params = [hidden, head.weight, head.bias]

    def run(chunk):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logp, ent = token_logprobs_entropy(hidden, head.weight, tokens, 0.8, chunk_tokens=chunk, bias=head.bias)
        assert logp.dtype == ent.dtype == torch.float32
        return [logp, ent, *torch.autograd.grad((logp * wl + ent * we).sum(), params)]

    chunked, one = run(6), run(10_000)
    full = torch.log_softmax(torch.nn.functional.linear(hidden.float(), head.weight.float(), head.bias.float()) / 0.8, -1)
    want_logp = full.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
    want_ent = -(full.exp() * full).sum(-1)
    want = [want_logp, want_ent, *torch.autograd.grad((want_logp * wl + want_ent * we).sum(), params)]
    for c, o, w, what in zip(chunked, one, want, ("logp", "entropy", "d hidden", "d weight", "d bias")):
        assert c.dtype == o.dtype and c.shape == w.shape, what
        assert torch.allclose(c.float(), o.float(), atol=2e-2, rtol=2e-2), what
        assert torch.allclose(c.float(), w.float(), atol=5e-2, rtol=5e-2), what
