"""The algorithms-category families added for issue 28 (algo_*.py), cross-checked against
independent brute force or networkx on small inputs, and their checkers shown to accept another
valid answer and reject an invalid one (the registry-wide contract in tests/test_gym.py covers
determinism, gold answers, hostile text and speed)."""
from __future__ import annotations

import itertools
import json

import pytest

import envs

SEEDS = range(4)


def problem(rec: dict) -> dict:
    return json.loads(rec["meta"]["problem"])


def gold(rec: dict) -> str:
    return rec["answer"][len("<answer>"):-len("</answer>")]


def value(rec: dict, answer: str) -> float:
    return envs.score(rec, f"<answer>{answer}</answer>").value


def recs(name: str, difficulties=(0, 1, 2)):
    env = envs.make(name)
    return [env.generate(seed=s, difficulty=d) for d in difficulties for s in SEEDS]


def hand(name: str, p: dict) -> dict:
    return {"id": f"{name}-hand", "env": name, "difficulty": 0, "prompt": "", "answer": None,
            "meta": {"seed": 0, "problem": json.dumps(p)}}


# ---------------------------------------------------------------------------- algo_graphs2.py

def _graph(p, directed=False, weighted=False):
    nx = pytest.importorskip("networkx")
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(p["n"]))
    for e in p["edges"]:
        if weighted:
            g.add_edge(e[0], e[1], weight=e[2])
        else:
            g.add_edge(e[0], e[1])
    return g


def test_graph_certificates_match_networkx_and_are_checked():
    nx = pytest.importorskip("networkx")
    seen = set()
    for rec in recs("bipartite_or_odd_cycle", (0, 1, 2, 3)):
        g, text = _graph(problem(rec)), gold(rec)
        seen.add(text.startswith("ODD"))
        assert text.startswith("ODD") != nx.is_bipartite(g)
        if not text.startswith("ODD"):  # the other colouring of one component is also valid
            colours = list(map(int, text.split()))
            comp = nx.node_connected_component(g, 0)
            flipped = [1 - c if v in comp else c for v, c in enumerate(colours)]
            assert value(rec, " ".join(map(str, flipped))) == 1.0
            bad = colours[:]
            u, v = next(iter(g.edges))
            bad[u] = bad[v]
            assert value(rec, " ".join(map(str, bad))) == 0.0
        else:
            cycle = text.split()[1:]
            assert value(rec, "ODD " + " ".join(cycle[1:] + cycle[:1])) == 1.0  # another start
            assert value(rec, "ODD " + " ".join(cycle[:-1])) < 1.0
    assert seen == {True, False}
    for rec in recs("find_directed_cycle"):
        p = problem(rec)
        cyc = gold(rec).split()
        assert value(rec, " ".join(cyc[1:] + cyc[:1])) == 1.0
        other = next(c for c in nx.simple_cycles(_graph(p, directed=True)))
        assert value(rec, " ".join(map(str, other))) == 1.0
        rev, edges = cyc[::-1], {(str(u), str(v)) for u, v in p["edges"]}
        closes = all(e in edges for e in zip(rev, rev[1:] + rev[:1]))
        assert value(rec, " ".join(rev)) == (1.0 if closes else 0.0)
    for rec in recs("negative_cycle"):
        g = _graph(problem(rec), directed=True, weighted=True)
        g.add_weighted_edges_from((-1, v, 0) for v in range(problem(rec)["n"]))  # a source reaching every cycle
        other = nx.find_negative_cycle(g, -1)
        g.remove_node(-1)
        assert value(rec, " ".join(map(str, other[:-1]))) == 1.0
        positive = next(c for c in nx.simple_cycles(g) if nx.path_weight(g, c + c[:1], "weight") >= 0) \
            if any(nx.path_weight(g, c + c[:1], "weight") >= 0 for c in nx.simple_cycles(g)) else None
        if positive:
            assert value(rec, " ".join(map(str, positive))) == 0.0


def test_graph_lists_match_networkx():
    nx = pytest.importorskip("networkx")
    for rec in recs("bridge_edges"):
        p = problem(rec)
        assert sorted(map(tuple, p["bridges"])) == sorted(tuple(sorted(e)) for e in nx.bridges(_graph(p)))
    for rec in recs("all_pairs_shortest_paths"):
        p = problem(rec)
        d = dict(nx.all_pairs_dijkstra_path_length(_graph(p, directed=True, weighted=True)))
        assert p["dist"] == [str(d[i][j]) if j in d[i] else "x" for i in range(p["n"]) for j in range(p["n"])]
    for rec in recs("immediate_dominators"):
        p = problem(rec)
        idom = nx.immediate_dominators(_graph(p, directed=True), 0)
        assert p["idom"] == [idom[v] for v in range(1, p["n"])]
    for rec in recs("core_numbers"):
        p = problem(rec)
        core = nx.core_number(_graph(p))
        assert p["core"] == [core[v] for v in range(p["n"])]
    for rec in recs("transitive_reduction"):
        p = problem(rec)
        assert sorted(map(tuple, p["keep"])) == sorted(nx.transitive_reduction(_graph(p, directed=True)).edges)


def _dfs(adj, u, seen, out):
    seen.add(u)
    out.append(u)
    for v in sorted(adj[u]):
        if v not in seen:
            _dfs(adj, v, seen, out)


def test_orders_match_recursive_definitions():
    for rec in recs("dfs_order"):
        p = problem(rec)
        adj = {v: set() for v in range(p["n"])}
        for u, v in p["edges"]:
            adj[u].add(v)
            adj[v].add(u)
        out = []
        _dfs(adj, 0, set(), out)
        assert p["order"] == out


def _spanning_tree_weights(p):
    n = p["n"]
    for tree in itertools.combinations(p["edges"], n - 1):
        parent = list(range(n))

        def find(x):
            while parent[x] != x:
                x = parent[x]
            return x

        ok = True
        for u, v, _ in tree:
            a, b = find(u), find(v)
            ok &= a != b
            parent[a] = b
        if ok:
            yield sum(w for _, _, w in tree)


def test_graph_optima_match_brute_force():
    nx = pytest.importorskip("networkx")
    for rec in recs("second_best_mst", (0, 1)):
        p = problem(rec)
        weights = sorted(_spanning_tree_weights(p))
        assert p["value"] == weights[1] and weights[0] < weights[1]
    for rec in recs("min_cost_flow"):
        p = problem(rec)
        g = nx.DiGraph()
        for u, v, c, w in p["edges"]:
            g.add_edge(u, v, capacity=c, weight=w)
        g.add_node(0, demand=-p["need"])
        g.add_node(p["n"] - 1, demand=p["need"])
        assert p["value"] == nx.cost_of_flow(g, nx.min_cost_flow(g))
    for rec in recs("min_arborescence"):
        p = problem(rec)
        g = _graph(p, directed=True, weighted=True)
        g.remove_edges_from([(u, 0) for u in range(p["n"])])
        assert p["optimum"] == nx.minimum_spanning_arborescence(g).size(weight="weight")
        bad = gold(rec).split()
        bad[0] = str(p["n"] - 1 if bad[0] != str(p["n"] - 1) else 1)  # most likely a non-edge or a cycle
        assert value(rec, " ".join(bad)) < 1.0
    for rec in recs("min_path_cover_dag", (0, 1)):
        p = problem(rec)
        n, edges = p["n"], set(map(tuple, p["edges"]))
        best_links = 0  # brute force: choose a successor per vertex, injective, along edges
        for succ in itertools.product(*[[None] + [v for u2, v in edges if u2 == u] for u in range(n)]):
            targets = [s for s in succ if s is not None]
            if len(set(targets)) == len(targets):
                best_links = max(best_links, len(targets))
        assert p["optimum"] == n - best_links
        singles = "\n".join(map(str, range(n)))
        assert value(rec, singles) == pytest.approx((p["optimum"] / n) ** 5)
    for rec in recs("graph_center"):
        p = problem(rec)
        ecc = nx.eccentricity(_graph(p))
        radius = min(ecc.values())
        for v in range(p["n"]):
            assert value(rec, f"{v} {radius}") == (1.0 if ecc[v] == radius else 0.5)


# ---------------------------------------------------------------------------- algo_strings.py

def test_string_arrays_match_definitions():
    from os.path import commonprefix

    for rec in recs("prefix_function"):
        s = problem(rec)["s"]
        assert problem(rec)["values"] == [max(k for k in range(i + 1) if s[:k] == s[i + 1 - k:i + 1]) for i in range(len(s))]
    for rec in recs("z_function"):
        s = problem(rec)["s"]
        assert problem(rec)["values"] == [len(commonprefix([s, s[i:]])) for i in range(len(s))]
    for rec in recs("lcp_array"):
        p = problem(rec)
        s, sa = p["s"], p["sa"]
        assert p["lcp"] == [len(commonprefix([s[a:], s[b:]])) for a, b in zip(sa, sa[1:])]
    for rec in recs("burrows_wheeler"):  # inverting the transform gives the string back
        bwt = problem(rec)["bwt"]
        table = [""] * len(bwt)
        for _ in bwt:
            table = sorted(c + row for c, row in zip(bwt, table))
        assert next(row for row in table if row.endswith("$")) == problem(rec)["s"] + "$"
    for rec in recs("lyndon_factorization"):
        factors = problem(rec)["factors"]
        assert all(all(w < w[i:] + w[:i] for i in range(1, len(w))) for w in factors)
        assert all(a >= b for a, b in zip(factors, factors[1:])) and "".join(factors) == problem(rec)["s"]
        if len(factors) > 1:  # another split of the same string is refused
            assert value(rec, " ".join([factors[0] + factors[1]] + factors[2:])) == 0.0


def _brute_edit(s, t):
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def go(i, j):
        if i == len(s) or j == len(t):
            return len(s) - i + len(t) - j
        return min(go(i + 1, j) + 1, go(i, j + 1) + 1, go(i + 1, j + 1) + (s[i] != t[j]))

    return go(0, 0)


def test_string_optima_match_brute_force():
    for rec in recs("edit_script"):
        p = problem(rec)
        assert p["optimum"] == _brute_edit(p["s"], p["t"]) == len(gold(rec).splitlines())
        rewrite = ["DELETE 0" for _ in p["s"]] + [f"INSERT {i} {c}" for i, c in enumerate(p["t"])]
        assert value(rec, "\n".join(rewrite)) == pytest.approx((p["optimum"] / len(rewrite)) ** 5)
        if p["optimum"] > 1:  # fewer operations than the distance cannot reach T
            assert value(rec, "\n".join(gold(rec).splitlines()[:-1])) == 0.0
    for rec in recs("min_window_substring"):
        p = problem(rec)
        from collections import Counter
        need, text = Counter(p["need"]), p["text"]
        windows = [(i, j) for i in range(len(text)) for j in range(i, len(text))
                   if all(Counter(text[i:j + 1])[c] >= k for c, k in need.items())]
        shortest = min(j - i + 1 for i, j in windows)
        assert p["optimum"] == shortest
        for i, j in windows[:30]:
            assert value(rec, f"{i} {j}") == pytest.approx((shortest / (j - i + 1)) ** 5)
    for rec in recs("longest_repeated_substring"):
        s = problem(rec)["s"]
        repeated = [s[i:j] for i in range(len(s)) for j in range(i + 1, len(s) + 1) if s.find(s[i:j], i + 1) >= 0]
        top = max(map(len, repeated))
        assert problem(rec)["optimum"] == top
        assert all(value(rec, r) == 1.0 for r in repeated if len(r) == top)
        once = next((s[i:j] for i in range(len(s)) for j in range(i + 1, len(s) + 1) if s.count(s[i:j]) == 1
                     and s.find(s[i:j], s.find(s[i:j]) + 1) < 0), None)
        assert once is None or value(rec, once) == -0.5
    for rec in recs("longest_distinct_substring"):
        s = problem(rec)["s"]
        good = [s[i:j] for i in range(len(s)) for j in range(i + 1, len(s) + 1) if len(set(s[i:j])) == j - i]
        top = max(map(len, good))
        assert problem(rec)["optimum"] == top and all(value(rec, g) == 1.0 for g in good if len(g) == top)
    for rec in recs("word_break"):
        p = problem(rec)
        words, text = p["words"], p["text"]
        from functools import lru_cache

        @lru_cache(maxsize=None)
        def fewest(i):
            if i == len(text):
                return 0
            return min((1 + fewest(i + len(w)) for w in words if text.startswith(w, i)), default=10 ** 9)

        assert p["optimum"] == fewest(0)
        letters = " ".join(text)  # single letters are words only if the dictionary has them
        assert value(rec, letters) == (-0.5 if not {"A", "B"} & set(text) <= set(words) else
                                       pytest.approx((p["optimum"] / len(text)) ** 5))
    for rec in recs("palindrome_partition"):
        s = problem(rec)["s"]
        best = len(s)
        for cuts in itertools.product((0, 1), repeat=len(s) - 1):
            pieces, start = [], 0
            for i, c in enumerate(cuts, 1):
                if c:
                    pieces.append(s[start:i])
                    start = i
            pieces.append(s[start:])
            if all(x == x[::-1] for x in pieces):
                best = min(best, len(pieces))
        assert problem(rec)["optimum"] == best
        assert value(rec, " ".join(s)) == pytest.approx((best / len(s)) ** 5)
        assert value(rec, s) == (1.0 if s == s[::-1] else -0.5)


# ---------------------------------------------------------------------------- algo_geometry.py

def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _in_closed_triangle(p, a, b, c):
    s = [_cross(a, b, p), _cross(b, c, p), _cross(c, a, p)]
    return all(x >= 0 for x in s) or all(x <= 0 for x in s)


def _on_closed_segment(p, a, b):
    return _cross(a, b, p) == 0 and min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def test_hull_and_pairs_match_brute_force():
    for rec in recs("convex_hull"):
        pts = [tuple(p) for p in problem(rec)["points"]]
        corners = {i for i, p in enumerate(pts) if not any(
            _in_closed_triangle(p, *(pts[k] for k in tri)) for tri in itertools.combinations(
                [j for j in range(len(pts)) if j != i], 3)) and not any(
            _on_closed_segment(p, pts[a], pts[b]) for a, b in itertools.combinations(
                [j for j in range(len(pts)) if j != i], 2))}
        hull = problem(rec)["hull"]
        assert set(hull) == corners
        assert all(_cross(pts[a], pts[b], pts[c]) > 0 for a, b, c in zip(hull, hull[1:] + hull[:1], hull[2:] + hull[:2]))
        assert value(rec, " ".join(map(str, hull[1:] + hull[:1]))) == 1.0  # another start
        assert value(rec, " ".join(map(str, hull[::-1]))) == 0.5  # clockwise
    for name, pick in (("closest_pair", min), ("farthest_pair", max)):
        for rec in recs(name):
            pts = problem(rec)["points"]
            d2 = {(i, j): (pts[i][0] - pts[j][0]) ** 2 + (pts[i][1] - pts[j][1]) ** 2
                  for i, j in itertools.combinations(range(len(pts)), 2)}
            best = pick(d2.values())
            for (i, j), d in list(d2.items())[:40]:
                assert (value(rec, f"{j} {i}") == 1.0) == (d == best)
    for rec in recs("max_collinear_points"):
        pts = problem(rec)["points"]
        most = max(sum(_cross(pts[a], pts[b], p) == 0 for p in pts) for a, b in itertools.combinations(range(len(pts)), 2))
        assert problem(rec)["optimum"] == most
        assert value(rec, "0 1") == pytest.approx((2 / most) ** 5)
        triple = next(t for t in itertools.combinations(range(len(pts)), 3) if _cross(*(pts[k] for k in t)) != 0)
        assert value(rec, " ".join(map(str, triple))) == 0.0


def _meet(a, b, c, d):
    """Exact parametric intersection of closed segments ab and cd, written apart from the env's tests."""
    from fractions import Fraction

    r, s = (b[0] - a[0], b[1] - a[1]), (d[0] - c[0], d[1] - c[1])
    qp = (c[0] - a[0], c[1] - a[1])
    den = r[0] * s[1] - r[1] * s[0]
    if den == 0:
        if qp[0] * r[1] - qp[1] * r[0]:
            return False  # parallel, apart
        rr = r[0] * r[0] + r[1] * r[1]
        t0 = Fraction(qp[0] * r[0] + qp[1] * r[1], rr)
        t1 = t0 + Fraction(s[0] * r[0] + s[1] * r[1], rr)
        return max(min(t0, t1), 0) <= min(max(t0, t1), 1)
    t = Fraction(qp[0] * s[1] - qp[1] * s[0], den)
    u = Fraction(qp[0] * r[1] - qp[1] * r[0], den)
    return 0 <= t <= 1 and 0 <= u <= 1


def _winding(poly, q):
    import math

    total = 0.0
    for a, b in zip(poly, poly[1:] + poly[:1]):
        total += math.atan2(_cross(q, a, b), (a[0] - q[0]) * (b[0] - q[0]) + (a[1] - q[1]) * (b[1] - q[1]))
    return round(total / (2 * math.pi))


def _where(poly, q):
    if any(_on_closed_segment(q, a, b) for a, b in zip(poly, poly[1:] + poly[:1])):
        return "B"
    return "I" if _winding(poly, q) else "O"


def test_polygon_and_segment_answers_match_brute_force():
    for rec in recs("segment_intersections"):
        segs = problem(rec)["segments"]
        pairs = [(i, j) for i, j in itertools.combinations(range(len(segs)), 2) if _meet(*segs[i], *segs[j])]
        assert list(map(tuple, problem(rec)["pairs"])) == pairs
        assert value(rec, "\n".join(f"{j} {i}" for i, j in reversed(pairs))) == 1.0  # any order, either way round
    for rec in recs("point_in_polygon"):
        p = problem(rec)
        poly = [tuple(v) for v in p["polygon"]]
        assert p["labels"] == "".join(_where(poly, tuple(q)) for q in p["queries"])
    for rec in recs("polygon_interior_lattice_points", (0, 1)):
        poly = [tuple(v) for v in problem(rec)["polygon"]]
        xs, ys = [x for x, _ in poly], [y for _, y in poly]
        inside = sum(_where(poly, (x, y)) == "I" for x in range(min(xs), max(xs) + 1) for y in range(min(ys), max(ys) + 1))
        assert problem(rec)["value"] == inside


# ---------------------------------------------------------------------------- algo_structures.py

def test_stack_permutation_checks_by_running_the_stack():
    for rec in recs("stack_permutation", (0,)):
        n = len(problem(rec)["target"])
        right = [ops for ops in itertools.product("+-", repeat=2 * n) if value(rec, " ".join(ops)) == 1.0]
        assert right == [tuple(gold(rec).split())]  # exactly one run produces the target
    rec = hand("stack_permutation", {"target": [3, 1, 2]})  # 3 1 2 cannot come out of a stack
    assert all(value(rec, " ".join(ops)) < 1.0 for ops in itertools.product("+-", repeat=6))
    assert value(rec, "+ + + - - -") == pytest.approx((1 / 3) ** 5)  # 3 right, then 2 instead of 1


def test_structure_simulations_match_independent_runs():
    for rec in recs("binary_heap_array"):
        heap = []
        for op in problem(rec)["ops"]:
            if op == "extract":
                heap[0] = heap[-1]
                heap.pop()
                i = 0
                while 2 * i + 1 < len(heap):
                    c = 2 * i + 1 if 2 * i + 2 >= len(heap) or heap[2 * i + 1] < heap[2 * i + 2] else 2 * i + 2
                    if heap[c] > heap[i]:
                        break
                    heap[c], heap[i], i = heap[i], heap[c], c
            else:
                heap.append(int(op.split()[1]))
                i = len(heap) - 1
                while i and heap[(i - 1) // 2] > heap[i]:
                    heap[(i - 1) // 2], heap[i], i = heap[i], heap[(i - 1) // 2], (i - 1) // 2
        assert problem(rec)["heap"] == heap
    for rec in recs("lru_cache"):
        p, cache, out = problem(rec), [], []
        for k in p["requests"]:
            out.append("H" if k in cache else "M")
            cache = [x for x in cache if x != k] + [k]
            cache = cache[-p["capacity"]:]
        assert p["result"] == "".join(out)
    for rec in recs("bst_parents"):
        keys, parents = problem(rec)["keys"], []
        for i, k in enumerate(keys[1:], 1):  # the parent: the nearest earlier key on the search path
            lo = max((x for x in keys[:i] if x < k), default=None)
            hi = min((x for x in keys[:i] if x > k), default=None)
            parents.append(lo if hi is None or (lo is not None and keys.index(lo) > keys.index(hi)) else hi)
        assert problem(rec)["parents"] == parents
    for rec in recs("round_robin_scheduling"):
        p = problem(rec)
        left, t, done, queue = p["bursts"][:], 0, {}, list(range(len(p["bursts"])))
        while queue:
            i = queue.pop(0)
            for _ in range(p["quantum"]):  # one time unit at a time
                if left[i]:
                    left[i] -= 1
                    t += 1
            if left[i]:
                queue.append(i)
            else:
                done[i] = t
        assert p["done"] == [done[i] for i in range(len(left))]
    for rec in recs("linear_probing_table"):
        p = problem(rec)
        table = dict()
        for k in p["keys"]:
            slot = next(s % p["m"] for s in range(k % p["m"], k % p["m"] + p["m"]) if s % p["m"] not in table)
            table[slot] = k
        assert p["table"] == [str(table[i]) if i in table else "." for i in range(p["m"])]
    for rec in recs("multi_server_queue"):
        p = problem(rec)
        busy_until, done, waiting, t = [0] * p["servers"], [None] * len(p["arrivals"]), [], 0
        while None in done:  # tick by tick
            waiting += [i for i, a in enumerate(p["arrivals"]) if a == t]
            for s in range(p["servers"]):
                if busy_until[s] <= t and waiting:
                    i = waiting.pop(0)
                    busy_until[s] = done[i] = t + p["service"][i]
            t += 1
        assert p["done"] == done


def test_avl_trees_are_balanced_search_trees():
    def shape(pre):  # rebuild a BST from its preorder: (key, left, right)
        if not pre:
            return None
        root = pre[0]
        return root, shape([k for k in pre[1:] if k < root]), shape([k for k in pre[1:] if k > root])

    def height(t):
        return 0 if t is None else 1 + max(height(t[1]), height(t[2]))

    def balanced(t):
        return t is None or (abs(height(t[1]) - height(t[2])) <= 1 and balanced(t[1]) and balanced(t[2]))

    for rec in recs("avl_preorder", (0, 3, 8)):
        p = problem(rec)
        tree = shape(p["preorder"])
        assert sorted(p["preorder"]) == sorted(p["keys"]) and balanced(tree)
    env = envs.make("avl_preorder")
    for keys, pre in (([1, 2, 3, 4, 5, 6, 7], [4, 2, 1, 3, 6, 5, 7]), ([3, 1, 2], [2, 1, 3]), ([1, 3, 2], [2, 1, 3]),
                      ([10, 20, 30, 25, 28], [20, 10, 28, 25, 30])):
        rec = hand("avl_preorder", {"keys": keys, "preorder": pre})
        root = None
        from envs.gym.algo_structures import _avl_insert, _preorder
        for k in keys:
            root = _avl_insert(root, k)
        assert _preorder(root) == pre and env.score(rec, f"<answer>{' '.join(map(str, pre))}</answer>").correct


def test_postfix_evaluates_like_the_infix():
    from fractions import Fraction
    import random

    rng = random.Random(0)
    for rec in recs("infix_to_postfix", (0, 2, 5, 9)):
        p = problem(rec)
        for _ in range(3):
            env_vars = {c: Fraction(rng.randint(1, 9)) for c in "abcdefghijklmnopqrstuvwxyz"}
            try:
                expected = eval(p["infix"], {}, env_vars)  # noqa: S307 (our own letters and + - * /)
            except ZeroDivisionError:
                continue
            stack = []
            for t in p["postfix"]:
                if t in "+-*/":
                    b, a = stack.pop(), stack.pop()
                    stack.append({"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else None}[t])
                else:
                    stack.append(env_vars[t])
            assert stack == [expected]


# ---------------------------------------------------------------------------- algo_intervals.py

def _covers(ivs, length):  # integer endpoints: checking every half-unit point is exact
    return all(any(a <= x / 2 <= b for a, b in ivs) for x in range(2 * length + 1))


def test_interval_answers_match_brute_force():
    for rec in recs("interval_list_intersections"):
        p = problem(rec)
        pairs = sorted((max(a[0], b[0]), min(a[1], b[1])) for a in p["a"] for b in p["b"] if max(a[0], b[0]) <= min(a[1], b[1]))
        assert list(map(tuple, p["common"])) == pairs
    for rec in recs("interval_cover", (0, 1)):
        p = problem(rec)
        ivs, n = p["intervals"], len(p["intervals"])
        covering = [c for k in range(1, n + 1) for c in itertools.combinations(range(n), k)
                    if _covers([ivs[i] for i in c], p["length"])]
        assert p["optimum"] == min(map(len, covering))
        for c in covering[:20]:
            assert value(rec, " ".join(map(str, c))) == pytest.approx((p["optimum"] / len(c)) ** 5)
        gaps = next(c for c in itertools.combinations(range(n), 2) if not _covers([ivs[i] for i in c], p["length"]))
        assert value(rec, " ".join(map(str, gaps))) == 0.0
    for rec in recs("skyline"):
        p = problem(rec)

        def height(x):
            return max((h for l, r, h in p["buildings"] if l < x < r), default=0)

        keys = [(x, height(x + 0.5)) for x in range(0, 5 * len(p["buildings"]) + 2) if height(x + 0.5) != height(x - 0.5)]
        assert list(map(tuple, p["keys"])) == keys
    for rec in recs("rectangle_union_area"):
        rects = problem(rec)["rects"]
        cells = {(x, y) for x0, y0, x1, y1 in rects for x in range(x0, x1) for y in range(y0, y1)}
        assert problem(rec)["value"] == len(cells)
    for rec in recs("interval_point_coverage"):
        p = problem(rec)
        assert p["counts"] == [sum(a <= q <= b for a, b in p["intervals"]) for q in p["queries"]]


# ---------------------------------------------------------------------------- algo_search.py

def test_search_answers_are_checked_against_brute_force():
    for rec in recs("three_sum", (0,)):
        p = problem(rec)
        for t in itertools.combinations(range(len(p["array"])), 3):
            assert value(rec, " ".join(map(str, reversed(t)))) == (1.0 if sum(p["array"][i] for i in t) == p["target"] else 0.0)
    for rec in recs("shortest_subarray_at_least"):
        p = problem(rec)
        a = p["array"]
        ok = [(l, r) for l in range(len(a)) for r in range(l, len(a)) if sum(a[l:r + 1]) >= p["target"]]
        assert p["optimum"] == min(r - l + 1 for l, r in ok)
        assert all(value(rec, f"{l} {r}") == pytest.approx((p["optimum"] / (r - l + 1)) ** 5) for l, r in ok[:30])
    for rec in recs("jump_game"):
        a = problem(rec)["array"]
        fewest = [0] + [10 ** 9] * (len(a) - 1)
        for i in range(len(a)):
            for j in range(i + 1, min(len(a), i + a[i] + 1)):
                fewest[j] = min(fewest[j], fewest[i] + 1)
        assert problem(rec)["optimum"] == fewest[-1]
    for rec in recs("gas_station"):
        p = problem(rec)
        prefix = list(itertools.accumulate(g - c for g, c in zip(p["gas"], p["cost"])))
        assert int(gold(rec)) == (prefix.index(min(prefix)) + 1) % len(prefix)  # after the lowest prefix sum
        assert sum(value(rec, str(s)) == 1.0 for s in range(len(prefix))) == 1
    for rec in recs("next_permutation", (0, 1)):
        a = problem(rec)["array"]
        perms = sorted(set(itertools.permutations(a)))
        assert problem(rec)["next"] == list(perms[perms.index(tuple(a)) + 1])
    for rec in recs("lower_bound_queries"):
        p = problem(rec)
        assert p["positions"] == [next((i for i, x in enumerate(p["array"]) if x >= q), len(p["array"])) for q in p["queries"]]
    for rec in recs("fire_spread_time"):
        grid = [list(r) for r in problem(rec)["grid"]]
        minute = 0
        while True:  # minute by minute
            spread = [(r + dr, c + dc) for r, row in enumerate(grid) for c, x in enumerate(row) if x == "F"
                      for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                      if 0 <= r + dr < len(grid) and 0 <= c + dc < len(grid) and grid[r + dr][c + dc] == "."]
            if not spread:
                break
            for r, c in spread:
                grid[r][c] = "F"
            minute += 1
        assert problem(rec)["value"] == minute
    for rec in recs("candy_distribution"):
        r = problem(rec)["ratings"]
        c, changed = [1] * len(r), True
        while changed:  # the least fixed point of the constraints
            changed = False
            for i in range(len(r)):
                for j in (i - 1, i + 1):
                    if 0 <= j < len(r) and r[i] > r[j] and c[i] <= c[j]:
                        c[i], changed = c[j] + 1, True
        assert problem(rec)["value"] == sum(c)


# ---------------------------------------------------------------------------- added last

def test_more_answers_match_brute_force():
    for rec in recs("palindrome_radii"):
        s = problem(rec)["s"]
        assert problem(rec)["radii"] == [max(r for r in range(min(i, len(s) - 1 - i) + 1)
                                             if s[i - r:i + r + 1] == s[i - r:i + r + 1][::-1]) for i in range(len(s))]
    for rec in recs("lz78_parse"):
        s, phrases, i = problem(rec)["s"], [], 0
        while i < len(s):
            known = max((p for p in phrases if s.startswith(p, i)), key=len, default="")
            phrases.append(s[i:i + len(known) + 1])
            i += len(phrases[-1])
        assert problem(rec)["phrases"] == phrases
        assert value(rec, " ".join(s)) == (1.0 if phrases == list(s) else -0.5 if len(phrases) != len(s) else 0.0)
    for rec in recs("bracket_partners"):
        s, partner = problem(rec)["s"], problem(rec)["partner"]
        for i, j in enumerate(partner):
            inner = s[min(i, j) + 1:max(i, j)]
            while any(pair in inner for pair in ("()", "[]", "{}")):
                for pair in ("()", "[]", "{}"):
                    inner = inner.replace(pair, "")
            assert partner[j] == i and s[min(i, j)] + s[max(i, j)] in ("()", "[]", "{}") and inner == ""
    for rec in recs("cycle_detection"):
        p = problem(rec)
        seq = [p["x0"]]
        for _ in range(2 * len(p["f"])):
            seq.append(p["f"][seq[-1]])
        mu = next(i for i, x in enumerate(seq) if x in seq[i + 1:])  # tail values never come back
        lam = seq[mu + 1:].index(seq[mu]) + 1
        assert (p["mu"], p["lam"]) == (mu, lam)
        assert value(rec, f"{mu} {lam + 1}") == 0.5 and value(rec, f"{mu + 1} {lam + 1}") == 0.0
    for rec in recs("largest_square_of_ones"):
        grid = problem(rec)["grid"]
        n = len(grid)
        squares = [(r, c, k) for k in range(1, n + 1) for r in range(n - k + 1) for c in range(n - k + 1)
                   if all(grid[i][j] == "1" for i in range(r, r + k) for j in range(c, c + k))]
        best = max(k for _, _, k in squares)
        assert problem(rec)["best"] == best
        assert all(value(rec, f"{r} {c} {k}") == 1.0 for r, c, k in squares if k == best)
        zero = next(((r, c) for r in range(n) for c in range(n) if grid[r][c] == "0"), None)
        if zero:
            assert value(rec, f"{zero[0]} {zero[1]} 1") == 0.0


def test_bipartite_edge_colouring_is_checked_not_compared():
    for rec in recs("bipartite_edge_coloring"):
        p = problem(rec)
        degree = {}
        for u, v in p["edges"]:
            degree[("L", u)] = degree.get(("L", u), 0) + 1
            degree[("R", v)] = degree.get(("R", v), 0) + 1
        assert max(degree.values()) == p["colours"]  # Koenig: D colours suffice, and are needed
        colours = list(map(int, gold(rec).split()))
        renamed = [c % p["colours"] + 1 for c in colours]  # the same classes under other names
        assert renamed != colours and value(rec, " ".join(map(str, renamed))) == 1.0
        assert value(rec, " ".join("1" for _ in colours)) < 1.0
        assert value(rec, " ".join(str(p["colours"] + 1) for _ in colours)) == -0.5


# ---------------------------------------------------------------------------- worked solutions

EXPLAINED = ["prefix_function", "stack_permutation", "lru_cache", "bst_parents", "round_robin_scheduling",
             "linear_probing_table", "multi_server_queue", "lower_bound_queries", "candy_distribution"]


@pytest.mark.parametrize("name", EXPLAINED)
def test_worked_solutions_are_opt_in_and_agree_with_the_answer(name):
    import re

    plain, worked = envs.make(name), envs.make(name, reasoning=True)
    for d in (0, 3, 8):
        for seed in range(3):
            a, b = plain.generate(seed=seed, difficulty=d), worked.generate(seed=seed, difficulty=d)
            assert a["prompt"] == b["prompt"] and b["answer"].endswith(a["answer"]) and envs.score(b, b["answer"]).correct
            steps, p = b["answer"].split("</reasoning>")[0], problem(a)
            if name == "linear_probing_table":  # every key's slot in the steps is its slot in the table
                for k, slot in re.findall(r"(\d+) mod \d+ = \d+;[^\n]*slot (\d+)\.", steps):
                    assert p["table"][int(slot)] == k
            if name == "candy_distribution":
                assert steps.strip().endswith(f"= {p['value']}.")
            if name == "stack_permutation":  # the steps spell the gold operations
                ops = re.findall(r"(push|pop) \d+", steps)
                assert " ".join("+" if o == "push" else "-" for o in ops) == gold(a)
            if name == "lower_bound_queries":
                assert re.findall(r"so (\d+)\.", steps) == list(map(str, p["positions"]))
