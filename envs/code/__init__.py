"""Code environments (induction, abduction, deduction, fuzzing; code_contest: real problems graded
by their tests) and teacher-student synthesis.

`CODE` (name -> "module:Class") is discovered from the modules here (envs/registry.py)."""
from envs.registry import lazy_registry

__getattr__ = lazy_registry(__name__, "CODE")
