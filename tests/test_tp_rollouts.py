"""Tensor-parallel vLLM rollouts in one process: where train.py refuses them (one line naming the
key and why), the ranks of a TP group, and utils.dist.init on a (stubbed) GPU: the device set before
the NCCL group, which is bound to it. The 2-rank run with a recording stand-in for vLLM is
tests/test_multirank.py::test_tensor_parallel_vllm_rollouts_serve_one_prompt_list_per_group."""
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from utils import dist
from utils.config import ConfigError, load_or_raise

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("argv,why", [
    (["rl.engine.tensor_parallel_size=2"], "only the vllm backend shards one engine"),
    (["rl.engine.backend=vllm", "rl.engine.tensor_parallel_size=0"], "must be >= 1"),
])
def test_tp_rollouts_are_refused_only_where_they_cannot_work(tiny, argv, why):
    from train import TrainConfig

    ok = [f"model={tiny}", "data.sources=[{env: sorting}]"]
    for mode in ("false", "true"):  # vLLM TP, sync or async
        load_or_raise(TrainConfig, ok + ["rl.engine.backend=vllm", "rl.engine.tensor_parallel_size=2",
                                         f"rl.async_rollouts={mode}"])
    with pytest.raises(ConfigError) as e:
        load_or_raise(TrainConfig, ok + argv)
    assert e.value.key == "rl.engine.tensor_parallel_size" and why in str(e.value)


def test_ranks_that_do_not_split_into_tp_groups_stop_with_one_line(tiny, tmp_path):
    res = subprocess.run([sys.executable, "train.py", f"model={tiny}", "data.sources=[{env: sorting}]",
                          "rl.engine.backend=vllm", "rl.engine.tensor_parallel_size=2", f"out_dir={tmp_path}"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, env={"CUDA_VISIBLE_DEVICES": "",
                                                                                    "PATH": "/usr/bin:/bin"})
    assert res.returncode == 2, res.stderr[-2000:]
    line = res.stderr.strip()
    assert "\n" not in line and "rl.engine.tensor_parallel_size" in line and \
        "1 rank(s) do not split into tensor-parallel groups of 2" in line, line
    assert not list(tmp_path.iterdir())  # stopped before the run directory or any model


def test_async_tp_rollouts_run_in_the_trainers_thread():
    """Async rollouts with a TP engine keep their schedule but get no thread of their own: vLLM's TP
    collectives must not run beside the trainer's (NCCL kernels on two communicators can deadlock)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from train import rollout_pool

    ctx = dist.Ctx(0, 2, 0, torch.device("cpu"))
    pool = rollout_pool(ctx, tp=2)
    assert pool.submit(lambda a, b: (a + b, threading.get_ident()), 1, 2).result() == (3, threading.get_ident())
    threaded = rollout_pool(ctx)
    assert isinstance(threaded, ThreadPoolExecutor)
    assert threaded.submit(threading.get_ident).result() != threading.get_ident()
    threaded.shutdown()


def test_tp_groups_are_consecutive_ranks():
    groups = [dist.tp_group(dist.Ctx(r, 8, r % 4, torch.device("cpu")), 4) for r in range(8)]
    assert groups == [range(0, 4)] * 4 + [range(4, 8)] * 4
    assert dist.tp_group(dist.Ctx(5, 8, 1, torch.device("cpu")), 1) == range(5, 6)


@pytest.mark.parametrize("env", [{}, {"RANK": "1", "LOCAL_RANK": "1", "WORLD_SIZE": "2"}])
def test_init_on_a_gpu_sets_the_device_then_binds_an_nccl_group_to_it(monkeypatch, env):
    """Also a plain one-process run: an NCCL group (gloo has no reduce-scatter of CUDA tensors, which
    FSDP2 on one GPU runs, and vLLM builds its groups over the default one)."""
    for key in ("RANK", "LOCAL_RANK", "WORLD_SIZE"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    calls = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "set_device", lambda d: calls.append(("set_device", d)))
    monkeypatch.setattr(dist.dist, "is_initialized", lambda: False)
    monkeypatch.setattr(dist.dist, "init_process_group", lambda backend, **kw: calls.append((backend, kw)))
    monkeypatch.setattr(dist.dist, "get_rank", lambda: int(env.get("RANK", 0)))
    monkeypatch.setattr(dist.dist, "get_world_size", lambda: int(env.get("WORLD_SIZE", 1)))
    ctx = dist.init()
    local = int(env.get("LOCAL_RANK", 0))
    assert calls[0] == ("set_device", local) and calls[1][0] == "nccl" and len(calls) == 2
    assert calls[1][1]["device_id"] == torch.device("cuda", local) == ctx.device
    assert ("store" in calls[1][1]) == (not env)  # a plain run: a one-process group of its own
