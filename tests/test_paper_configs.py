"""The puzzle-to-math training configs are the paper's settings (issue 12 points 4, 5, 9, 13, 14)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from utils.config import load_or_raise

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "configs" / "paper"


def cfg(name: str, *extra: str):
    import train

    return load_or_raise(train.TrainConfig, ["--config", str(PAPER / name), "data.sources=[{env: bridges}]", *extra])


def test_sft_stage_is_olmo3_with_room_for_whole_traces(tmp_path):
    (tmp_path / "train-00000.jsonl").write_text("")
    sft = cfg("puzzles_sft.yaml", f"sft.data=[{tmp_path}]")
    assert sft.model == "allenai/Olmo-3-7B-Instruct-SFT"  # line 35
    traces = yaml.safe_load((ROOT / "configs" / "generate" / "sft_traces.yaml").read_text())["traces"]
    assert sft.sft.split == traces["split"] and traces["records_split"] == "train_sft"
    assert sft.sft.max_len >= traces["max_tokens"] + 1024  # a prompt plus the teacher's whole budget
    small = cfg("puzzles_sft_qwen1.5b.yaml", f"sft.data=[{tmp_path}]")
    assert small.model == "Qwen/Qwen2.5-1.5B-Instruct" and small.name != sft.name


@pytest.mark.parametrize("name", ["gspo_vanilla.yaml", "gspo_novelty.yaml", "gspo_vanilla_qwen1.5b.yaml",
                                  "gspo_novelty_qwen1.5b.yaml", "gspo_entropy_pilot.yaml"])
def test_rl_stage_settings(name):
    c = cfg(name, "model=org/m", "ref_model=org/r")
    r = c.rl
    assert r.max_tokens >= 25000 and r.engine.max_model_len >= r.max_tokens + 2048  # 25-28k responses, line 39
    assert (r.level, c.clip_eps(), r.minibatches, r.kl_coef) == ("sequence", (3e-4, 4e-4), 4, 0.0)  # GSPO
    assert r.scale_rewards == "group"  # GSPO's (r - mean) / std advantage (point 14)
    assert c.keep_every > 0 and r.steps // c.keep_every >= 10 and r.log_samples >= 8 * r.group_size  # point 9
    raw = yaml.safe_load((ROOT / "configs" / "train" / "gspo_puzzles.yaml").read_text())
    assert raw["data"]["sources"] == [{"data": "runs/data/puzzles", "split": "train_rl"}]  # never test (point 1)


def test_novelty_config_is_a_bonus_on_the_reasoning():
    nov = cfg("gspo_novelty.yaml", "model=org/m", "ref_model=org/r").novelty
    assert (nov.enabled, nov.norm, nov.k, nov.stat, nov.scope) == (True, "minmax", 100, "topk", "reasoning")
    assert not cfg("gspo_vanilla.yaml", "model=org/m", "ref_model=org/r").novelty.enabled
    pilot = cfg("gspo_entropy_pilot.yaml", "model=org/m", "ref_model=org/r").rl
    assert pilot.entropy_coef > 0 and pilot.entropy_adv_alpha == 0
