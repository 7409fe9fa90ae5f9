"""More planning puzzles, answered as move sequences and replayed by the scorer: sliding on ice,
Sokoban, and the four-peg Tower of Hanoi (Reve's puzzle).

ice_sliding's optimum comes from breadth-first search over the n^2 resting places; sokoban is
planted backwards (boxes start on the goals and the player pulls them away, so the reversed
pulls are pushes that solve it; the fewest moves are not computed, as deduction.py's
sliding_puzzle); reve_puzzle's bound is the Frame-Stewart number, proved optimal for four pegs
(Bousch 2014). What makes each its own puzzle: a ball that slides until it hits a rock (graphs.py's
maze_shortest_path steps one cell), boxes that can only be pushed, and four pegs instead of
three (logic_plans.py's hanoi_from_position, whose optimal strategy differs).

Reward (our choice, as logic_plans.py): -1 unparsable, -0.5 an illegal move where noted, 0 if
the goal is not reached, else 1 or (bound / moves)^5 as stated per env.
"""
from __future__ import annotations

from collections import deque
from functools import lru_cache

from envs.gym.base import GymEnv, Retry, ask
from envs.gym.logic_plans import optimum_ratio, plan_lines

STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def udlr(answer: str) -> str:
    """Moves as letters U, D, L, R (spaces and commas ignored); ValueError on anything else."""
    moves = "".join(answer.replace(",", " ").split()).upper()
    if not moves or any(m not in STEP for m in moves):
        raise ValueError("moves must be U, D, L, R")
    return moves


def slide(rows: list[str], at: tuple[int, int], move: str) -> tuple[int, int]:
    dr, dc = STEP[move]
    r, c = at
    while 0 <= r + dr < len(rows) and 0 <= c + dc < len(rows[0]) and rows[r + dr][c + dc] != "#":
        r, c = r + dr, c + dc
    return r, c


class IceSliding(GymEnv):
    """Sliding on ice: a ball moves up, down, left or right and keeps sliding until a rock or
    the edge stops it; bring it to rest on the goal. d: an n x n grid, n = d + 5, rocks at rate
    0.2; the goal is a resting place as far as possible from the start (at least 3 moves) by
    breadth-first search over resting places. Answer: the moves as U/D/L/R. Reward: -1
    unparsable, 0 if the ball does not end at rest on the goal, else (fewest moves / moves)^5."""

    name = "ice_sliding"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        rows = ["".join("#" if rng.random() < 0.2 else "." for _ in range(n)) for _ in range(n)]
        free = [(r, c) for r in range(n) for c in range(n) if rows[r][c] == "."]
        start = rng.choice(free)
        prev = {start: None}
        queue = deque([start])
        while queue:
            at = queue.popleft()
            for m in rng.sample("UDLR", 4):
                nxt = slide(rows, at, m)
                if nxt not in prev:
                    prev[nxt] = (at, m)
                    queue.append(nxt)
        depth = {}
        for at in prev:
            k, x = 0, at
            while prev[x] is not None:
                x, k = prev[x][0], k + 1
            depth[at] = k
        far = max(depth.values())
        if far < 3:
            raise Retry
        goal = rng.choice(sorted(at for at, k in depth.items() if k == far))
        moves, x = [], goal
        while prev[x] is not None:
            x, m = prev[x]
            moves.append(m)
        grid = [list(row) for row in rows]
        grid[start[0]][start[1]], grid[goal[0]][goal[1]] = "S", "G"
        return {"grid": ["".join(r) for r in grid], "optimum": far}, "".join(reversed(moves))

    def prompt(self, problem):
        n = len(problem["grid"])
        return ask(f"A ball lies on an icy {n}x{n} floor ('S' the ball, 'G' the goal, '#' a rock, '.' ice):\n"
                   + "\n".join(problem["grid"]) + "\n\nEach move pushes the ball up (U), down (D), left (L) or right "
                   "(R); it slides until the next cell is a rock or the edge. Bring the ball to rest on G in as few "
                   "moves as possible (passing over G does not count).", "Give the moves as letters, e.g. "
                   "<answer>R D L</answer>.")

    def reward(self, problem, answer):
        moves = udlr(answer)
        grid = problem["grid"]
        rows = [r.replace("S", ".").replace("G", ".") for r in grid]
        at = next((r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "S")
        goal = next((r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "G")
        for m in moves:
            at = slide(rows, at, m)
        return optimum_ratio(problem["optimum"], len(moves)) if at == goal else 0.0


class Sokoban(GymEnv):
    """Sokoban: the player walks up, down, left or right and pushes a box by walking into it
    (never two boxes, never into a wall); get every box onto a goal. d: an n x n room, n = d // 3
    + 6, walls on the border and at rate 0.1 inside, b = 1 + d // 6 boxes; planted backwards:
    the boxes start on the goals and up to 8 + 3d random reverse steps walk (never straight
    back) or pull a box, so the reversed steps solve it. Answer: the moves as U/D/L/R. Reward:
    -1 unparsable, -0.5 a move into a wall or a box that cannot move, 1 if every box ends on a
    goal, else 0 (any length: the fewest moves are not computed)."""

    name = "sokoban"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 3 + 6

    def build(self, rng, difficulty):
        n, b = self.size(difficulty), 1 + difficulty // 6
        wall = [[r in (0, n - 1) or c in (0, n - 1) or rng.random() < 0.1 for c in range(n)] for r in range(n)]
        floor = [(r, c) for r in range(n) for c in range(n) if not wall[r][c]]
        if len(floor) < b + 2:
            raise Retry
        picks = rng.sample(floor, b + 1)
        goals, player = set(picks[:b]), picks[b]
        boxes = set(goals)
        steps, last = [], None  # last: the previous step if it was a plain walk
        back = {"U": "D", "D": "U", "L": "R", "R": "L"}
        for _ in range(8 + 3 * difficulty):
            m = rng.choice("UDLR")
            dr, dc = STEP[m]
            to = (player[0] + dr, player[1] + dc)
            if wall[to[0]][to[1]] or to in boxes:
                continue
            behind = (player[0] - dr, player[1] - dc)
            pull = behind in boxes and rng.random() < 0.7
            if not pull and last == back[m]:
                continue  # a walk straight back: the gold plan would waste two moves
            if pull:
                boxes = (boxes - {behind}) | {player}
            steps.append(m)
            player, last = to, None if pull else m
        if boxes == goals:
            raise Retry
        grid = []
        for r in range(n):
            row = ""
            for c in range(n):
                cell = (r, c)
                row += ("#" if wall[r][c] else ("+" if cell in goals else "@") if cell == player else
                        "*" if cell in boxes and cell in goals else "$" if cell in boxes else "." if cell in goals else " ")
            grid.append(row.replace(" ", "_"))
        return {"grid": grid}, "".join(back[m] for m in reversed(steps))

    def prompt(self, problem):
        return ask("Sokoban ('#' wall, '_' floor, '@' you, '+' you on a goal, '$' a box, '.' a goal, '*' a box on a "
                   "goal):\n"
                   + "\n".join(problem["grid"]) + "\n\nMove up (U), down (D), left (L) or right (R) one cell at a time. "
                   "Walking into a box pushes it one cell, if the cell beyond is free floor or a goal (not a wall or "
                   "another box). Push every box onto a goal.", "Give the moves as letters, e.g. <answer>R R U L</answer>.")

    def reward(self, problem, answer):
        moves = udlr(answer)
        grid = problem["grid"]
        wall = {(r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "#"}
        boxes = {(r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch in "$*"}
        goals = {(r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch in ".*+"}
        at = next((r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch in "@+")
        for m in moves:
            dr, dc = STEP[m]
            to = (at[0] + dr, at[1] + dc)
            if to in wall:
                return -0.5
            if to in boxes:
                beyond = (to[0] + dr, to[1] + dc)
                if beyond in wall or beyond in boxes:
                    return -0.5
                boxes = (boxes - {to}) | {beyond}
            at = to
        return 1.0 if boxes == goals else 0.0


@lru_cache(maxsize=None)
def frame_stewart(n: int) -> tuple[int, int]:
    """(fewest moves for n disks on four pegs, the best split k): move the top k disks aside with
    four pegs, the other n - k with three (2^(n-k) - 1 moves), then the k on top again."""
    if n <= 1:
        return n, 0
    return min((2 * frame_stewart(k)[0] + 2 ** (n - k) - 1, k) for k in range(1, n))


def reve_moves(n: int, src: int, dst: int, spares: list[int], out: list[tuple[int, int]]) -> None:
    """Frame-Stewart moves of the top n disks from src to dst (disk numbers not needed: the
    tops are moved) with spares free pegs (two for four-peg steps, one for three-peg steps)."""
    if n == 0:
        return
    if n == 1:
        out.append((src, dst))
        return
    if len(spares) == 1:
        reve_moves(n - 1, src, spares[0], [dst], out)
        out.append((src, dst))
        reve_moves(n - 1, spares[0], dst, [src], out)
        return
    k = frame_stewart(n)[1]
    a, b = spares
    reve_moves(k, src, a, [b, dst], out)
    reve_moves(n - k, src, dst, [b], out)
    reve_moves(k, a, dst, [b, src], out)


class RevePuzzle(GymEnv):
    """Reve's puzzle, the four-peg Tower of Hanoi: move n disks from one peg to another, one
    top disk at a time, never onto a smaller disk, using four pegs. d: n drawn in d // 2 + 3
    .. d + 3, source and target pegs at random; the bound is the Frame-Stewart number, the
    optimum for four pegs (Bousch 2014). Answer: moves "from to". Reward: -1 unparsable, -0.5
    an illegal move, 0 if not all disks end on the target peg, else (Frame-Stewart number /
    moves)^5."""

    name = "reve_puzzle"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = rng.randint(difficulty // 2 + 3, difficulty + 3)
        src, dst = rng.sample(range(4), 2)
        moves: list[tuple[int, int]] = []
        reve_moves(n, src, dst, [p for p in range(4) if p not in (src, dst)], moves)
        return {"n": n, "src": src, "dst": dst, "optimum": frame_stewart(n)[0]}, "\n".join(
            f"{a + 1} {b + 1}" for a, b in moves)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"Tower of Hanoi with four pegs (1 to 4) and {n} disks (1 the smallest, {n} the largest). All disks "
                   f"start on peg {problem['src'] + 1}, largest at the bottom. Move them all onto peg {problem['dst'] + 1} "
                   "in as few moves as possible. Each move takes the top disk of one peg onto another peg, never onto "
                   "a smaller disk.", "Give one move per line as \"from to\" (peg numbers), e.g. <answer>1 3\n1 2</answer>.")

    def reward(self, problem, answer):
        moves = plan_lines(answer, width=2)
        n = problem["n"]
        stacks = [[] for _ in range(4)]
        stacks[problem["src"]] = list(range(n, 0, -1))
        for a, b in moves:
            if not (1 <= a <= 4 and 1 <= b <= 4) or a == b or not stacks[a - 1] or (
                    stacks[b - 1] and stacks[b - 1][-1] < stacks[a - 1][-1]):
                return -0.5
            stacks[b - 1].append(stacks[a - 1].pop())
        return optimum_ratio(problem["optimum"], len(moves)) if len(stacks[problem["dst"]]) == n else 0.0
