"""Every shipped train/generate config in configs/paper, configs/smoke and configs/train parses and
passes validation, except for inputs that an earlier pipeline stage writes."""
from __future__ import annotations

from pathlib import Path

import pytest

from utils.config import ConfigError, load_or_raise

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted(p for d in ("paper", "smoke", "train") for p in (ROOT / "configs" / d).glob("*.yaml"))
MISSING_INPUT = ("does not exist", "is not a directory", "is not a file", "not in the HF cache")


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_config_is_valid_up_to_missing_inputs(path):
    import generate
    import train

    schema = generate.GenerateConfig if "mode:" in path.read_text() else train.TrainConfig
    try:
        cfg = load_or_raise(schema, ["--config", str(path)])
    except ConfigError as e:
        assert any(m in e.msg for m in MISSING_INPUT), str(e)
        return
    if schema is train.TrainConfig and cfg.stage == "rl" and cfg.novelty.enabled:
        assert cfg.ref_model


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """Stands in for a hub model (model paths are checked at config load; tests run offline)."""
    d = tmp_path_factory.mktemp("model")
    (d / "config.json").write_text("{}")
    (d / "model.safetensors").write_bytes((2).to_bytes(8, "little") + b"{}")
    return str(d)


def test_paper_configs_are_the_papers_settings(model_dir):
    import train

    def cfg(name, *extra):
        return load_or_raise(train.TrainConfig, ["--config", str(ROOT / "configs" / "paper" / name),
                                                 f"model={model_dir}", f"ref_model={model_dir}", *extra])

    code = cfg("grpo_code.yaml", "data.sources=[{env: sorting}]")
    assert (code.rl.level, code.clip_eps(), code.rl.scale_rewards, code.rl.kl_coef, code.rl.group_size) == \
        ("token", (0.2, 0.25), "none", 0.0, 8)
    gspo = cfg("gspo_novelty.yaml", "data.sources=[{env: sorting}]")
    assert (gspo.rl.level, gspo.clip_eps(), gspo.rl.minibatches, gspo.novelty.enabled) == \
        ("sequence", (3e-4, 4e-4), 4, True)
    assert not cfg("gspo_vanilla.yaml", "data.sources=[{env: sorting}]").novelty.enabled
    assert cfg("rlve_adaptive.yaml").data.adaptive.enabled


def test_sweep_sbatch_runs_one_override_set_per_array_task(model_dir):
    import os
    import shlex
    import subprocess

    import train

    env = {**os.environ, "CONFIG": "configs/paper/grpo_code.yaml", "DRY_RUN": "1", "SLURM_ARRAY_TASK_ID": "1",
           "SLURM_GPUS_ON_NODE": "4"}
    sets = ["optim.lr=1e-6", "optim.lr=3e-6 rl.eps_high=0.28"]
    res = subprocess.run(["bash", "scripts/sweep.sbatch", *sets], cwd=ROOT, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    cmd = shlex.split(res.stdout)
    assert cmd[:4] == ["torchrun", "--standalone", "--nproc_per_node", "4"] and cmd[4] == "train.py"
    argv = cmd[5:] + [f"model={model_dir}", "data.sources=[{env: sorting}]"]
    cfg = load_or_raise(train.TrainConfig, argv)
    assert (cfg.optim.lr, cfg.rl.eps_high, cfg.resume, cfg.name) == (3e-6, 0.28, True,
                                                                      "sweep/grpo_code/optim.lr=3e-6_rl.eps_high=0.28")
    env["SLURM_ARRAY_TASK_ID"] = "2"
    res = subprocess.run(["bash", "scripts/sweep.sbatch", *sets], cwd=ROOT, env=env, capture_output=True, text=True)
    assert res.returncode == 2 and "only 2 override sets" in res.stderr
