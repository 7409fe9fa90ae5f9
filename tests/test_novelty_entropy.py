"""The novelty bonus as the paper describes it (a bonus on correct rollouts' reasoning, line 99), the
top-k vs mean NLL within-group signal (Appendix O), and the entropy variants screened in pilots
(line 111), on hand-computed values."""
from __future__ import annotations

import math

import pytest
import torch

from utils.losses import entropy_bonus
from utils.rewards import entropy_advantage, novelty_bonus, reasoning_span, topk_nll, within_group_spread


def test_default_bonus_is_never_a_penalty_for_a_correct_rollout():
    u = torch.tensor([3.0, 1.0, 2.0, 9.0])
    correct = torch.tensor([True, True, True, False])
    groups = torch.zeros(4, dtype=torch.long)
    b = novelty_bonus(u, correct, groups, weight=0.1)  # default: minmax
    assert b.tolist() == pytest.approx([0.1, 0.0, 0.05, 0.0])
    z = novelty_bonus(u, correct, groups, weight=0.1, norm="zscore")
    assert z[1] < 0  # why zscore is not the default: the least surprising correct rollout loses reward
    g = torch.manual_seed(1)
    many = novelty_bonus(torch.rand(64, generator=g), torch.rand(64, generator=g) > 0.3, torch.arange(64) // 8,
                         weight=0.2)
    assert (many >= 0).all() and (many <= 0.2).all()


def test_reasoning_span_selects_the_reasoning_tokens():
    pieces = ["<reason", "ing>", "Try", " x", "=2", "</reasoning>", "\n<answer>", "2", "</answer>"]
    assert reasoning_span(pieces) == (2, 5)  # "Try", " x", "=2"
    cut = ["<reasoning>", "a", "b"]  # truncated before </reasoning>: reasoning runs to the end
    assert reasoning_span(cut) == (1, 3)
    straddle = ["<reasoning>a", "b", "c</reason", "ing>"]  # tokens crossing a tag are left out
    assert reasoning_span(straddle) == (1, 2)
    plain = ["We", " get", " 4", ".", "<answer>", "4", "</answer>"]  # no reasoning block: before <answer>
    assert reasoning_span(plain) == (0, 4)
    assert reasoning_span(["just", " text"]) == (0, 2)
    # the statistic then reads only those tokens: a surprising answer token does not count
    nll = torch.tensor([[0.1, 0.1, 2.0, 3.0, 1.0, 0.1, 0.1, 9.0, 0.1]])
    a, b = reasoning_span(pieces)
    mask = torch.zeros(1, 9)
    mask[0, a:b] = 1
    assert topk_nll(nll, mask, k=2).tolist() == [2.5]


def test_within_group_spread_and_the_topk_over_mean_signal_ratio():
    # one group of 3 correct rollouts: u = 1, 2, 3 -> population std sqrt(2/3), mean 2
    u, ok, gid = [1, 2, 3, 50], [True, True, True, False], [0, 0, 0, 0]
    assert within_group_spread(u, ok, gid) == pytest.approx(math.sqrt(2 / 3))
    assert within_group_spread(u, ok, gid, relative=True) == pytest.approx(math.sqrt(2 / 3) / 2)
    # groups with < 2 correct rollouts are skipped; mean of the per-group values
    cv = within_group_spread([1, 3, 5, 2, 2, 2], [True, True, True, True, True, False], [0, 0, 1, 1, 2, 2])
    assert cv == pytest.approx((1 + 1.5) / 2)
    assert math.isnan(within_group_spread([1, 2], [True, False], [0, 0]))
    # long rollouts: most tokens are cheap formatting, 100 decision points differ between rollouts.
    # Mean NLL barely moves within the group; top-k NLL moves with the decision points.
    g = torch.Generator().manual_seed(0)
    nll = torch.rand(8, 2000, generator=g) * 0.6
    nll[:, :100] += torch.linspace(2, 6, 8).unsqueeze(1)
    mask = torch.ones_like(nll)
    ok, gid = [True] * 8, [0] * 8
    top, mean = topk_nll(nll, mask, k=100).tolist(), (nll.sum(1) / 2000).tolist()
    assert within_group_spread(top, ok, gid) / within_group_spread(mean, ok, gid) > 10


def test_entropy_advantage_hand_computed():
    adv = torch.tensor([1.0, -1.0, 0.0, 0.5])
    h = torch.tensor([0.5, 0.5, 2.0, 10.0], requires_grad=True)
    got = entropy_advantage(adv, h, alpha=0.4, kappa=2.0)
    # min(0.4 * H, |A| / 2): 0.2, 0.2, 0 (A = 0 stays 0), 0.25 (clipped)
    assert got.tolist() == pytest.approx([1.2, -0.8, 0.0, 0.75])
    assert not got.requires_grad  # H is detached: shaping changes weights, not the gradient's target


def test_entropy_bonus_term_and_its_gradient():
    ent = torch.tensor([[1.0, 2.0, 9.0], [4.0, 0.0, 0.0]], requires_grad=True)
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    term = entropy_bonus(ent, mask, coef=0.01)  # seq-mean-token-mean: ((1+2)/2 + 4) / 2 = 2.75
    assert term.item() == pytest.approx(-0.0275)
    term.backward()
    # minimising the loss raises entropy on response tokens only; masked positions get no gradient
    assert ent.grad.flatten().tolist() == pytest.approx([-0.0025, -0.0025, 0.0, -0.005, 0.0, 0.0])
    tm = entropy_bonus(ent.detach(), mask, coef=1.0, agg="token_mean")
    assert tm.item() == pytest.approx(-7 / 3)


# ------------------------------------------------------------------ the options in a real (tiny) run

from envs.base import Env, Reward  # noqa: E402


class ParityEnv(Env):
    """Test-only env: correct when the response has an even number of characters (about half of the
    untrained tiny model's samples), so groups mix correct and incorrect rollouts."""

    name = "parity"
    reward_range = (0.0, 1.0)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        return {"id": f"parity-{seed}", "env": "parity", "difficulty": difficulty, "prompt": f"Say {seed % 97}.",
                "answer": None, "meta": {}}

    def score(self, record: dict, response: str) -> Reward:
        ok = len(response) % 2 == 0
        return Reward(float(ok), ok, {})


def test_novelty_entropy_options_and_kept_checkpoints_in_a_tiny_run(tmp_path, monkeypatch):
    import json

    import envs
    import train
    from utils.tiny import build_tiny

    monkeypatch.setitem(envs.REGISTRY, "parity", f"{__name__}:ParityEnv")
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        tiny = build_tiny(tmp_path / "tiny")
        train.main(["stage=rl", f"model={tiny}", f"ref_model={tiny}", f"out_dir={tmp_path}", "name=rl",
                    "data.sources=[{env: parity}]", "rl.steps=3", "rl.batch_size=32", "rl.group_size=8",
                    "rl.minibatches=2", "rl.micro_batch_size=16", "rl.max_tokens=6", "novelty.enabled=true",
                    "rl.entropy_coef=0.01", "rl.entropy_adv_alpha=0.4", "keep_steps=[1]", "keep_every=2",
                    "keep_last=1", "save_every=100", "rl.log_samples=-1", "rl.scale_rewards=group"])
    finally:
        torch.set_num_threads(n)
    run = tmp_path / "rl"
    m = [json.loads(line) for line in open(run / "metrics.jsonl")]
    assert len(m) == 3
    ratios = [x["novelty/signal_ratio_std"] for x in m]
    assert any(r is not None and r > 0 for r in ratios), ratios
    assert all(x["novelty/bonus_max"] <= 0.1 + 1e-6 and x["novelty/bonus_mean"] >= 0 for x in m)
    assert all(x["trained_frac"] == 1.0 for x in m)  # the entropy bonus trains every row, even zero-advantage ones
    kept = sorted(p.name for p in (run / "kept").iterdir())
    assert kept == ["step_00000001", "step_00000002"] and (run / "kept" / kept[0] / "config.json").is_file()
    assert [p.name for p in (run / "checkpoints").glob("step_*")] == ["step_00000003"]  # keep_last=1 pruned
    rows = [json.loads(line) for line in open(run / "samples.jsonl")]
    assert len(rows) == 3 * 32 and {r["split"] for r in rows} == {"parity d=0"}
    assert {r["step"] for r in rows} == {1, 2, 3} and all(0 <= r["bonus"] <= 0.1 + 1e-6 for r in rows)


def test_novelty_signal_report_over_a_runs_steps(tmp_path, capsys):
    import json

    import analyze

    steps = [{"step": 1, "novelty/signal_ratio_std": 12.0, "novelty/signal_ratio_cv": 3.0},
             {"step": 2, "novelty/signal_ratio_std": None, "novelty/signal_ratio_cv": None},
             {"step": 3, "novelty/signal_ratio_std": 14.0, "novelty/signal_ratio_cv": 5.0}]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in steps))
    analyze.main(["novelty-signal", str(tmp_path)])
    report = json.loads((tmp_path / "novelty_signal.json").read_text())
    assert report["std"]["steps_with_data"] == 2 and report["std"]["median"] == 13.0 and report["cv"]["mean"] == 4.0
    assert "median 13.00x" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="novelty-signal"):
        analyze.main(["novelty-signal", str(tmp_path / "nope")])
