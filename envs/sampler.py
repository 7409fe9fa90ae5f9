"""What train.py draws RL prompts from: static datasets + live envs, the env mix, the curriculum
schedule and the adaptive difficulty controller, behind one `sample(step, n)`.

    sampler = PromptSampler(cfg, seed=0, rollouts_per_problem=8, total_steps=100)
    items = sampler.sample(step, n)          # same (seed, step, controller state) -> same items
    env = sampler.env_of(item)               # the Env that scores item.record
    sampler.update([(item, correct), ...])   # per rollout; feeds the adaptive controller
    state = sampler.state_dict()             # the controller's state; the rest is derived from the seed

Each prompt first picks a source by weight (the env mix). A static source picks a record; with a
curriculum (utils/curriculum.py), first a bin by the schedule's weights at this step, among the
bins the source's records carry (in `meta[<schedule.key>]`; a record whose field is null is in
no bin and is never drawn under a curriculum, one without the field is an error). A live source generates a record:
with the adaptive controller (RLVE) the controller picks the env and difficulty among the live
sources; else the difficulty is the source's `bins[<curriculum bin>]`, or its fixed `difficulty`.

A static source names a split of a generate.py dataset (`{data: runs/data/puzzles, split: train_rl}`);
a reference that resolves to a test split is refused (utils/records.py: resolve_split).

Draws are with replacement from a per-step RNG (no cursor to save), so a resumed run draws the
same prompts as an uninterrupted one.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, List, Protocol

from utils.config import field
from utils.records import DataRefError, derive_seed, load_split, resolve_split


@dataclass
class Source:
    env: str = field("", help="live env: a registered name; problems are generated on the fly")
    params: dict = field({}, help="live env: constructor params, e.g. {width: 7, height: 7, level: hard} or the "
                                  "puzzle reward weights w_exact (default 1.0) and w_completion (0.5), which the "
                                  "puzzle-to-math paper does not publish")
    difficulty: int = field(0, help="live env: difficulty when neither the controller nor a curriculum sets it")
    bins: dict = field({}, help="live env + curriculum: the difficulty of each curriculum bin, e.g. "
                                "{easy: 0, medium: 4, hard: 8}")
    data: str = field("", help="static: records from generate.py: a directory of shards (name the split), a "
                               "JSONL file or a glob. A test split is refused: training never reads one")
    split: str = field("", help="static: the split to read from a directory of shards, e.g. train_rl "
                                "(reads train_rl-*.jsonl only); required for a directory")
    weight: float = field(1.0, help="share of the prompts drawn from this source (the env mix)")


@dataclass
class AdaptiveConfig:
    enabled: bool = field(False, help="RLVE adaptive difficulty over the live sources (envs/gym/adaptive.py)")
    tau_acc: float = field(0.9, help="accuracy at the current top difficulty that unlocks the next (RLVE)")
    min_samples_factor: int = field(8, help="rollouts seen at a difficulty before it can be judged, in units "
                                            "of rollouts per problem (RLVE)")
    window: int = field(4, help="how many difficulties below the top are sampled (RLVE)")


@dataclass
class CurriculumConfig:
    path: str = field("", help="a curriculum: a name in configs/curricula/ (classic, reverse, ...) or a "
                               "YAML path; empty: no curriculum")
    total_steps: int = field(0, help="steps the schedule spans; 0: rl.steps")


@dataclass
class SamplerConfig:
    sources: List[Source] = field([], help="prompt sources: each {env, params, difficulty} or {data}, with a weight")
    adaptive: AdaptiveConfig = field(AdaptiveConfig(), help="adaptive difficulty controller")
    curriculum: CurriculumConfig = field(CurriculumConfig(), help="difficulty-bin schedule")

    def validate(self, prefix: str = "data"):
        import envs

        if not self.sources:
            yield f"{prefix}.sources", "no prompt sources: give at least one {env: ...} or {data: ...}"
        live = []
        for i, s in enumerate(self.sources):
            key = f"{prefix}.sources.{i}"
            if bool(s.env) == bool(s.data):
                yield key, "give exactly one of env (live) or data (static records)"
            elif s.env and s.env not in envs.REGISTRY and not s.env.startswith(envs.RG_PREFIX):
                yield f"{key}.env", f"unknown env {s.env!r}"
            elif s.env in envs.REGISTRY:
                try:  # constructors are cheap and check their params (a bad width, a missing data file)
                    envs.make(s.env, **s.params)
                except (TypeError, ValueError) as e:
                    yield f"{key}.params", str(e)
            elif s.data:
                try:
                    resolve_split(s.data, s.split)
                except DataRefError as e:
                    yield f"{key}.{e.key}", str(e)
            if s.weight <= 0:
                yield f"{key}.weight", "must be > 0"
            if s.difficulty < 0:
                yield f"{key}.difficulty", "must be >= 0"
            live += [s.env] if s.env else []
        if self.adaptive.enabled and not live:
            yield f"{prefix}.adaptive.enabled", "needs at least one live env source"
        if self.adaptive.enabled and len(set(live)) != len(live):
            yield f"{prefix}.adaptive.enabled", "each live env may appear once (the controller keys on the name)"
        if not 0 < self.adaptive.tau_acc <= 1:
            yield f"{prefix}.adaptive.tau_acc", "must be in (0, 1]"
        if self.curriculum.path:
            from utils.curriculum import load

            try:
                sched = load(self.curriculum.path)
            except ValueError as e:
                yield f"{prefix}.curriculum.path", str(e)
                return
            for i, s in enumerate(self.sources):
                missing = set(sched.bins) - set(s.bins)
                if s.env and not self.adaptive.enabled and missing:
                    yield f"{prefix}.sources.{i}.bins", f"give the difficulty of curriculum bins {sorted(missing)}"


class Schedule(Protocol):
    """What the sampler needs from a curriculum (utils.curriculum.Schedule): the record meta field
    holding a record's bin, and sampling weights over bins at an RL step."""

    key: str

    def weights(self, step: int) -> dict[str, float]: ...


@dataclass
class Item:
    record: dict
    source: int  # index into cfg.sources
    bin: str | None = None


def load_schedule(cfg: CurriculumConfig, total_steps: int) -> Schedule | None:
    if not cfg.path:
        return None
    from utils.curriculum import load

    return load(cfg.path, total_steps=cfg.total_steps or total_steps)


class PromptSampler:
    def __init__(self, cfg: SamplerConfig, *, seed: int, rollouts_per_problem: int, total_steps: int,
                 schedule: Schedule | None = None, controller: Any = None, env_objects: dict | None = None):
        """schedule / controller / env_objects override what cfg would build (tests, custom envs)."""
        import envs

        self.cfg, self.seed = cfg, seed
        self.schedule = schedule if schedule is not None else load_schedule(cfg.curriculum, total_steps)
        self.envs: dict[int, Any] = {}  # source index -> Env (live sources)
        self.static: dict[int, dict[str, list[dict]]] = {}  # source index -> bin -> records
        self._by_name: dict[str, Any] = dict(env_objects or {})
        for i, s in enumerate(cfg.sources):
            if s.env:
                self.envs[i] = self._by_name.get(s.env) or envs.make(s.env, **s.params)
                self._by_name.setdefault(s.env, self.envs[i])
            else:
                bins: dict[str | None, list[dict]] = {}
                for rec in load_split(s.data, s.split):
                    label = None
                    if self.schedule is not None:
                        meta = rec.get("meta") or {}
                        if self.schedule.key not in meta:
                            raise ValueError(f"data source {s.data}: record {rec.get('id')} has no "
                                             f"meta.{self.schedule.key}, the curriculum's bin field")
                        label = meta[self.schedule.key]  # null: in no bin (e.g. a pass rate between bins)
                    bins.setdefault(label, []).append(rec)
                if not bins:
                    raise ValueError(f"data source {s.data}: no records")
                self.static[i] = bins
        self.live_names = [cfg.sources[i].env for i in self.envs]
        self.controller = controller
        if self.controller is None and cfg.adaptive.enabled:
            from envs.gym.adaptive import AdaptiveDifficulty

            a = cfg.adaptive
            self.controller = AdaptiveDifficulty(
                self.live_names, rollouts_per_problem, tau_acc=a.tau_acc, min_samples_factor=a.min_samples_factor,
                window=a.window, weights=[cfg.sources[i].weight for i in self.envs], seed=seed)
        self._live_source = {cfg.sources[i].env: i for i in self.envs}

    # ------------------------------------------------------------------ drawing

    def sample(self, step: int, n: int) -> list[Item]:
        rng = random.Random(derive_seed(self.seed, "sampler", step))
        sources = self.cfg.sources
        if self.controller is not None:  # the controller mixes the live envs itself: one "live" slot
            slots = [i for i in self.static] + ["live"]
            weights = [sources[i].weight for i in self.static] + [sum(sources[i].weight for i in self.envs)]
        else:
            slots, weights = list(range(len(sources))), [s.weight for s in sources]
        bin_weights = self.schedule.weights(step) if self.schedule is not None else None
        out = []
        for k in range(n):
            slot = rng.choices(slots, weights)[0]
            gen_seed = derive_seed(self.seed, "problem", step, k)
            if slot == "live":
                name, difficulty = self.controller.sample(rng)
                i = self._live_source[name]
                out.append(Item(self.envs[i].generate(seed=gen_seed, difficulty=int(difficulty)), i, str(difficulty)))
            elif slot in self.envs:
                difficulty, label = sources[slot].difficulty, None
                if bin_weights:
                    label = _pick_bin(rng, bin_weights, sources[slot].bins)
                    difficulty = int(sources[slot].bins[label])
                out.append(Item(self.envs[slot].generate(seed=gen_seed, difficulty=difficulty), slot, label))
            else:
                bins = self.static[slot]
                label = _pick_bin(rng, bin_weights, bins) if bin_weights else None
                pool = bins[label]
                out.append(Item(pool[rng.randrange(len(pool))], slot, label))
        return out

    def env_of(self, item: Item):
        """The Env that scores this item (live: the configured instance; static: the registered env)."""
        if item.source in self.envs:
            return self.envs[item.source]
        name = item.record["env"]
        if name not in self._by_name:
            import envs

            self._by_name[name] = envs.make(name)
        return self._by_name[name]

    # ------------------------------------------------------------------ feedback and state

    def update(self, results: list[tuple[Item, bool]]) -> None:
        """Feed every rollout's correctness to the controller (live sources only)."""
        if self.controller is None:
            return
        for item, correct in results:
            if item.source in self.envs:
                self.controller.update(self.cfg.sources[item.source].env, int(item.record["difficulty"]), bool(correct))

    def difficulties(self) -> dict[str, int]:
        """Current top difficulty per live env (for the log)."""
        if self.controller is not None:
            return {name: int(self.controller.max_difficulty(name)) for name in self.live_names}
        # with a curriculum a live source's difficulty follows the bins (logged as curriculum fractions)
        return {self.cfg.sources[i].env: self.cfg.sources[i].difficulty for i in self.envs
                if self.schedule is None or not self.cfg.sources[i].bins}

    def state_dict(self) -> dict:
        return {"controller": self.controller.state_dict() if self.controller is not None else None}

    def load_state_dict(self, state: dict) -> None:
        if self.controller is not None and state.get("controller") is not None:
            self.controller.load_state_dict(state["controller"])


def _pick_bin(rng: random.Random, weights: dict[str, float], bins: dict) -> str:
    """A bin drawn by the schedule's weights, among the bins this source has. A phase whose bins
    the source lacks entirely is a config error, not something to skip silently."""
    labels = [b for b in sorted(weights) if weights[b] > 0 and b in bins]
    if not labels:
        raise ValueError(f"curriculum weights {weights} select no bin this source has ({sorted(bins)})")
    return rng.choices(labels, [weights[b] for b in labels])[0]
