"""Planning puzzles whose answer is a sequence of moves, simulated and checked move by move:
river crossing with conflicts (wolf-goat-cabbage generalised), missionaries and cannibals,
bridge and torch, Tower of Hanoi from a scrambled position, peg solitaire, knight's tour.

Each generator plants a plan (built forwards, or backwards from the goal as peg_solitaire's
reverse jumps) or computes the optimum in polynomial time (breadth-first search over
polynomially many states, the bridge-and-torch recurrence, Hanoi's greedy recursion); each
scorer replays the answer against the rules, so any legal plan that reaches the goal counts.
What makes each its own puzzle (deduction.py's water_jugs and sliding_puzzle are the other
plans): the state and the rules differ (which items may be left together; head counts on two
banks; a torch and crossing times; disks on pegs from an arbitrary position; pegs jumping pegs;
a knight's moves), and permutations.py's hanoi_state asks for a state of the standard solution
where hanoi_from_position asks for a plan.

Reward (our choice, as water_jugs and sliding_puzzle): -1 unparsable, -0.5 an illegal move
(it breaks the move rules), 0 if a safety rule breaks or the goal is not reached, else 1, or
(fewest moves or time / the answer's)^5 where the optimum is known, as stated per env.
"""
from __future__ import annotations

from collections import deque

from envs.gym.base import BELOW_ONE, GymEnv, Retry, ask, int_grid, share, to_int


def plan_lines(answer: str, width: int | None = None) -> list[list[int]]:
    """One move per non-empty line as integers ('-' alone: an empty move); ValueError on junk or
    on a line of the wrong width."""
    out = []
    for line in answer.splitlines():
        line = line.strip()
        if not line:
            continue
        move = [] if line == "-" else [to_int(t) for t in line.replace(",", " ").split()]
        if width is not None and len(move) != width:
            raise ValueError("wrong move width")
        out.append(move)
    if not out:
        raise ValueError("no moves")
    return out


def optimum_ratio(best: int, got: int) -> float:
    """(best / got)^5, exactly 1 only when got <= best."""
    return 1.0 if got <= best else min(BELOW_ONE, (best / got) ** 5)


class RiverCrossing(GymEnv):
    """River crossing with conflicts (Alcuin's wolf-goat-cabbage puzzle, generalised): a
    farmer ferries m items across a river in a boat holding him and at most c items; a bank
    without the farmer must not hold two items that conflict. d: m = d + 3 items; a hidden set
    of t = 1 + d // 4 items covers every conflict (each conflicts with 1-3 others, which never
    conflict among themselves) and c = t + 1, so ferrying the cover with one other item each
    trip works. Answer: the items carried on each crossing, the first from the start bank.
    Reward: -1 unparsable, -0.5 an item not on the farmer's bank, repeated or over capacity, 0
    if a bank is left unsafe or not everything ends across, else 1."""

    name = "river_crossing"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        m, t = self.size(difficulty), 1 + difficulty // 4
        items = rng.sample(range(1, m + 1), m)
        cover, rest = items[:t], items[t:]
        conflicts = set()
        for a in cover:
            for b in rng.sample(rest, min(len(rest), rng.randint(1, 3))):
                conflicts.add((min(a, b), max(a, b)))
        for i, a in enumerate(cover):
            for b in cover[i + 1:]:
                if rng.random() < 0.3:
                    conflicts.add((min(a, b), max(a, b)))
        plan = []
        for k, x in enumerate(rest):
            plan.append(sorted(cover + [x]))
            if k < len(rest) - 1:
                plan.append(sorted(cover))
        return ({"m": m, "cap": t + 1, "conflicts": sorted(conflicts)},
                "\n".join(" ".join(map(str, move)) for move in plan))

    def prompt(self, problem):
        m, cap = problem["m"], problem["cap"]
        pairs = ", ".join(f"{a}-{b}" for a, b in problem["conflicts"])
        return ask(f"A farmer must bring items 1 to {m} across a river. His boat carries him and at most {cap} items; "
                   "only he can row, so every crossing has him aboard. Some pairs of items conflict and must never be "
                   f"left together on a bank without the farmer: {pairs}.\n\nPlan the crossings (the first goes from "
                   "the start bank, then they alternate) so that everything ends on the far bank.",
                   "Give one crossing per line: the items carried, separated by spaces, or '-' for none, e.g. "
                   "<answer>1 2\n-\n3</answer>.")

    def reward(self, problem, answer):
        moves = plan_lines(answer)
        m, conflicts = problem["m"], problem["conflicts"]
        banks = [set(range(1, m + 1)), set()]
        side = 0
        for move in moves:
            load = set(move)
            if len(load) != len(move) or len(load) > problem["cap"] or not load <= banks[side]:
                return -0.5
            banks[side] -= load
            banks[1 - side] |= load
            if any(a in banks[side] and b in banks[side] for a, b in conflicts):
                return 0.0
            side = 1 - side
        return 1.0 if side == 1 and not banks[0] else 0.0


class MissionariesCannibals(GymEnv):
    """Missionaries and cannibals: M missionaries and C cannibals cross a river in a boat of
    capacity b; on either bank, missionaries present must never be outnumbered by cannibals
    there (counted after each crossing). d: M = d + 3, C drawn in M - 2..M, b = 2 for M = 3,
    3 for M in 4-5, else 4, plus 0 or 1; the fewest crossings by breadth-first search over the
    (M + 1)(C + 1) x 2 states (drawn again if unsolvable). Answer: "m c" carried per crossing.
    Reward: -1 unparsable, -0.5 a crossing with nobody, too many, or more than are on that
    bank, 0 if a bank is unsafe or not everyone ends across, else (fewest crossings /
    crossings)^5."""

    name = "missionaries_cannibals"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 3

    @staticmethod
    def safe(m: int, c: int, big_m: int, big_c: int) -> bool:
        return (m == 0 or m >= c) and (big_m - m == 0 or big_m - m >= big_c - c)

    def build(self, rng, difficulty):
        big_m = self.size(difficulty)
        big_c = rng.randint(max(1, big_m - 2), big_m)
        b = (2 if big_m == 3 else 3 if big_m <= 5 else 4) + rng.randint(0, 1)
        loads = [(x, y) for x in range(b + 1) for y in range(b + 1) if 1 <= x + y <= b]
        rng.shuffle(loads)  # ties between shortest plans broken at random
        start, goal = (big_m, big_c, 0), (0, 0, 1)
        prev = {start: None}
        queue = deque([start])
        while queue and goal not in prev:
            m, c, s = state = queue.popleft()
            sign = -1 if s == 0 else 1
            for x, y in loads:
                nm, nc = m + sign * x, c + sign * y
                nxt = (nm, nc, 1 - s)
                if 0 <= nm <= big_m and 0 <= nc <= big_c and self.safe(nm, nc, big_m, big_c) and nxt not in prev:
                    prev[nxt] = (state, (x, y))
                    queue.append(nxt)
        if goal not in prev:
            raise Retry
        plan, s = [], goal
        while prev[s] is not None:
            s, load = prev[s]
            plan.append(load)
        plan.reverse()
        return {"m": big_m, "c": big_c, "b": b, "optimum": len(plan)}, "\n".join(f"{x} {y}" for x, y in plan)

    def prompt(self, problem):
        return ask(f"{problem['m']} missionaries and {problem['c']} cannibals must cross a river in a boat that carries "
                   f"1 to {problem['b']} people (someone must row). After every crossing, on each bank the missionaries "
                   "there (if any) must not be outnumbered by the cannibals there. The first crossing leaves the start "
                   "bank; crossings alternate. Get everyone across in as few crossings as possible.",
                   "Give one crossing per line: the number of missionaries and of cannibals in the boat, e.g. "
                   "<answer>1 1\n1 0</answer>.")

    def reward(self, problem, answer):
        moves = plan_lines(answer, width=2)
        big_m, big_c, b = problem["m"], problem["c"], problem["b"]
        m, c, side = big_m, big_c, 0
        for x, y in moves:
            have_m, have_c = (m, c) if side == 0 else (big_m - m, big_c - c)
            if x < 0 or y < 0 or not 1 <= x + y <= b or x > have_m or y > have_c:
                return -0.5
            sign = -1 if side == 0 else 1
            m, c, side = m + sign * x, c + sign * y, 1 - side
            if not self.safe(m, c, big_m, big_c):
                return 0.0
        return optimum_ratio(problem["optimum"], len(moves)) if (m, c, side) == (0, 0, 1) else 0.0


def torch_plan(times: list[int]) -> tuple[int, list[list[int]]]:
    """The fastest bridge-and-torch plan (the classic recurrence: send the two slowest either
    escorted by the fastest or with the two fastest's shuttle, whichever is quicker)."""
    order = sorted(range(len(times)), key=lambda i: times[i])
    t = [times[i] for i in order]
    plan, total, left = [], 0, len(order)
    while left > 3:
        a, b, y, z = order[0], order[1], order[left - 2], order[left - 1]
        shuttle, escort = t[0] + 2 * t[1] + t[left - 1], 2 * t[0] + t[left - 2] + t[left - 1]
        if shuttle <= escort:
            plan += [[a, b], [a], [y, z], [b]]
            total += shuttle
        else:
            plan += [[a, z], [a], [a, y], [a]]
            total += escort
        left -= 2
    if left == 3:
        plan += [[order[0], order[2]], [order[0]], [order[0], order[1]]]
        total += t[0] + t[1] + t[2]
    elif left == 2:
        plan.append([order[0], order[1]])
        total += t[1]
    else:
        plan.append([order[0]])
        total += t[0]
    return total, plan


class BridgeAndTorch(GymEnv):
    """Bridge and torch: people cross a bridge at night, at most two at a time, with the one
    torch, each pair at the slower one's pace. d: n = d + 4 people with crossing times 1..5n;
    the fastest total by the classic recurrence. Answer: who crosses on each trip (forward and
    back alternately). Reward: -1 unparsable, -0.5 a trip of nobody, of more than two, or of
    someone not on the torch's side, 0 if not everyone ends across, else (fastest time /
    time)^5."""

    name = "bridge_and_torch"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        times = [rng.randint(1, 5 * n) for _ in range(n)]
        best, plan = torch_plan(times)
        return {"times": times, "optimum": best}, "\n".join(" ".join(str(i + 1) for i in trip) for trip in plan)

    def prompt(self, problem):
        times = problem["times"]
        people = ", ".join(f"person {i + 1}: {t} minutes" for i, t in enumerate(times))
        return ask(f"{len(times)} people must cross a bridge at night with one torch. At most two cross at a time, "
                   "the torch must go with every crossing, and a crossing takes as long as its slower person. "
                   f"Crossing times: {people}.\n\nGet everyone across in the least total time.",
                   "Give one crossing per line (the first goes over, the next comes back, and so on): the people "
                   "crossing, e.g. <answer>1 2\n1\n3 4</answer>.")

    def reward(self, problem, answer):
        trips, times = plan_lines(answer), problem["times"]
        n = len(times)
        banks, side, total = [set(range(1, n + 1)), set()], 0, 0
        for trip in trips:
            group = set(trip)
            if len(group) != len(trip) or not 1 <= len(group) <= 2 or not group <= banks[side]:
                return -0.5
            banks[side] -= group
            banks[1 - side] |= group
            total += max(times[i - 1] for i in group)
            side = 1 - side
        return optimum_ratio(problem["optimum"], total) if not banks[0] else 0.0


def hanoi_moves(pegs: list[int], target: int, out: list[tuple[int, int]]) -> None:
    """The fewest moves bringing every disk (pegs[k] = peg of disk k, 0 the smallest) onto
    target: the largest disk off target goes there once the smaller ones sit on the third peg."""
    pegs = pegs[:]

    def bring(k: int, to: int) -> None:  # disks 0..k onto peg `to`
        if k < 0:
            return
        if pegs[k] == to:
            bring(k - 1, to)
            return
        spare = 3 - pegs[k] - to
        bring(k - 1, spare)
        out.append((pegs[k], to))
        pegs[k] = to
        bring(k - 1, to)

    bring(len(pegs) - 1, target)


class HanoiFromPosition(GymEnv):
    """Tower of Hanoi from a scrambled position: n disks lie on three pegs in a random legal
    position (each disk on a random peg, smaller on larger); move them all onto peg 3, one top
    disk at a time, never a larger on a smaller. d: n = d // 4 + 3 disks; the fewest moves by
    the greedy recursion (the largest misplaced disk moves once; plans grow as 2^n, so this env's
    useful difficulties end near d = 40). Answer: moves "from to".
    Reward: -1 unparsable, -0.5 an illegal move, 0 if not all on peg 3 at the end, else
    (fewest moves / moves)^5."""

    name = "hanoi_from_position"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 4 + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pegs = [rng.randrange(3) for _ in range(n)]
        moves: list[tuple[int, int]] = []
        hanoi_moves(pegs, 2, moves)
        if len(moves) < 2:
            raise Retry
        return {"pegs": pegs, "optimum": len(moves)}, "\n".join(f"{a + 1} {b + 1}" for a, b in moves)

    def prompt(self, problem):
        pegs, n = problem["pegs"], len(problem["pegs"])
        stacks = "\n".join(f"peg {p + 1}: " + (" ".join(str(k + 1) for k in range(n - 1, -1, -1) if pegs[k] == p) or "empty")
                           for p in range(3))
        return ask(f"Tower of Hanoi with {n} disks (1 the smallest, {n} the largest), listed bottom to top:\n{stacks}\n\n"
                   "Move all disks onto peg 3 in as few moves as possible. Each move takes the top disk of one peg onto "
                   "another peg, never onto a smaller disk.",
                   "Give one move per line as \"from to\" (peg numbers), e.g. <answer>1 3\n1 2</answer>.")

    def reward(self, problem, answer):
        moves = plan_lines(answer, width=2)
        n = len(problem["pegs"])
        stacks = [[k for k in range(n - 1, -1, -1) if problem["pegs"][k] == p] for p in range(3)]
        for a, b in moves:
            if not (1 <= a <= 3 and 1 <= b <= 3) or a == b or not stacks[a - 1] or (
                    stacks[b - 1] and stacks[b - 1][-1] < stacks[a - 1][-1]):
                return -0.5
            stacks[b - 1].append(stacks[a - 1].pop())
        return optimum_ratio(problem["optimum"], len(moves)) if len(stacks[2]) == n else 0.0


JUMPS = ((0, 1), (0, -1), (1, 0), (-1, 0))


class PegSolitaire(GymEnv):
    """Peg solitaire on a square board: jump a peg over a neighbouring peg (up, down, left or
    right) into an empty hole, removing the jumped peg, until one peg is left (anywhere).
    d: an n x n board, n = d // 2 + 4, built backwards from one peg by k = d + 3 reverse jumps
    (a peg at a spreads into the two empty holes beside it in a line), so k jumps solve it.
    Answer: the jumps as "row column row column" (from, to; counted from 1). Reward: -1
    unparsable, -0.5 an illegal jump, 1 if one peg is left, else 0."""

    name = "peg_solitaire"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        n, k = self.size(difficulty), difficulty + 3
        pegs = {(rng.randrange(n), rng.randrange(n))}
        plan = []
        for _ in range(k):
            options = [(a, (a[0] + dr, a[1] + dc), (a[0] + 2 * dr, a[1] + 2 * dc)) for a in sorted(pegs) for dr, dc in JUMPS
                       if 0 <= a[0] + 2 * dr < n and 0 <= a[1] + 2 * dc < n
                       and (a[0] + dr, a[1] + dc) not in pegs and (a[0] + 2 * dr, a[1] + 2 * dc) not in pegs]
            if not options:
                raise Retry
            a, b, c = rng.choice(options)
            pegs = (pegs - {a}) | {b, c}
            plan.append((c, a))  # forwards: the peg at c jumps over b into a
        board = ["".join("o" if (r, c) in pegs else "." for c in range(n)) for r in range(n)]
        return {"board": board}, "\n".join(f"{f[0] + 1} {f[1] + 1} {t[0] + 1} {t[1] + 1}" for f, t in reversed(plan))

    def prompt(self, problem):
        n = len(problem["board"])
        return ask(f"Peg solitaire on a {n}x{n} board ('o' a peg, '.' an empty hole):\n" + "\n".join(problem["board"]) +
                   "\n\nA move jumps a peg over a neighbouring peg (up, down, left or right) into the empty hole just "
                   "beyond; the jumped peg is removed. Make moves until exactly one peg is left.",
                   "Give one jump per line as \"row column row column\" (from, then to; counted from 1), e.g. "
                   "<answer>1 3 1 1\n3 1 1 1</answer>.")

    def reward(self, problem, answer):
        moves = plan_lines(answer, width=4)
        board = problem["board"]
        n = len(board)
        pegs = {(r, c) for r in range(n) for c in range(n) if board[r][c] == "o"}
        for r1, c1, r2, c2 in moves:
            a, b = (r1 - 1, c1 - 1), (r2 - 1, c2 - 1)
            mid = ((a[0] + b[0]) // 2, (a[1] + b[1]) // 2)
            if (a not in pegs or mid not in pegs or b in pegs or not (0 <= b[0] < n and 0 <= b[1] < n)
                    or sorted((abs(a[0] - b[0]), abs(a[1] - b[1]))) != [0, 2]):
                return -0.5
            pegs = (pegs - {a, mid}) | {b}
        return 1.0 if len(pegs) == 1 else 0.0


KNIGHT = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))


class KnightsTour(GymEnv):
    """Knight's tour: visit every square of an n x n board once with chess knight moves, from
    a given square (an open tour). d: n = d // 3 + 5; the start square is drawn among those
    (r + c even on odd boards) from which tours exist, and the gold tour is Warnsdorff's rule
    with random tie-breaks (polynomial; drawn again on the rare dead end). Answer: the move
    number of every square. Reward: -1 unparsable or wrong shape, -0.5 not the numbers
    1..n^2 or not starting at the given square, else (knight-move steps / (n^2 - 1))^5, as
    hamiltonian_path_existence (rlve line 71) grades a path."""

    name = "knights_tour"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 3 + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        cells = [(r, c) for r in range(n) for c in range(n) if n % 2 == 0 or (r + c) % 2 == 0]
        at = rng.choice(cells)
        order = [[0] * n for _ in range(n)]
        order[at[0]][at[1]] = 1

        def exits(r, c):
            return [(r + dr, c + dc) for dr, dc in KNIGHT if 0 <= r + dr < n and 0 <= c + dc < n and not order[r + dr][c + dc]]

        start = at
        for step in range(2, n * n + 1):
            options = exits(*at)
            if not options:
                raise Retry
            least = min(len(exits(*x)) for x in options)
            at = rng.choice([x for x in options if len(exits(*x)) == least])
            order[at[0]][at[1]] = step
        return {"n": n, "start": list(start)}, "\n".join(" ".join(map(str, row)) for row in order)

    def prompt(self, problem):
        n, (r, c) = problem["n"], problem["start"]
        return ask(f"Find a knight's tour of a {n}x{n} chessboard starting at row {r + 1}, column {c + 1}: a sequence "
                   "of knight moves (two squares one way and one square at right angles) that visits every square "
                   "exactly once (it need not return to the start).",
                   f"Give {n} lines of {n} numbers: the move number (1 to {n * n}) at which each square is visited, 1 "
                   "at the start square.")

    def reward(self, problem, answer):
        n, (r0, c0) = problem["n"], problem["start"]
        grid = int_grid(answer, n, n)
        if grid is None:
            return -1.0
        where = {v: (r, c) for r, row in enumerate(grid) for c, v in enumerate(row)}
        if sorted(where) != list(range(1, n * n + 1)) or grid[r0][c0] != 1:
            return -0.5
        steps = sum(sorted((abs(where[k][0] - where[k + 1][0]), abs(where[k][1] - where[k + 1][1]))) == [1, 2]
                    for k in range(1, n * n))
        return share(steps, n * n - 1, 5)
