"""RLVE-style procedurally generated environments with an integer difficulty (rewards in [-1, 1]).

`GYM` (name -> "module:Class") is discovered from the modules here: every GymEnv subclass with a
`name` registers itself, so adding an env is adding one class (see README.md here)."""
from envs.registry import lazy_registry

__getattr__ = lazy_registry(__name__, "GYM")
