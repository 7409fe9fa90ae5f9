"""Optimisation with graded rewards against the optimum: knapsack, assignment, interval
scheduling, bin packing, makespan scheduling, matrix-chain order, tree independent sets.

The optimum comes from an exact polynomial algorithm (DP, Hungarian) or is planted with a
matching lower bound (bin packing, makespan: the items fill the bins exactly), never from
search. A feasible answer scores (its value / optimum)^5 for maximisation and
(optimum / its cost)^5 for minimisation; -0.5 for an answer that does not describe a
candidate at all (bad indices, wrong length), 0 for an infeasible one, -1 unparsable.
"""
from __future__ import annotations

from envs.gym.base import GymEnv, ask, index_set, int_list
from envs.compose.samplers import ints_of, matrix_of, sample_intervals, tree_of

INDEX_FORMAT = "Give the chosen indices (from 0) separated by spaces, e.g. <answer>0 2 5</answer>."


def _items_text(rows: list[tuple], header: str) -> str:
    return header + "\n" + "\n".join(f"{i}: " + " ".join(map(str, r)) for i, r in enumerate(rows))


class Knapsack(GymEnv):
    """0/1 knapsack (optimisation). d: n = d + 4 items, weights 1..20, values 1..30, capacity
    about half the total weight; optimum by DP over capacity."""

    name = "knapsack"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        items = [(rng.randint(1, 20), rng.randint(1, 30)) for _ in range(n)]
        cap = sum(w for w, _ in items) // 2
        best = [(0, ())] * (cap + 1)  # best[c] = (value, chosen) within capacity c
        for i, (w, v) in enumerate(items):
            for c in range(cap, w - 1, -1):
                cand = best[c - w][0] + v
                if cand > best[c][0]:
                    best[c] = (cand, best[c - w][1] + (i,))
        value, chosen = best[cap]
        return {"items": items, "capacity": cap, "optimum": value}, " ".join(map(str, chosen))

    def prompt(self, problem):
        return ask(_items_text(problem["items"], "Items (index: weight value):") +
                   f"\n\nChoose items with total weight at most {problem['capacity']} and the largest total value "
                   "(each item at most once).", INDEX_FORMAT)

    def reward(self, problem, answer):
        items = problem["items"]
        chosen = index_set(answer, len(items))
        if chosen is None:
            return -0.5
        if sum(items[i][0] for i in chosen) > problem["capacity"]:
            return 0.0
        return (sum(items[i][1] for i in chosen) / problem["optimum"]) ** 5


def hungarian(cost: list[list[int]]) -> list[int]:
    """Minimum-cost perfect assignment, O(n^3) (row i -> column result[i])."""
    n, inf = len(cost), float("inf")
    u, v, p, way = [0] * (n + 1), [0] * (n + 1), [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        p[0], j0 = i, 0
        minv, used = [inf] * (n + 1), [False] * (n + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], inf, 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0], j0 = p[j1], j1
    result = [0] * n
    for j in range(1, n + 1):
        result[p[j] - 1] = j - 1
    return result


class Assignment(GymEnv):
    """Assignment problem (optimisation). d: n = d + 3 workers and jobs, costs 1..50; optimum by
    the Hungarian algorithm. Answer: each worker's job."""

    name = "assignment"
    category = "optimization"

    brick_io = ("matrix", "int")
    brick_text = "The smallest total of n entries taken one from each row and each column (the assignment problem)."

    def brick_input(self, rng, difficulty):
        return matrix_of(rng, self.size(difficulty), 9)

    def brick_apply(self, m, counter):
        counter.tick(len(m) ** 3)
        return sum(m[i][j] for i, j in enumerate(hungarian(m)))

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        cost = [[rng.randint(1, 50) for _ in range(n)] for _ in range(n)]
        best = hungarian(cost)
        return {"cost": cost, "optimum": sum(cost[i][j] for i, j in enumerate(best))}, " ".join(map(str, best))

    def prompt(self, problem):
        n = len(problem["cost"])
        rows = "\n".join(f"worker {i}: " + " ".join(map(str, r)) for i, r in enumerate(problem["cost"]))
        return ask(f"Cost of worker i doing job j (jobs 0 to {n - 1} left to right):\n{rows}\n\nAssign each worker a "
                   "different job so that the total cost is as small as possible.",
                   f"Give {n} integers separated by spaces: the job of workers 0 to {n - 1}.")

    def reward(self, problem, answer):
        cost, jobs = problem["cost"], int_list(answer)
        if sorted(jobs) != list(range(len(cost))):
            return -0.5
        return (problem["optimum"] / sum(cost[i][j] for i, j in enumerate(jobs))) ** 5


class WeightedIntervalScheduling(GymEnv):
    """Weighted interval scheduling (optimisation). d: n = d + 5 intervals in [0, 4n], weights
    1..20; optimum by DP over end times. Intervals that share only an endpoint do not overlap."""

    name = "weighted_interval_scheduling"
    category = "optimization"

    brick_io = ("list[interval]", "int")
    brick_text = ("Choose intervals no two of which share a point so that their total length (e - s + 1 each) is as "
                  "large as possible; that total.")

    def brick_input(self, rng, difficulty):
        return [iv for _ in range(difficulty // 3 + 1) for iv in sample_intervals(rng)]

    def brick_apply(self, ivs, counter):
        order = sorted(ivs, key=lambda iv: iv[1])
        counter.tick(len(order) ** 2)
        best = [0]  # best[k]: optimum over the first k intervals by end
        for k, (s, e) in enumerate(order):
            j = max((m + 1 for m in range(k) if order[m][1] < s), default=0)
            best.append(max(best[k], best[j] + e - s + 1))
        return best[-1]

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        iv = []
        for _ in range(n):
            s = rng.randint(0, 4 * n - 1)
            iv.append((s, rng.randint(s + 1, min(4 * n, s + 2 * n)), rng.randint(1, 20)))
        order = sorted(range(n), key=lambda i: iv[i][1])
        best = [(0, ())]  # best[k] = optimum over the first k intervals by end time
        for k, i in enumerate(order):
            s = iv[i][0]
            j = max((m + 1 for m in range(k) if iv[order[m]][1] <= s), default=0)
            take = (best[j][0] + iv[i][2], best[j][1] + (i,))
            best.append(max(best[k], take))
        value, chosen = best[-1]
        return {"intervals": iv, "optimum": value}, " ".join(map(str, sorted(chosen)))

    def prompt(self, problem):
        return ask(_items_text(problem["intervals"], "Intervals (index: start end weight):") +
                   "\n\nChoose pairwise non-overlapping intervals (touching endpoints are fine) with the largest total "
                   "weight.", INDEX_FORMAT)

    def reward(self, problem, answer):
        iv = problem["intervals"]
        chosen = index_set(answer, len(iv))
        if chosen is None:
            return -0.5
        spans = sorted((iv[i][0], iv[i][1]) for i in chosen)
        if any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
            return 0.0
        return (sum(iv[i][2] for i in chosen) / problem["optimum"]) ** 5


def _split(rng, total: int, parts: int) -> list[int]:
    """`total` as `parts` positive integers (a random composition)."""
    cuts = sorted(rng.sample(range(1, total), parts - 1))
    return [b - a for a, b in zip([0] + cuts, cuts + [total])]


def _planted_groups(rng, groups: int, total: int, min_parts: int, max_parts: int) -> tuple[list[int], list[int]]:
    """Item sizes and their planted group labels, shuffled: each of `groups` groups sums to exactly
    `total`, so `groups` containers of that capacity are optimal (bin packing, scheduling)."""
    items, labels = [], []
    for g in range(groups):
        for size in _split(rng, total, rng.randint(min_parts, max_parts)):
            items.append(size)
            labels.append(g)
    order = rng.sample(range(len(items)), len(items))
    return [items[i] for i in order], [labels[i] for i in order]


def min_groups(items: list[int], cap: int, bound: int, counter) -> int:
    """Fewest bins of capacity cap for items (largest first), by branch and bound; counter.tick per node."""
    best = [bound]

    def place(i, loads):
        counter.tick()
        if len(loads) >= best[0]:
            return
        if i == len(items):
            best[0] = len(loads)
            return
        for k, load in enumerate(loads):
            if load + items[i] <= cap and load not in loads[:k]:
                place(i + 1, loads[:k] + (load + items[i],) + loads[k + 1:])
        place(i + 1, loads + (items[i],))
    place(0, ())
    return best[0]


class BinPacking(GymEnv):
    """Bin packing (optimisation). d: k = d // 2 + 2 bins of capacity C in [10, 30] are cut into
    2-4 items each, so the items fill exactly k bins and k = total / C is optimal. Answer: a bin
    label per item. Reward: (k / bins used)^5 if no bin overflows."""

    name = "bin_packing"
    category = "optimization"

    brick_io = ("list[int]", "int")
    brick_text = "The fewest bins of capacity 20 that hold all the numbers (no output unless each is between 1 and 20)."

    def brick_input(self, rng, difficulty):
        return ints_of(rng, 2 * self.size(difficulty) + 2, 1, 12)

    def brick_apply(self, xs, counter):
        if any(not 1 <= v <= 20 for v in xs):
            return None
        return min_groups(sorted(xs, reverse=True), 20, len(xs), counter)

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        k, cap = self.size(difficulty), rng.randint(10, 30)
        items, labels = _planted_groups(rng, k, cap, 2, 4)
        return {"items": items, "capacity": cap, "optimum": k}, " ".join(map(str, labels))

    def prompt(self, problem):
        n = len(problem["items"])
        return ask(f"Item sizes (items 0 to {n - 1}): " + " ".join(map(str, problem["items"])) +
                   f"\n\nPack all items into as few bins of capacity {problem['capacity']} as possible.",
                   f"Give {n} integers separated by spaces: a bin label for each item (items with the same label "
                   "share a bin), e.g. <answer>0 1 0 2</answer>.")

    def reward(self, problem, answer):
        items, labels = problem["items"], int_list(answer)
        if len(labels) != len(items):
            return -0.5
        load: dict[int, int] = {}
        for s, b in zip(items, labels):
            load[b] = load.get(b, 0) + s
        if max(load.values()) > problem["capacity"]:
            return 0.0
        return (problem["optimum"] / len(load)) ** 5


class MultiprocessorScheduling(GymEnv):
    """Makespan minimisation on identical machines (optimisation). d: m = d // 3 + 2 machines,
    each given a planted load T in [15, 40] cut into 2-5 jobs, so T = total / m is optimal.
    Answer: a machine per job. Reward: (T / makespan)^5."""

    name = "multiprocessor_scheduling"
    category = "optimization"

    brick_io = ("list[int]", "int")
    brick_text = ("Split the numbers (job lengths) among 3 machines so that the largest machine total is as small as "
                  "possible; that total (no output for a negative number).")

    def brick_input(self, rng, difficulty):
        return ints_of(rng, self.size(difficulty) + 4, 1, 15)

    def brick_apply(self, xs, counter):
        if min(xs, default=0) < 0:
            return None
        jobs, best = sorted(xs, reverse=True), [sum(xs)]

        def place(i, loads):  # branch and bound; machines with equal loads are tried once
            counter.tick()
            if max(loads) >= best[0]:
                return
            if i == len(jobs):
                best[0] = max(loads)
                return
            tried = set()
            for k in sorted(range(3), key=loads.__getitem__):
                if loads[k] not in tried:
                    tried.add(loads[k])
                    place(i + 1, loads[:k] + (loads[k] + jobs[i],) + loads[k + 1:])
        place(0, (0, 0, 0))
        return best[0]

    def size(self, difficulty):
        return difficulty // 3 + 2

    def build(self, rng, difficulty):
        m, t = self.size(difficulty), rng.randint(15, 40)
        jobs, machine = _planted_groups(rng, m, t, 2, 5)
        return {"jobs": jobs, "machines": m, "optimum": t}, " ".join(map(str, machine))

    def prompt(self, problem):
        n, m = len(problem["jobs"]), problem["machines"]
        return ask(f"Job durations (jobs 0 to {n - 1}): " + " ".join(map(str, problem["jobs"])) +
                   f"\n\nAssign every job to one of {m} identical machines (0 to {m - 1}) so that the largest total "
                   "duration on any machine is as small as possible.",
                   f"Give {n} integers separated by spaces: the machine of each job.")

    def reward(self, problem, answer):
        jobs, m, machine = problem["jobs"], problem["machines"], int_list(answer)
        if len(machine) != len(jobs) or any(not 0 <= k < m for k in machine):
            return -0.5
        load = [0] * m
        for s, k in zip(jobs, machine):
            load[k] += s
        return (problem["optimum"] / max(load)) ** 5


class MatrixChainMultiplication(GymEnv):
    """Matrix-chain order (optimisation). d: n = d + 3 matrices with dimensions 2..30; optimum by
    interval DP. Answer: a full parenthesisation such as ((A1 A2) A3). Reward: -1 unparsable,
    -0.5 not a full parenthesisation of A1..An in order, else (optimal cost / its cost)^5."""

    name = "matrix_chain_multiplication"
    category = "optimization"

    brick_io = ("list[int]", "int")
    brick_text = ("Read the numbers as matrix dimensions d0, d1, ..., dk (matrix i is d(i-1) x d(i)); the fewest scalar "
                  "multiplications to multiply the chain (no output for fewer than 3 numbers or one below 1).")

    def brick_input(self, rng, difficulty):
        return ints_of(rng, self.size(difficulty) + 1, 1, 6)

    def brick_apply(self, dims, counter):
        n = len(dims) - 1
        if n < 2 or min(dims) < 1:
            return None
        counter.tick(n ** 3 // 6 + n)
        cost = [[0] * n for _ in range(n)]
        for length in range(2, n + 1):
            for i in range(n - length + 1):
                j = i + length - 1
                cost[i][j] = min(cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1] for k in range(i, j))
        return cost[0][n - 1]

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        dims = [rng.randint(2, 30) for _ in range(n + 1)]
        cost = [[0] * n for _ in range(n)]
        split = [[0] * n for _ in range(n)]
        for length in range(2, n + 1):
            for i in range(n - length + 1):
                j = i + length - 1
                cost[i][j], split[i][j] = min((cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                                              for k in range(i, j))

        def text(i: int, j: int) -> str:
            return f"A{i + 1}" if i == j else f"({text(i, split[i][j])} {text(split[i][j] + 1, j)})"

        return {"dims": dims, "optimum": cost[0][n - 1]}, text(0, n - 1)

    def prompt(self, problem):
        d = problem["dims"]
        mats = ", ".join(f"A{i + 1} is {d[i]}x{d[i + 1]}" for i in range(len(d) - 1))
        return ask(f"Matrices: {mats}. Multiplying a p x q matrix by a q x r matrix costs p*q*r scalar multiplications."
                   f"\n\nParenthesise the product A1 A2 ... A{len(d) - 1} to minimise the total cost.",
                   "Give a full parenthesisation with every product of two factors in parentheses, e.g. "
                   "<answer>((A1 A2) (A3 A4))</answer>.")

    def reward(self, problem, answer):
        dims = problem["dims"]
        stack: list = []
        i = 0
        while i < len(answer):  # shift-reduce over the tokens '(', ')' and 'A<k>'; '*' and spaces ignored
            ch = answer[i]
            if ch == "(":
                stack.append("(")
            elif ch == ")":
                if len(stack) < 3 or stack[-3] != "(" or "(" in stack[-2:]:
                    return -0.5
                (l1, r1, c1), (l2, r2, c2) = stack[-2], stack[-1]
                if r1 + 1 != l2:
                    return -0.5
                del stack[-3:]
                stack.append((l1, r2, c1 + c2 + dims[l1] * dims[r1 + 1] * dims[r2 + 1]))
            elif ch in "Aa":
                j = i + 1
                while j < len(answer) and answer[j] in "0123456789" and j - i < 8:  # not '١' (isdigit)
                    j += 1
                k = int(answer[i + 1:j]) if j > i + 1 else 0
                if not 1 <= k <= len(dims) - 1:
                    return -0.5
                stack.append((k - 1, k - 1, 0))
                i = j - 1
            elif not (ch.isspace() or ch in "*x·"):
                raise ValueError(f"unexpected character {ch!r}")
            i += 1
        if len(stack) != 1 or stack[0] == "(" or stack[0][:2] != (0, len(dims) - 2):
            return -0.5
        return (problem["optimum"] / stack[0][2]) ** 5 if stack[0][2] else 1.0


class TreeMaxWeightIndependentSet(GymEnv):
    """Maximum-weight independent set in a tree (optimisation, tree DP). d: n = d + 6 vertices,
    weights 1..20. Answer: the chosen vertices. Reward: 0 if two chosen vertices are adjacent,
    else (weight / optimum)^5."""

    name = "tree_max_weight_independent_set"
    category = "optimization"

    brick_io = ("tree", "int")
    brick_text = "Weight node i by i + 1; the largest total weight of nodes no two of which are joined."

    def brick_input(self, rng, difficulty):
        return tree_of(rng, self.size(difficulty))

    def brick_apply(self, t, counter):
        n = t["n"]
        counter.tick(3 * n)
        adj = [[] for _ in range(n)]
        for u, v in t["edges"]:
            adj[u].append(v)
            adj[v].append(u)
        order, parent = [0], [-1] * n
        for u in order:  # breadth-first from 0, then children before parents
            for v in adj[u]:
                if v != parent[u]:
                    parent[v] = u
                    order.append(v)
        take, skip = [u + 1 for u in range(n)], [0] * n
        for u in reversed(order[1:]):
            take[parent[u]] += skip[u]
            skip[parent[u]] += max(take[u], skip[u])
        return max(take[0], skip[0])

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        parent = [-1] + [rng.randrange(v) for v in range(1, n)]
        weights = [rng.randint(1, 20) for _ in range(n)]
        take, skip = weights[:], [0] * n
        for v in range(n - 1, 0, -1):  # children have larger labels than parents here
            take[parent[v]] += skip[v]
            skip[parent[v]] += max(take[v], skip[v])
        chosen, state = [], {0: take[0] >= skip[0]}
        for v in range(n):
            if v:
                state[v] = not state[parent[v]] and take[v] >= skip[v]
            if state[v]:
                chosen.append(v)
        perm = rng.sample(range(n), n)  # relabel so the tree's shape is not in its numbering
        edges = [(perm[v], perm[parent[v]]) for v in range(1, n)]
        rng.shuffle(edges)
        w = [0] * n
        for v in range(n):
            w[perm[v]] = weights[v]
        return ({"weights": w, "edges": edges, "optimum": max(take[0], skip[0])},
                " ".join(str(perm[v]) for v in sorted(chosen, key=perm.__getitem__)))

    def prompt(self, problem):
        w = problem["weights"]
        return ask(f"A tree has {len(w)} vertices (index: weight): " + ", ".join(f"{i}: {x}" for i, x in enumerate(w)) +
                   "\nEdges: " + ", ".join(f"{u}-{v}" for u, v in problem["edges"]) +
                   "\n\nChoose vertices, no two joined by an edge, with the largest total weight.", INDEX_FORMAT)

    def reward(self, problem, answer):
        w = problem["weights"]
        chosen = index_set(answer, len(w))
        if chosen is None:
            return -0.5
        s = set(chosen)
        if any(u in s and v in s for u, v in problem["edges"]):
            return 0.0
        return (sum(w[v] for v in chosen) / problem["optimum"]) ** 5
