"""Optimisation on trees by dynamic programming, graded against the optimum: maximum-weight
matching, minimum-weight dominating set, the optimal binary search tree.

Both are NP-hard or intricate on general graphs (weighted domination) but exact on trees by a
DP over subtrees. Rewards follow the optimisation family of optimization.py (our choice, in the
(.)^5 shape of PolynomialMinimum's reward, rlve lines 53-55): -1 unparsable, -0.5 bad or
repeated indices, 0 for an infeasible answer, else (weight / optimum)^5 or (optimum /
weight)^5, exactly 1 only at the optimum (ratio()).
"""
from __future__ import annotations

from envs.gym.base import GymEnv, ask, index_set, int_list, ratio


def _random_tree(rng, n: int) -> list[int]:
    """parent[v] < v for v >= 1 (children after parents); the prompt relabels vertices."""
    return [-1] + [rng.randrange(max(0, v - 4), v) if rng.random() < 0.5 else rng.randrange(v) for v in range(1, n)]


class TreeMaxWeightMatching(GymEnv):
    """Maximum-weight matching in an edge-weighted tree (optimisation; DP with each vertex
    matched to a child or not). d: n = d + 6 vertices, edge weights 1..30. Answer: the
    indices of the chosen edges. Reward: -0.5 bad or repeated indices, 0 if two chosen edges
    share a vertex, else (weight / optimum)^5. Its own problem: a matching picks edges that
    share no vertex, where tree_max_weight_independent_set picks vertices that share no edge;
    max_bipartite_matching is unweighted."""

    name = "tree_max_weight_matching"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        parent = _random_tree(rng, n)
        w = [0] + [rng.randint(1, 30) for _ in range(1, n)]  # w[v]: weight of the edge v - parent[v]
        children = [[] for _ in range(n)]
        for v in range(1, n):
            children[parent[v]].append(v)
        free, best, mate = [0] * n, [0] * n, [-1] * n  # free: v unmatched below; best: v may be matched
        for v in range(n - 1, -1, -1):
            free[v] = sum(best[c] for c in children[v])
            best[v], mate[v] = free[v], -1
            for c in children[v]:
                cand = free[v] - best[c] + free[c] + w[c]
                if cand > best[v]:
                    best[v], mate[v] = cand, c
        chosen, stack = [], [(0, True)]
        while stack:
            v, may = stack.pop()
            m = mate[v] if may else -1
            if m != -1:
                chosen.append(m)
            for c in children[v]:
                stack.append((c, c != m))
        perm = rng.sample(range(n), n)
        edge_ids = list(range(1, n))
        rng.shuffle(edge_ids)
        edges = [(perm[v], perm[parent[v]], w[v]) for v in edge_ids]
        index = {v: i for i, v in enumerate(edge_ids)}
        return {"n": n, "edges": edges, "optimum": best[0]}, " ".join(str(index[v]) for v in sorted(chosen, key=index.get))

    def prompt(self, problem):
        lines = "\n".join(f"{i}: {u} {v} {c}" for i, (u, v, c) in enumerate(problem["edges"]))
        return ask(f"A tree has vertices 0 to {problem['n'] - 1} and these weighted edges (index: u v weight):\n{lines}"
                   "\n\nChoose edges, no two sharing a vertex, with the largest total weight.",
                   "Give the indices of the chosen edges separated by spaces, e.g. <answer>0 3 5</answer>.")

    def reward(self, problem, answer):
        edges = problem["edges"]
        chosen = index_set(answer, len(edges))
        if chosen is None:
            return -0.5
        ends = [x for i in chosen for x in edges[i][:2]]
        if len(set(ends)) < len(ends):
            return 0.0
        return ratio(sum(edges[i][2] for i in chosen), problem["optimum"], 5)


class TreeMinWeightDominatingSet(GymEnv):
    """Minimum-weight dominating set of a vertex-weighted tree: every vertex is chosen or next
    to a chosen one (optimisation; DP with three states per vertex: chosen, dominated by a
    child, left for its parent). d: n = d + 6 vertices, weights 1..20. Answer: the chosen
    vertices. Reward: -0.5 bad or repeated indices, 0 if some vertex is not dominated, else
    (optimum / weight)^5. Its own problem: dominating_set plants an unweighted solution in a
    general graph (NP-complete); here weights and a tree make the exact optimum computable."""

    name = "tree_min_weight_dominating_set"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        parent = _random_tree(rng, n)
        w = [rng.randint(1, 20) for _ in range(n)]
        children = [[] for _ in range(n)]
        for v in range(1, n):
            children[parent[v]].append(v)
        inf = float("inf")
        take, below, up = [0] * n, [0] * n, [0] * n  # chosen / dominated by a child / needs its parent
        for v in range(n - 1, -1, -1):
            cs = children[v]
            take[v] = w[v] + sum(min(take[c], below[c], up[c]) for c in cs)
            up[v] = sum(below[c] for c in cs)
            if cs:
                base = sum(min(take[c], below[c]) for c in cs)
                below[v] = base + min(take[c] - min(take[c], below[c]) for c in cs)
            else:
                below[v] = inf
        chosen, stack = [], [(0, "take" if take[0] <= below[0] else "below")]
        while stack:
            v, state = stack.pop()
            cs = children[v]
            if state == "take":
                chosen.append(v)
                for c in cs:
                    m = min(take[c], below[c], up[c])
                    stack.append((c, "take" if take[c] == m else "below" if below[c] == m else "up"))
            elif state == "up":
                stack.extend((c, "below") for c in cs)
            else:  # below: one child (the cheapest to force) is chosen, the others take their best of take/below
                forced = min(cs, key=lambda c: take[c] - min(take[c], below[c]))
                for c in cs:
                    stack.append((c, "take" if c == forced or take[c] <= below[c] else "below"))
        perm = rng.sample(range(n), n)
        edges = [(perm[v], perm[parent[v]]) for v in range(1, n)]
        rng.shuffle(edges)
        weights = [0] * n
        for v in range(n):
            weights[perm[v]] = w[v]
        optimum = min(take[0], below[0])
        return {"weights": weights, "edges": edges, "optimum": optimum}, " ".join(sorted((str(perm[v]) for v in chosen), key=int))

    def prompt(self, problem):
        w = problem["weights"]
        return ask(f"A tree has vertices 0 to {len(w) - 1} with weights " + ", ".join(f"{i}: {x}" for i, x in enumerate(w)) +
                   "\nand edges " + ", ".join(f"{u}-{v}" for u, v in problem["edges"]) +
                   ".\n\nChoose vertices so that every vertex is chosen or adjacent to a chosen one, with the smallest "
                   "total weight.", "Give the chosen vertices separated by spaces, e.g. <answer>0 3 5</answer>.")

    def reward(self, problem, answer):
        w = problem["weights"]
        chosen = index_set(answer, len(w))
        if chosen is None:
            return -0.5
        covered = set(chosen)
        picked = set(chosen)
        for u, v in problem["edges"]:
            if u in picked:
                covered.add(v)
            if v in picked:
                covered.add(u)
        if len(covered) < len(w):
            return 0.0
        return ratio(problem["optimum"], sum(w[i] for i in chosen), 5)


def bst_cost(freq: list[int], order: list[int]) -> int:
    """Total weighted search cost (freq x (depth + 1)) of the BST built by inserting keys
    1..n in the given order."""
    left, right, depth, root = {}, {}, {}, None
    for k in order:
        if root is None:
            root, depth[k] = k, 0
            continue
        v, d = root, 0
        while True:
            d += 1
            side = left if k < v else right
            if v in side:
                v = side[v]
            else:
                side[v], depth[k] = k, d
                break
    return sum(freq[k - 1] * (depth[k] + 1) for k in order)


class OptimalBinarySearchTree(GymEnv):
    """Build a binary search tree over keys 1..n with known access counts that minimises the
    total cost sum f_k (depth_k + 1) (optimisation; Knuth's interval DP over key ranges).
    d: n = d + 4 keys, counts 1..30. Answer: an insertion order of the keys (any tree arises
    from its own preorder). Reward: -0.5 not a permutation of 1..n, else (optimum / its
    cost)^5. Its own problem: the in-order of the tree is fixed by the keys, which
    huffman_code_length (free leaf order) and tree_max_weight_independent_set do not have."""

    name = "optimal_binary_search_tree"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        f = [rng.randint(1, 30) for _ in range(n)]
        pre = [0]
        for x in f:
            pre.append(pre[-1] + x)
        cost = [[0] * (n + 2) for _ in range(n + 2)]  # cost[i][j]: keys i..j (1-based), 0 when empty
        root = [[0] * (n + 2) for _ in range(n + 2)]
        for span in range(1, n + 1):
            for i in range(1, n - span + 2):
                j = i + span - 1
                r = min(range(i, j + 1), key=lambda r: cost[i][r - 1] + cost[r + 1][j])
                cost[i][j], root[i][j] = cost[i][r - 1] + cost[r + 1][j] + pre[j] - pre[i - 1], r
        order, stack = [], [(1, n)]
        while stack:  # preorder of the optimal tree
            i, j = stack.pop()
            if i > j:
                continue
            r = root[i][j]
            order.append(r)
            stack += [(r + 1, j), (i, r - 1)]
        return {"freq": f, "optimum": cost[1][n]}, " ".join(map(str, order))

    def prompt(self, problem):
        f = problem["freq"]
        counts = ", ".join(f"key {k}: {c}" for k, c in enumerate(f, 1))
        return ask(f"Keys 1 to {len(f)} are looked up this many times: {counts}. A lookup of a key at depth t of a "
                   "binary search tree (the root has depth 0) costs t + 1. Build the binary search tree with the "
                   "smallest total lookup cost.", "Give an order in which to insert the keys into an empty binary "
                   "search tree to build it (for example its preorder), separated by spaces, e.g. "
                   "<answer>2 1 3</answer>.")

    def reward(self, problem, answer):
        f, order = problem["freq"], int_list(answer)
        if sorted(order) != list(range(1, len(f) + 1)):
            return -0.5
        return ratio(problem["optimum"], bst_cost(f, order), 5)
