"""Graph algorithms: Hamiltonian path (planted), topological order, shortest paths, spanning
trees, flows, components, matchings, Euler trails, stable marriage, tree diameters, mazes.

Answers that name a structure (a path, a tree, a matching) are verified against the graph and
graded against the optimum, so any optimal structure scores 1, not only the generator's.
"""
from __future__ import annotations

import heapq
import random
from collections import Counter, deque

from envs.gym.base import GymEnv, Retry, ask, index_set, int_list, one_int
from envs.compose.samplers import bitgrid_of, tree_of, wgraph_of
from envs.compose.types import make_graph


def _edge_lines(edges, weighted: bool = False) -> str:
    return "\n".join(f"{e[0]} {e[1]}" + (f" {e[2]}" if weighted else "") for e in edges)


def _flow_network(rng, n, top=20):
    """2n directed edges over n vertices with weights 1..top, including a planted 0 -> n - 1 path."""
    walk = [0] + rng.sample(range(1, n - 1), rng.randint(1, n - 2)) + [n - 1]
    pairs = list(zip(walk, walk[1:]))
    pairs += _random_pairs(rng, n, 2 * n - len(pairs), directed=True, avoid=pairs)
    edges = [(u, v, rng.randint(1, top)) for u, v in pairs]
    rng.shuffle(edges)
    return edges


def _random_pairs(rng: random.Random, n: int, count: int, directed: bool, avoid=()) -> list[tuple[int, int]]:
    """`count` distinct random vertex pairs (no loops), none in `avoid`; capped by what exists."""
    seen = {tuple(p) if directed else tuple(sorted(p)) for p in avoid}
    total = n * (n - 1) // (1 if directed else 2)
    out, target = [], min(count, total - len(seen))
    while len(out) < target:
        u, v = rng.sample(range(n), 2)
        key = (u, v) if directed else (min(u, v), max(u, v))
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def _path_score(vertices: list[int], n: int, edges: set[tuple[int, int]], power: int) -> float:
    """Shared by the Hamiltonian envs: -0.5 unless a permutation of 0..n-1, else
    (consecutive pairs that are edges / (n - 1)) ** power."""
    if sorted(vertices) != list(range(n)):
        return -0.5
    hits = sum((u, v) in edges for u, v in zip(vertices, vertices[1:]))
    return (hits / (n - 1)) ** power


class HamiltonianPathExistence(GymEnv):
    """Hamiltonian path in a directed graph (RLVE paper, NP-complete). d: N = d + 3 vertices;
    a planted random Hamiltonian path plus N random extra directed edges.

    Reward: -1 unparsable, -0.5 not a permutation of all vertices, else (x / (N-1))^5 with x the
    number of consecutive pairs that are edges."""

    name = "hamiltonian_path_existence"
    category = "np_complete"

    brick_io = ("digraph", "perm")
    brick_text = ("The lexicographically smallest path along directed edges that visits every node exactly once (no "
                  "output if there is none).")

    def brick_input(self, rng, difficulty):
        problem, _ = self.build(rng, difficulty)
        return make_graph(problem["n"], problem["edges"], directed=True)

    def brick_apply(self, g, counter):
        n, adj = g["n"], [[] for _ in range(g["n"])]
        for u, v in g["edges"]:  # sorted edges: neighbours in increasing order
            adj[u].append(v)

        def extend(path):
            counter.tick()
            if len(path) == n:
                return path
            return next((p for v in adj[path[-1]] if v not in path and (p := extend(path + [v]))), None)
        return next((p for s in range(n) if (p := extend([s]))), None)

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        path = rng.sample(range(n), n)
        planted = list(zip(path, path[1:]))
        edges = planted + _random_pairs(rng, n, n, directed=True, avoid=planted)
        rng.shuffle(edges)
        return {"n": n, "edges": edges}, " ".join(map(str, path))

    def prompt(self, problem):
        return ask(f"A directed graph has {problem['n']} vertices numbered 0 to {problem['n'] - 1} and these "
                   f"edges (u v means an edge from u to v):\n{_edge_lines(problem['edges'])}\n\n"
                   "Find a path that visits every vertex exactly once and only moves along edges.",
                   "Give the vertices in path order separated by spaces, e.g. <answer>2 0 1</answer>.")

    def reward(self, problem, answer):
        return _path_score(int_list(answer), problem["n"], set(map(tuple, problem["edges"])), 5)


class TopologicalSort(GymEnv):
    """Topological order of a DAG (classical algorithms). d: N = d + 4 vertices, about 1.5 N edges
    consistent with a planted order.

    Reward: -1 unparsable, -0.5 not a permutation, else (edges respected / edges)^5."""

    name = "topological_sort"
    category = "algorithms"

    brick_io = ("digraph", "perm")
    brick_text = ("A topological order by Kahn's algorithm, always taking the smallest node with no remaining incoming "
                  "edge (no output if the graph has a cycle).")

    def brick_input(self, rng, difficulty):
        problem, _ = self.build(rng, difficulty)
        return make_graph(problem["n"], problem["edges"], directed=True)

    def brick_apply(self, g, counter):
        counter.tick((g["n"] + len(g["edges"])) * max(1, g["n"].bit_length()))
        return kahn_order(g["n"], g["edges"])

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        order = rng.sample(range(n), n)
        pos = {v: i for i, v in enumerate(order)}
        pairs = _random_pairs(rng, n, (3 * n) // 2, directed=False)
        edges = [(u, v) if pos[u] < pos[v] else (v, u) for u, v in pairs]
        rng.shuffle(edges)
        return {"n": n, "edges": edges}, " ".join(map(str, order))

    def prompt(self, problem):
        return ask(f"A directed acyclic graph has {problem['n']} vertices numbered 0 to {problem['n'] - 1} and "
                   f"these edges (u v means u must come before v):\n{_edge_lines(problem['edges'])}\n\n"
                   "Order all vertices so that every edge goes from an earlier to a later vertex.",
                   "Give the vertices in order separated by spaces, e.g. <answer>3 0 2 1</answer>.")

    def reward(self, problem, answer):
        order, n = int_list(answer), problem["n"]
        if sorted(order) != list(range(n)):
            return -0.5
        pos = {v: i for i, v in enumerate(order)}
        edges = problem["edges"]
        return (sum(pos[u] < pos[v] for u, v in edges) / len(edges)) ** 5


def kahn_order(n: int, edges) -> list[int] | None:
    """Kahn's topological order, always the smallest ready vertex; None if there is a cycle."""
    indeg, adj = [0] * n, [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        indeg[v] += 1
    ready = [u for u in range(n) if indeg[u] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        u = heapq.heappop(ready)
        order.append(u)
        for v in adj[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(ready, v)
    return order if len(order) == n else None


def dijkstra(n: int, adj: dict[int, list[tuple[int, int]]], src: int) -> tuple[list[float], list[int]]:
    dist, prev = [float("inf")] * n, [-1] * n
    dist[src] = 0
    heap = [(0, src)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, w in adj.get(u, ()):
            if d + w < dist[v]:
                dist[v], prev[v] = d + w, u
                heapq.heappush(heap, (d + w, v))
    return dist, prev


class ShortestPath(GymEnv):
    """Shortest path in a weighted directed graph (classical algorithms). d: N = d + 4 vertices,
    2N edges with weights 1..10 (a planted 0 -> N-1 path guarantees reachability).

    Answer: the path's vertices. Reward: -1 unparsable, -0.5 not a 0 -> N-1 path along edges,
    else (optimal length / its length)^5."""

    name = "shortest_path"
    category = "algorithms"

    brick_io = ("wgraph", "int")
    brick_text = "The length of a shortest path from node 0 to node n-1 (no output if there is none)."

    def brick_input(self, rng, difficulty):
        return wgraph_of(rng, self.size(difficulty), self.size(difficulty))

    def brick_apply(self, g, counter):
        counter.tick((g["n"] + 2 * len(g["edges"])) * max(1, g["n"].bit_length()))
        adj: dict[int, list] = {}
        for u, v, w in g["edges"]:
            adj.setdefault(u, []).append((v, w))
            adj.setdefault(v, []).append((u, w))
        d = dijkstra(g["n"], adj, 0)[0][g["n"] - 1]
        return None if d == float("inf") else d

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _flow_network(rng, n, top=10)
        adj: dict[int, list] = {}
        for u, v, w in edges:
            adj.setdefault(u, []).append((v, w))
        dist, prev = dijkstra(n, adj, 0)
        path, v = [], n - 1
        while v != -1:
            path.append(v)
            v = prev[v]
        return {"n": n, "edges": edges, "optimum": dist[n - 1]}, " ".join(map(str, reversed(path)))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed graph has {n} vertices numbered 0 to {n - 1} and these weighted edges "
                   f"(u v w means an edge from u to v of length w):\n{_edge_lines(problem['edges'], True)}\n\n"
                   f"Find a shortest path from vertex 0 to vertex {n - 1}.",
                   f"Give the vertices of the path in order, starting with 0 and ending with {n - 1}, "
                   f"separated by spaces, e.g. <answer>0 2 {n - 1}</answer>.")

    def reward(self, problem, answer):
        path, n = int_list(answer), problem["n"]
        w = {(u, v): c for u, v, c in problem["edges"]}
        if len(path) < 2 or path[0] != 0 or path[-1] != n - 1 or any(p not in w for p in zip(path, path[1:])):
            return -0.5
        return (problem["optimum"] / sum(w[p] for p in zip(path, path[1:]))) ** 5


class _DSU:
    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> bool:
        a, b = self.find(a), self.find(b)
        if a == b:
            return False
        self.parent[a] = b
        return True


def _connected_graph(rng: random.Random, n: int, m: int) -> list[tuple[int, int]]:
    """A random spanning tree plus random extra edges, m edges in all (undirected, u < v)."""
    order = rng.sample(range(n), n)
    tree = [tuple(sorted((order[i], order[rng.randrange(i)]))) for i in range(1, n)]
    return tree + _random_pairs(rng, n, m - len(tree), directed=False, avoid=tree)


class MinimumSpanningTree(GymEnv):
    """Minimum spanning tree (classical algorithms). d: N = d + 4 vertices, 2N edges, weights 1..20.

    Answer: the tree's edges as pairs "u v". Reward: -1 unparsable, -0.5 not a spanning tree of
    graph edges, else (optimal weight / its weight)^5."""

    name = "minimum_spanning_tree"
    category = "algorithms"

    brick_io = ("wgraph", "int")
    brick_text = "The total weight of a minimum spanning tree (no output if the graph is not connected)."

    def brick_input(self, rng, difficulty):
        return wgraph_of(rng, self.size(difficulty), self.size(difficulty))

    def brick_apply(self, g, counter):
        counter.tick(len(g["edges"]) * max(1, len(g["edges"]).bit_length()) + g["n"])
        dsu = _DSU(g["n"])
        tree = [w for u, v, w in sorted(g["edges"], key=lambda e: e[2]) if dsu.union(u, v)]  # Kruskal
        return sum(tree) if len(tree) == g["n"] - 1 else None

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = [(u, v, rng.randint(1, 20)) for u, v in _connected_graph(rng, n, 2 * n)]
        rng.shuffle(edges)
        dsu, tree = _DSU(n), []
        for u, v, w in sorted(edges, key=lambda e: e[2]):  # Kruskal
            if dsu.union(u, v):
                tree.append((u, v, w))
        return {"n": n, "edges": edges, "optimum": sum(w for _, _, w in tree)}, _edge_lines(tree)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected graph has {n} vertices numbered 0 to {n - 1} and these weighted edges "
                   f"(u v w):\n{_edge_lines(problem['edges'], True)}\n\nFind a spanning tree of minimum total weight.",
                   f"Give its {n - 1} edges as pairs \"u v\", one per line.")

    def reward(self, problem, answer):
        nums, n = int_list(answer), problem["n"]
        w = {}
        for u, v, c in problem["edges"]:
            w[(u, v)] = w[(v, u)] = c
        pairs = list(zip(nums[::2], nums[1::2]))
        dsu = _DSU(n)
        if len(nums) != 2 * (n - 1) or any(p not in w or not dsu.union(*p) for p in pairs):
            return -0.5
        return (problem["optimum"] / sum(w[p] for p in pairs)) ** 5


def max_flow(n: int, edges: list, s: int, t: int) -> int:
    """Edmonds-Karp on a capacity matrix (n is small)."""
    return max_flow_cut(n, edges, s, t)[0]


def max_flow_cut(n: int, edges: list, s: int, t: int) -> tuple[int, set[int]]:
    """The maximum flow value and the source side of a minimum cut (the vertices the last,
    failing search reaches in the residual network)."""
    cap = [[0] * n for _ in range(n)]
    for u, v, c in edges:
        cap[u][v] += c
    flow = 0
    while True:
        prev = [-1] * n
        prev[s] = s
        q = deque([s])
        while q and prev[t] < 0:
            u = q.popleft()
            for v in range(n):
                if cap[u][v] > 0 and prev[v] < 0:
                    prev[v] = u
                    q.append(v)
        if prev[t] < 0:
            return flow, {v for v in range(n) if prev[v] >= 0}
        push, v = float("inf"), t
        while v != s:
            push, v = min(push, cap[prev[v]][v]), prev[v]
        v = t
        while v != s:
            cap[prev[v]][v] -= push
            cap[v][prev[v]] += push
            v = prev[v]
        flow += push


class MaxFlow(GymEnv):
    """Maximum flow value (classical algorithms). d: N = d + 4 vertices, 2N directed edges with
    capacities 1..20. Reward: -1 unparsable, 1 exact, else 0."""

    name = "max_flow"
    category = "algorithms"

    brick_io = ("wgraph", "int")
    brick_text = "The maximum flow from node 0 to node n-1 when each edge carries up to its weight, either way."

    def brick_input(self, rng, difficulty):
        return wgraph_of(rng, self.size(difficulty), self.size(difficulty))

    def brick_apply(self, g, counter):
        n, edges = g["n"], g["edges"]
        counter.tick(n * n)  # the capacity matrix
        value = max_flow(n, [e for u, v, w in edges for e in ((u, v, w), (v, u, w))], 0, n - 1)
        counter.tick((n + len(edges)) * (value + 1))  # one search per augmenting path, at most one per unit of flow
        return value

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _flow_network(rng, n)
        value = max_flow(n, edges, 0, n - 1)
        return {"n": n, "edges": edges, "flow": value}, str(value)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A flow network has {n} vertices numbered 0 to {n - 1} and these directed edges with "
                   f"capacities (u v c):\n{_edge_lines(problem['edges'], True)}\n\n"
                   f"What is the maximum flow from vertex 0 to vertex {n - 1}?", "Give one integer, e.g. <answer>12</answer>.")

    def reward(self, problem, answer):
        return 1.0 if one_int(answer) == problem["flow"] else 0.0


class ConnectedComponents(GymEnv):
    """Connected components of a sparse undirected graph (classical algorithms). d: N = 2d + 6
    vertices, about 0.7 N edges. Answer: a component label per vertex. Reward: -1 unparsable,
    -0.5 wrong length, 1 if the labels induce exactly the components, else 0."""

    name = "connected_components"
    category = "algorithms"

    brick_io = ("graph", "list[int]")
    brick_text = "Label each node with its component's number, components numbered 0, 1, ... in order of their smallest node."

    def brick_input(self, rng, difficulty):
        problem, _ = self.build(rng, difficulty)
        return make_graph(problem["n"], problem["edges"])

    def brick_apply(self, g, counter):
        counter.tick(g["n"] + len(g["edges"]))
        return _components(g["n"], g["edges"])

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _random_pairs(rng, n, (7 * n) // 10, directed=False)
        return {"n": n, "edges": edges}, " ".join(map(str, _components(n, edges)))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\nGroup the vertices into connected components.",
                   f"Give {n} integers separated by spaces: for each vertex 0..{n - 1}, a label of its "
                   "component (vertices share a label exactly when they are connected), e.g. "
                   "<answer>0 0 1 0 2</answer>.")

    def reward(self, problem, answer):
        labels, n = int_list(answer), problem["n"]
        if len(labels) != n:
            return -0.5
        canon = {}
        return 1.0 if [canon.setdefault(x, len(canon)) for x in labels] == _components(n, problem["edges"]) else 0.0


def _components(n: int, edges) -> list[int]:
    """Component labels numbered by first appearance (a canonical form)."""
    dsu = _DSU(n)
    for u, v in edges:
        dsu.union(u, v)
    canon: dict[int, int] = {}
    return [canon.setdefault(dsu.find(v), len(canon)) for v in range(n)]


def bipartite_matching(left: int, adj: list[list[int]]) -> list[tuple[int, int]]:
    """Kuhn's augmenting paths, each search an explicit stack (a recursive one overflows on the
    thousands-long paths of big instances), visiting in the order a recursive search would."""
    match_r: dict[int, int] = {}

    def augment(root: int) -> None:
        seen: set[int] = set()
        stack, path = [(root, iter(adj[root]))], []  # path[i]: the right vertex level i tries
        while stack:
            u, untried = stack[-1]
            for v in untried:
                if v in seen:
                    continue
                seen.add(v)
                path.append(v)
                if v not in match_r:  # a free vertex: flip the path
                    for (w, _), x in zip(stack, path):
                        match_r[x] = w
                    return
                stack.append((match_r[v], iter(adj[match_r[v]])))
                break
            else:
                stack.pop()
                if path:
                    path.pop()

    for u in range(left):
        augment(u)
    return sorted((u, v) for v, u in match_r.items())


class MaxBipartiteMatching(GymEnv):
    """Maximum bipartite matching (classical algorithms). d: d + 3 vertices per side, each pair
    an edge with probability 0.3. Answer: matched pairs "l r". Reward: -1 unparsable, -0.5 not a
    matching of graph edges, else (size / optimum)^5."""

    name = "max_bipartite_matching"
    category = "algorithms"

    brick_io = ("matrix", "int")
    brick_text = ("Read the matrix as a bipartite graph, row i joined to column j where the entry is positive; the size "
                  "of a maximum matching.")

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        return [[int(rng.random() < 0.3) for _ in range(n)] for _ in range(n)]

    def brick_apply(self, m, counter):
        n = len(m)
        counter.tick(n * n * n)  # an augmenting search over the n x n entries per row
        return len(bipartite_matching(n, [[j for j in range(n) if m[i][j] > 0] for i in range(n)]))

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = [(u, v) for u in range(n) for v in range(n) if rng.random() < 0.3]
        if not edges:
            raise Retry
        adj = [[v for u2, v in edges if u2 == u] for u in range(n)]
        m = bipartite_matching(n, adj)
        return {"n": n, "edges": edges, "optimum": len(m)}, _edge_lines(m)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A bipartite graph has left vertices L0..L{n - 1} and right vertices R0..R{n - 1}. Edges "
                   f"(l r means Ll - Rr):\n{_edge_lines(problem['edges'])}\n\nFind a maximum matching: as many "
                   "edges as possible, no two sharing a vertex.", "Give the chosen edges as pairs \"l r\", one per line.")

    def reward(self, problem, answer):
        nums = int_list(answer)
        pairs = list(zip(nums[::2], nums[1::2]))
        edges = set(map(tuple, problem["edges"]))
        if len(nums) % 2 or any(p not in edges for p in pairs) or len({l for l, _ in pairs}) < len(pairs) \
                or len({r for _, r in pairs}) < len(pairs):
            return -0.5
        return (len(pairs) / problem["optimum"]) ** 5


def euler_walk(n: int, edges) -> list[int] | None:
    """Hierholzer: from the vertex with one more out- than in-edge (else the smallest with an edge),
    smallest unused edge first; None if no walk uses every edge once."""
    out, indeg = [[] for _ in range(n)], [0] * n
    for u, v in sorted(edges, reverse=True):
        out[u].append(v)  # popped from the end: smallest first
        indeg[v] += 1
    starts = [u for u in range(n) if len(out[u]) - indeg[u] == 1]
    if not edges or len(starts) > 1 or any(abs(len(out[u]) - indeg[u]) > 1 for u in range(n)):
        return None
    stack, walk = [starts[0] if starts else min(u for u in range(n) if out[u])], []
    while stack:
        if out[stack[-1]]:
            stack.append(out[stack[-1]].pop())
        else:
            walk.append(stack.pop())
    return walk[::-1] if len(walk) == len(edges) + 1 else None


class EulerianPath(GymEnv):
    """Euler trail in a directed multigraph (classical algorithms). d: N = d + 4 vertices; the
    edges are those of a planted random walk of 2N steps. Answer: the trail's 2N + 1 vertices.
    Reward: -1 unparsable, -0.5 wrong length, else (steps matched to distinct edges / 2N)^5."""

    name = "eulerian_path"
    category = "algorithms"

    brick_io = ("digraph", "list[int]")
    brick_text = ("Hierholzer's algorithm for a walk using every edge once: start at the node with one more outgoing "
                  "than incoming edge (else the smallest node with an edge), always leave by the smallest unused edge, "
                  "backtrack when stuck, and list the finished walk in order (no output if no such walk exists).")

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        walk, used = [rng.randrange(n)], set()
        for _ in range(2 * n):  # a random walk that never reuses an edge
            options = [v for v in range(n) if v != walk[-1] and (walk[-1], v) not in used]
            if not options:
                break
            used.add((walk[-1], v := rng.choice(options)))
            walk.append(v)
        return make_graph(n, list(used), directed=True)

    def brick_apply(self, g, counter):
        counter.tick(2 * (g["n"] + len(g["edges"])))
        return euler_walk(g["n"], g["edges"])

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        walk = [rng.randrange(n)]
        for _ in range(2 * n):
            walk.append(rng.choice([v for v in range(n) if v != walk[-1]]))
        edges = list(zip(walk, walk[1:]))
        rng.shuffle(edges)
        return {"n": n, "edges": edges}, " ".join(map(str, walk))

    def prompt(self, problem):
        n, m = problem["n"], len(problem["edges"])
        return ask(f"A directed multigraph has {n} vertices numbered 0 to {n - 1} and these {m} edges (u v "
                   f"means an edge from u to v; repeated lines are parallel edges):\n{_edge_lines(problem['edges'])}"
                   "\n\nFind a walk that uses every edge exactly once.",
                   f"Give the {m + 1} vertices of the walk in order separated by spaces.")

    def reward(self, problem, answer):
        walk, edges = int_list(answer), Counter(map(tuple, problem["edges"]))
        m = sum(edges.values())
        if len(walk) != m + 1:
            return -0.5
        used = Counter(zip(walk, walk[1:]))
        return (sum(min(c, edges[e]) for e, c in used.items()) / m) ** 5


class StableMatching(GymEnv):
    """Stable marriage (classical algorithms; checked, not compared). d: n = d + 3 per side with
    random preference lists. Answer: the partner of each proposer. Reward: -1 unparsable, -0.5
    not a perfect matching, 1 if no blocking pair, else 0."""

    name = "stable_matching"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [rng.sample(range(n), n) for _ in range(n)]
        b = [rng.sample(range(n), n) for _ in range(n)]
        rank_b = [{x: i for i, x in enumerate(p)} for p in b]
        partner_b, nxt, free = [-1] * n, [0] * n, list(range(n))
        while free:  # Gale-Shapley, A proposes
            x = free.pop()
            y = a[x][nxt[x]]
            nxt[x] += 1
            if partner_b[y] < 0:
                partner_b[y] = x
            elif rank_b[y][x] < rank_b[y][partner_b[y]]:
                free.append(partner_b[y])
                partner_b[y] = x
            else:
                free.append(x)
        match = [0] * n
        for y, x in enumerate(partner_b):
            match[x] = y
        return {"a": a, "b": b}, " ".join(map(str, match))

    def prompt(self, problem):
        n = len(problem["a"])
        pa = "\n".join(f"A{i}: " + " ".join(f"B{j}" for j in p) for i, p in enumerate(problem["a"]))
        pb = "\n".join(f"B{i}: " + " ".join(f"A{j}" for j in p) for i, p in enumerate(problem["b"]))
        return ask(f"There are {n} people in group A and {n} in group B. Each ranks the other group, most "
                   f"preferred first.\n{pa}\n{pb}\n\nPair everyone one-to-one so that no A and B who are not "
                   "paired both prefer each other to their assigned partners.",
                   f"Give {n} integers separated by spaces: for A0..A{n - 1}, the index of the assigned B, "
                   "e.g. <answer>2 0 1</answer>.")

    def reward(self, problem, answer):
        a, b = problem["a"], problem["b"]
        n, match = len(a), int_list(answer)
        if sorted(match) != list(range(n)):
            return -0.5
        partner_b = {y: x for x, y in enumerate(match)}
        rank_a = [{y: i for i, y in enumerate(p)} for p in a]
        rank_b = [{x: i for i, x in enumerate(p)} for p in b]
        blocking = any(rank_a[x][y] < rank_a[x][match[x]] and rank_b[y][x] < rank_b[y][partner_b[y]]
                       for x in range(n) for y in range(n))
        return 0.0 if blocking else 1.0


class TreeDiameter(GymEnv):
    """Farthest pair in a weighted tree (classical algorithms). d: N = d + 5 vertices, weights 1..9.
    Answer: two vertices. Reward: -1 unparsable, -0.5 not two valid vertices, else
    (their distance / diameter)^5."""

    name = "tree_diameter"
    category = "algorithms"

    brick_io = ("tree", "int")
    brick_text = "The number of edges on a longest path in the tree."

    def brick_input(self, rng, difficulty):
        return tree_of(rng, self.size(difficulty))

    def brick_apply(self, t, counter):
        counter.tick(2 * (t["n"] + len(t["edges"])))  # two searches: farthest node from 0, then from it
        edges = [(u, v, 1) for u, v in t["edges"]]
        far = _tree_dists(t["n"], edges, 0)
        return max(_tree_dists(t["n"], edges, far.index(max(far))))

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = [(v, rng.randrange(v), rng.randint(1, 9)) for v in range(1, n)]
        perm = rng.sample(range(n), n)  # hide the generation order
        edges = [(perm[u], perm[v], w) for u, v, w in edges]
        rng.shuffle(edges)
        far = _tree_dists(n, edges, 0)
        u = max(range(n), key=far.__getitem__)
        du = _tree_dists(n, edges, u)
        v = max(range(n), key=du.__getitem__)
        return {"n": n, "edges": edges, "diameter": du[v]}, f"{u} {v}"

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A tree has {n} vertices numbered 0 to {n - 1} and these weighted edges (u v w):\n"
                   f"{_edge_lines(problem['edges'], True)}\n\nFind two vertices whose distance (total weight of "
                   "the path between them) is as large as possible.", "Give the two vertices separated by a space, "
                   "e.g. <answer>3 7</answer>.")

    def reward(self, problem, answer):
        pair = index_set(answer, problem["n"])
        if pair is None or len(pair) != 2:
            return -0.5
        return (_tree_dists(problem["n"], problem["edges"], pair[0])[pair[1]] / problem["diameter"]) ** 5


def _tree_dists(n: int, edges, src: int) -> list[int]:
    adj: dict[int, list] = {}
    for u, v, w in edges:
        adj.setdefault(u, []).append((v, w))
        adj.setdefault(v, []).append((u, w))
    dist, stack = [-1] * n, [src]
    dist[src] = 0
    while stack:
        u = stack.pop()
        for v, w in adj.get(u, ()):
            if dist[v] < 0:
                dist[v] = dist[u] + w
                stack.append(v)
    return dist


class MazeShortestPath(GymEnv):
    """Shortest route through a grid maze (classical algorithms, BFS). d: an (d+5) x (d+5) grid,
    about 30% walls, start top-left, goal bottom-right. Answer: moves U/D/L/R. Reward: -1
    unparsable, -0.5 if the moves hit a wall, leave the grid or stop off the goal, else
    (shortest length / its length)^5."""

    name = "maze_shortest_path"
    category = "algorithms"
    MOVES = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}

    brick_io = ("grid[bit]", "int")
    brick_text = ("The fewest up/down/left/right moves from the top-left to the bottom-right cell through 0-cells (1 is "
                  "a wall; no output if there is no route).")

    def brick_input(self, rng, difficulty):
        grid = bitgrid_of(rng, self.size(difficulty), self.size(difficulty), 0.3)
        grid[0][0] = grid[-1][-1] = 0
        return grid

    def brick_apply(self, g, counter):
        h, w = len(g), len(g[0])
        counter.tick(5 * h * w)
        dist, queue = {(0, 0): 0}, deque([(0, 0)] if g[0][0] == 0 else [])
        while queue:
            r, c = queue.popleft()
            for dr, dc in self.MOVES.values():
                if 0 <= r + dr < h and 0 <= c + dc < w and g[r + dr][c + dc] == 0 and (r + dr, c + dc) not in dist:
                    dist[r + dr, c + dc] = dist[r, c] + 1
                    queue.append((r + dr, c + dc))
        return dist.get((h - 1, w - 1)) if g[0][0] == 0 else None

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        grid = [["#" if rng.random() < 0.3 else "." for _ in range(n)] for _ in range(n)]
        grid[0][0] = grid[n - 1][n - 1] = "."
        grid = ["".join(r) for r in grid]
        prev = {(0, 0): None}
        q = deque([(0, 0)])
        while q:
            r, c = q.popleft()
            for m, (dr, dc) in self.MOVES.items():
                nr, nc = r + dr, c + dc
                if 0 <= nr < n and 0 <= nc < n and grid[nr][nc] == "." and (nr, nc) not in prev:
                    prev[(nr, nc)] = (m, (r, c))
                    q.append((nr, nc))
        if (n - 1, n - 1) not in prev:
            raise Retry
        moves, cell = [], (n - 1, n - 1)
        while prev[cell] is not None:
            m, cell = prev[cell]
            moves.append(m)
        return {"grid": grid, "optimum": len(moves)}, "".join(reversed(moves))

    def prompt(self, problem):
        grid = problem["grid"]
        n = len(grid)
        return ask(f"A maze of {n} rows and {n} columns ('#' wall, '.' open):\n" + "\n".join(grid) +
                   "\n\nFind a shortest route from the top-left cell to the bottom-right cell, moving up, "
                   "down, left or right through open cells.", "Give the moves as letters U, D, L, R, e.g. "
                   "<answer>RRDDRD</answer>.")

    def reward(self, problem, answer):
        moves = "".join(answer.split()).upper()
        if not moves or any(m not in self.MOVES for m in moves):
            raise ValueError("moves must be U, D, L, R")
        grid = problem["grid"]
        n, r, c = len(grid), 0, 0
        for m in moves:
            r, c = r + self.MOVES[m][0], c + self.MOVES[m][1]
            if not (0 <= r < n and 0 <= c < n) or grid[r][c] == "#":
                return -0.5
        if (r, c) != (n - 1, n - 1):
            return -0.5
        return (problem["optimum"] / len(moves)) ** 5
