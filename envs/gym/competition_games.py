"""Programming-competition combinatorial games: Sprague-Grundy values and winning moves.

Move answers are checked, not compared: any move after which the mover can force a win scores.
Reward of a move env: -1 unparsable, -0.5 for an illegal move, 1 for a winning move, else 0.
Value envs: -1 unparsable, 1 exact, else 0. Generators discard (Retry) positions that are already
lost for the player to move, so a winning move always exists.

What makes each its own problem: nim_winning_move (existing) is plain Nim. Here the move sets
differ, and with them the theory: a subtraction set (periodic Grundy values), staircase Nim (only
odd stairs matter), Wythoff's game (Beatty sequences of the golden ratio), Kayles (Grundy values
of split rows), Euclid's game (continued-fraction quotients), tokens on a DAG (mex over
successors), green Hackenbush on trees (the colon principle), a take-from-either-end game (an
interval DP for the score, not a win) and a minimax tree value.
"""
from __future__ import annotations

import math
from functools import lru_cache

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, Retry, ask, int_list

MOVE_LOSS, MOVE_ILLEGAL = 0.0, -0.5


def mex(values) -> int:
    values, g = set(values), 0
    while g in values:
        g += 1
    return g


class _MoveEnv(GymEnv):
    category = "competition"

    def reward(self, problem, answer):
        move = int_list(answer)
        after = self.play(problem, move)
        if after is None:
            return MOVE_ILLEGAL
        return 1.0 if self.lost(problem, after) else MOVE_LOSS


class SubtractionGameMove(_MoveEnv):
    """A winning move in a sum of subtraction games: take s stones from one heap, s from a fixed
    set S. d: d + 3 heaps of 1..5d + 15 stones, 2-4 values of S from 1..7. Reward: -1
    unparsable, -0.5 illegal, 1 winning (Grundy XOR 0 after it), else 0."""

    name = "subtraction_game_move"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        heaps = [rng.randint(1, 5 * difficulty + 15) for _ in range(self.size(difficulty))]
        s = sorted(rng.sample(range(1, 8), rng.randint(2, 4)))
        g = _subtraction_grundy(s, max(heaps))
        x = 0
        for h in heaps:
            x ^= g[h]
        if x == 0:
            raise Retry
        for i, h in enumerate(heaps):
            for t in s:
                if t <= h and g[h - t] == g[h] ^ x:
                    return {"heaps": heaps, "s": s}, f"{i} {t}"
        raise AssertionError("a position with non-zero Grundy value has a winning move")

    def prompt(self, problem):
        heaps = problem["heaps"]
        return ask(f"Two players alternate. A move takes exactly s stones from one heap, where s is one of "
                   f"{', '.join(map(str, problem['s']))} (and the heap has at least s stones). A player who cannot "
                   "move loses. Heaps (index: stones): " + ", ".join(f"{i}: {h}" for i, h in enumerate(heaps)) +
                   "\n\nYou move first. Give a move after which you can force a win.",
                   "Give the heap index and the number of stones taken, separated by a space, e.g. "
                   "<answer>2 3</answer>.")

    def play(self, problem, move):
        heaps = problem["heaps"]
        if len(move) != 2 or not 0 <= move[0] < len(heaps) or move[1] not in problem["s"] or move[1] > heaps[move[0]]:
            return None
        return [h - move[1] if i == move[0] else h for i, h in enumerate(heaps)]

    def lost(self, problem, heaps):
        g, x = _subtraction_grundy(problem["s"], max(heaps)), 0
        for h in heaps:
            x ^= g[h]
        return x == 0


def _subtraction_grundy(s, top: int) -> list[int]:
    g = []
    for n in range(top + 1):
        g.append(mex(g[n - t] for t in s if t <= n))
    return g


class StaircaseNimMove(_MoveEnv):
    """A winning move in staircase Nim: move any positive number of coins from stair i to stair
    i - 1 (stair 0 is the floor). d: d + 4 stairs with 0..3d + 9 coins. Reward: -1 unparsable,
    -0.5 illegal, 1 winning (XOR of the odd stairs 0 after it), else 0."""

    name = "staircase_nim_move"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        coins = [rng.randint(0, 3 * difficulty + 9) for _ in range(self.size(difficulty))]  # stairs 1..k
        x = 0
        for i in range(0, len(coins), 2):
            x ^= coins[i]
        if x == 0:
            raise Retry
        i = next(i for i in range(0, len(coins), 2) if coins[i] ^ x < coins[i])
        return {"coins": coins}, f"{i + 1} {coins[i] - (coins[i] ^ x)}"

    def explain(self, problem):
        """Only odd stairs matter (moves from even stairs can be undone): play Nim on them."""
        c = problem["coins"]
        odd = c[0::2]
        x = 0
        for v in odd:
            x ^= v
        i = next(i for i in range(0, len(c), 2) if c[i] ^ x < c[i])
        return (f"odd stairs 1, 3, 5, ... hold {' '.join(map(str, odd))}; their XOR is {x}\n"
                f"stair {i + 1}: {c[i]} XOR {x} = {c[i] ^ x} < {c[i]}, so move {c[i] - (c[i] ^ x)} coins down")

    def prompt(self, problem):
        stairs = ", ".join(f"stair {i + 1}: {c}" for i, c in enumerate(problem["coins"]))
        return ask(f"Coins lie on a staircase ({stairs}; stair 0 is the floor). Two players alternate; a move takes any "
                   "positive number of coins from one stair i >= 1 and puts them on stair i - 1. A player who cannot "
                   "move (all coins on the floor) loses.\n\nYou move first. Give a move after which you can force a "
                   "win.", "Give the stair number and how many coins you move down, separated by a space, e.g. "
                   "<answer>3 2</answer>.")

    def play(self, problem, move):
        coins = list(problem["coins"])
        if len(move) != 2 or not 1 <= move[0] <= len(coins) or not 1 <= move[1] <= coins[move[0] - 1]:
            return None
        coins[move[0] - 1] -= move[1]
        if move[0] >= 2:
            coins[move[0] - 2] += move[1]
        return coins

    def lost(self, problem, coins):
        x = 0
        for i in range(0, len(coins), 2):
            x ^= coins[i]
        return x == 0


def wythoff_losing(a: int, b: int) -> bool:
    """(a, b) is a P-position: {a, b} = {floor(k phi), floor(k phi) + k} (exact integer phi)."""
    lo, hi = min(a, b), max(a, b)
    k = hi - lo
    return lo == (k + math.isqrt(5 * k * k)) // 2


class WythoffMove(_MoveEnv):
    """A winning move in Wythoff's game: take any number from one pile, or the same number from
    both. d: piles in 1..20(d + 2). Reward: -1 unparsable, -0.5 illegal, 1 winning (the piles
    after it are a Wythoff pair), else 0."""

    name = "wythoff_move"

    def size(self, difficulty):
        return 20 * (difficulty + 2)

    def build(self, rng, difficulty):
        a, b = rng.randint(1, self.size(difficulty)), rng.randint(1, self.size(difficulty))
        if wythoff_losing(a, b):
            raise Retry
        for k in range(max(a, b) + 1):
            lo = (k + math.isqrt(5 * k * k)) // 2
            for x, y in ((lo, lo + k), (lo + k, lo)):
                if self.play({"a": a, "b": b}, [x, y]) is not None:
                    return {"a": a, "b": b}, f"{x} {y}"
        raise AssertionError("every N-position of Wythoff's game reaches a P-position")

    def prompt(self, problem):
        return ask(f"Two piles hold {problem['a']} and {problem['b']} stones. Two players alternate; a move takes any "
                   "positive number of stones from one pile, or the same positive number from both piles. Whoever "
                   "takes the last stone wins.\n\nYou move first. Give a move after which you can force a win.",
                   "Give the two pile sizes after your move, in the same order, e.g. <answer>3 5</answer>.")

    def play(self, problem, move):
        a, b = problem["a"], problem["b"]
        if len(move) != 2:
            return None
        x, y = move
        da, db = a - x, b - y
        if x < 0 or y < 0 or da < 0 or db < 0 or (da, db) == (0, 0) or (da and db and da != db):
            return None
        return x, y

    def lost(self, problem, after):
        return wythoff_losing(*after)


class KaylesMove(_MoveEnv):
    """A winning move in Kayles: knock down one standing pin or two adjacent standing pins.
    d: a row of 3d + 10 pins, about a fifth already down. Reward: -1 unparsable, -0.5 illegal,
    1 winning (Grundy XOR of the standing runs 0 after it), else 0."""

    name = "kayles_move"

    def size(self, difficulty):
        return 3 * difficulty + 10

    def build(self, rng, difficulty):
        row = "".join("." if rng.random() < 0.2 else "I" for _ in range(self.size(difficulty)))
        problem = {"row": row}
        if self.lost(problem, row):
            raise Retry
        for i in range(len(row)):
            for width in (1, 2):
                move = list(range(i + 1, i + width + 1))
                after = self.play(problem, move)
                if after is not None and self.lost(problem, after):
                    return problem, " ".join(map(str, move))
        raise AssertionError("a non-zero Kayles position has a winning move")

    def prompt(self, problem):
        return ask(f"Pins stand in a row (I standing, . knocked down), positions 1 to {len(problem['row'])} from the "
                   f"left:\n{problem['row']}\n\nTwo players alternate; a move knocks down one standing pin or two "
                   "standing pins next to each other. A player who cannot move loses. You move first. Give a move "
                   "after which you can force a win.", "Give the position(s) of the pin(s) you knock down, e.g. "
                   "<answer>4</answer> or <answer>4 5</answer>.")

    def play(self, problem, move):
        row = problem["row"]
        ok = len(move) in (1, 2) and all(1 <= p <= len(row) and row[p - 1] == "I" for p in move)
        if not ok or (len(move) == 2 and abs(move[0] - move[1]) != 1):
            return None
        return "".join("." if i + 1 in move else c for i, c in enumerate(row))

    def lost(self, problem, row):
        runs = [len(r) for r in row.split(".") if r]
        g, x = _kayles(max(runs, default=0)), 0
        for r in runs:
            x ^= g[r]
        return x == 0


@lru_cache(maxsize=64)
def _kayles(top: int) -> tuple[int, ...]:
    g = [0]
    for n in range(1, top + 1):
        g.append(mex(g[a] ^ g[n - take - a] for take in (1, 2) if take <= n for a in range(n - take + 1)))
    return tuple(g)


def euclid_wins(a: int, b: int) -> bool:
    """Euclid's game: the player to move at (a, b), both > 0, can force reducing a number to 0."""
    a, b = max(a, b), min(a, b)
    flips = False  # walks the forced moves b < a < 2b until a free choice decides
    while True:
        if a % b == 0 or a >= 2 * b:
            return not flips
        a, b = b, a - b
        flips = not flips


class EuclidGameMove(_MoveEnv):
    """A winning move in Euclid's game: subtract a positive multiple of the smaller number from
    the larger, keeping it >= 0; whoever makes a number 0 wins. d: numbers with d // 2 + 2
    digits. Reward: -1 unparsable, -0.5 illegal, 1 winning (reaching 0, or a position lost for
    the opponent), else 0."""

    name = "euclid_game_move"

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        a, b = rng.randint(10 ** (k - 1), 10 ** k), rng.randint(10 ** (k - 1), 10 ** k)
        if a == b or not euclid_wins(a, b):
            raise Retry
        hi, lo = max(a, b), min(a, b)
        q = hi // lo
        for m in (q, q - 1):  # a move to (hi - m lo, lo); one of the two leaves the opponent lost
            new = hi - m * lo
            if m >= 1 and (new == 0 or not euclid_wins(new, lo)):
                return {"a": a, "b": b}, (f"{new} {b}" if a > b else f"{a} {new}")
        raise AssertionError("a winning Euclid position has a winning move")

    def prompt(self, problem):
        return ask(f"Two numbers: {problem['a']} and {problem['b']}. Two players alternate; a move subtracts a "
                   "positive multiple of the smaller number from the larger one, and the result must not be "
                   "negative. The player who makes one of the numbers 0 wins.\n\nYou move first. Give a move after "
                   "which you can force a win.", "Give the two numbers after your move, in the same order, e.g. "
                   "<answer>12 5</answer>.")

    def play(self, problem, move):
        a, b = problem["a"], problem["b"]
        if len(move) != 2 or min(move) < 0:
            return None
        if a > b and move[1] == b and move[0] < a and (a - move[0]) % b == 0:
            return move
        if b > a and move[0] == a and move[1] < b and (b - move[1]) % a == 0:
            return move
        return None

    def lost(self, problem, after):
        return min(after) == 0 or not euclid_wins(*after)


class DagTokensGameMove(_MoveEnv):
    """A winning move with tokens on a DAG: move one token along one edge; a player who cannot
    move loses. d: d + 6 vertices, each edge i -> j (i < j in a hidden order) with probability
    0.3, d // 3 + 2 tokens. Reward: -1 unparsable, -0.5 illegal, 1 winning (Grundy XOR 0 after
    it), else 0."""

    name = "dag_tokens_game_move"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        label = rng.sample(range(n), n)
        edges = sorted([label[i], label[j]] for i in range(n) for j in range(i + 1, n) if rng.random() < 0.3)
        tokens = sorted(rng.randrange(n) for _ in range(difficulty // 3 + 2))
        problem = {"n": n, "edges": edges, "tokens": tokens}
        if self.lost(problem, tokens):
            raise Retry
        for i, t in enumerate(tokens):
            for u, v in edges:
                if u == t:
                    after = tokens[:i] + [v] + tokens[i + 1:]
                    if self.lost(problem, after):
                        return problem, f"{u} {v}"
        raise AssertionError("a non-zero position has a winning move")

    def prompt(self, problem):
        edges = ", ".join(f"{u}->{v}" for u, v in problem["edges"])
        return ask(f"A directed acyclic graph has vertices 0..{problem['n'] - 1} and edges {edges}. Tokens stand on "
                   f"the vertices {', '.join(map(str, problem['tokens']))} (a vertex may hold several). Two players "
                   "alternate; a move slides one token along one edge. A player who cannot move loses.\n\nYou move "
                   "first. Give a move after which you can force a win.", "Give the vertex the token leaves and the "
                   "vertex it moves to, e.g. <answer>3 7</answer>.")

    def play(self, problem, move):
        tokens = list(problem["tokens"])
        if len(move) != 2 or move[0] not in tokens or list(move) not in problem["edges"]:
            return None
        tokens[tokens.index(move[0])] = move[1]
        return tokens

    def lost(self, problem, tokens):
        succ = [[] for _ in range(problem["n"])]
        for u, v in problem["edges"]:
            succ[u].append(v)
        g: dict[int, int] = {}

        def grundy(v):  # iterative post-order: the graph has up to thousands of vertices
            stack = [v]
            while stack:
                u = stack[-1]
                todo = [w for w in succ[u] if w not in g]
                if todo:
                    stack.extend(todo)
                else:
                    g[u] = mex(g[w] for w in succ[u])
                    stack.pop()
            return g[v]

        x = 0
        for t in tokens:
            x ^= grundy(t)
        return x == 0


class HackenbushTreeGrundy(IntEnv):
    """The Grundy value of green Hackenbush on a forest of rooted trees (colon principle: a
    vertex is worth the XOR of (child + 1)). d: d // 2 + 2 trees, 2d + 8 edges in all. Reward:
    -1 unparsable, 1 exact, else 0."""

    name = "hackenbush_tree_grundy"
    category = "competition"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        trees = difficulty // 2 + 2
        parents = [[-1] for _ in range(trees)]  # parents[t][v]; vertex 0 of each tree is on the ground
        for _ in range(self.size(difficulty)):
            t = rng.randrange(trees)
            parents[t].append(rng.randrange(len(parents[t])))
        value = 0
        for par in parents:
            g = [0] * len(par)
            for v in range(len(par) - 1, 0, -1):  # children have larger numbers than parents
                g[par[v]] ^= g[v] + 1
            value ^= g[0]
        return {"parents": parents, "value": value}, str(value)

    def prompt(self, problem):
        desc = "\n".join(f"tree {t + 1}: " + (", ".join(f"{v}-{p}" for v, p in enumerate(par) if v) or "no edges")
                         for t, par in enumerate(problem["parents"]))
        return ask("Green Hackenbush: each tree below stands on the ground at its vertex 0; a move deletes one edge, "
                   "and everything no longer connected to the ground disappears. The player who cannot move loses. "
                   f"Edges (child-parent):\n{desc}\n\nWhat is the Sprague-Grundy value (nimber) of the whole position?",
                   INT_FORMAT)


class TakeFromEndsGame(IntEnv):
    """Two players alternately take the first or last number of a row; each maximises their own
    total. d: 2d + 6 numbers from 1..50. Value: the first player's total under optimal play (an
    interval DP). Reward: -1 unparsable, 1 exact, else 0."""

    name = "take_from_ends_game"
    category = "competition"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        a = [rng.randint(1, 50) for _ in range(self.size(difficulty))]
        n = len(a)
        diff = [[0] * (n + 1) for _ in range(n + 1)]  # diff[i][j]: mover's lead on a[i:j]
        for length in range(1, n + 1):
            for i in range(n - length + 1):
                j = i + length
                diff[i][j] = max(a[i] - diff[i + 1][j], a[j - 1] - diff[i][j - 1])
        value = (sum(a) + diff[0][n]) // 2
        return {"a": a, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Numbers in a row: {' '.join(map(str, problem['a']))}\n\nTwo players alternate; on each turn a "
                   "player takes either the leftmost or the rightmost remaining number and adds it to their score. "
                   "Both play to maximise their own final score. What is the first player's final score?",
                   INT_FORMAT)


class MinimaxTreeValue(IntEnv):
    """The minimax value of a game tree: MAX moves at the root, MIN at its children, and so on;
    leaves carry payoffs. d: 2d + 8 nodes, leaf payoffs in -20..20. Reward: -1 unparsable, 1
    exact, else 0."""

    name = "minimax_tree_value"
    category = "competition"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        parent = [-1] + [rng.randrange(max(0, v - 3), v) for v in range(1, n)]  # deepish trees
        children = [[] for _ in range(n)]
        for v in range(1, n):
            children[parent[v]].append(v)
        leaves = {v: rng.randint(-20, 20) for v in range(n) if not children[v]}
        depth = [0] * n
        for v in range(1, n):
            depth[v] = depth[parent[v]] + 1
        val = [0] * n
        for v in range(n - 1, -1, -1):
            val[v] = leaves[v] if v in leaves else (max if depth[v] % 2 == 0 else min)(val[c] for c in children[v])
        return {"parent": parent, "leaves": {str(k): x for k, x in leaves.items()}, "value": val[0]}, str(val[0])

    def prompt(self, problem):
        edges = ", ".join(f"{p}->{v}" for v, p in enumerate(problem["parent"]) if v)
        leaves = ", ".join(f"{v}: {x}" for v, x in problem["leaves"].items())
        return ask(f"A game tree has root 0 and edges (parent->child) {edges}. Leaf payoffs: {leaves}.\n\nThe player "
                   "MAX chooses the child at the root and at every node of even depth, MIN at every node of odd "
                   "depth; MAX wants the reached leaf's payoff high, MIN low. What is the payoff under optimal play "
                   "(the minimax value of the root)?", INT_FORMAT)
