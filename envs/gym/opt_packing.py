"""Packing optimisation, graded against the optimum: bounded knapsack, multiple-choice knapsack,
knapsack with two capacities, a two-variable integer linear program.

Each optimum comes from an exact pseudo-polynomial DP (or, for the integer program, a scan of
one variable with the other solved in closed form), never from search. Rewards follow the
optimisation family of optimization.py (our choice, in the (.)^5 shape of PolynomialMinimum's
reward, rlve lines 53-55): -1 unparsable, -0.5 an answer that does not describe a candidate
(wrong length, a count out of range), 0 for an infeasible one, else (its value / optimum)^5,
exactly 1 only at the optimum (ratio()).
"""
from __future__ import annotations

from envs.gym.base import GymEnv, Retry, ask, int_list, ratio


def _rows(rows: list, header: str) -> str:
    return header + "\n" + "\n".join(f"{i}: " + " ".join(map(str, r)) for i, r in enumerate(rows))


class BoundedKnapsack(GymEnv):
    """Knapsack where item i may be taken up to c_i times (optimisation; DP over capacity with
    the copies of each item). d: n = d + 4 item types, weights 1..20, values 1..30, limits
    1..4, capacity about half the total weight of all copies. Answer: how many of each item.
    Reward: -0.5 not n counts in 0..c_i, 0 overweight, else (value / optimum)^5. Its own
    problem: knapsack takes each item once; the per-item multiplicity limit changes the DP and
    the answer is a vector of counts."""

    name = "bounded_knapsack"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        items = [(rng.randint(1, 20), rng.randint(1, 30), rng.randint(1, 4)) for _ in range(n)]
        cap = sum(w * c for w, _, c in items) // 2
        best = [0] * (cap + 1)
        choice = []  # choice[i][c] = copies of item i in an optimum of the first i + 1 items at capacity c
        for w, v, c in items:
            new, pick = best[:], [0] * (cap + 1)
            for k in range(1, c + 1):
                for cc in range(k * w, cap + 1):
                    cand = best[cc - k * w] + k * v
                    if cand > new[cc]:
                        new[cc], pick[cc] = cand, k
            best = new
            choice.append(pick)
        counts, cc = [0] * n, cap
        for i in range(n - 1, -1, -1):
            counts[i] = choice[i][cc]
            cc -= counts[i] * items[i][0]
        return {"items": items, "capacity": cap, "optimum": best[cap]}, " ".join(map(str, counts))

    def prompt(self, problem):
        n = len(problem["items"])
        return ask(_rows(problem["items"], "Items (index: weight value copies available):") +
                   f"\n\nChoose how many copies of each item to take (at most the copies available) so that the total "
                   f"weight is at most {problem['capacity']} and the total value is as large as possible.",
                   f"Give {n} integers separated by spaces: the number of copies of items 0 to {n - 1}.")

    def reward(self, problem, answer):
        items, counts = problem["items"], int_list(answer)
        if len(counts) != len(items) or any(not 0 <= k <= c for k, (_, _, c) in zip(counts, items)):
            return -0.5
        if sum(k * w for k, (w, _, _) in zip(counts, items)) > problem["capacity"]:
            return 0.0
        return ratio(sum(k * v for k, (_, v, _) in zip(counts, items)), problem["optimum"], 5)


class MultipleChoiceKnapsack(GymEnv):
    """Multiple-choice knapsack: items come in groups and exactly one item of every group is
    taken (optimisation; DP over groups and capacity). d: g = d // 2 + 3 groups of 2-4 options,
    weights 1..15, values 1..30, capacity between the lightest and the heaviest choice.
    Answer: the option chosen in each group. Reward: -0.5 not one valid option per group, 0
    overweight, else (value / optimum)^5. Its own problem: the one-per-group constraint, which
    neither knapsack nor bounded_knapsack has (a selection that skips a group is invalid)."""

    name = "multiple_choice_knapsack"
    category = "optimization"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        groups = [[(rng.randint(1, 15), rng.randint(1, 30)) for _ in range(rng.randint(2, 4))]
                  for _ in range(self.size(difficulty))]
        lo, hi = sum(min(w for w, _ in g) for g in groups), sum(max(w for w, _ in g) for g in groups)
        cap = (lo + hi) // 2
        neg = -1
        best = [0] + [neg] * cap  # best[c]: the best value with total weight exactly c (neg: unreachable)
        picks = []
        for g in groups:
            new, pick = [neg] * (cap + 1), [0] * (cap + 1)
            for c in range(cap + 1):
                for j, (w, v) in enumerate(g):
                    if w <= c and best[c - w] != neg and best[c - w] + v > new[c]:
                        new[c], pick[c] = best[c - w] + v, j
            best = new
            picks.append(pick)
        c = max(range(cap + 1), key=lambda c: best[c])
        optimum, chosen = best[c], []
        for g, pick in zip(reversed(groups), reversed(picks)):
            j = pick[c]
            chosen.append(j)
            c -= g[j][0]
        return {"groups": groups, "capacity": cap, "optimum": optimum}, " ".join(map(str, chosen[::-1]))

    def prompt(self, problem):
        text = "\n".join(f"group {i}: " + ", ".join(f"option {j} (weight {w}, value {v})" for j, (w, v) in enumerate(g))
                         for i, g in enumerate(problem["groups"]))
        k = len(problem["groups"])
        return ask(f"{text}\n\nChoose exactly one option from every group so that the total weight is at most "
                   f"{problem['capacity']} and the total value is as large as possible.",
                   f"Give {k} integers separated by spaces: the option chosen in groups 0 to {k - 1}.")

    def reward(self, problem, answer):
        groups, chosen = problem["groups"], int_list(answer)
        if len(chosen) != len(groups) or any(not 0 <= j < len(g) for j, g in zip(chosen, groups)):
            return -0.5
        if sum(g[j][0] for j, g in zip(chosen, groups)) > problem["capacity"]:
            return 0.0
        return ratio(sum(g[j][1] for j, g in zip(chosen, groups)), problem["optimum"], 5)


class TwoConstraintKnapsack(GymEnv):
    """0/1 knapsack with two capacities, weight and volume (optimisation; DP over both). d:
    n = d + 4 items, weights and volumes 1..10, values 1..30, each capacity about 40% of the
    items' total. Answer: the chosen indices. Reward: -0.5 bad or repeated indices, 0 over
    either capacity, else (value / optimum)^5. Its own problem: a second resource makes the
    greedy intuition of one ratio fail and the DP two-dimensional."""

    name = "two_constraint_knapsack"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        items = [(rng.randint(1, 10), rng.randint(1, 10), rng.randint(1, 30)) for _ in range(n)]
        cw, cv = sum(w for w, _, _ in items) * 2 // 5, sum(u for _, u, _ in items) * 2 // 5
        width = cv + 1
        best = [0] * ((cw + 1) * width)  # best[a * width + b]: optimum within weight a and volume b
        took = []
        for w, u, v in items:
            new, mark = best[:], bytearray(len(best))
            for a in range(w, cw + 1):
                row, src = a * width, (a - w) * width
                for b in range(u, cv + 1):
                    cand = best[src + b - u] + v
                    if cand > new[row + b]:
                        new[row + b], mark[row + b] = cand, 1
            best = new
            took.append(mark)
        chosen, a, b = [], cw, cv
        for i in range(n - 1, -1, -1):
            if took[i][a * width + b]:
                chosen.append(i)
                a, b = a - items[i][0], b - items[i][1]
        return ({"items": items, "weight_cap": cw, "volume_cap": cv, "optimum": best[cw * width + cv]},
                " ".join(map(str, sorted(chosen))))

    def prompt(self, problem):
        return ask(_rows(problem["items"], "Items (index: weight volume value):") +
                   f"\n\nChoose items (each at most once) with total weight at most {problem['weight_cap']} and total "
                   f"volume at most {problem['volume_cap']}, with the largest total value.",
                   "Give the chosen indices (from 0) separated by spaces, e.g. <answer>0 2 5</answer>.")

    def reward(self, problem, answer):
        items, chosen = problem["items"], int_list(answer)
        if len(set(chosen)) != len(chosen) or any(not 0 <= i < len(items) for i in chosen):
            return -0.5
        if sum(items[i][0] for i in chosen) > problem["weight_cap"] or sum(items[i][1] for i in chosen) > problem["volume_cap"]:
            return 0.0
        return ratio(sum(items[i][2] for i in chosen), problem["optimum"], 5)


def ilp2_optimum(c: tuple[int, int], rows: list, bound: int) -> tuple[int, int, int] | None:
    """max c1 x + c2 y over integers 0 <= x, y <= bound with a x + b y <= r for every row:
    for each x, the feasible y form an interval given by the rows in closed form."""
    best = None
    for x in range(bound + 1):
        lo, hi = 0, bound
        for a, b, r in rows:
            slack = r - a * x
            if b > 0:
                hi = min(hi, slack // b)
            elif b < 0:
                lo = max(lo, -(slack // -b))  # y >= slack / b, rounded up
            elif slack < 0:
                lo, hi = 1, 0
        if lo <= hi:
            y = hi if c[1] >= 0 else lo
            val = c[0] * x + c[1] * y
            if best is None or val > best[0]:
                best = (val, x, y)
    return best


class IntegerProgram2D(GymEnv):
    """A two-variable integer linear program: maximise c1 x + c2 y subject to d + 3 constraints a x
    + b y <= r and 0 <= x, y <= B (optimisation). d: B = 5(d + 2), c in [1, 9]^2, a, b in
    [-4, 9] (not both <= 0), r = a x0 + b y0 + [0, 2B] for a planted point (x0, y0) of the
    box. The optimum is found by scanning x and solving for y (the LP optimum rounded is
    often infeasible or suboptimal). Answer: x y. Reward: -0.5 not two integers, 0
    infeasible, else (value / optimum)^5. Its own problem: integrality on a polygon, not a
    combinatorial selection."""

    name = "integer_program_2d"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        bound = 5 * (difficulty + 2)
        c = (rng.randint(1, 9), rng.randint(1, 9))
        x0, y0 = rng.randint(0, bound), rng.randint(0, bound)  # planted feasible point
        rows = []
        for _ in range(self.size(difficulty)):
            a, b = rng.randint(-4, 9), rng.randint(-4, 9)
            if a <= 0 and b <= 0:
                a, b = -a + 1, -b + 1
            rows.append((a, b, a * x0 + b * y0 + rng.randint(0, 2 * bound)))
        best = ilp2_optimum(c, rows, bound)
        if best is None or best[0] <= 0:
            raise Retry
        return {"c": c, "rows": rows, "bound": bound, "optimum": best[0]}, f"{best[1]} {best[2]}"

    def prompt(self, problem):
        (c1, c2), bound = problem["c"], problem["bound"]

        def term(a, b):
            if not a:
                return f"{b}y"
            return f"{a}x" + ("" if not b else f" + {b}y" if b > 0 else f" - {-b}y")
        cons = "\n".join(f"{term(a, b)} <= {r}" for a, b, r in problem["rows"])
        return ask(f"Find integers x and y with 0 <= x <= {bound} and 0 <= y <= {bound} satisfying\n{cons}\n"
                   f"that maximise {c1}x + {c2}y.", "Give x and y separated by a space, e.g. <answer>3 7</answer>.")

    def reward(self, problem, answer):
        xy = int_list(answer)
        if len(xy) != 2:
            return -0.5
        x, y = xy
        bound = problem["bound"]
        if not (0 <= x <= bound and 0 <= y <= bound) or any(a * x + b * y > r for a, b, r in problem["rows"]):
            return 0.0
        (c1, c2) = problem["c"]
        return ratio(c1 * x + c2 * y, problem["optimum"], 5)
