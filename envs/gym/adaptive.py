"""Adaptive difficulty (RLVE paper, Algorithm 1): each environment's difficulty window [l, h]
rises with the policy.

    ctrl = AdaptiveDifficulty(envs.gym.GYM, rollouts_per_problem=8)
    name, d = ctrl.sample(rng)               # env uniformly (or by weight), d uniformly in [l, h]
    ... generate a problem, roll out ...
    ctrl.update(name, d, reward.correct)     # once per rollout

Only rollouts at the frontier (d == h) count. Once min_samples_factor * rollouts_per_problem of
them have been seen, h rises by one if their accuracy is at least tau_acc, and l follows so that
the window keeps at most `window` difficulties; the counters reset either way.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence


class AdaptiveDifficulty:
    def __init__(self, env_names: Iterable[str], rollouts_per_problem: int, tau_acc: float = 0.9,
                 min_samples_factor: int = 8, window: int = 4,
                 weights: Mapping[str, float] | Sequence[float] | None = None, seed: int = 0):
        self.env_names = list(env_names)
        if not self.env_names or len(set(self.env_names)) != len(self.env_names):
            raise ValueError("AdaptiveDifficulty: env_names must be non-empty and distinct")
        if rollouts_per_problem < 1 or min_samples_factor < 1 or window < 1 or not 0 <= tau_acc <= 1:
            raise ValueError("AdaptiveDifficulty: need rollouts_per_problem, min_samples_factor, window >= 1 "
                             "and 0 <= tau_acc <= 1")
        if isinstance(weights, Mapping):
            unknown = set(weights) - set(self.env_names)
            if unknown:
                raise ValueError(f"AdaptiveDifficulty: weights for unknown envs {sorted(unknown)}")
            weights = [float(weights.get(n, 0.0)) for n in self.env_names]
        if weights is not None:
            weights = [float(w) for w in weights]
            if len(weights) != len(self.env_names) or min(weights) < 0 or sum(weights) <= 0:
                raise ValueError("AdaptiveDifficulty: weights must be one non-negative number per env, not all 0")
        self.weights = weights
        self.rollouts_per_problem, self.tau_acc = rollouts_per_problem, tau_acc
        self.min_samples_factor, self.window = min_samples_factor, window
        self.windows = {n: [0, 0] for n in self.env_names}  # [l, h]
        self.counts = {n: [0, 0] for n in self.env_names}  # [correct, seen] at d == h
        self.rng = random.Random(seed)  # used by sample() when the caller passes no rng

    def sample(self, rng: random.Random | None = None) -> tuple[str, int]:
        rng = rng or self.rng
        if self.weights is None:
            name = rng.choice(self.env_names)
        else:
            name = rng.choices(self.env_names, weights=self.weights)[0]
        low, high = self.windows[name]
        return name, rng.randint(low, high)

    def update(self, env_name: str, difficulty: int, correct: bool) -> None:
        window, counts = self.windows[env_name], self.counts[env_name]
        if difficulty != window[1]:
            return
        counts[0] += bool(correct)
        counts[1] += 1
        if counts[1] >= self.min_samples_factor * self.rollouts_per_problem:
            if counts[0] >= self.tau_acc * counts[1]:
                window[1] += 1
                window[0] = max(window[0], window[1] - self.window + 1)
            counts[0] = counts[1] = 0

    def max_difficulty(self, env_name: str) -> int:
        return self.windows[env_name][1]

    def min_difficulty(self, env_name: str) -> int:
        return self.windows[env_name][0]

    def state_dict(self) -> dict:
        version, internal, gauss = self.rng.getstate()
        return {"env_names": list(self.env_names), "tau_acc": self.tau_acc,
                "rollouts_per_problem": self.rollouts_per_problem, "min_samples_factor": self.min_samples_factor,
                "window": self.window, "weights": self.weights,
                "windows": {n: list(w) for n, w in self.windows.items()},
                "counts": {n: list(c) for n, c in self.counts.items()},
                "rng": [version, list(internal), gauss]}

    def load_state_dict(self, state: dict) -> None:
        """Restore windows, counters and the internal rng. The env list must match; the
        thresholds come from the constructor (a resumed run may change them on purpose)."""
        if sorted(state["env_names"]) != sorted(self.env_names):
            missing = sorted(set(self.env_names) ^ set(state["env_names"]))
            raise ValueError(f"AdaptiveDifficulty: saved state is for other envs (differs in {missing})")
        self.windows = {n: [int(x) for x in state["windows"][n]] for n in self.env_names}
        self.counts = {n: [int(x) for x in state["counts"][n]] for n in self.env_names}
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
