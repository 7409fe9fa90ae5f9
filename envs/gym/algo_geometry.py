"""Computational geometry on integer points: convex hulls, closest and farthest pairs,
segment intersections, point location in a polygon, interior lattice points (Pick), the most
collinear points.

What makes each its own problem: a different geometric question with its own classical
algorithm (monotone chain, divide and conquer, rotating calipers, orientation tests, ray
casting, Pick's theorem, slope hashing). polygon_area (linear_algebra.py) asks for an area;
here the polygon questions are which points lie inside it and how many lattice points do.
All arithmetic is exact on integers (squared distances, cross products).

Rewards (our choice): -1 unparsable, -0.5 an answer of the wrong shape (indices out of range or
repeated, wrong count). Pairs and subsets are checked, so every optimal answer scores 1, and
graded against the optimum; determined lists score (entries right / entries)^5 (matches()) or
as sets (|A & G| / |A | G|)^5 (jaccard()); counts score 1 exact, else 0.
"""
from __future__ import annotations

from math import gcd

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, Retry, ask, index_set, int_list, jaccard, matches
from envs.gym.linear_algebra import monotone_polygon


def cross(o, a, b) -> int:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _points(rng, n: int, top: int) -> list[tuple[int, int]]:
    pts: set = set()
    while len(pts) < n:
        pts.add((rng.randint(0, top), rng.randint(0, top)))
    out = list(pts)
    rng.shuffle(out)
    return out


def _point_text(pts) -> str:
    return "\n".join(f"{i}: ({x}, {y})" for i, (x, y) in enumerate(pts))


def hull_indices(pts) -> list[int]:
    """Andrew's monotone chain, counterclockwise from the lowest-then-leftmost point, collinear
    boundary points left out."""
    order = sorted(range(len(pts)), key=lambda i: pts[i])
    lower: list[int] = []
    upper: list[int] = []
    for i in order:
        while len(lower) >= 2 and cross(pts[lower[-2]], pts[lower[-1]], pts[i]) <= 0:
            lower.pop()
        lower.append(i)
    for i in reversed(order):
        while len(upper) >= 2 and cross(pts[upper[-2]], pts[upper[-1]], pts[i]) <= 0:
            upper.pop()
        upper.append(i)
    hull = lower[:-1] + upper[:-1]
    start = min(range(len(hull)), key=lambda k: (pts[hull[k]][1], pts[hull[k]][0]))
    return hull[start:] + hull[:start]


class ConvexHull(GymEnv):
    """The convex hull of integer points, in counterclockwise order (classical algorithms,
    monotone chain). d: n = d + 6 distinct points in [0, 10n]^2. Answer: the corner indices
    (points in the middle of a hull edge are not corners), starting anywhere. Reward: -1
    unparsable, -0.5 out-of-range or repeated indices, 1 for the corners in counterclockwise
    cyclic order, else 0.5 (|A & G| / |A | G|)^5 (our choice: half credit at most for the right
    set in the wrong order)."""

    name = "convex_hull"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pts = _points(rng, n, 10 * n)
        hull = hull_indices(pts)
        if len(hull) < 3:
            raise Retry
        return {"points": pts, "hull": hull}, " ".join(map(str, hull))

    def prompt(self, problem):
        return ask("Points in the plane (index: (x, y)):\n" + _point_text(problem["points"]) + "\n\nFind the corners "
                   "of their convex hull (points lying on a hull edge between two corners do not count) in "
                   "counterclockwise order.", "Give the indices of the corners in counterclockwise order, starting "
                   "from any corner, separated by spaces, e.g. <answer>4 0 7 2</answer>.")

    def reward(self, problem, answer):
        got, hull = index_set(answer, len(problem["points"])), problem["hull"]
        if got is None:
            return -0.5
        if len(got) == len(hull) and got[0] in hull:
            k = hull.index(got[0])
            if got == hull[k:] + hull[:k]:
                return 1.0
        return 0.5 * jaccard(set(got), set(hull))


def _dist2(p, q) -> int:
    return (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2


def _pair_of(answer: str, n: int) -> list[int] | None:
    pair = index_set(answer, n)
    return pair if pair is not None and len(pair) == 2 else None


class ClosestPair(GymEnv):
    """The closest pair of points (classical algorithms, divide and conquer). d: n = 2d + 6
    distinct points in [0, 20n]^2. Answer: two indices. Reward: -1 unparsable, -0.5 not two
    distinct indices, else (shortest distance / their distance)^5 (any closest pair scores 1)."""

    name = "closest_pair"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pts = _points(rng, n, 20 * n)
        best = min((_dist2(pts[i], pts[j]), i, j) for i in range(n) for j in range(i + 1, n))
        return {"points": pts, "best": best[0]}, f"{best[1]} {best[2]}"

    def prompt(self, problem):
        return ask("Points in the plane (index: (x, y)):\n" + _point_text(problem["points"]) + "\n\nWhich two points "
                   "are closest to each other (straight-line distance)?",
                   "Give their two indices separated by a space, e.g. <answer>3 8</answer>.")

    def reward(self, problem, answer):
        pair = _pair_of(answer, len(problem["points"]))
        if pair is None:
            return -0.5
        pts = problem["points"]
        return min(1.0, problem["best"] / _dist2(pts[pair[0]], pts[pair[1]])) ** 2.5  # squared distances


class FarthestPair(GymEnv):
    """The farthest pair of points, the diameter of the set (classical algorithms, rotating
    calipers on the hull). d: n = 2d + 6 distinct points in [0, 20n]^2. Answer: two indices.
    Reward: -1 unparsable, -0.5 not two distinct indices, else (their distance / largest)^5 (any
    farthest pair scores 1)."""

    name = "farthest_pair"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pts = _points(rng, n, 20 * n)
        best = max((_dist2(pts[i], pts[j]), i, j) for i in range(n) for j in range(i + 1, n))
        return {"points": pts, "best": best[0]}, f"{best[1]} {best[2]}"

    def prompt(self, problem):
        return ask("Points in the plane (index: (x, y)):\n" + _point_text(problem["points"]) + "\n\nWhich two points "
                   "are farthest apart (straight-line distance)?",
                   "Give their two indices separated by a space, e.g. <answer>3 8</answer>.")

    def reward(self, problem, answer):
        pair = _pair_of(answer, len(problem["points"]))
        if pair is None:
            return -0.5
        pts = problem["points"]
        return min(1.0, _dist2(pts[pair[0]], pts[pair[1]]) / problem["best"]) ** 2.5  # squared distances


def _on_segment(p, q, r) -> bool:
    """r on the closed segment pq, given that the three are collinear."""
    return min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])


def segments_meet(a, b, c, d) -> bool:
    """Closed segments ab and cd share a point (orientation tests, touching included)."""
    d1, d2, d3, d4 = cross(c, d, a), cross(c, d, b), cross(a, b, c), cross(a, b, d)
    if ((d1 > 0) != (d2 > 0)) and d1 and d2 and ((d3 > 0) != (d4 > 0)) and d3 and d4:
        return True
    return any(o == 0 and _on_segment(p, q, r) for o, p, q, r in
               ((d1, c, d, a), (d2, c, d, b), (d3, a, b, c), (d4, a, b, d)))


class SegmentIntersections(GymEnv):
    """Every pair of intersecting segments (classical algorithms, orientation tests as in a
    Bentley-Ottmann sweep; touching counts). d: n = d + 5 segments with endpoints in [0, 12]^2.
    Answer: the pairs i j. Reward: -1 unparsable, -0.5 an odd count of numbers, else
    (|A & G| / |A | G|)^5 over unordered pairs."""

    name = "segment_intersections"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        segs = []
        while len(segs) < self.size(difficulty):
            a, b = (rng.randint(0, 12), rng.randint(0, 12)), (rng.randint(0, 12), rng.randint(0, 12))
            if a != b:
                segs.append((a, b))
        hits = [(i, j) for i in range(len(segs)) for j in range(i + 1, len(segs)) if segments_meet(*segs[i], *segs[j])]
        if not hits:
            raise Retry
        return {"segments": segs, "pairs": hits}, "\n".join(f"{i} {j}" for i, j in hits)

    def prompt(self, problem):
        rows = "\n".join(f"{i}: ({a[0]}, {a[1]}) - ({b[0]}, {b[1]})" for i, (a, b) in enumerate(problem["segments"]))
        return ask(f"Line segments in the plane (index: endpoint - endpoint):\n{rows}\n\nList every pair of segments "
                   "that share at least one point (crossing or touching).",
                   "Give one pair per line as two indices \"i j\", e.g. <answer>0 3\n2 5</answer>.")

    def reward(self, problem, answer):
        nums = int_list(answer)
        if len(nums) % 2:
            return -0.5
        return jaccard({(min(p), max(p)) for p in zip(nums[::2], nums[1::2])}, {tuple(p) for p in problem["pairs"]})


def locate(poly, q) -> str:
    """B on the boundary, I strictly inside, O outside (ray casting to the right)."""
    inside = False
    for a, b in zip(poly, poly[1:] + poly[:1]):
        if cross(a, b, q) == 0 and _on_segment(a, b, q):
            return "B"
        if (a[1] > q[1]) != (b[1] > q[1]):  # the edge straddles the ray's line
            x_num = (b[0] - a[0]) * (q[1] - a[1])  # crossing x = a.x + x_num / dy, compared exactly
            dy = b[1] - a[1]
            if (q[0] - a[0]) * dy < x_num if dy > 0 else (q[0] - a[0]) * dy > x_num:
                inside = not inside
    return "I" if inside else "O"


class PointInPolygon(GymEnv):
    """Where each query point lies with respect to a simple polygon: inside, outside or on the
    boundary (classical algorithms, ray casting). d: an x-monotone polygon of d + 5 vertices in
    [0, 4(d + 5)]^2, d + 6 lattice queries (some on the boundary). Answer: one letter I, O or B
    per query. Reward: -1 unparsable, -0.5 wrong count, else (letters right / queries)^5."""

    name = "point_in_polygon"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        top = 4 * n
        poly = monotone_polygon(rng, n, top)
        if abs(sum(cross((0, 0), a, b) for a, b in zip(poly, poly[1:] + poly[:1]))) == 0:
            raise Retry
        queries = [(rng.randint(0, top), rng.randint(0, top)) for _ in range(n + 1 - n // 4)]
        queries += [rng.choice(poly) for _ in range(n // 4)]  # vertices lie on the boundary
        rng.shuffle(queries)
        labels = "".join(locate(poly, q) for q in queries)
        return {"polygon": poly, "queries": queries, "labels": labels}, " ".join(labels)

    def prompt(self, problem):
        return ask("A simple polygon has these vertices, in order around it: " +
                   ", ".join(f"({x}, {y})" for x, y in problem["polygon"]) + "\n\nFor each query point, say whether it "
                   "lies strictly inside the polygon (I), strictly outside (O) or on its boundary (B): " +
                   ", ".join(f"({x}, {y})" for x, y in problem["queries"]) + ".",
                   "Give one letter per query in order separated by spaces, e.g. <answer>I O B O</answer>.")

    def reward(self, problem, answer):
        got = answer.replace(",", " ").upper().split()
        if any(g not in ("I", "O", "B") for g in got):
            raise ValueError("labels are I, O or B")
        return matches(got, list(problem["labels"]))


class PolygonInteriorLatticePoints(IntEnv):
    """The number of lattice points strictly inside a simple lattice polygon (classical
    algorithms, Pick's theorem: I = A - B/2 + 1, with B = the boundary lattice points, a gcd per
    edge). d: an x-monotone polygon of d + 5 vertices in [0, 10(d + 5)]^2. Reward: -1 unparsable,
    1 exact, else 0."""

    name = "polygon_interior_lattice_points"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        poly = monotone_polygon(rng, n, 10 * n)
        twice = abs(sum(cross((0, 0), a, b) for a, b in zip(poly, poly[1:] + poly[:1])))
        if twice == 0:
            raise Retry
        boundary = sum(gcd(b[0] - a[0], b[1] - a[1]) for a, b in zip(poly, poly[1:] + poly[:1]))
        value = (twice - boundary + 2) // 2
        return {"polygon": poly, "value": value}, str(value)

    def prompt(self, problem):
        return ask("A simple polygon has these vertices, in order around it: " +
                   ", ".join(f"({x}, {y})" for x, y in problem["polygon"]) + "\n\nHow many points with integer "
                   "coordinates lie strictly inside it (not on its boundary)?", INT_FORMAT)


class MaxCollinearPoints(GymEnv):
    """The most points on one straight line (classical algorithms, slopes hashed per point). d:
    n = d + 8 distinct points in [0, 3n + 6]^2, 3 + d // 4 of them planted on one line. Answer: the
    indices of collinear points. Reward: -1 unparsable, -0.5 out-of-range or repeated indices
    or fewer than two, 0 if they are not on one line, else (its count / most)^5."""

    name = "max_collinear_points"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 8

    def build(self, rng, difficulty):
        n, k = self.size(difficulty), 3 + difficulty // 4
        top = 3 * n + 6  # room for the planted line at any d
        dx, dy = rng.choice([(1, 0), (0, 1), (1, 1), (1, -1), (1, 2), (2, 1), (1, -2), (2, -1), (1, 3), (3, 1)])
        step = max(1, top // (max(abs(dx), abs(dy)) * k))
        span_x, span_y = dx * step * (k - 1), dy * step * (k - 1)
        x0 = rng.randint(0, top - span_x)
        y0 = rng.randint(0, top - span_y) if dy >= 0 else rng.randint(-span_y, top)
        pts = {(x0 + dx * step * i, y0 + dy * step * i) for i in range(k)}
        while len(pts) < n:
            pts.add((rng.randint(0, top), rng.randint(0, top)))
        pts = list(pts)
        rng.shuffle(pts)
        best = _most_collinear(pts)
        return {"points": pts, "optimum": len(best)}, " ".join(map(str, best))

    def prompt(self, problem):
        return ask("Points in the plane (index: (x, y)):\n" + _point_text(problem["points"]) + "\n\nFind as many "
                   "points as possible that all lie on one straight line.",
                   "Give their indices separated by spaces, e.g. <answer>1 4 9</answer>.")

    def reward(self, problem, answer):
        pts = problem["points"]
        got = index_set(answer, len(pts))
        if got is None or len(got) < 2:
            return -0.5
        a, b = pts[got[0]], pts[got[1]]
        if any(cross(a, b, pts[i]) for i in got[2:]):
            return 0.0
        return min(1.0, len(got) / problem["optimum"]) ** 5


def _most_collinear(pts) -> list[int]:
    best: list[int] = [0, 1]
    for i, p in enumerate(pts):
        lines: dict = {}
        for j, q in enumerate(pts):
            if j != i:
                dx, dy = q[0] - p[0], q[1] - p[1]
                g = gcd(dx, dy)
                dx, dy = dx // g, dy // g
                if dx < 0 or (dx == 0 and dy < 0):
                    dx, dy = -dx, -dy
                lines.setdefault((dx, dy), [i]).append(j)
        for members in lines.values():
            if len(members) > len(best):
                best = sorted(members)
    return best
