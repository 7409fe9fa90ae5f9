"""Gym envs as bricks: every env of envs/gym that declares `brick_io` (its answer is a deterministic
function of one typed value) becomes a brick named after the env, so the gym and the RACES pool
grow together. The env supplies the mapper (`brick_apply`), its text and an input sampler
(`brick_input`, drawn at BRICK_DIFFICULTY: compositions need small values; bench/races.py also
draws at difficulty 10). See envs/gym/base.py for the protocol.
"""
from __future__ import annotations

import functools
import importlib

from envs.compose.brick import Brick

BRICK_DIFFICULTY = 0


def _gym_registry() -> dict[str, str]:
    # the gym family's own registry, not envs.REGISTRY: merging every family would import
    # envs/compose, which imports this module (a circular import)
    import envs.gym

    return envs.gym.GYM


def gym_env_names() -> list[str]:
    """The envs discovered under envs/gym."""
    return sorted(_gym_registry())


def gym_brick(name: str, difficulty: int = BRICK_DIFFICULTY) -> Brick | None:
    """The brick of one gym env, or None if the env declares no brick."""
    module, _, attr = _gym_registry()[name].partition(":")
    cls = getattr(importlib.import_module(module), attr)
    if getattr(cls, "brick_io", None) is None:
        return None
    env = cls()
    x, y = cls.brick_io
    return Brick(name, x, y, cls.brick_text, env.brick_apply, functools.partial(_draw, env, difficulty))


def _draw(env, difficulty, rng):
    return env.brick_input(rng, difficulty)


def gym_bricks(difficulty: int = BRICK_DIFFICULTY) -> list[Brick]:
    return [b for b in map(functools.partial(gym_brick, difficulty=difficulty), gym_env_names()) if b is not None]
