"""Adaptive difficulty (RLVE's Algorithm 1): each environment's difficulty window [l, h] rises with
the policy. What our text (part 3 of 5) states is rlve line 31: Algorithm 1 exists, and its defaults
are tau_acc 0.9, a minimum of 8 x the rollouts per problem before a judgement (tau_num), and a
sliding window of 4 (d_Delta): the constructor's defaults. The pseudocode itself is not in part 3, so
the rest below is our choice, after the official implementation as this module's author read it
(the repository named below; not checked against the paper's Algorithm 1): the window starts at
[0, 0], an env is drawn uniformly (or by weight) and d uniformly in [l, h], only frontier rollouts
count, and h rises by one per judgement.

    ctrl = AdaptiveDifficulty(env_names, rollouts_per_problem=8)
    name, d = ctrl.sample(rng)               # env uniformly (or by weight), d uniformly in [l, h]
    ... generate the batch's problems, roll them out ...
    for each rollout: ctrl.update(name, d, reward.correct)
    ctrl.end_batch()                         # once the whole batch is in: judge, maybe raise h

Only rollouts at the frontier (d == h) count (our choice, as above). After a batch, an env whose frontier count has
reached min_samples_factor * rollouts_per_problem is judged: h rises by one if the accuracy over
those rollouts is at least tau_acc, and l follows so that the window keeps at most `window`
difficulties; its counters reset either way. Judging after the whole batch, not at the moment
the threshold-th rollout arrives, is our choice after the official implementation (RLVEManager.update
in github.com/Zhiyuan-Zeng/RLVE, tinker-cookbook/.../rlve/procgen_env.py: it adds up every
sample of the batch, then checks each environment); every frontier rollout of the batch counts,
including those beyond the threshold.
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
        self.counts = {n: [0, 0] for n in self.env_names}  # [correct, seen] at d == h since the last judgement
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
        """Record one rollout (counted only at the frontier d == h); end_batch() judges."""
        if difficulty != self.windows[env_name][1]:
            return
        counts = self.counts[env_name]
        counts[0] += bool(correct)
        counts[1] += 1

    def end_batch(self) -> dict[str, int]:
        """Judge every env with enough frontier rollouts; returns {env: new h} for those that rose."""
        raised = {}
        for name in self.env_names:
            window, counts = self.windows[name], self.counts[name]
            if counts[1] >= self.min_samples_factor * self.rollouts_per_problem:
                if counts[0] >= self.tau_acc * counts[1]:
                    window[1] += 1
                    window[0] = max(window[0], window[1] - self.window + 1)
                    raised[name] = window[1]
                counts[0] = counts[1] = 0
        return raised

    def update_batch(self, results: Iterable[tuple[str, int, bool]]) -> dict[str, int]:
        """update() for each (env, difficulty, correct) of one whole batch, then end_batch()."""
        for name, difficulty, correct in results:
            self.update(name, difficulty, correct)
        return self.end_batch()

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
