"""Composition type rules, each rule of the executable filter (a bad case rejected, a good one
kept), and the frontier search: valid, distinct, deterministic, usage-weighted, fast enough."""
from __future__ import annotations

import time

import pytest

from envs.compose.brick import Brick, Counter, compose
from envs.compose.bricks import BRICKS, pool_bricks
from envs.compose.filters import Limits, degenerate, execute, run_steps, step
from envs.compose.search import Pool, SearchConfig, search
from envs.compose.types import INT, LIST_INT, STR, canon, to_json


def brick(fn, x=INT, y=INT, name="test_brick"):
    return Brick(name, x, y, "A test brick.", fn)


def const(value, y=INT):
    def fn(v, c):
        c.tick()
        return value
    return brick(fn, y=y)


# ------------------------------------------------------------------ composition


def test_compose_refuses_type_errors():
    with pytest.raises(TypeError, match="cannot compose"):
        compose(BRICKS["digits"], BRICKS["reverse_string"])  # list[int] into str
    with pytest.raises(TypeError):
        compose(compose(BRICKS["digits"], BRICKS["list_sum"]), BRICKS["sort_words"])


def test_a_chain_is_a_brick_and_composes_further():
    ab = compose(BRICKS["digits"], BRICKS["sort_descending"])
    assert (ab.x, ab.y) == (INT, LIST_INT)
    abc = compose(ab, BRICKS["join_numbers"], BRICKS["read_digits"])
    assert (abc.x, abc.y) == (INT, INT)
    assert abc.steps == ("digits", "sort_descending", "join_numbers", "read_digits")
    assert abc(3141, Counter(400, 2.0)) == 4311
    states, reason = run_steps([BRICKS[n] for n in abc.steps], 3141, INT, Limits())
    assert reason == "" and states[-1] == 4311
    with pytest.raises(TypeError):
        compose(abc, BRICKS["reverse_string"])


# ------------------------------------------------------------------ the filter, rule by rule

LIM = Limits()


def test_rule_exception():
    def boom(v, c):
        raise ZeroDivisionError
    assert step(brick(boom), (5,), 0, [], LIM) == "exception"
    assert step(const(7), (5,), 0, [], LIM) == (7, 1)


def test_rule_timeout():
    def slow_ticking(v, c):
        while True:
            time.sleep(0.01)
            c.tick(0)

    def slow_silent(v, c):  # never ticks: cannot be interrupted, but its result is discarded
        time.sleep(0.06)
        return 7
    fast = Limits(timeout_s=0.05)
    assert step(brick(slow_ticking), (5,), 0, [], fast) == "timeout"
    assert step(brick(slow_silent), (5,), 0, [], fast) == "timeout"
    assert step(const(7), (5,), 0, [], fast) == (7, 1)


def test_rule_steps_counts_the_whole_path():
    def forever(v, c):
        while True:
            c.tick()
    assert step(brick(forever), (5,), 0, [], LIM) == "steps"  # a runaway brick cannot hang a run

    def ten(v, c):
        c.tick(10)
        return 7
    assert step(brick(ten), (5,), 391, [], LIM) == "steps"  # 391 + 10 > 400
    assert step(brick(ten), (5,), 390, [], LIM) == (7, 400)


def test_rule_no_output_and_bad_type():
    assert step(const(None), (5,), 0, [], LIM) == "no_output"
    assert step(const("", y=STR), ("ab",), 0, [], LIM) == "no_output"
    assert step(const([], y=LIST_INT), ([3],), 0, [], LIM) == "no_output"
    assert step(const("ab"), (5,), 0, [], LIM) == "bad_type"  # declared int
    assert step(const("ab", y=STR), (5,), 0, [], LIM) == ("ab", 1)


def test_rule_repeats():
    assert step(const(5), (9, 5), 0, [], LIM) == "repeat_state"
    assert step(const(7), (9, 5), 0, [3, 7], LIM) == "repeat_sibling"
    assert step(const(7), (9, 5), 0, [3], LIM) == (7, 1)


def test_rule_degenerate_values():
    assert step(const(0), (5,), 0, [], LIM) == "zero_one"
    assert step(const(1), (5,), 0, [], LIM) == "zero_one"
    assert step(const(501), (5,), 0, [], LIM) == "int_over_500"
    assert step(const(-501), (5,), 0, [], LIM) == "int_over_500"
    assert step(const(500), (5,), 0, [], LIM) == (500, 1)
    assert step(const("ab" * 51, y=STR), ("x",), 0, [], LIM) == "too_long"
    assert step(const(list(range(101)), y=LIST_INT), ([3],), 0, [], LIM) == "too_long"
    assert degenerate([[1] * 10] * 11) == "too_long" and degenerate([[1] * 10] * 10) is None
    assert step(const("ab" * 50, y=STR), ("x",), 0, [], LIM) == ("ab" * 50, 1)
    assert step(const("aaaa", y=STR), ("x",), 0, [], LIM) == "one_char"
    assert step(const("a", y=STR), ("x",), 0, [], LIM) == "one_char"
    assert step(const("aab", y=STR), ("x",), 0, [], LIM) == ("aab", 1)
    assert degenerate(True) == "zero_one"  # a bool never sits inside a chain


def test_rule_short_path():
    # to_binary's output (str) has no brick to go on with: every path stays at length 1
    pool = Pool(pool_bricks(["to_binary"]))
    r = search(pool, SearchConfig(target=10, patience=20), seed=0)
    assert r.composites == [] and r.stopped == "exhausted" and r.rejections["short_path"] > 0
    pool = Pool(pool_bricks(["to_binary", "reverse_string"]))
    r = search(pool, SearchConfig(target=10, patience=200), seed=0)
    assert r.composites and all(c.size >= 2 for c in r.composites)


def test_execute_never_raises_and_limits_a_bad_brick():
    def recurse(v, c):
        return recurse(v, c)
    assert execute(brick(recurse), 5, 0, LIM) == "exception"
    states, reason = run_steps([BRICKS["digits"], BRICKS["reverse_string"]], 12, INT, LIM)
    assert states == [12, [1, 2]] and "takes str but gets list[int]" in reason


# ------------------------------------------------------------------ the search


@pytest.fixture(scope="module")
def core50_result():
    return search(Pool(pool_bricks("core50")), SearchConfig(target=3000), seed=1)


def test_search_composites_are_valid_and_distinct(core50_result):
    r = core50_result
    assert r.stopped == "target" and len(r.composites) == 3000
    assert len({c.steps for c in r.composites}) == 3000
    for c in r.composites:
        assert 2 <= c.size <= 5 and c.cost <= 400
        bricks = [BRICKS[n] for n in c.steps]
        assert all(a.y == b.x for a, b in zip(bricks, bricks[1:]))
        states, reason = run_steps(bricks, to_json(c.states[0]), bricks[0].x, Limits())
        assert reason == "" and [canon(s) for s in states] == [canon(s) for s in c.states]
        assert all(degenerate(s) is None for s in c.states[1:])
        assert len({canon(s) for s in c.states}) == len(c.states)  # no state repeats
    assert sum(r.rejections.values()) > 0
    assert sum(r.usage.values()) == sum(c.size for c in r.composites)


def test_search_is_deterministic(core50_result):
    again = search(Pool(pool_bricks("core50")), SearchConfig(target=3000), seed=1)
    assert [c.steps for c in again.composites] == [c.steps for c in core50_result.composites]
    assert [canon(list(c.states)) for c in again.composites] == [canon(list(c.states)) for c in core50_result.composites]
    other = search(Pool(pool_bricks("core50")), SearchConfig(target=3000), seed=2)
    assert [c.steps for c in other.composites] != [c.steps for c in core50_result.composites]


def test_usage_weighting_evens_out_brick_use():
    pool = Pool(pool_bricks("core50"))
    flat = [search(pool, SearchConfig(target=4000, usage_power=0), seed=s).spread for s in range(3)]
    weighted = [search(pool, SearchConfig(target=4000, usage_power=1), seed=s).spread for s in range(3)]
    assert sum(w[0] for w in weighted) > sum(f[0] for f in flat)  # the least-used brick gets more use
    assert sum(w[2] / w[0] for w in weighted) < sum(f[2] / f[0] for f in flat)


def test_search_respects_size_limits():
    r = search(Pool(pool_bricks("core50")), SearchConfig(min_size=3, max_size=6, target=2000), seed=0)
    assert {c.size for c in r.composites} <= {3, 4, 5, 6} and max(c.size for c in r.composites) == 6


def test_ten_thousand_composites_from_50_bricks_within_a_minute():
    # core50 (one-line transforms over 7 types); base50, typed over 15 types, is slower: bench/races.py
    r = search(Pool(pool_bricks("core50")), SearchConfig(target=10_000, max_seconds=60), seed=0)
    assert r.stopped == "target" and len(r.composites) == 10_000


def test_walk_draws_chains_of_the_asked_shape():
    import random

    pool = Pool(pool_bricks("all"))
    rng = random.Random(0)
    for size in range(1, 7):
        c = pool.walk(rng, size)
        assert c is not None and c.size == size
        loop = pool.walk(rng, size, endo=True)
        assert loop is not None and loop.types[0] == loop.types[-1]
