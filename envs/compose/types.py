"""The small explicit type system of bricks: a type is a string, and two types match by equality.

Values are plain Python and JSON-shaped:
    int, bool, str, list[int], list[str]
    grid[int]       non-empty rectangular list of rows of ints
    grid[bit]       a grid whose cells are 0 or 1 (a map: 1 is a wall / a live cell)
    matrix          a square grid of ints (linear algebra, distance and cost matrices)
    tuple[int,int]  a pair, written in JSON as a two-element list
    perm            a permutation of 0..n-1 (a list of ints)
    list[interval]  a list of closed intervals [s, e] with s <= e
    expr            an arithmetic expression: non-negative integers, + - * and parentheses, no spaces
    graph           {"n": N, "edges": [[u, v], ...]}: undirected, simple, each edge once with u < v,
                    edges in increasing order
    digraph         the same with directed edges [u, v] (u -> v, u != v), in increasing order
    wgraph          an undirected graph with positive integer weights: edges [u, v, w], u < v
    tree            a graph that is connected and has n - 1 edges

Graph-like values are canonical (sorted, oriented edges), so equal graphs have equal JSON; a
model's answer is brought to that form by `normalize` before it is compared.
"""
from __future__ import annotations

import json
from typing import Any

INT, BOOL, STR = "int", "bool", "str"
LIST_INT, LIST_STR = "list[int]", "list[str]"
GRID, BITGRID, MATRIX = "grid[int]", "grid[bit]", "matrix"
PAIR = "tuple[int,int]"
PERM, INTERVALS, EXPR = "perm", "list[interval]", "expr"
GRAPH, DIGRAPH, WGRAPH, TREE = "graph", "digraph", "wgraph", "tree"
TYPES = (INT, BOOL, STR, LIST_INT, LIST_STR, GRID, PAIR, BITGRID, MATRIX, PERM, INTERVALS, EXPR,
         GRAPH, DIGRAPH, WGRAPH, TREE)
GRAPH_TYPES = (GRAPH, DIGRAPH, WGRAPH, TREE)
MAX_NODES = 40  # a graph value with more nodes is not a value of these types (keeps checks cheap)

# One sentence per structured type, shown in prompts whose steps use it.
NOTES = {
    PAIR: "tuple[int,int] is a pair written as a two-element list.",
    GRID: "grid[int] is a list of rows of integers; row 0 is the top row, column 0 the left column.",
    BITGRID: "grid[bit] is a grid whose cells are 0 or 1.",
    MATRIX: "matrix is a square grid of integers; entry [i][j] is row i, column j.",
    PERM: "perm is a permutation of 0..n-1 written as a list (position i holds p(i)).",
    INTERVALS: "list[interval] is a list of closed intervals [s, e] with s <= e (both ends included).",
    EXPR: "expr is an arithmetic expression of non-negative integers, +, -, * and parentheses, without spaces; "
          "* binds tighter than + and -, which group left to right.",
    GRAPH: 'graph is {"n": N, "edges": [[u, v], ...]}: an undirected graph on nodes 0..N-1, each edge listed once '
           "with u < v, edges in increasing order.",
    DIGRAPH: 'digraph is {"n": N, "edges": [[u, v], ...]}: a directed graph on nodes 0..N-1 with an edge u -> v '
             "for each [u, v], edges in increasing order.",
    WGRAPH: 'wgraph is {"n": N, "edges": [[u, v, w], ...]}: an undirected graph on nodes 0..N-1 whose edge u-v '
            "(u < v) has positive weight w, edges in increasing order.",
    TREE: 'tree is {"n": N, "edges": [[u, v], ...]}: a tree on nodes 0..N-1 (connected, N - 1 edges), each edge '
          "with u < v, edges in increasing order.",
}


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_grid(v: Any) -> bool:
    return (type(v) is list and len(v) > 0 and all(type(r) is list for r in v) and len(v[0]) > 0
            and all(len(r) == len(v[0]) for r in v) and all(type(x) is int for r in v for x in r))


def _graph_ok(v: Any, width: int, directed: bool) -> bool:
    if type(v) is not dict or set(v) != {"n", "edges"} or type(v["n"]) is not int or not 1 <= v["n"] <= MAX_NODES:
        return False
    n, edges = v["n"], v["edges"]
    if type(edges) is not list:
        return False
    prev = None
    for e in edges:
        if type(e) is not list or len(e) != width or not all(type(x) is int for x in e):
            return False
        u, w = e[0], e[1]
        if not (0 <= u < n and 0 <= w < n) or u == w or (not directed and u > w):
            return False
        if width == 3 and e[2] < 1:
            return False
        if prev is not None and (u, w) <= prev:  # sorted, so no edge twice
            return False
        prev = (u, w)
    return True


def _connected(n: int, edges: list) -> bool:
    adj: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    seen, stack = {0}, [0]
    while stack:
        for w in adj[stack.pop()]:
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return len(seen) == n


def conforms(value: Any, t: str) -> bool:
    """Whether value is of type t (bool is not an int here, nor an int a bool)."""
    if t == INT:
        return type(value) is int
    if t == BOOL:
        return type(value) is bool
    if t == STR:
        return type(value) is str
    if t == LIST_INT:
        return type(value) is list and all(type(v) is int for v in value)
    if t == LIST_STR:
        return type(value) is list and all(type(v) is str for v in value)
    if t == GRID:
        return _is_grid(value)
    if t == BITGRID:
        return _is_grid(value) and all(x in (0, 1) for r in value for x in r)
    if t == MATRIX:
        return _is_grid(value) and len(value) == len(value[0])
    if t == PAIR:
        return type(value) is tuple and len(value) == 2 and all(type(v) is int for v in value)
    if t == PERM:
        return type(value) is list and all(type(v) is int for v in value) and sorted(value) == list(range(len(value)))
    if t == INTERVALS:
        return type(value) is list and all(type(iv) is list and len(iv) == 2 and _is_int(iv[0]) and _is_int(iv[1])
                                           and iv[0] <= iv[1] for iv in value)
    if t == EXPR:
        return type(value) is str and len(value) <= 200 and parse_expr(value) is not None
    if t in (GRAPH, TREE):
        return _graph_ok(value, 2, False) and (t == GRAPH or (len(value["edges"]) == value["n"] - 1
                                                               and _connected(value["n"], value["edges"])))
    if t == DIGRAPH:
        return _graph_ok(value, 2, True)
    if t == WGRAPH:
        return _graph_ok(value, 3, False)
    return False


def normalize(value: Any, t: str) -> Any:
    """A model's JSON answer of type t in the canonical form bricks produce (graph edges oriented and
    sorted); anything that does not look like a graph is returned unchanged and simply compares unequal."""
    if t not in GRAPH_TYPES or type(value) is not dict or type(value.get("edges")) is not list:
        return value
    edges = value["edges"]
    if not all(type(e) is list and len(e) == (3 if t == WGRAPH else 2) and all(type(x) is int for x in e)
               for e in edges) or len(edges) > 10 * MAX_NODES:
        return value
    if t != DIGRAPH:
        edges = [[min(e[0], e[1]), max(e[0], e[1]), *e[2:]] for e in edges]
    return {**value, "edges": sorted(edges)}


def to_json(value: Any) -> Any:
    return list(value) if type(value) is tuple else value


def from_json(value: Any, t: str) -> Any:
    return tuple(value) if t == PAIR and type(value) is list else value


def canon(value: Any) -> str:
    """A canonical text of a JSON value: equal texts mean equal values with equal JSON types
    (so 1, 1.0 and true differ, as they should when grading an int)."""
    return json.dumps(to_json(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def show(value: Any) -> str:
    """How a value is written in prompts and answers."""
    return json.dumps(to_json(value), ensure_ascii=False)


# ------------------------------------------------------------------ expressions


def tokenize_expr(s: str) -> list[str] | None:
    """Numbers, operators and parentheses of an expression, or None on any other character."""
    out: list[str] = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch.isascii() and ch.isdigit():
            j = i
            while j < len(s) and s[j].isascii() and s[j].isdigit():
                j += 1
            out.append(s[i:j])
            i = j
        elif ch in "+-*()":
            out.append(ch)
            i += 1
        else:
            return None
    return out


def parse_expr(s: str):
    """The syntax tree of an expression: an int, or (op, left, right); None if s is not one.

    expr := term (('+' | '-') term)*;  term := atom ('*' atom)*;  atom := number | '(' expr ')'."""
    toks = tokenize_expr(s)
    if not toks:
        return None
    pos = 0

    def atom(depth):
        nonlocal pos
        if pos >= len(toks) or depth > 50:
            return None
        t = toks[pos]
        if t == "(":
            pos += 1
            inner = expr(depth + 1)
            if inner is None or pos >= len(toks) or toks[pos] != ")":
                return None
            pos += 1
            return inner
        if t.isdigit():
            pos += 1
            return int(t) if len(t) <= 6 else None
        return None

    def term(depth):
        nonlocal pos
        left = atom(depth)
        while left is not None and pos < len(toks) and toks[pos] == "*":
            pos += 1
            right = atom(depth)
            left = None if right is None else ("*", left, right)
        return left

    def expr(depth):
        nonlocal pos
        left = term(depth)
        while left is not None and pos < len(toks) and toks[pos] in "+-":
            op = toks[pos]
            pos += 1
            right = term(depth)
            left = None if right is None else (op, left, right)
        return left

    tree = expr(0)
    return tree if tree is not None and pos == len(toks) else None


def make_graph(n: int, edges, directed: bool = False) -> dict:
    """The canonical graph value on n nodes from any iterable of edges [u, v] or [u, v, w]:
    undirected edges oriented u < v, duplicates and self-loops dropped (the first weight kept)."""
    seen: dict[tuple[int, int], list[int]] = {}
    for e in edges:
        u, v = e[0], e[1]
        if u == v:
            continue
        if not directed and u > v:
            u, v = v, u
        seen.setdefault((u, v), [u, v, *e[2:]])
    return {"n": n, "edges": [seen[k] for k in sorted(seen)]}
