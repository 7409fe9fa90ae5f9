"""The puzzle-to-math training configs are the paper's settings (issue 12 points 4, 5, 9, 13, 14)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from utils.config import load_or_raise

pytestmark = pytest.mark.usefixtures("hub_ids_ok")  # paper configs name hub models; tests run offline

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "configs" / "paper"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> str:
    """Stands in for the hub models (model paths are checked at config load; tests run offline)."""
    d = tmp_path_factory.mktemp("model")
    (d / "config.json").write_text("{}")
    (d / "model.safetensors").write_bytes((2).to_bytes(8, "little") + b"{}")
    return str(d)


def cfg(name: str, model: str, *extra: str):
    import train

    return load_or_raise(train.TrainConfig, ["--config", str(PAPER / name), "data.sources=[{env: bridges}]",
                                             f"model={model}", f"ref_model={model}", *extra])


def test_sft_stage_is_olmo3_with_room_for_whole_traces(tmp_path, model):
    (tmp_path / "train-00000.jsonl").write_text("")
    sft = cfg("puzzles_sft.yaml", model, f"sft.data=[{tmp_path}]")
    assert yaml.safe_load((PAPER / "puzzles_sft.yaml").read_text())["model"] == "allenai/Olmo-3-7B-Instruct-SFT"  # line 35
    traces = yaml.safe_load((ROOT / "configs" / "generate" / "sft_traces.yaml").read_text())["traces"]
    assert sft.sft.split == traces["split"] and traces["records_split"] == "train_sft"
    assert sft.sft.max_len >= traces["max_tokens"] + 1024  # a prompt plus the teacher's whole budget
    small = cfg("puzzles_sft_qwen1.5b.yaml", model, f"sft.data=[{tmp_path}]")
    raw = yaml.safe_load((PAPER / "puzzles_sft_qwen1.5b.yaml").read_text())
    assert raw["model"] == "Qwen/Qwen2.5-1.5B-Instruct" and small.name != sft.name


PILOTS = ["pilot_gspo_vanilla.yaml", "pilot_gspo_novelty.yaml", "pilot_gspo_entropy.yaml",
          "pilot_gspo_entropy_adv.yaml"]


@pytest.mark.parametrize("name", ["gspo_vanilla.yaml", "gspo_novelty.yaml", "gspo_vanilla_qwen1.5b.yaml",
                                  "gspo_novelty_qwen1.5b.yaml", *PILOTS])
def test_rl_stage_settings(name, model):
    c = cfg(name, model)
    r = c.rl
    assert r.max_tokens >= 25000 and r.engine.max_model_len >= r.max_tokens + 2048  # 25-28k responses, line 39
    assert (r.level, c.clip_eps(), r.minibatches, r.kl_coef) == ("sequence", (3e-4, 4e-4), 4, 0.0)  # GSPO
    assert r.scale_rewards == "group"  # GSPO's (r - mean) / std advantage (point 14)
    # "across 20 vanilla-GSPO steps" (line 85), "ten checkpoints" (line 29): a model kept every 2 steps
    assert r.steps == 20 and r.log_samples >= 8 * r.group_size
    assert (c.keep_every, r.steps // max(1, c.keep_every)) == ((0, 20) if name in PILOTS else (2, 10))
    raw = yaml.safe_load((ROOT / "configs" / "train" / "gspo_puzzles.yaml").read_text())
    assert raw["data"]["sources"] == [{"data": "runs/data/puzzles", "split": "train_rl"}]  # never test (point 1)


def test_novelty_config_is_a_bonus_on_the_reasoning(model):
    nov = cfg("gspo_novelty.yaml", model).novelty
    assert (nov.enabled, nov.norm, nov.k, nov.stat, nov.scope) == (True, "minmax", 100, "topk", "reasoning")
    assert not cfg("gspo_vanilla.yaml", model).novelty.enabled
    pilot = cfg("pilot_gspo_entropy.yaml", model).rl
    assert pilot.entropy_coef > 0 and pilot.entropy_adv_alpha == 0
    adv = cfg("pilot_gspo_entropy_adv.yaml", model).rl
    assert adv.entropy_coef == 0 and adv.entropy_adv_alpha > 0


def test_pilots_share_one_mini_scale_and_grpo_differs_only_in_its_objective(model):
    """Line 111: the entropy pilot 'matched the novelty bonus at mini scale': every pilot runs at the
    same reduced scale, the novelty pilot with the full run's bonus. Line 39: GRPO on the same data
    differs from the GSPO pilot only in the importance ratio and its clip."""
    from dataclasses import asdict

    full = cfg("gspo_vanilla.yaml", model)
    runs = {n: cfg(n, model) for n in PILOTS + ["pilot_grpo.yaml"]}
    assert len({c.name for c in runs.values()}) == len(runs)
    for c in runs.values():
        assert (c.rl.batch_size, c.rl.steps, c.rl.max_tokens, c.data) == \
            (runs["pilot_gspo_vanilla.yaml"].rl.batch_size, full.rl.steps, full.rl.max_tokens, full.data)
        assert c.rl.batch_size < full.rl.batch_size
    assert asdict(runs["pilot_gspo_novelty.yaml"].novelty) == asdict(cfg("gspo_novelty.yaml", model).novelty)
    grpo, gspo = asdict(runs["pilot_grpo.yaml"]), asdict(runs["pilot_gspo_vanilla.yaml"])
    differ = {f"rl.{k}" for k in grpo["rl"] if grpo["rl"][k] != gspo["rl"][k]} | \
        {k for k in grpo if k != "rl" and grpo[k] != gspo[k]}
    assert differ == {"rl.level", "rl.eps_low", "rl.eps_high", "name"}
    assert runs["pilot_grpo.yaml"].clip_eps() == (0.2, 0.2) and runs["pilot_grpo.yaml"].rl.level == "token"
