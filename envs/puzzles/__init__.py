"""Simon Tatham's puzzles, as in the puzzle-to-math transfer paper.

`PUZZLES` (name -> "module:Class") is discovered from the modules here (envs/registry.py)."""
from envs.registry import lazy_registry

__getattr__ = lazy_registry(__name__, "PUZZLES")
