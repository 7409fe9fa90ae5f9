"""Tests never use the network: hub ids are looked up in the local cache only (an uncached one is a
one-line config error at once, instead of a 3 s reachability probe per config load)."""
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


@pytest.fixture
def hub_ids_ok(monkeypatch):
    """For tests that load paper configs naming hub models, datasets and API endpoints: the hub
    model check passes (nothing is cached here) and the API keys they name are set."""
    from utils import modelpath

    monkeypatch.setattr(modelpath, "_hub_problem", lambda repo_id, revision="": None)
    for key in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(key, "test-key")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny local model (utils/tiny.py), built once per test module."""
    from utils.tiny import build_tiny

    return str(build_tiny(tmp_path_factory.mktemp("tiny") / "model"))


@pytest.fixture
def one_thread():
    """Two pytest workers on two cores: more torch threads than cores makes OpenMP spin, 10x slower."""
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)
