"""Interval and sweep-line algorithms: intersections of two interval lists, covering a segment
with the fewest intervals, the skyline of buildings, the area of a union of rectangles, and
how many intervals contain each query point.

What makes each its own problem (next to merge_intervals, interval_stabbing,
interval_partitioning and weighted_interval_scheduling): a two-pointer walk over two lists; a
greedy cover of a segment (stabbing picks points, this picks intervals); a max-height sweep with
a heap; a 2-D sweep with coordinate compression; counting by sorted endpoints and binary search.

Rewards (our choice): -1 unparsable, -0.5 an answer of the wrong shape; sets of intervals or
points score (|A & G| / |A | G|)^5 (jaccard()); a cover is checked (any smallest one scores 1)
and graded (fewest / its count)^5; counts per query score (entries right / queries)^5; the
area scores 1 exact, else 0.
"""
from __future__ import annotations

import bisect

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, Retry, ask, index_set, int_list, jaccard, matches


def _disjoint(rng, k: int, top: int) -> list[tuple[int, int]]:
    ends = sorted(rng.sample(range(top), 2 * k))
    return [(ends[2 * i], ends[2 * i + 1]) for i in range(k)]


def _iv_text(ivs) -> str:
    return ", ".join(f"[{a}, {b}]" for a, b in ivs)


def _pairs(answer: str) -> set | None:
    nums = int_list(answer)
    return None if len(nums) % 2 else set(zip(nums[::2], nums[1::2]))


class IntervalListIntersections(GymEnv):
    """The intersection of two lists of disjoint closed intervals (classical algorithms, two
    pointers). d: each list has d // 2 + 3 intervals inside [0, 10k). Answer: the common
    intervals ("a b", a single point counts as "a a"). Reward: -1 unparsable, -0.5 an odd count
    of numbers, else (|A & G| / |A | G|)^5."""

    name = "interval_list_intersections"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        a, b = _disjoint(rng, k, 10 * k), _disjoint(rng, k, 10 * k)
        out, i, j = [], 0, 0
        while i < len(a) and j < len(b):
            lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
            if lo <= hi:
                out.append((lo, hi))
            if a[i][1] < b[j][1]:
                i += 1
            else:
                j += 1
        if not out:
            raise Retry
        return {"a": a, "b": b, "common": out}, "\n".join(f"{x} {y}" for x, y in out)

    def prompt(self, problem):
        return ask(f"List A of closed intervals: {_iv_text(problem['a'])}\nList B of closed intervals: "
                   f"{_iv_text(problem['b'])}\n\nThe intervals within each list are disjoint. Give the set of points in "
                   "both A and B as a list of disjoint closed intervals, left to right.",
                   "Give one interval per line as \"start end\" (a single point p as \"p p\"), e.g. "
                   "<answer>2 4\n7 7</answer>.")

    def reward(self, problem, answer):
        got = _pairs(answer)
        return -0.5 if got is None else jaccard(got, {tuple(c) for c in problem["common"]})


def fewest_cover(ivs, length: int) -> int | None:
    """Greedy: from the covered prefix [0, reach], take the interval starting there that reaches
    farthest."""
    reach, count = 0, 0
    order = sorted(ivs)
    i, best = 0, -1
    while True:
        while i < len(order) and order[i][0] <= reach:
            best = max(best, order[i][1])
            i += 1
        if best <= reach:
            return None
        reach, count = best, count + 1
        if reach >= length:
            return count


class IntervalCover(GymEnv):
    """Cover the segment [0, L] with the fewest given closed intervals (classical algorithms,
    greedy by farthest reach). d: n = d + 6 intervals; a planted chain covers [0, L], L = 3n.
    Answer: the indices of the chosen intervals. Reward: -1 unparsable, -0.5 out-of-range or
    repeated indices, 0 if they leave part of [0, L] uncovered, else (fewest / its count)^5.
    Its own problem: intervals cover a segment (interval_stabbing picks points that hit
    intervals; set_cover is the NP-complete general case)."""

    name = "interval_cover"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        length = 3 * n
        ivs, at = [], 0
        while at < length:  # the planted chain: each starts inside the last
            start = rng.randint(max(0, at - 3), at)
            end = min(length + rng.randint(0, 2), start + rng.randint(3, 9))
            if end <= at:
                continue
            ivs.append((start, end))
            at = end
        while len(ivs) < n:
            a = rng.randint(0, length - 1)
            ivs.append((a, a + rng.randint(1, 8)))
        rng.shuffle(ivs)
        best = fewest_cover(ivs, length)
        chosen, reach = [], 0
        while reach < length:  # the greedy's choices, for the gold answer
            i = max((i for i, (a, _) in enumerate(ivs) if a <= reach), key=lambda i: ivs[i][1])
            chosen.append(i)
            reach = ivs[i][1]
        return {"intervals": ivs, "length": length, "optimum": best}, " ".join(map(str, sorted(chosen)))

    def prompt(self, problem):
        rows = ", ".join(f"{i}: [{a}, {b}]" for i, (a, b) in enumerate(problem["intervals"]))
        return ask(f"Closed intervals (index: [start, end]): {rows}\n\nChoose as few of them as possible whose union "
                   f"contains the whole segment [0, {problem['length']}].",
                   "Give the indices of the chosen intervals separated by spaces, e.g. <answer>2 5 7</answer>.")

    def reward(self, problem, answer):
        got = index_set(answer, len(problem["intervals"]))
        if got is None:
            return -0.5
        ivs = [problem["intervals"][i] for i in got]
        if fewest_cover(ivs, problem["length"]) is None:
            return 0.0
        return min(1.0, problem["optimum"] / len(got)) ** 5


def skyline(buildings) -> list[tuple[int, int]]:
    """Key points (x, new height) where the outline's height changes; heights are taken on the
    elementary intervals between consecutive building edges."""
    xs = sorted({x for l, r, _ in buildings for x in (l, r)})
    out, last = [], 0
    for x in xs:
        h = max((hb for l, r, hb in buildings if l <= x < r), default=0)
        if h != last:
            out.append((x, h))
            last = h
    return out


class Skyline(GymEnv):
    """The skyline of rectangular buildings (classical algorithms, a sweep with a max-heap): the
    points where the outline's height changes. d: n = d + 4 buildings [l, r) x height, l, r in
    [0, 4n], heights 1..20. Answer: "x h" per key point. Reward: -1 unparsable, -0.5 an odd
    count of numbers, else (|A & G| / |A | G|)^5 over the key points."""

    name = "skyline"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        buildings = []
        for _ in range(n):
            l = rng.randint(0, 4 * n - 2)
            buildings.append((l, rng.randint(l + 1, min(4 * n, l + n + 2)), rng.randint(1, 20)))
        keys = skyline(buildings)
        return {"buildings": buildings, "keys": keys}, "\n".join(f"{x} {h}" for x, h in keys)

    def prompt(self, problem):
        rows = ", ".join(f"from x = {l} to x = {r} of height {h}" for l, r, h in problem["buildings"])
        return ask(f"Rectangular buildings stand on the ground line: {rows}.\n\nDescribe the skyline (the outline of "
                   "their union) by its key points: every x where the outline's height changes, with the new height "
                   "(0 where it comes down to the ground).",
                   "Give one key point per line as \"x height\", left to right, e.g. <answer>1 7\n4 3\n9 0</answer>.")

    def reward(self, problem, answer):
        got = _pairs(answer)
        return -0.5 if got is None else jaccard(got, {tuple(k) for k in problem["keys"]})


def union_area(rects) -> int:
    """Coordinate compression: each elementary cell counts once if any rectangle covers it."""
    xs = sorted({x for x0, _, x1, _ in rects for x in (x0, x1)})
    area = 0
    for xa, xb in zip(xs, xs[1:]):
        spans = sorted((y0, y1) for x0, y0, x1, y1 in rects if x0 <= xa and xb <= x1)
        covered, top = 0, None
        for y0, y1 in spans:
            if top is None or y0 > top:
                covered += y1 - y0
                top = y1
            elif y1 > top:
                covered += y1 - top
                top = y1
        area += (xb - xa) * covered
    return area


class RectangleUnionArea(IntEnv):
    """The area covered by a union of axis-parallel rectangles (classical algorithms, a sweep
    with coordinate compression). d: n = d + 3 rectangles with corners in [0, 2d + 12]^2.
    Reward: -1 unparsable, 1 exact, else 0."""

    name = "rectangle_union_area"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        top = 2 * difficulty + 12
        rects = []
        for _ in range(self.size(difficulty)):
            x0, y0 = rng.randint(0, top - 1), rng.randint(0, top - 1)
            rects.append((x0, y0, rng.randint(x0 + 1, min(top, x0 + 8)), rng.randint(y0 + 1, min(top, y0 + 8))))
        value = union_area(rects)
        return {"rects": rects, "value": value}, str(value)

    def prompt(self, problem):
        rows = ", ".join(f"[{x0}, {x1}] x [{y0}, {y1}]" for x0, y0, x1, y1 in problem["rects"])
        return ask(f"Axis-parallel rectangles ([x0, x1] x [y0, y1]): {rows}.\n\nWhat is the total area covered by at "
                   "least one of them (overlaps counted once)?", INT_FORMAT)


class IntervalPointCoverage(GymEnv):
    """How many closed intervals contain each query point (classical algorithms: sorted starts
    and ends, two binary searches per query). d: n = d + 6 intervals inside [0, 5n], d + 4
    queries. Reward: -1 unparsable, -0.5 wrong count, else (counts right / queries)^5."""

    name = "interval_point_coverage"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        ivs = []
        for _ in range(n):
            a = rng.randint(0, 5 * n - 1)
            ivs.append((a, rng.randint(a, min(5 * n, a + 2 * n))))
        queries = [rng.randint(0, 5 * n) for _ in range(difficulty + 4)]
        starts, ends = sorted(a for a, _ in ivs), sorted(b for _, b in ivs)
        counts = [bisect.bisect_right(starts, q) - bisect.bisect_left(ends, q) for q in queries]
        return {"intervals": ivs, "queries": queries, "counts": counts}, " ".join(map(str, counts))

    def prompt(self, problem):
        return ask(f"Closed intervals: {_iv_text(problem['intervals'])}\n\nFor each query point, how many of the "
                   "intervals contain it (endpoints included)? Queries: " + " ".join(map(str, problem["queries"])),
                   "Give the counts in query order separated by spaces, e.g. <answer>2 0 3</answer>.")

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["counts"])
