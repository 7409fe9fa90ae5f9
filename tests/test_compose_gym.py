"""The gym -> RACES adapter: every gym env declaring `brick_io` is a brick of the registry, its mapper
agrees with the env's own answers on the env's own problems, and it composes with native bricks."""
from __future__ import annotations

import json
import random

import pytest

import envs
from envs.compose.brick import Counter
from envs.compose.bricks import BRICKS, GYM_BRICKS
from envs.compose.bricks.gym import gym_brick, gym_env_names
from envs.compose.filters import Limits, run_steps
from envs.compose.types import TYPES, conforms, make_graph



def test_every_gym_env_with_brick_io_is_a_brick():
    declared = [n for n in gym_env_names() if envs.env_class(n).brick_io is not None]
    assert sorted(GYM_BRICKS) == declared and len(declared) >= 40
    for name in declared:
        b = BRICKS[name]
        assert (b.x, b.y) == envs.env_class(name).brick_io and b.x in TYPES and b.y in TYPES
        assert b.text == envs.env_class(name).brick_text and b.text.endswith((".", "?", ")"))
    assert gym_brick("sudoku") is None  # no brick_io: not a brick


@pytest.mark.parametrize("name", sorted(GYM_BRICKS))
def test_brick_input_scales_with_difficulty_and_conforms(name):
    env = envs.make(name)
    rng = random.Random(0)
    for d in (0, 3, 10):
        x = env.brick_input(rng, d)
        assert conforms(x, env.brick_io[0]), (d, x)
    assert gym_brick(name, difficulty=3).sample(random.Random(1)) == env.brick_input(random.Random(1), 3)


def problem(name, seed=0, d=2):
    return json.loads(envs.make(name).generate(seed, d)["meta"]["problem"])


def gold(name, seed=0, d=2):
    return envs.extract_answer(envs.make(name).generate(seed, d)["answer"])


def apply(name, value):
    return BRICKS[name].fn(value, Counter(10**7, 30.0))  # a fresh counter: its deadline starts now


@pytest.mark.parametrize("seed", range(4))
def test_bricks_answer_what_their_envs_ask(seed):
    """Where the env's question is the brick's function of the env's own problem, both agree."""
    p = problem("longest_increasing_subsequence", seed)
    assert apply("longest_increasing_subsequence", p["array"]) == p["optimum"]
    p = problem("longest_common_subsequence", seed)
    assert apply("longest_common_subsequence", [p["s"], p["t"]]) == gold("longest_common_subsequence", seed)
    p = problem("edit_distance", seed)
    assert apply("edit_distance", [p["s"], p["t"]]) == p["distance"]
    p = problem("max_subarray_sum", seed)
    assert apply("max_subarray_sum", p["array"]) == p["best"]
    p = problem("inversion_count", seed)
    assert apply("inversion_count", p["perm"]) == p["count"]
    p = problem("longest_palindromic_subsequence", seed)
    assert apply("longest_palindromic_subsequence", p["s"]) == gold("longest_palindromic_subsequence", seed)
    p = problem("connected_components", seed)
    assert " ".join(map(str, apply("connected_components", make_graph(p["n"], p["edges"])))) == \
        gold("connected_components", seed)
    for name in ("josephus", "stirling_second_kind", "integer_partition_count"):
        p = problem(name, seed)
        want = p.get("last", p.get("count"))
        assert apply(name, (p["n"], p["k"])) == want, name
    p = problem("subsequence_counting", seed)
    assert apply("subsequence_counting", [p["s"], p["t"]]) == p["count"]
    p = problem("assignment", seed)
    assert apply("assignment", p["cost"]) == p["optimum"]
    p = problem("matrix_chain_multiplication", seed)
    assert apply("matrix_chain_multiplication", p["dims"]) == p["optimum"]
    p = problem("matrix_determinant", seed)
    assert apply("matrix_determinant", p["matrix"]) == p["det"]
    for name in ("grid_path_counting", "maze_shortest_path"):
        p = problem(name, seed)
        grid = [[int(ch == "#") for ch in row] for row in p["grid"]]
        assert apply(name, grid) == p.get("count", p.get("optimum")), name
    p = problem("digit_sum_counting", seed)
    assert apply("digit_sum_counting", (p["n"], p["s"])) == p["count"]
    p = problem("hamiltonian_path_existence", seed)  # a path exists (planted); the brick's is a valid one
    path = apply("hamiltonian_path_existence", make_graph(p["n"], p["edges"], directed=True))
    edges = set(map(tuple, p["edges"]))
    assert sorted(path) == list(range(p["n"])) and all((u, v) in edges for u, v in zip(path, path[1:]))


def test_np_bricks_agree_with_brute_force():
    from itertools import combinations

    rng = random.Random(5)
    for _ in range(25):
        g = BRICKS["independent_set"].sample(rng)
        n, es = g["n"], {tuple(e) for e in g["edges"]}

        def ok(s, pred):
            return all(pred((u, v) in es) for u, v in combinations(s, 2))
        subsets = [s for k in range(n + 1) for s in combinations(range(n), k)]
        assert apply("independent_set", g) == max(len(s) for s in subsets if ok(s, lambda e: not e))
        assert apply("max_clique", g) == max(len(s) for s in subsets if ok(s, lambda e: e))
        closed = [{u} | {v for e in es for v in e if u in e} for u in range(n)]
        assert apply("dominating_set", g) == min(len(s) for s in subsets if set().union(*(closed[u] for u in s)) ==
                                                 set(range(n)))
        from itertools import product
        chi = min(k for k in range(1, n + 1) for col in product(range(k), repeat=n)
                  if all(col[u] != col[v] for u, v in es))
        assert apply("graph_coloring", g) == chi


def test_gym_bricks_compose_with_native_ones():
    chain = [BRICKS[n] for n in ("bfs_spanning_tree", "tree_diameter")]
    states, reason = run_steps(chain, {"n": 4, "edges": [[0, 1], [1, 2], [2, 3], [0, 3]]}, "graph", Limits())
    assert reason == "" and states[-1] == 3  # BFS tree from 0: 1-0-3 and 0-1-2: the path 2-1-0-3
    chain = [BRICKS[n] for n in ("argsort", "skyscraper")]
    states, reason = run_steps(chain, [30, 10, 20], "list[int]", Limits())
    assert reason == "" and states[1:] == [[1, 2, 0], (2, 1)]
