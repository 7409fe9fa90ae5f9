"""Env registry: envs.names(), envs.make(name, **params), envs.score(record, response).

The registry is one literal dict per family (name -> "module:Class"), merged here; modules are
imported on first use so `import envs` stays cheap. `rg:<task>` wraps a reasoning-gym task.
"""
from __future__ import annotations

import importlib

from envs.base import Env, Reward, extract_answer, extract_reasoning, extract_tag, format_score
from envs.code import CODE
from envs.compose import COMPOSE
from envs.gym import GYM
from envs.puzzles import PUZZLES
from utils.records import check_record

REGISTRY: dict[str, str] = {**PUZZLES, **GYM, **COMPOSE, **CODE}
RG_PREFIX = "rg:"

__all__ = ["Env", "Reward", "names", "make", "score", "env_class", "extract_answer", "extract_reasoning",
           "extract_tag", "format_score", "REGISTRY"]


def names() -> list[str]:
    return sorted(REGISTRY)


def env_class(name: str) -> type[Env]:
    if name not in REGISTRY:
        raise KeyError(f"unknown env {name!r}; registered: {', '.join(names())}")
    module, _, cls = REGISTRY[name].partition(":")
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
