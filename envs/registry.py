"""Env discovery: a family's registry is read off its modules, never kept by hand.

    GYM = discover("envs.gym")    # {"sorting": "envs.gym.arrays:Sorting", ...}

Every module of the package whose name does not start with "_" is imported, and each Env
subclass defined in it with a non-empty `name` class attribute registers as
name -> "module:Class". Adding an env is writing one class in one file: no dict, list or config
to update. A name registered twice (two classes, or a subclass that inherits its parent's name)
is refused with an error naming both classes.

Importing every module costs a few milliseconds each, so families run discovery lazily, on the
first access of their registry (a module-level __getattr__), and `import envs` stays cheap.
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Mapping

from envs.base import Env


def discover(package: str) -> dict[str, str]:
    """name -> "module:Class" for the envs defined in the package's modules, sorted by name."""
    pkg = importlib.import_module(package)
    found: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.ispkg:
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        for attr, obj in vars(module).items():
            if (isinstance(obj, type) and issubclass(obj, Env) and obj.__module__ == module.__name__
                    and getattr(obj, "name", "")):
                _add(found, obj.name, f"{module.__name__}:{attr}")
    return dict(sorted(found.items()))


def lazy_registry(package: str, attr: str):
    """A module-level __getattr__ for a family package: `attr` (e.g. "GYM") is discovered on first
    access and then cached in the package, so importing the package imports none of its envs.

        # envs/gym/__init__.py
        from envs.registry import lazy_registry
        __getattr__ = lazy_registry(__name__, "GYM")
    """
    def __getattr__(name: str):
        if name != attr:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(package)
        value = discover(package)
        setattr(module, attr, value)
        return value

    return __getattr__


def merge(families: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """One registry from several families' registries; a name in two families is refused."""
    out: dict[str, str] = {}
    for family in families:
        for name, target in family.items():
            _add(out, name, target)
    return out


def _add(registry: dict[str, str], name: str, target: str) -> None:
    if not isinstance(name, str) or not name or name != name.strip() or ":" in name:
        raise ValueError(f"env {target}: name must be a non-empty string without spaces at the ends "
                         f"or ':' (got {name!r})")
    if name in registry and registry[name] != target:
        raise ValueError(f"env name {name!r} is registered twice: {registry[name]} and {target} "
                         "(each env class needs its own `name`)")
    registry[name] = target
