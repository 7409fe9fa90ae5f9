"""Programming-competition DP problems whose answer is one optimal value.

Reward: -1 unparsable, 1 for exactly the optimal value, else 0 (`IntEnv`).

What makes each its own problem: the existing optimisation envs (knapsack, rod cutting, matrix
chain order, coin change, grid path sums, edit distance, LIS, LCS) have other recurrences. Here:
burst balloons (an interval DP over the last balloon burst), merging adjacent piles (an interval
DP with prefix-sum costs), painting houses with no two neighbours alike (a DP over the previous
colour), the longest common increasing subsequence (a combined LIS/LCS table), the longest zigzag
subsequence (up/down states), robbing houses on a circle (two linear passes), the longest bitonic
subsequence (LIS from both sides) and the largest subarray product (signs flip the order). (k stock
transactions and the jump game were dropped here: the parallel branches h/envmath28 and
h/envalgo28 add stock_k_transactions and jump_game.)
"""
from __future__ import annotations

from envs.gym.base import INT_FORMAT, IntEnv, ask


class _OptEnv(IntEnv):
    category = "competition"

    def build(self, rng, difficulty):
        problem = self.draw(rng, difficulty)
        problem["value"] = self.solve(problem)
        return problem, str(problem["value"])


class BurstBalloons(_OptEnv):
    """Burst balloons: bursting balloon i earns left * a_i * right with its current neighbours
    (1 beyond the ends); the most coins in total. d: d + 4 balloons with values 1..9. Reward:
    -1 unparsable, 1 exact, else 0."""

    name = "burst_balloons"

    def size(self, difficulty):
        return difficulty + 4

    def draw(self, rng, difficulty):
        return {"a": [rng.randint(1, 9) for _ in range(self.size(difficulty))]}

    def solve(self, p):
        v = [1] + p["a"] + [1]
        n = len(v)
        best = [[0] * n for _ in range(n)]  # best[i][j]: bursting everything strictly between i and j
        for gap in range(2, n):
            for i in range(n - gap):
                j = i + gap
                best[i][j] = max(best[i][k] + v[i] * v[k] * v[j] + best[k][j] for k in range(i + 1, j))
        return best[0][n - 1]

    def prompt(self, problem):
        return ask(f"Balloons in a row carry the numbers {' '.join(map(str, problem['a']))}. Bursting a balloon earns "
                   "(number of its left neighbour) * (its number) * (number of its right neighbour), counting the "
                   "balloons still unburst, with 1 where there is no neighbour; the burst balloon then disappears "
                   "and its neighbours become adjacent. What is the largest total you can earn by bursting all of "
                   "them?", INT_FORMAT)


class StoneMergingMinCost(_OptEnv):
    """Merge adjacent piles until one is left; merging costs the merged pile's size; the least
    total cost. d: d + 4 piles of 1..30 stones. Reward: -1 unparsable, 1 exact, else 0. Own
    problem: only adjacent piles merge (merging any two is Huffman's greedy,
    huffman_code_length), so an interval DP is needed."""

    name = "stone_merging_min_cost"

    def size(self, difficulty):
        return difficulty + 4

    def draw(self, rng, difficulty):
        return {"a": [rng.randint(1, 30) for _ in range(self.size(difficulty))]}

    def solve(self, p):
        a = p["a"]
        n, pre = len(a), [0]
        for x in a:
            pre.append(pre[-1] + x)
        best = [[0] * (n + 1) for _ in range(n + 1)]  # best[i][j]: piles a[i:j] into one
        for length in range(2, n + 1):
            for i in range(n - length + 1):
                j = i + length
                best[i][j] = min(best[i][k] + best[k][j] for k in range(i + 1, j)) + pre[j] - pre[i]
        return best[0][n]

    def prompt(self, problem):
        return ask(f"Piles of stones in a row: {' '.join(map(str, problem['a']))}. A step merges two adjacent piles "
                   "into one and costs the number of stones in the new pile. What is the smallest total cost of "
                   "merging all piles into one?", INT_FORMAT)


class PaintHousesMinCost(_OptEnv):
    """Paint a row of houses with k colours, neighbours differently, at the least total cost
    (each house has its own cost per colour). d: d + 4 houses, k in [3, 5], costs 1..20.
    Reward: -1 unparsable, 1 exact, else 0."""

    name = "paint_houses_min_cost"

    def size(self, difficulty):
        return difficulty + 4

    def draw(self, rng, difficulty):
        k = rng.randint(3, 5)
        return {"cost": [[rng.randint(1, 20) for _ in range(k)] for _ in range(self.size(difficulty))]}

    def solve(self, p):
        best = list(p["cost"][0])
        for row in p["cost"][1:]:
            best = [c + min(b for j, b in enumerate(best) if j != i) for i, c in enumerate(row)]
        return min(best)

    def prompt(self, problem):
        rows = "\n".join(f"house {h + 1}: " + " ".join(map(str, r)) for h, r in enumerate(problem["cost"]))
        k = len(problem["cost"][0])
        return ask(f"Houses in a row are painted with colours 1..{k}; neighbouring houses must get different colours. "
                   f"The cost of each colour for each house (colours 1..{k} in order):\n{rows}\n\nWhat is the "
                   "smallest total cost of painting all houses?", INT_FORMAT)


class LongestCommonIncreasingSubsequence(_OptEnv):
    """The length of the longest strictly increasing sequence that is a subsequence of both
    lists. d: two lists of d + 6 values from 1..d + 8. Reward: -1 unparsable, 1 exact, else 0."""

    name = "longest_common_increasing_subsequence"

    def size(self, difficulty):
        return difficulty + 6

    def draw(self, rng, difficulty):
        n, top = self.size(difficulty), difficulty + 8
        return {"a": [rng.randint(1, top) for _ in range(n)], "b": [rng.randint(1, top) for _ in range(n)]}

    def solve(self, p):
        a, b = p["a"], p["b"]
        ends = [0] * len(b)  # ends[j]: longest common increasing subsequence ending at b[j]
        for x in a:
            run = 0  # best ends[j'] over j' so far with b[j'] < x
            for j, y in enumerate(b):
                if y == x:
                    ends[j] = max(ends[j], run + 1)
                elif y < x:
                    run = max(run, ends[j])
        return max(ends, default=0)

    def prompt(self, problem):
        return ask(f"A = {' '.join(map(str, problem['a']))}\nB = {' '.join(map(str, problem['b']))}\n\nWhat is the "
                   "length of the longest strictly increasing sequence that is a subsequence of both A and B "
                   "(elements kept in order, not necessarily adjacent)?", INT_FORMAT)


class LongestZigzagSubsequence(_OptEnv):
    """The longest subsequence whose consecutive differences strictly alternate in sign (a single
    element counts, equal neighbours never). d: 3d + 8 values from 1..20. Reward: -1 unparsable,
    1 exact, else 0."""

    name = "longest_zigzag_subsequence"

    def size(self, difficulty):
        return 3 * difficulty + 8

    def draw(self, rng, difficulty):
        return {"a": [rng.randint(1, 20) for _ in range(self.size(difficulty))]}

    def solve(self, p):
        up = down = 1  # longest ending with a rise / a fall
        for x, y in zip(p["a"], p["a"][1:]):
            if y > x:
                up = down + 1
            elif y < x:
                down = up + 1
        return max(up, down)

    def prompt(self, problem):
        return ask(f"Sequence: {' '.join(map(str, problem['a']))}\n\nA zigzag sequence is one whose differences "
                   "between consecutive elements are non-zero and alternate between positive and negative (one "
                   "element alone is a zigzag). What is the length of the longest zigzag subsequence (elements kept "
                   "in order, not necessarily adjacent)?", INT_FORMAT)


class HouseRobberCircular(_OptEnv):
    """The largest sum of values of houses on a circle with no two neighbours taken (the first and
    last are neighbours). d: 2d + 6 houses with values 1..50. Reward: -1 unparsable, 1 exact,
    else 0."""

    name = "house_robber_circular"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def draw(self, rng, difficulty):
        return {"a": [rng.randint(1, 50) for _ in range(self.size(difficulty))]}

    def solve(self, p):
        a = p["a"]
        return max(_rob_line(a[1:])[-1], _rob_line(a[:-1])[-1])

    def explain(self, problem):
        """The first and last house are never both taken: solve the line without one, then the other."""
        a, lines = problem["a"], []
        for label, xs in (("without the first house", a[1:]), ("without the last house", a[:-1])):
            lines.append(f"{label}, best so far: {' '.join(map(str, _rob_line(xs)))}")
        lines.append(f"max({_rob_line(a[1:])[-1]}, {_rob_line(a[:-1])[-1]}) = {problem['value']}")
        return "\n".join(lines)

    def prompt(self, problem):
        return ask(f"Houses stand in a circle holding the values {' '.join(map(str, problem['a']))} (the last house is "
                   "next to the first). Choose houses so that no two chosen houses are next to each other. What is "
                   "the largest possible total value?", INT_FORMAT)


class LongestBitonicSubsequence(_OptEnv):
    """The longest subsequence that strictly increases and then strictly decreases (either part
    may be empty). d: 3d + 8 values from 1..2d + 10. Reward: -1 unparsable, 1 exact, else 0.
    Own problem: an LIS from each side meeting at a peak."""

    name = "longest_bitonic_subsequence"

    def size(self, difficulty):
        return 3 * difficulty + 8

    def draw(self, rng, difficulty):
        return {"a": [rng.randint(1, 2 * difficulty + 10) for _ in range(self.size(difficulty))]}

    def solve(self, p):
        a = p["a"]
        up, down = [], []
        for i, y in enumerate(a):
            up.append(1 + max((up[j] for j in range(i) if a[j] < y), default=0))
        for i in range(len(a) - 1, -1, -1):
            down.append(1 + max((down[len(a) - 1 - j] for j in range(i + 1, len(a)) if a[j] < a[i]), default=0))
        down.reverse()
        return max(u + w - 1 for u, w in zip(up, down))

    def prompt(self, problem):
        return ask(f"Sequence: {' '.join(map(str, problem['a']))}\n\nWhat is the length of the longest subsequence "
                   "(elements kept in order, not necessarily adjacent) that first strictly increases and then "
                   "strictly decreases? A purely increasing or purely decreasing subsequence also counts.",
                   INT_FORMAT)


class MaxProductSubarray(_OptEnv):
    """The largest product of a non-empty contiguous subarray of integers (negatives and zeros
    included: keep the largest and the smallest product ending at each position). d: 2d + 8
    values from -6..6. Reward: -1 unparsable, 1 exact, else 0. Own problem: signs flip the
    order, unlike max_subarray_sum."""

    name = "max_product_subarray"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def draw(self, rng, difficulty):
        return {"a": [rng.randint(-6, 6) for _ in range(self.size(difficulty))]}

    def solve(self, p):
        a = p["a"]
        hi = lo = best = a[0]
        for x in a[1:]:
            hi, lo = max(x, hi * x, lo * x), min(x, hi * x, lo * x)
            best = max(best, hi)
        return best

    def prompt(self, problem):
        return ask(f"Array: {' '.join(map(str, problem['a']))}\n\nWhat is the largest product of the elements of a "
                   "non-empty contiguous subarray?", INT_FORMAT)


def _rob_line(xs) -> list[int]:
    """Best totals of the prefixes of a row with no two neighbours taken."""
    best, take, skip = [], 0, 0
    for x in xs:
        take, skip = skip + x, max(take, skip)
        best.append(max(take, skip))
    return best or [0]
