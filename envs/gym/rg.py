"""Any reasoning-gym task as an env: `envs.make("rg:sudoku")`.

reasoning-gym (in requirements.txt) describes difficulty
with per-task curricula of a few levels; our integer difficulty d sets every curriculum
attribute to level min(d, its last level) (reasoning-gym's "upper bound" mode, so d picks one
level rather than all levels up to it). The record carries the reasoning-gym entry as JSON,
and scoring calls the task's own score_answer on the text of the last <answer> block: its
score in [0, 1] is the reward, -1 when there is no answer block, `correct` at 1.0. Its
scorers are third-party code, so they run in a killable worker with a time limit.

Two changes to what reasoning-gym would do on its own: the answer's line endings and padding are
normalised first (`normalise`; its sudoku and futoshiki scorers compare strings, so the gold grid
with CRLF line ends or a blank line before it scored 0.89-0.96), and number_sorting compares
numbers exactly (its scorer accepts every number within an absolute tolerance of 1).
"""
from __future__ import annotations

import dataclasses
import json

from envs.base import Env, Reward, extract_answer
from utils.timeout import TimeoutWorker

SCORE_TIMEOUT_S = 10.0
WORKER = TimeoutWorker(memory_mb=4096)  # shared: envs.score() builds a new env for every call
_SCORERS: dict = {}  # task -> a dataset instance whose score_answer we call (per process)


def _import():
    try:
        from reasoning_gym import factory  # importing the package registers its ~100 tasks
    except ImportError:
        raise ImportError("rg: envs need reasoning-gym: pip install -r requirements.txt") from None
    return factory


def _jsonable(x):
    if hasattr(x, "item"):  # numpy scalars
        return x.item()
    if isinstance(x, (set, frozenset)):
        return sorted(x, key=repr)
    return repr(x)


def normalise(answer: str, gold) -> str:
    """CRLF and CR line ends to LF, trailing spaces of each line dropped, outer whitespace
    stripped (each end on its own): each step only when the gold answer is unchanged by it, so a task whose answer
    holds such whitespace (futoshiki's blank constraint lines are padded with spaces) keeps it."""
    if not isinstance(gold, str):
        return answer
    for step in (lambda t: t.replace("\r\n", "\n").replace("\r", "\n"),
                 lambda t: "\n".join(line.rstrip() for line in t.split("\n")),
                 str.lstrip, str.rstrip):
        if step(gold) == gold:
            answer = step(answer)
    return answer


def _number_sorting_exact(answer: str, entry: dict) -> bool:
    """Every number equals the gold one as a decimal ('2.70' == '2.7'); reasoning-gym's scorer
    has `tolerance = 1`, so ['1', '2'] passed for ['1.5', '2.7']."""
    from decimal import Decimal, InvalidOperation

    try:
        got = json.loads(answer.replace("'", '"'))
        gold = json.loads(entry["answer"].replace("'", '"'))
        return (isinstance(got, list) and len(got) == len(gold)
                and all(Decimal(str(a).strip()) == Decimal(str(b)) for a, b in zip(got, gold)))
    except (ValueError, TypeError, InvalidOperation, KeyError, AttributeError):
        return False


EXACT = {"number_sorting": _number_sorting_exact}  # task -> check a full score must also pass


def rg_score(task: str, answer: str, entry: dict) -> float:
    """reasoning-gym's own score for one answer (runs in the worker), 0 where it gave full marks
    but our exact check for the task disagrees."""
    if task not in _SCORERS:
        dataset_cls, config_cls = _import().DATASETS[task]
        _SCORERS[task] = dataset_cls(config=config_cls())
    score = float(_SCORERS[task].score_answer(answer, entry))
    if score >= 1.0 and task in EXACT and not EXACT[task](answer, entry):
        return 0.0
    return score


class ReasoningGymEnv(Env):
    reward_range = (-1.0, 1.0)

    def __init__(self, task: str, **config):
        factory = _import()
        if task not in factory.DATASETS:
            raise KeyError(f"unknown reasoning-gym task {task!r}; known: {', '.join(sorted(factory.DATASETS))}")
        self.task, self.config, self.name = task, config, f"rg:{task}"
        self._factory = factory

    def levels(self) -> int:
        """Number of curriculum levels (1 for a task without a curriculum)."""
        if not self._factory.has_curriculum(self.task):
            return 1
        return max(len(a.levels) for a in self._factory.create_curriculum(self.task).attributes.values())

    def size(self, difficulty: int) -> int:
        return min(difficulty, self.levels() - 1) + 1

    def dataset(self, seed: int, difficulty: int):
        from reasoning_gym.coaching.base_curriculum import DefaultCurriculumContext, RangeAttributeMode

        dataset_cls, config_cls = self._factory.DATASETS[self.task]
        fields = {f.name for f in dataclasses.fields(config_cls)}
        base = {k: v for k, v in (("seed", seed), ("size", 1)) if k in fields}
        if self._factory.has_curriculum(self.task):
            curriculum = self._factory.create_curriculum(self.task)
            curriculum.set_global_level(difficulty)  # clamps each attribute to its last level
            cfg = curriculum.generate_configuration(base, DefaultCurriculumContext(mode=RangeAttributeMode.UPPER_BOUND))
            cfg = dataclasses.replace(cfg, **self.config)  # explicit params win over the curriculum
        else:
            cfg = config_cls(**base, **self.config)
        return dataset_cls(config=cfg)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        if not isinstance(difficulty, int) or difficulty < 0:
            raise ValueError(f"{self.name}: difficulty must be an integer >= 0, got {difficulty!r}")
        entry = self.dataset(seed, difficulty)[0]
        gold = entry.get("answer")
        problem = {"task": self.task, "level": self.size(difficulty) - 1, "entry": entry}
        return {
            "id": f"{self.name}-d{difficulty}-{seed}",
            "env": self.name,
            "difficulty": difficulty,
            "prompt": f"{entry['question'].strip()}\n\nGive your final answer inside <answer></answer>.",
            "answer": None if gold is None else f"<answer>{gold}</answer>",
            "meta": {"seed": seed, "problem": json.dumps(problem, default=_jsonable, separators=(",", ":"))},
        }

    def score(self, record: dict, response: str) -> Reward:
        try:
            problem = json.loads(record["meta"]["problem"])
            entry = problem["entry"]
        except (TypeError, KeyError, ValueError):
            raise ValueError(f"record {record.get('id', '<no id>')}: meta.problem must hold a reasoning-gym entry") from None
        answer = extract_answer(response)
        if answer is None:
            return Reward(value=-1.0, correct=False, parts={"parsed": 0.0})
        try:
            answer = normalise(answer, entry.get("answer"))
            value = WORKER.call(rg_score, self.task, answer, entry, timeout=SCORE_TIMEOUT_S)
        except Exception:  # third-party scorer failed or overran on this answer: unparsable
            value = -1.0
        value = -1.0 if value != value else min(1.0, max(-1.0, value))
        return Reward(value=value, correct=value >= 1.0, parts={"parsed": float(value > -1.0)})
