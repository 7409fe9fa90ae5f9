"""utils/dist.py on a GPU node where torch cannot use CUDA (torch==2.14.0 from PyPI is a CUDA 13.0
build; on a driver older than 580 torch.cuda.is_available() is False): init stops with one line
naming the driver and torch's CUDA version instead of falling back to gloo on CPU. The condition is
simulated by monkeypatching; the CPU path (no GPU at all) keeps working."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from utils import dist

ROOT = Path(__file__).resolve().parents[1]
H200 = "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)"


@pytest.fixture
def no_gpu(monkeypatch):
    """A machine without GPUs: no device node, no nvidia-smi, CUDA_VISIBLE_DEVICES unset."""
    monkeypatch.setattr(dist.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(dist, "_smi", lambda *args: [])
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture
def old_driver(no_gpu, monkeypatch):
    """A GPU node whose driver (535) is too old for torch's CUDA 13.0."""
    monkeypatch.setattr(dist.glob, "glob", lambda pattern: ["/dev/nvidia0"])
    monkeypatch.setattr(dist, "driver_version", lambda: "535.104.05")
    monkeypatch.setattr(torch.version, "cuda", "13.0")


def test_old_driver_refuses_before_any_process_group(old_driver, monkeypatch):
    # under torchrun: a fallback to gloo would call init_process_group (and wait for rank 1)
    for key, value in {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1",
                       "MASTER_PORT": "29999"}.items():
        monkeypatch.setenv(key, value)
    calls = []
    monkeypatch.setattr(dist.dist, "init_process_group", lambda *a, **k: calls.append((a, k)))
    monkeypatch.setattr(dist.dist, "is_initialized", lambda: False)
    with pytest.raises(SystemExit) as e:
        dist.init()
    msg = str(e.value.code)
    assert "\n" not in msg and msg.startswith("utils.dist: GPUs are present (/dev/nvidia0; NVIDIA driver 535.104.05)")
    assert "built for CUDA 13.0, which needs driver >= 580" in msg and "CUDA_VISIBLE_DEVICES=" in msg
    assert calls == []


def test_every_sign_of_gpus_counts(no_gpu, monkeypatch):
    assert dist.gpus_present() == "" and dist.cuda_problem() == ""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    assert dist.gpus_present() == "CUDA_VISIBLE_DEVICES=0,1"
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    monkeypatch.setattr(dist, "_smi", lambda *args: [H200, H200.replace("GPU 0", "GPU 1")] if args == ("-L",) else [])
    assert dist.gpus_present() == "nvidia-smi lists 2 GPU(s)"
    monkeypatch.setattr(torch.version, "cuda", None)
    assert "(a CPU-only build) cannot use them" in dist.cuda_problem()


def test_gpus_hidden_on_purpose_run_on_cpu(old_driver, monkeypatch):
    for hidden in ("", "-1"):
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", hidden)
        assert dist.gpus_present() == "" and dist.cuda_problem() == ""


def test_cpu_path_without_gpus_still_works(no_gpu):
    was = torch.distributed.is_initialized()
    ctx = dist.init()
    assert ctx.device.type == "cpu" and ctx.world == 1 and torch.distributed.get_backend() == "gloo"
    if not was:
        dist.close()


def test_more_local_ranks_than_visible_gpus_refused(no_gpu, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    monkeypatch.setenv("LOCAL_RANK", "1")
    with pytest.raises(SystemExit, match=r"LOCAL_RANK 1 but torch sees 1 GPU\(s\) \(CUDA_VISIBLE_DEVICES=3\)"):
        dist.init()


def test_driver_version_from_proc_or_nvidia_smi(tmp_path, monkeypatch):
    proc = tmp_path / "version"
    monkeypatch.setattr(dist, "PROC_DRIVER", str(proc))
    monkeypatch.setattr(dist, "_smi", lambda *args: ["550.54.15"])
    assert dist.driver_version() == "550.54.15"  # no /proc file: nvidia-smi's
    proc.write_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n")
    assert dist.driver_version() == "535.104.05"
    proc.write_text("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.03  Release Build\n")
    assert dist.driver_version() == "580.159.03"
    proc.unlink()
    monkeypatch.setattr(dist, "_smi", lambda *args: [])
    assert dist.driver_version() == "unknown"


def test_probe_line(old_driver, capsys, monkeypatch):
    assert dist.probe() == 3
    assert capsys.readouterr().out.startswith("GPUs are present (/dev/nvidia0; NVIDIA driver 535.104.05)")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert dist.probe() == 0
    assert capsys.readouterr().out == f"gpus=1 torch={torch.__version__} cuda=13.0 driver=535.104.05\n"


@pytest.mark.skipif(any(Path("/dev").glob("nvidia[0-9]*")), reason="a GPU machine: the refusal needs no GPU here")
def test_train_under_torchrun_refuses_without_training(tiny, tmp_path):
    """No monkeypatching: CPU torch with CUDA_VISIBLE_DEVICES=0 is a GPU node whose torch cannot use
    CUDA; train.py under torchrun stops with the one line and writes nothing."""
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "0", "OMP_NUM_THREADS": "1"}
    res = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=1",
                          "train.py", f"model={tiny}", "data.sources=[{env: sorting}]", f"out_dir={tmp_path}",
                          "name=refused", "rl.steps=1"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode != 0
    lines = [line for line in res.stderr.splitlines() if line.startswith("utils.dist: ")]
    assert len(lines) == 1 and "GPUs are present (CUDA_VISIBLE_DEVICES=0" in lines[0], res.stderr[-3000:]
    assert "torch.distributed.DistBackendError" not in res.stderr and not (tmp_path / "refused").exists()
