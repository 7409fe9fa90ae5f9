"""The logic and NP-complete envs of issue 28 (np_graphs.py, np_sets.py, logic_plans.py,
logic_grids2.py): each scorer agrees with an independent reference check (networkx or the
rules written out again) on every candidate answer of a small instance, so the planted gold is
accepted, broken answers are rejected and other valid answers are accepted too; the registry-wide
contract (tests/test_gym.py) covers determinism, hostile input and speed."""
from __future__ import annotations

import itertools
import json

import pytest

import envs

nx = pytest.importorskip("networkx")


def problem(rec: dict) -> dict:
    return json.loads(rec["meta"]["problem"])


def gold_of(rec: dict) -> str:
    return rec["answer"][len("<answer>"):-len("</answer>")]


def full(rec: dict, text: str) -> bool:
    return envs.score(rec, f"<answer>{text}</answer>").value == 1.0


def agree(name: str, candidates, reference, seeds=range(4), difficulty=0, another=True,
          ordered=False) -> None:
    """On small instances, the scorer gives 1 exactly to the candidates `reference` accepts;
    the gold is accepted, some candidate is rejected and, over the seeds, some accepted
    candidate is not the gold (the scorer checks rather than compares; another=False where these
    instances happen to have one solution)."""
    env = envs.make(name)
    other = False
    for seed in seeds:
        rec = env.generate(seed=seed, difficulty=difficulty)
        p, gold = problem(rec), gold_of(rec)
        assert full(rec, gold), (name, seed)
        verdicts = []
        for text in candidates(p):
            ok = reference(p, text)
            assert full(rec, text) == ok, (name, seed, text, ok)
            verdicts.append(ok)
            other |= ok and (text.split() != gold.split() if ordered else sorted(text.split()) != sorted(gold.split()))
        assert not all(verdicts), (name, seed, "some candidate must be wrong")
    assert other or not another, (name, "another valid answer exists in these instances and is accepted")


def subsets(n: int, max_size: int | None = None):
    for r in range(1, (n if max_size is None else max_size) + 1):
        for c in itertools.combinations(range(n), r):
            yield c


def graph(p: dict, key: str = "edges", directed: bool = False):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(p["n"]))
    g.add_edges_from(tuple(e[:2]) for e in p[key])
    return g


def join(xs) -> str:
    return " ".join(map(str, xs))


def pairs_text(es) -> str:
    return "\n".join(f"{u} {v}" for u, v in es)


# ---------------------------------------------------------------------------- np_graphs.py

def test_feedback_vertex_set():
    def ref(p, text):
        s = set(map(int, text.split()))
        return len(s) <= p["k"] and nx.is_forest(graph(p).subgraph(set(range(p["n"])) - s))
    agree("feedback_vertex_set", lambda p: (join(c) for c in subsets(p["n"], p["k"])), ref)


def test_feedback_arc_set():
    def ref(p, text):
        gone = set(map(int, text.split()))
        g = nx.DiGraph([a for i, a in enumerate(p["arcs"]) if i not in gone])
        g.add_nodes_from(range(p["n"]))
        return len(gone) <= p["k"] and nx.is_directed_acyclic_graph(g)
    agree("feedback_arc_set", lambda p: (join(c) for c in subsets(len(p["arcs"]), p["k"])), ref)


def test_min_bisection_and_max_cut():
    def bisection(p, text):
        s = set(map(int, text.split()))
        return nx.cut_size(graph(p), s) <= p["b"]
    agree("min_bisection", lambda p: (join(c) for c in itertools.combinations(range(p["n"]), p["n"] // 2)), bisection)

    def cut(p, text):
        return nx.cut_size(graph(p), set(map(int, text.split()))) >= p["k"]
    agree("max_cut", lambda p: (join(c) for c in subsets(p["n"], p["n"] - 1)), cut)


def test_monochromatic_triangle():
    def ref(p, text):
        cols = list(map(int, text.split()))
        for c in (0, 1):
            g = nx.Graph([e for e, x in zip(p["edges"], cols) if x == c])
            if any(nx.triangles(g).values()):
                return False
        return True
    agree("monochromatic_triangle", lambda p: (join((0,) + c) for c in itertools.product((0, 1), repeat=len(p["edges"]) - 1)),
          ref, seeds=range(3))


def test_domatic_partition():
    def ref(p, text):
        groups = list(map(int, text.split()))
        g = graph(p)
        return all(nx.is_dominating_set(g, {v for v in g if groups[v] == k}) for k in range(1, p["k"] + 1))
    agree("domatic_partition", lambda p: (join(c) for c in itertools.product(range(1, p["k"] + 1), repeat=p["n"])
                                          if c[0] == 1), ref, seeds=range(2))


def test_degree_bounded_spanning_tree():
    def ref(p, text):
        nums = list(map(int, text.split()))
        t = nx.Graph(list(zip(nums[::2], nums[1::2])))
        return t.number_of_nodes() == p["n"] and nx.is_tree(t) and max(d for _, d in t.degree) <= 3
    agree("degree_bounded_spanning_tree",
          lambda p: (pairs_text(c) for c in itertools.combinations(p["edges"], p["n"] - 1)), ref, seeds=range(2))


def test_minimum_maximal_matching():
    def ref(p, text):
        nums = list(map(int, text.split()))
        m = set(zip(nums[::2], nums[1::2]))
        return len(m) <= p["k"] and nx.is_maximal_matching(graph(p), m)
    agree("minimum_maximal_matching",
          lambda p: (pairs_text(c) for r in (1, 2, 3) for c in itertools.combinations(p["edges"], r)), ref)


def test_graph_kernel():
    def ref(p, text):
        s = set(map(int, text.split()))
        g = graph(p, "arcs", directed=True)
        return (not any(g.has_edge(u, v) for u in s for v in s)
                and all(any(w in s for w in g.successors(v)) for v in g if v not in s))
    agree("graph_kernel", lambda p: (join(c) for c in subsets(p["n"])), ref, another=False)


def test_bandwidth_and_tsp_bound():
    def bw(p, text):
        pos = {v: i for i, v in enumerate(map(int, text.split()))}
        return max(abs(pos[u] - pos[v]) for u, v in p["edges"]) <= p["b"]
    agree("bandwidth", lambda p: (join(c) for c in itertools.permutations(range(p["n"]))), bw, seeds=range(2),
          ordered=True)

    def tour(p, text):
        o = list(map(int, text.split()))
        return sum(p["w"][u][v] for u, v in zip(o, o[1:] + o[:1])) <= p["bound"]
    agree("tsp_bound", lambda p: (join(c) for c in itertools.permutations(range(p["n"]))), tour, ordered=True)


def test_balanced_biclique():
    def ref(p, text):
        s = list(map(int, text.split()))
        left, right = [v for v in s if v < p["n"]], [v for v in s if v >= p["n"]]
        g = graph({"n": 2 * p["n"], "edges": p["edges"]})
        return len(left) == len(right) >= p["k"] and all(g.has_edge(u, v) for u in left for v in right)
    agree("balanced_biclique", lambda p: (join(c) for c in subsets(2 * p["n"], 2 * p["k"] + 2)
                                          if len(c) == 2 * p["k"]), ref, seeds=range(2), another=False)


def test_steiner_tree_accepts_any_cheap_connection():
    # a square 0-1-2-3 with unit weights and terminals 0 and 2: either side of the square works
    env = envs.make("steiner_tree")
    p = {"n": 4, "terminals": [0, 2], "bound": 2, "edges": [[0, 1, 1], [1, 2, 1], [2, 3, 1], [0, 3, 1]]}
    rec = {"id": "hand", "env": "steiner_tree", "difficulty": 0, "answer": None, "prompt": "", "meta": {"seed": 0, "problem": json.dumps(p)}}
    assert full(rec, "0 1\n1 2") and full(rec, "0 3\n2 3")
    assert envs.score(rec, "<answer>0 1\n2 3</answer>").value == 0.0  # terminals not joined
    assert 0 < envs.score(rec, "<answer>0 1\n1 2\n2 3</answer>").value < 1  # joined but too heavy
    assert envs.score(rec, "<answer>0 2</answer>").value == -0.5  # not an edge
    rec = env.generate(seed=3, difficulty=2)
    assert full(rec, gold_of(rec))
