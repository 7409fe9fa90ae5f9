"""Programming-competition problems with exact answers: counting, DP, combinatorics, games.

Counts grow fast with d, so count answers are graded by (min(x, y) / max(x, y))^10 (exact
Python integers, no modulus: a ratio of residues would mean nothing); a negative count is
unparsable (-1). The text gives this reward for BubbleSwapLowerBound_PermutationCounting alone
(rlve line 43); for the other counts here it is our choice, after the paper's formula for that env.
"""
from __future__ import annotations

from functools import lru_cache

from envs.compose.samplers import bitgrid_of, ints_of
from envs.gym.base import COUNT_FORMAT, CountEnv, GymEnv, Retry, ask, int_list, one_int

_CountEnv = CountEnv


@lru_cache(maxsize=4)
def _completions(n: int) -> list[list[int]]:
    """table[r][b]: ways to finish a 321-avoiding permutation with r values left, b of which are
    smaller than the current maximum. The next value is either the smallest unused one (if b > 0)
    or a new maximum, the j-th smallest of the r - b larger values, so
    table[r][b] = table[r-1][b-1] + sum(table[r-1][t] for t in b..r-1). Built bottom-up with
    suffix sums (no recursion: N reaches thousands at high difficulty)."""
    table = [[1]]
    for r in range(1, n + 1):
        prev, suffix = table[-1], [0] * (r + 1)
        for t in range(r - 1, -1, -1):
            suffix[t] = suffix[t + 1] + prev[t]
        table.append([(prev[b - 1] if b else 0) + suffix[b] for b in range(r + 1)])
    return table


def count_good_greater(p: list[int]) -> int:
    """Permutations of 1..N that are lexicographically greater than p and whose bubble-sort swap
    count equals the lower bound sum|i - p_i| / 2, i.e. that avoid the pattern 321 (CNOI 2018,
    "bubble sort"): walk p's prefix, at each position add the completions of every valid larger
    choice, stop once p's own prefix is no longer good."""
    n, unused, mx, total = len(p), sorted(p), 0, 0
    table = _completions(n)
    for i, cur in enumerate(p):
        below = sum(v < mx for v in unused)
        for v in unused:
            if v <= cur:
                continue
            if v > mx:
                total += table[n - i - 1][below + sum(mx < u < v for u in unused)]
            elif v == unused[0]:
                total += table[n - i - 1][below - 1]
        if not (cur > mx or cur == unused[0]):
            break
        unused.remove(cur)
        mx = max(mx, cur)
    return total


class BubbleSwapLowerBoundPermutationCounting(_CountEnv):
    """Good permutations above P (RLVE paper, from CNOI 2018; competition counting).
    d: N = d + 3, P a random permutation; the count comes from the original problem's
    algorithm (321-avoiding completions of each prefix). Reward: -1 unparsable or negative,
    else (min(x, y) / max(x, y))^10 (rlve line 43)."""

    name = "bubble_swap_lower_bound_permutation_counting"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        p = rng.sample(range(1, n + 1), n)
        count = count_good_greater(p)
        return {"perm": p, "count": count}, str(count)

    def prompt(self, problem):
        p = problem["perm"]
        n = len(p)
        return ask(f"Bubble sort sorts a permutation p_1, ..., p_N of 1..N by repeatedly swapping adjacent "
                   "elements that are out of order. It needs at least (1/2) * sum over i of |i - p_i| swaps. "
                   f"Call a permutation good if bubble sort needs exactly that many swaps.\n\nN = {n}, "
                   f"P = {' '.join(map(str, p))}\n\nHow many good permutations of 1..{n} are "
                   "lexicographically strictly greater than P?", COUNT_FORMAT)


class GridPathCounting(_CountEnv):
    """Monotone lattice paths avoiding blocked cells (competition DP). d: an (d+3) x (d+3) grid,
    about 20% blocked. Reward: the count ratio^10."""

    name = "grid_path_counting"

    brick_io = ("grid[bit]", "int")
    brick_text = ("Count the paths from the top-left to the bottom-right cell that move only right or down through "
                  "0-cells (1 is blocked).")

    def brick_input(self, rng, difficulty):
        grid = bitgrid_of(rng, self.size(difficulty), self.size(difficulty), 0.2)
        grid[0][0] = grid[-1][-1] = 0
        return grid

    def brick_apply(self, g, counter):
        counter.tick(len(g) * len(g[0]))
        ways = [[0] * len(g[0]) for _ in g]
        for r, row in enumerate(g):
            for c, cell in enumerate(row):
                if not cell:
                    ways[r][c] = 1 if r == c == 0 else (ways[r - 1][c] if r else 0) + (ways[r][c - 1] if c else 0)
        return ways[-1][-1]

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        grid = [["#" if rng.random() < 0.2 else "." for _ in range(n)] for _ in range(n)]
        grid[0][0] = grid[n - 1][n - 1] = "."
        ways = [[0] * n for _ in range(n)]
        for r in range(n):
            for c in range(n):
                if grid[r][c] == ".":
                    ways[r][c] = 1 if r == c == 0 else (ways[r - 1][c] if r else 0) + (ways[r][c - 1] if c else 0)
        if ways[-1][-1] == 0:
            raise Retry
        return {"grid": ["".join(r) for r in grid], "count": ways[-1][-1]}, str(ways[-1][-1])

    def prompt(self, problem):
        g = problem["grid"]
        return ask("A grid ('#' blocked, '.' open):\n" + "\n".join(g) + "\n\nHow many paths go from the top-left "
                   "cell to the bottom-right cell moving only right or down through open cells?", COUNT_FORMAT)


class CoinChangeWays(_CountEnv):
    """Ways to pay an amount with unlimited coins, order ignored (competition DP).
    d: d // 2 + 2 coin values from 1..3(d+2), amount in [5(d+2), 10(d+2)]."""

    name = "coin_change_ways"

    brick_io = ("list[int]", "int")
    brick_text = ("Count the ways to pay exactly 20 with coins whose values are the list's distinct numbers from 1 to "
                  "20 (unlimited supply of each; the order of coins does not matter).")

    def brick_input(self, rng, difficulty):
        return ints_of(rng, difficulty // 2 + 2, 1, 3 * (difficulty + 2))

    def brick_apply(self, xs, counter):
        coins = sorted({v for v in xs if 1 <= v <= 20})
        counter.tick(21 * len(coins))
        ways = [1] + [0] * 20
        for c in coins:
            for a in range(c, 21):
                ways[a] += ways[a - c]
        return ways[20]

    def size(self, difficulty):
        return 10 * (difficulty + 2)

    def build(self, rng, difficulty):
        coins = sorted(rng.sample(range(1, 3 * (difficulty + 2) + 1), difficulty // 2 + 2))
        amount = rng.randint(self.size(difficulty) // 2, self.size(difficulty))
        ways = [1] + [0] * amount
        for c in coins:
            for a in range(c, amount + 1):
                ways[a] += ways[a - c]
        if ways[amount] == 0:
            raise Retry
        return {"coins": coins, "amount": amount, "count": ways[amount]}, str(ways[amount])

    def prompt(self, problem):
        return ask(f"Coin values: {', '.join(map(str, problem['coins']))} (unlimited supply of each).\n\nIn how many "
                   f"ways can you pay exactly {problem['amount']}? Two ways are the same if they use the same number "
                   "of coins of each value.", COUNT_FORMAT)


class IntegerPartitionCount(_CountEnv):
    """Partitions of n into parts of size at most k (competition combinatorics).
    d: n = 2d + 6, k uniform in [2, n]."""

    name = "integer_partition_count"

    brick_io = ("tuple[int,int]", "int")
    brick_text = ("For the pair (n, k): the number of ways to write n as a sum of positive parts each at most k, order "
                  "ignored (no output unless 0 <= n <= 100 and k >= 1).")

    def brick_input(self, rng, difficulty):
        return self.size(difficulty), rng.randint(2, self.size(difficulty))

    def brick_apply(self, p, counter):
        n, k = p
        if not (0 <= n <= 100 and k >= 1):
            return None
        counter.tick(min(n, k) * (n + 1))
        ways = [1] + [0] * n
        for part in range(1, min(n, k) + 1):
            for a in range(part, n + 1):
                ways[a] += ways[a - part]
        return ways[n]

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = rng.randint(2, n)
        ways = [1] + [0] * n
        for part in range(1, k + 1):
            for a in range(part, n + 1):
                ways[a] += ways[a - part]
        return {"n": n, "k": k, "count": ways[n]}, str(ways[n])

    def prompt(self, problem):
        return ask(f"In how many ways can {problem['n']} be written as a sum of positive integers, each at most "
                   f"{problem['k']}, if the order of the terms does not matter?", COUNT_FORMAT)


class PatternAvoidingStringsCounting(_CountEnv):
    """Strings over ABC of length n that avoid a substring (competition DP over a KMP automaton).
    d: n = d + 6, forbidden pattern of length 2 or 3."""

    name = "pattern_avoiding_strings_counting"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        pat = "".join(rng.choice("ABC") for _ in range(rng.randint(2, 3)))
        # state = length of the longest pattern prefix that is a suffix of the text so far
        step = [[_longest_prefix_suffix(pat, pat[:s] + c) for c in "ABC"] for s in range(len(pat))]
        ways = [1] + [0] * (len(pat) - 1)
        for _ in range(n):
            nxt = [0] * len(pat)
            for s, w in enumerate(ways):
                for t in step[s]:
                    if t < len(pat):
                        nxt[t] += w
            ways = nxt
        return {"n": n, "pattern": pat, "count": sum(ways)}, str(sum(ways))

    def prompt(self, problem):
        return ask(f"How many strings of length {problem['n']} over the letters A, B, C do not contain "
                   f"{problem['pattern']} as a substring (contiguous)?", COUNT_FORMAT)


def _longest_prefix_suffix(pat: str, text: str) -> int:
    for k in range(min(len(pat), len(text)), -1, -1):
        if text.endswith(pat[:k]):
            return k
    return 0


class StirlingSecondKind(_CountEnv):
    """Set partitions into k blocks, S(n, k) (competition combinatorics). d: n = d + 4, k in [2, n-1]."""

    name = "stirling_second_kind"

    brick_io = ("tuple[int,int]", "int")
    brick_text = ("For the pair (n, k): the number of ways to split n labelled items into k non-empty unlabelled groups "
                  "(no output unless 0 <= k <= n <= 30).")

    def brick_input(self, rng, difficulty):
        return self.size(difficulty), rng.randint(2, self.size(difficulty) - 1)

    def brick_apply(self, p, counter):
        n, k = p
        if not 0 <= k <= n <= 30:
            return None
        counter.tick(n * (k + 1))
        row = [1] + [0] * k  # S(0, j)
        for _ in range(n):
            row = [0] + [j * row[j] + row[j - 1] for j in range(1, k + 1)]
        return row[k]

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = rng.randint(2, n - 1)
        s = [[0] * (k + 1) for _ in range(n + 1)]
        s[0][0] = 1
        for i in range(1, n + 1):
            for j in range(1, k + 1):
                s[i][j] = j * s[i - 1][j] + s[i - 1][j - 1]
        return {"n": n, "k": k, "count": s[n][k]}, str(s[n][k])

    def prompt(self, problem):
        return ask(f"In how many ways can {problem['n']} distinct items be split into {problem['k']} non-empty "
                   "groups, if the groups are not labelled (only which items are together matters)?", COUNT_FORMAT)


class DigitSumCounting(_CountEnv):
    """Integers in [1, N] with a given digit sum (competition digit DP). d: N has d + 2 digits."""

    name = "digit_sum_counting"

    brick_io = ("tuple[int,int]", "int")
    brick_text = ("For the pair (n, s): how many integers x with 1 <= x <= n have decimal digits adding up to s (no "
                  "output unless n >= 1 and 1 <= s <= 200).")

    def brick_input(self, rng, difficulty):
        digits = self.size(difficulty)
        return rng.randint(10 ** (digits - 1), 10 ** digits - 1), rng.randint(2, max(2, 9 * digits // 2))

    def brick_apply(self, p, counter):
        n, s = p
        if n < 1 or not 1 <= s <= 200:
            return None
        counter.tick(10 * len(str(n)) * (s + 1))  # the digit table: 10 choices per digit and partial sum
        return _digit_sum_count(n, s)

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        digits = self.size(difficulty)
        n = rng.randint(10 ** (digits - 1), 10 ** digits - 1)
        s = rng.randint(2, max(2, 9 * digits // 2))
        count = _digit_sum_count(n, s)
        if count == 0:
            raise Retry
        return {"n": n, "s": s, "count": count}, str(count)

    def prompt(self, problem):
        return ask(f"How many integers x with 1 <= x <= {problem['n']} have decimal digits summing to "
                   f"{problem['s']}?", COUNT_FORMAT)


def _digit_sum_count(n: int, s: int) -> int:
    """#{0 <= x <= n : digitsum(x) = s}, for s >= 1 (so x = 0 never counts)."""
    digits = list(map(int, str(n)))
    # free[p][t]: strings of p free digits summing to t, built bottom-up (n has thousands of
    # digits at high difficulty: no recursion)
    free = [[1] + [0] * s]
    for _ in range(len(digits)):
        prev = free[-1]
        free.append([sum(prev[t - d] for d in range(10) if t - d >= 0) for t in range(s + 1)])
    count, used = 0, 0
    for i, top in enumerate(digits):
        for d in range(top):
            if 0 <= s - used - d:
                count += free[len(digits) - i - 1][s - used - d]
        used += top
    return count + int(used == s)


class Josephus(GymEnv):
    """Josephus problem (competition). d: n = 3d + 5 people, step k in [2, n].
    Reward: -1 unparsable, 1 exact, else 0."""

    name = "josephus"
    category = "competition"

    brick_io = ("tuple[int,int]", "int")
    brick_text = ("For the pair (n, k): n people numbered 1..n stand in a circle; counting from person 1, every k-th "
                  "person leaves; the number of the last one left (no output unless n >= 1 and k >= 1).")

    def brick_input(self, rng, difficulty):
        return self.size(difficulty), rng.randint(2, self.size(difficulty))

    def brick_apply(self, p, counter):
        n, k = p
        if n < 1 or k < 1:
            return None
        counter.tick(n)
        last = 0
        for m in range(2, n + 1):
            last = (last + k) % m
        return last + 1

    def size(self, difficulty):
        return 3 * difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = rng.randint(2, n)
        last = 0
        for m in range(2, n + 1):
            last = (last + k) % m
        return {"n": n, "k": k, "last": last + 1}, str(last + 1)

    def prompt(self, problem):
        n, k = problem["n"], problem["k"]
        return ask(f"{n} people numbered 1 to {n} stand in a circle. Starting with person 1, count 1, 2, ..., {k} "
                   f"around the circle; person number {k} in the count leaves, and counting restarts at 1 with the "
                   "next person still standing. This repeats until one person is left. What is that person's "
                   "number?", "Give one integer, e.g. <answer>5</answer>.")

    def reward(self, problem, answer):
        return 1.0 if one_int(answer) == problem["last"] else 0.0


class NimWinningMove(GymEnv):
    """A winning move in Nim (competition game theory; checked, not compared). d: d + 3 heaps of
    1..4d+7 stones with non-zero XOR. Answer: heap index and stones left. Reward: -1 unparsable,
    -0.5 not a legal move, 1 if the XOR after the move is 0, else 0."""

    name = "nim_winning_move"
    category = "competition"

    brick_io = ("list[int]", "tuple[int,int]")
    brick_text = ("Read the numbers as Nim heaps: the winning move on the first heap where one exists, as (heap index "
                  "from 0, stones left in it); no output if the heaps' XOR is 0 or a heap is negative.")

    def brick_input(self, rng, difficulty):
        return ints_of(rng, self.size(difficulty), 1, 4 * difficulty + 7)

    def brick_apply(self, heaps, counter):
        counter.tick(2 * len(heaps))
        x = 0
        for h in heaps:
            x ^= h
        if x == 0 or min(heaps, default=0) < 0:
            return None
        i = next(i for i, h in enumerate(heaps) if h ^ x < h)
        return i, heaps[i] ^ x

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        heaps = [rng.randint(1, 4 * difficulty + 7) for _ in range(self.size(difficulty))]
        x = 0
        for h in heaps:
            x ^= h
        if x == 0:
            raise Retry
        i = next(i for i, h in enumerate(heaps) if h ^ x < h)
        return {"heaps": heaps}, f"{i} {heaps[i] ^ x}"

    def prompt(self, problem):
        heaps = problem["heaps"]
        return ask("Nim: players alternately remove any positive number of stones from one heap; whoever takes "
                   "the last stone wins. Heaps (index: stones): "
                   + ", ".join(f"{i}: {h}" for i, h in enumerate(heaps)) +
                   "\n\nYou move first. Give a move after which you can force a win.",
                   "Give the heap index and the number of stones left in that heap after your move, separated by a "
                   "space, e.g. <answer>2 5</answer>.")

    def reward(self, problem, answer):
        heaps, move = problem["heaps"], int_list(answer)
        if len(move) != 2 or not 0 <= move[0] < len(heaps) or not 0 <= move[1] < heaps[move[0]]:
            return -0.5
        x = move[1]
        for i, h in enumerate(heaps):
            if i != move[0]:
                x ^= h
        return 1.0 if x == 0 else 0.0


class SubsequenceCounting(_CountEnv):
    """Occurrences of T as a (scattered) subsequence of S (competition DP).
    d: |S| = 2d + 8 over AB, |T| = 3."""

    name = "subsequence_counting"

    brick_io = ("list[str]", "int")
    brick_text = ("Count the ways the second word occurs in the first as a subsequence (sets of positions of the "
                  "first that spell the second, in order).")

    def brick_input(self, rng, difficulty):
        return ["".join(rng.choice("ab") for _ in range(self.size(difficulty))), "".join(rng.choice("ab") for _ in range(3))]

    def brick_apply(self, ws, counter):
        if len(ws) < 2:
            return None
        s, t = ws[0], ws[1]
        counter.tick(len(s) * len(t))
        ways = [1] + [0] * len(t)
        for c in s:
            for j in range(len(t), 0, -1):
                if t[j - 1] == c:
                    ways[j] += ways[j - 1]
        return ways[-1]

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        s = "".join(rng.choice("AB") for _ in range(self.size(difficulty)))
        t = "".join(rng.choice("AB") for _ in range(3))
        ways = [1] + [0] * len(t)
        for c in s:
            for j in range(len(t), 0, -1):
                if t[j - 1] == c:
                    ways[j] += ways[j - 1]
        if ways[-1] == 0:
            raise Retry
        return {"s": s, "t": t, "count": ways[-1]}, str(ways[-1])

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\nT = {problem['t']}\n\nIn how many ways can T be obtained from S by deleting "
                   "characters? (Count sets of positions in S, in order, that spell T.)", COUNT_FORMAT)

