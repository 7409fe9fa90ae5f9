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

    monkeypatch.setattr(modelpath, "_hub_problem", lambda repo_id: None)
    for key in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(key, "test-key")
