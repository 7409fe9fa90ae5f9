"""Input samplers, one per type: small values, so that a 5-step chain stays doable by hand (and
within the 400 atomic steps of a path), but drawn from spaces large enough that fresh inputs
rarely repeat."""
from __future__ import annotations

import random

from envs.compose.types import (BITGRID, DIGRAPH, EXPR, GRAPH, GRID, INT, INTERVALS, LIST_INT, LIST_STR, MATRIX,
                                PAIR, PERM, STR, TREE, WGRAPH, make_graph)

WORDS = ("apple", "river", "stone", "cloud", "tiger", "lemon", "piano", "ocean", "maple", "robot",
         "candle", "forest", "garden", "silver", "rocket", "bridge", "castle", "dragon", "winter",
         "yellow", "cat", "dog", "sun", "map", "key", "owl", "bee", "ink", "jam", "fox", "zebra",
         "quilt", "night", "eagle", "honey", "kite", "moon", "star", "leaf", "wolf", "desk", "lamp",
         "book", "fish", "goat", "hill", "iron", "jade", "king", "nest", "oak", "pear", "ring")
VOWELS, CONSONANTS = "aeiou", "bcdfghjklmnpqrstvwxyz"


def ints_of(rng: random.Random, n: int, lo: int, hi: int) -> list[int]:
    return [rng.randint(lo, hi) for _ in range(n)]


def word_of(rng: random.Random, n: int, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def sample_int(rng: random.Random) -> int:
    return rng.randint(2, 250)


def sample_str(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(WORDS) + rng.choice(WORDS)[:rng.randint(0, 3)]
    # pronounceable-ish: a vowel about every third letter, so vowel bricks have work to do
    return "".join(rng.choice(VOWELS if rng.random() < 0.35 else CONSONANTS) for _ in range(rng.randint(5, 9)))


def sample_list_int(rng: random.Random) -> list[int]:
    return [rng.randint(0, 20) for _ in range(rng.randint(4, 8))]


def sample_list_str(rng: random.Random) -> list[str]:
    return [rng.choice(WORDS) for _ in range(rng.randint(3, 6))]


def sample_grid(rng: random.Random) -> list[list[int]]:
    h, w = rng.randint(2, 4), rng.randint(2, 4)
    return [[rng.randint(0, 9) for _ in range(w)] for _ in range(h)]


def sample_pair(rng: random.Random) -> tuple[int, int]:
    return rng.randint(2, 60), rng.randint(2, 60)


def bitgrid_of(rng: random.Random, h: int, w: int, p: float) -> list[list[int]]:
    return [[int(rng.random() < p) for _ in range(w)] for _ in range(h)]


def sample_bitgrid(rng: random.Random) -> list[list[int]]:
    return bitgrid_of(rng, rng.randint(3, 5), rng.randint(3, 5), rng.uniform(0.25, 0.55))


def matrix_of(rng: random.Random, n: int, hi: int) -> list[list[int]]:
    return [[rng.randint(0, hi) for _ in range(n)] for _ in range(n)]


def sample_matrix(rng: random.Random) -> list[list[int]]:
    return matrix_of(rng, rng.choice((2, 3, 3, 4)), 6)


def sample_perm(rng: random.Random) -> list[int]:
    return perm_of(rng, rng.randint(4, 8))


def perm_of(rng: random.Random, n: int) -> list[int]:
    p = list(range(n))
    rng.shuffle(p)
    return p


def sample_intervals(rng: random.Random) -> list[list[int]]:
    out = []
    for _ in range(rng.randint(3, 7)):
        s = rng.randint(0, 20)
        out.append([s, s + rng.randint(0, 7)])
    return out


def random_tree_edges(rng: random.Random, n: int) -> list[list[int]]:
    """A uniformly relabelled random recursive tree on n nodes."""
    label = list(range(n))
    rng.shuffle(label)
    return [[label[i], label[rng.randrange(i)]] for i in range(1, n)]


def tree_of(rng: random.Random, n: int) -> dict:
    return make_graph(n, random_tree_edges(rng, n))


def sample_tree(rng: random.Random) -> dict:
    return tree_of(rng, rng.randint(4, 9))


def graph_of(rng: random.Random, n: int, connected: bool, extra: int) -> dict:
    """A random spanning tree (if connected) plus `extra` random edges (duplicates merge)."""
    edges = random_tree_edges(rng, n) if connected else []
    edges += [rng.sample(range(n), 2) for _ in range(extra)]
    return make_graph(n, edges)


def sample_graph(rng: random.Random) -> dict:
    """Connected six times in ten, else random edges."""
    n = rng.randint(4, 7)
    return graph_of(rng, n, rng.random() < 0.6, rng.randint(1, n))


def digraph_of(rng: random.Random, n: int, dag: bool, m: int) -> dict:
    """m random directed edges; if dag, all following a hidden random order."""
    order = perm_of(rng, n)
    edges = []
    for _ in range(m):
        i, j = rng.sample(range(n), 2)
        if dag and i > j:
            i, j = j, i
        edges.append([order[i], order[j]])
    return make_graph(n, edges, directed=True)


def sample_digraph(rng: random.Random) -> dict:
    """Acyclic half the time, else any directed edges."""
    n = rng.randint(4, 7)
    return digraph_of(rng, n, rng.random() < 0.5, rng.randint(n - 1, 2 * n))


def wgraph_of(rng: random.Random, n: int, extra: int, max_weight: int = 9) -> dict:
    """Connected: a random spanning tree plus `extra` random edges, weights 1..max_weight."""
    edges = random_tree_edges(rng, n) + [rng.sample(range(n), 2) for _ in range(extra)]
    return make_graph(n, [[u, v, rng.randint(1, max_weight)] for u, v in edges])


def sample_wgraph(rng: random.Random) -> dict:
    n = rng.randint(4, 6)
    return wgraph_of(rng, n, rng.randint(0, n))


def random_expr(rng: random.Random, ops: int) -> str:
    """An expression with `ops` operators over 1..9, parenthesised only where needed, and
    sometimes where not (so that removing parentheses has work to do)."""
    if ops == 0:
        return str(rng.randint(1, 9))
    k = rng.randint(0, ops - 1)
    op = rng.choice("+-*")
    left, right = random_expr(rng, k), random_expr(rng, ops - 1 - k)
    prec = {"+": 1, "-": 1, "*": 2}

    def low(e):  # lowest-precedence operator at the top level of e (3: none)
        depth, best = 0, 3
        for ch in e:
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and ch in prec:
                best = min(best, prec[ch])
        return best
    if low(left) < prec[op] or (rng.random() < 0.15 and ops > 1):
        left = f"({left})"
    if low(right) < prec[op] or (low(right) == prec[op] and op == "-") or (rng.random() < 0.15 and ops > 1):
        right = f"({right})"
    return left + op + right


def sample_expr(rng: random.Random) -> str:
    return random_expr(rng, rng.randint(2, 4))


SAMPLERS = {INT: sample_int, STR: sample_str, LIST_INT: sample_list_int, LIST_STR: sample_list_str,
            GRID: sample_grid, PAIR: sample_pair, BITGRID: sample_bitgrid, MATRIX: sample_matrix,
            PERM: sample_perm, INTERVALS: sample_intervals, TREE: sample_tree, GRAPH: sample_graph,
            DIGRAPH: sample_digraph, WGRAPH: sample_wgraph, EXPR: sample_expr}
