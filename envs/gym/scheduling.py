"""Scheduling and covering optimisation, graded against the optimum (RLVE line 53): unit jobs
with deadlines, two-machine flow shops, weighted completion time, late jobs, interval
stabbing, interval partitioning.

Each optimum comes from the problem's exact polynomial algorithm (an exchange-argument greedy:
Johnson's rule, Smith's ratio rule, Moore-Hodgson, earliest end first), never from search.
A feasible answer scores (its value / optimum)^5 for maximisation and (optimum / its cost)^5
for minimisation, exactly 1 only at the optimum (ratio()); -0.5 for an answer that does not
describe a candidate (bad indices, not a permutation), 0 for an infeasible one, -1 unparsable.
"""
from __future__ import annotations

import bisect
import heapq

from envs.gym.base import GymEnv, ask, index_set, int_list, ratio

ORDER_FORMAT = "Give all {n} job indices in processing order, separated by spaces, e.g. <answer>2 0 1</answer>."


def _jobs_text(rows: list, header: str) -> str:
    return header + "\n" + "\n".join(f"{i}: " + " ".join(map(str, r)) for i, r in enumerate(rows))


def _is_order(order: list[int], n: int) -> bool:
    return sorted(order) == list(range(n))


class JobSequencingDeadlines(GymEnv):
    """Unit-time jobs with deadlines and profits on one machine (optimisation; greedy by profit
    into the latest free slot is optimal). d: n = d + 5 jobs, deadlines in [1, n // 2 + 1],
    profits 1..50. Answer: the jobs to do. Reward: 0 if they cannot all meet their deadlines
    (checked by earliest deadline first), else (profit / optimum)^5."""

    name = "job_sequencing_deadlines"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        jobs = [(rng.randint(1, n // 2 + 1), rng.randint(1, 50)) for _ in range(n)]
        slots: dict[int, int] = {}
        for i in sorted(range(n), key=lambda i: -jobs[i][1]):
            t = jobs[i][0]
            while t > 0 and t in slots:
                t -= 1
            if t > 0:
                slots[t] = i
        chosen = sorted(slots.values())
        return {"jobs": jobs, "optimum": sum(jobs[i][1] for i in chosen)}, " ".join(map(str, chosen))

    def prompt(self, problem):
        return ask(_jobs_text(problem["jobs"], "Jobs (index: deadline profit):") + "\n\nEach job takes one unit of time "
                   "on a single machine starting at time 0, and earns its profit only if it finishes by its deadline. "
                   "Choose jobs that can all finish by their deadlines with the largest total profit.",
                   "Give the chosen job indices separated by spaces, e.g. <answer>0 2 5</answer>.")

    def reward(self, problem, answer):
        jobs = problem["jobs"]
        chosen = index_set(answer, len(jobs))
        if chosen is None:
            return -0.5
        deadlines = sorted(jobs[i][0] for i in chosen)
        if any(d < k for k, d in enumerate(deadlines, 1)):
            return 0.0
        return ratio(sum(jobs[i][1] for i in chosen), problem["optimum"], 5)


def flow_shop_makespan(jobs: list, order: list[int]) -> int:
    t1 = t2 = 0
    for i in order:
        t1 += jobs[i][0]
        t2 = max(t2, t1) + jobs[i][1]
    return t2


class FlowShopTwoMachines(GymEnv):
    """Two-machine flow shop, minimum makespan (optimisation; Johnson's rule is optimal). d:
    n = d + 4 jobs with times 1..20 on machine 1 then machine 2. Answer: a job order (the same
    on both machines). Reward: -0.5 not a permutation, else (optimal makespan / its makespan)^5."""

    name = "flow_shop_two_machines"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        jobs = [(rng.randint(1, 20), rng.randint(1, 20)) for _ in range(n)]
        first = sorted((i for i in range(n) if jobs[i][0] < jobs[i][1]), key=lambda i: jobs[i][0])
        last = sorted((i for i in range(n) if jobs[i][0] >= jobs[i][1]), key=lambda i: -jobs[i][1])
        order = first + last
        return {"jobs": jobs, "optimum": flow_shop_makespan(jobs, order)}, " ".join(map(str, order))

    def prompt(self, problem):
        n = len(problem["jobs"])
        return ask(_jobs_text(problem["jobs"], "Jobs (index: time on machine 1, time on machine 2):") + "\n\nEvery job "
                   "runs first on machine 1, then on machine 2; each machine does one job at a time and both machines "
                   "take the jobs in the same order. Choose the order that finishes all jobs as early as possible.",
                   ORDER_FORMAT.format(n=n))

    def reward(self, problem, answer):
        order, jobs = int_list(answer), problem["jobs"]
        if not _is_order(order, len(jobs)):
            return -0.5
        return ratio(problem["optimum"], flow_shop_makespan(jobs, order), 5)


def weighted_completion(jobs: list, order: list[int]) -> int:
    t = total = 0
    for i in order:
        t += jobs[i][0]
        total += jobs[i][1] * t
    return total


class WeightedCompletionTime(GymEnv):
    """One machine, minimum total weighted completion time (optimisation; Smith's rule, by
    processing time / weight, is optimal). d: n = d + 4 jobs, times 1..20, weights 1..10.
    Reward: -0.5 not a permutation, else (optimum / its cost)^5."""

    name = "weighted_completion_time"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        jobs = [(rng.randint(1, 20), rng.randint(1, 10)) for _ in range(n)]
        order = sorted(range(n), key=lambda i: _SmithKey(jobs[i]))
        return {"jobs": jobs, "optimum": weighted_completion(jobs, order)}, " ".join(map(str, order))

    def prompt(self, problem):
        n = len(problem["jobs"])
        return ask(_jobs_text(problem["jobs"], "Jobs (index: processing time, weight):") + "\n\nOne machine processes "
                   "the jobs one after another from time 0. Choose the order that minimises the sum over jobs of "
                   "weight x completion time.", ORDER_FORMAT.format(n=n))

    def reward(self, problem, answer):
        order, jobs = int_list(answer), problem["jobs"]
        if not _is_order(order, len(jobs)):
            return -0.5
        return ratio(problem["optimum"], weighted_completion(jobs, order), 5)


class _SmithKey:
    """Orders jobs by time / weight exactly (cross-multiplied, no floats)."""

    __slots__ = ("t", "w")

    def __init__(self, job):
        self.t, self.w = job

    def __lt__(self, other):
        return self.t * other.w < other.t * self.w


class MinimizeLateJobs(GymEnv):
    """One machine, fewest late jobs (optimisation; the Moore-Hodgson algorithm is optimal).
    d: n = d + 5 jobs with times 1..10 and due dates up to about 3n. Answer: the jobs finished
    on time (they run first, in due-date order). Reward: 0 if they cannot all meet their due
    dates, else (on-time jobs / optimum)^5."""

    name = "minimize_late_jobs"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        jobs = [(rng.randint(1, 10), rng.randint(1, 3 * n)) for _ in range(n)]
        heap, t = [], 0
        for i in sorted(range(n), key=lambda i: jobs[i][1]):
            heapq.heappush(heap, (-jobs[i][0], i))
            t += jobs[i][0]
            if t > jobs[i][1]:
                longest, _ = heapq.heappop(heap)
                t += longest
        on_time = sorted(i for _, i in heap)
        return {"jobs": jobs, "optimum": len(on_time)}, " ".join(map(str, on_time))

    def prompt(self, problem):
        return ask(_jobs_text(problem["jobs"], "Jobs (index: processing time, due date):") + "\n\nOne machine processes "
                   "jobs one at a time from time 0. A job is on time if it finishes by its due date. Choose as many "
                   "jobs as possible that can all be on time (the rest are done late, afterwards).",
                   "Give the indices of the on-time jobs separated by spaces, e.g. <answer>0 2 5</answer>.")

    def reward(self, problem, answer):
        jobs = problem["jobs"]
        chosen = index_set(answer, len(jobs))
        if chosen is None:
            return -0.5
        t = 0
        for i in sorted(chosen, key=lambda i: jobs[i][1]):  # earliest due date first is feasible if anything is
            t += jobs[i][0]
            if t > jobs[i][1]:
                return 0.0
        return ratio(len(chosen), problem["optimum"], 5)


def _intervals(rng, n: int) -> list[tuple[int, int]]:
    out = []
    for _ in range(n):
        a = rng.randint(0, 4 * n)
        out.append((a, rng.randint(a, a + n)))
    return out


class IntervalStabbing(GymEnv):
    """Fewest points hitting every closed interval (optimisation; taking the earliest right end
    first is optimal). d: n = d + 5 intervals inside [0, 5n]. Answer: integer points. Reward: 0
    if some interval holds no point, else (optimum / points)^5."""

    name = "interval_stabbing"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        iv = _intervals(rng, self.size(difficulty))
        points = []
        for a, b in sorted(iv, key=lambda x: x[1]):
            if not points or points[-1] < a:
                points.append(b)
        return {"intervals": iv, "optimum": len(points)}, " ".join(map(str, points))

    def prompt(self, problem):
        return ask("Closed intervals: " + ", ".join(f"[{a}, {b}]" for a, b in problem["intervals"]) +
                   "\n\nChoose as few integer points as possible so that every interval contains at least one of them.",
                   "Give the points separated by spaces, e.g. <answer>3 10 17</answer>.")

    def reward(self, problem, answer):
        points = sorted(set(int_list(answer)))
        if not points:
            return 0.0
        for a, b in problem["intervals"]:
            k = bisect.bisect_left(points, a)
            if k == len(points) or points[k] > b:
                return 0.0
        return ratio(problem["optimum"], len(points), 5)


class IntervalPartitioning(GymEnv):
    """Fewest rooms for all meetings (optimisation; the optimum is the largest number of
    meetings overlapping at one time). d: n = d + 5 half-open meetings [start, end) inside
    [0, 5n]. Answer: a room label per meeting. Reward: -0.5 wrong count, 0 if two meetings in
    one room overlap, else (optimum / rooms used)^5."""

    name = "interval_partitioning"
    category = "optimization"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        iv = [(a, b + 1) for a, b in _intervals(rng, self.size(difficulty))]
        free, rooms, label = [], 0, [0] * len(iv)
        for i in sorted(range(len(iv)), key=lambda i: iv[i][0]):
            if free and free[0][0] <= iv[i][0]:
                _, room = heapq.heappop(free)
            else:
                room, rooms = rooms, rooms + 1
            label[i] = room
            heapq.heappush(free, (iv[i][1], room))
        return {"meetings": iv, "optimum": rooms}, " ".join(map(str, label))

    def prompt(self, problem):
        m = problem["meetings"]
        return ask("Meetings (index: start end; a meeting occupies [start, end), so one ending at 5 and one starting "
                   "at 5 do not overlap):\n" + "\n".join(f"{i}: {a} {b}" for i, (a, b) in enumerate(m)) +
                   "\n\nAssign every meeting a room so that meetings in the same room never overlap, using as few rooms "
                   "as possible.", f"Give {len(m)} integers separated by spaces: the room of each meeting.")

    def reward(self, problem, answer):
        labels, m = int_list(answer), problem["meetings"]
        if len(labels) != len(m):
            return -0.5
        by_room: dict[int, list] = {}
        for (a, b), r in zip(m, labels):
            by_room.setdefault(r, []).append((a, b))
        for spans in by_room.values():
            spans.sort()
            if any(x[1] > y[0] for x, y in zip(spans, spans[1:])):
                return 0.0
        return ratio(problem["optimum"], len(by_room), 5)
