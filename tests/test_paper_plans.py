"""Every paper run fits the hardware its config names, by the memory plan (train.py --plan,
utils/memplan.py), with enough rollouts in flight per vLLM engine; docs/results/paper_plans.md is
that plan as a table (scripts/paper_plans.py) and must be current; strategy=auto picks from the plan."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from utils import memplan

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import paper_plans  # noqa: E402

PLANS = paper_plans.plans()
# runs that do not fit by the plan, each with why; the test fails once one fits (then drop it here)
KNOWN_MISFITS: dict[str, str] = {}  # none today: every paper run fits its hardware by the plan


def test_every_paper_training_config_is_planned():
    assert len(PLANS) >= 50 and {rel for rel, _, _ in PLANS} >= set(KNOWN_MISFITS)


@pytest.mark.parametrize("rel,plan,hardware", PLANS, ids=[rel for rel, _, _ in PLANS])
def test_paper_run_fits_its_hardware_with_rows_in_flight(rel, plan, hardware):
    assert hardware, f"{rel}: no hardware.name (the paper's line, or our choice)"
    ok = plan["fits"] and plan.get("rows", memplan.MIN_ROWS_IN_FLIGHT) >= memplan.MIN_ROWS_IN_FLIGHT
    if rel in KNOWN_MISFITS:
        assert not ok, f"{rel} fits now: remove it from KNOWN_MISFITS"
        return
    assert plan["fits"], f"{rel}: peak {plan['peak_gb']:.1f} GB per GPU > {plan['gpu_mem_gb']:g} GB"
    assert plan.get("rows", memplan.MIN_ROWS_IN_FLIGHT) >= memplan.MIN_ROWS_IN_FLIGHT, \
        f"{rel}: {plan['rows']} rows in flight per engine"


def test_paper_plans_table_is_current():
    assert paper_plans.main(["--check"]) == 0, "run python scripts/paper_plans.py"


def load(name: str, *overrides: str):
    import train
    from utils.config import load_or_raise

    return load_or_raise(train.PlanConfig, ["--config", str(ROOT / "configs" / "paper" / name), *overrides])


def test_auto_strategy_is_the_cheapest_that_fits_by_the_plan():
    # OLMo-3-7B's fp32 weights, gradients and Adam (117 GB) fit 70% of a 180 GB B200, so the old rule
    # picked DDP; with DDP's gradient buckets, the activations and the CUDA reserve the plan does not
    # fit, and FSDP2's shards do
    cfg = load("gspo_vanilla.yaml")
    shape = memplan.shape_of(cfg.plan_model)[0]
    ddp, fsdp = (memplan.setup_from_config(cfg, 8, 180, shape, strategy=s) for s in ("ddp", "fsdp"))
    assert not memplan.fits(ddp) and memplan.fits(fsdp)
    assert memplan.pick_strategy(cfg, 8, 180, shape) == "fsdp"
    assert memplan.setup_from_config(cfg, 8, 180, shape).strategy == "fsdp"  # strategy: auto in the config
    # the 1.5B model fits without sharding: DDP, the cheapest
    small = load("gspo_vanilla_qwen1.5b.yaml")
    assert memplan.pick_strategy(small, 8, 180, memplan.shape_of(small.plan_model)[0]) == "ddp"
    # more than one node: HSDP (sharded within a node) before FSDP over every GPU, when it fits
    code = load("code_rl/qwen3_8b.yaml")
    assert memplan.pick_strategy(code, 32, 80, memplan.shape_of(code.model)[0], gpus_per_node=8) == "hsdp"
    assert memplan.pick_strategy(cfg, 1, 180, shape) == "none"


def test_auto_strategy_at_run_time_counts_the_live_parameters_at_their_element_sizes(tmp_path, monkeypatch):
    # on GPUs, dist.pick_strategy plans the loaded model: frozen fp32 parameters are 4 bytes, not 2
    import torch
    from transformers import AutoModelForCausalLM

    from utils import dist
    from utils.tiny import build_tiny

    lm = AutoModelForCausalLM.from_pretrained(build_tiny(tmp_path / "tiny"))
    assert dist.param_bytes(lm) == 2 * dist.param_bytes(AutoModelForCausalLM.from_pretrained(tmp_path / "tiny",
                                                                                             dtype=torch.bfloat16))
    cfg = load("gspo_vanilla.yaml", f"model={tmp_path / 'tiny'}", "rl.engine.backend=hf")
    shape = memplan.shape_of(str(tmp_path / "tiny"))[0]
    kw = {"param_bytes": dist.param_bytes(lm), "trainable": sum(p.numel() for p in lm.parameters())}
    ddp, fsdp = (memplan.peak_bytes(memplan.setup_from_config(cfg, 8, 1, shape, strategy=s, **kw)) / memplan.GB
                 for s in ("ddp", "fsdp"))
    ctx = dist.Ctx(0, 8, 0, torch.device("cuda", 0))
    for gpu_gb, want in ((ddp * 1.01, "ddp"), ((ddp + fsdp) / 2, "fsdp")):
        monkeypatch.setattr(torch.cuda, "get_device_properties",
                            lambda _d, gb=gpu_gb: type("Props", (), {"total_memory": int(gb * memplan.GB)}))
        assert dist.pick_strategy("auto", lm, ctx, cfg) == want, gpu_gb
    assert dist.pick_strategy("auto", lm, dist.Ctx(0, 8, 0, torch.device("cpu")), cfg) == "ddp"  # CPU: DDP
