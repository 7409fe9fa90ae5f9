"""Classical algorithms over sequences and the data structures behind them: interval merging,
spiral traversal, union-find, sliding-window maxima, prefix sums under updates, lowest common
ancestors, Huffman coding, running medians, monotonic stacks (next greater element, largest
rectangle, trapped water).

Each answer is one determined list or integer. Lists score (entries right / entries)^5
(share(): 1 only when all are right), -0.5 for the wrong number of entries; where a random
guess already gets half the entries right (yes/no answers) the power is 10.
"""
from __future__ import annotations

import heapq

from envs.gym.base import INT_FORMAT, UNCOUNTED, GymEnv, IntEnv, ask, int_list, jaccard, matches

LIST_FORMAT = "Give the {what} separated by spaces, e.g. <answer>{example}</answer>."


class MergeIntervals(GymEnv):
    """Union of closed intervals as disjoint intervals (classical algorithms, sort and sweep).
    d: n = d + 5 intervals inside [0, 5n]; intervals that touch merge. Answer: one "a b" per
    merged interval. Reward: -1 unparsable, -0.5 an odd number of values, else
    (|A & G| / |A | G|)^5 over the sets of intervals."""

    name = "merge_intervals"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        iv = []
        for _ in range(n):
            a = rng.randint(0, 5 * n - 1)
            iv.append((a, rng.randint(a + 1, min(5 * n, a + n))))
        merged = []
        for a, b in sorted(iv):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        return {"intervals": iv, "merged": merged}, "\n".join(f"{a} {b}" for a, b in merged)

    def prompt(self, problem):
        return ask("Closed intervals: " + ", ".join(f"[{a}, {b}]" for a, b in problem["intervals"]) +
                   "\n\nWrite their union as a list of disjoint closed intervals (intervals that overlap or touch "
                   "join into one), sorted from left to right.",
                   "Give one interval per line as two numbers \"start end\", e.g. <answer>0 4\n6 9</answer>.")

    def reward(self, problem, answer):
        nums = int_list(answer)
        if len(nums) % 2:
            return -0.5
        return jaccard(set(zip(nums[::2], nums[1::2])), {tuple(m) for m in problem["merged"]})


class SpiralOrder(GymEnv):
    """A matrix read in clockwise spiral order from the top-left (classical algorithms,
    simulation). d: an r x c matrix, r = d // 2 + 3, c = (d + 1) // 2 + 3, entries 0..99. Reward:
    -1 unparsable, -0.5 wrong count, else (entries right / all)^5."""

    name = "spiral_order"
    category = "algorithms"
    brick_io = ("grid[int]", "list[int]")
    brick_text = "the entries of the grid read in clockwise spiral order starting at the top-left corner"

    def size(self, difficulty):
        return (difficulty // 2 + 3) * ((difficulty + 1) // 2 + 3)

    def brick_input(self, rng, difficulty):
        return [[rng.randint(0, 99) for _ in range((difficulty + 1) // 2 + 3)] for _ in range(difficulty // 2 + 3)]

    def brick_apply(self, value, counter):
        counter.tick(len(value) * len(value[0]))
        top, bottom, left, right, out = 0, len(value) - 1, 0, len(value[0]) - 1, []
        while top <= bottom and left <= right:
            out += value[top][left:right + 1]
            out += [value[r][right] for r in range(top + 1, bottom + 1)]
            if top < bottom:
                out += value[bottom][left:right][::-1]
            if left < right:
                out += [value[r][left] for r in range(bottom - 1, top, -1)]
            top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
        return out

    def build(self, rng, difficulty):
        grid = self.brick_input(rng, difficulty)
        order = self.brick_apply(grid, UNCOUNTED)
        return {"grid": grid, "order": order}, " ".join(map(str, order))

    def prompt(self, problem):
        rows = "\n".join(" ".join(map(str, r)) for r in problem["grid"])
        return ask(f"Matrix:\n{rows}\n\nRead all entries in clockwise spiral order: along the top row to the right, "
                   "down the right column, back along the bottom row, up the left column, then the same on the "
                   "inner matrix, and so on.", LIST_FORMAT.format(what="entries in that order", example="1 2 3 6 9 8"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["order"])


class UnionFindQueries(GymEnv):
    """Connectivity under unions, online (classical algorithms, disjoint-set union). d: n =
    d + 6 elements, 2n operations, "union a b" or "same a b". Answer: 1/0 per "same" query.
    Reward: -1 unparsable, -0.5 wrong count, else (answers right / queries)^10."""

    name = "union_find_queries"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        parent = list(range(n))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        ops, answers = [], []
        for i in range(2 * n):
            a, b = rng.sample(range(n), 2)
            if i % 2 == 0 or rng.random() < 0.3:
                ops.append(("union", a, b))
                parent[find(a)] = find(b)
            else:
                ops.append(("same", a, b))
                answers.append(int(find(a) == find(b)))
        if not answers:
            ops.append(("same", 0, 1))
            answers.append(int(find(0) == find(1)))
        return {"n": n, "ops": ops, "answers": answers}, " ".join(map(str, answers))

    def prompt(self, problem):
        text = "\n".join(f"{op} {a} {b}" for op, a, b in problem["ops"])
        return ask(f"Elements 0 to {problem['n'] - 1} start in separate groups. Process these operations in order: "
                   f"\"union a b\" merges the groups of a and b; \"same a b\" asks whether a and b are now in the "
                   f"same group.\n{text}",
                   LIST_FORMAT.format(what="answers to the \"same\" operations in order, 1 for yes and 0 for no,",
                                      example="1 0 0 1"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["answers"], power=10)


class SlidingWindowMaximum(GymEnv):
    """Maximum of every window of k consecutive numbers (classical algorithms, monotonic
    deque). d: n = 2d + 8 numbers in 0..99, k uniform in [2, n // 2]. Reward: -1 unparsable,
    -0.5 wrong count, else (maxima right / windows)^5."""

    name = "sliding_window_maximum"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a, k = [rng.randint(0, 99) for _ in range(n)], rng.randint(2, n // 2)
        return {"array": a, "k": k, "maxima": [max(a[i:i + k]) for i in range(n - k + 1)]}, \
            " ".join(str(max(a[i:i + k])) for i in range(n - k + 1))

    def prompt(self, problem):
        a, k = problem["array"], problem["k"]
        return ask("Sequence: " + " ".join(map(str, a)) + f"\n\nFor every window of {k} consecutive numbers, from "
                   f"the leftmost to the rightmost ({len(a) - k + 1} windows), give the largest number in it.",
                   LIST_FORMAT.format(what="maxima in order", example="7 7 9 4"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["maxima"])


class RangeSumQueries(GymEnv):
    """Range sums under point updates (classical algorithms, a Fenwick tree's job). d: n = d + 6
    numbers in 0..20, 2n operations "add i v" or "sum l r" (0-based, inclusive). Reward: -1
    unparsable, -0.5 wrong count, else (sums right / queries)^5."""

    name = "range_sum_queries"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [rng.randint(0, 20) for _ in range(n)]
        cur, ops, sums = a[:], [], []
        for i in range(2 * n):
            if i % 2 == 0:
                j, v = rng.randrange(n), rng.randint(-10, 10)
                ops.append(("add", j, v))
                cur[j] += v
            else:
                lo = rng.randrange(n)
                hi = rng.randint(lo, n - 1)
                ops.append(("sum", lo, hi))
                sums.append(sum(cur[lo:hi + 1]))
        return {"array": a, "ops": ops, "sums": sums}, " ".join(map(str, sums))

    def prompt(self, problem):
        text = "\n".join(f"{op} {x} {y}" for op, x, y in problem["ops"])
        return ask("Array (positions from 0): " + " ".join(map(str, problem["array"])) + "\n\nProcess in order: "
                   "\"add i v\" adds v to position i; \"sum l r\" asks for the sum of positions l..r inclusive.\n" + text,
                   LIST_FORMAT.format(what="answers to the \"sum\" operations in order", example="12 -3 40"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["sums"])


class LowestCommonAncestor(GymEnv):
    """Lowest common ancestors in a rooted tree (classical algorithms). d: n = 2d + 6 vertices,
    root 0, d + 3 queries. Reward: -1 unparsable, -0.5 wrong count, else (answers right /
    queries)^5."""

    name = "lowest_common_ancestor"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        parent = [-1] + [rng.randrange(v) for v in range(1, n)]
        queries, answers = [], []
        for _ in range(difficulty + 3):
            u, v = rng.sample(range(n), 2)
            up = set()
            x = u
            while x >= 0:
                up.add(x)
                x = parent[x]
            x = v
            while x not in up:
                x = parent[x]
            queries.append((u, v))
            answers.append(x)
        return {"parent": parent, "queries": queries, "answers": answers}, " ".join(map(str, answers))

    def prompt(self, problem):
        p = problem["parent"]
        edges = ", ".join(f"{v}->{p[v]}" for v in range(1, len(p)))
        qs = ", ".join(f"({u}, {v})" for u, v in problem["queries"])
        return ask(f"A tree rooted at vertex 0 has {len(p)} vertices; each other vertex points to its parent: {edges}."
                   f"\n\nFor each pair, find the lowest common ancestor (the deepest vertex that is an ancestor of both; "
                   f"a vertex is its own ancestor): {qs}.", LIST_FORMAT.format(what="answers in order", example="0 3 3"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["answers"])


class HuffmanCodeLength(IntEnv):
    """Total length of an optimal prefix code (classical algorithms, Huffman's greedy merge).
    d: d + 4 symbols with frequencies in 1..50. Reward: -1 unparsable, 1 exact, else 0."""

    name = "huffman_code_length"
    category = "algorithms"
    brick_io = ("list[int]", "int")
    brick_text = "the fewest total bits of a binary prefix code for symbols with these positive frequencies (Huffman cost)"

    def size(self, difficulty):
        return difficulty + 4

    def brick_input(self, rng, difficulty):
        return [rng.randint(1, 50) for _ in range(self.size(difficulty))]

    def brick_apply(self, value, counter):
        if len(value) < 2 or min(value) < 1:
            return None
        counter.tick(len(value) * max(1, len(value).bit_length()))
        heap, total = list(value), 0
        heapq.heapify(heap)
        while len(heap) > 1:
            merged = heapq.heappop(heap) + heapq.heappop(heap)
            total += merged
            heapq.heappush(heap, merged)
        return total

    def build(self, rng, difficulty):
        freq = self.brick_input(rng, difficulty)
        v = self.brick_apply(freq, UNCOUNTED)
        return {"freq": freq, "value": v}, str(v)

    def prompt(self, problem):
        f = problem["freq"]
        return ask(f"{len(f)} symbols occur with frequencies " + ", ".join(map(str, f)) + ". Each symbol gets a binary "
                   "codeword, no codeword a prefix of another. What is the smallest possible total number of bits, "
                   "sum over symbols of frequency x codeword length?", INT_FORMAT)


class RunningMedian(GymEnv):
    """The lower median of every prefix of a stream (classical algorithms, two heaps). d: n =
    2d + 5 numbers in 0..99. Reward: -1 unparsable, -0.5 wrong count, else (medians right /
    n)^5."""

    name = "running_median"
    category = "algorithms"
    brick_io = ("list[int]", "list[int]")
    brick_text = "for each prefix of the list, its lower median (the element at position (k - 1) // 2 of the sorted prefix of length k)"

    def size(self, difficulty):
        return 2 * difficulty + 5

    def brick_input(self, rng, difficulty):
        return [rng.randint(0, 99) for _ in range(self.size(difficulty))]

    def brick_apply(self, value, counter):
        low, high, out = [], [], []  # max-heap (negated) and min-heap
        for x in value:
            counter.tick(2 * max(1, len(low).bit_length()))
            if low and x > -low[0]:
                heapq.heappush(high, x)
            else:
                heapq.heappush(low, -x)
            if len(low) > len(high) + 1:
                heapq.heappush(high, -heapq.heappop(low))
            elif len(high) > len(low):
                heapq.heappush(low, -heapq.heappop(high))
            out.append(-low[0])
        return out

    def build(self, rng, difficulty):
        a = self.brick_input(rng, difficulty)
        med = self.brick_apply(a, UNCOUNTED)
        return {"array": a, "medians": med}, " ".join(map(str, med))

    def prompt(self, problem):
        return ask("Stream: " + " ".join(map(str, problem["array"])) + "\n\nAfter each number arrives, give the lower "
                   "median of the numbers so far (for k numbers, the ((k + 1) // 2)-th smallest).",
                   LIST_FORMAT.format(what="medians in order", example="5 3 5 5"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["medians"])


class NextGreaterElement(GymEnv):
    """For each element, the next strictly greater element to its right, or -1 (classical
    algorithms, monotonic stack). d: n = 2d + 6 numbers in 0..50. Reward: -1 unparsable, -0.5
    wrong count, else (entries right / n)^5."""

    name = "next_greater_element"
    category = "algorithms"
    brick_io = ("list[int]", "list[int]")
    brick_text = "for each element, the first strictly greater element to its right, or -1 when there is none"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def brick_input(self, rng, difficulty):
        return [rng.randint(0, 50) for _ in range(self.size(difficulty))]

    def brick_apply(self, value, counter):
        counter.tick(2 * len(value) + 1)
        out, stack = [-1] * len(value), []
        for i, x in enumerate(value):
            while stack and value[stack[-1]] < x:
                out[stack.pop()] = x
            stack.append(i)
        return out

    def build(self, rng, difficulty):
        a = self.brick_input(rng, difficulty)
        nxt = self.brick_apply(a, UNCOUNTED)
        return {"array": a, "next": nxt}, " ".join(map(str, nxt))

    def prompt(self, problem):
        return ask("Sequence: " + " ".join(map(str, problem["array"])) + "\n\nFor each number, give the first number "
                   "to its right that is strictly greater, or -1 if there is none.",
                   LIST_FORMAT.format(what="answers in order", example="4 9 9 -1"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["next"])


class LargestRectangleHistogram(IntEnv):
    """Largest rectangle under a histogram (classical algorithms, monotonic stack). d: n =
    2d + 6 bars of height 1..30. Reward: -1 unparsable, 1 exact, else 0."""

    name = "largest_rectangle_histogram"
    category = "algorithms"
    brick_io = ("list[int]", "int")
    brick_text = "the largest area of an axis-parallel rectangle under the histogram with these non-negative bar heights (bars of width 1)"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def brick_input(self, rng, difficulty):
        return [rng.randint(1, 30) for _ in range(self.size(difficulty))]

    def brick_apply(self, value, counter):
        if any(h < 0 for h in value):
            return None
        counter.tick(2 * len(value) + 1)
        best, stack = 0, []  # (start, height)
        for i, h in enumerate(value + [0]):
            start = i
            while stack and stack[-1][1] >= h:
                start, top = stack.pop()
                best = max(best, top * (i - start))
            stack.append((start, h))
        return best

    def build(self, rng, difficulty):
        a = self.brick_input(rng, difficulty)
        v = self.brick_apply(a, UNCOUNTED)
        return {"heights": a, "value": v}, str(v)

    def prompt(self, problem):
        return ask("A histogram has bars of width 1 with heights " + " ".join(map(str, problem["heights"])) +
                   " (left to right, adjacent). What is the largest area of an axis-parallel rectangle that fits "
                   "inside it?", INT_FORMAT)


class TrappingRainWater(IntEnv):
    """Water trapped between bars after rain (classical algorithms, two pointers). d: n =
    2d + 6 bars of height 0..20. Reward: -1 unparsable, 1 exact, else 0."""

    name = "trapping_rain_water"
    category = "algorithms"
    brick_io = ("list[int]", "int")
    brick_text = "the units of water trapped between bars of these non-negative heights (width 1 each) after rain"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def brick_input(self, rng, difficulty):
        return [rng.randint(0, 20) for _ in range(self.size(difficulty))]

    def brick_apply(self, value, counter):
        if any(h < 0 for h in value):
            return None
        counter.tick(len(value) + 1)
        left, right, water = 0, 0, [0] * len(value)
        for i, h in enumerate(value):
            left = max(left, h)
            water[i] = left
        for i in range(len(value) - 1, -1, -1):
            right = max(right, value[i])
            water[i] = min(water[i], right) - value[i]
        return sum(water)

    def build(self, rng, difficulty):
        a = self.brick_input(rng, difficulty)
        v = self.brick_apply(a, UNCOUNTED)
        return {"heights": a, "value": v}, str(v)

    def prompt(self, problem):
        return ask("Bars of width 1 stand side by side with heights " + " ".join(map(str, problem["heights"])) +
                   ". After heavy rain, how many units of water stay trapped between them (water above a bar is "
                   "held only if taller bars stand somewhere on both sides)?", INT_FORMAT)
