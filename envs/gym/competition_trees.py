"""Programming-competition problems on trees: tree DPs, counts and codes.

Trees are random recursive trees (vertex v > 1 hangs from a uniform earlier vertex), relabelled by
a random permutation so the labels reveal nothing. Rewards: counts -1 unparsable or negative, else
(min(x, y) / max(x, y))^10 against the true count (our choice, after rlve line 43's formula, which
the paper gives for BubbleSwapLowerBound_PermutationCounting); single values -1 unparsable, 1
exact, else 0; lists -1 unparsable, 1 exact, else 0.

What makes each its own problem: existing tree envs count independent sets
(tree_independent_sets_counting), sum distances from one vertex (tree_distance_sum), find the
centroid, the diameter, a maximum-weight independent set, an LCA. Here the objects are different:
linear extensions of a rooted tree (hook formula), connected vertex subsets, vertex pairs at a
given distance, matchings (counted), dominating sets (counted), the max edge over all paths
(Kruskal order), even-size splits, the Prufer code, a postorder from two traversals, pairs with a
zero path XOR, and proper colourings with fixed colours. (Spanning-tree counts, tree centers and
maximum matchings were dropped here: the parallel branches h/envmath28 and h/envalgo28 add
spanning_tree_count, graph_center and tree_max_weight_matching.)
"""
from __future__ import annotations

import math
from collections import Counter, deque

from envs.gym.base import COUNT_FORMAT, INT_FORMAT, CountEnv, GymEnv, IntEnv, Retry, ask, int_list

LIST_FORMAT = "Give the numbers separated by spaces, e.g. <answer>3 1 2</answer>."


def random_tree(rng, n: int) -> list[list[int]]:
    """Edges [u, v] of a random tree on 1..n."""
    label = list(range(1, n + 1))
    rng.shuffle(label)
    return [[label[rng.randrange(v)], label[v]] for v in range(1, n)]


def adjacency(n: int, edges) -> list[list[int]]:
    adj = [[] for _ in range(n + 1)]
    for e in edges:
        adj[e[0]].append(e[1])
        adj[e[1]].append(e[0])
    return adj


def rooted_order(n: int, edges, root: int = 1) -> tuple[list[int], list[int]]:
    """BFS order from root and each vertex's parent (0 for the root); children follow parents."""
    adj, parent, order = adjacency(n, edges), [0] * (n + 1), [root]
    seen = {root}
    for v in order:
        for w in adj[v]:
            if w not in seen:
                seen.add(w)
                parent[w] = v
                order.append(w)
    return order, parent


def rooted_children(n: int, edges, root: int = 1) -> tuple[list[int], list[list[int]]]:
    """BFS order from root and each vertex's children."""
    order, parent = rooted_order(n, edges, root)
    children = [[] for _ in range(n + 1)]
    for v in order[1:]:
        children[parent[v]].append(v)
    return order, children


def edge_text(edges) -> str:
    return ", ".join(f"{e[0]}-{e[1]}" for e in edges)


class _TreeCount(CountEnv):
    """A count on a random tree with n = d + 5 vertices."""

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        problem = self.extra(rng, n, {"n": n, "edges": random_tree(rng, n)})
        problem["count"] = self.count(problem)
        return problem, str(problem["count"])

    def extra(self, rng, n, problem):
        return problem

    def tree(self, problem) -> str:
        return f"A tree has vertices 1..{problem['n']} and edges {edge_text(problem['edges'])}."


class TreeTopologicalOrderings(_TreeCount):
    """Orderings of a rooted tree's vertices with every parent before its children (n! / product
    of subtree sizes). d: n = d + 5, root 1. Reward: count ratio^10 (our choice, after rlve line
    43's formula)."""

    name = "tree_topological_orderings"

    def count(self, p):
        return math.factorial(p["n"]) // math.prod(subtree_sizes(p)[1:])

    def explain(self, problem):
        """Each vertex must come first among its subtree: n! / product of subtree sizes."""
        size = subtree_sizes(problem)
        lines = [f"subtree size of {v}: {size[v]}" for v in range(1, problem["n"] + 1)]
        lines.append(f"{math.factorial(problem['n'])} // ({' * '.join(map(str, size[1:]))}) = {problem['count']}")
        return "\n".join(lines)

    def prompt(self, problem):
        return ask(f"{self.tree(problem)} Root it at vertex 1.\n\nIn how many orders can all vertices be listed so "
                   "that every vertex comes after its parent?", COUNT_FORMAT)


def subtree_sizes(p: dict, root: int = 1) -> list[int]:
    order, parent = rooted_order(p["n"], p["edges"], root)
    size = [1] * (p["n"] + 1)
    size[0] = 0
    for v in reversed(order[1:]):
        size[parent[v]] += size[v]
    return size


class TreeConnectedSubsetsCounting(_TreeCount):
    """Non-empty vertex subsets of a tree that induce a connected subtree. d: n = d + 5.
    Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "tree_connected_subsets_counting"

    def count(self, p):
        order, parent = rooted_order(p["n"], p["edges"])
        top = [1] * (p["n"] + 1)  # connected subsets whose highest vertex is v
        for v in reversed(order[1:]):
            top[parent[v]] *= 1 + top[v]
        return sum(top[1:])

    def prompt(self, problem):
        return ask(f"{self.tree(problem)}\n\nHow many non-empty sets of vertices are connected, i.e. the tree's edges "
                   "between them link them all together?", COUNT_FORMAT)


class TreePairsAtDistanceK(_TreeCount):
    """Unordered vertex pairs of a tree whose path has exactly k edges. d: n = 2d + 6,
    k in [2, 5]. Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "tree_pairs_at_distance_k"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def extra(self, rng, n, problem):
        return {**problem, "k": rng.randint(2, 5)}

    def count(self, p):
        adj, total = adjacency(p["n"], p["edges"]), 0
        for s in range(1, p["n"] + 1):
            dist, queue = {s: 0}, deque([s])
            while queue:
                v = queue.popleft()
                for w in adj[v]:
                    if w not in dist:
                        dist[w] = dist[v] + 1
                        queue.append(w)
            total += sum(x == p["k"] for x in dist.values())
        return total // 2

    def prompt(self, problem):
        return ask(f"{self.tree(problem)}\n\nHow many unordered pairs of vertices are at distance exactly "
                   f"{problem['k']} (the path between them has {problem['k']} edges)?", COUNT_FORMAT)


class TreeMatchingsCounting(_TreeCount):
    """Matchings of a tree (sets of pairwise disjoint edges, the empty set included; the Hosoya
    index). d: n = d + 5. Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "tree_matchings_counting"

    def count(self, p):
        order, children = rooted_children(p["n"], p["edges"])
        free = [1] * (p["n"] + 1)  # matchings of v's subtree leaving v unmatched
        any_ = [1] * (p["n"] + 1)  # all matchings of v's subtree
        for v in reversed(order):
            f = 1
            for c in children[v]:
                f *= any_[c]
            free[v] = f
            any_[v] = f + sum(f // any_[c] * free[c] for c in children[v])
        return any_[order[0]]

    def prompt(self, problem):
        return ask(f"{self.tree(problem)}\n\nHow many sets of edges have no two edges sharing a vertex? The empty "
                   "set counts.", COUNT_FORMAT)


class TreeDominatingSetsCounting(_TreeCount):
    """Dominating sets of a tree (every vertex in the set or adjacent to it). d: n = d + 5.
    Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "tree_dominating_sets_counting"

    def count(self, p):
        order, children = rooted_children(p["n"], p["edges"])
        # per vertex: (in the set, out and dominated by a child, out and not yet dominated)
        state = {}
        for v in reversed(order):
            inside, out_any, out_none = 1, 1, 1
            for c in children[v]:
                ci, cd, cn = state[c]
                inside *= ci + cd + cn
                out_any *= ci + cd
                out_none *= cd
            state[v] = (inside, out_any - out_none, out_none)
        ci, cd, _ = state[order[0]]
        return ci + cd

    def prompt(self, problem):
        return ask(f"{self.tree(problem)}\n\nA set S of vertices is dominating if every vertex is in S or adjacent to "
                   "a vertex in S. How many dominating sets are there?", COUNT_FORMAT)


class TreePairwiseMaxEdgeSum(_TreeCount):
    """Sum over all unordered vertex pairs of the largest edge weight on their path (Kruskal
    order with union-find). d: n = 2d + 6, weights 1..50. Reward: -1 unparsable, else ratio^10
    against the true sum (our choice, after rlve line 43's formula)."""

    name = "tree_pairwise_max_edge_sum"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def extra(self, rng, n, problem):
        return {**problem, "w": [rng.randint(1, 50) for _ in range(n - 1)]}

    def count(self, p):
        root, size = list(range(p["n"] + 1)), [1] * (p["n"] + 1)

        def find(x):
            while root[x] != x:
                root[x] = root[root[x]]
                x = root[x]
            return x

        total = 0
        for w, (a, b) in sorted(zip(p["w"], p["edges"])):
            ra, rb = find(a), find(b)
            total += w * size[ra] * size[rb]
            root[ra] = rb
            size[rb] += size[ra]
        return total

    def prompt(self, problem):
        edges = ", ".join(f"{a}-{b} (weight {w})" for (a, b), w in zip(problem["edges"], problem["w"]))
        return ask(f"A tree has vertices 1..{problem['n']} and weighted edges {edges}.\n\nFor every unordered pair of "
                   "distinct vertices take the largest edge weight on the path between them. What is the sum of "
                   "these values over all pairs?", INT_FORMAT)


class TreeEvenSplitEdges(IntEnv):
    """The most edges that can be removed from a tree with an even number of vertices so that
    every remaining component has an even number of vertices (edges above even subtrees).
    d: n = 2(d + 3) vertices. Reward: -1 unparsable, 1 exact, else 0."""

    name = "tree_even_split_edges"
    category = "competition"

    def size(self, difficulty):
        return 2 * (difficulty + 3)

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = random_tree(rng, n)
        order, parent = rooted_order(n, edges)
        size = [1] * (n + 1)
        for v in reversed(order[1:]):
            size[parent[v]] += size[v]
        value = sum(size[v] % 2 == 0 for v in order[1:])
        return {"n": n, "edges": edges, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"A tree has vertices 1..{problem['n']} and edges {edge_text(problem['edges'])}.\n\nWhat is the "
                   "largest number of edges you can delete so that every connected component left has an even "
                   "number of vertices?", INT_FORMAT)


class _ListEnv(GymEnv):
    """Reward: -1 unparsable, 1 if the list equals problem["list"] exactly, else 0."""

    category = "competition"

    def reward(self, problem, answer):
        return 1.0 if int_list(answer) == problem["list"] else 0.0


class PruferCode(_ListEnv):
    """The Prufer sequence of a labelled tree (repeatedly remove the smallest leaf, write its
    neighbour). d: n = d + 5. Reward: -1 unparsable, 1 exact, else 0 (the code is unique)."""

    name = "prufer_code"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = random_tree(rng, n)
        code = prufer(n, edges)
        return {"n": n, "edges": edges, "list": code}, " ".join(map(str, code))

    def prompt(self, problem):
        return ask(f"A tree has vertices 1..{problem['n']} and edges {edge_text(problem['edges'])}.\n\nWrite its "
                   "Prufer sequence: repeatedly delete the leaf with the smallest label and write down the label of "
                   f"its neighbour, until two vertices are left ({problem['n'] - 2} numbers).", LIST_FORMAT)


def prufer(n: int, edges) -> list[int]:
    adj = [set(a) for a in adjacency(n, edges)]
    code = []
    for _ in range(n - 2):
        leaf = min(v for v in range(1, n + 1) if len(adj[v]) == 1)
        (nb,) = adj[leaf]
        code.append(nb)
        adj[nb].discard(leaf)
        adj[leaf].clear()
    return code


class TreePostorderFromTraversals(_ListEnv):
    """A binary tree's postorder from its preorder and inorder (distinct labels). d: n = d + 5
    nodes, a random binary tree. Reward: -1 unparsable, 1 exact, else 0 (the tree is unique)."""

    name = "tree_postorder_from_traversals"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        labels = rng.sample(range(1, 10 * n), n)
        kids = {labels[0]: [None, None]}
        for v in labels[1:]:  # hang v at a random free child slot
            slots = [(u, s) for u, c in kids.items() for s in (0, 1) if c[s] is None]
            u, s = rng.choice(slots)
            kids[u][s] = v
            kids[v] = [None, None]
        pre, ino, post = [], [], []

        def walk(v):
            if v is None:
                return
            pre.append(v)
            walk(kids[v][0])
            ino.append(v)
            walk(kids[v][1])
            post.append(v)

        walk(labels[0])
        return {"pre": pre, "in": ino, "list": post}, " ".join(map(str, post))

    def prompt(self, problem):
        return ask(f"A binary tree with distinct node labels has preorder traversal {' '.join(map(str, problem['pre']))} "
                   f"and inorder traversal {' '.join(map(str, problem['in']))}.\n\nWhat is its postorder traversal?",
                   LIST_FORMAT)


class TreePathXorPairs(_TreeCount):
    """Unordered vertex pairs whose path's edge weights XOR to zero (equal root-to-vertex XORs).
    d: n = 2d + 6, weights in 0..7. Reward: count ratio^10 (our choice, after rlve line 43's
    formula)."""

    name = "tree_path_xor_pairs"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def extra(self, rng, n, problem):
        return {**problem, "w": [rng.randint(0, 7) for _ in range(n - 1)]}

    def count(self, p):
        adj = [[] for _ in range(p["n"] + 1)]
        for (a, b), w in zip(p["edges"], p["w"]):
            adj[a].append((b, w))
            adj[b].append((a, w))
        xor, stack = {1: 0}, [1]
        while stack:
            v = stack.pop()
            for w, c in adj[v]:
                if w not in xor:
                    xor[w] = xor[v] ^ c
                    stack.append(w)
        return sum(c * (c - 1) // 2 for c in Counter(xor.values()).values())

    def prompt(self, problem):
        edges = ", ".join(f"{a}-{b} (weight {w})" for (a, b), w in zip(problem["edges"], problem["w"]))
        return ask(f"A tree has vertices 1..{problem['n']} and weighted edges {edges}.\n\nHow many unordered pairs of "
                   "distinct vertices have a path whose edge weights XOR (bitwise exclusive or) to 0?", COUNT_FORMAT)


class TreePrecoloredColorings(_TreeCount):
    """Proper colourings of a tree with k colours where some vertices' colours are fixed.
    d: n = d + 5, k in [2, 4], about a fifth of the vertices fixed. Reward: count ratio^10 (our
    choice, after rlve line 43's formula). Own problem: without fixed colours the count is
    k (k - 1)^(n - 1); fixing some needs a DP over colours."""

    name = "tree_precolored_colorings"

    def extra(self, rng, n, problem):
        k = rng.randint(2, 4)
        fixed = {str(v): rng.randint(1, k) for v in range(1, n + 1) if rng.random() < 0.2}
        return {**problem, "k": k, "fixed": fixed}

    def build(self, rng, difficulty):
        problem, gold = super().build(rng, difficulty)
        if problem["count"] == 0 or not problem["fixed"]:
            raise Retry
        return problem, gold

    def count(self, p):
        order, children = rooted_children(p["n"], p["edges"])
        k, ways = p["k"], {}
        for v in reversed(order):
            row = []
            for c in range(1, k + 1):
                w = int(p["fixed"].get(str(v), c) == c)
                for ch in children[v]:
                    w *= sum(ways[ch]) - ways[ch][c - 1]
                row.append(w)
            ways[v] = row
        return sum(ways[order[0]])

    def prompt(self, problem):
        fixed = ", ".join(f"vertex {v} has colour {c}" for v, c in sorted(problem["fixed"].items(), key=lambda t: int(t[0])))
        return ask(f"{self.tree(problem)}\n\nColour every vertex with one of the colours 1..{problem['k']} so that "
                   f"adjacent vertices differ and {fixed}. How many such colourings are there?", COUNT_FORMAT)


class DistinctSubtreeShapes(IntEnv):
    """How many different shapes the subtrees of a rooted tree have (rooted, unordered: children
    may be permuted; AHU canonical names). d: n = 2d + 6, root 1. Reward: -1 unparsable, 1
    exact, else 0. Own problem: rooted-tree isomorphism classes (graph_isomorphism asks for one
    mapping between two graphs)."""

    name = "distinct_subtree_shapes"
    category = "competition"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = random_tree(rng, n)
        order, kids = rooted_children(n, edges)
        ids: dict[tuple, int] = {}
        shape = [0] * (n + 1)
        for v in reversed(order):  # children before parents
            shape[v] = ids.setdefault(tuple(sorted(shape[c] for c in kids[v])), len(ids))
        return {"n": n, "edges": edges, "value": len(ids)}, str(len(ids))

    def prompt(self, problem):
        return ask(f"A tree has vertices 1..{problem['n']} and edges {edge_text(problem['edges'])}. Root it at vertex "
                   "1; every vertex v has a subtree (v and everything below it). Two subtrees have the same shape if "
                   "one becomes the other by reordering children at any vertices (labels ignored). How many "
                   "different shapes occur among the subtrees of all vertices?", INT_FORMAT)
