"""Optimisation by dynamic programming and flows, graded against the optimum (RLVE line 53):
fewest coins, rod cutting, cheapest grid path, longest DAG path, minimum cut, balanced
partition, fractional knapsack, maximum-sum submatrix; and egg dropping (a competition DP).

The optimum comes from an exact polynomial algorithm (DP, max-flow = min-cut, the greedy for
the fractional knapsack). Answers are structures (coins, cuts, paths, groups), checked for
feasibility and scored (value / optimum)^5 or (optimum / cost)^5, exactly 1 only at the
optimum; -0.5 for an answer that does not describe a candidate, 0 for an infeasible one, -1
unparsable.
"""
from __future__ import annotations

from fractions import Fraction

from envs.gym.base import BELOW_ONE, INT_FORMAT, GymEnv, IntEnv, Retry, ask, index_set, int_list, ratio, to_fraction
from envs.gym.graphs import _edge_lines, _flow_network, _random_pairs, max_flow_cut


class MinCoinChange(GymEnv):
    """Pay an amount with the fewest coins (optimisation, DP over amounts). d: d // 2 + 3 coin
    values in [1, 5(d + 2)], amount in [10(d + 2), 20(d + 2)], payable. Answer: the coins used.
    Reward: -0.5 a value that is not a coin, 0 if they do not add up to the amount, else
    (fewest coins / coins used)^5."""

    name = "min_coin_change"
    category = "optimization"

    def size(self, difficulty):
        return 20 * (difficulty + 2)

    def build(self, rng, difficulty):
        coins = sorted(rng.sample(range(1, 5 * (difficulty + 2) + 1), difficulty // 2 + 3))
        amount = rng.randint(self.size(difficulty) // 2, self.size(difficulty))
        best, last = [0] + [None] * amount, [0] * (amount + 1)
        for a in range(1, amount + 1):
            for c in coins:
                if c <= a and best[a - c] is not None and (best[a] is None or best[a - c] + 1 < best[a]):
                    best[a], last[a] = best[a - c] + 1, c
        if best[amount] is None:
            raise Retry
        used, a = [], amount
        while a:
            used.append(last[a])
            a -= last[a]
        return {"coins": coins, "amount": amount, "optimum": best[amount]}, " ".join(map(str, sorted(used)))

    def prompt(self, problem):
        return ask(f"Coin values: {', '.join(map(str, problem['coins']))} (as many of each as you like). Pay exactly "
                   f"{problem['amount']} with as few coins as possible.",
                   "List the coins used (with repetition) separated by spaces, e.g. <answer>5 5 2</answer>.")

    def reward(self, problem, answer):
        used = int_list(answer)
        if not used or any(c not in problem["coins"] for c in used):
            return -0.5
        return ratio(problem["optimum"], len(used), 5) if sum(used) == problem["amount"] else 0.0


class RodCutting(GymEnv):
    """Cut a rod into pieces of the most total value (optimisation, unbounded knapsack DP).
    d: length n = d + 5, the price of a piece of length k = k * u + noise, u in [2, 5], noise in
    [-3, 5]. Answer: the piece lengths. Reward: -0.5 a length outside 1..n, 0 if they do not add
    up to n, else (value / optimum)^5."""

    name = "rod_cutting"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n, unit = self.size(difficulty), rng.randint(2, 5)
        prices = [max(1, k * unit + rng.randint(-3, 5)) for k in range(1, n + 1)]
        best, cut = [0] * (n + 1), [0] * (n + 1)
        for length in range(1, n + 1):
            best[length], cut[length] = max((prices[k - 1] + best[length - k], k) for k in range(1, length + 1))
        pieces, length = [], n
        while length:
            pieces.append(cut[length])
            length -= cut[length]
        return {"prices": prices, "optimum": best[n]}, " ".join(map(str, sorted(pieces)))

    def prompt(self, problem):
        p = problem["prices"]
        table = ", ".join(f"{k + 1}: {v}" for k, v in enumerate(p))
        return ask(f"A rod of length {len(p)} can be cut into pieces of whole lengths. A piece sells for (length: "
                   f"price) {table}. Cut it to make the total price as large as possible.",
                   "List the piece lengths separated by spaces, e.g. <answer>2 2 3</answer>.")

    def reward(self, problem, answer):
        pieces, p = int_list(answer), problem["prices"]
        if not pieces or any(not 1 <= k <= len(p) for k in pieces):
            return -0.5
        if sum(pieces) != len(p):
            return 0.0
        return ratio(sum(p[k - 1] for k in pieces), problem["optimum"], 5)


class MinPathSumGrid(GymEnv):
    """Cheapest path through a grid moving right or down (optimisation, DP). d: an n x n grid
    of costs 1..9, n = d // 2 + 3. Answer: the moves R/D. Reward: -1 unparsable, -0.5 unless
    it makes n - 1 moves of each kind, else (cheapest cost / its cost)^5 (the cost includes the
    first and the last cell)."""

    name = "min_path_sum_grid"
    category = "optimization"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        g = [[rng.randint(1, 9) for _ in range(n)] for _ in range(n)]
        best = [[0] * n for _ in range(n)]
        for r in range(n):
            for c in range(n):
                prev = [best[r - 1][c]] * (r > 0) + [best[r][c - 1]] * (c > 0)
                best[r][c] = g[r][c] + (min(prev) if prev else 0)
        moves, r, c = [], n - 1, n - 1
        while r or c:
            if r and (not c or best[r - 1][c] <= best[r][c - 1]):
                moves.append("D")
                r -= 1
            else:
                moves.append("R")
                c -= 1
        return {"grid": g, "optimum": best[-1][-1]}, "".join(reversed(moves))

    def prompt(self, problem):
        g = problem["grid"]
        rows = "\n".join(" ".join(map(str, r)) for r in g)
        return ask(f"A grid of costs:\n{rows}\n\nWalk from the top-left cell to the bottom-right cell, each move one "
                   "cell right (R) or down (D), so that the sum of the costs of the cells visited (both ends "
                   "included) is as small as possible.", "Give the moves as one string, e.g. <answer>RRDRDD</answer>.")

    def reward(self, problem, answer):
        moves = "".join(answer.split()).upper()
        if not moves or any(m not in "RD" for m in moves):
            raise ValueError("moves are R and D")
        g = problem["grid"]
        n = len(g)
        if moves.count("R") != n - 1 or moves.count("D") != n - 1:
            return -0.5
        r = c = 0
        cost = g[0][0]
        for m in moves:
            r, c = (r + 1, c) if m == "D" else (r, c + 1)
            cost += g[r][c]
        return ratio(problem["optimum"], cost, 5)


class LongestPathDag(GymEnv):
    """Heaviest path from 0 to n - 1 in a weighted DAG (optimisation, DP in topological order).
    d: n = d + 5 vertices (labels hide the order), a planted 0 -> n - 1 chain plus 2n forward
    edges, weights 1..9. Answer: the path's vertices. Reward: -1 unparsable, -0.5 not a 0 ->
    n - 1 path along edges, else (its weight / optimum)^5."""

    name = "longest_path_dag"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        order = [0] + rng.sample(range(1, n - 1), n - 2) + [n - 1]  # a topological order
        pos = {v: i for i, v in enumerate(order)}
        chain = sorted(rng.sample(range(1, n - 1), rng.randint(1, n - 2)), key=pos.__getitem__)
        walk = [0] + chain + [n - 1]
        pairs = list(zip(walk, walk[1:]))
        pairs += [(u, v) if pos[u] < pos[v] else (v, u)
                  for u, v in _random_pairs(rng, n, 2 * n, directed=False, avoid=[tuple(sorted(p)) for p in pairs])]
        edges = [(u, v, rng.randint(1, 9)) for u, v in pairs]
        rng.shuffle(edges)
        best = {0: (0, [0])}
        for v in order[1:]:
            cands = [(best[u][0] + w, best[u][1] + [v]) for u, x, w in edges if x == v and u in best]
            if cands:
                best[v] = max(cands)
        return {"n": n, "edges": edges, "optimum": best[n - 1][0]}, " ".join(map(str, best[n - 1][1]))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A directed acyclic graph has {n} vertices numbered 0 to {n - 1} and these weighted edges (u v w "
                   f"means an edge from u to v of weight w):\n{_edge_lines(problem['edges'], True)}\n\nFind a path from "
                   f"vertex 0 to vertex {n - 1} whose total weight is as large as possible.",
                   f"Give the vertices of the path in order, starting with 0 and ending with {n - 1}, separated by "
                   "spaces.")

    def reward(self, problem, answer):
        path, n = int_list(answer), problem["n"]
        w = {(u, v): c for u, v, c in problem["edges"]}
        if len(path) < 2 or path[0] != 0 or path[-1] != n - 1 or any(p not in w for p in zip(path, path[1:])):
            return -0.5
        return ratio(sum(w[p] for p in zip(path, path[1:])), problem["optimum"], 5)


class MinCut(GymEnv):
    """Minimum s-t cut of a flow network (optimisation; its capacity equals the maximum flow).
    d: n = d + 4 vertices, 2n directed edges with capacities 1..20 and a planted 0 -> n - 1
    path. Answer: the edges to remove. Reward: -1 unparsable, -0.5 an odd count or a pair that
    is not an edge, 0 if n - 1 is still reachable from 0, else (minimum capacity / removed
    capacity)^5."""

    name = "min_cut"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = _flow_network(rng, n)
        value, side = max_flow_cut(n, edges, 0, n - 1)
        cut = sorted({(u, v) for u, v, _ in edges if u in side and v not in side})
        return {"n": n, "edges": edges, "optimum": value}, _edge_lines(cut)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A network has {n} vertices numbered 0 to {n - 1} and these directed edges with capacities (u v "
                   f"c):\n{_edge_lines(problem['edges'], True)}\n\nRemove edges of the smallest possible total "
                   f"capacity so that no directed path leads from vertex 0 to vertex {n - 1}.",
                   "Give the removed edges as pairs \"u v\", one per line.")

    def reward(self, problem, answer):
        nums = int_list(answer)
        cap: dict[tuple[int, int], int] = {}
        for u, v, c in problem["edges"]:
            cap[(u, v)] = cap.get((u, v), 0) + c
        cut = set(zip(nums[::2], nums[1::2]))
        if len(nums) % 2 or any(e not in cap for e in cut):
            return -0.5
        n = problem["n"]
        adj: dict[int, list[int]] = {}
        for u, v in cap:
            if (u, v) not in cut:
                adj.setdefault(u, []).append(v)
        seen, stack = {0}, [0]
        while stack:
            for v in adj.get(stack.pop(), ()):
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        if n - 1 in seen:
            return 0.0
        return ratio(problem["optimum"], sum(cap[e] for e in cut), 5)


class BalancedPartition(GymEnv):
    """Split numbers into two groups with sums as close as possible (optimisation, subset-sum DP
    on a bitset). d: n = d + 6 numbers in [1, 10(d + 2)]. Answer: the indices of one group.
    Reward: -0.5 bad or repeated indices, else ((best difference + 1) / (its difference + 1))^5."""

    name = "balanced_partition"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        nums = [rng.randint(1, 10 * (difficulty + 2)) for _ in range(self.size(difficulty))]
        total, reach = sum(nums), 1
        for x in nums:
            reach |= reach << x
        half = max(s for s in range(total // 2 + 1) if reach >> s & 1)
        chosen, need = [], half  # recover one subset of sum `half`, greedily over prefix reachability
        prefix = [1]
        for x in nums:
            prefix.append(prefix[-1] | prefix[-1] << x)
        for i in range(len(nums) - 1, -1, -1):
            if not prefix[i] >> need & 1:
                chosen.append(i)
                need -= nums[i]
        return {"numbers": nums, "optimum": total - 2 * half}, " ".join(map(str, sorted(chosen)))

    def prompt(self, problem):
        nums = problem["numbers"]
        return ask(f"Numbers (indices 0 to {len(nums) - 1}): " + " ".join(map(str, nums)) + "\n\nSplit them into two "
                   "groups so that the difference between the two group sums is as small as possible.",
                   "Give the indices of one group separated by spaces, e.g. <answer>0 2 5</answer>.")

    def reward(self, problem, answer):
        nums = problem["numbers"]
        chosen = index_set(answer, len(nums))
        if chosen is None:
            return -0.5
        diff = abs(sum(nums) - 2 * sum(nums[i] for i in chosen))
        return ratio(problem["optimum"] + 1, diff + 1, 5)


class FractionalKnapsack(GymEnv):
    """Knapsack where items may be split (optimisation; taking items by value per weight is
    optimal). d: n = d + 4 items, weights 1..20, values 1..40, capacity about half the total
    weight. Answer: the fraction taken of each item (p/q, decimals or integers). Reward: -1
    unparsable, -0.5 wrong count or a fraction outside [0, 1], 0 over capacity, else (value /
    optimum)^5, computed exactly."""

    name = "fractional_knapsack"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        items = [(rng.randint(1, 20), rng.randint(1, 40)) for _ in range(self.size(difficulty))]
        cap = sum(w for w, _ in items) // 2
        take, room = [Fraction(0)] * len(items), Fraction(cap)
        for i in sorted(range(len(items)), key=lambda i: Fraction(items[i][1], items[i][0]), reverse=True):
            take[i] = min(Fraction(1), room / items[i][0])
            room -= take[i] * items[i][0]
        value = sum(t * v for t, (_, v) in zip(take, items))
        gold = " ".join(str(t.numerator) if t.denominator == 1 else f"{t.numerator}/{t.denominator}" for t in take)
        return {"items": items, "capacity": cap, "optimum": [value.numerator, value.denominator]}, gold

    def prompt(self, problem):
        items = problem["items"]
        text = "\n".join(f"{i}: {w} {v}" for i, (w, v) in enumerate(items))
        return ask(f"Items (index: weight value):\n{text}\n\nTake a fraction between 0 and 1 of each item (taking a "
                   f"fraction t gives t x its weight and t x its value) with total weight at most "
                   f"{problem['capacity']} and the largest total value.",
                   f"Give {len(items)} fractions for items 0 to {len(items) - 1}, separated by spaces, as p/q or "
                   "decimals, e.g. <answer>1 0 1/3 0.5</answer>.")

    def reward(self, problem, answer):
        items, toks = problem["items"], answer.replace(",", " ").split()
        take = [to_fraction(t) for t in toks]
        if len(take) != len(items):
            return -0.5
        if any(not 0 <= t <= 1 for t in take):
            return -0.5
        if sum(t * w for t, (w, _) in zip(take, items)) > problem["capacity"]:
            return 0.0
        value, best = sum(t * v for t, (_, v) in zip(take, items)), Fraction(*problem["optimum"])
        return 1.0 if value >= best else min(BELOW_ONE, float((value / best) ** 5))


class MaxSubmatrixSum(GymEnv):
    """Maximum-sum rectangle of a matrix (optimisation; Kadane over every pair of rows, O(n^3)).
    d: an n x n matrix with entries in [-20, 20], n = d // 3 + 3. Answer: r1 c1 r2 c2 (from 1,
    inclusive). Reward: -1 unparsable, -0.5 not a rectangle of the matrix, 1 if its sum is the
    maximum, else 0 (several rectangles may be optimal: all count)."""

    name = "max_submatrix_sum"
    category = "optimization"

    def size(self, difficulty):
        return difficulty // 3 + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        m = [[rng.randint(-20, 20) for _ in range(n)] for _ in range(n)]
        best, arg = m[0][0], (0, 0, 0, 0)
        for top in range(n):
            col = [0] * n
            for bottom in range(top, n):
                for c in range(n):
                    col[c] += m[bottom][c]
                cur, start = 0, 0
                for c in range(n):
                    if cur <= 0:
                        cur, start = col[c], c
                    else:
                        cur += col[c]
                    if cur > best:
                        best, arg = cur, (top, start, bottom, c)
        r1, c1, r2, c2 = arg
        return {"matrix": m, "best": best}, f"{r1 + 1} {c1 + 1} {r2 + 1} {c2 + 1}"

    def prompt(self, problem):
        rows = "\n".join(" ".join(map(str, r)) for r in problem["matrix"])
        return ask(f"Matrix:\n{rows}\n\nFind a rectangle of entries (contiguous rows r1..r2 and columns c1..c2) with "
                   "the largest sum.", "Give r1 c1 r2 c2 (rows and columns counted from 1, inclusive), e.g. "
                   "<answer>2 1 3 4</answer>.")

    def reward(self, problem, answer):
        m, box = problem["matrix"], int_list(answer)
        n = len(m)
        if len(box) != 4 or not (1 <= box[0] <= box[2] <= n and 1 <= box[1] <= box[3] <= n):
            return -0.5
        r1, c1, r2, c2 = (x - 1 for x in box)
        return 1.0 if sum(sum(row[c1:c2 + 1]) for row in m[r1:r2 + 1]) == problem["best"] else 0.0


class EggDropping(IntEnv):
    """Fewest drops that always find the critical floor with k eggs (competition DP: t drops
    with k eggs settle f(t, k) = f(t-1, k-1) + f(t-1, k) + 1 floors). d: k = 2 + d // 10 eggs,
    floors uniform in [10(d + 1), 20(d + 1)]. Reward: -1 unparsable, 1 exact, else 0."""

    name = "egg_dropping"
    category = "competition"

    def size(self, difficulty):
        return 10 * (difficulty + 1)

    def build(self, rng, difficulty):
        k, floors = 2 + difficulty // 10, rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        reach, t = [0] * (k + 1), 0
        while reach[k] < floors:
            t += 1
            reach = [0] + [reach[e - 1] + reach[e] + 1 for e in range(1, k + 1)]
        return {"eggs": k, "floors": floors, "value": t}, str(t)

    def prompt(self, problem):
        return ask(f"A building has {problem['floors']} floors. An egg dropped from floor x breaks if x is at least "
                   "some unknown critical floor, and survives otherwise; the critical floor could be any of "
                   f"1..{problem['floors']} or above the top. You have {problem['eggs']} identical eggs; a broken egg "
                   "cannot be reused. What is the smallest number of drops that finds the critical floor in the "
                   "worst case?", INT_FORMAT)
