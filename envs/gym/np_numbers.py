"""NP-complete number and scheduling problems with planted solutions (RLVE line 71's recipe:
plant, then verify): subset product, numerical 3-dimensional matching, 0-1 integer programming,
job-shop scheduling under a makespan bound, sequencing with release times and deadlines.

What makes each its own problem (none is a parameter of np_complete.py's subset_sum and
partition or np_planted.py's three_partition): subset_product multiplies (divisibility, not
sums, prunes the search); numerical_3d_matching matches three lists into triples with one
common sum; zero_one_programming asks several linear equations at once; job_shop_schedule
orders operations on machines (scheduling.py's flow_shop_two_machines is Johnson's
polynomial two-machine case); release_time_sequencing has one machine with release times and
deadlines.

Reward (our choice, following np_complete.py): -1 unparsable, -0.5 an answer of the wrong shape,
then 1 for a valid answer and 0 otherwise, except where stated (a share of the constraints met,
or the bound over the achieved value, each to the power 5 and 1 only when all is met).
"""
from __future__ import annotations

import math

from envs.gym.base import GymEnv, ask, index_set, int_grid, int_list, lines, share
from envs.gym.np_graphs import graded

INDEX_FORMAT = "Give the chosen indices (counted from 0) separated by spaces, e.g. <answer>0 3 4</answer>."


class SubsetProduct(GymEnv):
    """Subset product, planted (NP-complete, Garey-Johnson SP14): choose numbers whose product
    is exactly the target. d: n = d + 5 numbers in 2..30, a planted subset of about half.
    Answer: indices. Reward: -1 unparsable, -0.5 bad or repeated indices, 1 if the product
    equals the target, else 0."""

    name = "subset_product"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        nums = [rng.randint(2, 30) for _ in range(n)]
        chosen = sorted(rng.sample(range(n), max(2, n // 2)))
        return {"numbers": nums, "target": math.prod(nums[i] for i in chosen)}, " ".join(map(str, chosen))

    def prompt(self, problem):
        return ask("Numbers (index: value): " + ", ".join(f"{i}: {v}" for i, v in enumerate(problem["numbers"])) +
                   f"\n\nChoose some of them (each index at most once) whose product is exactly {problem['target']}.",
                   INDEX_FORMAT)

    def reward(self, problem, answer):
        nums = problem["numbers"]
        chosen = index_set(answer, len(nums))
        if chosen is None:
            return -0.5
        return 1.0 if chosen and math.prod(nums[i] for i in chosen) == problem["target"] else 0.0


class Numerical3dMatching(GymEnv):
    """Numerical 3-dimensional matching, planted (NP-complete, Garey-Johnson SP16): three lists
    W, X, Y of n numbers; pair every W[i] with its own X[j] and Y[k] so that each triple sums
    to b. d: n = d + 4, planted triples with W, X in 1..5n and Y = b - W - X, X and Y
    shuffled. Answer: for each i, the j and k. Reward: -1 unparsable, -0.5 wrong count or not
    two permutations, else (triples summing to b / n)^5."""

    name = "numerical_3d_matching"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        b = 12 * n
        w = [rng.randint(1, 5 * n) for _ in range(n)]
        x = [rng.randint(1, 5 * n) for _ in range(n)]
        y = [b - a - c for a, c in zip(w, x)]
        px, py = rng.sample(range(n), n), rng.sample(range(n), n)  # W[i]'s partners sit at px[i], py[i]
        xs, ys = [0] * n, [0] * n
        for i in range(n):
            xs[px[i]], ys[py[i]] = x[i], y[i]
        return {"b": b, "w": w, "x": xs, "y": ys}, "\n".join(f"{px[i]} {py[i]}" for i in range(n))

    def prompt(self, problem):
        n = len(problem["w"])
        show = lambda name: f"{name} = " + " ".join(map(str, problem[name.lower()]))  # noqa: E731
        return ask(f"{show('W')}\n{show('X')}\n{show('Y')}\n\nMatch every W[i] with a different X[j] and a different "
                   f"Y[k] (indices from 0) so that every triple sums to W[i] + X[j] + Y[k] = {problem['b']}.",
                   f"Give {n} lines, line i holding j and k for W[i], e.g. <answer>1 0\n0 1</answer>.")

    def reward(self, problem, answer):
        n = len(problem["w"])
        grid = int_grid(answer, n, 2)
        if grid is None or sorted(j for j, _ in grid) != list(range(n)) or sorted(k for _, k in grid) != list(range(n)):
            return -0.5
        w, x, y = problem["w"], problem["x"], problem["y"]
        return share(sum(w[i] + x[j] + y[k] == problem["b"] for i, (j, k) in enumerate(grid)), n, 5)


class ZeroOneProgramming(GymEnv):
    """0-1 integer programming with equality constraints, planted (NP-complete, Karp): find 0/1
    values satisfying every equation A x = b. d: n = d + 6 variables, m = n // 3 + 2 equations
    with coefficients in -3..9, b = A x* for a hidden x*. Answer: n values. Reward: -1
    unparsable, -0.5 wrong count or a value other than 0/1, 1 if every equation holds, else 0."""

    name = "zero_one_programming"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        x = [rng.randint(0, 1) for _ in range(n)]
        a = [[rng.randint(-3, 9) for _ in range(n)] for _ in range(n // 3 + 2)]
        return {"a": a, "b": [sum(c * v for c, v in zip(row, x)) for row in a]}, " ".join(map(str, x))

    def prompt(self, problem):
        n = len(problem["a"][0])
        eqs = "\n".join(" + ".join(f"{c}*x{j + 1}" for j, c in enumerate(row)).replace("+ -", "- ") + f" = {b}"
                        for row, b in zip(problem["a"], problem["b"]))
        return ask(f"Find values 0 or 1 for x1..x{n} that satisfy every equation:\n{eqs}",
                   f"Give {n} values (0 or 1) for x1..x{n}, separated by spaces.")

    def reward(self, problem, answer):
        x = int_list(answer)
        if len(x) != len(problem["a"][0]) or any(v not in (0, 1) for v in x):
            return -0.5
        ok = all(sum(c * v for c, v in zip(row, x)) == b for row, b in zip(problem["a"], problem["b"]))
        return 1.0 if ok else 0.0


class JobShopSchedule(GymEnv):
    """Job-shop scheduling under a makespan bound, planted (NP-complete, Garey-Johnson SS18):
    each job runs its operations in a given order, one per machine; a machine runs one
    operation at a time. d: j = d // 3 + 3 jobs on m = 3 machines, lengths 1..6, each job
    visiting the machines in a random order; T = the smallest makespan of 8 schedules, each
    built by placing the next operation of a random job as early as possible. Answer: the start
    time of every operation. Reward: -1 unparsable, -0.5 wrong shape or a negative start, 0 if an order or a
    machine is violated, else min(1, T / makespan)^5."""

    name = "job_shop_schedule"
    category = "np_complete"
    machines = 3

    def size(self, difficulty):
        return difficulty // 3 + 3

    def build(self, rng, difficulty):
        j, m = self.size(difficulty), self.machines
        jobs = [[(mach, rng.randint(1, 6)) for mach in rng.sample(range(m), m)] for _ in range(j)]
        best = None
        for _ in range(8):  # the tightest of 8 random greedy schedules sets the bound
            start = [[0] * m for _ in range(j)]
            job_free, mach_free, nxt = [0] * j, [0] * m, [0] * j
            order = [i for i in range(j) for _ in range(m)]
            rng.shuffle(order)
            for i in order:
                mach, length = jobs[i][nxt[i]]
                t = max(job_free[i], mach_free[mach])
                start[i][nxt[i]] = t
                job_free[i] = mach_free[mach] = t + length
                nxt[i] += 1
            if best is None or max(job_free) < best[0]:
                best = (max(job_free), start)
        return {"jobs": jobs, "bound": best[0]}, lines(best[1])

    def prompt(self, problem):
        jobs, m = problem["jobs"], self.machines
        text = "\n".join(f"job {i}: " + ", ".join(f"machine {mach} for {t}" for mach, t in ops)
                         for i, ops in enumerate(jobs))
        return ask(f"{len(jobs)} jobs run on {m} machines (0 to {m - 1}). Each job runs its operations in the order "
                   f"listed, each after the previous one has finished; a machine runs one operation at a time.\n{text}\n\n"
                   f"Schedule every operation (integer start times from 0) so that all jobs finish by time "
                   f"{problem['bound']}.", f"Give {len(jobs)} lines, line i holding the start times of job i's "
                   f"{m} operations in order, e.g. <answer>0 3 5\n1 4 9</answer>.")

    def reward(self, problem, answer):
        jobs = problem["jobs"]
        start = int_grid(answer, len(jobs), self.machines)
        if start is None or any(t < 0 for row in start for t in row):
            return -0.5
        busy = [[] for _ in range(self.machines)]
        for ops, times in zip(jobs, start):
            for k, ((mach, length), t) in enumerate(zip(ops, times)):
                if k and t < times[k - 1] + ops[k - 1][1]:
                    return 0.0
                busy[mach].append((t, t + length))
        for spans in busy:
            spans.sort()
            if any(b[0] < a[1] for a, b in zip(spans, spans[1:])):
                return 0.0
        return graded(problem["bound"], max(t + ops[-1][1] for ops, t in zip(jobs, (r[-1] for r in start))))


class ReleaseTimeSequencing(GymEnv):
    """Sequencing with release times and deadlines, planted (NP-complete in the strong sense,
    Garey-Johnson SS1): one machine; job i may start at its release time r_i, runs p_i and
    must end by its deadline e_i. d: n = d + 5 jobs laid out in a hidden order with idle gaps
    of 0-2, p in 1..9, releases up to 6 before the planted start and deadlines up to 3 after
    the planted end. Answer: an order; each job starts as early as the machine and its release
    allow. Reward: -1 unparsable, -0.5 not a permutation, else (jobs on time / n)^5."""

    name = "release_time_sequencing"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        order = rng.sample(range(n), n)
        jobs, t = [None] * n, 0
        for i in order:
            begin = t + rng.randint(0, 2)
            p = rng.randint(1, 9)
            jobs[i] = (max(0, begin - rng.randint(0, 6)), p, begin + p + rng.randint(0, 3))
            t = begin + p
        return {"jobs": jobs}, " ".join(map(str, order))

    def prompt(self, problem):
        jobs = problem["jobs"]
        text = "\n".join(f"job {i}: release {r}, length {p}, deadline {e}" for i, (r, p, e) in enumerate(jobs))
        return ask(f"One machine runs {len(jobs)} jobs, one at a time and without interruption. A job cannot start "
                   f"before its release time and must finish by its deadline.\n{text}\n\nFind an order of the jobs "
                   "such that, when each job starts as soon as the machine is free and the job is released, every job "
                   "meets its deadline.", "Give the jobs in order separated by spaces, e.g. <answer>2 0 1</answer>.")

    def reward(self, problem, answer):
        order, jobs = int_list(answer), problem["jobs"]
        if sorted(order) != list(range(len(jobs))):
            return -0.5
        t = on_time = 0
        for i in order:
            r, p, e = jobs[i]
            t = max(t, r) + p
            on_time += t <= e
        return share(on_time, len(jobs), 5)
