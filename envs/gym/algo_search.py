"""Array and search algorithms: three-sum, the shortest subarray reaching a sum, jump games, the
gas-station circuit, the next permutation, lower-bound queries, multi-source BFS on a grid,
candy distribution, cycle detection in an iterated function, the largest square of ones.

What makes each its own problem (next to arrays.py, sequences.py and dp_optimization.py): each
is a distinct classical technique: hashing or two pointers over sorted values, a sliding window
over positive numbers, greedy reach, a prefix-minimum argument, the next-permutation swap and
reversal, binary search, BFS from many sources at once, two greedy passes, Floyd's tortoise
and hare, a DP over squares (largest_rectangle_histogram works on one row of bars). max_subarray_sum asks for the largest sum; here it is the shortest window
reaching a threshold.

Rewards (our choice): -1 unparsable, -0.5 an answer of the wrong shape; answers that name
indices are checked (every optimal one scores 1) and graded against the optimum;
determined lists score (entries right / entries)^5 (matches()); single values 1 exact, else 0.
"""
from __future__ import annotations

import bisect
from collections import deque

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, Retry, ask, index_set, int_list, matches


class ThreeSum(GymEnv):
    """Three positions whose numbers add up to a target (classical algorithms, sort and two
    pointers). d: n = d + 6 distinct integers in [-10n, 10n], the target the sum of a planted
    triple. Answer: three distinct indices. Reward: -1 unparsable, -0.5 not three distinct
    valid indices, 1 if the sum is the target, else 0 (any such triple scores 1). Its own
    problem: exactly three numbers, O(n^2) (subset_sum allows any number and is NP-complete)."""

    name = "three_sum"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = rng.sample(range(-10 * n, 10 * n + 1), n)
        triple = sorted(rng.sample(range(n), 3))
        return {"array": a, "target": sum(a[i] for i in triple)}, " ".join(map(str, triple))

    def prompt(self, problem):
        a = problem["array"]
        return ask(f"Array (indices 0 to {len(a) - 1}): " + " ".join(map(str, a)) + f"\n\nFind three different "
                   f"positions whose numbers add up to {problem['target']}.",
                   "Give the three indices separated by spaces, e.g. <answer>1 4 6</answer>.")

    def reward(self, problem, answer):
        got = index_set(answer, len(problem["array"]))
        if got is None or len(got) != 3:
            return -0.5
        return 1.0 if sum(problem["array"][i] for i in got) == problem["target"] else 0.0


class ShortestSubarrayAtLeast(GymEnv):
    """The shortest contiguous subarray of positive numbers whose sum reaches S (classical
    algorithms, sliding window). d: n = 2d + 8 numbers in 1..20, S between the largest number + 1
    and half the total. Answer: l r (0-based, inclusive). Reward: -1 unparsable, -0.5 not a
    range, 0 if its sum is below S, else (shortest length / its length)^5."""

    name = "shortest_subarray_at_least"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        a = [rng.randint(1, 20) for _ in range(self.size(difficulty))]
        target = rng.randint(max(a) + 1, max(max(a) + 1, sum(a) // 2))
        best, left, total = None, 0, 0
        for right, x in enumerate(a):
            total += x
            while total - a[left] >= target:
                total -= a[left]
                left += 1
            if total >= target and (best is None or right - left < best[1] - best[0]):
                best = (left, right)
        return {"array": a, "target": target, "optimum": best[1] - best[0] + 1}, f"{best[0]} {best[1]}"

    def prompt(self, problem):
        a = problem["array"]
        return ask(f"Array (indices 0 to {len(a) - 1}): " + " ".join(map(str, a)) + "\n\nFind a shortest contiguous "
                   f"part a[l..r] whose sum is at least {problem['target']}.",
                   "Give l and r (inclusive) separated by a space, e.g. <answer>3 6</answer>.")

    def reward(self, problem, answer):
        lr, a = int_list(answer), problem["array"]
        if len(lr) != 2 or not 0 <= lr[0] <= lr[1] < len(a):
            return -0.5
        if sum(a[lr[0]:lr[1] + 1]) < problem["target"]:
            return 0.0
        return (problem["optimum"] / (lr[1] - lr[0] + 1)) ** 5


class JumpGame(GymEnv):
    """Reach the last position with the fewest jumps (classical algorithms, greedy BFS by
    reach): from position i one may jump forward 1..a[i] places. d: n = d + 6 positions, values
    0..4, the last reachable. Answer: the positions visited, from 0 to n - 1. Reward: -1
    unparsable, -0.5 not a valid sequence of jumps from 0 to n - 1, else (fewest jumps / its
    jumps)^5."""

    name = "jump_game"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [rng.randint(0, 4) for _ in range(n)]
        a[-1] = 0
        prev, queue = {0: None}, deque([0])
        while queue:
            i = queue.popleft()
            for j in range(i + 1, min(n, i + a[i] + 1)):
                if j not in prev:
                    prev[j] = i
                    queue.append(j)
        if n - 1 not in prev:
            raise Retry
        path, i = [], n - 1
        while i is not None:
            path.append(i)
            i = prev[i]
        return {"array": a, "optimum": len(path) - 1}, " ".join(map(str, reversed(path)))

    def prompt(self, problem):
        a = problem["array"]
        return ask(f"Array (positions 0 to {len(a) - 1}): " + " ".join(map(str, a)) + "\n\nStart at position 0. From "
                   "position i you may jump forward to any of the next a[i] positions (1 to a[i] places). Reach "
                   f"position {len(a) - 1} with as few jumps as possible.",
                   f"Give the positions you stand on, from 0 to {len(a) - 1}, separated by spaces, e.g. "
                   "<answer>0 2 5</answer>.")

    def reward(self, problem, answer):
        path, a = int_list(answer), problem["array"]
        if len(path) < 2 or path[0] != 0 or path[-1] != len(a) - 1 or \
                any(not 1 <= j - i <= a[i] for i, j in zip(path, path[1:])):
            return -0.5
        return (problem["optimum"] / (len(path) - 1)) ** 5


def circuit_starts(gas, cost) -> list[int]:
    """Every start from which the tank never goes negative around the circle (by simulation)."""
    n, out = len(gas), []
    for s in range(n):
        tank = 0
        for k in range(n):
            tank += gas[(s + k) % n] - cost[(s + k) % n]
            if tank < 0:
                break
        else:
            out.append(s)
    return out


class GasStation(GymEnv):
    """The one station from which a car can drive round a circular route (classical algorithms:
    the start after the lowest prefix sum). d: n = d + 5 stations, gas and costs 1..10 with equal
    totals, drawn until exactly one start works. Answer: the start. Reward: -1 unparsable, -0.5
    not a station, 1 if the trip from it never runs dry, else 0."""

    name = "gas_station"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        gas = [rng.randint(1, 10) for _ in range(n)]
        cost = [rng.randint(1, 10) for _ in range(n)]
        diff = sum(gas) - sum(cost)
        while diff:  # equal totals: exactly the starts after a lowest prefix sum work
            i = rng.randrange(n)
            if diff > 0 and cost[i] < 10:
                cost[i], diff = cost[i] + 1, diff - 1
            elif diff < 0 and gas[i] < 10:
                gas[i], diff = gas[i] + 1, diff + 1
        starts = circuit_starts(gas, cost)
        if len(starts) != 1:
            raise Retry
        return {"gas": gas, "cost": cost}, str(starts[0])

    def prompt(self, problem):
        gas, cost = problem["gas"], problem["cost"]
        n = len(gas)
        return ask(f"{n} fuel stations 0..{n - 1} lie on a circular road. At station i a car can take gas[i] units of "
                   f"fuel; driving from station i to station i + 1 (from {n - 1} back to 0) uses cost[i] units.\ngas:  "
                   + " ".join(map(str, gas)) + "\ncost: " + " ".join(map(str, cost)) + "\n\nThe car starts with an "
                   "empty tank of unlimited size. From which station can it drive once round the whole circle without "
                   "running out of fuel (exactly one station works)?", INT_FORMAT)

    def reward(self, problem, answer):
        got = int_list(answer)
        n = len(problem["gas"])
        if len(got) != 1 or not 0 <= got[0] < n:
            return -0.5
        return 1.0 if got[0] in circuit_starts(problem["gas"], problem["cost"]) else 0.0


def next_permutation(p: list[int]) -> list[int] | None:
    p = p[:]
    i = len(p) - 2
    while i >= 0 and p[i] >= p[i + 1]:
        i -= 1
    if i < 0:
        return None
    j = len(p) - 1
    while p[j] <= p[i]:
        j -= 1
    p[i], p[j] = p[j], p[i]
    p[i + 1:] = reversed(p[i + 1:])
    return p


class NextPermutation(GymEnv):
    """The lexicographically next arrangement of a sequence (classical algorithms: find the last
    ascent, swap with the smallest larger element to its right, reverse the tail). d: n = d + 5
    values in 1..n // 2 + 2 (repeats allowed), with a long decreasing tail half the time. Reward:
    -1 unparsable, -0.5 wrong count, else (positions right / n)^5. Its own problem: one step of
    the order (kth_permutation and permutation_rank index into it)."""

    name = "next_permutation"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [rng.randint(1, n // 2 + 2) for _ in range(n)]
        if rng.random() < 0.5:
            cut = rng.randint(1, n - 1)
            a[cut:] = sorted(a[cut:], reverse=True)
        nxt = next_permutation(a)
        if nxt is None:
            raise Retry
        return {"array": a, "next": nxt}, " ".join(map(str, nxt))

    def prompt(self, problem):
        return ask("Sequence: " + " ".join(map(str, problem["array"])) + "\n\nAmong all rearrangements of these numbers, "
                   "ordered lexicographically (compare the first position that differs), which comes right after "
                   "this one?", "Give the rearranged sequence separated by spaces, e.g. <answer>1 3 2 2</answer>.")

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["next"])


class LowerBoundQueries(GymEnv):
    """Binary search: for each query, the first position of a sorted array holding a value at
    least as large (classical algorithms, lower bound). d: n = 2d + 8 sorted values 0..3n with
    repeats, d + 4 queries. Answer: a position per query, n when every value is smaller. Reward:
    -1 unparsable, -0.5 wrong count, else (positions right / queries)^5."""

    name = "lower_bound_queries"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = sorted(rng.randint(0, 3 * n) for _ in range(n))
        queries = [rng.randint(-2, 3 * n + 2) for _ in range(difficulty + 4)]
        pos = [bisect.bisect_left(a, q) for q in queries]
        return {"array": a, "queries": queries, "positions": pos}, " ".join(map(str, pos))

    def prompt(self, problem):
        a = problem["array"]
        return ask(f"Sorted array (positions 0 to {len(a) - 1}): " + " ".join(map(str, a)) + "\n\nFor each query q, give "
                   f"the first position whose value is >= q ({len(a)} if there is none). Queries: " +
                   " ".join(map(str, problem["queries"])), "Give the positions in query order separated by spaces, "
                   "e.g. <answer>0 4 4 9</answer>.")

    def explain(self, problem):
        """One line per query: 'q = 7: a[3] = 6 < 7 <= a[4] = 9, so 4.'"""
        a, lines = problem["array"], []
        for q, i in zip(problem["queries"], problem["positions"]):
            below = f"a[{i - 1}] = {a[i - 1]} < {q}" if i else "no value before position 0"
            above = f"{q} <= a[{i}] = {a[i]}" if i < len(a) else "no value is >= it"
            lines.append(f"q = {q}: {below}, {above}, so {i}.")
        return "\n".join(lines)

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["positions"])


class FireSpreadTime(IntEnv):
    """Minutes until a fire started in several cells stops spreading (classical algorithms,
    multi-source BFS): each minute it spreads to the free cells next to burning ones. d: an
    n x n grid, n = d // 2 + 5, about 25% walls, 1-3 fires. Answer: the minute the last
    reachable cell catches fire. Reward: -1 unparsable, 1 exact, else 0. Its own problem: all
    sources at once (maze_shortest_path and knight_distance search from one)."""

    name = "fire_spread_time"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty // 2 + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        grid = [["#" if rng.random() < 0.25 else "." for _ in range(n)] for _ in range(n)]
        free = [(r, c) for r in range(n) for c in range(n) if grid[r][c] == "."]
        if len(free) < 4:
            raise Retry
        fires = rng.sample(free, rng.randint(1, 3))
        dist = {f: 0 for f in fires}
        queue = deque(fires)
        while queue:
            r, c = queue.popleft()
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                x, y = r + dr, c + dc
                if 0 <= x < n and 0 <= y < n and grid[x][y] == "." and (x, y) not in dist:
                    dist[(x, y)] = dist[(r, c)] + 1
                    queue.append((x, y))
        value = max(dist.values())
        if value < 2:
            raise Retry
        for r, c in fires:
            grid[r][c] = "F"
        return {"grid": ["".join(row) for row in grid], "value": value}, str(value)

    def prompt(self, problem):
        return ask("A grid ('.' free, '#' wall, F burning at minute 0):\n" + "\n".join(problem["grid"]) + "\n\nEvery "
                   "minute the fire spreads from each burning cell to the free cells directly above, below, left and "
                   "right of it. At which minute does the last cell that the fire can ever reach catch fire?", INT_FORMAT)


def _candies(r: list[int]) -> tuple[list[int], list[int]]:
    """(the counts after the left-to-right pass, the final counts after the right-to-left one)."""
    c = [1] * len(r)
    for i in range(1, len(r)):
        if r[i] > r[i - 1]:
            c[i] = c[i - 1] + 1
    first = c[:]
    for i in range(len(r) - 2, -1, -1):
        if r[i] > r[i + 1]:
            c[i] = max(c[i], c[i + 1] + 1)
    return first, c


class CandyDistribution(IntEnv):
    """The fewest candies for children in a row (classical algorithms, two greedy passes): each
    gets at least one, and a child rated higher than a neighbour gets more than that neighbour.
    d: n = 2d + 6 ratings in 1..5. Reward: -1 unparsable, 1 exact, else 0."""

    name = "candy_distribution"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        r = [rng.randint(1, 5) for _ in range(self.size(difficulty))]
        total = sum(_candies(r)[1])
        return {"ratings": r, "value": total}, str(total)

    def prompt(self, problem):
        return ask("Children stand in a row with these ratings: " + " ".join(map(str, problem["ratings"])) + "\n\nGive "
                   "each child at least one candy, and every child with a higher rating than a neighbour more candies "
                   "than that neighbour. What is the fewest candies in total?", INT_FORMAT)

    def explain(self, problem):
        """The two passes and the sum."""
        first, c = _candies(problem["ratings"])
        return (f"Left to right (more than the left neighbour when rated higher): {' '.join(map(str, first))}\n"
                f"Right to left (more than the right neighbour too): {' '.join(map(str, c))}\n"
                f"Total: {' + '.join(map(str, c))} = {sum(c)}.")



class CycleDetection(GymEnv):
    """The tail and cycle lengths of the sequence x, f(x), f(f(x)), ... for a function on
    0..n-1 given as a table (classical algorithms, Floyd's tortoise and hare): mu, the steps
    before the sequence first enters its cycle, and lambda, the cycle's length. d: n = 3d + 10,
    a random table. Answer: mu and lambda. Reward: -1 unparsable, -0.5 not two numbers, 1 for
    both right, 0.5 for one, else 0 (our choice)."""

    name = "cycle_detection"
    category = "algorithms"

    def size(self, difficulty):
        return 3 * difficulty + 10

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        f = [rng.randrange(n) for _ in range(n)]
        x0 = rng.randrange(n)
        first, x, i = {}, x0, 0
        while x not in first:
            first[x], x, i = i, f[x], i + 1
        mu, lam = first[x], i - first[x]
        return {"f": f, "x0": x0, "mu": mu, "lam": lam}, f"{mu} {lam}"

    def prompt(self, problem):
        f = problem["f"]
        return ask(f"A function f on 0..{len(f) - 1} is given by its table (f(0), f(1), ...): " + " ".join(map(str, f)) +
                   f"\n\nStart at x0 = {problem['x0']} and repeat x -> f(x). The sequence eventually repeats. How many "
                   "steps mu come before the first value that lies on the cycle, and how long is the cycle (lambda)?",
                   "Give mu and lambda separated by a space, e.g. <answer>3 5</answer>.")

    def reward(self, problem, answer):
        got = int_list(answer)
        if len(got) != 2:
            return -0.5
        return ((got[0] == problem["mu"]) + (got[1] == problem["lam"])) / 2


class LargestSquareOfOnes(GymEnv):
    """The largest all-ones square in a 0/1 grid (classical algorithms, the DP side(r, c) =
    1 + min of its three upper-left neighbours). d: an n x n grid, n = d // 2 + 5, 80% ones.
    Answer: row, column (of the top-left cell, from 0) and side. Reward: -1 unparsable, -0.5
    outside the grid, 0 if the square holds a 0, else (its side / largest side)^5."""

    name = "largest_square_of_ones"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty // 2 + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        grid = ["".join("1" if rng.random() < 0.8 else "0" for _ in range(n)) for _ in range(n)]
        side = [[0] * (n + 1) for _ in range(n + 1)]
        best = (0, 0, 0)
        for r in range(n):
            for c in range(n):
                if grid[r][c] == "1":
                    side[r + 1][c + 1] = 1 + min(side[r][c], side[r][c + 1], side[r + 1][c])
                    if side[r + 1][c + 1] > best[0]:
                        best = (side[r + 1][c + 1], r, c)
        if best[0] == 0:
            raise Retry
        k, r, c = best
        return {"grid": grid, "best": k}, f"{r - k + 1} {c - k + 1} {k}"

    def prompt(self, problem):
        return ask("A grid of 0s and 1s (rows and columns numbered from 0):\n" + "\n".join(problem["grid"]) +
                   "\n\nFind a largest square block made only of 1s.",
                   "Give the row and column of its top-left cell and its side length, separated by spaces, e.g. "
                   "<answer>2 1 3</answer>.")

    def reward(self, problem, answer):
        got, grid = int_list(answer), problem["grid"]
        if len(got) != 3:
            return -0.5
        r, c, k = got
        n = len(grid)
        if k < 1 or r < 0 or c < 0 or r + k > n or c + k > n:
            return -0.5
        if any("0" in grid[i][c:c + k] for i in range(r, r + k)):
            return 0.0
        return min(1.0, k / problem["best"]) ** 5
