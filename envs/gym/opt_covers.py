"""Covering and closure problems made exact by matchings and cuts, graded against the optimum:
minimum vertex cover of a bipartite graph (Konig's theorem), minimum path cover of a DAG (n
minus a maximum matching of its split graph), the most profitable closed set of projects
(a minimum cut).

The first two are NP-hard on general graphs; on these classes a maximum bipartite matching
gives the optimum and its certificate, and the closure is a max-flow problem. Rewards follow the optimisation family of optimization.py (our
choice, in the (.)^5 shape of PolynomialMinimum's reward, rlve lines 53-55): -1 unparsable,
-0.5 an answer that does not describe a candidate, 0 for an infeasible one, else (optimum /
its size)^5, exactly 1 only at the optimum (ratio()).
"""
from __future__ import annotations

from envs.gym.base import GymEnv, Retry, ask, index_set, int_list, ratio
from envs.gym.graphs import bipartite_matching, max_flow_cut


class BipartiteVertexCover(GymEnv):
    """Fewest vertices touching every edge of a bipartite graph (optimisation; Konig: the size
    of a maximum matching, and the cover from the vertices reachable by alternating paths).
    d: d // 2 + 4 vertices per side (left 0..a-1, right a..a+b-1), each pair an edge with
    probability 0.3. Answer: the cover's vertices. Reward: -0.5 bad or repeated indices, 0 if
    an edge is uncovered, else (optimum / its size)^5. Its own problem: vertex_cover plants a
    cover in a general graph (NP-complete); max_bipartite_matching asks for the matching, not
    the dual cover."""

    name = "bipartite_vertex_cover"
    category = "optimization"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        a = b = self.size(difficulty)
        adj = [[v for v in range(b) if rng.random() < 0.3] for _ in range(a)]
        if not any(adj):
            raise Retry  # no edge: nothing to cover
        matching = bipartite_matching(a, adj)
        mate_l, mate_r = {u: v for u, v in matching}, {v: u for u, v in matching}
        seen_l = {u for u in range(a) if u not in mate_l}  # alternating search from unmatched left vertices
        seen_r, frontier = set(), list(seen_l)
        while frontier:
            u = frontier.pop()
            for v in adj[u]:
                if v not in seen_r:
                    seen_r.add(v)
                    w = mate_r.get(v)
                    if w is not None and w not in seen_l:
                        seen_l.add(w)
                        frontier.append(w)
        cover = sorted([u for u in range(a) if u not in seen_l] + [a + v for v in seen_r])
        edges = [(u, a + v) for u in range(a) for v in adj[u]]
        return {"left": a, "right": b, "edges": edges, "optimum": len(matching)}, " ".join(map(str, cover))

    def prompt(self, problem):
        a, b = problem["left"], problem["right"]
        edges = ", ".join(f"{u}-{v}" for u, v in problem["edges"])
        return ask(f"A bipartite graph has left vertices 0 to {a - 1}, right vertices {a} to {a + b - 1} and edges "
                   f"{edges}. Choose as few vertices as possible so that every edge has at least one chosen end.",
                   "Give the chosen vertices separated by spaces, e.g. <answer>0 3 7</answer>.")

    def reward(self, problem, answer):
        n = problem["left"] + problem["right"]
        chosen = index_set(answer, n)
        if chosen is None:
            return -0.5
        picked = set(chosen)
        if any(u not in picked and v not in picked for u, v in problem["edges"]):
            return 0.0
        return ratio(problem["optimum"], len(chosen), 5)


class DagPathCover(GymEnv):
    """Fewest vertex-disjoint paths covering every vertex of a DAG (optimisation; n minus a
    maximum matching between out-copies and in-copies of the vertices, each matched pair an
    edge of some path). d: n = d + 6 vertices, hidden topological order, each forward pair an
    edge with probability 2.5 / n. Answer: one path per line, its vertices in order. Reward:
    -0.5 unless every vertex is on exactly one path and consecutive vertices are edges, else
    (optimum / its number of paths)^5. Its own problem: a cover by paths, which
    topological_sort and longest_path_dag (one order, one path) do not ask for."""

    name = "dag_path_cover"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        label = rng.sample(range(n), n)  # label[k]: the vertex at position k of the hidden order
        edges = sorted((label[i], label[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < 2.5 / n)
        adj = [[] for _ in range(n)]
        for u, v in edges:
            adj[u].append(v)
        succ = dict(bipartite_matching(n, adj))
        starts = set(range(n)) - set(succ.values())
        paths = []
        for s in sorted(starts):
            path = [s]
            while path[-1] in succ:
                path.append(succ[path[-1]])
            paths.append(path)
        return {"n": n, "edges": edges, "optimum": len(paths)}, "\n".join(" ".join(map(str, p)) for p in paths)

    def prompt(self, problem):
        edges = ", ".join(f"{u}->{v}" for u, v in problem["edges"]) or "none"
        return ask(f"A directed acyclic graph has vertices 0 to {problem['n'] - 1} and edges {edges}. Cover all vertices "
                   "with as few paths as possible: each vertex on exactly one path, each path following edges (a "
                   "single vertex is a path).", "Give one path per line, its vertices in order separated by spaces, "
                   "e.g. <answer>0 3 5\n2\n1 4</answer>.")

    def reward(self, problem, answer):
        n = problem["n"]
        paths = [int_list(line) for line in answer.splitlines() if line.strip()]
        flat = [v for p in paths for v in p]
        edges = {tuple(e) for e in problem["edges"]}
        if sorted(flat) != list(range(n)) or any((u, v) not in edges for p in paths for u, v in zip(p, p[1:])):
            return -0.5
        return ratio(problem["optimum"], len(paths), 5)


class ProjectSelection(GymEnv):
    """Choose projects with profits (some negative) where choosing a project requires choosing
    the projects it depends on, maximising total profit (optimisation; the maximum-weight
    closure: positive profits minus a minimum s-t cut). d: n = d + 6 projects, profits in
    [-20, 20] without 0, about 1.5n dependencies; redrawn unless the best profit is positive.
    Answer: the chosen projects. Reward: -0.5 bad or repeated indices, 0 if a dependency is
    missing, else (max(profit, 0) / optimum)^5. Its own problem: a closure constraint with
    signed weights, reduced to a cut; min_cut asks for a cut of a given network directly."""

    name = "project_selection"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        profit = [rng.choice((1, -1)) * rng.randint(1, 20) for _ in range(n)]
        needs = sorted({tuple(rng.sample(range(n), 2)) for _ in range(3 * n // 2)})
        s, t = n, n + 1
        big = sum(abs(p) for p in profit) + 1
        edges = [(s, i, p) for i, p in enumerate(profit) if p > 0] + [(i, t, -p) for i, p in enumerate(profit) if p < 0]
        edges += [(i, j, big) for i, j in needs]
        cut, side = max_flow_cut(n + 2, edges, s, t)
        best = sum(p for p in profit if p > 0) - cut
        if best <= 0:
            raise Retry
        chosen = sorted(v for v in side if v < n)
        return {"profit": profit, "needs": needs, "optimum": best}, " ".join(map(str, chosen))

    def prompt(self, problem):
        profit = problem["profit"]
        listing = ", ".join(f"{i}: {p}" for i, p in enumerate(profit))
        deps = ", ".join(f"{i} needs {j}" for i, j in problem["needs"])
        return ask(f"Projects (index: profit, negative = a cost): {listing}.\nDependencies (choosing a project requires "
                   f"choosing the ones it needs): {deps}.\n\nChoose projects, dependencies included, with the largest "
                   "total profit.", "Give the chosen projects separated by spaces, e.g. <answer>0 3 5</answer>.")

    def reward(self, problem, answer):
        profit = problem["profit"]
        chosen = index_set(answer, len(profit))
        if chosen is None:
            return -0.5
        picked = set(chosen)
        if any(i in picked and j not in picked for i, j in problem["needs"]):
            return 0.0
        return ratio(max(0, sum(profit[i] for i in chosen)), problem["optimum"], 5)
