"""The env contract across every registered family (puzzles, gym, compose, code)."""
from __future__ import annotations

import importlib
import json

import pytest

import envs


def test_families_are_discovered_and_do_not_shadow_each_other():
    families = [getattr(importlib.import_module(pkg), attr) for pkg, attr in envs.FAMILIES.items()]
    assert len(envs.REGISTRY) == sum(map(len, families))
    assert envs.names() == sorted(envs.REGISTRY)
    for name, target in envs.REGISTRY.items():  # every entry names the class that declares it
        assert envs.env_class(name).name == name and target.startswith("envs.")


@pytest.mark.parametrize("name", envs.names())
def test_contract(name):
    env = envs.make(name)
    rec = env.generate(seed=11, difficulty=1)
    assert set(rec) >= {"id", "env", "difficulty", "prompt", "answer", "meta"} and rec["env"] == name
    assert json.loads(json.dumps(rec)) == rec, "records are plain JSON"
    assert isinstance(rec["prompt"], str) and rec["prompt"]
    lo, hi = env.reward_range
    for text in ("", "<answer></answer>", "<answer>" + "9" * 10_000 + "</answer>", "\x00\udcff"):
        rew = envs.score(rec, text)
        assert lo <= rew.value <= hi and isinstance(rew.correct, bool) and not rew.correct
    if rec["answer"] is not None:
        assert envs.score(rec, rec["answer"]).correct, "the gold answer is correct"
