"""Graph algorithms over graph, digraph and wgraph values (see types.py for their JSON form).

Traversals take neighbours in increasing order, so every output is one definite value. A step is
one node visit or one edge look-up; the tick before a traversal counts its V + E (or V * (V + E)
for one traversal from every node). Algorithms the gym already offers as bricks (connected
components, shortest path, spanning tree weight, max flow, topological order, colouring, cliques,
independent and dominating sets, Hamiltonian and Eulerian paths) are not repeated here.
"""
from __future__ import annotations

from collections import deque
from fractions import Fraction
from itertools import permutations

from envs.compose.brick import Brick, by_name
from envs.compose.samplers import random_tree_edges
from envs.gym.graphs import kahn_order
from envs.compose.types import BOOL, DIGRAPH, GRAPH, GRID, INT, LIST_INT, LIST_STR, MATRIX, TREE, WGRAPH, make_graph


def adjacency(g, directed=False):
    adj = [[] for _ in range(g["n"])]
    for e in g["edges"]:
        adj[e[0]].append(e[1])
        if not directed:
            adj[e[1]].append(e[0])
    for a in adj:
        a.sort()
    return adj


def size(g):
    return g["n"] + len(g["edges"])


def bfs(adj, src):
    """Hop distances from src (-1: unreachable) and the visiting order."""
    dist = [-1] * len(adj)
    dist[src], order, queue = 0, [src], deque([src])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                order.append(v)
                queue.append(v)
    return dist, order


# ------------------------------------------------------------------ graph


def degree_sequence(g, c):
    c.tick(size(g))
    deg = [0] * g["n"]
    for u, v in g["edges"]:
        deg[u] += 1
        deg[v] += 1
    return deg


def bfs_order(g, c):
    c.tick(size(g))
    return bfs(adjacency(g), 0)[1]


def dfs_preorder(g, c):
    c.tick(size(g))
    adj, seen, order = adjacency(g), [False] * g["n"], []
    stack = [0]
    while stack:
        u = stack.pop()
        if seen[u]:
            continue
        seen[u] = True
        order.append(u)
        stack.extend(v for v in reversed(adj[u]) if not seen[v])
    return order


def bfs_distances(g, c):
    c.tick(size(g))
    return bfs(adjacency(g), 0)[0]


def bipartite_coloring(g, c):
    c.tick(size(g))
    adj, color = adjacency(g), [-1] * g["n"]
    for s in range(g["n"]):
        if color[s] >= 0:
            continue
        color[s], queue = 0, deque([s])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if color[v] < 0:
                    color[v] = 1 - color[u]
                    queue.append(v)
                elif color[v] == color[u]:
                    return None
    return color


def complement(g, c):
    n = g["n"]
    c.tick(n * (n - 1) // 2)
    have = {(u, v) for u, v in g["edges"]}
    return make_graph(n, [[u, v] for u in range(n) for v in range(u + 1, n) if (u, v) not in have])


def bfs_spanning_tree(g, c):
    c.tick(size(g))
    adj, parent = adjacency(g), [-1] * g["n"]
    dist, order = bfs(adj, 0)
    if len(order) < g["n"]:
        return None
    for u in order:
        for v in adj[u]:
            if dist[v] == dist[u] + 1 and parent[v] < 0 and v != 0:
                parent[v] = u
    return make_graph(g["n"], [[v, parent[v]] for v in range(1, g["n"])])


def low_links(g, c):
    """DFS discovery times and low-links (Tarjan), children in increasing order; (tin, low, parent, kids)."""
    n, adj = g["n"], adjacency(g)
    c.tick(size(g))
    tin, low, parent, kids = [-1] * n, [0] * n, [-1] * n, [0] * n
    timer = 0
    for root in range(n):
        if tin[root] >= 0:
            continue
        tin[root] = low[root] = timer
        timer += 1
        stack = [(root, iter(adj[root]))]
        while stack:
            u, it = stack[-1]
            for v in it:
                if tin[v] < 0:
                    parent[v], kids[u] = u, kids[u] + 1
                    tin[v] = low[v] = timer
                    timer += 1
                    stack.append((v, iter(adj[v])))
                    break
                if v != parent[u]:
                    low[u] = min(low[u], tin[v])
            else:
                stack.pop()
                if stack:
                    low[stack[-1][0]] = min(low[stack[-1][0]], low[u])
    return tin, low, parent, kids


def bridges(g, c):
    tin, low, parent, _ = low_links(g, c)
    return make_graph(g["n"], [[v, parent[v]] for v in range(g["n"]) if parent[v] >= 0 and low[v] > tin[parent[v]]])


def articulation_points(g, c):
    tin, low, parent, kids = low_links(g, c)
    out = []
    for u in range(g["n"]):
        if parent[u] < 0:
            if kids[u] >= 2:
                out.append(u)
        elif any(parent[v] == u and low[v] >= tin[u] for v in range(g["n"])):
            out.append(u)
    return out


def triangle_count(g, c):
    adj = [set(a) for a in adjacency(g)]
    c.tick(len(g["edges"]) * max(1, max(map(len, adj))))
    return sum(len(adj[u] & adj[v]) for u, v in g["edges"]) // 3


def greedy_coloring(g, c):
    c.tick(size(g))
    adj, color = adjacency(g), []
    for u in range(g["n"]):
        used = {color[v] for v in adj[u] if v < u}
        color.append(next(k for k in range(g["n"]) if k not in used))
    return color


def dsatur_coloring(g, c):
    n, adj = g["n"], adjacency(g)
    c.tick(n * n + 2 * len(g["edges"]))
    color = [-1] * n
    for _ in range(n):
        u = max((v for v in range(n) if color[v] < 0),
                key=lambda v: (len({color[w] for w in adj[v] if color[w] >= 0}), len(adj[v]), -v))
        used = {color[w] for w in adj[u]}
        color[u] = next(k for k in range(n) if k not in used)
    return color


def girth(g, c):
    n, adj = g["n"], adjacency(g)
    c.tick(n * size(g))
    best = None
    for s in range(n):
        dist, parent, queue = [-1] * n, [-1] * n, deque([s])
        dist[s] = 0
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if dist[v] < 0:
                    dist[v], parent[v] = dist[u] + 1, u
                    queue.append(v)
                elif parent[u] != v:
                    cycle = dist[u] + dist[v] + 1
                    best = cycle if best is None else min(best, cycle)
    return best


def graph_center(g, c):
    n, adj = g["n"], adjacency(g)
    c.tick(n * size(g))
    ecc = []
    for s in range(n):
        dist = bfs(adj, s)[0]
        if min(dist) < 0:
            return None
        ecc.append(max(dist))
    return [u for u in range(n) if ecc[u] == min(ecc)]


def two_core(g, c):
    c.tick(2 * size(g))
    adj = [set(a) for a in adjacency(g)]
    alive = [True] * g["n"]
    queue = deque(u for u in range(g["n"]) if len(adj[u]) < 2)
    while queue:
        u = queue.popleft()
        if not alive[u]:
            continue
        alive[u] = False
        for v in adj[u]:
            adj[v].discard(u)
            if alive[v] and len(adj[v]) < 2:
                queue.append(v)
    return make_graph(g["n"], [[u, v] for u, v in g["edges"] if alive[u] and alive[v]])


def line_graph(g, c):
    edges = g["edges"]
    c.tick(len(edges) * len(edges))
    return make_graph(len(edges), [[i, j] for i in range(len(edges)) for j in range(i + 1, len(edges))
                                   if set(edges[i]) & set(edges[j])])


def graph_square(g, c):
    n, adj = g["n"], adjacency(g)
    c.tick(n * size(g))
    return make_graph(n, [[u, v] for u in range(n) for v, d in enumerate(bfs(adj, u)[0]) if 0 < d <= 2 and u < v])


def greedy_matching(g, c):
    c.tick(size(g))
    used, out = set(), []
    for u, v in g["edges"]:
        if u not in used and v not in used:
            used |= {u, v}
            out.append([u, v])
    return make_graph(g["n"], out)


def greedy_independent_set(g, c):
    n, adj = g["n"], [set(a) for a in adjacency(g)]
    c.tick(n * n + 2 * len(g["edges"]))
    alive, out = set(range(n)), []
    while alive:
        u = min(alive, key=lambda v: (len(adj[v] & alive), v))
        out.append(u)
        alive -= adj[u] | {u}
    return sorted(out)


def adjacency_matrix(g, c):
    n = g["n"]
    c.tick(n * n)
    m = [[0] * n for _ in range(n)]
    for u, v in g["edges"]:
        m[u][v] = m[v][u] = 1
    return m


def spanning_tree_count(g, c):
    """Kirchhoff: any cofactor of the Laplacian, by exact elimination."""
    n = g["n"]
    c.tick((n - 1) ** 3 // 3 + n * n)
    lap = [[Fraction(0)] * n for _ in range(n)]
    for u, v in g["edges"]:
        lap[u][u] += 1
        lap[v][v] += 1
        lap[u][v] -= 1
        lap[v][u] -= 1
    return fraction_det([row[1:] for row in lap[1:]])


def fraction_det(m):
    m = [list(r) for r in m]
    n, det = len(m), Fraction(1)
    for i in range(n):
        p = next((r for r in range(i, n) if m[r][i] != 0), None)
        if p is None:
            return 0
        if p != i:
            m[i], m[p] = m[p], m[i]
            det = -det
        det *= m[i][i]
        for r in range(i + 1, n):
            f = m[r][i] / m[i][i]
            for k in range(i, n):
                m[r][k] -= f * m[i][k]
    return int(det)


def orient_by_bfs(g, c):
    c.tick(size(g))
    dist = bfs(adjacency(g), 0)[0]
    if min(dist) < 0:
        return None
    return make_graph(g["n"], [[u, v] if (dist[u], u) < (dist[v], v) else [v, u] for u, v in g["edges"]], True)


def is_connected(g, c):
    c.tick(size(g))
    return min(bfs(adjacency(g), 0)[0]) >= 0


def is_forest(g, c):
    c.tick(size(g))
    parent = list(range(g["n"]))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for u, v in g["edges"]:
        a, b = find(u), find(v)
        if a == b:
            return False
        parent[a] = b
    return True


# ------------------------------------------------------------------ digraph


def condensation(g, c):
    """Strongly connected components (Kosaraju), numbered in order of their smallest node."""
    n = g["n"]
    c.tick(2 * size(g))
    out, inn = adjacency(g, True), [[] for _ in range(n)]
    for u, v in g["edges"]:
        inn[v].append(u)
    seen, finish = [False] * n, []
    for s in range(n):
        if seen[s]:
            continue
        seen[s], stack = True, [(s, iter(out[s]))]
        while stack:
            u, it = stack[-1]
            for v in it:
                if not seen[v]:
                    seen[v] = True
                    stack.append((v, iter(out[v])))
                    break
            else:
                finish.append(u)
                stack.pop()
    comp = [-1] * n
    for s in reversed(finish):
        if comp[s] >= 0:
            continue
        comp[s], stack = s, [s]
        while stack:
            for v in inn[stack.pop()]:
                if comp[v] < 0:
                    comp[v] = s
                    stack.append(v)
    roots = set(comp)  # a component is labelled by the node its search started from
    smallest = {r: min(u for u in range(n) if comp[u] == r) for r in roots}
    order = sorted(roots, key=smallest.get)
    index = {r: i for i, r in enumerate(order)}
    return make_graph(len(order), [[index[comp[u]], index[comp[v]]] for u, v in g["edges"]], True)


def reverse_edges(g, c):
    c.tick(size(g))
    return make_graph(g["n"], [[v, u] for u, v in g["edges"]], True)


def in_degrees(g, c):
    c.tick(size(g))
    deg = [0] * g["n"]
    for _, v in g["edges"]:
        deg[v] += 1
    return deg


def reachable_from_0(g, c):
    c.tick(size(g))
    return sorted(bfs(adjacency(g, True), 0)[1])


def transitive_closure(g, c):
    n = g["n"]
    c.tick(n ** 3)
    reach = [[False] * n for _ in range(n)]
    for u, v in g["edges"]:
        reach[u][v] = True
    for k in range(n):
        for i in range(n):
            if reach[i][k]:
                for j in range(n):
                    reach[i][j] = reach[i][j] or reach[k][j]
    return make_graph(n, [[i, j] for i in range(n) for j in range(n) if reach[i][j] and i != j], True)


def topo_order(g):
    """Kahn's algorithm, smallest ready node first; None if the graph has a cycle."""
    return kahn_order(g["n"], g["edges"])


def transitive_reduction(g, c):
    n = g["n"]
    c.tick(n * size(g))
    if topo_order(g) is None:
        return None
    adj = adjacency(g, True)
    keep = []
    for u, v in g["edges"]:  # u -> v is redundant if v is reachable from u without this edge
        seen, stack = {u}, [w for w in adj[u] if w != v]
        seen.update(stack)
        while stack and v not in seen:
            for w in adj[stack.pop()]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        if v not in seen:
            keep.append([u, v])
    return make_graph(n, keep, True)


def longest_path_dag(g, c):
    c.tick(2 * size(g))
    order = topo_order(g)
    if order is None:
        return None
    adj, best = adjacency(g, True), [0] * g["n"]
    for u in order:
        for v in adj[u]:
            best[v] = max(best[v], best[u] + 1)
    return max(best)


def count_paths_dag(g, c):
    c.tick(2 * size(g))
    order = topo_order(g)
    if order is None:
        return None
    adj, ways = adjacency(g, True), [0] * g["n"]
    ways[0] = 1
    for u in order:
        for v in adj[u]:
            ways[v] += ways[u]
    return ways[g["n"] - 1]


def find_cycle(g, c):
    """The first directed cycle met by a DFS from nodes 0, 1, ... (neighbours in increasing order),
    listed from the node where the DFS re-entered it."""
    n, adj = g["n"], adjacency(g, True)
    c.tick(size(g))
    state = [0] * n  # 0 new, 1 on the stack, 2 done
    for s in range(n):
        if state[s]:
            continue
        path, stack = [s], [iter(adj[s])]
        state[s] = 1
        while stack:
            for v in stack[-1]:
                if state[v] == 1:
                    return path[path.index(v):]
                if state[v] == 0:
                    state[v] = 1
                    path.append(v)
                    stack.append(iter(adj[v]))
                    break
            else:
                state[path.pop()] = 2
                stack.pop()
    return None


def underlying_graph(g, c):
    c.tick(size(g))
    return make_graph(g["n"], g["edges"])


def is_dag(g, c):
    c.tick(2 * size(g))
    return topo_order(g) is not None


# ------------------------------------------------------------------ wgraph


def floyd_warshall(g, c):
    n = g["n"]
    c.tick(n ** 3)
    inf = float("inf")
    d = [[0 if i == j else inf for j in range(n)] for i in range(n)]
    for u, v, w in g["edges"]:
        d[u][v] = d[v][u] = min(d[u][v], w)
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i][k] + d[k][j] < d[i][j]:
                    d[i][j] = d[i][k] + d[k][j]
    if any(x == inf for row in d for x in row):
        return None
    return [[int(x) for x in row] for row in d]


def bottleneck_path(g, c):
    """Widest path 0 -> n-1: the largest possible minimum edge weight (Kruskal order, descending)."""
    c.tick(size(g) * max(1, len(g["edges"]).bit_length()))
    parent = list(range(g["n"]))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for u, v, w in sorted(g["edges"], key=lambda e: (-e[2], e[0], e[1])):
        parent[find(u)] = find(v)
        if find(0) == find(g["n"] - 1):
            return w
    return None


def prim_order(g, c):
    import heapq

    n = g["n"]
    c.tick(size(g) * max(1, n.bit_length()))
    adj = [[] for _ in range(n)]
    for u, v, w in g["edges"]:
        adj[u].append((w, v))
        adj[v].append((w, u))
    seen, order, heap = [False] * n, [], [(0, 0)]
    while heap:
        _, u = heapq.heappop(heap)
        if seen[u]:
            continue
        seen[u] = True
        order.append(u)
        for w, v in adj[u]:
            if not seen[v]:
                heapq.heappush(heap, (w, v))
    return order if len(order) == n else None


def weighted_degrees(g, c):
    c.tick(size(g))
    deg = [0] * g["n"]
    for u, v, w in g["edges"]:
        deg[u] += w
        deg[v] += w
    return deg


def light_edges(g, c):
    c.tick(size(g))
    return make_graph(g["n"], [[u, v] for u, v, w in g["edges"] if w <= 5])


def shortest_tour(g, c):
    """Travelling salesman by trying every tour from node 0 (n <= 6)."""
    n = g["n"]
    if n > 6:
        return None
    w = {(u, v): x for u, v, x in g["edges"]}
    w.update({(v, u): x for (u, v), x in list(w.items())})
    best = None
    for rest in permutations(range(1, n)):
        c.tick()
        if rest and rest[0] > rest[-1]:
            continue  # each tour once, not also backwards
        c.tick(n)
        tour = (0, *rest, 0)
        legs = [w.get((a, b)) for a, b in zip(tour, tour[1:])]
        if None not in legs and (best is None or sum(legs) < best):
            best = sum(legs)
    return best


def edge_support(g, c):
    adj = [set(a) for a in adjacency(g)]
    c.tick(len(g["edges"]) * max(1, max(map(len, adj))))
    return make_graph(g["n"], [[u, v, 1 + len(adj[u] & adj[v])] for u, v in g["edges"]])


def grid_graph(g, c):
    h, w = len(g), len(g[0])
    c.tick(3 * h * w)
    edges = [[r * w + k, r * w + k + 1, abs(g[r][k] - g[r][k + 1]) + 1] for r in range(h) for k in range(w - 1)]
    edges += [[r * w + k, (r + 1) * w + k, abs(g[r][k] - g[r + 1][k]) + 1] for r in range(h - 1) for k in range(w)]
    return make_graph(h * w, edges)


def reciprocal_weights(g, c):
    c.tick(size(g))
    both = {(u, v) for u, v in g["edges"]}
    return make_graph(g["n"], [[min(u, v), max(u, v), 1 + ((v, u) in both)] for u, v in g["edges"]])


def overlap_graph(ws, c):
    """Words as nodes; u < v joined, weighted by their longest overlap either way (suffix of one =
    prefix of the other), where that is at least one letter."""
    n, edges = len(ws), []
    for i in range(n):
        for j in range(i + 1, n):
            a, b = ws[i], ws[j]
            c.tick(2 * min(len(a), len(b)))
            k = max(next((k for k in range(min(len(a), len(b)), 0, -1) if x.endswith(y[:k])), 0)
                    for x, y in ((a, b), (b, a)))
            if k:
                edges.append([i, j, k])
    return make_graph(n, edges)


def matrix_to_wgraph(m, c):
    n = len(m)
    c.tick(n * n)
    return make_graph(n, [[i, j, m[i][j]] for i in range(n) for j in range(i + 1, n) if m[i][j] > 0])


def matrix_to_digraph(m, c):
    n = len(m)
    c.tick(n * n)
    return make_graph(n, [[i, j] for i in range(n) for j in range(n) if i != j and m[i][j] > 0], True)


def dense_graph(rng):
    n = rng.randint(4, 7)
    return make_graph(n, random_tree_edges(rng, n) + [rng.sample(range(n), 2) for _ in range(rng.randint(n, 2 * n))])


def layered_dag(rng):
    """Acyclic, node 0 first and node n-1 last in the hidden order, so paths 0 -> n-1 are likely."""
    n = rng.randint(4, 7)
    inner = list(range(1, n - 1))
    rng.shuffle(inner)
    order = [0, *inner, n - 1]
    edges = [[order[i], order[i + 1]] for i in range(n - 1)]
    for _ in range(rng.randint(1, n)):
        i, j = sorted(rng.sample(range(n), 2))
        edges.append([order[i], order[j]])
    return make_graph(n, edges, True)


def cyclic_digraph(rng):
    n = rng.randint(4, 7)
    edges = [rng.sample(range(n), 2) for _ in range(rng.randint(n, 2 * n))]
    cycle = rng.sample(range(n), rng.randint(2, n))
    edges += [[a, b] for a, b in zip(cycle, cycle[1:] + cycle[:1])]
    return make_graph(n, edges, True)


def small_dense_wgraph(rng):
    n = rng.randint(4, 5)
    return make_graph(n, [[u, v, rng.randint(1, 9)] for u in range(n) for v in range(u + 1, n) if rng.random() < 0.8])


BRICKS = by_name([
    Brick("degree_sequence", GRAPH, LIST_INT, "List the degree (number of neighbours) of each node 0..n-1.",
          degree_sequence),
    Brick("bfs_order", GRAPH, LIST_INT, "List the nodes in the order a breadth-first search from node 0 visits them "
          "(neighbours taken in increasing order; only nodes reachable from 0).", bfs_order),
    Brick("dfs_preorder", GRAPH, LIST_INT, "List the nodes in the order a depth-first search from node 0 first visits "
          "them (neighbours taken in increasing order; only nodes reachable from 0).", dfs_preorder),
    Brick("bfs_distances", GRAPH, LIST_INT, "List, for each node 0..n-1, the number of edges on a shortest path from "
          "node 0 (-1 if it cannot be reached).", bfs_distances),
    Brick("bipartite_coloring", GRAPH, LIST_INT, "Two-colour the graph by breadth-first search: the smallest uncoloured "
          "node gets colour 0 and neighbours get the other colour; list each node's colour (no output if some edge "
          "joins two nodes of one colour).", bipartite_coloring),
    Brick("complement", GRAPH, GRAPH, "The complement graph: same nodes, an edge exactly where the graph has none.",
          complement),
    Brick("bfs_spanning_tree", GRAPH, TREE, "The breadth-first-search tree from node 0: each other node is joined to "
          "its smallest neighbour one level closer to 0 (no output if the graph is not connected).", bfs_spanning_tree),
    Brick("bridges", GRAPH, GRAPH, "Keep only the bridges: the edges whose removal disconnects their two ends.",
          bridges),
    Brick("articulation_points", GRAPH, LIST_INT, "List, in increasing order, the nodes whose removal splits their "
          "connected component into more pieces.", articulation_points),
    Brick("triangle_count", GRAPH, INT, "Count the triangles (three nodes joined pairwise).", triangle_count,
          dense_graph),
    Brick("greedy_coloring", GRAPH, LIST_INT, "Colour nodes 0, 1, 2, ... in turn, each with the smallest colour number "
          "(0, 1, ...) not used by an already coloured neighbour; list the colours.", greedy_coloring),
    Brick("dsatur_coloring", GRAPH, LIST_INT, "DSatur colouring: repeatedly colour the uncoloured node with the most "
          "distinct colours among its neighbours (ties: higher degree, then smaller node) with the smallest colour "
          "number its neighbours do not use; list the colours of nodes 0..n-1.", dsatur_coloring),
    Brick("girth", GRAPH, INT, "The length (number of edges) of a shortest cycle (no output if there is none).", girth),
    Brick("graph_center", GRAPH, LIST_INT, "List, in increasing order, the nodes whose largest distance to any other "
          "node is smallest (no output if the graph is not connected).", graph_center),
    Brick("two_core", GRAPH, GRAPH, "Repeatedly delete the edges of nodes with fewer than 2 neighbours until none is "
          "left; keep the remaining edges (node numbers unchanged).", two_core),
    Brick("line_graph", GRAPH, GRAPH, "The line graph: node i stands for the i-th edge in the listed order, and two "
          "nodes are joined when their edges share an end.", line_graph),
    Brick("graph_square", GRAPH, GRAPH, "Join every two nodes at distance 1 or 2 in the graph.", graph_square),
    Brick("greedy_matching", GRAPH, GRAPH, "Go through the edges in the listed order and keep an edge when neither of "
          "its ends is covered by an edge kept before; keep only those edges.", greedy_matching),
    Brick("greedy_independent_set", GRAPH, LIST_INT, "Repeatedly pick the remaining node with fewest remaining "
          "neighbours (ties: smallest node) and remove it and its neighbours; list the picked nodes in increasing "
          "order.", greedy_independent_set),
    Brick("adjacency_matrix", GRAPH, MATRIX, "The n x n adjacency matrix: entry [u][v] is 1 if u and v are joined, "
          "else 0.", adjacency_matrix),
    Brick("spanning_tree_count", GRAPH, INT, "Count the spanning trees of the graph (Kirchhoff's matrix-tree "
          "theorem).", spanning_tree_count, dense_graph),
    Brick("orient_by_bfs", GRAPH, DIGRAPH, "Direct every edge away from node 0: from the end with the smaller "
          "breadth-first distance to 0 (ties: from the smaller node) to the other (no output if not connected).",
          orient_by_bfs),
    Brick("is_connected", GRAPH, BOOL, "Is the graph connected?", is_connected),
    Brick("is_forest", GRAPH, BOOL, "Does the graph have no cycle?", is_forest),
    Brick("condensation", DIGRAPH, DIGRAPH, "The condensation: one node per strongly connected component, numbered "
          "0, 1, ... in the order of each component's smallest node, with an edge A -> B when some edge goes from "
          "component A to component B.", condensation, cyclic_digraph),
    Brick("reverse_edges", DIGRAPH, DIGRAPH, "Reverse the direction of every edge.", reverse_edges),
    Brick("in_degrees", DIGRAPH, LIST_INT, "List the number of edges coming into each node 0..n-1.", in_degrees),
    Brick("reachable_from_0", DIGRAPH, LIST_INT, "List, in increasing order, the nodes reachable from node 0 "
          "(including 0) along directed edges.", reachable_from_0),
    Brick("transitive_closure", DIGRAPH, DIGRAPH, "The transitive closure: an edge u -> v (u != v) wherever v can be "
          "reached from u.", transitive_closure),
    Brick("transitive_reduction", DIGRAPH, DIGRAPH, "Drop every edge u -> v for which v can also be reached from u "
          "without it (no output if the graph has a cycle).", transitive_reduction),
    Brick("longest_path_dag", DIGRAPH, INT, "The number of edges of a longest directed path (no output if the graph "
          "has a cycle).", longest_path_dag),
    Brick("count_paths_dag", DIGRAPH, INT, "Count the directed paths from node 0 to node n-1 (no output if the graph "
          "has a cycle).", count_paths_dag, layered_dag),
    Brick("find_cycle", DIGRAPH, LIST_INT, "Run a depth-first search from nodes 0, 1, 2, ... in turn (neighbours in "
          "increasing order); when an edge leads back to a node on the current path, list that cycle's nodes from "
          "that node in path order (no output if there is no cycle).", find_cycle, cyclic_digraph),
    Brick("underlying_graph", DIGRAPH, GRAPH, "Forget the edge directions (u -> v and v -> u become one edge).",
          underlying_graph),
    Brick("is_dag", DIGRAPH, BOOL, "Does the directed graph have no directed cycle?", is_dag),
    Brick("floyd_warshall", WGRAPH, MATRIX, "The matrix of shortest-path distances between all pairs of nodes (no "
          "output if the graph is not connected).", floyd_warshall),
    Brick("bottleneck_path", WGRAPH, INT, "Over all paths from node 0 to node n-1, the largest possible value of the "
          "smallest edge weight on the path (no output if there is no path).", bottleneck_path),
    Brick("prim_order", WGRAPH, LIST_INT, "Prim's algorithm from node 0: list the nodes in the order they join the "
          "tree, always adding the lightest edge leaving it (ties: the smaller new node; no output if not "
          "connected).", prim_order),
    Brick("weighted_degrees", WGRAPH, LIST_INT, "List, for each node 0..n-1, the total weight of its edges.",
          weighted_degrees),
    Brick("light_edges", WGRAPH, GRAPH, "Keep the edges of weight at most 5, without their weights.", light_edges),
    Brick("shortest_tour", WGRAPH, INT, "The total weight of a shortest cycle through every node exactly once (no "
          "output if there is none or the graph has more than 6 nodes).", shortest_tour, small_dense_wgraph),
    Brick("edge_support", GRAPH, WGRAPH, "Weight every edge u-v with 1 + the number of common neighbours of u and v.",
          edge_support),
    Brick("grid_graph", GRID, WGRAPH, "The grid as a weighted graph: cell (r, c) is node r*w + c (w columns), and "
          "cells side by side are joined with weight 1 + the absolute difference of their values.", grid_graph),
    Brick("reciprocal_weights", DIGRAPH, WGRAPH, "Forget directions, weighting each joined pair 2 if edges run both "
          "ways, else 1.", reciprocal_weights),
    Brick("overlap_graph", LIST_STR, WGRAPH, "Node i is the i-th word; join i < j, with weight k, when the longest "
          "overlap of the two words either way (the last k letters of one equal the first k of the other) is k >= 1.",
          overlap_graph),
    Brick("matrix_to_wgraph", MATRIX, WGRAPH, "Read the matrix as a weighted graph: nodes 0..n-1, and for i < j an "
          "edge i-j of weight [i][j] wherever that entry is positive.", matrix_to_wgraph),
    Brick("matrix_to_digraph", MATRIX, DIGRAPH, "Read the matrix as a directed graph: an edge i -> j (i != j) "
          "wherever entry [i][j] is positive.", matrix_to_digraph),
])
