"""Path optimisation, graded against the optimum: cheapest path under a time budget, widest
(bottleneck) path, cheapest grid walk in four directions, two grid walks collecting coins,
fewest refuelling stops, the shortest bitonic tour.

Each optimum comes from an exact polynomial or pseudo-polynomial algorithm (DP over a resource,
modified Dijkstra, DP over pairs of walkers, a greedy with a heap), never from search. Rewards
follow the optimisation family of optimization.py (our choice, in the (.)^5 shape of
PolynomialMinimum's reward, rlve lines 53-55): -1 unparsable, -0.5 an answer that is not a walk
of the right kind, 0 for an infeasible one, else (value / optimum)^5 or (optimum / cost)^5,
exactly 1 only at the optimum (ratio()).
"""
from __future__ import annotations

import heapq

from envs.gym.base import GymEnv, Retry, ask, int_list, ratio
from envs.gym.graphs import _connected_graph, _flow_network, dijkstra

PATH_FORMAT = "Give the vertices of the path in order, starting with {s} and ending with {t}, separated by spaces, e.g. <answer>{s} 2 {t}</answer>."


def _walk(answer: str, s: int, t: int, edges: dict) -> list[tuple[int, int]] | None:
    """The edges of a walk s -> t given as vertices, or None if it is not one."""
    path = int_list(answer)
    steps = list(zip(path, path[1:]))
    if len(path) < 2 or path[0] != s or path[-1] != t or any(p not in edges for p in steps):
        return None
    return steps


class ResourceConstrainedShortestPath(GymEnv):
    """Cheapest path from 0 to n - 1 whose total travel time stays within a budget T
    (optimisation; weakly NP-hard in general, exact here by DP over (vertex, time used) since
    times are small integers). d: n = d + 5 vertices, 2n directed edges with costs 1..20 and
    times 1..10, a planted 0 -> n - 1 path; T halfway between the fastest path's time and the
    cheapest path's time, so the budget binds. Answer: the path's vertices. Reward: -0.5 not a
    0 -> n - 1 walk along edges, 0 over the budget, else (optimum / its cost)^5. Its own
    problem: a second, constrained resource on every edge; shortest_path has one weight."""

    name = "resource_constrained_shortest_path"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = [(u, v, c, rng.randint(1, 10)) for u, v, c in _flow_network(rng, n, top=20)]
        cost_adj, time_adj = {}, {}
        for u, v, c, t in edges:
            cost_adj.setdefault(u, []).append((v, c))
            time_adj.setdefault(u, []).append((v, t))
        fastest = dijkstra(n, time_adj, 0)[0][n - 1]
        _, prev = dijkstra(n, cost_adj, 0)
        tt = {(u, v): t for u, v, _, t in edges}
        cheap_time, v = 0, n - 1
        while prev[v] != -1:
            cheap_time, v = cheap_time + tt[(prev[v], v)], prev[v]
        budget = (fastest + cheap_time) // 2
        inf = float("inf")
        best = [[inf] * (budget + 1) for _ in range(n)]  # best[v][t]: least cost reaching v at time exactly t
        back = [[None] * (budget + 1) for _ in range(n)]
        best[0][0] = 0
        for t in range(budget + 1):
            for u, v, c, dt in edges:
                if t + dt <= budget and best[u][t] + c < best[v][t + dt]:
                    best[v][t + dt], back[v][t + dt] = best[u][t] + c, (u, t)
        t_end = min(range(budget + 1), key=lambda t: best[n - 1][t])
        path, v, t = [n - 1], n - 1, t_end
        while back[v][t] is not None:
            v, t = back[v][t]
            path.append(v)
        return {"n": n, "edges": edges, "budget": budget, "optimum": best[n - 1][t_end]}, " ".join(map(str, path[::-1]))

    def prompt(self, problem):
        n = problem["n"]
        lines = "\n".join(f"{u} {v} {c} {t}" for u, v, c, t in problem["edges"])
        return ask(f"A directed graph has vertices 0 to {n - 1} and these edges (u v cost time: from u to v):\n{lines}\n\n"
                   f"Find the cheapest path from 0 to {n - 1} whose total time is at most {problem['budget']}.",
                   PATH_FORMAT.format(s=0, t=n - 1))

    def reward(self, problem, answer):
        n = problem["n"]
        edges = {(u, v): (c, t) for u, v, c, t in problem["edges"]}
        steps = _walk(answer, 0, n - 1, edges)
        if steps is None:
            return -0.5
        if sum(edges[p][1] for p in steps) > problem["budget"]:
            return 0.0
        return ratio(problem["optimum"], sum(edges[p][0] for p in steps), 5)


class WidestPath(GymEnv):
    """The path between two vertices of an undirected graph whose narrowest edge is as wide as
    possible (optimisation; the maximum bottleneck path, by Dijkstra with max-min labels). d:
    n = d + 5 vertices, 2n edges with capacities 1..100, a random spanning tree included.
    Answer: the path's vertices. Reward: -0.5 not an s -> t walk along edges, else (its
    bottleneck / optimum)^5. Its own problem: a max-min objective, where shortest_path sums
    weights and max_flow splits flow over many paths."""

    name = "widest_path"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        edges = [(u, v, rng.randint(1, 100)) for u, v in _connected_graph(rng, n, 2 * n)]
        s, t = rng.sample(range(n), 2)
        adj = {}
        for u, v, c in edges:
            adj.setdefault(u, []).append((v, c))
            adj.setdefault(v, []).append((u, c))
        width, prev = [0] * n, [-1] * n
        width[s] = 10 ** 9
        heap = [(-width[s], s)]
        while heap:
            w, u = heapq.heappop(heap)
            if -w < width[u]:
                continue
            for v, c in adj[u]:
                if min(-w, c) > width[v]:
                    width[v], prev[v] = min(-w, c), u
                    heapq.heappush(heap, (-width[v], v))
        path, v = [t], t
        while v != s:
            v = prev[v]
            path.append(v)
        return {"n": n, "edges": edges, "s": s, "t": t, "optimum": width[t]}, " ".join(map(str, path[::-1]))

    def prompt(self, problem):
        lines = "\n".join(f"{u} {v} {c}" for u, v, c in problem["edges"])
        return ask(f"An undirected graph has vertices 0 to {problem['n'] - 1} and these edges (u v capacity):\n{lines}"
                   f"\n\nFind a path from {problem['s']} to {problem['t']} whose smallest edge capacity is as large as "
                   "possible.", PATH_FORMAT.format(s=problem["s"], t=problem["t"]))

    def reward(self, problem, answer):
        edges = {}
        for u, v, c in problem["edges"]:
            edges[(u, v)] = edges[(v, u)] = c
        steps = _walk(answer, problem["s"], problem["t"], edges)
        if steps is None:
            return -0.5
        return ratio(min(edges[p] for p in steps), problem["optimum"], 5)


MOVES = {"R": (0, 1), "L": (0, -1), "D": (1, 0), "U": (-1, 0)}


class GridCheapestWalk(GymEnv):
    """The cheapest walk from the top-left to the bottom-right cell of a cost grid, moving in
    all four directions (optimisation; Dijkstra on cells). d: an n x n grid, n = d // 2 + 4,
    costs 1..9 with walls of cost 50 to 99 (rows of them with one gap, so the best walk often
    turns back up or left). A walk pays every cell it enters, start included. Answer: moves
    R/L/D/U. Reward: -0.5 a walk that leaves the grid or does not end at the corner, else
    (optimum / its cost)^5. Its own problem: min_path_sum_grid only moves right and down (a DP
    over a DAG); here detours in every direction make it a shortest-path problem."""

    name = "grid_cheapest_walk"
    category = "optimization"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        grid = [[rng.randint(1, 9) for _ in range(n)] for _ in range(n)]
        for r in range(1, n - 1, 2):
            gap = rng.choice((0, n - 1)) if rng.random() < 0.7 else rng.randrange(n)
            for c in range(n):
                if c != gap and rng.random() < 0.9:
                    grid[r][c] = rng.randint(50, 99)
        adj = {}
        for r in range(n):
            for c in range(n):
                adj[r * n + c] = [((r + dr) * n + c + dc, grid[r + dr][c + dc]) for dr, dc in MOVES.values()
                                  if 0 <= r + dr < n and 0 <= c + dc < n]
        dist, prev = dijkstra(n * n, adj, 0)
        cells, v = [], n * n - 1
        while v != -1:
            cells.append(v)
            v = prev[v]
        cells.reverse()
        names = {(dr, dc): m for m, (dr, dc) in MOVES.items()}
        moves = "".join(names[(b // n - a // n, b % n - a % n)] for a, b in zip(cells, cells[1:]))
        return {"grid": grid, "optimum": dist[n * n - 1] + grid[0][0]}, moves

    def prompt(self, problem):
        grid = problem["grid"]
        n = len(grid)
        rows = "\n".join(" ".join(map(str, r)) for r in grid)
        return ask(f"Cell costs of a {n} x {n} grid:\n{rows}\n\nWalk from the top-left cell to the bottom-right cell, "
                   "one step at a time to a neighbouring cell (right, left, down or up). The walk pays the cost of "
                   "every cell it enters, the start included. Make the total as small as possible.",
                   "Give the moves as one string of R, L, D and U, e.g. <answer>RRDLDDR</answer>.")

    def reward(self, problem, answer):
        grid = problem["grid"]
        n = len(grid)
        text = "".join(answer.split()).upper()
        if any(m not in MOVES for m in text):
            raise ValueError("not a move string")
        r = c = 0
        total = grid[0][0]
        for m in text:
            r, c = r + MOVES[m][0], c + MOVES[m][1]
            if not (0 <= r < n and 0 <= c < n):
                return -0.5
            total += grid[r][c]
        if (r, c) != (n - 1, n - 1):
            return -0.5
        return ratio(problem["optimum"], total, 5)


def _cells(moves: str) -> list[tuple[int, int]]:
    r = c = 0
    out = [(0, 0)]
    for m in moves:
        r, c = (r + 1, c) if m == "D" else (r, c + 1)
        out.append((r, c))
    return out


class TwoWalkCoins(GymEnv):
    """Two walks from the top-left to the bottom-right corner of a coin grid, each moving only
    right or down; a coin is collected once even if both walks pass it; maximise the coins
    collected (optimisation; DP over both walkers' rows after k steps, O(n^3)). d: n x n grid,
    n = d // 2 + 3, coins 0..9 with about a third of the cells empty. Answer: two lines of
    moves R/D. Reward: -0.5 not two strings of n - 1 R and n - 1 D each, else (coins /
    optimum)^5. Its own problem: the two walks interact through shared cells, so the best pair
    is not two independent best walks (min_path_sum_grid has one walk)."""

    name = "two_walk_coins"
    category = "optimization"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        g = [[rng.randint(1, 9) if rng.random() < 0.67 else 0 for _ in range(n)] for _ in range(n)]
        neg = -1
        # best[k][a][b]: most coins with walker rows a and b after k steps (columns k - a, k - b)
        best = [[[neg] * n for _ in range(n)] for _ in range(2 * n - 1)]
        best[0][0][0] = g[0][0]
        for k in range(1, 2 * n - 1):
            for a in range(max(0, k - n + 1), min(n, k + 1)):
                for b in range(max(0, k - n + 1), min(n, k + 1)):
                    prev = max((best[k - 1][a - da][b - db] for da in (0, 1) for db in (0, 1)
                                if 0 <= a - da and 0 <= b - db and k - 1 - (a - da) >= 0 and k - 1 - (b - db) >= 0),
                               default=neg)
                    if prev == neg:
                        continue
                    gain = g[a][k - a] + (g[b][k - b] if a != b else 0)
                    best[k][a][b] = prev + gain
        k, a, b = 2 * n - 2, n - 1, n - 1
        rows_a, rows_b = [a], [b]
        while k:
            gain = g[a][k - a] + (g[b][k - b] if a != b else 0)
            for da in (0, 1):
                for db in (0, 1):
                    pa, pb = a - da, b - db
                    if pa >= 0 and pb >= 0 and k - 1 - pa >= 0 and k - 1 - pb >= 0 and \
                            best[k - 1][pa][pb] != neg and best[k - 1][pa][pb] + gain == best[k][a][b]:
                        break
                else:
                    continue
                break
            a, b, k = pa, pb, k - 1
            rows_a.append(a)
            rows_b.append(b)

        def moves(rows):
            rows = rows[::-1]
            return "".join("D" if y > x else "R" for x, y in zip(rows, rows[1:]))
        return {"grid": g, "optimum": best[2 * n - 2][n - 1][n - 1]}, moves(rows_a) + "\n" + moves(rows_b)

    def prompt(self, problem):
        g = problem["grid"]
        n = len(g)
        rows = "\n".join(" ".join(map(str, r)) for r in g)
        return ask(f"Coins on a {n} x {n} grid:\n{rows}\n\nTwo walks both go from the top-left cell to the bottom-right "
                   "cell, each moving only right (R) or down (D). They collect the coins of every cell they visit, but "
                   "a cell visited by both walks pays only once. Maximise the coins collected.",
                   "Give two lines, each the moves of one walk as a string of R and D, e.g. <answer>RRDD\nDRDR</answer>.")

    def reward(self, problem, answer):
        g = problem["grid"]
        n = len(g)
        walks = ["".join(line.split()).upper() for line in answer.splitlines() if line.strip()]
        if any(set(w) - {"R", "D"} for w in walks):
            raise ValueError("not R/D moves")
        if len(walks) != 2 or any(w.count("R") != n - 1 or w.count("D") != n - 1 for w in walks):
            return -0.5
        cells = set(_cells(walks[0])) | set(_cells(walks[1]))
        return ratio(sum(g[r][c] for r, c in cells), problem["optimum"], 5)


def fewest_stops(target: int, fuel: int, stations: list) -> list[int] | None:
    """Indices of a smallest set of stations to refuel at, or None if the target is out of
    reach: drive as far as the tank allows, and when it runs dry take the largest fuel passed."""
    order = sorted(range(len(stations)), key=lambda i: stations[i][0])
    heap, used, reach, k = [], [], fuel, 0
    while reach < target:
        while k < len(order) and stations[order[k]][0] <= reach:
            heapq.heappush(heap, (-stations[order[k]][1], order[k]))
            k += 1
        if not heap:
            return None
        f, i = heapq.heappop(heap)
        reach -= f
        used.append(i)
    return sorted(used)


class MinRefuelStops(GymEnv):
    """Drive to a target along a road with fuel stations, stopping as few times as possible
    (optimisation; the greedy that refuels retroactively at the largest station passed is
    optimal). d: n = d + 5 stations at distinct positions below the target 10(n + 5), fuels
    5..40, start fuel 10..25 (one unit per unit of distance); redrawn unless reachable with at
    least one stop. Answer: the stations to stop at. Reward: -0.5 bad or repeated indices, 0
    if the car runs dry, else (optimum / its stops)^5. Its own problem: a covering of the road
    by fuel, where interval_stabbing picks points and min_coin_change sums to an amount."""

    name = "min_refuel_stops"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        target = 10 * (n + 5)
        stations = sorted((pos, rng.randint(5, 40)) for pos in rng.sample(range(1, target), n))
        fuel = rng.randint(10, 25)
        used = fewest_stops(target, fuel, stations)
        if not used:
            raise Retry
        return {"target": target, "fuel": fuel, "stations": stations, "optimum": len(used)}, " ".join(map(str, used))

    def prompt(self, problem):
        st = "\n".join(f"{i}: position {p}, fuel {f}" for i, (p, f) in enumerate(problem["stations"]))
        return ask(f"A car starts at position 0 with {problem['fuel']} units of fuel and uses one unit per unit of "
                   f"distance. It must reach position {problem['target']}. Fuel stations (index: position, fuel "
                   f"available; the car takes all of it, the tank has no limit):\n{st}\n\nStop at as few stations as "
                   "possible.", "Give the indices of the stations to stop at, separated by spaces, e.g. "
                   "<answer>1 4</answer>.")

    def reward(self, problem, answer):
        stations, chosen = problem["stations"], int_list(answer)
        if len(set(chosen)) != len(chosen) or any(not 0 <= i < len(stations) for i in chosen):
            return -0.5
        tank, pos = problem["fuel"], 0
        for i in sorted(chosen, key=lambda i: stations[i][0]):
            tank -= stations[i][0] - pos
            if tank < 0:
                return 0.0
            pos, tank = stations[i][0], tank + stations[i][1]
        if tank < problem["target"] - pos:
            return 0.0
        return ratio(problem["optimum"], len(chosen), 5)


class BitonicTour(GymEnv):
    """The shortest bitonic tour of points with distinct x: from the leftmost point strictly
    rightwards to the rightmost, then strictly leftwards back, visiting every point once
    (optimisation; Bentley's O(n^2) DP over the two ends of the path). Distances are Manhattan
    (integers). d: n = d + 5 points with distinct x in [0, 10n], y in [0, 10n]. Answer: the
    tour as point indices, starting at the leftmost. Reward: -0.5 not a bitonic tour of all
    points (a permutation starting at the leftmost, x increasing up to the rightmost and then
    decreasing), else (optimum / its length)^5. Its own problem: the bitonic restriction makes a
    TSP variant exactly solvable; tsp_convex plants an optimum for an unrestricted tour."""

    name = "bitonic_tour"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        xs = sorted(rng.sample(range(10 * n + 1), n))
        pts = [(x, rng.randint(0, 10 * n)) for x in xs]

        def dist(i, j):
            return abs(pts[i][0] - pts[j][0]) + abs(pts[i][1] - pts[j][1])
        inf = float("inf")
        # b[i][j] (i < j): shortest pair of disjoint x-monotone paths from 0 covering 0..j, ending at i and j
        b = [[inf] * n for _ in range(n)]
        arg = [[-1] * n for _ in range(n)]
        b[0][1] = dist(0, 1)
        for j in range(2, n):
            for i in range(j - 1):
                b[i][j], arg[i][j] = b[i][j - 1] + dist(j - 1, j), j - 1
            k = min(range(j - 1), key=lambda k: b[k][j - 1] + dist(k, j))
            b[j - 1][j], arg[j - 1][j] = b[k][j - 1] + dist(k, j), k
        total = b[n - 2][n - 1] + dist(n - 2, n - 1)
        # unwind into the tour's edges: the closing edge, then each state's last step
        edges, (i, j) = [(n - 2, n - 1)], (n - 2, n - 1)
        while j > 1:
            p = arg[i][j]
            edges.append((p, j))
            i, j = (i, j - 1) if p == j - 1 else (p, j - 1)
        edges.append((0, 1))
        nbrs = {v: [] for v in range(n)}
        for u, v in edges:
            nbrs[u].append(v)
            nbrs[v].append(u)
        tour = [0, nbrs[0][0]]
        while len(tour) < n:
            tour.append(next(w for w in nbrs[tour[-1]] if w != tour[-2]))
        order = list(range(n))
        rng.shuffle(order)  # shown in random order
        index = {p: k for k, p in enumerate(order)}
        return ({"points": [pts[p] for p in order], "optimum": total},
                " ".join(str(index[p]) for p in tour))

    def prompt(self, problem):
        pts = "\n".join(f"{i}: ({x}, {y})" for i, (x, y) in enumerate(problem["points"]))
        return ask(f"Points (index: (x, y)):\n{pts}\n\nFind the shortest bitonic tour: start at the leftmost point, "
                   "visit points going strictly to the right until the rightmost point, then come back going strictly "
                   "to the left, so that every point is visited exactly once, and return to the start. Distances are "
                   "Manhattan: |x1 - x2| + |y1 - y2|.", "Give the point indices in tour order, starting with the "
                   "leftmost point and not repeating it at the end, e.g. <answer>3 0 4 1 2</answer>.")

    def reward(self, problem, answer):
        pts, tour = problem["points"], int_list(answer)
        n = len(pts)
        if sorted(tour) != list(range(n)):
            return -0.5
        xs = [pts[i][0] for i in tour]
        top = xs.index(max(xs))
        if xs[0] != min(xs) or any(a >= b for a, b in zip(xs[:top], xs[1:top + 1])) or \
                any(a <= b for a, b in zip(xs[top:], xs[top + 1:])):
            return -0.5
        length = sum(abs(pts[a][0] - pts[b][0]) + abs(pts[a][1] - pts[b][1]) for a, b in zip(tour, tour[1:] + tour[:1]))
        return ratio(problem["optimum"], length, 5)
