"""The competition_* gym families' gold answers against independent brute force on small
problems, for several seeds (the registry-wide contract in tests/test_gym.py covers determinism,
gold answers scoring 1, junk and hostile text)."""
from __future__ import annotations

import itertools
import json
import math
from collections import Counter

import pytest

import envs

SEEDS = range(6)


def problems(name: str, difficulties=(0, 1)):
    env = envs.make(name)
    for d in difficulties:
        for s in SEEDS:
            rec = env.generate(s, d)
            yield json.loads(rec["meta"]["problem"]), rec


def gold(rec: dict) -> str:
    return rec["answer"][len("<answer>"):-len("</answer>")]


def masks(items):
    for k in range(len(items) + 1):
        yield from itertools.combinations(range(len(items)), k)


def cycles(p):
    seen, c = set(), 0
    for i in range(len(p)):
        if i not in seen:
            c += 1
            while i not in seen:
                seen.add(i)
                i = p[i]
    return c


def set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]


def all_values(vals, ops):
    """Multiset of truth values over all full parenthesizations."""
    if len(vals) == 1:
        return Counter([vals[0] == "T"])
    out = Counter()
    for k in range(len(ops)):
        for (a, x), (b, y) in itertools.product(all_values(vals[:k + 1], ops[:k]).items(),
                                                all_values(vals[k + 1:], ops[k + 1:]).items()):
            out[{"&": a and b, "|": a or b, "^": a != b}[ops[k]]] += x * y
    return out


def is_tree(n, edges):
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra == rb:
            return False
        parent[ra] = rb
    return True


# ---------------------------------------------------------------------------- competition_dp.py

def brute_dp(name, p):
    if name == "broken_stairs_ways":
        def ways(i):
            return 1 if i == p["n"] else sum(ways(i + s) for s in p["steps"] if i + s <= p["n"] and i + s not in p["broken"])
        return ways(0)
    if name == "subset_sum_counting":
        return sum(sum(p["items"][i] for i in m) == p["target"] for m in masks(p["items"]))
    if name == "subsets_sum_divisible_counting":
        return sum(sum(p["items"][i] for i in m) % p["m"] == 0 for m in masks(p["items"]) if m)
    a = p.get("a")
    if name == "increasing_subsequences_counting":
        return sum(all(a[x] < a[y] for x, y in zip(m, m[1:])) for m in masks(a) if m)
    if name == "arithmetic_subsequences_counting":
        return sum(len({a[y] - a[x] for x, y in zip(m, m[1:])}) == 1 for m in masks(a) if len(m) >= 3)
    if name == "decode_ways_counting":
        s = p["s"]
        return sum(all(not part.startswith("0") and 1 <= int(part) <= 26 for part in
                       (s[i:j] for i, j in zip((0,) + cut, cut + (len(s),))))
                   for k in range(len(s)) for cut in itertools.combinations(range(1, len(s)), k))
    if name == "palindromic_subsequences_counting":
        s = p["s"]
        return sum(t == t[::-1] for t in ("".join(s[i] for i in m) for m in masks(s) if m))
    if name == "permutation_signature_counting":
        sig = p["sig"]
        return sum(all((x < y) == (c == "I") for x, y, c in zip(q, q[1:], sig))
                   for q in itertools.permutations(range(len(sig) + 1)))
    perms = list(itertools.permutations(range(p.get("n", 0)))) if name in (
        "eulerian_number", "stirling_first_kind", "rencontres_number") else []
    if name == "eulerian_number":
        return sum(sum(x > y for x, y in zip(q, q[1:])) == p["k"] for q in perms)
    if name == "stirling_first_kind":
        return sum(cycles(q) == p["k"] for q in perms)
    if name == "rencontres_number":
        return sum(sum(q[i] == i for i in range(len(q))) == p["k"] for q in perms)
    if name == "bounded_block_set_partitions":
        return sum(max(map(len, part)) <= p["b"] for part in set_partitions(list(range(p["n"]))))
    if name == "distinct_parts_partitions":
        parts = range(1, p["m"] + 1)
        return sum(sum(c) == p["n"] for k in range(len(parts) + 1) for c in itertools.combinations(parts, k))
    if name == "grid_paths_with_k_turns":
        total = p["a"] + p["b"]
        return sum(sum(x != y for x, y in zip(w, w[1:])) == p["k"]
                   for w in ("".join("R" if i in rs else "U" for i in range(total))
                             for rs in map(set, itertools.combinations(range(total), p["a"]))))
    if name == "boolean_parenthesization_counting":
        return all_values(p["vals"], p["ops"])[True]
    if name == "fence_painting_ways":
        return sum(all(len(set(c[i:i + p["r"] + 1])) > 1 for i in range(p["n"] - p["r"]))
                   for c in itertools.product(range(p["k"]), repeat=p["n"]))
    if name == "digraph_walks_counting":
        e = {tuple(x) for x in p["edges"]}
        return sum(all((x, y) in e for x, y in zip((p["u"],) + w, w)) for w in
                   itertools.product(range(p["n"]), repeat=p["steps"]) if w[-1] == p["v"])
    if name == "dice_sum_ways":
        return sum(sum(r) == p["t"] for r in itertools.product(range(1, p["f"] + 1), repeat=p["n"]))
    if name == "distinct_subset_sums_counting":
        return len({sum(p["items"][i] for i in m) for m in masks(p["items"]) if m})
    if name == "triangle_triples_counting":
        return sum(x + y > z and x + z > y and y + z > x for x, y, z in itertools.combinations(a, 3))
    subs = [a[i:j] for i in range(len(a)) for j in range(i + 1, len(a) + 1)] if a else []
    if name == "subarrays_with_sum_counting":
        return sum(sum(s) == p["k"] for s in subs)
    if name == "subarrays_k_distinct_counting":
        return sum(len(set(s)) <= p["k"] for s in subs)
    if name == "bounded_range_subarrays_counting":
        return sum(max(s) - min(s) <= p["k"] for s in subs)
    if name == "subarrays_gcd_counting":
        return sum(math.gcd(*s) == p["g"] for s in subs)
    if name == "labeled_trees_degree_sequence":
        n = len(p["deg"])
        return sum(is_tree(n, es) and all(sum(v in e for e in es) == p["deg"][v] for v in range(n))
                   for es in itertools.combinations(list(itertools.combinations(range(n), 2)), n - 1))
    if name == "standard_young_tableaux":
        shape = p["shape"]
        cells = [(r, c) for r in range(len(shape)) for c in range(shape[r])]
        count = 0
        for q in itertools.permutations(range(len(cells))):
            at = dict(zip(cells, q))
            count += all(at[(r, c)] < at[(r, c + 1)] for r, c in cells if (r, c + 1) in at) and all(
                at[(r, c)] < at[(r + 1, c)] for r, c in cells if (r + 1, c) in at)
        return count
    raise KeyError(name)


DP = ["broken_stairs_ways", "subset_sum_counting", "subsets_sum_divisible_counting",
      "increasing_subsequences_counting", "arithmetic_subsequences_counting", "decode_ways_counting",
      "palindromic_subsequences_counting", "permutation_signature_counting", "eulerian_number",
      "stirling_first_kind", "rencontres_number", "bounded_block_set_partitions", "distinct_parts_partitions",
      "grid_paths_with_k_turns", "boolean_parenthesization_counting", "fence_painting_ways",
      "digraph_walks_counting", "dice_sum_ways", "distinct_subset_sums_counting", "triangle_triples_counting",
      "subarrays_with_sum_counting", "subarrays_k_distinct_counting", "bounded_range_subarrays_counting",
      "subarrays_gcd_counting", "labeled_trees_degree_sequence", "standard_young_tableaux"]


@pytest.mark.parametrize("name", DP)
def test_dp_counts_match_brute_force(name):
    for p, rec in problems(name, (0,) if name in ("fence_painting_ways", "standard_young_tableaux") else (0, 1)):
        assert p["count"] == brute_dp(name, p) == int(gold(rec)), (name, p)


# ---------------------------------------------------------------------------- competition_trees.py

def floyd(n, edges):
    inf = float("inf")
    d = [[0 if i == j else inf for j in range(n + 1)] for i in range(n + 1)]
    for a, b in edges:
        d[a][b] = d[b][a] = 1
    for k in range(1, n + 1):
        for i in range(1, n + 1):
            for j in range(1, n + 1):
                d[i][j] = min(d[i][j], d[i][k] + d[k][j])
    return d


def on_path(d, u, v, a, b):
    return d[u][a] + 1 + d[b][v] == d[u][v] or d[u][b] + 1 + d[a][v] == d[u][v]


def connected(vs, edges):
    vs = set(vs)
    if not vs:
        return False
    seen, stack = set(), [min(vs)]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        stack += [b if a == x else a for a, b in edges if x in (a, b) and {a, b} <= vs]
    return seen == vs


def from_prufer(code, n):
    degree = [1] * (n + 1)
    for x in code:
        degree[x] += 1
    edges = []
    for x in code:
        leaf = min(v for v in range(1, n + 1) if degree[v] == 1)
        edges.append({leaf, x})
        degree[leaf] -= 1
        degree[x] -= 1
    edges.append({v for v in range(1, n + 1) if degree[v] == 1})
    return edges


def postorder(pre, ino):
    if not pre:
        return []
    i = ino.index(pre[0])
    return postorder(pre[1:i + 1], ino[:i]) + postorder(pre[i + 1:], ino[i + 1:]) + [pre[0]]


def brute_tree(name, p):
    n, edges = p.get("n"), p.get("edges")
    verts = range(1, (n or 0) + 1)
    d = floyd(n, edges) if edges is not None else None
    subsets = [s for k in range(n + 1) for s in itertools.combinations(verts, k)] if n else []
    edge_sets = list(masks(edges)) if edges else []
    if name == "tree_topological_orderings":
        parent = {v: next(u for u in verts if d[1][u] + 1 == d[1][v] and d[u][v] == 1) for v in verts if v != 1}
        return sum(all(q.index(parent[v]) < q.index(v) for v in parent) for q in itertools.permutations(verts))
    if name == "tree_connected_subsets_counting":
        return sum(connected(s, edges) for s in subsets)
    if name == "tree_pairs_at_distance_k":
        return sum(d[u][v] == p["k"] for u, v in itertools.combinations(verts, 2))
    if name == "tree_matchings_counting":
        return sum(len({x for i in m for x in edges[i]}) == 2 * len(m) for m in edge_sets)
    if name == "tree_dominating_sets_counting":
        return sum(all(v in s or any(d[v][u] == 1 for u in s) for v in verts) for s in subsets)
    if name == "tree_pairwise_max_edge_sum":
        return sum(max(w for (a, b), w in zip(edges, p["w"]) if on_path(d, u, v, a, b))
                   for u, v in itertools.combinations(verts, 2))
    if name == "tree_path_xor_pairs":
        xors = []
        for u, v in itertools.combinations(verts, 2):
            x = 0
            for (a, b), w in zip(edges, p["w"]):
                if on_path(d, u, v, a, b):
                    x ^= w
            xors.append(x)
        return xors.count(0)
    if name == "tree_even_split_edges":
        best = 0
        for m in edge_sets:
            kept = [e for i, e in enumerate(edges) if i not in m]
            dk = floyd(n, kept)
            if all(sum(dk[v][u] < n for u in verts) % 2 == 0 for v in verts):  # every component even
                best = max(best, len(m))
        return best
    if name == "tree_precolored_colorings":
        return sum(all(c[a - 1] != c[b - 1] for a, b in edges) and all(c[int(v) - 1] == k for v, k in p["fixed"].items())
                   for c in itertools.product(range(1, p["k"] + 1), repeat=n))
    raise KeyError(name)


TREES = ["tree_topological_orderings", "tree_connected_subsets_counting",
         "tree_pairs_at_distance_k", "tree_matchings_counting", "tree_dominating_sets_counting",
         "tree_pairwise_max_edge_sum", "tree_path_xor_pairs", "tree_precolored_colorings",
         "tree_even_split_edges"]


@pytest.mark.parametrize("name", TREES)
def test_tree_answers_match_brute_force(name):
    for p, rec in problems(name):
        assert str(brute_tree(name, p)) == gold(rec), (name, p)


def test_prufer_code_and_postorder_round_trip():
    for p, rec in problems("prufer_code", (0, 1, 4)):
        assert sorted(map(sorted, from_prufer(p["list"], p["n"]))) == sorted(map(sorted, p["edges"]))
    for p, rec in problems("tree_postorder_from_traversals", (0, 1, 4)):
        assert postorder(p["pre"], p["in"]) == p["list"] == list(map(int, gold(rec).split()))


# ---------------------------------------------------------------------------- competition_numbers.py

def is_prime_slow(n):
    return n > 1 and all(n % q for q in range(2, math.isqrt(n) + 1))


def brute_number(name, p):
    n = p.get("n")
    if name == "divisor_count_of_product":
        x = math.prod(p["xs"])
        return sum(2 - (k * k == x) for k in range(1, math.isqrt(x) + 1) if x % k == 0)
    if name == "nondecreasing_digits_counting":
        return sum(list(str(x)) == sorted(str(x)) for x in range(1, n + 1))
    if name == "digit_occurrences_count":
        return sum(str(x).count(str(p["c"])) for x in range(1, n + 1))
    if name == "total_set_bits":
        return sum(bin(x).count("1") for x in range(1, n + 1))
    if name == "sum_of_remainders":
        return sum(n % i for i in range(1, p["k"] + 1))
    if name == "squarefree_counting":
        bad = {x for m in range(2, math.isqrt(n) + 1) for x in range(m * m, n + 1, m * m)}
        return n - len(bad)
    if name == "factorial_last_nonzero_digit":
        return int(str(math.factorial(n)).rstrip("0")[-1])
    if name == "pisano_period":
        fib = [0, 1]
        for _ in range(14 * p["m"]):
            fib.append((fib[-1] + fib[-2]) % p["m"])
        return next(k for k in range(1, 6 * p["m"] + 1) if all(fib[i] == fib[i + k] for i in range(6 * p["m"])))
    if name == "consecutive_sum_representations":
        return sum((n - length * (length - 1) // 2) % length == 0
                   for length in range(1, n + 1) if length * (length + 1) // 2 <= n)
    if name == "frobenius_number":
        top = p["coins"][0] * p["coins"][1]
        ok = [True] + [False] * top
        for v in range(1, top + 1):
            ok[v] = any(v >= c and ok[v - c] for c in p["coins"])
        return max(v for v in range(top + 1) if not ok[v])
    if name == "totient_summatory":
        return sum(math.gcd(k, i) == 1 for i in range(1, n + 1) for k in range(1, i + 1))
    if name == "goldbach_partitions":
        return sum(is_prime_slow(a) and is_prime_slow(n - a) for a in range(2, n // 2 + 1))
    if name == "palindromic_numbers_counting":
        return sum(str(x) == str(x)[::-1] for x in range(1, n + 1))
    if name == "k_set_bits_counting":
        return sum(bin(x).count("1") == p["k"] for x in range(1, n + 1))
    if name == "binomial_prime_exponent":
        c, e = math.comb(n, p["k"]), 0
        while c % p["p"] == 0:
            c, e = c // p["p"], e + 1
        return e
    if name == "no_adjacent_equal_digits_counting":
        return sum(all(a != b for a, b in zip(str(x), str(x)[1:])) for x in range(1, n + 1))
    if name == "perfect_powers_counting":
        return len({m ** k for m in range(1, math.isqrt(n) + 1) for k in range(2, 60) if m ** k <= n})
    raise KeyError(name)


NUMBERS = ["divisor_count_of_product", "nondecreasing_digits_counting", "digit_occurrences_count", "total_set_bits",
           "sum_of_remainders", "squarefree_counting", "factorial_last_nonzero_digit", "pisano_period",
           "consecutive_sum_representations", "frobenius_number", "totient_summatory", "goldbach_partitions",
           "perfect_powers_counting", "palindromic_numbers_counting", "k_set_bits_counting",
           "binomial_prime_exponent", "no_adjacent_equal_digits_counting"]


@pytest.mark.parametrize("name", NUMBERS)
def test_number_answers_match_brute_force(name):
    for p, rec in problems(name, (0,) if name in ("squarefree_counting", "sum_of_remainders") else (0, 1)):
        assert str(brute_number(name, p)) == gold(rec), (name, p)




# ---------------------------------------------------------------------------- competition_games.py

def solve(moves):
    """win(state) by memoised search; moves(state) -> [(answer, next_state)], terminal -> []."""
    memo = {}

    def win(state):
        if state not in memo:
            memo[state] = any(nxt == "won" or not win(nxt) for _, nxt in moves(state))
        return memo[state]

    return win


def game_moves(name, p):
    """(answers of the legal moves from the start, the move function on states, the start state)."""
    if name == "subtraction_game_move":
        def moves(h):
            return [(f"{i} {t}", h[:i] + (x - t,) + h[i + 1:]) for i, x in enumerate(h) for t in p["s"] if t <= x]
        return moves, tuple(p["heaps"])
    if name == "staircase_nim_move":
        def moves(c):
            out = []
            for i in range(len(c)):
                for k in range(1, c[i] + 1):
                    nxt = list(c)
                    nxt[i] -= k
                    if i:
                        nxt[i - 1] += k
                    out.append((f"{i + 1} {k}", tuple(nxt)))
            return out
        return moves, tuple(p["coins"])
    if name == "wythoff_move":
        def moves(s):
            a, b = s
            return ([(f"{x} {b}", (x, b)) for x in range(a)] + [(f"{a} {y}", (a, y)) for y in range(b)]
                    + [(f"{a - k} {b - k}", (a - k, b - k)) for k in range(1, min(a, b) + 1)])
        return moves, (p["a"], p["b"])
    if name == "kayles_move":
        def moves(r):
            out = [(str(i + 1), r[:i] + "." + r[i + 1:]) for i in range(len(r)) if r[i] == "I"]
            return out + [(f"{i + 1} {i + 2}", r[:i] + ".." + r[i + 2:]) for i in range(len(r) - 1) if r[i:i + 2] == "II"]
        return moves, p["row"]
    if name == "euclid_game_move":
        def moves(s):
            a, b = s
            if a > b:
                return [(f"{a - m * b} {b}", "won" if a == m * b else (a - m * b, b)) for m in range(1, a // b + 1)]
            return [(f"{a} {b - m * a}", "won" if b == m * a else (a, b - m * a)) for m in range(1, b // a + 1)]
        return moves, (p["a"], p["b"])
    if name == "dag_tokens_game_move":
        def moves(t):
            return [(f"{u} {v}", tuple(sorted(t[:i] + (v,) + t[i + 1:]))) for i, u in enumerate(t)
                    for a, v in p["edges"] if a == u]
        return moves, tuple(p["tokens"])
    raise KeyError(name)


MOVE_GAMES = ["subtraction_game_move", "staircase_nim_move", "wythoff_move", "kayles_move", "euclid_game_move",
              "dag_tokens_game_move"]


@pytest.mark.parametrize("name", MOVE_GAMES)
def test_game_moves_are_graded_by_brute_force_search(name):
    for p, rec in problems(name, (0,)):
        moves, start = game_moves(name, p)
        win = solve(moves)
        assert win(start), (name, p, "generated positions are won for the mover")
        graded = {ans: envs.score(rec, f"<answer>{ans}</answer>").value for ans, _ in moves(start)}
        for ans, nxt in moves(start):
            assert graded[ans] == (1.0 if nxt == "won" or not win(nxt) else 0.0), (name, p, ans)
        assert gold(rec) in graded and graded[gold(rec)] == 1.0
        assert envs.score(rec, "<answer>999999 999999</answer>").value == -0.5


def hackenbush_value(edges):
    """Grundy value by brute force: edges (child, parent) of trees rooted at the ground vertex 0."""
    memo = {}

    def grounded(es):
        keep, changed = set(), True
        while changed:
            changed = False
            for c, par in es:
                if (c, par) not in keep and (par == 0 or any(c2 == par for c2, _ in keep)):
                    keep.add((c, par))
                    changed = True
        return frozenset(keep)

    def g(es):
        if es not in memo:
            memo[es] = mex(g(grounded(es - {e})) for e in es)
        return memo[es]

    return g(frozenset(edges))


def test_value_games_match_brute_force():
    for p, rec in problems("hackenbush_tree_grundy", (0, 1)):
        x = 0
        for par in p["parents"]:
            x ^= hackenbush_value({(v, par[v]) for v in range(1, len(par))})  # the trees' sum: XOR
        assert x == int(gold(rec)), p
    for p, rec in problems("take_from_ends_game", (0, 1)):
        from functools import lru_cache

        @lru_cache(maxsize=None)
        def best(i, j):  # (mover's total, other's total) on a[i:j]
            if i == j:
                return 0, 0
            left, right = best(i + 1, j), best(i, j - 1)
            return max((p["a"][i] + left[1], left[0]), (p["a"][j - 1] + right[1], right[0]))

        assert best(0, len(p["a"]))[0] == int(gold(rec))
    for p, rec in problems("minimax_tree_value", (0, 1)):
        kids = {v: [c for c, q in enumerate(p["parent"]) if q == v] for v in range(len(p["parent"]))}

        def value(v, maximise):
            if not kids[v]:
                return p["leaves"][str(v)]
            return (max if maximise else min)(value(c, not maximise) for c in kids[v])

        assert value(0, True) == int(gold(rec))


def mex(values):
    values = set(values)
    return next(g for g in range(len(values) + 1) if g not in values)


# ---------------------------------------------------------------------------- competition_strings.py

def splits(s):
    """Every way to cut s into non-empty consecutive pieces."""
    for k in range(len(s)):
        for cut in itertools.combinations(range(1, len(s)), k):
            yield [s[i:j] for i, j in zip((0,) + cut, cut + (len(s),))]


def brute_string(name, p):
    s = p.get("s")
    if name == "distinct_substrings_counting":
        return len({"".join(s[i] for i in range(a, b)) for a in range(len(s)) for b in range(a + 1, len(s) + 1)})
    if name == "minimal_period":
        return next(q for q in range(1, len(s) + 1) if all(s[i] == s[i + q] for i in range(len(s) - q)))
    if name == "min_prepend_for_palindrome":
        return next(k for k in range(len(s)) if s[:len(s) - k] == s[:len(s) - k][::-1])
    if name == "word_break_counting":
        return sum(all(w in p["words"] for w in ws) for ws in splits(s))
    if name == "interleaving_strings_counting":
        c, a, b = p["c"], p["a"], p["b"]
        return sum("".join(c[i] for i in m) == a and "".join(c[i] for i in range(len(c)) if i not in m) == b
                   for m in itertools.combinations(range(len(c)), len(a)))
    if name == "anagram_substrings_counting":
        return sum(sorted(s[i:i + len(p["p"])]) == sorted(p["p"]) for i in range(len(s) - len(p["p"]) + 1))
    if name == "smallest_distinct_subsequence":
        letters = set(s)
        return min("".join(s[i] for i in m) for m in itertools.combinations(range(len(s)), len(letters))
                   if {s[i] for i in m} == letters)
    if name == "remove_k_digits":
        return min(int("".join(s[i] for i in m) or "0") for m in itertools.combinations(range(len(s)), len(s) - p["k"]))
    raise KeyError(name)


STRINGS = ["distinct_substrings_counting", "minimal_period", "min_prepend_for_palindrome", "word_break_counting",
           "interleaving_strings_counting", "anagram_substrings_counting", "smallest_distinct_subsequence",
           "remove_k_digits"]


@pytest.mark.parametrize("name", STRINGS)
def test_string_answers_match_brute_force(name):
    for p, rec in problems(name, (0,) if name == "word_break_counting" else (0, 1)):
        assert str(brute_string(name, p)) == gold(rec), (name, p)


# ---------------------------------------------------------------------------- competition_ranking.py

def balanced(n):
    return sorted("".join(t) for t in itertools.product("()", repeat=2 * n)
                  if min(itertools.accumulate(1 if c == "(" else -1 for c in t)) >= 0 and t.count("(") == n)


def test_ranking_answers_match_brute_force():
    for p, rec in problems("kth_combination", (0, 1, 3)):
        assert list(itertools.combinations(range(1, p["n"] + 1), p["r"]))[p["k"] - 1] == tuple(p["out"])
    for p, rec in problems("kth_balanced_brackets", (0, 1, 3)):
        assert balanced(p["n"])[p["k"] - 1] == p["out"] == gold(rec)  # '(' < ')' in ASCII too
    for p, rec in problems("gray_code_rank", (0, 1, 3)):
        m = len(p["code"])
        assert [format(i ^ (i >> 1), f"0{m}b") for i in range(2 ** m)].index(p["code"]) == int(gold(rec))
    for p, rec in problems("kth_lexicographic_number", (0,)):
        assert sorted(range(1, p["n"] + 1), key=str)[p["k"] - 1] == int(gold(rec))


# ---------------------------------------------------------------------------- competition_dp_opt.py

def brute_opt(name, p):
    a = p.get("a")
    if name == "burst_balloons":
        def best(v):
            return max((best(v[:i] + v[i + 1:]) + (v[i - 1] if i else 1) * v[i] * (v[i + 1] if i + 1 < len(v) else 1)
                        for i in range(len(v))), default=0)
        return best(tuple(a))
    if name == "stone_merging_min_cost":
        def best(v):
            return min((best(v[:i] + (v[i] + v[i + 1],) + v[i + 2:]) + v[i] + v[i + 1] for i in range(len(v) - 1)),
                       default=0)
        return best(tuple(a))
    if name == "paint_houses_min_cost":
        c = p["cost"]
        return min(sum(c[h][k] for h, k in enumerate(ks)) for ks in itertools.product(range(len(c[0])), repeat=len(c))
                   if all(x != y for x, y in zip(ks, ks[1:])))
    if name == "longest_common_increasing_subsequence":
        def incs(xs):
            return {tuple(xs[i] for i in m) for m in masks(xs) if all(xs[i] < xs[j] for i, j in zip(m, m[1:]))}
        return max(map(len, incs(a) & incs(p["b"])))
    if name == "longest_zigzag_subsequence":
        return max(len(m) for m in masks(a) if m and all(
            (a[m[i + 1]] - a[m[i]]) * (a[m[i + 2]] - a[m[i + 1]]) < 0 for i in range(len(m) - 2))
            and all(a[x] != a[y] for x, y in zip(m, m[1:])))
    if name == "house_robber_circular":
        n = len(a)
        return max(sum(a[i] for i in m) for m in masks(a)
                   if all((i + 1) % n not in m for i in m))
    raise KeyError(name)


OPT = ["burst_balloons", "stone_merging_min_cost", "paint_houses_min_cost", "longest_common_increasing_subsequence",
       "longest_zigzag_subsequence", "house_robber_circular"]


@pytest.mark.parametrize("name", OPT)
def test_optimal_values_match_brute_force(name):
    for p, rec in problems(name, (0,) if name == "paint_houses_min_cost" else (0, 1)):
        assert str(brute_opt(name, p)) == gold(rec), (name, p)


# ---------------------------------------------------------------------------- worked solutions

WORKED = ["broken_stairs_ways", "decode_ways_counting", "rencontres_number", "labeled_trees_degree_sequence",
          "standard_young_tableaux", "tree_topological_orderings", "divisor_count_of_product",
          "consecutive_sum_representations", "collatz_steps", "total_set_bits", "gray_code_rank",
          "staircase_nim_move", "house_robber_circular"]
ARITHMETIC = set("0123456789 +-*/%(),max")


@pytest.mark.parametrize("name", WORKED)
def test_worked_solutions_are_true_arithmetic_and_opt_in(name):
    """reasoning=True: the prompt and answer are unchanged, the worked solution precedes them, and
    every 'expression = value' step in it is true arithmetic."""
    plain, worked = envs.make(name), envs.make(name, reasoning=True)
    checked = 0
    for d in (0, 1, 4):
        for seed in range(5):
            a, b = plain.generate(seed, d), worked.generate(seed, d)
            assert a["prompt"] == b["prompt"] and b["answer"].endswith(a["answer"]) and envs.score(b, b["answer"]).correct
            steps = b["answer"].split("</reasoning>")[0].removeprefix("<reasoning>\n")
            for line in steps.splitlines():
                parts = line.split(" = ")
                if len(parts) < 2:
                    continue
                lhs, rhs = parts[-2].split(": ")[-1], parts[-1]
                if set(lhs) <= ARITHMETIC and set(rhs) <= ARITHMETIC and lhs.strip() and rhs.strip():
                    assert eval(lhs) == eval(rhs), (name, line)  # noqa: S307 (our own digits and operators)
                    checked += 1
    assert checked or name in ("gray_code_rank", "staircase_nim_move"), (name, "some step is arithmetic")


# ---------------------------------------------------------------------------- later additions

def binary_trees(n):
    """Every binary tree with n nodes as nested (left, right) tuples, None for empty."""
    if n == 0:
        return [None]
    return [(left, right) for k in range(n) for left in binary_trees(k) for right in binary_trees(n - 1 - k)]


def height(t):
    return -1 if t is None else 1 + max(height(t[0]), height(t[1]))


def canonical(v, kids):
    return "(" + "".join(sorted(canonical(c, kids) for c in kids[v])) + ")"


def test_later_additions_match_brute_force():
    for p, rec in problems("bounded_height_binary_trees", (0, 1, 2)):
        assert sum(height(t) <= p["h"] for t in binary_trees(p["n"])) == int(gold(rec)), p
    for p, rec in problems("increasing_grid_paths_counting", (0,)):
        g = p["grid"]
        cells = [(i, j) for i in range(len(g)) for j in range(len(g[0]))]

        def paths_from(i, j):
            return 1 + sum(paths_from(a, b) for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1))
                           if (a, b) in cells and g[a][b] > g[i][j])

        assert sum(paths_from(*c) for c in cells) == int(gold(rec)), p
    for p, rec in problems("longest_bitonic_subsequence", (0,)):
        a = p["a"]
        best = 0
        for m in masks(a):
            xs = [a[i] for i in m]
            peak = xs.index(max(xs)) if xs else 0
            if all(x < y for x, y in zip(xs[:peak], xs[1:peak + 1])) and all(x > y for x, y in zip(xs[peak:], xs[peak + 1:])):
                best = max(best, len(xs))
        assert best == int(gold(rec)), p
    for p, rec in problems("max_product_subarray", (0, 1)):
        a = p["a"]
        assert max(math.prod(a[i:j]) for i in range(len(a)) for j in range(i + 1, len(a) + 1)) == int(gold(rec))
    for p, rec in problems("distinct_subtree_shapes", (0, 1)):
        d = floyd(p["n"], p["edges"])
        kids = {v: [u for u in range(1, p["n"] + 1) if d[v][u] == 1 and d[1][u] == d[1][v] + 1]
                for v in range(1, p["n"] + 1)}
        assert len({canonical(v, kids) for v in kids}) == int(gold(rec)), p
    for p, rec in problems("kth_distinct_substring", (0, 1)):
        s = p["s"]
        subs = sorted({s[i:j] for i in range(len(s)) for j in range(i + 1, len(s) + 1)})
        assert subs[p["k"] - 1] == gold(rec)
