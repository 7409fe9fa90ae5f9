"""Tree algorithms (tree values: see types.py), rooted at node 0 where a root is needed; children
are visited in increasing order. Diameter and the weighted independent set come from the gym."""
from __future__ import annotations

import heapq

from envs.compose.brick import Brick, by_name
from envs.compose.bricks.graphs import adjacency, bfs
from envs.compose.types import GRAPH, INT, LIST_INT, PERM, STR, TREE, make_graph


def rooted(t):
    """(parent list with -1 at the root 0, BFS order, children lists) of the tree rooted at 0."""
    adj = adjacency(t)
    dist, order = bfs(adj, 0)
    parent = [-1] * t["n"]
    for u in order:
        for v in adj[u]:
            if dist[v] == dist[u] + 1:
                parent[v] = u
    children = [[v for v in adj[u] if v != parent[u]] for u in range(t["n"])]
    return parent, order, children


def prufer_code(t, c):
    n = t["n"]
    c.tick(n * max(1, n.bit_length()))
    adj = [set(a) for a in adjacency(t)]
    leaves = [u for u in range(n) if len(adj[u]) == 1]
    heapq.heapify(leaves)
    code = []
    for _ in range(n - 2):
        leaf = heapq.heappop(leaves)
        (nb,) = adj[leaf]
        code.append(nb)
        adj[nb].discard(leaf)
        if len(adj[nb]) == 1:
            heapq.heappush(leaves, nb)
    return code


def from_prufer(code, c):
    n = len(code) + 2
    if any(not 0 <= x < n for x in code):
        return None
    c.tick(n * max(1, n.bit_length()))
    degree = [1] * n
    for x in code:
        degree[x] += 1
    leaves = [u for u in range(n) if degree[u] == 1]
    heapq.heapify(leaves)
    edges = []
    for x in code:
        leaf = heapq.heappop(leaves)
        edges.append([leaf, x])
        degree[x] -= 1
        if degree[x] == 1:
            heapq.heappush(leaves, x)
    edges.append([heapq.heappop(leaves), heapq.heappop(leaves)])
    return make_graph(n, edges)


def tree_centers(t, c):
    n = t["n"]
    c.tick(2 * n)
    adj = [set(a) for a in adjacency(t)]
    layer = [u for u in range(n) if len(adj[u]) <= 1]
    left = n
    while left > 2:
        left -= len(layer)
        nxt = []
        for leaf in layer:
            for nb in adj[leaf]:
                adj[nb].discard(leaf)
                if len(adj[nb]) == 1:
                    nxt.append(nb)
            adj[leaf] = set()
        layer = nxt
    return sorted(layer)


def subtree_sizes(t, c):
    c.tick(2 * t["n"])
    parent, order, _ = rooted(t)
    size = [1] * t["n"]
    for u in reversed(order[1:]):
        size[parent[u]] += size[u]
    return size


def centroids(t, c):
    n = t["n"]
    c.tick(3 * n)
    parent, order, children = rooted(t)
    size = [1] * n
    for u in reversed(order[1:]):
        size[parent[u]] += size[u]
    heaviest = [max([size[v] for v in children[u]] + [n - size[u]]) for u in range(n)]
    return [u for u in range(n) if heaviest[u] == min(heaviest)]


def parent_array(t, c):
    c.tick(2 * t["n"])
    return rooted(t)[0]


def ahu_code(t, c):
    """Canonical parenthesis code of the tree rooted at 0: a node is '(' + its children's codes in
    sorted order + ')'."""
    n = t["n"]
    c.tick(n * n)  # sorting and concatenating codes: up to n characters per node
    parent, order, children = rooted(t)
    code = [""] * n
    for u in reversed(order):
        code[u] = "(" + "".join(sorted(code[v] for v in children[u])) + ")"
    return code[0]


def euler_tour(t, c):
    c.tick(3 * t["n"])
    _, _, children = rooted(t)
    tour, stack = [0], [(0, iter(children[0]))]
    while stack:
        v = next(stack[-1][1], None)
        if v is None:
            stack.pop()
            if stack:
                tour.append(stack[-1][0])  # back at the parent
        else:
            tour.append(v)
            stack.append((v, iter(children[v])))
    return tour


def tree_distance_sum(t, c):
    n = t["n"]
    c.tick(2 * n)
    parent, order, _ = rooted(t)
    size = [1] * n
    for u in reversed(order[1:]):
        size[parent[u]] += size[u]
    return sum(size[u] * (n - size[u]) for u in range(1, n))  # each edge is on size * (n - size) paths


def tree_max_matching(t, c):
    """Greedy from the leaves up: match a node with its parent when both are free (optimal on trees)."""
    c.tick(2 * t["n"])
    parent, order, _ = rooted(t)
    matched, count = [False] * t["n"], 0
    for u in reversed(order[1:]):
        if not matched[u] and not matched[parent[u]]:
            matched[u] = matched[parent[u]] = True
            count += 1
    return count


def path_0_to_last(t, c):
    c.tick(2 * t["n"])
    parent = rooted(t)[0]
    path, u = [], t["n"] - 1
    while u >= 0:
        path.append(u)
        u = parent[u]
    return path[::-1]


def independent_set_count(t, c):
    c.tick(2 * t["n"])
    parent, order, children = rooted(t)
    take, skip = [1] * t["n"], [1] * t["n"]
    for u in reversed(order):
        for v in children[u]:
            take[u] *= skip[v]
            skip[u] *= take[v] + skip[v]
    return take[0] + skip[0]


def cartesian_tree(p, c):
    """Positions as nodes; the smallest value is the root, and each side recursively (a stack pass)."""
    n = len(p)
    c.tick(2 * n)
    parent, stack = [-1] * n, []
    for i in range(n):
        last = -1
        while stack and p[stack[-1]] > p[i]:
            last = stack.pop()
        if last >= 0:
            parent[last] = i
        if stack:
            parent[i] = stack[-1]
        stack.append(i)
    return make_graph(n, [[i, parent[i]] for i in range(n) if parent[i] >= 0])


def dfs_spanning_tree(g, c):
    c.tick(g["n"] + len(g["edges"]))
    adj, seen, edges = adjacency(g), [False] * g["n"], []
    seen[0], stack = True, [(0, iter(adj[0]))]
    while stack:
        u, it = stack[-1]
        v = next((w for w in it if not seen[w]), None)
        if v is None:
            stack.pop()
        else:
            seen[v] = True
            edges.append([u, v])
            stack.append((v, iter(adj[v])))
    return make_graph(g["n"], edges) if all(seen) else None


def relabel_bfs(t, c):
    c.tick(2 * t["n"])
    _, order, _ = rooted(t)
    label = {u: i for i, u in enumerate(order)}
    return make_graph(t["n"], [[label[u], label[v]] for u, v in t["edges"]])


def prune_leaves(t, c):
    n = t["n"]
    c.tick(2 * n)
    deg = [0] * n
    for u, v in t["edges"]:
        deg[u] += 1
        deg[v] += 1
    keep = [u for u in range(n) if deg[u] > 1]
    if not keep:
        return None  # a single edge: nothing but leaves
    label = {u: i for i, u in enumerate(keep)}
    return make_graph(len(keep), [[label[u], label[v]] for u, v in t["edges"] if u in label and v in label])


def parents_to_tree(ps, c):
    n = len(ps)
    c.tick(2 * n)
    if ps.count(-1) != 1 or any(not -1 <= p < n or p == i for i, p in enumerate(ps)):
        return None
    t = make_graph(n, [[i, p] for i, p in enumerate(ps) if p >= 0])
    return t if len(t["edges"]) == n - 1 and len(bfs(adjacency(t), 0)[1]) == n else None


def parens_tree(s, c):
    """Each matched pair of parentheses is a node, numbered by the position of its '('; a pair's
    parent is the pair directly enclosing it. The string must be one balanced outer pair."""
    c.tick(len(s))
    stack, edges, count = [], [], 0
    for i, ch in enumerate(s):
        if ch == "(":
            if stack:
                edges.append([stack[-1], count])
            elif i:
                return None  # a second outer pair: a forest, not a tree
            stack.append(count)
            count += 1
        elif ch == ")" and stack:
            stack.pop()
        else:
            return None
    return make_graph(count, edges) if not stack and count else None


def random_parens(rng):
    n = rng.randint(4, 9)
    parent = [-1] + [rng.randrange(i) for i in range(1, n)]
    children = [[] for _ in range(n)]
    for i in range(1, n):
        children[parent[i]].append(i)

    def code(u):
        return "(" + "".join(code(v) for v in children[u]) + ")"
    return code(0)


def random_parents(rng):
    n = rng.randint(4, 9)
    return [-1] + [rng.randrange(i) for i in range(1, n)]


def prufer_sample(rng):
    n = rng.randint(4, 9)
    return [rng.randrange(n) for _ in range(n - 2)]


BRICKS = by_name([
    Brick("prufer_code", TREE, LIST_INT, "The Pruefer code: n-2 times, remove the smallest-numbered leaf and write "
          "down its neighbour.", prufer_code),
    Brick("from_prufer", LIST_INT, TREE, "Decode the list as a Pruefer code of a tree on len+2 nodes: repeatedly join "
          "the smallest node of degree one to the next code entry (degree = 1 + times it occurs in the rest of the "
          "code), then join the last two (no output if an entry is not a node).", from_prufer, prufer_sample),
    Brick("tree_centers", TREE, LIST_INT, "Strip all leaves layer by layer until one or two nodes remain; list them in "
          "increasing order.", tree_centers),
    Brick("subtree_sizes", TREE, LIST_INT, "Root the tree at node 0 and list, for each node 0..n-1, the number of "
          "nodes in its subtree (itself included).", subtree_sizes),
    Brick("centroids", TREE, LIST_INT, "List, in increasing order, the nodes whose removal leaves the largest "
          "remaining piece as small as possible.", centroids),
    Brick("parent_array", TREE, LIST_INT, "Root the tree at node 0 and list each node's parent (-1 for the root).",
          parent_array),
    Brick("ahu_code", TREE, STR, "Root the tree at node 0 and encode it: a node's code is '(' followed by its "
          "children's codes sorted as strings, then ')'; give the root's code.", ahu_code),
    Brick("euler_tour", TREE, LIST_INT, "Root the tree at node 0 and walk it depth first (children in increasing "
          "order), listing a node each time the walk is at it, including every return to a parent.", euler_tour),
    Brick("tree_distance_sum", TREE, INT, "The sum of the distances (in edges) between all unordered pairs of nodes.",
          tree_distance_sum),
    Brick("tree_max_matching", TREE, INT, "The largest number of edges no two of which share a node.",
          tree_max_matching),
    Brick("path_0_to_last", TREE, LIST_INT, "List the nodes on the path from node 0 to node n-1.", path_0_to_last),
    Brick("independent_set_count", TREE, INT, "Count the sets of nodes, the empty set included, with no two members "
          "joined by an edge.", independent_set_count),
    Brick("dfs_spanning_tree", GRAPH, TREE, "The depth-first-search tree from node 0 (neighbours in increasing order): "
          "each node is joined to the node from which the search first reached it (no output if the graph is not "
          "connected).", dfs_spanning_tree),
    Brick("relabel_bfs", TREE, TREE, "Renumber the nodes in breadth-first order from node 0 (children in increasing "
          "order of their old numbers): the k-th node visited becomes node k.", relabel_bfs),
    Brick("prune_leaves", TREE, TREE, "Delete every leaf (node with one neighbour), then renumber the remaining nodes "
          "0, 1, ... keeping their order (no output if no node remains).", prune_leaves),
    Brick("parents_to_tree", LIST_INT, TREE, "Read the list as a parent array (entry i is the parent of node i, -1 for "
          "the root) and give the tree (no output unless it describes one tree).", parents_to_tree, random_parents),
    Brick("parens_tree", STR, TREE, "Read a balanced parenthesis string as a rooted tree: each matched pair is a node, "
          "numbered 0, 1, ... in the order of the '(' characters, joined to the pair directly enclosing it (no output "
          "unless the string is one balanced outer pair).", parens_tree, random_parens),
    Brick("cartesian_tree", PERM, TREE, "The Cartesian tree of the permutation: nodes are positions; the position of "
          "the smallest value is the root, the positions left and right of it form its two subtrees, recursively.",
          cartesian_tree),
])
