"""More classical graph algorithms: bipartiteness (a 2-colouring or an odd cycle), bridges,
all-pairs shortest paths, depth-first order, second-best spanning trees, minimum cost flows,
directed cycles, minimum arborescences, DAG path covers, graph centres, negative cycles,
dominators, k-cores, transitive reductions and edge colourings of bipartite graphs.

What makes each its own problem (next to graphs.py and graph_algorithms.py): each asks for a
different object with a different algorithm behind it. Bridges are edges (articulation_points
asks for vertices); Floyd-Warshall gives every pair (shortest_path and bellman_ford one source);
the second-best spanning tree, arborescence and min-cost flow are different optimisation
criteria from minimum_spanning_tree, shortest_path and max_flow; an odd cycle,
directed cycle or negative cycle is a certificate that no colouring, order or distance exists.

Rewards (our choice, in the style of the existing graph envs): -1 unparsable, -0.5 an answer of
the wrong shape (wrong count, vertices out of range, not a walk along edges). Structures are
checked against the graph, so every valid one scores 1 (any 2-colouring, any odd cycle, any
optimal cover); optimisation answers score (optimum / its value)^5 or (its value /
optimum)^5; determined lists score (entries right / entries)^5 (matches()) or, as sets,
(|A & G| / |A | G|)^5 (jaccard()); single determined integers score 1 exact, else 0.
"""
from __future__ import annotations

from collections import deque

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, Retry, ask, int_list, jaccard, matches, share, to_int
from envs.gym.graphs import _DSU, _connected_graph, _edge_lines, _flow_network, _random_pairs, bipartite_matching, \
    max_flow

PAIRS_FORMAT = "Give one edge per line as \"u v\", e.g. <answer>0 3\n2 5</answer>."


def _adj(n: int, edges, directed: bool = False) -> list[list[int]]:
    adj: list[list[int]] = [[] for _ in range(n)]
    for e in edges:
        adj[e[0]].append(e[1])
        if not directed:
            adj[e[1]].append(e[0])
    return adj


def _reach(n: int, adj, src: int, banned: int = -1) -> list[bool]:
    seen = [False] * n
    if src == banned:
        return seen
    seen[src], stack = True, [src]
    while stack:
        for v in adj[stack.pop()]:
            if not seen[v] and v != banned:
                seen[v] = True
                stack.append(v)
    return seen


def _pairs(answer: str) -> list[tuple[int, int]] | None:
    nums = int_list(answer)
    return None if len(nums) % 2 else list(zip(nums[::2], nums[1::2]))


def _cycle_ok(cycle: list[int], n: int, edges: set) -> bool:
    """A simple directed cycle v0 -> v1 -> ... -> v0 along edges (at least 2 vertices)."""
    return (len(cycle) >= 2 and len(set(cycle)) == len(cycle) and all(0 <= v < n for v in cycle)
            and all((u, v) in edges for u, v in zip(cycle, cycle[1:] + cycle[:1])))


# ---------------------------------------------------------------------------- bipartiteness

def two_colouring(n: int, edges) -> tuple[list[int] | None, list[int] | None]:
    """(colours, None) if bipartite, else (None, an odd cycle) from a BFS tree."""
    adj = _adj(n, edges)
    colour, parent, depth = [-1] * n, [-1] * n, [0] * n
    for s in range(n):
        if colour[s] >= 0:
            continue
        colour[s], queue = 0, deque([s])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if colour[v] < 0:
                    colour[v], parent[v], depth[v] = 1 - colour[u], u, depth[u] + 1
                    queue.append(v)
                elif colour[v] == colour[u]:  # same depth parity: the tree paths close an odd cycle
                    a, b, left, right = u, v, [u], [v]
                    while a != b:
                        if depth[a] >= depth[b]:
                            a = parent[a]
                            left.append(a)
                        else:
                            b = parent[b]
                            right.append(b)
                    return None, left + right[-2::-1]
    return colour, None


class BipartiteOrOddCycle(GymEnv):
    """Is a graph bipartite? Answer with a certificate either way (classical algorithms, BFS
    2-colouring): a colour 0/1 per vertex with no edge inside one colour, or the word ODD and the
    vertices of a cycle of odd length. d: n = d + 6 vertices, a random 2-sided graph of 1.3 n
    edges, plus (half the time) one edge inside a side. Reward: -1 unparsable, -0.5 wrong shape,
    1 for a valid certificate, else 0. Its own problem: the answer proves bipartiteness or its
    absence; no other env asks for an odd cycle."""

    name = "bipartite_or_odd_cycle"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        side = [rng.randrange(2) for _ in range(n)]
        cross = [(u, v) for u in range(n) for v in range(u + 1, n) if side[u] != side[v]]
        edges = rng.sample(cross, min(len(cross), (13 * n) // 10))
        if rng.random() < 0.5:
            inside = [(u, v) for u in range(n) for v in range(u + 1, n) if side[u] == side[v]]
            edges.append(rng.choice(inside))
        rng.shuffle(edges)
        colour, cycle = two_colouring(n, edges)
        return {"n": n, "edges": edges}, " ".join(map(str, colour)) if cycle is None else "ODD " + " ".join(map(str, cycle))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\nIf its vertices can be coloured with two colours so that no edge "
                   "joins two vertices of the same colour, give such a colouring; otherwise prove it cannot be done by "
                   "giving a cycle of odd length.",
                   f"Either {n} values 0 or 1 (the colours of vertices 0..{n - 1}), e.g. <answer>0 1 1 0</answer>, or "
                   "the word ODD followed by the vertices of an odd cycle in order, e.g. <answer>ODD 2 5 7</answer>.")

    def reward(self, problem, answer):
        n, edges = problem["n"], problem["edges"]
        text = answer.strip()
        if text.upper().startswith("ODD"):
            cycle = int_list(text[3:])
            und = {(u, v) for u, v in edges} | {(v, u) for u, v in edges}
            if len(cycle) < 3 or any(not 0 <= v < n for v in cycle):
                return -0.5
            return 1.0 if len(cycle) % 2 == 1 and _cycle_ok(cycle, n, und) else 0.0
        colour = int_list(text)
        if len(colour) != n or any(c not in (0, 1) for c in colour):
            return -0.5
        return 1.0 if all(colour[u] != colour[v] for u, v in edges) else 0.0


# ---------------------------------------------------------------------------- bridges

def bridges(n: int, edges) -> list[tuple[int, int]]:
    """Edges whose removal disconnects the graph, by removing each in turn (n is small)."""
    out = []
    for i, (u, v) in enumerate(edges):
        rest = edges[:i] + edges[i + 1:]
        if not _reach(n, _adj(n, rest), u)[v]:
            out.append((min(u, v), max(u, v)))
    return sorted(out)


class Bridges(GymEnv):
    """Bridges (cut edges) of a connected graph (classical algorithms, low-link DFS). d: n =
    d + 6 vertices, a random spanning tree plus n // 3 extra edges; at least one bridge. Answer:
    the bridges as pairs. Reward: -1 unparsable, -0.5 an odd count of numbers, else
    (|A & G| / |A | G|)^5 over unordered pairs. Its own problem: edges, not the cut vertices of
    articulation_points (a bridge's ends need not be cut vertices, and vice versa)."""

    name = "bridge_edges"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _connected_graph(rng, n, n - 1 + n // 3)
        rng.shuffle(edges)
        cut = bridges(n, edges)
        if not cut:
            raise Retry
        return {"n": n, "edges": edges, "bridges": cut}, _edge_lines(cut)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected connected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\nWhich edges are bridges (removing the edge alone disconnects "
                   "the graph)?", PAIRS_FORMAT)

    def reward(self, problem, answer):
        pairs = _pairs(answer)
        if pairs is None:
            return -0.5
        return jaccard({(min(p), max(p)) for p in pairs}, {tuple(b) for b in problem["bridges"]})


# ---------------------------------------------------------------------------- all pairs

class AllPairsShortestPaths(GymEnv):
    """The full distance matrix of a weighted directed graph (classical algorithms,
    Floyd-Warshall). d: n = d // 2 + 4 vertices, 2n edges with weights 1..9. Answer: n lines of
    n values, x for no path. Reward: -1 unparsable, -0.5 wrong count, else (entries right /
    n^2)^5. Its own problem: every pair at once (shortest_path asks for one path, bellman_ford
    for distances from one source)."""

    name = "all_pairs_shortest_paths"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = [(u, v, rng.randint(1, 9)) for u, v in _random_pairs(rng, n, 2 * n, directed=True)]
        inf = float("inf")
        dist = [[0 if i == j else inf for j in range(n)] for i in range(n)]
        for u, v, w in edges:
            dist[u][v] = min(dist[u][v], w)
        for k in range(n):
            for i in range(n):
                for j in range(n):
                    if dist[i][k] + dist[k][j] < dist[i][j]:
                        dist[i][j] = dist[i][k] + dist[k][j]
        rows = [["x" if d == inf else str(d) for d in row] for row in dist]
        return {"n": n, "edges": edges, "dist": [c for r in rows for c in r]}, "\n".join(" ".join(r) for r in rows)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed graph has {n} vertices numbered 0 to {n - 1} and these weighted edges (u v w means an "
                   f"edge from u to v of length w):\n{_edge_lines(problem['edges'], True)}\n\nGive the length of a "
                   "shortest path between every ordered pair of vertices.",
                   f"Give {n} lines of {n} values: line i holds the distances from vertex i to vertices 0..{n - 1} "
                   "(0 to itself), x where there is no path, e.g. <answer>0 3 x\n2 0 x\n5 1 0</answer>.")

    def reward(self, problem, answer):
        got = [t.lower() if t.lower() == "x" else str(to_int(t)) for t in answer.replace(",", " ").split()]
        return matches(got, problem["dist"])


# ---------------------------------------------------------------------------- DFS order

def dfs_order(n: int, edges, src: int = 0) -> list[int]:
    adj = [sorted(a, reverse=True) for a in _adj(n, edges)]
    seen, order, stack = [False] * n, [], [src]
    while stack:
        u = stack.pop()
        if seen[u]:
            continue
        seen[u] = True
        order.append(u)
        stack += [v for v in adj[u] if not seen[v]]  # reversed: the smallest is popped first
    return order


class DfsOrder(GymEnv):
    """The order in which a recursive depth-first search from vertex 0 first visits the vertices,
    always trying the smallest-numbered unvisited neighbour first (classical algorithms,
    simulation). d: n = d + 6 vertices, a connected graph of 1.5 n edges. Reward: -1 unparsable,
    -0.5 wrong count, else (positions right / n)^5. Its own problem: a traversal order that the
    rule fixes (topological_sort's orders are any that respect the edges)."""

    name = "dfs_order"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _connected_graph(rng, n, (3 * n) // 2)
        rng.shuffle(edges)
        order = dfs_order(n, edges)
        return {"n": n, "edges": edges, "order": order}, " ".join(map(str, order))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\nRun a recursive depth-first search from vertex 0: on visiting a "
                   "vertex, go into its unvisited neighbours one by one, smallest number first, returning when none "
                   "is left. In which order are the vertices first visited?",
                   f"Give the {n} vertices in visiting order separated by spaces, e.g. <answer>0 2 1 3</answer>.")

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["order"])


# ---------------------------------------------------------------------------- second-best MST

def mst_weight(n: int, edges, skip: int = -1) -> int | None:
    """Kruskal's total, leaving out edge index `skip`; None if the rest does not span."""
    dsu, total, used = _DSU(n), 0, 0
    for i in sorted(range(len(edges)), key=lambda i: edges[i][2]):
        if i != skip and dsu.union(edges[i][0], edges[i][1]):
            total, used = total + edges[i][2], used + 1
    return total if used == n - 1 else None


def second_best_mst(n: int, edges) -> int | None:
    """With distinct weights the MST is unique; the next tree swaps one of its edges out, so the
    best tree avoiding each MST edge in turn is a candidate, and their minimum is the answer."""
    dsu, tree = _DSU(n), []
    for i in sorted(range(len(edges)), key=lambda i: edges[i][2]):
        if dsu.union(edges[i][0], edges[i][1]):
            tree.append(i)
    totals = [t for i in tree if (t := mst_weight(n, edges, skip=i)) is not None]
    return min(totals) if totals else None


class SecondBestMst(IntEnv):
    """Weight of the second-best spanning tree (classical algorithms): the least total weight of a
    spanning tree other than the minimum one. d: n = d + 4 vertices, 2n edges with distinct
    weights 1..4n (so the minimum tree is unique). Reward: -1 unparsable, 1 exact, else 0. Its
    own problem: minimum_spanning_tree asks for the best tree; this one needs the best swap."""

    name = "second_best_mst"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pairs = _connected_graph(rng, n, 2 * n)
        weights = rng.sample(range(1, 4 * n + 1), len(pairs))
        edges = [(u, v, w) for (u, v), w in zip(pairs, weights)]
        rng.shuffle(edges)
        value = second_best_mst(n, edges)
        if value is None:
            raise Retry
        return {"n": n, "edges": edges, "value": value}, str(value)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected graph has {n} vertices numbered 0 to {n - 1} and these weighted edges (u v w; all "
                   f"weights differ):\n{_edge_lines(problem['edges'], True)}\n\nIts minimum spanning tree is unique. "
                   "What is the smallest total weight of a spanning tree that is not the minimum one?", INT_FORMAT)


# ---------------------------------------------------------------------------- min-cost flow

def min_cost_flow(n: int, edges, s: int, t: int, need: int) -> int | None:
    """Successive shortest paths (Bellman-Ford on the residual graph): the least cost of `need`
    units from s to t, None if fewer fit."""
    graph: list[list[list[int]]] = [[] for _ in range(n)]  # [to, cap, cost, index of reverse]
    for u, v, c, w in edges:
        graph[u].append([v, c, w, len(graph[v])])
        graph[v].append([u, 0, -w, len(graph[u]) - 1])
    cost = 0
    while need > 0:
        dist, prev = [float("inf")] * n, [None] * n
        dist[s] = 0
        for _ in range(n):
            changed = False
            for u in range(n):
                if dist[u] == float("inf"):
                    continue
                for i, (v, c, w, _) in enumerate(graph[u]):
                    if c > 0 and dist[u] + w < dist[v]:
                        dist[v], prev[v], changed = dist[u] + w, (u, i), True
            if not changed:
                break
        if dist[t] == float("inf"):
            return None
        push, v = need, t
        while v != s:
            u, i = prev[v]
            push, v = min(push, graph[u][i][1]), u
        v = t
        while v != s:
            u, i = prev[v]
            graph[u][i][1] -= push
            graph[v][graph[u][i][3]][1] += push
            v = u
        need, cost = need - push, cost + push * dist[t]
    return cost


class MinCostFlow(IntEnv):
    """The cheapest way to send k units of flow (classical algorithms, successive shortest
    paths). d: n = d + 4 vertices, 2n directed edges with capacities 1..10 and unit costs 1..9,
    k between 1 and the maximum flow. Answer: the least total cost. Reward: -1 unparsable, 1
    exact, else 0. Its own problem: max_flow ignores costs and shortest_path capacities; here
    both bind."""

    name = "min_cost_flow"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = [(u, v, c, rng.randint(1, 9)) for u, v, c in _flow_network(rng, n, top=10)]
        top = max_flow(n, [(u, v, c) for u, v, c, _ in edges], 0, n - 1)
        need = rng.randint(max(1, top // 2), top)
        value = min_cost_flow(n, edges, 0, n - 1, need)
        return {"n": n, "edges": edges, "need": need, "value": value}, str(value)

    def prompt(self, problem):
        n = problem["n"]
        rows = "\n".join(f"{u} {v} {c} {w}" for u, v, c, w in problem["edges"])
        return ask(f"A flow network has {n} vertices numbered 0 to {n - 1} and these directed edges (u v c w: from u to "
                   f"v, capacity c, cost w per unit of flow):\n{rows}\n\nSend exactly {problem['need']} units of flow "
                   f"from vertex 0 to vertex {n - 1} (no edge above its capacity, flow conserved at the other vertices). "
                   "What is the smallest possible total cost?", INT_FORMAT)


# ---------------------------------------------------------------------------- directed cycle

class FindDirectedCycle(GymEnv):
    """A directed cycle in a graph that has one (classical algorithms, DFS colouring). d: n =
    d + 6 vertices, 1.5 n edges forward in a hidden order plus one to three backward edges.
    Answer: the cycle's vertices in order. Reward: -1 unparsable, -0.5 repeated or out-of-range
    vertices, 1 if consecutive vertices (and last to first) are edges, else 0. Its own problem:
    the certificate that topological_sort's task is impossible."""

    name = "find_directed_cycle"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        order = rng.sample(range(n), n)
        pos = {v: i for i, v in enumerate(order)}
        pairs = _random_pairs(rng, n, (3 * n) // 2, directed=False)
        edges = [(u, v) if pos[u] < pos[v] else (v, u) for u, v in pairs]
        back = [(v, u) for u, v in edges]
        edges += rng.sample(back, rng.randint(1, min(3, len(back))))
        rng.shuffle(edges)
        cycle = _some_cycle(n, edges)
        return {"n": n, "edges": edges}, " ".join(map(str, cycle))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed graph has {n} vertices numbered 0 to {n - 1} and these edges (u v means an edge from u "
                   f"to v):\n{_edge_lines(problem['edges'])}\n\nFind a directed cycle.",
                   "Give its distinct vertices in order (each has an edge to the next, the last to the first), "
                   "e.g. <answer>4 1 7</answer>.")

    def reward(self, problem, answer):
        cycle, n = int_list(answer), problem["n"]
        if len(cycle) < 2 or len(set(cycle)) != len(cycle) or any(not 0 <= v < n for v in cycle):
            return -0.5
        return 1.0 if _cycle_ok(cycle, n, set(map(tuple, problem["edges"]))) else 0.0


def _some_cycle(n: int, edges) -> list[int]:
    adj = _adj(n, edges, directed=True)
    state = [0] * n  # 0 new, 1 on the stack, 2 done
    for s in range(n):
        if state[s]:
            continue
        path, its = [s], [iter(adj[s])]
        state[s] = 1
        while path:
            v = next(its[-1], None)
            if v is None:
                state[path.pop()] = 2
                its.pop()
            elif state[v] == 1:
                return path[path.index(v):]
            elif state[v] == 0:
                state[v] = 1
                path.append(v)
                its.append(iter(adj[v]))
    raise Retry


# ---------------------------------------------------------------------------- arborescence

def min_arborescence(n: int, edges, root: int) -> list[int] | None:
    """Chu-Liu/Edmonds, recursive: the parent of every vertex in a minimum spanning arborescence
    rooted at `root` (-1 for the root), None if some vertex cannot be reached."""
    chosen = _arborescence(n, [(u, v, w, i) for i, (u, v, w) in enumerate(edges) if u != v and v != root], root)
    if chosen is None:
        return None
    parent = [-1] * n
    for i in chosen:
        parent[edges[i][1]] = edges[i][0]
    return parent


def _arborescence(n: int, edges, root: int) -> list[int] | None:
    """The indices of the chosen edges (u, v, w, index)."""
    best: dict[int, tuple] = {}
    for e in edges:
        if e[1] not in best or e[2] < best[e[1]][2]:
            best[e[1]] = e
    if len(best) < n - 1:
        return None
    cycle = None
    for s in range(n):  # follow chosen in-edges backwards; a repeat on the walk is a cycle
        walk, x = [], s
        while x != root and x not in walk and cycle is None:
            walk.append(x)
            x = best[x][0]
        if x != root and x in walk:
            cycle = walk[walk.index(x):]
            break
    if cycle is None:
        return [e[3] for e in best.values()]
    inside = set(cycle)
    ids, c = {}, 0
    for v in range(n):
        if v not in inside:
            ids[v], c = c, c + 1
    for v in inside:
        ids[v] = c
    sub, origin = [], {}
    for u, v, w, i in edges:
        if ids[u] == ids[v]:
            continue
        sub.append((ids[u], ids[v], w - best[v][2] if v in inside else w, i))
        origin[i] = (u, v, w, i)
    chosen = _arborescence(c + 1, sub, ids[root])
    if chosen is None:
        return None
    entry = next(origin[i][1] for i in chosen if origin[i][1] in inside)  # where the cycle is entered
    return chosen + [best[v][3] for v in cycle if v != entry]


class MinArborescence(GymEnv):
    """Minimum spanning arborescence of a directed graph rooted at 0 (classical algorithms,
    Chu-Liu/Edmonds). d: n = d + 4 vertices, a planted arborescence plus 2n random edges,
    weights 1..20. Answer: the parent of each vertex 1..n-1. Reward: -1 unparsable, -0.5 wrong
    count, a non-edge or a cycle, else (optimum / its weight)^5. Its own problem: directed
    (minimum_spanning_tree is undirected, where greedy choices of in-edges would fail here)."""

    name = "min_arborescence"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        order = [0] + rng.sample(range(1, n), n - 1)
        pairs = {(order[rng.randrange(i)], order[i]) for i in range(1, n)}
        pairs |= {(u, v) for u, v in _random_pairs(rng, n, 2 * n, directed=True) if v != 0}
        edges = sorted((u, v, rng.randint(1, 20)) for u, v in pairs)
        rng.shuffle(edges)
        parent = min_arborescence(n, edges, 0)
        w = {(u, v): c for u, v, c in edges}
        best = sum(w[(parent[v], v)] for v in range(1, n))
        return {"n": n, "edges": edges, "optimum": best}, " ".join(map(str, parent[1:]))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed graph has {n} vertices numbered 0 to {n - 1} and these weighted edges (u v w means an "
                   f"edge from u to v of weight w):\n{_edge_lines(problem['edges'], True)}\n\nChoose one incoming edge "
                   f"for every vertex except 0 so that every vertex can be reached from 0 along chosen edges, with the "
                   "smallest total weight.",
                   f"Give {n - 1} integers separated by spaces: the start vertex of the chosen edge into vertices 1.."
                   f"{n - 1}, e.g. <answer>0 0 2</answer>.")

    def reward(self, problem, answer):
        parents, n = int_list(answer), problem["n"]
        w = {(u, v): c for u, v, c in problem["edges"]}
        if len(parents) != n - 1 or any((p, v) not in w for v, p in enumerate(parents, 1)):
            return -0.5
        children = [[] for _ in range(n)]
        for v, p in enumerate(parents, 1):
            children[p].append(v)
        if sum(_reach(n, children, 0)) != n:
            return -0.5
        return (problem["optimum"] / sum(w[(p, v)] for v, p in enumerate(parents, 1))) ** 5


# ---------------------------------------------------------------------------- path cover

class MinPathCoverDag(GymEnv):
    """Cover the vertices of a DAG with the fewest vertex-disjoint paths (classical algorithms:
    n minus a maximum matching between out- and in-copies). d: n = d + 5 vertices, 1.2 n edges
    forward in a hidden order. Answer: the paths, one per line. Reward: -1 unparsable, -0.5
    unless every vertex is on exactly one path and consecutive vertices are edges, else
    (fewest paths / its paths)^5. Its own problem: a covering by paths (max_bipartite_matching
    asks for the matching of a given bipartite graph; here it is hidden in the reduction)."""

    name = "min_path_cover_dag"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        order = rng.sample(range(n), n)
        pos = {v: i for i, v in enumerate(order)}
        pairs = _random_pairs(rng, n, (6 * n) // 5, directed=False)
        edges = [(u, v) if pos[u] < pos[v] else (v, u) for u, v in pairs]
        rng.shuffle(edges)
        match = bipartite_matching(n, _adj(n, edges, directed=True))
        nxt = dict(match)
        heads = set(range(n)) - set(nxt.values())
        paths = []
        for h in sorted(heads):
            path = [h]
            while path[-1] in nxt:
                path.append(nxt[path[-1]])
            paths.append(path)
        return {"n": n, "edges": edges, "optimum": len(paths)}, "\n".join(" ".join(map(str, p)) for p in paths)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed acyclic graph has {n} vertices numbered 0 to {n - 1} and these edges (u v means an edge "
                   f"from u to v):\n{_edge_lines(problem['edges'])}\n\nSplit all vertices into as few paths as possible: "
                   "every vertex on exactly one path, each path following edges (a single vertex is a path).",
                   "Give one path per line, its vertices in order separated by spaces, e.g. <answer>0 3 4\n1\n2 5</answer>.")

    def reward(self, problem, answer):
        n, edges = problem["n"], set(map(tuple, problem["edges"]))
        paths = [int_list(line) for line in answer.splitlines() if line.strip()]
        flat = [v for p in paths for v in p]
        if sorted(flat) != list(range(n)) or any((u, v) not in edges for p in paths for u, v in zip(p, p[1:])):
            return -0.5
        return (problem["optimum"] / len(paths)) ** 5


# ---------------------------------------------------------------------------- centre

def eccentricities(n: int, edges) -> list[int]:
    adj, out = _adj(n, edges), []
    for s in range(n):
        dist, queue = {s: 0}, deque([s])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        out.append(max(dist.values()))
    return out


class GraphCenter(GymEnv):
    """A centre of a connected unweighted graph and its eccentricity (classical algorithms, BFS
    from every vertex): a vertex whose farthest vertex is as near as possible. d: n = d + 6
    vertices, a random spanning tree plus n // 4 edges. Answer: the vertex and the radius.
    Reward: -1 unparsable, -0.5 not a vertex and a number, 1 if the vertex is a centre and the
    radius right, 0.5 if only one of the two holds, else 0 (our choice: a centre is checked,
    any counts). Its own problem: minimises the largest distance (tree_centroid balances part
    sizes, tree_diameter maximises a distance)."""

    name = "graph_center"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _connected_graph(rng, n, n - 1 + n // 4)
        rng.shuffle(edges)
        ecc = eccentricities(n, edges)
        radius = min(ecc)
        return {"n": n, "edges": edges, "ecc": ecc}, f"{ecc.index(radius)} {radius}"

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected connected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\nThe eccentricity of a vertex is the largest number of edges on a "
                   "shortest path from it to any other vertex. Find a vertex of smallest eccentricity (a centre) and "
                   "that eccentricity (the radius).", "Give the vertex and the radius separated by a space, e.g. "
                   "<answer>4 3</answer>.")

    def reward(self, problem, answer):
        got, ecc = int_list(answer), problem["ecc"]
        if len(got) != 2 or not 0 <= got[0] < len(ecc):
            return -0.5
        radius = min(ecc)
        return ((ecc[got[0]] == radius) + (got[1] == radius)) / 2


# ---------------------------------------------------------------------------- negative cycle

class NegativeCycle(GymEnv):
    """A cycle of negative total weight (classical algorithms, Bellman-Ford's n-th round). d:
    n = d + 5 vertices, 2n edges weighted b + p(u) - p(v) (b in 0..9, potentials 0..10, so no
    negative cycle among them), plus a planted cycle of 3-5 vertices whose weights sum to -1..-5.
    Answer: the cycle's vertices. Reward: -1 unparsable, -0.5 repeated or out-of-range vertices,
    1 for a cycle along edges with negative total, else 0. Its own problem: bellman_ford
    promises no negative cycle; this asks for one as the certificate."""

    name = "negative_cycle"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pot = [rng.randint(0, 10) for _ in range(n)]
        cyc = rng.sample(range(n), rng.randint(3, min(5, n)))
        ring = list(zip(cyc, cyc[1:] + cyc[:1]))
        weights = {}
        for u, v in _random_pairs(rng, n, 2 * n, directed=True, avoid=ring):
            weights[(u, v)] = rng.randint(0, 9) + pot[u] - pot[v]
        parts = [rng.randint(-9, 9) for _ in ring[:-1]]
        parts.append(-rng.randint(1, 5) - sum(parts))
        for e, w in zip(ring, parts):
            weights[e] = w
        edges = [(u, v, w) for (u, v), w in weights.items()]
        rng.shuffle(edges)
        return {"n": n, "edges": edges}, " ".join(map(str, cyc))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed graph has {n} vertices numbered 0 to {n - 1} and these weighted edges (u v w means an "
                   f"edge from u to v of weight w):\n{_edge_lines(problem['edges'], True)}\n\nFind a directed cycle "
                   "whose edge weights add up to less than 0.",
                   "Give its distinct vertices in order (each has an edge to the next, the last to the first), "
                   "e.g. <answer>4 1 7</answer>.")

    def reward(self, problem, answer):
        cycle, n = int_list(answer), problem["n"]
        if len(cycle) < 2 or len(set(cycle)) != len(cycle) or any(not 0 <= v < n for v in cycle):
            return -0.5
        w = {(u, v): c for u, v, c in problem["edges"]}
        ring = list(zip(cycle, cycle[1:] + cycle[:1]))
        return 1.0 if all(e in w for e in ring) and sum(w[e] for e in ring) < 0 else 0.0


# ---------------------------------------------------------------------------- dominators

def immediate_dominators(n: int, edges, root: int = 0) -> list[int]:
    """idom of every vertex but the root, by definition: u dominates v when v is unreachable
    from the root without u; the immediate dominator is the strict dominator nearest v, i.e.
    the one with the most dominators of its own."""
    adj = _adj(n, edges, directed=True)
    dom = [set() for _ in range(n)]  # dom[v]: the strict dominators of v
    for u in range(n):
        seen = _reach(n, adj, root, banned=u)
        for v in range(n):
            if v != u and not seen[v]:
                dom[v].add(u)
    return [max(dom[v], key=lambda u: len(dom[u])) for v in range(n) if v != root]


class ImmediateDominators(GymEnv):
    """Immediate dominators in a flow graph (classical algorithms, Lengauer-Tarjan or the
    iterative data-flow method). d: n = d + 5 vertices, every one reachable from 0 (a random
    tree out of 0 plus n random edges). Answer: the immediate dominator of each vertex 1..n-1.
    Reward: -1 unparsable, -0.5 wrong count, else (entries right / (n - 1))^5. Its own problem:
    which vertices every path from the entry must pass (no other env asks about all paths)."""

    name = "immediate_dominators"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        order = [0] + rng.sample(range(1, n), n - 1)
        pairs = {(order[rng.randrange(i)], order[i]) for i in range(1, n)}
        pairs |= set(_random_pairs(rng, n, n, directed=True))
        edges = sorted(pairs)
        rng.shuffle(edges)
        idom = immediate_dominators(n, edges)
        return {"n": n, "edges": edges, "idom": idom}, " ".join(map(str, idom))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed graph has {n} vertices numbered 0 to {n - 1} and these edges (u v means an edge from u "
                   f"to v); every vertex can be reached from vertex 0:\n{_edge_lines(problem['edges'])}\n\nA vertex u "
                   "dominates v when every path from 0 to v passes through u. For every vertex v other than 0, give its "
                   "immediate dominator: the dominator of v, other than v itself, that is closest to v (every other "
                   "dominator of v also dominates it).",
                   f"Give {n - 1} integers separated by spaces, for vertices 1..{n - 1}, e.g. <answer>0 1 0 3</answer>.")

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["idom"])


# ---------------------------------------------------------------------------- k-core

def core_numbers(n: int, edges) -> list[int]:
    """Peeling: repeatedly remove a vertex of least remaining degree; its core number is the
    largest such degree seen so far."""
    adj = [set(a) for a in _adj(n, edges)]
    deg, alive, core, k = [len(a) for a in adj], set(range(n)), [0] * n, 0
    while alive:
        v = min(alive, key=lambda x: (deg[x], x))
        k = max(k, deg[v])
        core[v] = k
        alive.discard(v)
        for u in adj[v]:
            if u in alive:
                deg[u] -= 1
    return core


class CoreNumbers(GymEnv):
    """The core number of every vertex (classical algorithms, Batagelj-Zaversnik peeling): the
    largest k such that the vertex lies in a subgraph where every vertex has degree >= k. d: n =
    d + 6 vertices, 2n random edges. Reward: -1 unparsable, -0.5 wrong count, else (entries
    right / n)^5. Its own problem: a degeneracy decomposition (no other env peels by degree)."""

    name = "core_numbers"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _random_pairs(rng, n, 2 * n, directed=False)
        core = core_numbers(n, edges)
        return {"n": n, "edges": edges, "core": core}, " ".join(map(str, core))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\nThe k-core is the largest subgraph in which every vertex has at "
                   "least k neighbours inside it. For every vertex, give its core number: the largest k such that the "
                   "vertex is in the k-core.",
                   f"Give {n} integers separated by spaces, for vertices 0..{n - 1}, e.g. <answer>2 2 1 0</answer>.")

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["core"])


# ---------------------------------------------------------------------------- transitive reduction

class TransitiveReduction(GymEnv):
    """The transitive reduction of a DAG (classical algorithms): the edges u -> v with no other
    path from u to v; it is unique for a DAG. d: n = d + 5 vertices, 2n edges forward in a
    hidden order. Answer: the kept edges. Reward: -1 unparsable, -0.5 an odd count of numbers,
    else (|A & G| / |A | G|)^5. Its own problem: the fewest edges with the same reachability
    (no other env removes redundant edges)."""

    name = "transitive_reduction"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        order = rng.sample(range(n), n)
        pos = {v: i for i, v in enumerate(order)}
        pairs = _random_pairs(rng, n, 2 * n, directed=False)
        edges = [(u, v) if pos[u] < pos[v] else (v, u) for u, v in pairs]
        rng.shuffle(edges)
        adj = _adj(n, edges, directed=True)
        keep = []
        for u, v in edges:  # u -> v is redundant when v is reachable from another out-neighbour of u
            others = [w for w in adj[u] if w != v]
            if not any(_reach(n, adj, w)[v] for w in others):
                keep.append((u, v))
        keep.sort()
        return {"n": n, "edges": edges, "keep": keep}, _edge_lines(keep)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed acyclic graph has {n} vertices numbered 0 to {n - 1} and these edges (u v means an edge "
                   f"from u to v):\n{_edge_lines(problem['edges'])}\n\nGive its transitive reduction: keep an edge u v "
                   "exactly when there is no other path from u to v.", PAIRS_FORMAT)

    def reward(self, problem, answer):
        pairs = _pairs(answer)
        if pairs is None:
            return -0.5
        return jaccard(set(pairs), {tuple(e) for e in problem["keep"]})


# ---------------------------------------------------------------------------- edge colouring

class BipartiteEdgeColoring(GymEnv):
    """Colour the edges of a bipartite graph with as many colours as its largest degree D, no
    two edges at a vertex alike (classical algorithms: Koenig's theorem, alternating-path
    recolouring; planted). d: d // 2 + 4 vertices a side, the union of 2 + d // 10 disjoint
    perfect matchings with a few edges removed, D its largest degree. Answer: a colour 1..D per
    edge, in the listed order. Reward: -1 unparsable, -0.5 wrong count or a colour outside 1..D,
    else (edges sharing their colour with no neighbouring edge / edges)^5 (any proper colouring
    scores 1). Its own problem: polynomial edge colouring (graph_coloring colours vertices and is
    NP-complete)."""

    name = "bipartite_edge_coloring"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        n, k = self.size(difficulty), 2 + difficulty // 10
        left, right = rng.sample(range(n), n), rng.sample(range(n), n)
        shifts = rng.sample(range(n), k)  # matching c joins left[i] to right[i + shift_c]: disjoint matchings
        coloured = [(left[i], right[(i + sh) % n], c + 1) for c, sh in enumerate(shifts) for i in range(n)]
        rng.shuffle(coloured)
        coloured = coloured[:len(coloured) - rng.randint(0, n // 2)]
        degree: dict = {}
        for u, v, _ in coloured:
            degree[("L", u)] = degree.get(("L", u), 0) + 1
            degree[("R", v)] = degree.get(("R", v), 0) + 1
        if max(degree.values()) < k:
            raise Retry
        edges = [(u, v) for u, v, _ in coloured]
        return {"n": n, "edges": edges, "colours": k}, " ".join(str(c) for _, _, c in coloured)

    def prompt(self, problem):
        n, k = problem["n"], problem["colours"]
        return ask(f"A bipartite graph has left vertices L0..L{n - 1} and right vertices R0..R{n - 1}, and these "
                   f"{len(problem['edges'])} edges (l r means Ll - Rr):\n{_edge_lines(problem['edges'])}\n\nNo vertex "
                   f"has more than {k} edges. Colour every edge with one of the colours 1..{k} so that the edges at "
                   "any one vertex all have different colours.",
                   f"Give {len(problem['edges'])} colours separated by spaces, one per edge in the order listed, "
                   "e.g. <answer>1 2 1 3</answer>.")

    def reward(self, problem, answer):
        colours, edges, k = int_list(answer), problem["edges"], problem["colours"]
        if len(colours) != len(edges) or any(not 1 <= c <= k for c in colours):
            return -0.5
        seen: dict = {}
        for (u, v), c in zip(edges, colours):
            for end in (("L", u, c), ("R", v, c)):
                seen[end] = seen.get(end, 0) + 1
        good = sum(seen[("L", u, c)] == 1 and seen[("R", v, c)] == 1 for (u, v), c in zip(edges, colours))
        return share(good, len(edges), 5)
