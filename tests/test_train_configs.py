"""Every shipped train/generate config in configs/paper, configs/smoke and configs/train parses and
passes validation, except for inputs that an earlier pipeline stage writes."""
from __future__ import annotations

from pathlib import Path

import pytest

from utils.config import ConfigError, load_or_raise

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted(p for d in ("paper", "smoke", "train") for p in (ROOT / "configs" / d).glob("*.yaml"))
MISSING_INPUT = ("does not exist", "is not a directory", "is not a file", "not in the HF cache",
                 "is not set in the environment")  # an API key: the endpoint is an input too


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
    assert cfg("rlve_adaptive.yaml", "model_revision=''").data.adaptive.enabled  # a local model: no revision


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


def _tools(tmp_path, scontrol: str | None = None) -> dict:
    """An environment whose PATH holds the tools the script uses and no nvidia-smi."""
    import os
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("tr", "basename", "wc", "head"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    if scontrol:
        (bin_dir / "scontrol").write_text(f"#!/bin/sh\nprintf '{scontrol}'\n")
        (bin_dir / "scontrol").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    return {**env, "PATH": str(bin_dir), "CONFIG": "configs/paper/grpo_code.yaml", "DRY_RUN": "1"}


def test_sweep_sbatch_without_a_gpu_count_says_so(tmp_path):
    import shutil
    import subprocess

    res = subprocess.run([shutil.which("bash"), "scripts/sweep.sbatch", "optim.lr=1e-6"], cwd=ROOT,
                         env=_tools(tmp_path), capture_output=True, text=True)
    assert res.returncode == 2 and "nvidia-smi" in res.stderr and "GPUS=N" in res.stderr, res.stderr


def test_sweep_sbatch_multi_node_runs_one_torchrun_per_node_with_hsdp(tmp_path, hub_ids_ok):
    import shlex
    import shutil
    import subprocess

    import train

    env = {**_tools(tmp_path, scontrol="gpu-a\\ngpu-b\\n"), "SLURM_NNODES": "2", "SLURM_GPUS_ON_NODE": "8",
           "SLURM_JOB_NODELIST": "gpu-[a-b]", "SLURM_JOB_ID": "77"}
    res = subprocess.run([shutil.which("bash"), "scripts/sweep.sbatch", "optim.lr=1e-6"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    cmd = shlex.split(res.stdout)
    assert cmd[:4] == ["srun", "--nodes", "2", "--ntasks-per-node=1"] and "gpu-a:29500" in cmd
    assert cmd[cmd.index("--nnodes") + 1] == "2" and cmd[cmd.index("--nproc_per_node") + 1] == "8"
    cfg = load_or_raise(train.TrainConfig, cmd[cmd.index("train.py") + 1:] + ["model=Qwen/any",
                                                                              "data.sources=[{env: sorting}]"])
    assert (cfg.strategy, cfg.hsdp_shard_size, cfg.optim.lr) == ("hsdp", 8, 1e-6)


def test_sweep_sbatch_log_goes_where_slurm_can_open_it():
    # Slurm opens --output before the script runs: a directory there must exist in a fresh clone
    line = next(x for x in (ROOT / "scripts/sweep.sbatch").read_text().splitlines() if x.startswith("#SBATCH --output"))
    assert "/" not in line.split("=", 1)[1], line


def test_sweep_sbatch_runs_a_code_rl_config_on_32_gpus_under_its_own_name(tmp_path, hub_ids_ok):
    """code_rl Appendix E: 'All experiments are run on 4 nodes of 8x NVIDIA H100 GPUs': the header's
    command (--nodes=4, no override set) is 32 ranks running the config under its own name; a set
    with name= keeps that name (the seeds)."""
    import shlex
    import shutil
    import subprocess

    import train

    env = {**_tools(tmp_path, scontrol="n1\\nn2\\nn3\\nn4\\n"), "SLURM_NNODES": "4", "SLURM_GPUS_ON_NODE": "8",
           "SLURM_JOB_NODELIST": "n[1-4]", "SLURM_JOB_ID": "9", "CONFIG": "configs/paper/code_rl/qwen3_8b.yaml"}
    header = (ROOT / "scripts/sweep.sbatch").read_text()
    assert "CONFIG=configs/paper/code_rl/qwen3_8b.yaml sbatch --nodes=4 --gpus-per-node=8 scripts/sweep.sbatch" in header
    for sets, name in (([], "code_rl/qwen3_8b/real_25k"), (["seed=1 name=code_rl/qwen3_8b/real_25k/seed1"],
                                                          "code_rl/qwen3_8b/real_25k/seed1")):
        res = subprocess.run([shutil.which("bash"), "scripts/sweep.sbatch", *sets], cwd=ROOT, env=env,
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        cmd = shlex.split(res.stdout)
        assert int(cmd[cmd.index("--nnodes") + 1]) * int(cmd[cmd.index("--nproc_per_node") + 1]) == 32
        cfg = load_or_raise(train.TrainConfig, cmd[cmd.index("train.py") + 1:] + ["data.sources=[{env: sorting}]"])
        assert cfg.name == name and cfg.resume and cfg.strategy == "hsdp"
        assert cfg.rl.batch_size // cfg.rl.group_size % 32 == 0  # 32 prompts a step split over the 32 ranks
