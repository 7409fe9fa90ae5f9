"""More graph algorithms: strongly connected components, articulation points, shortest paths
with negative edges, 2-SAT, knight distances, DAG path counts, tree centroids and distance
sums, graph isomorphism.

Structures are checked (a centroid, an isomorphism, a satisfying assignment: any valid one
scores 1); determined lists score by entries or as sets (share(), jaccard()); counts are graded
by CountEnv's (min/max)^10 (our choice, after the paper's formula for
BubbleSwapLowerBound_PermutationCounting, rlve line 43); -0.5 for an answer of the wrong shape, -1 unparsable.
"""
from __future__ import annotations

from collections import deque

from envs.gym.base import COUNT_FORMAT, INT_FORMAT, CountEnv, GymEnv, IntEnv, Retry, ask, index_set, int_list, \
    jaccard, matches, share, to_int
from envs.gym.graphs import _connected_graph, _edge_lines, _random_pairs
from envs.gym.np_complete import Sat

LABEL_FORMAT = ("Give {n} integers separated by spaces: for each vertex 0..{last}, a label of its component "
                "(vertices share a label exactly when they are in the same component), e.g. <answer>0 0 1 0 2</answer>.")


def _canonical(labels: list) -> list[int]:
    canon: dict = {}
    return [canon.setdefault(x, len(canon)) for x in labels]


def scc_labels(n: int, edges) -> list[int]:
    """Kosaraju, iterative: the component of each vertex, numbered by first appearance."""
    out: list[list[int]] = [[] for _ in range(n)]
    back: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        out[u].append(v)
        back[v].append(u)
    order, seen = [], [False] * n
    for s in range(n):
        if seen[s]:
            continue
        seen[s] = True
        stack = [(s, 0)]
        while stack:
            u, i = stack.pop()
            if i < len(out[u]):
                stack.append((u, i + 1))
                v = out[u][i]
                if not seen[v]:
                    seen[v] = True
                    stack.append((v, 0))
            else:
                order.append(u)
    comp = [-1] * n
    for s in reversed(order):
        if comp[s] >= 0:
            continue
        comp[s], stack = s, [s]
        while stack:
            u = stack.pop()
            for v in back[u]:
                if comp[v] < 0:
                    comp[v] = s
                    stack.append(v)
    return _canonical(comp)


class StronglyConnectedComponents(GymEnv):
    """Strongly connected components of a directed graph (classical algorithms, Kosaraju).
    d: n = d + 6 vertices, a few planted cycles plus n random edges. Answer: a component label
    per vertex. Reward: -1 unparsable, -0.5 wrong count, 1 if the labels induce exactly the
    components, else 0."""

    name = "strongly_connected_components"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = []
        for _ in range(max(1, n // 4)):  # planted cycles, so components are not all singletons
            cyc = rng.sample(range(n), rng.randint(2, 4))
            edges += list(zip(cyc, cyc[1:] + cyc[:1]))
        edges += _random_pairs(rng, n, n, directed=True, avoid=edges)
        edges = sorted(set(edges))
        rng.shuffle(edges)
        return {"n": n, "edges": edges}, " ".join(map(str, scc_labels(n, edges)))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed graph has {n} vertices numbered 0 to {n - 1} and these edges (u v means an edge from u "
                   f"to v):\n{_edge_lines(problem['edges'])}\n\nGroup the vertices into strongly connected components "
                   "(two vertices are together when each can reach the other).",
                   LABEL_FORMAT.format(n=n, last=n - 1))

    def reward(self, problem, answer):
        labels, n = int_list(answer), problem["n"]
        if len(labels) != n:
            return -0.5
        return 1.0 if _canonical(labels) == scc_labels(n, problem["edges"]) else 0.0


def articulation_points(n: int, edges) -> list[int]:
    """Vertices whose removal disconnects the (connected) graph, by removing each in turn."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    out = []
    for cut in range(n):
        start = 1 if cut == 0 else 0
        seen, stack = {start, cut}, [start]
        while stack:
            for v in adj[stack.pop()]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        if len(seen) < n:
            out.append(cut)
    return out


class ArticulationPoints(GymEnv):
    """Cut vertices of a connected graph (classical algorithms). d: n = d + 6 vertices, a
    random spanning tree plus n // 3 extra edges; at least one cut vertex. Answer: the cut
    vertices. Reward: -1 unparsable, -0.5 repeated or out-of-range vertices, else
    (|A & G| / |A | G|)^5."""

    name = "articulation_points"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _connected_graph(rng, n, n - 1 + n // 3)
        rng.shuffle(edges)
        cuts = articulation_points(n, edges)
        if not cuts:
            raise Retry
        return {"n": n, "edges": edges, "cuts": cuts}, " ".join(map(str, cuts))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected connected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\nWhich vertices are articulation points (removing the vertex "
                   "and its edges leaves the rest disconnected)?",
                   "Give all of them in increasing order separated by spaces, e.g. <answer>2 5</answer>.")

    def reward(self, problem, answer):
        got = index_set(answer, problem["n"])
        if got is None:
            return -0.5
        return jaccard(set(got), set(problem["cuts"]))


class BellmanFord(GymEnv):
    """Shortest distances from vertex 0 with negative edge weights (classical algorithms,
    Bellman-Ford). d: n = d + 5 vertices, 2n edges; weight(u, v) = b + p(u) - p(v) with b in
    0..9 and vertex potentials p in 0..10, so there is no negative cycle. Answer: a distance per
    vertex, x if unreachable. Reward: -1 unparsable, -0.5 wrong count, else (entries right /
    n)^5."""

    name = "bellman_ford"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pot = [rng.randint(0, 10) for _ in range(n)]
        edges = [(u, v, rng.randint(0, 9) + pot[u] - pot[v]) for u, v in _random_pairs(rng, n, 2 * n, directed=True)]
        dist: list = [None] * n
        dist[0] = 0
        for _ in range(n - 1):
            for u, v, w in edges:
                if dist[u] is not None and (dist[v] is None or dist[u] + w < dist[v]):
                    dist[v] = dist[u] + w
        text = ["x" if d is None else str(d) for d in dist]
        return {"n": n, "edges": edges, "dist": text}, " ".join(text)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed graph has {n} vertices numbered 0 to {n - 1} and these weighted edges (u v w means an "
                   f"edge from u to v of length w; lengths may be negative, but no cycle has negative total "
                   f"length):\n{_edge_lines(problem['edges'], True)}\n\nFor every vertex, give the length of a shortest "
                   "path from vertex 0.", f"Give {n} values for vertices 0 to {n - 1} separated by spaces, x for a "
                   "vertex that cannot be reached, e.g. <answer>0 -3 x 4</answer>.")

    def reward(self, problem, answer):
        got = [t.lower() if t.lower() == "x" else str(to_int(t)) for t in answer.replace(",", " ").split()]
        return matches(got, problem["dist"])


class TwoSat(Sat):
    """2-SAT with a planted assignment (classical algorithms: polynomial by implication-graph
    components). d: n = d + 4 variables, 3n clauses of two literals, each satisfied by the
    planted assignment. Reward: -1 unparsable, -0.5 wrong length or a value other than 0/1, 1
    if every clause holds, else 0."""

    name = "two_sat"
    category = "algorithms"
    literals, clauses_per_variable = 2, 3


KNIGHT = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]


class KnightDistance(IntEnv):
    """Fewest knight moves between two squares around blocked squares (classical algorithms,
    breadth-first search). d: an n x n board, n = d // 2 + 6, about 15% blocked; the target is
    reachable and at least two moves away. Reward: -1 unparsable, 1 exact, else 0."""

    name = "knight_distance"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty // 2 + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        board = [["#" if rng.random() < 0.15 else "." for _ in range(n)] for _ in range(n)]
        free = [(r, c) for r in range(n) for c in range(n) if board[r][c] == "."]
        if len(free) < 2:
            raise Retry
        a, b = rng.sample(free, 2)
        dist = {a: 0}
        queue = deque([a])
        while queue:
            r, c = queue.popleft()
            for dr, dc in KNIGHT:
                x, y = r + dr, c + dc
                if 0 <= x < n and 0 <= y < n and board[x][y] == "." and (x, y) not in dist:
                    dist[(x, y)] = dist[(r, c)] + 1
                    queue.append((x, y))
        if dist.get(b, 0) < 2:
            raise Retry
        board[a[0]][a[1]], board[b[0]][b[1]] = "S", "T"
        return {"board": ["".join(row) for row in board], "value": dist[b]}, str(dist[b])

    def prompt(self, problem):
        return ask("A board ('.' free, '#' blocked, S start, T target):\n" + "\n".join(problem["board"]) +
                   "\n\nA chess knight moves two squares in one direction and one square at right angles, jumping over "
                   "anything between, and may only land on free squares. What is the fewest number of moves from S "
                   "to T?", INT_FORMAT)


class DagPathCounting(CountEnv):
    """Directed paths from 0 to n - 1 in a DAG (competition counting, DP in topological order).
    d: n = d + 6 vertices, 2n edges consistent with a hidden order, a planted 0 -> n - 1 path."""

    name = "dag_path_counting"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        order = [0] + rng.sample(range(1, n - 1), n - 2) + [n - 1]
        pos = {v: i for i, v in enumerate(order)}
        chain = sorted(rng.sample(range(1, n - 1), rng.randint(1, n - 2)), key=pos.__getitem__)
        walk = [0] + chain + [n - 1]
        pairs = set(zip(walk, walk[1:]))
        for u, v in _random_pairs(rng, n, 2 * n, directed=False):
            pairs.add((u, v) if pos[u] < pos[v] else (v, u))
        edges = sorted(pairs)
        rng.shuffle(edges)
        ways = dict.fromkeys(range(n), 0)
        ways[0] = 1
        for v in order:  # every edge goes forward in `order`
            for a, b in edges:
                if a == v:
                    ways[b] += ways[v]
        return {"n": n, "edges": edges, "count": ways[n - 1]}, str(ways[n - 1])

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed acyclic graph has {n} vertices numbered 0 to {n - 1} and these edges (u v means an "
                   f"edge from u to v):\n{_edge_lines(problem['edges'])}\n\nHow many different directed paths lead from "
                   f"vertex 0 to vertex {n - 1}?", COUNT_FORMAT)


def _tree(rng, n: int) -> list[tuple[int, int]]:
    perm = rng.sample(range(n), n)
    edges = [(perm[v], perm[rng.randrange(v)]) for v in range(1, n)]
    rng.shuffle(edges)
    return edges


def _subtree_sizes(n: int, edges) -> tuple[list[int], list[int], list[int]]:
    """(parent, order, size) of the tree rooted at 0, iteratively."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        adj[v].append(u)
    parent, order, stack = [-1] * n, [], [0]
    seen = [False] * n
    seen[0] = True
    while stack:
        u = stack.pop()
        order.append(u)
        for v in adj[u]:
            if not seen[v]:
                seen[v], parent[v] = True, u
                stack.append(v)
    size = [1] * n
    for u in reversed(order[1:]):
        size[parent[u]] += size[u]
    return parent, order, size


class TreeCentroid(GymEnv):
    """A centroid of a tree: a vertex whose removal leaves parts of at most n / 2 vertices
    (classical algorithms; checked, either centroid counts). d: n = 2d + 5 vertices. Reward: -1
    unparsable, -0.5 not a vertex, 1 for a centroid, else 0."""

    name = "tree_centroid"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _tree(rng, n)
        parts = _largest_parts(n, edges)
        return {"n": n, "edges": edges}, str(min(range(n), key=parts.__getitem__))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A tree has {n} vertices numbered 0 to {n - 1} and edges " +
                   ", ".join(f"{u}-{v}" for u, v in problem["edges"]) + ".\n\nFind a centroid: a vertex whose removal "
                   f"splits the tree into parts of at most {n // 2} vertices each.", INT_FORMAT)

    def reward(self, problem, answer):
        items = int_list(answer)
        n = problem["n"]
        if len(items) != 1 or not 0 <= items[0] < n:
            return -0.5
        return 1.0 if 2 * _largest_parts(n, problem["edges"])[items[0]] <= n else 0.0


def _largest_parts(n: int, edges) -> list[int]:
    """For each vertex, the size of the largest part left when it is removed."""
    parent, _, size = _subtree_sizes(n, edges)
    biggest = [n - size[v] for v in range(n)]
    for v in range(1, n):
        biggest[parent[v]] = max(biggest[parent[v]], size[v])
    return biggest


class TreeDistanceSum(CountEnv):
    """Sum of distances over all pairs of vertices of a weighted tree (competition counting:
    each edge adds weight x size x (n - size)). d: n = 3d + 6 vertices, weights 1..20."""

    name = "tree_distance_sum"

    def size(self, difficulty):
        return 3 * difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = [(u, v, rng.randint(1, 20)) for u, v in _tree(rng, n)]
        parent, _, size = _subtree_sizes(n, [(u, v) for u, v, _ in edges])
        total = 0
        for u, v, w in edges:
            child = v if parent[v] == u else u
            total += w * size[child] * (n - size[child])
        return {"n": n, "edges": edges, "count": total}, str(total)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A tree has {n} vertices numbered 0 to {n - 1} and these weighted edges (u v w):\n"
                   f"{_edge_lines(problem['edges'], True)}\n\nWhat is the sum, over all unordered pairs of distinct "
                   "vertices, of the length of the path between them?", COUNT_FORMAT)


class GraphIsomorphism(GymEnv):
    """An isomorphism between two graphs (classical algorithms; planted, checked). d: n = d + 5
    vertices, G a random graph of density 0.4, H = G under a random relabelling with its edges
    shuffled. Answer: the H-vertex of each G-vertex. Reward: -1 unparsable, -0.5 not a
    permutation, else (G edges mapped onto H edges / edges)^5."""

    name = "graph_isomorphism"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        g = _random_pairs(rng, n, max(n - 1, int(0.4 * n * (n - 1) / 2)), directed=False)
        perm = rng.sample(range(n), n)
        h = [tuple(sorted((perm[u], perm[v]))) for u, v in g]
        rng.shuffle(h)
        return {"n": n, "g": g, "h": h}, " ".join(map(str, perm))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"Two graphs on vertices 0..{n - 1}.\nG edges: " + ", ".join(f"{u}-{v}" for u, v in problem["g"]) +
                   "\nH edges: " + ", ".join(f"{u}-{v}" for u, v in problem["h"]) + "\n\nMap the vertices of G "
                   "one-to-one onto the vertices of H so that u-v is an edge of G exactly when their images form an "
                   "edge of H.", f"Give {n} integers separated by spaces: the H-vertex of G-vertices 0 to {n - 1}.")

    def reward(self, problem, answer):
        perm, n = int_list(answer), problem["n"]
        if sorted(perm) != list(range(n)):
            return -0.5
        h = {tuple(e) for e in problem["h"]}
        hits = sum(tuple(sorted((perm[u], perm[v]))) in h for u, v in problem["g"])
        return share(hits, len(problem["g"]), 5)
