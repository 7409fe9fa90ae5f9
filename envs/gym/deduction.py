"""Deduction and search puzzles: knights and knaves, zebra puzzles, Minesweeper, Battleships,
water jugs, sliding tiles.

Planted solutions and rule-checking scorers as in the other logic families: any answer the
clues allow scores 1. The two search puzzles grade a move sequence: water jugs against the
fewest moves (breadth-first search), the sliding puzzle by whether it solves the board (the
optimum is not computed: that search is exponential).
"""
from __future__ import annotations

from collections import deque

from envs.gym.base import GymEnv, Retry, ask, ratio


# ------------------------------------------------------------------ knights and knaves

def _statement_true(st: list, roles: list[int]) -> bool:
    kind = st[0]
    if kind == "is":
        return roles[st[1]] == st[2]
    if kind == "both":
        return roles[st[1]] == 1 and roles[st[2]] == 1
    if kind == "some_knave":
        return roles[st[1]] == 0 or roles[st[2]] == 0
    if kind == "same":
        return roles[st[1]] == roles[st[2]]
    if kind == "differ":
        return roles[st[1]] != roles[st[2]]
    if kind == "count":
        return sum(roles) == st[1]
    raise ValueError(kind)


NEGATION = {"both": "some_knave", "some_knave": "both", "same": "differ", "differ": "same"}


def _statement_text(st: list, names: list[str]) -> str:
    kind = st[0]
    if kind == "is":
        return f"{names[st[1]]} is a {'knight' if st[2] else 'knave'}."
    if kind == "both":
        return f"{names[st[1]]} and {names[st[2]]} are both knights."
    if kind == "some_knave":
        return f"At least one of {names[st[1]]} and {names[st[2]]} is a knave."
    if kind == "same":
        return f"{names[st[1]]} and {names[st[2]]} are of the same kind."
    if kind == "differ":
        return f"{names[st[1]]} and {names[st[2]]} are of different kinds."
    return f"Exactly {st[1]} of us {'is a knight' if st[1] == 1 else 'are knights'}."


NAMES = ["Ada", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Leo", "Max", "Ned", "Oli",
         "Pam", "Quin", "Rex", "Sam", "Tom", "Uma", "Val", "Wes", "Xia", "Yan", "Zoe"]


def _names(n: int) -> list[str]:
    return NAMES[:n] if n <= len(NAMES) else [f"P{i + 1}" for i in range(n)]


class KnightsAndKnaves(GymEnv):
    """Knights (always truthful) and knaves (always lying) (logic puzzles). d: n = d // 2 + 3
    people, each making one or two statements (about one person, two people, or how many
    knights there are) whose truth matches the speaker's planted kind. Answer: K or N per
    person. Reward: -1 unparsable, -0.5 wrong count, 1 if every statement is consistent with
    its speaker's kind, else 0."""

    name = "knights_and_knaves"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        roles = [rng.randint(0, 1) for _ in range(n)]
        said = []
        for speaker in range(n):
            for _ in range(1 + (rng.random() < 0.4)):
                kind = rng.choice(["is", "both", "some_knave", "same", "differ", "count"])
                others = [p for p in range(n) if p != speaker] or [speaker]
                if kind == "is":
                    st = ["is", rng.choice(others), rng.randint(0, 1)]
                elif kind == "count":
                    st = ["count", rng.randint(0, n)]
                else:
                    a, b = rng.sample(range(n), 2)
                    st = [kind, a, b]
                if _statement_true(st, roles) != bool(roles[speaker]):  # flip it into what the speaker says
                    if st[0] == "is":
                        st[2] = 1 - st[2]
                    elif st[0] == "count":
                        truth = sum(roles)
                        st[1] = truth if roles[speaker] else rng.choice([k for k in range(n + 1) if k != truth])
                    else:
                        st[0] = NEGATION[st[0]]
                said.append([speaker, st])
        return {"n": n, "said": said}, " ".join("K" if r else "N" for r in roles)

    def prompt(self, problem):
        names = _names(problem["n"])
        text = "\n".join(f"{names[s]} says: \"{_statement_text(st, names)}\"" for s, st in problem["said"])
        return ask(f"On an island, knights always tell the truth and knaves always lie. You meet {', '.join(names)}."
                   f"\n{text}\n\nWho is a knight and who is a knave?",
                   f"Give one letter per person in the order {', '.join(names)}: K for knight, N for knave, separated "
                   "by spaces, e.g. <answer>K N K</answer>.")

    def reward(self, problem, answer):
        toks = answer.upper().replace(",", " ").split()
        if any(t not in ("K", "N") for t in toks):
            raise ValueError("K or N per person")
        if len(toks) != problem["n"]:
            return -0.5
        roles = [int(t == "K") for t in toks]
        return 1.0 if all(_statement_true(st, roles) == bool(roles[s]) for s, st in problem["said"]) else 0.0


# ------------------------------------------------------------------ zebra puzzles

def _zebra_clue_true(clue: list, house: dict[str, int]) -> bool:
    kind = clue[0]
    if kind == "in":
        return house[clue[1]] == clue[2]
    if kind == "not_in":
        return house[clue[1]] != clue[2]
    a, b = house[clue[1]], house[clue[2]]
    if kind == "same":
        return a == b
    if kind == "left_of":
        return a + 1 == b
    if kind == "next_to":
        return abs(a - b) == 1
    if kind == "before":
        return a < b
    raise ValueError(kind)


def _zebra_clue_text(clue: list) -> str:
    kind = clue[0]
    if kind == "in":
        return f"{clue[1]} is in house {clue[2] + 1}."
    if kind == "not_in":
        return f"{clue[1]} is not in house {clue[2] + 1}."
    a, b = clue[1], clue[2]
    return {"same": f"{a} and {b} are in the same house.",
            "left_of": f"{a} is directly left of {b}.",
            "next_to": f"{a} and {b} are in neighbouring houses.",
            "before": f"{a} is somewhere left of {b}."}[kind]


class ZebraLogic(GymEnv):
    """Zebra (Einstein) puzzles (logic puzzles). d: n = 3 + d // 4 houses in a row and m =
    3 + d // 8 attributes; attribute X has values X1..Xn, one per house (a planted assignment);
    2nm clues that hold for it (in / not in a house, same house, directly left, neighbours,
    somewhere left). Answer: one line per house listing its values. Reward: -1 unparsable,
    -0.5 if the lines do not place every value exactly once, 1 if every clue holds, else 0."""

    name = "zebra_logic"
    category = "logic"

    def size(self, difficulty):
        return (3 + difficulty // 4) * (3 + difficulty // 8)

    def build(self, rng, difficulty):
        n, m = 3 + difficulty // 4, 3 + difficulty // 8
        attrs = LETTERS_ATTR[:m]
        house = {}
        for a in attrs:
            for h, v in enumerate(rng.sample(range(n), n)):
                house[f"{a}{v + 1}"] = h
        values = list(house)
        clues = []
        while len(clues) < 2 * n * m:
            kind = rng.choice(["in", "not_in", "same", "left_of", "next_to", "before", "same", "next_to"])
            if kind in ("in", "not_in"):
                v = rng.choice(values)
                h = house[v] if kind == "in" else rng.choice([k for k in range(n) if k != house[v]])
                clue = [kind, v, h]
            else:
                a, b = rng.sample(values, 2)
                clue = [kind, a, b]
            if _zebra_clue_true(clue, house) and clue not in clues:
                clues.append(clue)
        gold = "\n".join(" ".join(sorted((v for v in values if house[v] == h), key=lambda s: (s[0], int(s[1:]))))
                         for h in range(n))
        return {"n": n, "attrs": attrs, "clues": clues}, gold

    def prompt(self, problem):
        n, attrs = problem["n"], problem["attrs"]
        vals = "; ".join(f"{a}: " + ", ".join(f"{a}{i + 1}" for i in range(n)) for a in attrs)
        text = "\n".join(_zebra_clue_text(c) for c in problem["clues"])
        return ask(f"{n} houses stand in a row, numbered 1 to {n} from left to right. Each house has exactly one value "
                   f"of each attribute, and each value belongs to exactly one house. Attributes and values: {vals}."
                   f"\n\nClues:\n{text}\n\nFind which values are in which house.",
                   f"Give {n} lines, one per house from 1 to {n}, each listing that house's {len(attrs)} values "
                   f"separated by spaces, e.g. <answer>{' '.join(f'{a}2' for a in attrs)}\n...</answer>.")

    def reward(self, problem, answer):
        n, attrs = problem["n"], problem["attrs"]
        rows = [line.upper().replace(",", " ").split() for line in answer.splitlines() if line.strip()]
        house: dict[str, int] = {}
        for h, row in enumerate(rows):
            for v in row:
                if not (v[:1] in attrs and v[1:].isdigit() and v[1:].isascii() and 1 <= int(v[1:]) <= n):
                    raise ValueError(f"unknown value {v[:10]!r}")
                if v in house:
                    return -0.5
                house[v] = h
        if len(rows) != n or len(house) != n * len(attrs) or any(len(r) != len(attrs) for r in rows):
            return -0.5
        if any(len({v[0] for v in row}) != len(attrs) for row in rows):
            return -0.5
        return 1.0 if all(_zebra_clue_true(c, house) for c in problem["clues"]) else 0.0


LETTERS_ATTR = "ABCDEFGHJKLMNPQRSTUVWXYZ"


# ------------------------------------------------------------------ Minesweeper

def _mine_count(mines: set, r: int, c: int) -> int:
    return sum((r + dr, c + dc) in mines for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)


def _char_rows(answer: str, rows: int, cols: int, alphabet: str) -> list[str] | None:
    out = ["".join(line.split()) for line in answer.splitlines() if line.strip()]
    if len(out) != rows or any(len(r) != cols or any(ch not in alphabet for ch in r) for r in out):
        return None
    return out


class Minesweeper(GymEnv):
    """Minesweeper deduction (logic puzzles). d: an n x n board, n = d // 2 + 5, mines planted
    with probability 0.2; the mine count of about 60% of the safe cells is shown, and the total
    number of mines. Answer: the board with * for mines and . for safe cells. Reward: -1
    unparsable or wrong shape, 1 if the total is right, no shown cell holds a mine and every
    shown count matches, else 0."""

    name = "minesweeper"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 2 + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        mines = {(r, c) for r in range(n) for c in range(n) if rng.random() < 0.2}
        if not mines:
            raise Retry
        shown = [[str(_mine_count(mines, r, c)) if (r, c) not in mines and rng.random() < 0.6 else "?"
                  for c in range(n)] for r in range(n)]
        sol = ["".join("*" if (r, c) in mines else "." for c in range(n)) for r in range(n)]
        return {"shown": ["".join(row) for row in shown], "mines": len(mines)}, "\n".join(sol)

    def prompt(self, problem):
        n = len(problem["shown"])
        return ask(f"Minesweeper on a {n}x{n} board with exactly {problem['mines']} mines. A digit is a safe cell "
                   "showing how many of its (up to 8) neighbours hold mines; '?' is unknown.\n\n" +
                   "\n".join(problem["shown"]) + "\n\nFind a placement of the mines consistent with everything shown.",
                   f"Give {n} lines of {n} characters: * for a mine, . for a safe cell.")

    def reward(self, problem, answer):
        shown = problem["shown"]
        n = len(shown)
        rows = _char_rows(answer, n, n, "*.")
        if rows is None:
            return -1.0
        mines = {(r, c) for r in range(n) for c in range(n) if rows[r][c] == "*"}
        if len(mines) != problem["mines"]:
            return 0.0
        for r in range(n):
            for c in range(n):
                if shown[r][c] != "?" and ((r, c) in mines or _mine_count(mines, r, c) != int(shown[r][c])):
                    return 0.0
        return 1.0


# ------------------------------------------------------------------ Battleships

def _ships(cells: set) -> list[int] | None:
    """Lengths of the ships formed by the cells, or None if some group is not a straight line
    or two groups touch (diagonally included)."""
    seen, lengths = set(), []
    for start in sorted(cells):
        if start in seen:
            continue
        group, stack = {start}, [start]
        while stack:
            r, c = stack.pop()
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    nb = (r + dr, c + dc)
                    if nb in cells and nb not in group:
                        group.add(nb)
                        stack.append(nb)
        seen |= group
        rows, cols = {r for r, _ in group}, {c for _, c in group}
        straight = (len(rows) == 1 and max(cols) - min(cols) + 1 == len(group)) or \
                   (len(cols) == 1 and max(rows) - min(rows) + 1 == len(group))
        if not straight:
            return None
        lengths.append(len(group))
    return sorted(lengths)


class Battleships(GymEnv):
    """Battleships (logic puzzles). d: an n x n sea, n = d // 3 + 6, and a fleet with k - L + 1
    ships of each length L = 1..k, k the largest with C(k + 2, 3) ship cells <= n^2 / 5, placed
    so that no two touch, not even at a corner; the clues are the number of ship cells in every row and column. Answer: # for ship
    cells, . for water. Reward: -1 unparsable or wrong shape, 1 if the row and column counts
    match and the cells form exactly the fleet (straight, not touching), else 0."""

    name = "battleships"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 3 + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = 1
        while (k + 1) * (k + 2) * (k + 3) // 6 <= n * n // 5:  # the fleet's cells: C(k + 2, 3)
            k += 1
        fleet = sorted(length for length in range(1, k + 1) for _ in range(k - length + 1))
        taken: set = set()
        for length in sorted(fleet, reverse=True):
            for _ in range(200):
                horizontal = rng.random() < 0.5
                r = rng.randrange(n if horizontal else n - length + 1)
                c = rng.randrange(n - length + 1 if horizontal else n)
                cells = [(r, c + i) if horizontal else (r + i, c) for i in range(length)]
                if all((x + dr, y + dc) not in taken for x, y in cells for dr in (-1, 0, 1) for dc in (-1, 0, 1)):
                    taken.update(cells)
                    break
            else:
                raise Retry
        sol = ["".join("#" if (r, c) in taken else "." for c in range(n)) for r in range(n)]
        return ({"n": n, "fleet": fleet, "rows": [row.count("#") for row in sol],
                 "cols": ["".join(col).count("#") for col in zip(*sol)]}, "\n".join(sol))

    def prompt(self, problem):
        n = problem["n"]
        counts = {}
        for length in problem["fleet"]:
            counts[length] = counts.get(length, 0) + 1
        fleet = ", ".join(f"{c} of length {length}" for length, c in sorted(counts.items(), reverse=True))
        return ask(f"Battleships on a {n}x{n} sea. Place this fleet of straight ships (horizontal or vertical): "
                   f"{fleet}. No two ships may touch, not even at a corner.\nShip cells in each row (top to bottom): "
                   + " ".join(map(str, problem["rows"])) + "\nShip cells in each column (left to right): "
                   + " ".join(map(str, problem["cols"])), f"Give {n} lines of {n} characters: # for ship, . for water.")

    def reward(self, problem, answer):
        n = problem["n"]
        rows = _char_rows(answer, n, n, "#.")
        if rows is None:
            return -1.0
        if [r.count("#") for r in rows] != problem["rows"] or ["".join(c).count("#") for c in zip(*rows)] != problem["cols"]:
            return 0.0
        cells = {(r, c) for r in range(n) for c in range(n) if rows[r][c] == "#"}
        return 1.0 if _ships(cells) == problem["fleet"] else 0.0


# ------------------------------------------------------------------ search puzzles

JUG_MOVES = ("fill A", "fill B", "empty A", "empty B", "pour A B", "pour B A")


def _jug_step(state: tuple[int, int], move: str, cap: tuple[int, int]) -> tuple[int, int]:
    a, b = state
    if move == "fill A":
        return cap[0], b
    if move == "fill B":
        return a, cap[1]
    if move == "empty A":
        return 0, b
    if move == "empty B":
        return a, 0
    if move == "pour A B":
        t = min(a, cap[1] - b)
        return a - t, b + t
    t = min(b, cap[0] - a)
    return a + t, b - t


class WaterJugs(GymEnv):
    """Measure a volume with two jugs (logic puzzles / search; the optimum by breadth-first
    search over jug states). d: capacities in [3, 5(d + 2)], a reachable target needing at
    least two moves. Answer: moves "fill X", "empty X", "pour X Y", separated by commas or
    lines. Reward: -1 unparsable, -0.5 if no jug ever holds the target, else (fewest moves /
    moves until the target first appears)^5."""

    name = "water_jugs"
    category = "logic"

    def size(self, difficulty):
        return 5 * (difficulty + 2)

    def build(self, rng, difficulty):
        cap = (rng.randint(3, self.size(difficulty)), rng.randint(3, self.size(difficulty)))
        if cap[0] == cap[1]:
            raise Retry
        prev = {(0, 0): None}
        queue = deque([(0, 0)])
        while queue:
            s = queue.popleft()
            for m in JUG_MOVES:
                t = _jug_step(s, m, cap)
                if t not in prev:
                    prev[t] = (s, m)
                    queue.append(t)
        depth = {}
        for s in prev:  # moves to reach each state
            k, x = 0, s
            while prev[x] is not None:
                x, k = prev[x][0], k + 1
            depth[s] = k
        best: dict[int, tuple[int, tuple]] = {}
        for s, k in depth.items():
            for v in s:
                if v not in best or k < best[v][0]:
                    best[v] = (k, s)
        targets = [v for v, (k, _) in best.items() if k >= 2]
        if not targets:
            raise Retry
        target = rng.choice(targets)
        moves, s = [], best[target][1]
        while prev[s] is not None:
            s, m = prev[s]
            moves.append(m)
        return {"cap": list(cap), "target": target, "optimum": best[target][0]}, ", ".join(reversed(moves))

    def prompt(self, problem):
        a, b = problem["cap"]
        return ask(f"Jug A holds {a} litres and jug B holds {b} litres; both start empty. Moves: fill a jug from the "
                   "tap, empty a jug, or pour one jug into the other until the first is empty or the second is full. "
                   f"Reach a state where one of the jugs holds exactly {problem['target']} litres, in as few moves "
                   "as possible.", "Give the moves in order separated by commas, each one of: fill A, fill B, empty A, "
                   "empty B, pour A B, pour B A; e.g. <answer>fill B, pour B A, empty A</answer>.")

    def reward(self, problem, answer):
        moves = [" ".join(m.split()).lower() for m in answer.replace("\n", ",").split(",") if m.strip()]
        allowed = {m.lower(): m for m in JUG_MOVES}
        if not moves or any(m not in allowed for m in moves):
            raise ValueError("unknown move")
        cap, state = tuple(problem["cap"]), (0, 0)
        for k, m in enumerate(moves, 1):
            state = _jug_step(state, allowed[m], cap)
            if problem["target"] in state:
                return ratio(problem["optimum"], k, 5)
        return -0.5


BLANK_MOVES = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


class SlidingPuzzle(GymEnv):
    """Sliding-tile puzzle (logic puzzles / search). d: an n x n board, n = 3 + d // 8,
    scrambled by 5 + 3d random moves of the blank from the solved board (never undoing the
    last move). Answer: the blank's moves U/D/L/R. Reward: -1 unparsable, -0.5 if a move leaves
    the board, 1 if the board ends solved, else 0 (any length: the fewest moves are not computed,
    that search is exponential)."""

    name = "sliding_puzzle"
    category = "logic"

    def size(self, difficulty):
        return 5 + 3 * difficulty

    def build(self, rng, difficulty):
        n = 3 + difficulty // 8
        board = list(range(1, n * n)) + [0]
        pos, last, path = n * n - 1, None, []
        for _ in range(self.size(difficulty)):
            options = [m for m, (dr, dc) in BLANK_MOVES.items()
                       if 0 <= pos // n + dr < n and 0 <= pos % n + dc < n and m != {"U": "D", "D": "U", "L": "R",
                                                                                        "R": "L"}.get(last)]
            m = rng.choice(options)
            dr, dc = BLANK_MOVES[m]
            nxt = pos + dr * n + dc
            board[pos], board[nxt] = board[nxt], board[pos]
            pos, last = nxt, m
            path.append(m)
        if board == list(range(1, n * n)) + [0]:
            raise Retry
        undo = "".join({"U": "D", "D": "U", "L": "R", "R": "L"}[m] for m in reversed(path))
        return {"n": n, "board": board}, undo

    def prompt(self, problem):
        n, b = problem["n"], problem["board"]
        rows = "\n".join(" ".join(str(v) if v else "_" for v in b[r * n:(r + 1) * n]) for r in range(n))
        solved = " ".join(map(str, range(1, n * n))) + " _"
        return ask(f"A {n}x{n} sliding puzzle (_ is the empty square):\n{rows}\n\nA move slides a tile into the empty "
                   "square; describe it by the direction the empty square moves (U up, D down, L left, R right). "
                   f"Reach the solved board, which reads {solved} row by row.",
                   "Give the moves as one string of letters, e.g. <answer>LLURD</answer>.")

    def reward(self, problem, answer):
        moves = "".join(answer.split()).upper()
        if not moves or len(moves) > 100_000 or any(m not in BLANK_MOVES for m in moves):
            raise ValueError("moves are U, D, L, R")
        n, board = problem["n"], list(problem["board"])
        pos = board.index(0)
        for m in moves:
            dr, dc = BLANK_MOVES[m]
            r, c = pos // n + dr, pos % n + dc
            if not (0 <= r < n and 0 <= c < n):
                return -0.5
            board[pos], board[r * n + c] = board[r * n + c], board[pos]
            pos = r * n + c
        return 1.0 if board == list(range(1, n * n)) + [0] else 0.0
