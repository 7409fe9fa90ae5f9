"""The four code environments on the built-in problems and on hand-written answers, including
wrong answers that look right."""
from __future__ import annotations

import random

import pytest

import envs
from envs.code import CODE
from envs.code.problem import Problem, builtin_problems, last_block, parse_args, parse_value, same
from utils.sandbox import run

NAMES = sorted(CODE)


def test_builtin_outputs_are_what_f_returns():
    for kind, problems in builtin_problems().items():
        assert len({p.level for p in problems}) == 3
        for p in problems:
            expr = "[" + ", ".join(f"repr(f({c['input']}))" for c in p.cases) + "]"
            r = run(p.full_code(), expr)
            assert r.ok and parse_value(r.value) == [c["output"] for c in p.cases], p.name


@pytest.mark.parametrize("name", NAMES)
def test_generate_is_deterministic_and_gold_scores(name):
    env = envs.make(name)
    for difficulty in (0, 1, 2, 7):
        for seed in range(6):
            rec = env.generate(seed, difficulty)
            assert rec == env.generate(seed, difficulty) and rec["env"] == name
            assert "```" in rec["prompt"] or name == "induction"
            rew = envs.score(rec, "Let me think.\n" + rec["answer"])
            assert rew.correct and rew.value == 1.0 and rew.parts == {"correct": 1.0, "format": 1.0}, rec["id"]
            assert not envs.score(rec, "no answer block").correct
            assert envs.score(rec, "no answer block").parts["format"] == 0.0


def record(name: str, code: str, cases: list[tuple[str, str]], **kw) -> dict:
    problem = Problem(code=code, cases=[{"input": i, "output": o} for i, o in cases], message="hint", **kw)
    return envs.make(name).record(problem, random.Random(0), 0, f"{name}-hand", {"source": {"kind": "test"}})


def answer(tag: str, body: str) -> str:
    return f"I reason here.\n```{tag}\n{body}\n```"


def test_deduction_wrong_answers_that_look_right():
    rec = record("deduction", "def f(x):\n    return x", [("1", "1")])
    rec["meta"]["case"] = 0
    good = ["1", " 1 ", "(1)", "0x1"]
    bad = ["'1'", "True", "1.0", "[1]", "None", "1, ", "__import__('os').system('touch /tmp/pwned')", "f(1)",
           "1 + 0", "x" * 30_000]
    for text in good:
        assert envs.score(rec, answer("output", text)).correct, text
    for text in bad:
        assert not envs.score(rec, answer("output", text)).correct, text
    rec2 = record("deduction", "def f(x):\n    return [x, (x, 'a'), {'k': None}]", [("2", "[2, (2, 'a'), {'k': None}]")])
    rec2["meta"]["case"] = 0
    assert envs.score(rec2, answer("output", "[2, (2, 'a'), {'k': None}]")).correct
    assert not envs.score(rec2, answer("output", "[2, [2, 'a'], {'k': None}]")).correct
    assert not envs.score(rec2, answer("output", "[2, (2, 'a'), {'k': 0}]")).correct
    rec3 = record("deduction", "def f(x):\n    return {x: 'a'}, {x}", [("1", "({1: 'a'}, {1})")])
    rec3["meta"]["case"] = 0
    assert envs.score(rec3, answer("output", "({1: 'a'}, {1})")).correct
    for text in ("({True: 'a'}, {1})", "({1: 'a'}, {True})", "({1.0: 'a'}, {1})"):
        assert not envs.score(rec3, answer("output", text)).correct, text
    # the last block counts, and a block must be closed and tagged exactly
    assert envs.score(rec, answer("output", "7") + "\n" + answer("output", "1")).correct
    assert not envs.score(rec, answer("output", "1") + "\n" + answer("output", "7")).correct
    assert not envs.score(rec, "```output\n1\n").correct
    assert not envs.score(rec, answer("output3", "1")).correct


def test_abduction_wrong_answers_that_look_right():
    rec = record("abduction", "def f(x):\n    return x if not isinstance(x, str) else x.upper()", [("1", "1")])
    for text in ("1", " 1", "(1)"):
        assert envs.score(rec, answer("input", text)).correct, text
    for text in ("'1'", "True", "1.0", "1, 2", "x=1", "*[1]", "__import__('os')", "", "1 if True else 2"):
        rew = envs.score(rec, answer("input", text))
        assert not rew.correct, text
    assert envs.score(rec, answer("input", "__import__('os')")).parts["format"] == 0.0
    loop = record("abduction", "def f(x):\n    while x:\n        pass\n    return x", [("0", "0")])
    assert envs.score(loop, answer("input", "0")).correct
    assert not envs.score(loop, answer("input", "1")).correct  # f runs past the timeout: bounded, wrong


def test_induction_wrong_answers_that_look_right():
    cases = [("1", "2"), ("2", "4"), ("3", "6"), ("10", "20"), ("-4", "-8")]
    rec = record("induction", "def f(x):\n    return 2 * x", cases)
    assert len(rec["meta"]["shown"]) == 3 and "hidden" in rec["prompt"]
    shown = [cases[i] for i in rec["meta"]["shown"]]
    lookup = "def f(x):\n    return {" + ", ".join(f"{i}: {o}" for i, o in shown) + "}.get(x, 0)"
    wrong = ["def f(x):\n    return str(2 * x)", "def f(x):\n    return 2.0 * x", lookup,
             "def f(x):\n    print(2 * x)", "def f(x):\n    while True:\n        pass",
             "def f(x):\n    raise ValueError", "import os\nos.system('true')\ndef f(x):\n    return 2 * x",
             "def g(x):\n    return 2 * x", "def f(x):\n    return x + x if x < 5 else 0"]
    for code in wrong:
        assert not envs.score(rec, answer("python", code)).correct, code
    for code in ("def f(x):\n    return x + x", "import math\n\ndef f(x):\n    return int(math.copysign(abs(2 * x), x))",
                 "def helper(v):\n    return v * 2\n\ndef f(x):\n    return helper(x)\n\nprint(f(3))"):
        assert envs.score(rec, answer("python", code)).correct, code
    assert envs.score(rec, answer("python", "def f(x):\n    return 2 * x") + "\nand in Python:\n"
                      + answer("python", "def f(x):\n    return 3 * x")).correct is False


def test_fuzzing_answers():
    code = "def f(xs):\n    return sorted(xs)[:2]"
    pre = "def pre_test_f(xs):\n    return isinstance(xs, list) and all(isinstance(x, int) for x in xs)"
    test = "def test_f(xs):\n    return len(f(xs)) == len(xs)"
    rec = record("fuzzing", code, [("[1]", "[1]")], pre_test=pre, test=test, fuzz_input="[3, 2, 1]")
    assert envs.score(rec, rec["answer"]).correct
    assert envs.score(rec, answer("input", "[0, 0, 0, 0]")).correct
    for text in ("[1, 2]", "['a', 'b', 'c']", "(1, 2, 3)", "[1, 2, 3], 4", "None"):
        assert not envs.score(rec, answer("input", text)).correct, text
    raising = record("fuzzing", code, [("[1]", "[1]")], pre_test=pre,
                     test="def test_f(xs):\n    return 1 / (len(xs) - 3) > 0", fuzz_input="[1, 2, 3, 4, 5]")
    assert not envs.score(raising, answer("input", "[1, 2, 3]")).correct  # the test raised: not a failure found


def test_helpers():
    assert last_block("a\n```python\nx = 1\n```\n```python\ny = 2\n```", "python") == "y = 2\n"
    assert last_block("```python\nunclosed", "python") is None and last_block(None, "python") is None
    assert parse_args("[1, 2], 'a'") == ([1, 2], "a") and parse_args("") == ()
    assert parse_args("1), (2") is None and parse_args("a") is None and parse_args("k=1") is None
    assert parse_args("[" * 100_000) is None and parse_args("(" * 5000 + ")" * 5000) is None
    assert same({"a": [1, (2,)]}, {"a": [1, (2,)]}) and not same(1, True) and not same([1], (1,))
    assert same({1: "a", (2, "b"): None}, {(2, "b"): None, 1: "a"}) and same({1, "x"}, {"x", 1})
    assert not same({True: "a"}, {1: "a"}) and not same({1, 2}, {True, 2}) and not same({(1,): 0}, {(1.0,): 0})
    assert not same(frozenset({0}), frozenset({False})) and not same({1: 2}, {1: 2, 3: 4})


def test_bad_limits_are_refused_when_the_env_is_made():
    for bad in ({"timeout_s": 0}, {"memory_mb": -1}, {"shown": 0}):
        with pytest.raises(ValueError):
            envs.make("deduction", **bad)


def test_malformed_records_raise_naming_the_record():
    rec = envs.make("deduction").generate(0)
    del rec["meta"]["case"]
    with pytest.raises(ValueError, match=rec["id"]):
        envs.score(rec, answer("output", "1"))
