"""Scheduling optimisation, graded against the optimum: maximum lateness under precedence
constraints (Lawler), total completion time on parallel machines (SPT), contiguous work split
between workers (linear partition), one job per worker finishing as early as possible
(bottleneck assignment).

Each optimum comes from the problem's exact polynomial algorithm, never from search. Rewards
follow the optimisation family of optimization.py (our choice, in the (.)^5 shape of
PolynomialMinimum's reward, rlve line 55): -1 unparsable, -0.5 an answer that does not describe
a candidate, 0 for an infeasible one, else (optimum / its cost)^5, exactly 1 only at the
optimum (ratio()).
"""
from __future__ import annotations

from envs.gym.base import GymEnv, Retry, ask, int_list, ratio
from envs.gym.graphs import bipartite_matching


def max_lateness(jobs: list, order: list[int]) -> int:
    t, worst = 0, None
    for i in order:
        t += jobs[i][0]
        worst = t - jobs[i][1] if worst is None else max(worst, t - jobs[i][1])
    return worst


class PrecedenceMaxLateness(GymEnv):
    """One machine, jobs with processing times, due dates and precedence constraints; minimise
    the maximum lateness max(C_j - d_j) (optimisation; Lawler's algorithm: fill the schedule
    from the back with the eligible job of latest due date). d: n = d + 5 jobs, times 1..10,
    due dates below about half the total time (so the optimum is positive; redrawn otherwise),
    each pair (i before j in a hidden order) constrained with probability 2 / n. Answer: a
    processing order. Reward: -0.5 not a permutation, 0 if it breaks a precedence, else
    (optimum / its lateness)^5. Its own problem: the precedence DAG, which no scheduling env has,
    and a max-lateness objective rather than counts of late jobs or sums."""

    name = "precedence_max_lateness"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        times = [rng.randint(1, 10) for _ in range(n)]
        total = sum(times)
        jobs = [(t, rng.randint(1, total // 2)) for t in times]
        hidden = list(range(n))
        rng.shuffle(hidden)
        before = sorted((hidden[a], hidden[b]) for a in range(n) for b in range(a + 1, n) if rng.random() < 2 / n)
        succ = {i: set() for i in range(n)}
        for a, b in before:
            succ[a].add(b)
        left, back = set(range(n)), []
        while left:  # Lawler: the last slot goes to an eligible job (no successor left) of latest due date
            i = max((j for j in left if not succ[j] & left), key=lambda j: (jobs[j][1], -j))
            back.append(i)
            left.remove(i)
        order = back[::-1]
        opt = max_lateness(jobs, order)
        if opt <= 0:
            raise Retry
        return {"jobs": jobs, "before": before, "optimum": opt}, " ".join(map(str, order))

    def prompt(self, problem):
        jobs = "\n".join(f"{i}: {t} {d}" for i, (t, d) in enumerate(problem["jobs"]))
        cons = ", ".join(f"{a} before {b}" for a, b in problem["before"]) or "none"
        n = len(problem["jobs"])
        return ask(f"Jobs (index: processing time, due date):\n{jobs}\n\nPrecedence constraints: {cons}.\n\nOne machine "
                   "processes all jobs one at a time from time 0 without idling. The lateness of a job is its "
                   "finishing time minus its due date. Find an order that respects the precedence constraints and "
                   "makes the largest lateness as small as possible.",
                   f"Give all {n} job indices in processing order, separated by spaces, e.g. <answer>2 0 1</answer>.")

    def reward(self, problem, answer):
        jobs, order = problem["jobs"], int_list(answer)
        if sorted(order) != list(range(len(jobs))):
            return -0.5
        pos = {j: k for k, j in enumerate(order)}
        if any(pos[a] > pos[b] for a, b in problem["before"]):
            return 0.0
        return ratio(problem["optimum"], max_lateness(jobs, order), 5)


def total_completion(times: list[int], machine: list[int], m: int) -> int:
    """Sum of completion times when each machine runs its jobs shortest first (optimal for a
    fixed assignment)."""
    total = 0
    for k in range(m):
        t = 0
        for p in sorted(times[i] for i in range(len(times)) if machine[i] == k):
            t += p
            total += t
    return total


class ParallelTotalCompletion(GymEnv):
    """m identical machines, minimise the sum of the jobs' completion times (optimisation; the
    shortest-processing-time rule dealt round-robin is optimal: the k-th last job on a machine
    counts k times). d: m = d // 6 + 2 machines, n = d + 6 jobs, times 1..30. Answer: the
    machine of each job (each machine runs its jobs shortest first). Reward: -0.5 not n
    machine labels in 0..m-1, else (optimum / its total)^5. Its own problem:
    multiprocessor_scheduling minimises the makespan (NP-hard, planted) and
    weighted_completion_time has one machine; this sum objective on m machines is polynomial."""

    name = "parallel_total_completion"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n, m = self.size(difficulty), difficulty // 6 + 2
        times = [rng.randint(1, 30) for _ in range(n)]
        machine = [0] * n
        for rank, i in enumerate(sorted(range(n), key=lambda i: -times[i])):
            machine[i] = rank % m
        return ({"times": times, "m": m, "optimum": total_completion(times, machine, m)},
                " ".join(map(str, machine)))

    def prompt(self, problem):
        n, m = len(problem["times"]), problem["m"]
        jobs = ", ".join(f"job {i}: {t}" for i, t in enumerate(problem["times"]))
        return ask(f"{m} identical machines (0 to {m - 1}) must process these jobs (processing times): {jobs}. Each "
                   "machine runs its jobs one after another from time 0, shortest first. Assign every job to a "
                   "machine so that the sum of all jobs' finishing times is as small as possible.",
                   f"Give {n} integers separated by spaces: the machine of jobs 0 to {n - 1}.")

    def reward(self, problem, answer):
        times, m, machine = problem["times"], problem["m"], int_list(answer)
        if len(machine) != len(times) or any(not 0 <= k < m for k in machine):
            return -0.5
        return ratio(problem["optimum"], total_completion(times, machine, m), 5)


def linear_partition(a: list[int], k: int) -> tuple[int, list[int]]:
    """The least possible largest part sum over splits of a into k contiguous non-empty parts,
    and the cuts (start indices of parts 2..k) of one optimum: DP over prefixes."""
    n = len(a)
    pre = [0]
    for x in a:
        pre.append(pre[-1] + x)
    inf = float("inf")
    best = [[inf] * (n + 1) for _ in range(k + 1)]
    cut = [[0] * (n + 1) for _ in range(k + 1)]
    best[0][0] = 0
    for parts in range(1, k + 1):
        for end in range(parts, n + 1):
            for start in range(parts - 1, end):
                cand = max(best[parts - 1][start], pre[end] - pre[start])
                if cand < best[parts][end]:
                    best[parts][end], cut[parts][end] = cand, start
    cuts, end = [], n
    for parts in range(k, 1, -1):
        end = cut[parts][end]
        cuts.append(end)
    return best[k][n], cuts[::-1]


class LinearPartition(GymEnv):
    """Split a row of jobs into k contiguous blocks, one per worker, minimising the largest
    block total (optimisation; the painter's partition, DP over prefixes). d: n = d + 6 jobs
    with sizes 1..50, k = d // 4 + 2 workers. Answer: the k - 1 positions where a new block
    starts. Reward: -0.5 not k - 1 increasing positions in 1..n-1, else (optimum / its largest
    block)^5. Its own problem: the order is fixed (contiguous blocks), which makes it
    polynomial; balanced_partition and multiprocessor_scheduling may regroup items freely."""

    name = "linear_partition"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n, k = self.size(difficulty), difficulty // 4 + 2
        a = [rng.randint(1, 50) for _ in range(n)]
        opt, cuts = linear_partition(a, k)
        return {"sizes": a, "k": k, "optimum": opt}, " ".join(map(str, cuts))

    def prompt(self, problem):
        a, k = problem["sizes"], problem["k"]
        return ask(f"Jobs in a row (positions 0 to {len(a) - 1}) have sizes {' '.join(map(str, a))}. Split the row into "
                   f"{k} non-empty contiguous blocks, one per worker, so that the largest block total is as small as "
                   "possible.", f"Give the {k - 1} positions where blocks 2 to {k} start, increasing, separated by "
                   "spaces, e.g. <answer>3 7</answer> splits before positions 3 and 7.")

    def reward(self, problem, answer):
        a, k, cuts = problem["sizes"], problem["k"], int_list(answer)
        if len(cuts) != k - 1 or any(not 1 <= c < len(a) for c in cuts) or cuts != sorted(set(cuts)):
            return -0.5
        bounds = [0] + cuts + [len(a)]
        return ratio(problem["optimum"], max(sum(a[s:e]) for s, e in zip(bounds, bounds[1:])), 5)


def perfect_matching(allowed: list[list[bool]]) -> list[int] | None:
    """Each worker's job in a perfect matching along allowed pairs, or None if there is none."""
    n = len(allowed)
    pairs = bipartite_matching(n, [[j for j in range(n) if allowed[w][j]] for w in range(n)])
    if len(pairs) < n:
        return None
    return [j for _, j in sorted(pairs)]


class BottleneckAssignment(GymEnv):
    """Give each worker a different job so that the slowest worker finishes as early as
    possible: minimise the largest time in a perfect assignment (optimisation; the least
    threshold whose allowed pairs contain a perfect matching, by binary search over the
    distinct times). d: n = d // 2 + 3 workers and jobs, times 1..99. Answer: each worker's job.
    Reward: -0.5 not a permutation, else (optimum / its largest time)^5. Its own problem:
    assignment minimises the sum (Hungarian); the max objective has different optima and a
    matching-feasibility algorithm."""

    name = "bottleneck_assignment"
    category = "optimization"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        times = [[rng.randint(1, 99) for _ in range(n)] for _ in range(n)]
        values = sorted({t for r in times for t in r})
        lo, hi = 0, len(values) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if perfect_matching([[t <= values[mid] for t in r] for r in times]) is None:
                lo = mid + 1
            else:
                hi = mid
        jobs = perfect_matching([[t <= values[lo] for t in r] for r in times])
        return {"times": times, "optimum": values[lo]}, " ".join(map(str, jobs))

    def prompt(self, problem):
        n = len(problem["times"])
        rows = "\n".join(f"worker {i}: " + " ".join(map(str, r)) for i, r in enumerate(problem["times"]))
        return ask(f"Time worker i needs for job j (jobs 0 to {n - 1} left to right):\n{rows}\n\nAll workers start "
                   "together. Give each worker a different job so that the last one to finish finishes as early as "
                   "possible.", f"Give {n} integers separated by spaces: the job of workers 0 to {n - 1}.")

    def reward(self, problem, answer):
        times, jobs = problem["times"], int_list(answer)
        if sorted(jobs) != list(range(len(times))):
            return -0.5
        return ratio(problem["optimum"], max(times[i][j] for i, j in enumerate(jobs)), 5)
