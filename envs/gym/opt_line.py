"""Optimisation along a line or a sequence, graded against the optimum: facility location on a
line (k-median and discrete k-center), the order of cuts of a stick, stock trading with at most
k transactions, word wrap with least raggedness.

Each optimum comes from an exact polynomial algorithm (DP over contiguous clusters, interval
DP, binary search with a greedy check), never from search. Rewards follow the optimisation
family of optimization.py (our choice, in the (.)^5 shape of PolynomialMinimum's reward, rlve
lines 53-55): -1 unparsable, -0.5 an answer that does not describe a candidate, 0 for an
infeasible one, else (value / optimum)^5 or (optimum / cost)^5, exactly 1 only at the optimum
(ratio()).
"""
from __future__ import annotations

import bisect
import string

from envs.gym.base import GymEnv, Retry, ask, int_list, ratio

LIMIT = 10 ** 9  # positions beyond this are not candidates (keeps scoring arithmetic small)


def _houses(rng, n: int) -> list[int]:
    return sorted(rng.sample(range(10 * n + 1), n))


def median_cost(xs: list[int], facilities: list[int]) -> int:
    fs = sorted(facilities)
    total = 0
    for x in xs:
        k = bisect.bisect_left(fs, x)
        total += min(abs(x - fs[j]) for j in (k - 1, k) if 0 <= j < len(fs))
    return total


class KMedianLine(GymEnv):
    """Place k facilities on a line to minimise the total distance from every house to its
    nearest facility (optimisation; optimal clusters are contiguous, each served at a median:
    DP over prefixes). d: n = d + 6 houses at distinct integer positions in [0, 10n], k =
    d // 4 + 2 facilities at any integer positions. Answer: the k positions. Reward: -0.5 not k
    integers in [-10^9, 10^9], else (optimum / its total distance)^5. Its own problem: facility
    location (a sum of distances to the nearest of k points); linear_partition balances
    block sums, k_center_line minimises the largest distance."""

    name = "k_median_line"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n, k = self.size(difficulty), difficulty // 4 + 2
        xs = _houses(rng, n)
        pre = [0]
        for x in xs:
            pre.append(pre[-1] + x)

        def cost(i, j):  # houses i..j-1 served at their median
            m = (i + j - 1) // 2
            return xs[m] * (m - i) - (pre[m] - pre[i]) + (pre[j] - pre[m + 1]) - xs[m] * (j - m - 1)
        inf = float("inf")
        best = [[inf] * (n + 1) for _ in range(k + 1)]
        arg = [[0] * (n + 1) for _ in range(k + 1)]
        best[0][0] = 0
        for f in range(1, k + 1):
            for j in range(1, n + 1):
                for i in range(f - 1, j):
                    cand = best[f - 1][i] + cost(i, j)
                    if cand < best[f][j]:
                        best[f][j], arg[f][j] = cand, i
        fac, j = [], n
        for f in range(k, 0, -1):
            i = arg[f][j]
            fac.append(xs[(i + j - 1) // 2])
            j = i
        return {"houses": xs, "k": k, "optimum": best[k][n]}, " ".join(map(str, sorted(fac)))

    def prompt(self, problem):
        return ask(f"Houses stand on a straight road at positions {' '.join(map(str, problem['houses']))}. Build "
                   f"{problem['k']} facilities at integer positions so that the sum, over all houses, of the distance "
                   "to the nearest facility is as small as possible.",
                   f"Give the {problem['k']} facility positions separated by spaces, e.g. <answer>4 17</answer>.")

    def reward(self, problem, answer):
        fs = int_list(answer)
        if len(fs) != problem["k"] or any(abs(f) > LIMIT for f in fs):
            return -0.5
        return ratio(problem["optimum"], median_cost(problem["houses"], fs), 5)


def _centers_needed(xs: list[int], r: int) -> list[int]:
    """Fewest house positions covering every house within distance r, greedily from the left:
    the rightmost house within r of the first uncovered one."""
    out, i, n = [], 0, len(xs)
    while i < n:
        j = bisect.bisect_right(xs, xs[i] + r) - 1
        out.append(xs[j])
        i = bisect.bisect_right(xs, xs[j] + r)
    return out


class KCenterLine(GymEnv):
    """Choose k of the houses on a line as centres so that the largest distance from a house to
    its nearest centre is as small as possible (optimisation; the discrete k-center problem on
    a line: binary search on the radius over pairwise distances, each tested by a greedy
    sweep). d: n = d + 6 houses at distinct positions in [0, 10n], k = d // 4 + 2. Answer:
    the positions of the k centres. Reward: -0.5 not k distinct house positions, else
    (optimum / its radius)^5. Its own problem: a minimax objective with centres restricted to
    the houses; k_median_line minimises a sum and may build anywhere."""

    name = "k_center_line"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n, k = self.size(difficulty), difficulty // 4 + 2
        xs = _houses(rng, n)
        radii = sorted({b - a for i, a in enumerate(xs) for b in xs[i:]})
        lo, hi = 0, len(radii) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if len(_centers_needed(xs, radii[mid])) <= k:
                hi = mid
            else:
                lo = mid + 1
        r = radii[lo]
        centres = _centers_needed(xs, r)
        spare = [x for x in xs if x not in centres]
        centres = sorted(centres + spare[:k - len(centres)])  # exactly k (extra centres never hurt)
        if r == 0:
            raise Retry
        return {"houses": xs, "k": k, "optimum": r}, " ".join(map(str, centres))

    def prompt(self, problem):
        return ask(f"Houses stand on a straight road at positions {' '.join(map(str, problem['houses']))}. Choose "
                   f"{problem['k']} of the houses as centres so that the largest distance from any house to its "
                   "nearest centre is as small as possible.",
                   f"Give the positions of the {problem['k']} chosen houses separated by spaces, e.g. "
                   "<answer>4 17</answer>.")

    def reward(self, problem, answer):
        xs, fs = problem["houses"], int_list(answer)
        if len(fs) != problem["k"] or len(set(fs)) != len(fs) or not set(fs) <= set(xs):
            return -0.5
        fs.sort()
        radius = max(min(abs(x - fs[j]) for j in (b - 1, b) if 0 <= j < len(fs))
                     for x in xs for b in [bisect.bisect_left(fs, x)])
        return ratio(problem["optimum"], radius, 5)


def cut_cost(length: int, order: list[int]) -> int:
    """Each cut costs the length of the piece it cuts."""
    cuts, total = [0, length], 0
    for c in order:
        k = bisect.bisect_left(cuts, c)
        total += cuts[k] - cuts[k - 1]
        cuts.insert(k, c)
    return total


class StickCuttingOrder(GymEnv):
    """Cut a stick at given marks; each cut costs the current length of the piece being cut;
    choose the order of cuts with the least total cost (optimisation; interval DP over pairs
    of marks, O(m^3)). d: m = d + 4 marks at distinct positions inside a stick of length
    10(m + 1). Answer: the marks in cutting order. Reward: -0.5 not an ordering of the marks,
    else (optimum / its cost)^5. Its own problem: the cost depends on which pieces exist when,
    an order over splits; matrix_chain_multiplication's costs are products of dimensions and
    rod_cutting chooses the pieces themselves."""

    name = "stick_cutting_order"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        m = self.size(difficulty)
        length = 10 * (m + 1)
        marks = sorted(rng.sample(range(1, length), m))
        pts = [0] + marks + [length]
        q = len(pts)
        best = [[0] * q for _ in range(q)]
        arg = [[-1] * q for _ in range(q)]
        for span in range(2, q):
            for i in range(q - span):
                j = i + span
                k = min(range(i + 1, j), key=lambda k: best[i][k] + best[k][j])
                best[i][j], arg[i][j] = best[i][k] + best[k][j] + pts[j] - pts[i], k
        order, stack = [], [(0, q - 1)]
        while stack:
            i, j = stack.pop()
            if arg[i][j] >= 0:
                k = arg[i][j]
                order.append(pts[k])
                stack += [(k, j), (i, k)]
        shown = marks[:]
        rng.shuffle(shown)
        return {"length": length, "marks": shown, "optimum": best[0][q - 1]}, " ".join(map(str, order))

    def prompt(self, problem):
        return ask(f"A stick of length {problem['length']} must be cut at the marks {' '.join(map(str, problem['marks']))} "
                   "(distances from its left end). Each cut costs the length of the piece being cut at that moment. "
                   "Choose the order of the cuts with the smallest total cost.",
                   "Give the marks in the order you cut them, separated by spaces, e.g. <answer>12 4 30</answer>.")

    def reward(self, problem, answer):
        order = int_list(answer)
        if sorted(order) != sorted(problem["marks"]) or len(set(order)) != len(order):
            return -0.5
        return ratio(problem["optimum"], cut_cost(problem["length"], order), 5)


def best_trades(prices: list[int], k: int) -> tuple[int, list[tuple[int, int]]]:
    """Most profit with at most k buy-then-sell trades, none overlapping: f[t][i] is the best
    with t trades on days i.., either idle on day i or buying on i and selling on some j > i
    (day j may start the next trade). O(k n^2)."""
    n = len(prices)
    f = [[0] * (n + 1) for _ in range(k + 1)]
    arg = [[None] * (n + 1) for _ in range(k + 1)]
    for t in range(1, k + 1):
        for i in range(n - 1, -1, -1):
            f[t][i] = f[t][i + 1]
            for j in range(i + 1, n):
                cand = prices[j] - prices[i] + f[t - 1][j]
                if cand > f[t][i]:
                    f[t][i], arg[t][i] = cand, j
    trades, t, i = [], k, 0
    while t and i < n:
        if arg[t][i] is None:
            i += 1
        else:
            trades.append((i, arg[t][i]))
            i, t = arg[t][i], t - 1
    return f[k][0], trades


class StockKTransactions(GymEnv):
    """Buy and sell one share at most k times, never holding two at once, maximising profit
    (optimisation; DP over trades left and the first day still free, O(k n^2)). d: n = d + 8 days
    of prices 1..100, k = d // 5 + 2; redrawn when no trade gains. Answer: one line "buy sell"
    (day indices) per trade. Reward: -0.5 a line that is not two days buy < sell, 0 for more
    than k trades or overlapping ones (a sale on the day of the next purchase is allowed), else
    (profit / optimum)^5 (a loss counts as 0 profit). Its own problem: the trade-count budget
    turns max_subarray_sum-like gains into a k-interval selection."""

    name = "stock_k_transactions"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 8

    def build(self, rng, difficulty):
        n, k = self.size(difficulty), difficulty // 5 + 2
        prices = [rng.randint(1, 100) for _ in range(n)]
        profit, trades = best_trades(prices, k)
        if profit <= 0:
            raise Retry
        return {"prices": prices, "k": k, "optimum": profit}, "\n".join(f"{b} {s}" for b, s in trades)

    def prompt(self, problem):
        prices = problem["prices"]
        return ask(f"A share's price on days 0 to {len(prices) - 1} is {' '.join(map(str, prices))}. You may make at "
                   f"most {problem['k']} trades, each buying one share on some day and selling it on a later day, "
                   "never holding more than one share (you may sell and buy again on the same day). Maximise the "
                   "total profit.", "Give one line per trade with its buy day and sell day, e.g. "
                   "<answer>1 3\n5 9</answer>.")

    def reward(self, problem, answer):
        prices = problem["prices"]
        rows = [int_list(line) for line in answer.splitlines() if line.strip()]
        if any(len(r) != 2 or not 0 <= r[0] < r[1] < len(prices) for r in rows):
            return -0.5
        rows.sort()
        if len(rows) > problem["k"] or any(a[1] > b[0] for a, b in zip(rows, rows[1:])):
            return 0.0
        return ratio(max(0, sum(prices[s] - prices[b] for b, s in rows)), problem["optimum"], 5)


def wrap_cost(lengths: list[int], starts: list[int], width: int) -> int | None:
    """Sum over lines but the last of (width - line length)^2; None if a line overflows."""
    bounds = [0] + starts + [len(lengths)]
    total = 0
    for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
        used = sum(lengths[a:b]) + (b - a - 1)
        if used > width:
            return None
        if i < len(bounds) - 2:
            total += (width - used) ** 2
    return total


class WordWrapRaggedness(GymEnv):
    """Break a paragraph into lines of at most W characters minimising the sum of squared
    trailing spaces of every line but the last (optimisation; Knuth-Plass-style DP over break
    points; greedy filling is not optimal). d: n = d + 8 words of 1..8 letters, W = 20.
    Answer: the indices of the words that start lines 2, 3, .... Reward: -0.5 not increasing
    indices in 1..n-1, 0 if a line overflows, else (optimum + 1) / (its cost + 1) to the 5th
    (our choice: + 1 keeps a zero optimum gradable), 1 only at the optimum. Its own problem:
    a convex penalty on line slack, solved over break points; linear_partition minimises the
    largest block instead."""

    name = "word_wrap_raggedness"
    category = "optimization"
    width = 20

    def size(self, difficulty):
        return difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 8))) for _ in range(n)]
        lengths = [len(w) for w in words]
        inf = float("inf")
        best, arg = [inf] * n + [0], [n] * (n + 1)  # best[i]: least cost of words i.. (the last line free)
        for i in range(n - 1, -1, -1):
            used = -1
            for j in range(i + 1, n + 1):
                used += lengths[j - 1] + 1
                if used > self.width:
                    break
                cost = 0 if j == n else (self.width - used) ** 2 + best[j]
                if cost < best[i]:
                    best[i], arg[i] = cost, j
        starts, i = [], arg[0]
        while i < n:
            starts.append(i)
            i = arg[i]
        if not starts:
            raise Retry  # everything fits on one line: nothing to decide
        return {"words": words, "optimum": best[0]}, " ".join(map(str, starts))

    def prompt(self, problem):
        words = problem["words"]
        return ask(f"Words (indices from 0): {' '.join(words)}\n\nBreak them, in this order, into lines of at most "
                   f"{self.width} characters (words on a line are separated by one space). The cost of a line is the "
                   "square of its unused characters; the last line costs nothing. Minimise the total cost.",
                   "Give the indices of the words that begin the second, third, ... lines, separated by spaces, e.g. "
                   "<answer>4 9 13</answer>.")

    def reward(self, problem, answer):
        n = len(problem["words"])
        starts = int_list(answer)
        if any(not 1 <= s < n for s in starts) or starts != sorted(set(starts)):
            return -0.5
        cost = wrap_cost([len(w) for w in problem["words"]], starts, self.width)
        if cost is None:
            return 0.0
        return ratio(problem["optimum"] + 1, cost + 1, 5)


def isotonic_l1(a: list[int]) -> tuple[int, list[int]]:
    """The least sum |a_i - b_i| over non-decreasing b: some optimum takes its values from a, so
    DP over (position, value index) with a running prefix minimum, O(n^2)."""
    vals = sorted(set(a))
    m, inf = len(vals), float("inf")
    cost = [[0] * m]
    for x in a:
        prev, row, best = cost[-1], [0] * m, inf
        for k, v in enumerate(vals):
            best = min(best, prev[k])  # best over b_(i-1) <= v
            row[k] = best + abs(x - v)
        cost.append(row)
    k = min(range(m), key=lambda k: cost[-1][k])
    optimum, out = cost[-1][k], []
    for i in range(len(a), 0, -1):  # walk back: b_i = vals[k], then the best k' <= k at i - 1
        out.append(vals[k])
        if i > 1:
            k = min(range(k + 1), key=lambda j: cost[i - 1][j])
    return optimum, out[::-1]


class IsotonicAdjustment(GymEnv):
    """Change a sequence into a non-decreasing one, paying |old - new| per entry, as cheaply as
    possible (optimisation; L1 isotonic regression, DP over positions and candidate values).
    d: n = d + 6 integers in [0, 10(d + 2)]. Answer: the new sequence. Reward: -0.5 not n
    integers, 0 if it decreases somewhere, else (optimum / its cost)^5 (an already sorted input
    is redrawn, so the optimum is positive). Its own problem: the answer is a new sequence and
    the cost is a distance to it; sorting and longest_increasing_subsequence rearrange or
    select, they do not adjust values."""

    name = "isotonic_adjustment"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [rng.randint(0, 10 * (difficulty + 2)) for _ in range(n)]
        if a == sorted(a):
            raise Retry
        opt, b = isotonic_l1(a)
        return {"sequence": a, "optimum": opt}, " ".join(map(str, b))

    def prompt(self, problem):
        a = problem["sequence"]
        return ask(f"Sequence: {' '.join(map(str, a))}\n\nReplace it by a non-decreasing sequence of {len(a)} integers; "
                   "changing an entry from x to y costs |x - y|. Make the total cost as small as possible.",
                   f"Give the {len(a)} new entries in order, separated by spaces, e.g. <answer>1 3 3 7</answer>.")

    def reward(self, problem, answer):
        a, b = problem["sequence"], int_list(answer)
        if len(b) != len(a) or any(abs(y) > LIMIT for y in b):
            return -0.5
        if any(x > y for x, y in zip(b, b[1:])):
            return 0.0
        return ratio(problem["optimum"], sum(abs(x - y) for x, y in zip(a, b)), 5)


def simulate_cache(requests: list[int], k: int, evictions: list[int]) -> int | None:
    """Misses of a k-slot cache that evicts the given pages in turn; None if an eviction names a
    page not in the cache, or the list runs out or has pages left over."""
    cache, misses, it = set(), 0, iter(evictions)
    for r in requests:
        if r in cache:
            continue
        misses += 1
        if len(cache) == k:
            out = next(it, None)
            if out not in cache:
                return None
            cache.remove(out)
        cache.add(r)
    return misses if next(it, None) is None else None


class CacheEviction(GymEnv):
    """Serve a sequence of page requests with a k-slot cache, choosing what to evict on each
    miss, to miss as rarely as possible (optimisation; Belady's rule, evict the page used
    farthest in the future, is optimal offline). d: k = d // 6 + 2 slots, k + 2 + d // 4
    distinct pages, 3(d + 6) requests. Answer: the evicted pages in order, one per eviction.
    Reward: -0.5 if an eviction names a page not in the cache or the count does not match the
    misses, else (optimal misses / its misses)^5. Its own problem: an online-looking decision
    sequence whose offline optimum is a greedy over future uses; no other env simulates a
    cache."""

    name = "cache_eviction"
    category = "optimization"

    def size(self, difficulty):
        return 3 * (difficulty + 6)

    def build(self, rng, difficulty):
        k = difficulty // 6 + 2
        pages = k + 2 + difficulty // 4
        req = [rng.randrange(pages) for _ in range(self.size(difficulty))]
        cache, evicted, misses = set(), [], 0
        for t, r in enumerate(req):
            if r in cache:
                continue
            misses += 1
            if len(cache) == k:
                def next_use(p):
                    return next((u for u in range(t + 1, len(req)) if req[u] == p), len(req))
                out = max(sorted(cache), key=next_use)
                cache.remove(out)
                evicted.append(out)
            cache.add(r)
        if not evicted:
            raise Retry
        return {"requests": req, "k": k, "optimum": misses}, " ".join(map(str, evicted))

    def prompt(self, problem):
        return ask(f"A cache holds {problem['k']} pages and starts empty. Pages are requested in this order: "
                   f"{' '.join(map(str, problem['requests']))}. A request for a page not in the cache is a miss and "
                   "loads it; when the cache is full, a miss first evicts a page of your choice. Miss as few times as "
                   "possible.", "Give the evicted pages in the order they are evicted, separated by spaces, e.g. "
                   "<answer>3 0 3 5</answer>.")

    def reward(self, problem, answer):
        misses = simulate_cache(problem["requests"], problem["k"], int_list(answer))
        if misses is None:
            return -0.5
        return ratio(problem["optimum"], misses, 5)


class PaintHouses(GymEnv):
    """Paint a row of houses, each with its own price per colour, so that neighbours differ,
    at the least total price (optimisation; DP over houses keeping the best and second-best
    colour). d: n = d + 5 houses, c = 3 + d // 10 colours, prices 1..20. Answer: each house's
    colour. Reward: -0.5 not n colours in 0..c-1, 0 if two neighbours share a colour, else
    (optimum / its price)^5. Its own problem: a priced colouring of a path, polynomial by DP;
    graph_coloring asks for any proper colouring of a general graph (NP-complete, planted)."""

    name = "paint_houses"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n, c = self.size(difficulty), 3 + difficulty // 10
        price = [[rng.randint(1, 20) for _ in range(c)] for _ in range(n)]
        best = [price[0][:]]
        for i in range(1, n):
            best.append([price[i][j] + min(best[-1][q] for q in range(c) if q != j) for j in range(c)])
        colours = [min(range(c), key=lambda j: best[-1][j])]
        for i in range(n - 2, -1, -1):
            colours.append(min((q for q in range(c) if q != colours[-1]), key=lambda q: best[i][q]))
        colours.reverse()
        return {"price": price, "optimum": min(best[-1])}, " ".join(map(str, colours))

    def prompt(self, problem):
        price = problem["price"]
        rows = "\n".join(f"house {i}: " + " ".join(map(str, r)) for i, r in enumerate(price))
        c = len(price[0])
        return ask(f"Price of painting each house in colour 0 to {c - 1}:\n{rows}\n\nPaint every house so that neighbouring "
                   "houses (i and i + 1) have different colours, at the smallest total price.",
                   f"Give {len(price)} colours separated by spaces: the colour of houses 0 to {len(price) - 1}.")

    def reward(self, problem, answer):
        price, colours = problem["price"], int_list(answer)
        c = len(price[0])
        if len(colours) != len(price) or any(not 0 <= j < c for j in colours):
            return -0.5
        if any(a == b for a, b in zip(colours, colours[1:])):
            return 0.0
        return ratio(problem["optimum"], sum(price[i][j] for i, j in enumerate(colours)), 5)


def _greedy_spread(xs: list[int], gap: int) -> list[int]:
    """The leftmost-first choice of positions at least `gap` apart (as many as possible)."""
    out = [xs[0]]
    for x in xs[1:]:
        if x - out[-1] >= gap:
            out.append(x)
    return out


class MaxMinDispersion(GymEnv):
    """Choose k of the given positions on a line so that the smallest gap between chosen ones is
    as large as possible (optimisation; binary search on the gap, each tested by the
    leftmost-first greedy). d: n = d + 6 distinct positions in [0, 20n], k = d // 4 + 3 (at
    most n). Answer: the k chosen positions. Reward: -0.5 not k distinct given positions, else
    (its smallest gap / optimum)^5. Its own problem: a max-min spread of chosen points;
    k_center_line minimises how far houses are from chosen ones (a covering, not a packing)."""

    name = "max_min_dispersion"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = min(n, difficulty // 4 + 3)
        xs = sorted(rng.sample(range(20 * n + 1), n))
        lo, hi = 1, xs[-1] - xs[0]
        while lo < hi:  # the largest gap that still admits k points
            mid = (lo + hi + 1) // 2
            if len(_greedy_spread(xs, mid)) >= k:
                lo = mid
            else:
                hi = mid - 1
        chosen = _greedy_spread(xs, lo)[:k]
        return {"positions": xs, "k": k, "optimum": lo}, " ".join(map(str, chosen))

    def prompt(self, problem):
        return ask(f"Positions on a line: {' '.join(map(str, problem['positions']))}. Choose {problem['k']} of them so "
                   "that the smallest distance between two chosen positions is as large as possible.",
                   f"Give the {problem['k']} chosen positions separated by spaces, e.g. <answer>0 14 31</answer>.")

    def reward(self, problem, answer):
        got = sorted(int_list(answer))
        if len(got) != problem["k"] or len(set(got)) != len(got) or not set(got) <= set(problem["positions"]):
            return -0.5
        return ratio(min(b - a for a, b in zip(got, got[1:])), problem["optimum"], 5)
