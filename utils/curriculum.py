"""Curriculum schedules: the RL step -> sampling weights over difficulty bins.

    sched = load("classic", total_steps=2000)      # configs/curricula/classic.yaml, scaled to 2000 steps
    sched.weights(step)                             # {"easy": 1.0, "medium": 0.0, "hard": 0.0}
    sched.sample(step, rng)                         # a bin name drawn with those weights
    sched.key                                       # the record meta field holding a record's bin

A schedule file names its bins, the meta key records carry them under, the run length its step
boundaries were written for (`total_steps`, the paper's), and piecewise-constant phases:

    phases:
      - {until: 10000, weights: {easy: 1.0}}           # steps [0, 10000)
      - {until: 15000, weights: {easy: 0.5, medium: 0.5}}

Boundaries scale linearly to a run's own total_steps; bins a phase does not name weigh 0; weights
are normalised; steps past the end keep the last phase.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

CURRICULA_DIR = Path(__file__).resolve().parents[1] / "configs" / "curricula"


@dataclass(frozen=True)
class Schedule:
    name: str
    key: str  # record meta field that holds the bin name
    bins: tuple[str, ...]
    total_steps: int
    phases: tuple[tuple[int, dict], ...]  # (until, normalised weights over all bins), increasing

    def weights(self, step: int) -> dict[str, float]:
        for until, weights in self.phases:
            if step < until:
                return dict(weights)
        return dict(self.phases[-1][1])

    def sample(self, step: int, rng: random.Random) -> str:
        w = self.weights(step)
        return rng.choices(self.bins, weights=[w[b] for b in self.bins])[0]

    def scaled(self, total_steps: int) -> "Schedule":
        """The same schedule with every boundary stretched from self.total_steps to total_steps."""
        if total_steps < 1:
            raise ValueError(f"curriculum {self.name}: total_steps must be >= 1, got {total_steps}")
        phases = tuple((round(until * total_steps / self.total_steps), w) for until, w in self.phases)
        return Schedule(self.name, self.key, self.bins, total_steps, phases)


def load(name_or_path: str | Path, total_steps: int | None = None) -> Schedule:
    """A shipped schedule by name (configs/curricula/<name>.yaml) or any YAML file, optionally scaled."""
    import yaml

    path = Path(name_or_path)
    if not path.suffix:
        path = CURRICULA_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        shipped = ", ".join(sorted(p.stem for p in CURRICULA_DIR.glob("*.yaml")))
        raise ValueError(f"curriculum {name_or_path!r}: no such file (shipped: {shipped})")
    sched = parse(yaml.safe_load(path.read_text()), str(path))
    return sched.scaled(total_steps) if total_steps else sched


def parse(data: dict, where: str = "curriculum") -> Schedule:
    """Validate a schedule mapping; ValueError naming the file and the field on any problem."""
    def fail(msg):
        raise ValueError(f"{where}: {msg}")

    if not isinstance(data, dict):
        fail("must be a mapping")
    bins = tuple(data.get("bins") or ())
    total = data.get("total_steps")
    if not bins or len(set(bins)) != len(bins):
        fail("bins: a list of distinct names is required")
    if not isinstance(total, int) or total < 1:
        fail("total_steps: a positive integer is required")
    phases, last = [], 0
    for i, ph in enumerate(data.get("phases") or []):
        until, weights = ph.get("until"), ph.get("weights") or {}
        if not isinstance(until, (int, float)) or until <= last:
            fail(f"phases.{i}.until: must increase, got {until!r} after {last}")
        unknown = set(weights) - set(bins)
        if unknown or any(not isinstance(v, (int, float)) or v < 0 for v in weights.values()):
            fail(f"phases.{i}.weights: unknown bins {sorted(unknown)} or a negative weight")
        s = float(sum(weights.values()))
        if s <= 0:
            fail(f"phases.{i}.weights: all zero")
        phases.append((until, {b: weights.get(b, 0.0) / s for b in bins}))
        last = until
    if not phases or last != total:
        fail(f"phases: must end at total_steps ({total}), ends at {last}")
    return Schedule(str(data.get("name", where)), str(data.get("key", "bin")), bins, total, tuple(phases))
