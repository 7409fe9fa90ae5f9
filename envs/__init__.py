"""Env registry: envs.names(), envs.make(name, **params), envs.score(record, response).

Each family package (puzzles, gym, compose, code) discovers its envs from its modules
(envs/registry.py: every Env subclass with a `name` registers itself); REGISTRY merges the
families (name -> "module:Class") and refuses a name used twice. Discovery runs on first use of
the registry, so `import envs` stays cheap. `rg:<task>` wraps a reasoning-gym task.
"""
from __future__ import annotations

import importlib

from envs.base import Env, Reward, extract_answer, extract_reasoning, extract_tag, format_score
from utils.records import check_record

FAMILIES = {"envs.puzzles": "PUZZLES", "envs.gym": "GYM", "envs.compose": "COMPOSE", "envs.code": "CODE"}
RG_PREFIX = "rg:"

__all__ = ["Env", "Reward", "names", "make", "score", "env_class", "extract_answer", "extract_reasoning",
           "extract_tag", "format_score", "REGISTRY", "FAMILIES"]


def __getattr__(attr: str):
    """`envs.REGISTRY`, built on first access (tests and benches may add entries to it)."""
    if attr != "REGISTRY":
        raise AttributeError(f"module 'envs' has no attribute {attr!r}")
    from envs.registry import merge

    registry = merge(getattr(importlib.import_module(pkg), name) for pkg, name in FAMILIES.items())
    globals()["REGISTRY"] = registry
    return registry


def _registry() -> dict[str, str]:
    return globals().get("REGISTRY") or __getattr__("REGISTRY")


def names() -> list[str]:
    return sorted(_registry())


def env_class(name: str) -> type[Env]:
    registry = _registry()
    if name not in registry:
        raise KeyError(f"unknown env {name!r}; registered: {', '.join(names())}")
    module, _, cls = registry[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def make(name: str, **params) -> Env:
    if name.startswith(RG_PREFIX):
        from envs.gym.rg import ReasoningGymEnv

        return ReasoningGymEnv(name[len(RG_PREFIX):], **params)
    return env_class(name)(**params)


def score(record: dict, response: str, env: Env | None = None) -> Reward:
    """Score one response to one record. Never raises on the response; a malformed record raises
    ValueError naming its id. Pass `env` to score with non-default env params (reward weights)."""
    check_record(record)
    if env is None:
        try:
            env = make(record["env"])
        except KeyError as e:
            raise ValueError(f"record {record['id']}: {e.args[0]}") from None
    return env.score(record, response)
