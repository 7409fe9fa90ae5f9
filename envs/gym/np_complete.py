"""NP-complete problems with planted solutions, verified and never solved: SAT, subset sum,
partition, exact cover, set cover, graph colouring, clique, vertex cover, independent set,
dominating set, Hamiltonian cycle.

Each generator hides a solution of a known size k inside the instance; the scorer checks
an answer's validity and size against k, so any solution at least as good scores 1 (answers
better than the planted k clip to 1). Decision-style answers (SAT, subset sum, partition,
exact cover) are all-or-nothing, since a random assignment already satisfies most clauses and
graded credit there would pay for guessing.
"""
from __future__ import annotations

from envs.gym.base import GymEnv, Retry, ask, index_set, int_list
from envs.gym.graphs import _edge_lines, _random_pairs
from envs.compose.samplers import graph_of, ints_of

VERTEX_FORMAT = "Give the vertices separated by spaces, e.g. <answer>0 3 4</answer>."
SET_FORMAT = "Give the indices of the chosen sets separated by spaces, e.g. <answer>0 3 4</answer>."


class Sat(GymEnv):
    """3-SAT with a planted assignment (NP-complete). d: n = d + 4 variables, m = 4n clauses,
    each clause re-drawn until the planted assignment satisfies it. Answer: n values 0/1.
    Reward: -1 unparsable, -0.5 wrong length or a value other than 0/1, 1 if every clause is
    satisfied, else 0."""

    name = "sat"
    category = "np_complete"
    literals, clauses_per_variable = 3, 4  # two_sat (graph_algorithms.py) reuses this class with 2, 3

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        truth = [rng.randint(0, 1) for _ in range(n)]
        clauses = []
        while len(clauses) < self.clauses_per_variable * n:
            lits = [(v + 1) * rng.choice((1, -1)) for v in rng.sample(range(n), self.literals)]
            if any((lit > 0) == bool(truth[abs(lit) - 1]) for lit in lits):
                clauses.append(lits)
        return {"n": n, "clauses": clauses}, " ".join(map(str, truth))

    def prompt(self, problem):
        n = problem["n"]
        text = "\n".join("(" + " OR ".join(f"x{l}" if l > 0 else f"NOT x{-l}" for l in c) + ")" for c in problem["clauses"])
        return ask(f"Find values for the boolean variables x1..x{n} that make every clause true:\n{text}",
                   f"Give {n} values (1 = true, 0 = false) for x1..x{n}, separated by spaces.")

    def reward(self, problem, answer):
        vals = int_list(answer)
        if len(vals) != problem["n"] or any(v not in (0, 1) for v in vals):
            return -0.5
        return 1.0 if all(any((l > 0) == bool(vals[abs(l) - 1]) for l in c) for c in problem["clauses"]) else 0.0


class SubsetSum(GymEnv):
    """Subset sum with a planted subset (NP-complete). d: n = d + 5 numbers in 1..10n.
    Reward: -1 unparsable, -0.5 bad or repeated indices, 1 if the chosen numbers sum to the
    target, else 0."""

    name = "subset_sum"
    category = "np_complete"

    brick_io = ("list[int]", "int")
    brick_text = "Count the subsets of the numbers (by position) whose sum is exactly 20 (no output for a negative number)."

    def brick_input(self, rng, difficulty):
        return ints_of(rng, self.size(difficulty), 1, 12)

    def brick_apply(self, xs, counter):
        if min(xs, default=0) < 0:
            return None
        counter.tick(21 * len(xs))
        ways = [1] + [0] * 20
        for v in xs:
            for s in range(20, v - 1, -1):
                ways[s] += ways[s - v]
        return ways[20]

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        nums = [rng.randint(1, 10 * n) for _ in range(n)]
        chosen = sorted(rng.sample(range(n), rng.randint(2, n - 1)))
        return {"numbers": nums, "target": sum(nums[i] for i in chosen)}, " ".join(map(str, chosen))

    def prompt(self, problem):
        nums = problem["numbers"]
        return ask(f"Numbers (indices 0 to {len(nums) - 1}): " + " ".join(map(str, nums)) +
                   f"\n\nChoose some of them (each at most once) that add up to exactly {problem['target']}.",
                   "Give the indices of the chosen numbers separated by spaces, e.g. <answer>0 2 5</answer>.")

    def reward(self, problem, answer):
        nums = problem["numbers"]
        chosen = index_set(answer, len(nums))
        if chosen is None:
            return -0.5
        return 1.0 if sum(nums[i] for i in chosen) == problem["target"] else 0.0


class Partition(GymEnv):
    """Equal-sum partition with a planted split (NP-complete). d: n = d + 6 numbers; one side's
    numbers are random, the other side's a random composition of the same sum. Answer: the
    indices of one side. Reward as subset sum with target = total / 2."""

    name = "partition"
    category = "np_complete"

    brick_io = ("list[int]", "bool")
    brick_text = "Can the numbers be split into two groups with equal sums?"

    def brick_input(self, rng, difficulty):
        return ints_of(rng, self.size(difficulty), 1, 20)

    def brick_apply(self, xs, counter):
        total = sum(xs)
        if min(xs, default=0) < 0 or total % 2:
            counter.tick()
            return False
        counter.tick(len(xs) * (total // 64 + 1))  # one shift-or of a total-bit set per number, 64 bits a step
        sums = 1
        for v in xs:
            sums |= sums << v
        return bool(sums >> (total // 2) & 1)

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = rng.randint(2, n - 2)
        left = [rng.randint(1, 5 * n) for _ in range(k)]
        total = sum(left)
        if total < n - k:
            raise Retry
        cuts = sorted(rng.sample(range(1, total), n - k - 1))
        right = [b - a for a, b in zip([0] + cuts, cuts + [total])]
        order = rng.sample(range(n), n)
        nums = [(left + right)[i] for i in order]
        return {"numbers": nums}, " ".join(str(j) for j, i in enumerate(order) if i < k)

    def prompt(self, problem):
        nums = problem["numbers"]
        return ask(f"Numbers (indices 0 to {len(nums) - 1}): " + " ".join(map(str, nums)) +
                   "\n\nSplit them into two groups with equal sums.",
                   "Give the indices of one group separated by spaces, e.g. <answer>0 2 5</answer>.")

    def reward(self, problem, answer):
        nums = problem["numbers"]
        chosen = index_set(answer, len(nums))
        if chosen is None:
            return -0.5
        return 1.0 if 2 * sum(nums[i] for i in chosen) == sum(nums) else 0.0


class ExactCover(GymEnv):
    """Exact cover with a planted solution (NP-complete). d: universe 1..2d+8, cut into planted
    blocks of 2-4 elements, plus as many random decoy sets of 2-4 elements. Reward: -1
    unparsable, -0.5 bad indices, 1 if every element is covered exactly once, else 0."""

    name = "exact_cover"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        u = self.size(difficulty)
        elems = rng.sample(range(1, u + 1), u)
        blocks, i = [], 0
        while i < u:
            k = min(rng.randint(2, 4), u - i)
            if k < 2:  # a lone last element joins the previous block
                blocks[-1].append(elems[i])
                break
            blocks.append(elems[i:i + k])
            i += k
        sets = [sorted(b) for b in blocks] + [sorted(rng.sample(range(1, u + 1), rng.randint(2, 4))) for _ in blocks]
        order = rng.sample(range(len(sets)), len(sets))
        return ({"universe": u, "sets": [sets[i] for i in order]},
                " ".join(str(j) for j, i in enumerate(order) if i < len(blocks)))

    def prompt(self, problem):
        sets = "\n".join(f"{i}: " + " ".join(map(str, s)) for i, s in enumerate(problem["sets"]))
        return ask(f"Sets:\n{sets}\n\nChoose some of these sets so that every number from 1 to {problem['universe']} "
                   "is in exactly one chosen set.", SET_FORMAT)

    def reward(self, problem, answer):
        sets = problem["sets"]
        chosen = index_set(answer, len(sets))
        if chosen is None:
            return -0.5
        covered = sorted(x for i in chosen for x in sets[i])
        return 1.0 if covered == list(range(1, problem["universe"] + 1)) else 0.0


class SetCover(GymEnv):
    """Set cover with a planted cover (NP-complete). d: universe 1..2d+8; k = d // 3 + 2 planted
    sets partition it, padded with a few extra elements, plus 2k decoys of similar size.
    Reward: -1 unparsable, -0.5 bad indices, 0 if some element is uncovered, else
    (k / sets used)^5 (at most k sets: 1)."""

    name = "set_cover"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        u, k = self.size(difficulty), difficulty // 3 + 2
        elems = rng.sample(range(1, u + 1), u)
        planted = [set(elems[i::k]) for i in range(k)]
        for s in planted:
            s.update(rng.sample(range(1, u + 1), 2))
        decoys = [set(rng.sample(range(1, u + 1), max(2, len(planted[0]) - 1))) for _ in range(2 * k)]
        sets = [sorted(s) for s in planted + decoys]
        order = rng.sample(range(len(sets)), len(sets))
        return ({"universe": u, "k": k, "sets": [sets[i] for i in order]},
                " ".join(str(j) for j, i in enumerate(order) if i < k))

    def prompt(self, problem):
        sets = "\n".join(f"{i}: " + " ".join(map(str, s)) for i, s in enumerate(problem["sets"]))
        return ask(f"Sets:\n{sets}\n\nChoose at most {problem['k']} of these sets whose union contains every number from "
                   f"1 to {problem['universe']}.", SET_FORMAT)

    def reward(self, problem, answer):
        sets = problem["sets"]
        chosen = index_set(answer, len(sets))
        if chosen is None:
            return -0.5
        if set().union(*(sets[i] for i in chosen)) != set(range(1, problem["universe"] + 1)):
            return 0.0
        return min(1.0, problem["k"] / len(chosen)) ** 5


def _adjacency(g: dict) -> list[set[int]]:
    adj: list[set[int]] = [set() for _ in range(g["n"])]
    for u, v in g["edges"]:
        adj[u].add(v)
        adj[v].add(u)
    return adj


def max_independent(adj: list[set[int]], alive: frozenset, counter) -> int:
    """Largest independent set within `alive`: branch on a vertex of highest degree (leave it out,
    or take it and drop its neighbours); counter.tick per branch."""
    counter.tick()
    if not alive:
        return 0
    v = max(alive, key=lambda u: (len(adj[u] & alive), -u))
    if not adj[v] & alive:
        return len(alive)
    return max(max_independent(adj, alive - {v}, counter), 1 + max_independent(adj, alive - adj[v] - {v}, counter))


def chromatic_number(adj: list[set[int]], counter) -> int:
    """Fewest colours, trying k = 1, 2, ... by backtracking (highest degree first); tick per trial."""
    n = len(adj)
    order = sorted(range(n), key=lambda u: (-len(adj[u]), u))
    for k in range(1, n + 1):
        colour: dict[int, int] = {}

        def assign(i: int) -> bool:
            if i == n:
                return True
            for c in range(min(k, i + 1)):  # vertex i of the order never needs a colour above i
                counter.tick()
                if all(colour.get(v) != c for v in adj[order[i]]):
                    colour[order[i]] = c
                    if assign(i + 1):
                        return True
                    del colour[order[i]]
            return False
        if assign(0):
            return k
    return n


def min_dominating(adj: list[set[int]], counter) -> int:
    """Fewest vertices dominating all: branch over the closed neighbourhood of the smallest
    undominated vertex, with the best size so far as a bound; tick per branch."""
    n, best = len(adj), [len(adj)]

    def grow(size: int, dominated: frozenset) -> None:
        counter.tick()
        if size >= best[0]:
            return
        v = next((u for u in range(n) if u not in dominated), None)
        if v is None:
            best[0] = size
            return
        for u in sorted(adj[v] | {v}):
            grow(size + 1, dominated | adj[u] | {u})
    grow(0, frozenset())
    return best[0]


class GraphColoring(GymEnv):
    """Graph 3-colouring with a planted colouring (NP-complete). d: n = d + 5 vertices, 2n edges
    between differently coloured vertices. Answer: a colour 0-2 per vertex. Reward: -1
    unparsable, -0.5 wrong length or colour, else (properly coloured edges / edges)^10 (a random
    colouring gets about (2/3)^10 = 0.02)."""

    name = "graph_coloring"
    category = "np_complete"

    brick_io = ("graph", "int")
    brick_text = "The chromatic number: the fewest colours that give joined nodes different colours."

    def brick_input(self, rng, difficulty):
        return graph_of(rng, difficulty + 5, True, difficulty + 5)

    def brick_apply(self, g, counter):
        return chromatic_number(_adjacency(g), counter)

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        colour = [rng.randrange(3) for _ in range(n)]
        edges: set[tuple[int, int]] = set()
        for _ in range(50 * n):
            if len(edges) == 2 * n:
                break
            u, v = sorted(rng.sample(range(n), 2))
            if colour[u] != colour[v]:
                edges.add((u, v))
        if not edges:
            raise Retry
        edges_list = sorted(edges)
        rng.shuffle(edges_list)
        return {"n": n, "edges": edges_list}, " ".join(map(str, colour))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\nColour every vertex with one of the colours 0, 1, 2 so that the "
                   "two ends of every edge have different colours.",
                   f"Give {n} colours separated by spaces, for vertices 0 to {n - 1}.")

    def reward(self, problem, answer):
        colour = int_list(answer)
        if len(colour) != problem["n"] or any(c not in (0, 1, 2) for c in colour):
            return -0.5
        edges = problem["edges"]
        return (sum(colour[u] != colour[v] for u, v in edges) / len(edges)) ** 10


class _PlantedVertexSet(GymEnv):
    """A vertex-set answer checked by `valid` and graded against the planted size k."""

    category = "np_complete"
    maximise = True

    def size(self, difficulty):
        return 2 * difficulty + 8

    def valid(self, problem: dict, chosen: set[int]) -> bool:
        raise NotImplementedError

    def reward(self, problem, answer):
        chosen = index_set(answer, problem["n"])
        if chosen is None:
            return -0.5
        if not self.valid(problem, set(chosen)):
            return 0.0
        k, got = problem["k"], len(chosen)
        return min(1.0, got / k if self.maximise else k / got) ** 5

    def graph_prompt(self, problem: dict, task: str) -> str:
        n = problem["n"]
        return ask(f"An undirected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\n{task}", VERTEX_FORMAT)


def _shuffled(rng, edges) -> list[tuple[int, int]]:
    edges = sorted({tuple(sorted(e)) for e in edges})
    rng.shuffle(edges)
    return edges


class MaxClique(_PlantedVertexSet):
    """Maximum clique with a planted clique (NP-complete). d: n = 2d + 8 vertices, G(n, 0.3)
    plus a clique on k = n // 3 + 1 vertices. Reward: -1 unparsable, -0.5 bad indices, 0 if not
    a clique, else min(1, size / k)^5."""

    name = "max_clique"

    brick_io = ("graph", "int")
    brick_text = "The largest number of nodes all joined to each other."

    def brick_input(self, rng, difficulty):
        return graph_of(rng, difficulty + 5, True, 2 * difficulty + 8)

    def brick_apply(self, g, counter):
        n, adj = g["n"], _adjacency(g)
        counter.tick(n * n)  # the complement: a clique is an independent set there
        return max_independent([set(range(n)) - adj[u] - {u} for u in range(n)], frozenset(range(n)), counter)

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = n // 3 + 1
        clique = sorted(rng.sample(range(n), k))
        edges = [(u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < 0.3]
        edges += [(u, v) for i, u in enumerate(clique) for v in clique[i + 1:]]
        return {"n": n, "k": k, "edges": _shuffled(rng, edges)}, " ".join(map(str, clique))

    def prompt(self, problem):
        return self.graph_prompt(problem, "Find a largest clique: a set of vertices every two of which are joined by an edge.")

    def valid(self, problem, chosen):
        edges = set(map(tuple, problem["edges"]))
        c = sorted(chosen)
        return all((u, v) in edges for i, u in enumerate(c) for v in c[i + 1:])


class IndependentSet(_PlantedVertexSet):
    """Maximum independent set with a planted one (NP-complete). d: n = 2d + 8 vertices, edges
    with probability 0.4 except inside a planted independent set of k = n // 3 + 1 vertices.
    Reward: -1 unparsable, -0.5 bad indices, 0 if two chosen vertices are adjacent, else
    min(1, size / k)^5."""

    name = "independent_set"

    brick_io = ("graph", "int")
    brick_text = "The largest number of nodes no two of which are joined."

    def brick_input(self, rng, difficulty):
        return graph_of(rng, difficulty + 5, True, difficulty + 5)

    def brick_apply(self, g, counter):
        return max_independent(_adjacency(g), frozenset(range(g["n"])), counter)

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = n // 3 + 1
        indep = sorted(rng.sample(range(n), k))
        inside = set(indep)
        edges = [(u, v) for u in range(n) for v in range(u + 1, n)
                 if not (u in inside and v in inside) and rng.random() < 0.4]
        return {"n": n, "k": k, "edges": _shuffled(rng, edges)}, " ".join(map(str, indep))

    def prompt(self, problem):
        return self.graph_prompt(problem, "Find a largest independent set: a set of vertices no two of which are joined "
                                          "by an edge.")

    def valid(self, problem, chosen):
        return not any(u in chosen and v in chosen for u, v in problem["edges"])


class VertexCover(_PlantedVertexSet):
    """Minimum vertex cover with a planted cover (NP-complete). d: n = 2d + 8 vertices, 2n edges,
    each with an end in a planted cover of k = n // 3 vertices (fewer edges if that many do not exist). Reward: -1 unparsable, -0.5 bad
    indices, 0 if some edge is uncovered, else min(1, k / size)^5."""

    name = "vertex_cover"
    maximise = False

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = n // 3
        cover = sorted(rng.sample(range(n), k))
        edges = {tuple(sorted((u, rng.choice([v for v in range(n) if v != u])))) for u in cover}  # every cover vertex used
        target = min(2 * n, k * (n - k) + k * (k - 1) // 2)  # no more edges exist that touch the cover
        while len(edges) < target:
            u = rng.choice(cover)
            v = rng.choice([v for v in range(n) if v != u])
            edges.add(tuple(sorted((u, v))))
        return {"n": n, "k": k, "edges": _shuffled(rng, edges)}, " ".join(map(str, cover))

    def prompt(self, problem):
        return self.graph_prompt(problem, "Find a smallest vertex cover: a set of vertices that includes at least one end "
                                          "of every edge.")

    def valid(self, problem, chosen):
        return all(u in chosen or v in chosen for u, v in problem["edges"])


class DominatingSet(_PlantedVertexSet):
    """Minimum dominating set with a planted one (NP-complete). d: n = 2d + 8 vertices; every
    vertex outside a planted set of k = n // 4 + 1 gets an edge to it, plus n // 2 random extra
    edges. Reward: -1 unparsable, -0.5 bad indices, 0 if some vertex is neither chosen nor
    adjacent to a chosen one, else min(1, k / size)^5."""

    name = "dominating_set"

    brick_io = ("graph", "int")
    brick_text = "The fewest nodes such that every node is one of them or joined to one of them."

    def brick_input(self, rng, difficulty):
        return graph_of(rng, difficulty + 5, True, difficulty + 2)

    def brick_apply(self, g, counter):
        return min_dominating(_adjacency(g), counter)
    maximise = False

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = n // 4 + 1
        dom = sorted(rng.sample(range(n), k))
        edges = [(v, rng.choice(dom)) for v in range(n) if v not in dom]
        edges += _random_pairs(rng, n, n // 2, directed=False, avoid=[tuple(sorted(e)) for e in edges])
        return {"n": n, "k": k, "edges": _shuffled(rng, edges)}, " ".join(map(str, dom))

    def prompt(self, problem):
        return self.graph_prompt(problem, "Find a smallest dominating set: a set of vertices such that every vertex is in "
                                          "the set or joined by an edge to a vertex in it.")

    def valid(self, problem, chosen):
        seen = set(chosen)
        for u, v in problem["edges"]:
            if u in chosen:
                seen.add(v)
            if v in chosen:
                seen.add(u)
        return len(seen) == problem["n"]


class HamiltonianCycle(GymEnv):
    """Hamiltonian cycle in an undirected graph with a planted cycle (NP-complete). d: n = d + 4
    vertices, the planted cycle plus n random extra edges. Answer: the vertices in cycle order.
    Reward: -1 unparsable, -0.5 not a permutation of all vertices, else (x / n)^5 with x the
    consecutive pairs, including last-first, that are edges."""

    name = "hamiltonian_cycle"
    category = "np_complete"

    brick_io = ("graph", "bool")
    brick_text = "Is there a cycle through every node exactly once?"

    def brick_input(self, rng, difficulty):
        return graph_of(rng, difficulty + 5, True, difficulty + 5)

    def brick_apply(self, g, counter):
        n, adj = g["n"], _adjacency(g)

        def extend(path: list[int]) -> bool:
            counter.tick()
            if len(path) == n:
                return path[0] in adj[path[-1]]
            return any(extend(path + [v]) for v in sorted(adj[path[-1]]) if v not in path)
        return n >= 3 and extend([0])

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        cyc = rng.sample(range(n), n)
        planted = [tuple(sorted((cyc[i], cyc[(i + 1) % n]))) for i in range(n)]
        edges = _shuffled(rng, planted + _random_pairs(rng, n, n, directed=False, avoid=planted))
        return {"n": n, "edges": edges}, " ".join(map(str, cyc))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"An undirected graph has {n} vertices numbered 0 to {n - 1} and these edges:\n"
                   f"{_edge_lines(problem['edges'])}\n\nFind a cycle that visits every vertex exactly once.",
                   "Give the vertices in cycle order separated by spaces (the last one connects back to the first), "
                   "e.g. <answer>0 2 1 3</answer>.")

    def reward(self, problem, answer):
        order, n = int_list(answer), problem["n"]
        edges = {(u, v) for u, v in problem["edges"]} | {(v, u) for u, v in problem["edges"]}
        if sorted(order) != list(range(n)):
            return -0.5
        return (sum((order[i], order[(i + 1) % n]) in edges for i in range(n)) / n) ** 5
