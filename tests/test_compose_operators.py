"""The six operators through the `races` env: gold scores exact, partial credit is exactly the share
of right states or threads, sort accepts any order that works, select refuses distractors, and
hostile responses score 0 with a reason instead of raising."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.compose.bricks import BRICKS, pool_bricks
from envs.compose.filters import Limits, run_steps
from envs.compose.operators import OPERATORS
from envs.compose.races import make_record
from envs.compose.search import Pool, grow, start
from envs.compose.types import LIST_INT

ALL_OPS = {name: 1.0 for name in OPERATORS}
W = 0.5  # partial-credit weight used throughout


def only(op: str, **kw):
    return envs.make("races", operators={op: 1.0}, partial_weight=W, **kw)


def answer(value) -> str:
    return f"<reasoning>\nwork\n</reasoning>\n<answer>{json.dumps(value)}</answer>"


def gold_of(rec) -> object:
    return json.loads(envs.extract_answer(rec["answer"]))


def chain_of(names, x, x_type=LIST_INT):
    chain = start(x, x_type)
    for n in names:
        chain = grow(BRICKS[n], chain, [], Limits())
        assert not isinstance(chain, str), chain
    return chain


def record_for(op: str, names, x, seed=0):
    pool = Pool(pool_bricks("all"))
    chain = chain_of(names, x)
    problem = OPERATORS[op].build(random.Random(seed), pool, chain)
    assert problem is not None
    return make_record(f"test-{op}", op, chain.size, problem, None)


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_gold_scores_exact_and_records_are_self_contained(op):
    env = only(op)
    assert env.reward_range == (0.0, 1.0 + W)
    for seed in range(15):
        size = 2 + seed % 5
        rec = env.generate(seed, size)
        assert rec == env.generate(seed, size), "same seed, same record"
        assert rec["difficulty"] == size and rec["meta"]["operator"] == op
        rec = json.loads(json.dumps(rec))  # scored from the stored record alone
        meta = rec["meta"]
        assert "steps" in meta and "states" in meta
        if op in ("sort", "select"):
            assert sorted(meta["candidates"]) != [] and set(meta["steps"]) <= set(meta["candidates"])
        rew = envs.score(rec, rec["answer"], env=env)
        assert rew.correct and rew.value == 1.0 + W and rew.parts == {"exact": 1.0, "partial": 1.0}, rew
        default = envs.score(rec, rec["answer"])  # the registry's default env: binary reward
        assert default.correct and default.value == 1.0


@pytest.mark.parametrize("op", ["sequential", "parallel", "branch", "loop"])
def test_one_wrong_value_loses_exactly_its_share(op):
    env = only(op)
    for seed in range(10):
        rec = env.generate(seed, 3)
        gold = gold_of(rec)
        n = len(gold)
        for j in range(n):
            wrong = list(gold)
            wrong[j] = "not it" if gold[j] != "not it" else 12345
            rew = envs.score(rec, answer(wrong), env=env)
            assert not rew.correct and rew.parts["exact"] == 0.0
            assert rew.parts["partial"] == pytest.approx((n - 1) / n)
            assert rew.value == pytest.approx(W * (n - 1) / n)
            assert "1 of" in rew.parts["reason"]


def test_a_wrong_type_is_a_wrong_value():
    rec = record_for("sequential", ["list_sum", "digits"], [3, 4, 5])  # 12, [1, 2]
    assert gold_of(rec) == [12, [1, 2]]
    for bad in ([12.0, [1, 2]], ["12", [1, 2]], [True, [1, 2]]):
        rew = envs.score(rec, answer(bad), env=only("sequential"))
        assert not rew.correct and rew.parts["partial"] == 0.5


def test_sort_accepts_any_order_that_reproduces_the_output():
    # double_each and reverse_list commute: two orders give [6, 10, 12]
    rec = record_for("sort", ["double_each", "reverse_list", "prefix_sums"], [1, 2, 3])
    env = only("sort")
    assert rec["meta"]["candidates"] not in (["double_each", "reverse_list", "prefix_sums"],
                                             ["reverse_list", "double_each", "prefix_sums"])
    for order in (["double_each", "reverse_list", "prefix_sums"], ["reverse_list", "double_each", "prefix_sums"]):
        rew = envs.score(rec, answer(order), env=env)
        assert rew.correct and rew.parts["partial"] == 1.0


def test_sort_wrong_order_gets_the_share_of_states_it_reproduces():
    rec = record_for("sort", ["sort_ascending", "prefix_sums", "reverse_list"], [3, 1, 2])
    assert rec["meta"]["states"] == [[3, 1, 2], [1, 2, 3], [1, 3, 6], [6, 3, 1]]
    rew = envs.score(rec, answer(["sort_ascending", "reverse_list", "prefix_sums"]), env=only("sort"))
    # [1, 2, 3] right; [3, 2, 1] and [3, 5, 6] wrong
    assert not rew.correct and rew.parts["partial"] == pytest.approx(1 / 3) and rew.value == pytest.approx(W / 3)
    for bad, why in ((["sort_ascending", "prefix_sums"], "exactly once"),
                     (["sort_ascending", "prefix_sums", "prefix_sums"], "exactly once"),
                     (["sort_ascending", "prefix_sums", "nope"], "unknown step name"),
                     ([1, 2, 3], "list of step names"), ([["x"], "a", "b"], "list of step names")):
        rew = envs.score(rec, answer(bad), env=only("sort"))
        assert rew.value == 0 and why in rew.parts["reason"], (bad, rew)


def test_select_rejects_distractors_and_accepts_working_subsets():
    rec = record_for("select", ["sort_ascending", "prefix_sums", "reverse_list"], [3, 1, 2], seed=4)
    meta, env = rec["meta"], only("select")
    assert meta["distractors"] and set(meta["candidates"]) == set(meta["steps"]) | set(meta["distractors"])
    assert envs.score(rec, answer(meta["steps"]), env=env).correct
    rejected = 0
    for d in meta["distractors"]:
        for pos in range(len(meta["steps"]) + 1):
            order = meta["steps"][:pos] + [d] + meta["steps"][pos:]
            states, reason = run_steps([BRICKS[n] for n in order], [3, 1, 2], LIST_INT, Limits())
            works = not reason and states[-1] == meta["states"][-1]
            assert envs.score(rec, answer(order), env=env).correct == works
            rejected += not works
    assert rejected > 0
    assert not envs.score(rec, answer(meta["steps"] + meta["steps"][:1]), env=env).correct  # used twice
    # partial credit: the gold states the answered order reproduces, at their positions
    for order, share in ((["sort_ascending", "prefix_sums"], 2 / 3), (["sort_ascending", "reverse_list"], 1 / 3),
                         (["reverse_list", "sort_ascending", "prefix_sums"], 0.0)):
        rew = envs.score(rec, answer(order), env=env)
        assert not rew.correct and rew.parts["partial"] == pytest.approx(share), (order, rew)
    swapped = record_for("select", ["double_each", "reverse_list"], [1, 2, 3])
    assert envs.score(swapped, answer(["reverse_list", "double_each"]), env=env).correct


HOSTILE = ["", "no tags at all", "<answer>", "<answer></answer>", "<answer>{</answer>", "<answer>null</answer>",
           "<answer>true</answer>", "<answer>{\"a\": 1}</answer>", "<answer>[]</answer>",
           "<answer>[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]</answer>", "<answer>[NaN]</answer>",
           "<answer>" + "[" * 5000 + "]" * 5000 + "</answer>", "<answer>" + "[" * 200_000 + "</answer>",
           "<answer>1" + "0" * 10_000 + "</answer>", "<answer>[\"\\ud800\"]</answer>",
           "<answer>[[\"unhashable\"], {\"x\": []}]</answer>", "</answer>[1]<answer>", "\x00<answer>\udcff</answer>"]


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_hostile_responses_score_zero_with_a_reason(op):
    env = only(op)
    rec = env.generate(7, 4)
    for response in HOSTILE:
        rew = envs.score(rec, response, env=env)
        assert rew.value == 0 and not rew.correct and rew.parts["reason"], (response[:40], rew)


def test_unknown_operator_is_a_record_error():
    rec = only("sequential").generate(0, 2)
    rec["meta"]["operator"] = "teleport"
    with pytest.raises(ValueError, match=rec["id"]):
        envs.score(rec, rec["answer"])


def test_env_params():
    env = envs.make("races", pool="core50", operators=ALL_OPS, partial_weight=0.25)
    assert env.reward_range == (0.0, 1.25)
    names = {b.name for b in pool_bricks("core50")}
    for seed in range(30):
        rec = env.generate(seed, 2 + seed % 5)
        steps = rec["meta"]["steps"]
        flat = [n for s in steps for n in (s if isinstance(s, list) else [s])]
        assert set(flat) <= names
    assert envs.make("races").generate(3, 1)["difficulty"] == 2  # difficulty clamps to min_size..max_size (2..6)
    assert envs.make("races").generate(3, 99)["difficulty"] == 6
    for bad in ({"teleport": 1}, {"sort": 0}, {"sort": -1}):
        with pytest.raises(ValueError):
            envs.make("races", operators=bad)
    for bad in ({"timeout_s": 0}, {"max_steps": 0}, {"partial_weight": -1}):
        with pytest.raises(ValueError, match="races"):
            envs.make("races", **bad)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(OPERATORS)), st.text(max_size=200) | st.from_regex(r"\[[\[\]\"a-z0-9, .-]{0,60}\]"))
def test_any_answer_text_scores_without_raising(op, text):
    env = only(op)
    rec = env.generate(11, 3)
    rew = envs.score(rec, f"<answer>{text}</answer>", env=env)
    assert 0.0 <= rew.value <= 1.0 + W and set(rew.parts) >= {"exact", "partial"}


def test_sort_takes_only_steps_that_several_orders_type_check():
    from envs.compose.operators import type_orders

    pool = Pool(pool_bricks("all"))
    assert type_orders(pool, ["list_sum", "digits"], LIST_INT, LIST_INT) == 1  # digits cannot come first
    assert type_orders(pool, ["sort_ascending", "reverse_list"], LIST_INT, LIST_INT) == 2
    assert type_orders(pool, ["reverse_list", "reverse_list", "sort_ascending"], LIST_INT, LIST_INT) == 3
    rng = random.Random(0)
    assert OPERATORS["sort"].build(rng, pool, chain_of(["list_sum", "digits"], [3, 9, 4])) is None
    assert OPERATORS["sort"].build(rng, pool, chain_of(["sort_ascending", "reverse_list"], [3, 9, 4])) is not None
    env = only("sort")
    for seed in range(20):  # live sampling finds such chains (Sort.stay) at every size
        meta = env.generate(seed, 2 + seed % 4)["meta"]
        assert type_orders(env.pool, meta["candidates"], meta["types"][0], meta["types"][-1]) >= 2


def test_graph_answers_count_in_any_edge_order():
    g = {"n": 4, "edges": [[0, 1], [1, 2], [2, 3]]}
    rec = make_record("t", "sequential", 1, OPERATORS["sequential"].build(
        random.Random(0), Pool(pool_bricks("all")), chain_of(["complement"], g, "graph")), None)
    assert gold_of(rec) == [{"n": 4, "edges": [[0, 2], [0, 3], [1, 3]]}]
    shuffled = [{"n": 4, "edges": [[3, 1], [0, 3], [2, 0]]}]
    rew = envs.score(rec, answer(shuffled), env=only("sequential"))
    assert rew.correct and rew.value == 1.0 + W
    assert not envs.score(rec, answer([{"n": 4, "edges": [[3, 1], [0, 3]]}]), env=only("sequential")).correct
    assert "graph is {" in rec["prompt"]  # the structured type is explained in the prompt
