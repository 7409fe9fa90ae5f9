"""RACES: typed bricks composed into chains, turned into problems by operators.

`COMPOSE` (name -> "module:Class") is discovered from the modules here (envs/registry.py)."""
from envs.registry import lazy_registry

__getattr__ = lazy_registry(__name__, "COMPOSE")
