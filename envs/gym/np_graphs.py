"""NP-complete graph problems with planted solutions (RLVE line 71: the generator "exploits the
solving-verification asymmetry"; line 73): feedback vertex set, feedback arc set, minimum
bisection, max cut, monochromatic-triangle-free edge 2-colouring, domatic partition,
degree-bounded spanning tree, minimum maximal matching, kernel of a digraph, bandwidth,
balanced biclique, TSP with a planted tour under a bound, Steiner tree.

Each generator builds the instance around a hidden solution and never searches; each scorer
checks the answer against the constraints, so any valid answer at least as good as the planted
bound scores 1. What makes each its own problem (none of them is in np_complete.py or
np_planted.py, nor a parameter of one there): the constraint checked differs (acyclicity after
deleting vertices or arcs, a balanced or maximum cut, triangle-freeness of edge classes, a
partition into dominating sets, a degree cap on a spanning tree, maximality of a matching,
independence plus absorption in a digraph, a layout's stretch, a complete bipartite subgraph, a
tour's weight against a bound, terminal connectivity).

Reward (our choice, following np_complete.py): -1 unparsable, -0.5 for an answer of the wrong
shape (a repeated or out-of-range vertex, an edge not in the graph, not a permutation), 0 if a
constraint fails; a valid answer scores 1 in decision problems, and (bound / value)^5 or
(value / bound)^5, capped at 1, where the answer is graded against the planted bound.
"""
from __future__ import annotations

from envs.gym.base import BELOW_ONE, GymEnv, Retry, ask, index_set, int_list
from envs.gym.graphs import _DSU, _edge_lines, _random_pairs

VERTEX_FORMAT = "Give the vertices separated by spaces, e.g. <answer>0 3 4</answer>."
EDGE_FORMAT = "Give the edges as pairs \"u v\", one pair per line, e.g. <answer>0 3\n3 4</answer>."
ORDER_FORMAT = "Give the vertices in order separated by spaces, e.g. <answer>2 0 3 1</answer>."


def graded(good: int | float, bad: int | float) -> float:
    """(good / bad)^5 capped at 1, exactly 1 only when good >= bad."""
    if good >= bad:
        return 1.0
    return min(BELOW_ONE, (max(good, 0) / bad) ** 5) if bad > 0 else 0.0


def relabel(rng, n: int, edges) -> tuple[list[int], list[tuple[int, int]]]:
    """A random relabelling of the vertices and the edges under it, shuffled (so the planted
    structure is not visible in the numbering)."""
    perm = rng.sample(range(n), n)
    out = [(perm[u], perm[v]) for u, v in edges]
    rng.shuffle(out)
    return perm, out


def undirected(edges) -> list[tuple[int, int]]:
    return sorted({(min(u, v), max(u, v)) for u, v in edges if u != v})


def edge_pairs(answer: str, edges: set[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Distinct undirected edges of the graph from "u v" pairs, normalised u < v; None if a pair
    is not an edge or repeats."""
    nums = int_list(answer)
    if len(nums) % 2:
        return None
    pairs = [(min(u, v), max(u, v)) for u, v in zip(nums[::2], nums[1::2])]
    if len(set(pairs)) != len(pairs) or any(p not in edges for p in pairs):
        return None
    return pairs


def is_forest(n: int, edges) -> bool:
    dsu = _DSU(n)
    return all(dsu.union(u, v) for u, v in edges)


def is_acyclic_digraph(n: int, arcs) -> bool:
    out = [[] for _ in range(n)]
    indeg = [0] * n
    for u, v in arcs:
        out[u].append(v)
        indeg[v] += 1
    stack = [v for v in range(n) if indeg[v] == 0]
    seen = 0
    while stack:
        u = stack.pop()
        seen += 1
        for v in out[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                stack.append(v)
    return seen == n


def graph_text(n: int, edges, directed: bool = False, weighted: bool = False) -> str:
    kind = "A directed graph" if directed else "An undirected graph"
    what = "arcs (u v means an arc from u to v)" if directed else "edges"
    return (f"{kind} has {n} vertices numbered 0 to {n - 1} and these {what}"
            + (" (u v w: weight w)" if weighted else "") + f":\n{_edge_lines(edges, weighted)}\n\n")


class FeedbackVertexSet(GymEnv):
    """Feedback vertex set with a planted one (NP-complete, Karp): delete at most k vertices so
    that no cycle remains. d: n = 2d + 8 vertices; a random forest on n - k vertices, k = n // 5
    + 1 planted vertices joined to 3-5 random vertices each (and to each other at rate 0.3).
    Answer: the deleted vertices. Reward: -1 unparsable, -0.5 bad or repeated vertices, 0 if
    a cycle remains, else min(1, k / size)^5. Its own problem: acyclicity after deleting
    vertices (vertex cover asks for no edge at all)."""

    name = "feedback_vertex_set"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = n // 5 + 1
        rest = n - k  # vertices k..n-1 carry the forest; 0..k-1 are the planted set before relabelling
        edges = [(v, rng.randrange(k, v)) for v in range(k + 1, n) if rng.random() < 0.85]
        for s in range(k):
            edges += [(s, v) for v in rng.sample(range(k, n), min(rest, rng.randint(3, 5)))]
            edges += [(s, t) for t in range(s + 1, k) if rng.random() < 0.3]
        perm, edges = relabel(rng, n, undirected(edges))
        return {"n": n, "k": k, "edges": edges}, " ".join(map(str, sorted(perm[s] for s in range(k))))

    def prompt(self, problem):
        return ask(graph_text(problem["n"], problem["edges"]) +
                   f"Delete at most {problem['k']} vertices (with their edges) so that the remaining graph has no "
                   "cycle.", VERTEX_FORMAT)

    def reward(self, problem, answer):
        chosen = index_set(answer, problem["n"])
        if chosen is None:
            return -0.5
        gone = set(chosen)
        if not is_forest(problem["n"], [(u, v) for u, v in problem["edges"] if u not in gone and v not in gone]):
            return 0.0
        return graded(problem["k"], len(chosen))


class FeedbackArcSet(GymEnv):
    """Feedback arc set with a planted one (NP-complete, Karp): delete at most k arcs of a
    digraph so that no directed cycle remains. d: n = d + 6 vertices in a hidden order, forward
    arcs at rate 0.3 plus a forward Hamiltonian path, and k = n // 3 backward arcs. Answer: the
    indices of the deleted arcs in the listed order. Reward: -1 unparsable, -0.5 bad or
    repeated indices, 0 if a directed cycle remains, else min(1, k / size)^5. Its own problem:
    arcs, not vertices, and directed cycles."""

    name = "feedback_arc_set"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = n // 3
        forward = {(i, i + 1) for i in range(n - 1)} | {(i, j) for i in range(n) for j in range(i + 2, n)
                                                       if rng.random() < 0.3}
        back = set()
        while len(back) < k:
            i, j = sorted(rng.sample(range(n), 2))
            back.add((j, i))
        perm = rng.sample(range(n), n)
        arcs = [(perm[u], perm[v], (u, v) in back) for u, v in sorted(forward | back)]
        rng.shuffle(arcs)
        gold = [i for i, a in enumerate(arcs) if a[2]]
        return {"n": n, "k": k, "arcs": [a[:2] for a in arcs]}, " ".join(map(str, gold))

    def prompt(self, problem):
        arcs = "\n".join(f"{i}: {u} -> {v}" for i, (u, v) in enumerate(problem["arcs"]))
        return ask(f"A directed graph has {problem['n']} vertices numbered 0 to {problem['n'] - 1} and these "
                   f"numbered arcs:\n{arcs}\n\nDelete at most {problem['k']} arcs so that no directed cycle remains.",
                   "Give the numbers of the deleted arcs separated by spaces, e.g. <answer>0 5 7</answer>.")

    def reward(self, problem, answer):
        chosen = index_set(answer, len(problem["arcs"]))
        if chosen is None:
            return -0.5
        gone = set(chosen)
        if not is_acyclic_digraph(problem["n"], [a for i, a in enumerate(problem["arcs"]) if i not in gone]):
            return 0.0
        return graded(problem["k"], len(chosen))


class MinBisection(GymEnv):
    """Minimum bisection with a planted one (NP-complete, Garey-Johnson ND17): split the
    vertices into two halves of equal size with at most b edges between them. d: n = 2d + 8
    vertices, two hidden halves with inner edges at rate 0.5 and b = n // 4 random crossing
    edges. Answer: the vertices of one half. Reward: -1 unparsable, -0.5 not n / 2 distinct
    vertices, else min(1, b / cut)^5. Its own problem: the balance constraint and a minimum,
    where max_cut maximises with no balance."""

    name = "min_bisection"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        h, b = n // 2, n // 4
        edges = [(u, v) for side in (range(h), range(h, n)) for u in side for v in side if u < v and rng.random() < 0.5]
        cross = set()
        while len(cross) < b:
            cross.add((rng.randrange(h), rng.randrange(h, n)))
        perm, edges = relabel(rng, n, edges + sorted(cross))
        return {"n": n, "b": b, "edges": undirected(edges)}, " ".join(map(str, sorted(perm[v] for v in range(h))))

    def prompt(self, problem):
        n = problem["n"]
        return ask(graph_text(n, problem["edges"]) +
                   f"Split the vertices into two groups of {n // 2} so that at most {problem['b']} edges join the two "
                   "groups.", f"Give the {n // 2} vertices of one group separated by spaces, e.g. <answer>0 3 4</answer>.")

    def reward(self, problem, answer):
        n = problem["n"]
        chosen = index_set(answer, n)
        if chosen is None or len(chosen) != n // 2:
            return -0.5
        side = set(chosen)
        cut = sum((u in side) != (v in side) for u, v in problem["edges"])
        return graded(problem["b"], cut)


class MaxCut(GymEnv):
    """Max cut with a planted cut (NP-complete, Karp): split the vertices so that at least K
    edges join the two sides. d: n = 2d + 8 vertices, a hidden split with crossing edges at
    rate 0.5 and same-side edges at rate 0.1; K = the planted cut's size. Answer: one side.
    Reward: -1 unparsable, -0.5 bad or repeated vertices, else min(1, cut / K)^5. Its own
    problem: maximising crossing edges with unequal sides allowed (min_bisection minimises
    them between equal halves)."""

    name = "max_cut"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        side = [rng.random() < 0.5 for _ in range(n)]
        edges = [(u, v) for u in range(n) for v in range(u + 1, n)
                 if rng.random() < (0.5 if side[u] != side[v] else 0.1)]
        k = sum(side[u] != side[v] for u, v in edges)
        if not k:
            raise Retry
        rng.shuffle(edges)
        return {"n": n, "k": k, "edges": edges}, " ".join(str(v) for v in range(n) if side[v])

    def prompt(self, problem):
        return ask(graph_text(problem["n"], problem["edges"]) +
                   f"Split the vertices into two groups so that at least {problem['k']} edges join the two groups.",
                   "Give the vertices of one group separated by spaces (the rest form the other), "
                   "e.g. <answer>0 3 4</answer>.")

    def reward(self, problem, answer):
        chosen = index_set(answer, problem["n"])
        if chosen is None:
            return -0.5
        side = set(chosen)
        return graded(sum((u in side) != (v in side) for u, v in problem["edges"]), problem["k"])


class MonochromaticTriangle(GymEnv):
    """Partition into triangle-free edge classes (NP-complete, Garey-Johnson GT6): colour every
    edge red or blue so that no triangle has three edges of one colour. d: n = d + 6 vertices;
    the edges are the union of two bipartite graphs on two hidden bipartitions (each at rate
    0.8), so colouring by bipartite graph is a solution
    (drawn again if the graph has no triangle). Answer: one colour per listed edge.
    Reward: -1 unparsable, -0.5 wrong count or a value other than 0/1, 1 if no monochromatic
    triangle, else 0. Its own problem: the constraint is on edge classes and triangles, not on
    vertex colours."""

    name = "monochromatic_triangle"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        colour = {}
        for c in (0, 1):
            part = [rng.random() < 0.5 for _ in range(n)]
            for u in range(n):
                for v in range(u + 1, n):
                    if part[u] != part[v] and (u, v) not in colour and rng.random() < 0.8:
                        colour[(u, v)] = c
        edges = list(colour)
        adj = [set() for _ in range(n)]
        for u, v in edges:
            adj[u].add(v)
            adj[v].add(u)
        if not any(adj[u] & adj[v] for u, v in edges):  # no triangle at all: nothing to solve
            raise Retry
        rng.shuffle(edges)
        return {"n": n, "edges": edges}, " ".join(str(colour[e]) for e in edges)

    def prompt(self, problem):
        listed = "\n".join(f"{i}: {u} {v}" for i, (u, v) in enumerate(problem["edges"]))
        return ask(f"An undirected graph has {problem['n']} vertices numbered 0 to {problem['n'] - 1} and these "
                   f"numbered edges:\n{listed}\n\nColour every edge 0 or 1 so that no triangle (three vertices joined "
                   "pairwise) has all three edges of the same colour.",
                   f"Give {len(problem['edges'])} colours (0 or 1), one per edge in the listed order, separated by "
                   "spaces, e.g. <answer>0 1 1 0</answer>.")

    def reward(self, problem, answer):
        cols, edges = int_list(answer), problem["edges"]
        if len(cols) != len(edges) or any(c not in (0, 1) for c in cols):
            return -0.5
        adj: list[dict[int, int]] = [{} for _ in range(problem["n"])]
        for (u, v), c in zip(edges, cols):
            adj[u][v] = adj[v][u] = c
        for (u, v), c in zip(edges, cols):
            small, big = (adj[u], adj[v]) if len(adj[u]) < len(adj[v]) else (adj[v], adj[u])
            if any(cw == c and big.get(w) == c for w, cw in small.items()):
                return 0.0
        return 1.0


class DomaticPartition(GymEnv):
    """Domatic number at least k, planted (NP-complete, Garey-Johnson GT3): split the vertices
    into k groups, each a dominating set (every vertex is in the group or next to one of its
    members). d: n = 2d + 8 vertices, k = 3 + d // 8 hidden groups; random edges at rate 0.15,
    then an edge from every vertex to a random member of each group it does not yet see.
    Answer: a group 1..k per vertex. Reward: -1 unparsable, -0.5 wrong count or a group out of
    1..k, 1 if every group dominates, else 0. Its own problem: a partition into k dominating
    sets, where dominating_set asks for one small one."""

    name = "domatic_partition"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n, k = self.size(difficulty), 3 + difficulty // 8
        group = [i % k for i in range(n)]
        rng.shuffle(group)
        members = [[v for v in range(n) if group[v] == g] for g in range(k)]
        edges = {(u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < 0.15}
        adj = [set() for _ in range(n)]
        for u, v in edges:
            adj[u].add(v)
            adj[v].add(u)
        for v in range(n):
            for g in range(k):
                if g != group[v] and not any(group[w] == g for w in adj[v]):
                    w = rng.choice(members[g])
                    adj[v].add(w)
                    adj[w].add(v)
                    edges.add((min(v, w), max(v, w)))
        edges = sorted(edges)
        rng.shuffle(edges)
        return {"n": n, "k": k, "edges": edges}, " ".join(str(g + 1) for g in group)

    def prompt(self, problem):
        n, k = problem["n"], problem["k"]
        return ask(graph_text(n, problem["edges"]) +
                   f"Split the vertices into {k} groups so that every group is a dominating set: every vertex either "
                   "belongs to the group or has a neighbour in it.",
                   f"Give {n} group numbers (1 to {k}), one per vertex 0 to {n - 1}, separated by spaces.")

    def reward(self, problem, answer):
        groups, n, k = int_list(answer), problem["n"], problem["k"]
        if len(groups) != n or any(not 1 <= g <= k for g in groups):
            return -0.5
        seen = [{groups[v]} for v in range(n)]
        for u, v in problem["edges"]:
            seen[u].add(groups[v])
            seen[v].add(groups[u])
        return 1.0 if all(len(s) == k for s in seen) else 0.0


class DegreeBoundedSpanningTree(GymEnv):
    """Degree-constrained spanning tree, planted (NP-complete, Garey-Johnson ND1; degree 2 would
    be a Hamiltonian path): find a spanning tree with no vertex of degree above 3. d: n = 2d + 8
    vertices, a random tree of maximum degree 3 plus n random extra edges, relabelled. Answer:
    the n - 1 tree edges. Reward: -1 unparsable, -0.5 not n - 1 distinct graph edges, 0 if not
    a spanning tree or a degree above 3, else 1. Its own problem: a degree cap on a spanning
    tree (minimum_spanning_tree has no cap and is polynomial)."""

    name = "degree_bounded_spanning_tree"
    category = "np_complete"
    cap = 3

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        deg, tree = [0] * n, []
        for v in range(1, n):
            u = rng.choice([w for w in range(v) if deg[w] < self.cap])
            deg[u] += 1
            deg[v] += 1
            tree.append((u, v))
        extra = _random_pairs(rng, n, n, directed=False, avoid=tree)
        perm = rng.sample(range(n), n)
        tree = undirected((perm[u], perm[v]) for u, v in tree)
        edges = undirected(tree + [(perm[u], perm[v]) for u, v in extra])
        rng.shuffle(edges)
        return {"n": n, "edges": edges}, "\n".join(f"{u} {v}" for u, v in tree)

    def prompt(self, problem):
        n = problem["n"]
        return ask(graph_text(n, problem["edges"]) +
                   f"Find a spanning tree ({n - 1} of these edges connecting all vertices) in which every vertex has "
                   f"degree at most {self.cap}.", EDGE_FORMAT)

    def reward(self, problem, answer):
        n = problem["n"]
        pairs = edge_pairs(answer, {tuple(e) for e in problem["edges"]})
        if pairs is None or len(pairs) != n - 1:
            return -0.5
        deg = [0] * n
        for u, v in pairs:
            deg[u] += 1
            deg[v] += 1
        return 1.0 if is_forest(n, pairs) and max(deg) <= self.cap else 0.0


class MinimumMaximalMatching(GymEnv):
    """Minimum maximal matching (edge dominating set), planted (NP-complete, Garey-Johnson GT10):
    find a matching of at most k edges that no graph edge can be added to. d: n = 2d + 10
    vertices, a planted matching of k = n // 4 edges; every other edge touches a matched vertex
    (rate 0.3), so the rest stay independent. Answer: the matching's edges. Reward: -1
    unparsable, -0.5 a pair that is not an edge or repeats, 0 if two edges share a vertex or
    some graph edge could be added, else min(1, k / size)^5. Its own problem: the smallest
    maximal matching (max_bipartite_matching wants the largest, in polynomial time)."""

    name = "minimum_maximal_matching"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 10

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = n // 4
        matched = range(2 * k)  # planted matching (2i, 2i+1) before relabelling
        edges = [(2 * i, 2 * i + 1) for i in range(k)]
        edges += [(u, v) for u in matched for v in range(u + 1, n) if rng.random() < 0.3]
        perm, edges = relabel(rng, n, undirected(edges))
        gold = sorted((min(perm[2 * i], perm[2 * i + 1]), max(perm[2 * i], perm[2 * i + 1])) for i in range(k))
        return {"n": n, "k": k, "edges": undirected(edges)}, "\n".join(f"{u} {v}" for u, v in gold)

    def prompt(self, problem):
        return ask(graph_text(problem["n"], problem["edges"]) +
                   f"Find a maximal matching with at most {problem['k']} edges: edges no two of which share a vertex, "
                   "such that every edge of the graph shares a vertex with a chosen edge.", EDGE_FORMAT)

    def reward(self, problem, answer):
        pairs = edge_pairs(answer, {tuple(e) for e in problem["edges"]})
        if pairs is None:
            return -0.5
        used = [v for e in pairs for v in e]
        if len(set(used)) != len(used) or not pairs:
            return 0.0
        used = set(used)
        if not all(u in used or v in used for u, v in problem["edges"]):
            return 0.0
        return graded(problem["k"], len(pairs))


class GraphKernel(GymEnv):
    """Kernel of a digraph, planted (NP-complete, Chvatal 1973; Garey-Johnson GT57): a set S of
    vertices with no arc between two of them such that every vertex outside S has an arc into
    S. d: n = 2d + 8 vertices, a hidden S of about n / 3, one arc from every other vertex into
    S, and random arcs at rate 0.15 that do not join two members of S. Answer: S. Reward: -1
    unparsable, -0.5 bad or repeated vertices, 1 if independent and absorbing, else 0. Its own
    problem: directed, and independence and absorption at once (independent_set and
    dominating_set each ask for one, undirected)."""

    name = "graph_kernel"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        kernel = set(rng.sample(range(n), n // 3))
        members = sorted(kernel)
        arcs = {(v, rng.choice(members)) for v in range(n) if v not in kernel}
        arcs |= {(u, v) for u in range(n) for v in range(n)
                 if u != v and not (u in kernel and v in kernel) and rng.random() < 0.15}
        arcs = sorted(arcs)
        rng.shuffle(arcs)
        return {"n": n, "arcs": arcs}, " ".join(map(str, members))

    def prompt(self, problem):
        return ask(graph_text(problem["n"], problem["arcs"], directed=True) +
                   "Find a kernel: a set S of vertices such that no arc joins two vertices of S and every vertex "
                   "outside S has an arc to some vertex of S.", VERTEX_FORMAT)

    def reward(self, problem, answer):
        chosen = index_set(answer, problem["n"])
        if chosen is None:
            return -0.5
        s = set(chosen)
        absorbed = set(s)
        for u, v in problem["arcs"]:
            if u in s and v in s:
                return 0.0
            if v in s:
                absorbed.add(u)
        return 1.0 if len(absorbed) == problem["n"] else 0.0


class Bandwidth(GymEnv):
    """Graph bandwidth at most B, planted (NP-complete, Garey-Johnson GT40): order the vertices
    so that the two ends of every edge are at most B places apart. d: n = d + 6 vertices,
    B = 2 + d // 10; a hidden order with the path through it and every pair at most B apart at
    rate 0.5. Answer: the order. Reward: -1 unparsable, -0.5 not a permutation, else
    min(1, B / stretch)^5 with stretch the largest distance of an edge's ends. Its own problem:
    a layout's worst edge stretch (no other env grades a vertex order this way)."""

    name = "bandwidth"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n, b = self.size(difficulty), 2 + difficulty // 10
        edges = [(i, i + 1) for i in range(n - 1)]
        edges += [(i, j) for i in range(n) for j in range(i + 2, min(n, i + b + 1)) if rng.random() < 0.5]
        perm, edges = relabel(rng, n, edges)
        return {"n": n, "b": b, "edges": undirected(edges)}, " ".join(map(str, perm))

    def prompt(self, problem):
        return ask(graph_text(problem["n"], problem["edges"]) +
                   f"Put the vertices in a row so that the two ends of every edge are at most {problem['b']} places "
                   "apart.", ORDER_FORMAT)

    def reward(self, problem, answer):
        order, n = int_list(answer), problem["n"]
        if sorted(order) != list(range(n)):
            return -0.5
        pos = {v: i for i, v in enumerate(order)}
        return graded(problem["b"], max(abs(pos[u] - pos[v]) for u, v in problem["edges"]))


class BalancedBiclique(GymEnv):
    """Balanced complete bipartite subgraph, planted (NP-complete, Garey-Johnson GT24): in a
    bipartite graph, choose k left and k right vertices all joined to each other. d: n = d + 6
    vertices per side, a planted K(k, k) with k = n // 3 + 1, other edges at rate 0.3. Answer:
    the chosen vertices of both sides. Reward: -1 unparsable, -0.5 bad or repeated vertices, 0
    if the sides differ in size or a pair is not joined, else min(1, side / k)^5. Its own
    problem: bipartite and balanced (max_clique needs all pairs joined, inside one vertex set)."""

    name = "balanced_biclique"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = n // 3 + 1
        left, right = rng.sample(range(n), k), rng.sample(range(n, 2 * n), k)
        edges = {(u, v) for u in left for v in right}
        edges |= {(u, v) for u in range(n) for v in range(n, 2 * n) if rng.random() < 0.3}
        edges = sorted(edges)
        rng.shuffle(edges)
        return {"n": n, "k": k, "edges": edges}, " ".join(map(str, sorted(left) + sorted(right)))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A bipartite graph has left vertices 0 to {n - 1}, right vertices {n} to {2 * n - 1} and these "
                   f"edges:\n{_edge_lines(problem['edges'])}\n\nChoose {problem['k']} left and {problem['k']} right "
                   "vertices such that every chosen left vertex is joined to every chosen right vertex (more of each, "
                   "equally many, is also fine).", "Give the chosen left and right vertices together, separated by "
                   "spaces, e.g. <answer>0 2 7 9</answer>.")

    def reward(self, problem, answer):
        n = problem["n"]
        chosen = index_set(answer, 2 * n)
        if chosen is None:
            return -0.5
        left, right = [v for v in chosen if v < n], [v for v in chosen if v >= n]
        edges = {tuple(e) for e in problem["edges"]}
        if len(left) != len(right) or not left or any((u, v) not in edges for u in left for v in right):
            return 0.0
        return graded(len(left), problem["k"])


class TspBound(GymEnv):
    """Travelling salesman decision with a planted tour (NP-complete, Karp): in a complete graph
    with integer weights, find a round trip of total weight at most B. d: n = d + 5 cities; the
    planted tour's edges weigh 1-10, all others 5-40 (not metric); B = the planted tour's
    weight. Answer: a visiting order. Reward: -1 unparsable, -0.5 not a permutation, else
    min(1, B / weight)^5. Its own problem: an explicit, non-metric weight matrix and a bound
    (tsp_convex gives Euclidean points whose optimum is the convex hull)."""

    name = "tsp_bound"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        tour = rng.sample(range(n), n)
        w = [[0] * n for _ in range(n)]
        for u in range(n):
            for v in range(u + 1, n):
                w[u][v] = w[v][u] = rng.randint(5, 40)
        for u, v in zip(tour, tour[1:] + tour[:1]):
            w[u][v] = w[v][u] = rng.randint(1, 10)
        bound = sum(w[u][v] for u, v in zip(tour, tour[1:] + tour[:1]))
        return {"n": n, "bound": bound, "w": w}, " ".join(map(str, tour))

    def prompt(self, problem):
        n = problem["n"]
        rows = "\n".join(" ".join(map(str, r)) for r in problem["w"])
        return ask(f"{n} cities numbered 0 to {n - 1}; the cost of travelling between cities i and j is entry (i, j) of "
                   f"this matrix (row i, column j):\n{rows}\n\nFind a round trip that visits every city once and returns "
                   f"to the start, of total cost at most {problem['bound']}.",
                   "Give the cities in visiting order, each once, separated by spaces, e.g. <answer>0 2 1 3</answer>.")

    def reward(self, problem, answer):
        order, n, w = int_list(answer), problem["n"], problem["w"]
        if sorted(order) != list(range(n)):
            return -0.5
        return graded(problem["bound"], sum(w[u][v] for u, v in zip(order, order[1:] + order[:1])))


class SteinerTree(GymEnv):
    """Steiner tree in graphs, planted (NP-complete, Karp): connect all terminals with edges of
    total weight at most B. d: n = 2d + 8 vertices; a random tree on about 2/3 of them with
    weights 1-5 whose leaves (and a few inner vertices) are the terminals, B = its weight, and
    2n further random edges of weight 4-15. Answer: the chosen edges. Reward: -1 unparsable,
    -0.5 a pair that is not an edge or repeats, 0 if some terminal is not connected to the
    others, else min(1, B / weight)^5. Its own problem: only the terminals must be joined, with
    optional Steiner vertices (minimum_spanning_tree spans every vertex, in polynomial time)."""

    name = "steiner_tree"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        m = max(4, 2 * n // 3)
        tree = [(v, rng.randrange(v)) for v in range(1, m)]
        deg = [0] * m
        for u, v in tree:
            deg[u] += 1
            deg[v] += 1
        terminals = [v for v in range(m) if deg[v] == 1] + [v for v in range(m) if deg[v] > 1 and rng.random() < 0.2]
        weight = {tuple(sorted(e)): rng.randint(1, 5) for e in tree}
        for e in _random_pairs(rng, n, 2 * n, directed=False, avoid=tree):
            weight[e] = rng.randint(4, 15)
        perm = rng.sample(range(n), n)
        edges = [(min(perm[u], perm[v]), max(perm[u], perm[v]), w) for (u, v), w in weight.items()]
        rng.shuffle(edges)
        gold = sorted(tuple(sorted((perm[u], perm[v]))) for u, v in tree)
        return ({"n": n, "terminals": sorted(perm[t] for t in terminals), "bound": sum(weight[tuple(sorted(e))] for e in tree),
                 "edges": edges}, "\n".join(f"{u} {v}" for u, v in gold))

    def prompt(self, problem):
        return ask(graph_text(problem["n"], problem["edges"], weighted=True) +
                   f"Terminals: {' '.join(map(str, problem['terminals']))}.\nChoose edges of total weight at most "
                   f"{problem['bound']} that connect all terminals to one another (other vertices may be used).",
                   EDGE_FORMAT)

    def reward(self, problem, answer):
        weight = {(u, v): w for u, v, w in problem["edges"]}
        pairs = edge_pairs(answer, set(weight))
        if pairs is None:
            return -0.5
        dsu = _DSU(problem["n"])
        for u, v in pairs:
            dsu.union(u, v)
        if len({dsu.find(t) for t in problem["terminals"]}) != 1:
            return 0.0
        return graded(problem["bound"], sum(weight[p] for p in pairs))
