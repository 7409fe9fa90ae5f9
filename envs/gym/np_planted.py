"""More NP-complete problems with planted solutions (RLVE line 73: "exploits the solving-
verification asymmetry"): TSP, subgraph isomorphism, 3-dimensional matching, hitting set,
not-all-equal SAT, 1-in-3 SAT, 3-partition, set packing.

Each generator hides a solution and never searches; each scorer verifies. Structure answers
that can be partly right (a partial matching, a partly mapped subgraph) score a share with
power 5, exactly 1 only for a full solution; decision-style answers (SAT variants) are
all-or-nothing, since graded credit there pays for guessing.
"""
from __future__ import annotations

import math

from envs.gym.base import BELOW_ONE, GymEnv, Retry, ask, index_set, int_list, share
from envs.gym.graphs import _random_pairs

SET_FORMAT = "Give the indices of the chosen sets separated by spaces, e.g. <answer>0 3 4</answer>."
BITS_FORMAT = "Give {n} values (1 = true, 0 = false) for x1..x{n}, separated by spaces."


def convex_polygon(rng, n: int, top: int) -> list[tuple[int, int]]:
    """n lattice points in convex position, in order around the polygon (Valtr's method: the
    x and y increments of two random chains, paired at random and sorted by angle)."""
    def chain_steps(values):
        lo, hi, *mid = sorted(values)
        a, b = [lo], [lo]
        for v in mid:
            (a if rng.random() < 0.5 else b).append(v)
        a.append(hi)
        b.append(hi)
        return [y - x for x, y in zip(a, a[1:])] + [x - y for x, y in zip(b, b[1:])]

    dx = chain_steps(rng.sample(range(top), n))
    dy = chain_steps(rng.sample(range(top), n))
    rng.shuffle(dy)
    steps = sorted(zip(dx, dy), key=lambda v: math.atan2(v[1], v[0]))
    x = y = 0
    pts = []
    for sx, sy in steps:
        pts.append((x, y))
        x, y = x + sx, y + sy
    mx, my = min(p[0] for p in pts), min(p[1] for p in pts)
    return [(px - mx, py - my) for px, py in pts]


def tour_length(pts, order) -> float:
    return sum(math.dist(pts[a], pts[b]) for a, b in zip(order, order[1:] + order[:1]))


class TspConvex(GymEnv):
    """Travelling salesman tour with a planted optimum (NP-complete in general, planted here:
    the cities are in convex position, where the tour around the polygon is optimal, which the
    prompt does not say). d: n = d + 5 lattice points with coordinates below 20(n + 5), labels
    shuffled. Answer: a visiting order. Reward: -1 unparsable, -0.5 not a permutation, else
    (optimal length / its length)^5, 1 within a relative 1e-9 of the optimum."""

    name = "tsp_convex"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pts = convex_polygon(rng, n, 20 * (n + 5))
        if len(set(pts)) < n:
            raise Retry
        labels = rng.sample(range(n), n)  # city labels[i] sits at polygon vertex i
        cities = [None] * n
        for i, lab in enumerate(labels):
            cities[lab] = pts[i]
        return {"cities": cities, "optimum": tour_length(pts, list(range(n)))}, " ".join(map(str, labels))

    def prompt(self, problem):
        c = problem["cities"]
        return ask(f"{len(c)} cities (index: x y): " + ", ".join(f"{i}: {x} {y}" for i, (x, y) in enumerate(c)) +
                   "\n\nFind a shortest round trip that visits every city once and returns to the start (distances "
                   "are straight-line Euclidean).", "Give the cities in visiting order, each once, separated by "
                   "spaces, e.g. <answer>0 2 1 3</answer>.")

    def reward(self, problem, answer):
        order, cities = int_list(answer), problem["cities"]
        if sorted(order) != list(range(len(cities))):
            return -0.5
        length = tour_length(cities, order)
        if length <= problem["optimum"] * (1 + 1e-9):
            return 1.0
        return min(BELOW_ONE, (problem["optimum"] / length) ** 5)


class SubgraphIsomorphism(GymEnv):
    """Find a copy of a pattern graph inside a host graph (NP-complete; planted). d: pattern of
    k = d // 3 + 3 vertices (a random tree plus k // 2 extra edges), host of k + d + 3
    vertices holding it under a random injection, plus random edges at density 0.3. Answer:
    the host vertex of each pattern vertex. Reward: -1 unparsable, -0.5 not k distinct host
    vertices, else (pattern edges mapped onto host edges / pattern edges)^5."""

    name = "subgraph_isomorphism"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty // 3 + 3

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        n = k + difficulty + 3
        tree = [(v, rng.randrange(v)) for v in range(1, k)]
        pattern = tree + _random_pairs(rng, k, k // 2, directed=False, avoid=tree)
        image = rng.sample(range(n), k)
        planted = {tuple(sorted((image[u], image[v]))) for u, v in pattern}
        extra = _random_pairs(rng, n, int(0.3 * n * (n - 1) / 2), directed=False, avoid=list(planted))
        host = sorted(planted | set(extra))
        rng.shuffle(host)
        return {"k": k, "n": n, "pattern": pattern, "host": host}, " ".join(map(str, image))

    def prompt(self, problem):
        k, n = problem["k"], problem["n"]
        pe = ", ".join(f"{u}-{v}" for u, v in problem["pattern"])
        he = ", ".join(f"{u}-{v}" for u, v in problem["host"])
        return ask(f"Pattern graph P: vertices 0..{k - 1}, edges {pe}.\nHost graph G: vertices 0..{n - 1}, edges {he}.\n\n"
                   "Map every vertex of P to a different vertex of G so that every edge of P becomes an edge of G.",
                   f"Give {k} integers separated by spaces: the G-vertex of P-vertices 0 to {k - 1}.")

    def reward(self, problem, answer):
        image = int_list(answer)
        k, n = problem["k"], problem["n"]
        if len(image) != k or len(set(image)) != k or any(not 0 <= v < n for v in image):
            return -0.5
        host = {tuple(e) for e in problem["host"]}
        hits = sum(tuple(sorted((image[u], image[v]))) in host for u, v in problem["pattern"])
        return share(hits, len(problem["pattern"]), 5)


class ThreeDimensionalMatching(GymEnv):
    """3-dimensional matching with a planted perfect matching (NP-complete). d: q = d // 2 + 3
    elements in each of X, Y, Z; q planted disjoint triples plus 2q random decoys. Reward: -1
    unparsable, -0.5 bad or repeated indices, 0 if two chosen triples share an element, else
    (triples chosen / q)^5 (a perfect matching: 1)."""

    name = "three_dimensional_matching"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        q = self.size(difficulty)
        ys, zs = rng.sample(range(q), q), rng.sample(range(q), q)
        triples = [(x, ys[x], zs[x]) for x in range(q)]
        triples += [(rng.randrange(q), rng.randrange(q), rng.randrange(q)) for _ in range(2 * q)]
        order = rng.sample(range(3 * q), 3 * q)
        return ({"q": q, "triples": [triples[i] for i in order]},
                " ".join(str(j) for j, i in enumerate(order) if i < q))

    def prompt(self, problem):
        q = problem["q"]
        t = "\n".join(f"{i}: x{a} y{b} z{c}" for i, (a, b, c) in enumerate(problem["triples"]))
        return ask(f"Elements x0..x{q - 1}, y0..y{q - 1}, z0..z{q - 1}. Triples:\n{t}\n\nChoose {q} triples that use "
                   "every element exactly once.", "Give the indices of the chosen triples separated by spaces, "
                   "e.g. <answer>0 3 4</answer>.")

    def reward(self, problem, answer):
        chosen = index_set(answer, len(problem["triples"]))
        if chosen is None:
            return -0.5
        picked = [problem["triples"][i] for i in chosen]
        for axis in range(3):
            if len({t[axis] for t in picked}) != len(picked):
                return 0.0
        return share(len(picked), problem["q"], 5)


class HittingSet(GymEnv):
    """Hitting set with a planted solution (NP-complete). d: universe 1..2d + 8, a planted set H
    of k = d // 4 + 2 elements, 2d + 6 sets of 2-4 elements each containing an element of H.
    Reward: -1 unparsable, -0.5 elements out of range or repeated, 0 if some set is missed,
    else (k / elements chosen)^5 (at most k: 1)."""

    name = "hitting_set"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        u, k = self.size(difficulty), difficulty // 4 + 2
        hit = rng.sample(range(1, u + 1), k)
        sets = []
        for _ in range(2 * difficulty + 6):
            s = {rng.choice(hit)} | set(rng.sample(range(1, u + 1), rng.randint(1, 3)))
            sets.append(sorted(s))
        for h in hit:  # every planted element is needed somewhere
            sets.append(sorted({h} | set(rng.sample([x for x in range(1, u + 1) if x not in hit], 2))))
        rng.shuffle(sets)
        return {"universe": u, "k": k, "sets": sets}, " ".join(map(str, sorted(hit)))

    def prompt(self, problem):
        sets = "\n".join("{" + ", ".join(map(str, s)) + "}" for s in problem["sets"])
        return ask(f"Sets of numbers from 1 to {problem['universe']}:\n{sets}\n\nChoose at most {problem['k']} numbers "
                   "so that every set contains at least one chosen number.",
                   "Give the chosen numbers separated by spaces, e.g. <answer>2 7</answer>.")

    def reward(self, problem, answer):
        chosen = index_set(answer, problem["universe"], base=1)
        if chosen is None:
            return -0.5
        s = set(chosen)
        if not chosen or not all(s.intersection(x) for x in problem["sets"]):
            return 0.0
        return share(problem["k"], len(chosen), 5)


def _planted_clauses(rng, n: int, m: int, ok) -> list[list[int]]:
    """m clauses of 3 distinct variables with random signs, each re-drawn until ok(clause)."""
    clauses = []
    while len(clauses) < m:
        lits = [(v + 1) * rng.choice((1, -1)) for v in rng.sample(range(n), 3)]
        if ok(lits):
            clauses.append(lits)
    return clauses


def _lit_text(lit: int) -> str:
    return f"x{lit}" if lit > 0 else f"NOT x{-lit}"


def _bits(answer: str, n: int) -> list[int] | None:
    vals = int_list(answer)
    return vals if len(vals) == n and all(v in (0, 1) for v in vals) else None


class NaeSat(GymEnv):
    """Not-all-equal 3-SAT with a planted assignment (NP-complete). d: n = d + 4 variables,
    3n clauses, each re-drawn until the planted assignment makes one literal true and one
    false. Reward: -1 unparsable, -0.5 wrong length or a value other than 0/1, 1 if every
    clause has a true and a false literal, else 0."""

    name = "nae_sat"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        truth = [rng.randint(0, 1) for _ in range(n)]

        def value(lit):
            return (lit > 0) == bool(truth[abs(lit) - 1])

        clauses = _planted_clauses(rng, n, 3 * n, lambda c: len({value(l) for l in c}) == 2)
        return {"n": n, "clauses": clauses}, " ".join(map(str, truth))

    def prompt(self, problem):
        n = problem["n"]
        text = "\n".join("(" + ", ".join(map(_lit_text, c)) + ")" for c in problem["clauses"])
        return ask(f"Find values for the boolean variables x1..x{n} such that in every triple below at least one "
                   f"entry is true and at least one is false:\n{text}", BITS_FORMAT.format(n=n))

    def reward(self, problem, answer):
        vals = _bits(answer, problem["n"])
        if vals is None:
            return -0.5
        ok = all(len({(l > 0) == bool(vals[abs(l) - 1]) for l in c}) == 2 for c in problem["clauses"])
        return 1.0 if ok else 0.0


class OneInThreeSat(GymEnv):
    """Monotone 1-in-3 SAT with a planted assignment (NP-complete). d: n = d + 5 variables, 2n
    clauses of three variables, each with exactly one variable true under the planted
    assignment. Reward: -1 unparsable, -0.5 wrong length or a value other than 0/1, 1 if every
    clause has exactly one true variable, else 0."""

    name = "one_in_three_sat"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        truth = [0] * n
        for v in rng.sample(range(n), max(1, n // 3)):
            truth[v] = 1
        true_vars, false_vars = [v for v in range(n) if truth[v]], [v for v in range(n) if not truth[v]]
        if len(false_vars) < 2:
            raise Retry
        clauses = []
        for _ in range(2 * n):
            c = [rng.choice(true_vars) + 1] + [v + 1 for v in rng.sample(false_vars, 2)]
            rng.shuffle(c)
            clauses.append(c)
        return {"n": n, "clauses": clauses}, " ".join(map(str, truth))

    def prompt(self, problem):
        n = problem["n"]
        text = "\n".join("{" + ", ".join(f"x{v}" for v in c) + "}" for c in problem["clauses"])
        return ask(f"Find values for the boolean variables x1..x{n} such that every triple below contains exactly "
                   f"one true variable:\n{text}", BITS_FORMAT.format(n=n))

    def reward(self, problem, answer):
        vals = _bits(answer, problem["n"])
        if vals is None:
            return -0.5
        return 1.0 if all(sum(vals[v - 1] for v in c) == 1 for c in problem["clauses"]) else 0.0


class ThreePartition(GymEnv):
    """3-partition with a planted solution (strongly NP-complete). d: m = d // 2 + 2 groups;
    each planted triple sums to B (uniform in [40, 100]) with every number strictly between
    B/4 and B/2, so every group must be a triple. Answer: a group label 0..m-1 per number.
    Reward: -1 unparsable, -0.5 wrong length or labels out of range, else (groups of three
    summing to B / m)^5."""

    name = "three_partition"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        m, b = self.size(difficulty), rng.randint(40, 100)
        nums, labels = [], []
        for g in range(m):
            for _ in range(1000):
                x, y = rng.randint(b // 4 + 1, (b - 1) // 2), rng.randint(b // 4 + 1, (b - 1) // 2)
                z = b - x - y
                if 4 * z > b and 2 * z < b:
                    break
            else:
                raise Retry
            nums += [x, y, z]
            labels += [g] * 3
        order = rng.sample(range(3 * m), 3 * m)
        return ({"numbers": [nums[i] for i in order], "m": m, "target": b},
                " ".join(str(labels[i]) for i in order))

    def prompt(self, problem):
        m, nums = problem["m"], problem["numbers"]
        return ask(f"Numbers (items 0 to {len(nums) - 1}): " + " ".join(map(str, nums)) + f"\n\nSplit them into {m} "
                   f"groups of three numbers each, every group summing to {problem['target']}.",
                   f"Give {len(nums)} integers separated by spaces: the group (0 to {m - 1}) of each number.")

    def reward(self, problem, answer):
        labels, nums, m = int_list(answer), problem["numbers"], problem["m"]
        if len(labels) != len(nums) or any(not 0 <= g < m for g in labels):
            return -0.5
        groups: dict[int, list[int]] = {}
        for x, g in zip(nums, labels):
            groups.setdefault(g, []).append(x)
        good = sum(len(v) == 3 and sum(v) == problem["target"] for v in groups.values())
        return share(good, m, 5)


class SetPacking(GymEnv):
    """Set packing with a planted packing (NP-complete). d: k = d // 3 + 3 planted disjoint sets
    of 2-4 elements over a universe of about 3.5k elements, plus 2k decoys that each overlap a
    planted set. Reward: -1 unparsable, -0.5 bad or repeated indices, 0 if two chosen sets
    share an element, else (sets chosen / k)^5 (k or more: 1)."""

    name = "set_packing"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty // 3 + 3

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        sizes = [rng.randint(2, 4) for _ in range(k)]
        u = sum(sizes) + k // 2
        elems = rng.sample(range(1, u + 1), u)
        planted, at = [], 0
        for s in sizes:
            planted.append(sorted(elems[at:at + s]))
            at += s
        decoys = []
        for _ in range(2 * k):
            base = rng.choice(planted)
            decoys.append(sorted({rng.choice(base)} | set(rng.sample(range(1, u + 1), rng.randint(1, 3)))))
        sets = planted + decoys
        order = rng.sample(range(len(sets)), len(sets))
        return ({"k": k, "sets": [sets[i] for i in order]},
                " ".join(str(j) for j, i in enumerate(order) if i < k))

    def prompt(self, problem):
        sets = "\n".join(f"{i}: " + " ".join(map(str, s)) for i, s in enumerate(problem["sets"]))
        return ask(f"Sets:\n{sets}\n\nChoose at least {problem['k']} of these sets such that no two chosen sets share a "
                   "number.", SET_FORMAT)

    def reward(self, problem, answer):
        chosen = index_set(answer, len(problem["sets"]))
        if chosen is None:
            return -0.5
        seen: set[int] = set()
        for i in chosen:
            if seen.intersection(problem["sets"][i]):
                return 0.0
            seen.update(problem["sets"][i])
        return share(len(chosen), problem["k"], 5)
