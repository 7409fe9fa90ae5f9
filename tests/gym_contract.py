"""The gym env contract as one function, run on every discovered env (tests/test_gym.py) and on
envs dropped into a scratch package (tests/test_gym_discovery.py): what a new env must satisfy
before it can join a training mix. It asserts; a failure names the env and what broke."""
from __future__ import annotations

import json
import random
import sys
import time

import envs
from envs.base import Reward
from envs.gym.base import CATEGORIES, GymEnv, _load_problem, one_int

DIFFICULTIES = (0, 1, 3, 8)
HIGH = 30  # every generator must be quick here (polynomial generators)
HIGHER = 60  # integer answers are compared exactly here, far beyond 2**53
GARBAGE = ["", "garbage", "<answer></answer>", "<answer>  \n </answer>", "<answer>garbage ### ?</answer>",
           "<answer>\x00\ufffd</answer>", "<answer>1 2 3", "</answer>1<answer>"]
LONG = ("1 " * 50_000, "1\n" * 50_000, "(" * 20_000, "-" + "9" * 3999)
FUZZ_ALPHABET = "0123456789 -+.,/\n()^*xABCDURL#.[]'\"\r\t"
GEN_CPU_S = 3.0  # CPU seconds one generation may take at HIGH
SCORE_CPU_S = 2.0  # CPU seconds one score may take on hostile input


def score(env: GymEnv, rec: dict, text: str) -> Reward:
    return env.score(rec, text)


def inner(rec: dict) -> str | None:
    return None if rec["answer"] is None else rec["answer"][len("<answer>"):-len("</answer>")]


def integer_gold(rec: dict) -> int | None:
    """The gold answer if it is one integer (the env is then an integer-answer env), else None."""
    try:
        return one_int(inner(rec))
    except (TypeError, ValueError):
        return None


def assert_off_by_one_is_wrong(env: GymEnv, rec: dict, gold: int) -> None:
    for near in (gold - 1, gold + 1):
        rew = score(env, rec, f"<answer>{near}</answer>")
        assert not rew.correct and rew.value < 1.0, (rec["id"], "gold +- 1 scored", rew.value)


def check_declaration(env: GymEnv) -> None:
    cls = type(env)
    name = env.name
    assert isinstance(env, GymEnv) and name and isinstance(name, str), cls
    assert env.category in CATEGORIES, (name, "category must be one of", CATEGORIES)
    assert env.reward_range == (-1.0, 1.0), name
    doc = cls.__doc__ or ""
    family = "".join(c.__doc__ or "" for c in cls.__mro__[1:-2]) + (sys.modules[cls.__module__].__doc__ or "")
    assert "d:" in doc, (name, "the class docstring says what d controls ('d: ...')")
    assert "reward" in (doc + family).lower(), (name, "the reward is documented in the class or family docstring")
    sizes = [env.size(d) for d in range(13)]
    assert all(isinstance(s, int) for s in sizes) and sizes == sorted(sizes) and sizes[8] > sizes[0], (name, sizes)


def check_records(env: GymEnv) -> dict[int, dict]:
    name, recs = env.name, {}
    for d in DIFFICULTIES:
        rec = env.generate(seed=11, difficulty=d)
        assert env.generate(seed=11, difficulty=d) == rec, (name, d, "same (seed, d) -> same record")
        assert rec["env"] == name and rec["difficulty"] == d and rec["id"] == f"{name}-d{d}-11"
        assert json.loads(json.dumps(rec)) == rec, (name, "records are plain JSON")
        assert set(rec["meta"]) == {"seed", "problem"} and isinstance(json.loads(rec["meta"]["problem"]), dict)
        assert "<answer>" in rec["prompt"] and "</answer>" in rec["prompt"], (name, "the prompt gives the format")
        if rec["answer"] is not None:
            rew = score(env, rec, rec["answer"])
            assert rew.value == 1.0 and rew.correct, (name, d, "the gold answer scores 1", rec["answer"][:200])
        recs[d] = rec
    prompts = {env.generate(seed=s, difficulty=3)["prompt"] for s in range(6)}
    assert len(prompts) > 1, (name, "different seeds give different problems")
    return recs


def fuzz_texts(rng: random.Random, gold: str | None, n: int) -> list[str]:
    gold = gold or "1 2 3"
    out = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            out.append("".join(rng.choice(FUZZ_ALPHABET + "<>/answer") for _ in range(rng.randrange(60))))
        elif kind == 1:
            out.append("<answer>" + "".join(rng.choice(FUZZ_ALPHABET) for _ in range(rng.randrange(80))) + "</answer>")
        elif kind == 2:
            out.append("<answer>" + " ".join(str(rng.randint(-5, 40)) for _ in range(rng.randrange(30))) + "</answer>")
        else:  # the gold answer with a few random edits
            s = gold
            for _ in range(rng.randint(1, 3)):
                at = rng.randrange(len(s) + 1)
                s = s[:at] + "".join(rng.choice(FUZZ_ALPHABET) for _ in range(rng.randrange(3))) + s[at + rng.randrange(3):]
            out.append(f"<answer>{s}</answer>")
    return out


def check_hostile_answers(env: GymEnv, recs: dict[int, dict], fuzz: int = 120) -> None:
    name = env.name
    rng = random.Random(name)
    for d in (0, 3):
        for junk in GARBAGE:
            rew = score(env, recs[d], junk)
            assert rew.value == -1.0 and not rew.correct, (name, junk, "unparsable scores -1")
    for rec in recs.values():
        for text in fuzz_texts(rng, inner(rec), fuzz // len(recs)):
            rew = score(env, rec, text)
            assert -1.0 <= rew.value <= 1.0 and isinstance(rew.correct, bool), (name, text)
            assert rew.correct == (rew.value >= env.threshold), (name, text)
        # scorers share the cached parsed problem, so they must not change it
        assert _load_problem(rec["meta"]["problem"]) == json.loads(rec["meta"]["problem"]), (name, "problem mutated")
    rec = recs[8]
    for junk in LONG:
        t0 = time.process_time()
        assert -1.0 <= score(env, rec, f"<answer>{junk}</answer>").value <= 1.0
        assert time.process_time() - t0 < SCORE_CPU_S, (name, junk[:10], "scoring hostile output is bounded")


def check_high_difficulty(env: GymEnv) -> None:
    name = env.name
    t0 = time.process_time()
    rec = env.generate(seed=0, difficulty=HIGH)
    assert time.process_time() - t0 < GEN_CPU_S, (name, f"generation at d={HIGH} is quick")
    assert rec["answer"] is None or score(env, rec, rec["answer"]).correct, (name, HIGH)
    if integer_gold(rec) is not None:  # an integer-answer env: compared exactly, even far beyond 2**53
        assert_off_by_one_is_wrong(env, rec, integer_gold(rec))
        rec = env.generate(seed=1, difficulty=HIGHER)
        if integer_gold(rec) is not None:
            assert_off_by_one_is_wrong(env, rec, integer_gold(rec))


def check_brick(env: GymEnv) -> None:
    """The RACES hooks, where declared: a typed input, a deterministic step-counted function that
    leaves its input alone, an output of the declared type (or None)."""
    if env.brick_io is None:
        return
    from envs.compose.brick import Counter
    from envs.compose.types import TYPES, conforms

    t_in, t_out = env.brick_io
    assert t_in in TYPES and t_out in TYPES and env.brick_text, (env.name, env.brick_io)
    for d in (0, 2, 5):
        value = env.brick_input(random.Random(d), d)
        assert conforms(value, t_in), (env.name, value)
        before = json.dumps(value)
        counter = Counter(limit=10 ** 9, timeout_s=60)
        out = env.brick_apply(value, counter)
        assert json.dumps(value) == before, (env.name, "brick_apply mutated its input")
        assert out is None or conforms(out, t_out), (env.name, out)
        assert counter.steps > 0, (env.name, "brick_apply ticks the counter")
        assert env.brick_apply(value, Counter(limit=10 ** 9, timeout_s=60)) == out, (env.name, "deterministic")


def check_gym_env(env: GymEnv) -> None:
    """The whole contract for one gym env instance."""
    check_declaration(env)
    recs = check_records(env)
    check_hostile_answers(env, recs)
    check_high_difficulty(env)
    check_brick(env)


def check_registered(name: str) -> None:
    env = envs.make(name)
    assert env.name == name
    check_gym_env(env)
