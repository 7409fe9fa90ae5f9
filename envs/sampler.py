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
sources; else the difficulty is the source's `bins[<curriculum bin>]`, its fixed `difficulty`, or
uniform in [difficulty, difficulty_max] (a static distribution, the baseline RLVE argues against).
A pool ({family: gym, count: 16, exclude: [...]}) adds live sources for many envs at once without
naming them (RLVE's environment-count scaling and held-out environments).

The controller judges once per batch, after every rollout of it has been recorded (the official
RLVE implementation does the same; envs/gym/adaptive.py): update() counts the results it gets,
and the batch is judged when all n x rollouts_per_problem results of the last sample() are in,
or at the latest when the next batch is drawn.

A static source names a split of a generate.py dataset (`{data: runs/data/puzzles, split: train_rl}`);
a reference that resolves to a test split is refused (utils/records.py: resolve_split).

Draws are with replacement from a per-step RNG (no cursor to save), so a resumed run draws the
same prompts as an uninterrupted one.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, List, Protocol

from utils.config import field
from utils.records import DataError, DataRefError, derive_seed, prompt_problem, read_jsonl_numbered, resolve_split


@dataclass
class Source:
    env: str = field("", help="live env: a registered name; problems are generated on the fly")
    params: dict = field({}, help="live env: constructor params, e.g. {width: 7, height: 7, level: hard} or the "
                                  "puzzle reward weights w_exact (default 1.0) and w_completion (0.5), which the "
                                  "puzzle-to-math paper does not publish")
    difficulty: int = field(0, help="live env: difficulty when neither the controller nor a curriculum sets it", ge=0)
    difficulty_max: int = field(-1, help="live env: with it, d is drawn uniformly from [difficulty, difficulty_max] "
                                         "for every problem (a static difficulty distribution, RLVE's baseline); "
                                         "-1: d = difficulty", ge=-1)
    bins: dict = field({}, help="live env + curriculum: the difficulty of each curriculum bin, e.g. "
                                "{easy: 0, medium: 4, hard: 8}")
    data: str = field("", help="static: records from generate.py: a directory of shards (name the split), a "
                               "JSONL file or a glob. A test split is refused: training never reads one")
    split: str = field("", help="static: the split to read from a directory of shards, e.g. train_rl "
                                "(reads train_rl-*.jsonl only); required for a directory")
    weight: float = field(1.0, help="share of the prompts drawn from this source (the env mix)", gt=0)


@dataclass
class AdaptiveConfig:
    enabled: bool = field(False, help="RLVE adaptive difficulty over the live sources (envs/gym/adaptive.py)")
    tau_acc: float = field(0.9, help="accuracy at the current top difficulty that unlocks the next (RLVE)", gt=0, le=1)
    min_samples_factor: int = field(8, help="rollouts seen at a difficulty before it can be judged, in units "
                                            "of rollouts per problem (RLVE)", ge=1)
    window: int = field(4, help="width of the sampled difficulty window [l, h]: h - l + 1 <= window (RLVE)", ge=1)


@dataclass
class CurriculumConfig:
    path: str = field("", help="a curriculum: a name in configs/curricula/ (classic, reverse, ...) or a "
                               "YAML path; empty: no curriculum")
    total_steps: int = field(0, help="steps the schedule spans; 0: rl.steps", ge=0)


@dataclass
class PoolConfig:
    family: str = field("", help="live sources for many envs at once: a registry family (gym, puzzles, compose, "
                                 "code); empty: no pool")
    count: int = field(0, help="how many of the family's envs (after exclude), picked by seed; 0: all of them. "
                               "Nested: the 4 picked contain the 1 picked with the same seed, and so on (RLVE's "
                               "environment-count scaling)", ge=0)
    seed: int = field(0, help="which envs count picks (by a hash of seed and name, so adding an env to the "
                              "registry moves at most one env in or out of a pick)", ge=0)
    exclude: List[str] = field([], help="envs never drawn: RLVE's held-out environments")
    difficulty: int = field(0, help="as Source.difficulty, for every pool env", ge=0)
    difficulty_max: int = field(-1, help="as Source.difficulty_max, for every pool env (-1: d = difficulty)", ge=-1)
    weight: float = field(1.0, help="share of the prompts drawn from each pool env", gt=0)

    def names(self) -> list[str]:
        """The picked envs, in pick order."""
        import hashlib
        import importlib

        import envs

        package = next(pkg for pkg in envs.FAMILIES if pkg.rsplit(".", 1)[-1] == self.family)
        family = getattr(importlib.import_module(package), envs.FAMILIES[package])
        pool = sorted((n for n in family if n not in set(self.exclude)),
                      key=lambda n: hashlib.sha256(f"{self.seed}:{n}".encode()).hexdigest())
        return pool[:self.count] if self.count else pool

    def sources(self) -> list[Source]:
        if not self.family:
            return []
        return [Source(env=n, difficulty=self.difficulty, difficulty_max=self.difficulty_max, weight=self.weight)
                for n in self.names()]

    def validate(self, prefix: str = "data.pool"):
        import envs

        if not self.family:
            if self.count or self.exclude:
                yield f"{prefix}.family", "count and exclude need a family"
            return
        families = [pkg.rsplit(".", 1)[-1] for pkg in envs.FAMILIES]
        if self.family not in families:
            yield f"{prefix}.family", f"unknown family {self.family!r}; one of {', '.join(families)}"
            return
        unknown = sorted(set(self.exclude) - set(envs.REGISTRY))
        if unknown:
            yield f"{prefix}.exclude", f"unknown envs {unknown}"
        available = len(self.names())
        if self.count > available:
            yield f"{prefix}.count", (f"{self.count} envs needed, {available} available (the {self.family} family's "
                                      f"envs after exclude, {len(set(self.exclude))} excluded)")
        if self.difficulty_max != -1 and self.difficulty_max < self.difficulty:
            yield f"{prefix}.difficulty_max", "needs difficulty <= difficulty_max (or difficulty_max: -1)"


@dataclass
class SamplerConfig:
    sources: List[Source] = field([], help="prompt sources: each {env, params, difficulty} or {data}, with a weight")
    pool: PoolConfig = field(PoolConfig(), help="live sources for a whole env family (or a seeded subset of it)")
    adaptive: AdaptiveConfig = field(AdaptiveConfig(), help="adaptive difficulty controller")
    curriculum: CurriculumConfig = field(CurriculumConfig(), help="difficulty-bin schedule")

    def validate(self, prefix: str = "data"):
        import envs

        if not self.sources and not self.pool.family:
            yield f"{prefix}.sources", "no prompt sources: give at least one {env: ...} or {data: ...}, or a pool"
        pool_errors = list(self.pool.validate(f"{prefix}.pool"))
        yield from pool_errors
        live = [s.env for s in self.pool.sources()] if self.pool.family and not pool_errors else []
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
            if s.difficulty_max != -1 and s.difficulty_max < s.difficulty:
                yield f"{key}.difficulty_max", "must be >= difficulty (or -1 for a fixed difficulty)"
            live += [s.env] if s.env else []
        if self.adaptive.enabled and not live and not pool_errors:  # a bad pool is its own one error
            yield f"{prefix}.adaptive.enabled", "needs at least one live env source"
        if self.adaptive.enabled and len(set(live)) != len(live):
            yield f"{prefix}.adaptive.enabled", "each live env may appear once (the controller keys on the name)"
        if self.adaptive.enabled and (self.pool.difficulty_max != -1 or any(s.difficulty_max != -1 for s in self.sources)):
            yield f"{prefix}.adaptive.enabled", "the controller sets the difficulties: drop difficulty_max"
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


def record_problem(rec: Any) -> str | None:
    """What makes a static RL record unusable (no prompt, no env to score it with, a difficulty
    that is not a number), or None."""
    import envs

    bad = prompt_problem(rec)
    if bad:
        return bad
    env = rec.get("env")
    if not isinstance(env, str) or (env not in envs.REGISTRY and not env.startswith(envs.RG_PREFIX)):
        return f"`env` {env!r} is not a registered env (it scores the record)"
    if not isinstance(rec.get("difficulty") or 0, int):
        return f"`difficulty` {rec['difficulty']!r} is not an integer"
    return None


class Schedule(Protocol):
    """What the sampler needs from a curriculum (utils.curriculum.Schedule): the record meta field
    holding a record's bin, and sampling weights over bins at an RL step."""

    key: str

    def weights(self, step: int) -> dict[str, float]: ...


@dataclass
class Item:
    record: dict
    source: int  # index into PromptSampler.sources (cfg.sources, then the pool's)
    bin: str | None = None


def load_schedule(cfg: CurriculumConfig, total_steps: int) -> Schedule | None:
    if not cfg.path:
        return None
    from utils.curriculum import load

    return load(cfg.path, total_steps=cfg.total_steps or total_steps)


class PromptSampler:
    def __init__(self, cfg: SamplerConfig, *, seed: int, rollouts_per_problem: int, total_steps: int,
                 schedule: Schedule | None = None, controller: Any = None, env_objects: dict | None = None,
                 check: Callable[[dict], str | None] | None = None):
        """schedule / controller / env_objects override what cfg would build (tests, custom envs).
        Every static record is checked as it is loaded (record_problem, then `check`: train.py's
        prompt length), so one bad record is a DataError naming its file and line at startup, not
        a crash at the step that draws it (and again at every resume)."""
        import envs

        self.cfg, self.seed = cfg, seed
        self.sources = list(cfg.sources) + cfg.pool.sources()
        self.schedule = schedule if schedule is not None else load_schedule(cfg.curriculum, total_steps)
        self.envs: dict[int, Any] = {}  # source index -> Env (live sources)
        self.static: dict[int, dict[str, list[dict]]] = {}  # source index -> bin -> records
        self._by_name: dict[str, Any] = dict(env_objects or {})
        for i, s in enumerate(self.sources):
            if s.env:
                self.envs[i] = self._by_name.get(s.env) or envs.make(s.env, **s.params)
                self._by_name.setdefault(s.env, self.envs[i])
            else:
                bins: dict[str | None, list[dict]] = {}
                for f, n, rec in ((f, n, rec) for f in resolve_split(s.data, s.split)
                                  for n, rec in read_jsonl_numbered(f)):
                    bad = record_problem(rec) or (check(rec) if check is not None else None)
                    if bad:
                        raise DataError(f"{f}:{n}: {bad}")
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
        self.live_names = [self.sources[i].env for i in self.envs]
        self.controller = controller
        if self.controller is None and cfg.adaptive.enabled:
            from envs.gym.adaptive import AdaptiveDifficulty

            a = cfg.adaptive
            self.controller = AdaptiveDifficulty(
                self.live_names, rollouts_per_problem, tau_acc=a.tau_acc, min_samples_factor=a.min_samples_factor,
                window=a.window, weights=[self.sources[i].weight for i in self.envs], seed=seed)
        self._live_source = {self.sources[i].env: i for i in self.envs}
        self._expected = self._received = 0  # rollouts of the last drawn batch: due, and recorded so far

    # ------------------------------------------------------------------ drawing

    def sample(self, step: int, n: int) -> list[Item]:
        if self.controller is not None:
            if self._received:  # the last batch's results came in incompletely: judge what did
                self.controller.end_batch()
            self._expected, self._received = n * self.controller.rollouts_per_problem, 0
        rng = random.Random(derive_seed(self.seed, "sampler", step))
        sources = self.sources
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
                if sources[slot].difficulty_max >= 0:  # a static distribution
                    difficulty = rng.randint(difficulty, sources[slot].difficulty_max)
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
        """Feed rollouts' correctness to the controller (live sources only), in any number of
        calls per batch (train.py makes one per rank); the batch is judged once all its rollouts
        are in."""
        if self.controller is None:
            return
        for item, correct in results:
            self._received += 1
            if item.source in self.envs:
                self.controller.update(self.sources[item.source].env, int(item.record["difficulty"]), bool(correct))
        if self._received >= self._expected:
            self.controller.end_batch()
            self._received = 0

    def difficulties(self) -> dict[str, int]:
        """Current top difficulty per live env (for the log)."""
        if self.controller is not None:
            return {name: int(self.controller.max_difficulty(name)) for name in self.live_names}
        # with a curriculum a live source's difficulty follows the bins (logged as curriculum fractions)
        return {self.sources[i].env: self.sources[i].difficulty for i in self.envs
                if self.schedule is None or not self.sources[i].bins}

    def state_dict(self) -> dict:
        return {"controller": self.controller.state_dict() if self.controller is not None else None,
                "batch": [self._expected, self._received]}

    def load_state_dict(self, state: dict) -> None:
        if self.controller is not None and state.get("controller") is not None:
            self.controller.load_state_dict(state["controller"])
            self._expected, self._received = state.get("batch", [0, 0])


def _pick_bin(rng: random.Random, weights: dict[str, float], bins: dict) -> str:
    """A bin drawn by the schedule's weights, among the bins this source has. A phase whose bins
    the source lacks entirely is a config error, not something to skip silently."""
    labels = [b for b in sorted(weights) if weights[b] > 0 and b in bins]
    if not labels:
        raise ValueError(f"curriculum weights {weights} select no bin this source has ({sorted(bins)})")
    return rng.choices(labels, [weights[b] for b in labels])[0]
