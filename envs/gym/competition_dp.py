"""Programming-competition counting by dynamic programming over sequences, arrays and permutations.

Each env counts one kind of object exactly (Python integers, no modulus). Reward for a count:
-1 unparsable or negative, else (min(x, y) / max(x, y))^10 against the true count y (our choice,
after rlve line 43's formula, which the paper gives for BubbleSwapLowerBound_PermutationCounting;
`CountEnv` and `ratio()` compare the integers exactly).

What makes each its own problem (none is a parameter of an existing env): the object counted and
the recurrence that counts it differ. coin_change_ways counts multisets of coins (order ignored)
where broken_stairs_ways counts ordered step sequences with forbidden landings; subset_sum_counting
uses each item once (0/1 knapsack counting) where coin change has unlimited supply;
subsets_sum_divisible_counting counts residues, not a target; increasing_subsequences_counting
counts all increasing subsequences where lis_counting counts only the longest; permutation
statistics (descents, cycles, fixed points, an up/down signature) each have their own triangle.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict

from envs.gym.base import COUNT_FORMAT, CountEnv, Retry, ask


def _answer(problem: dict) -> tuple[dict, str]:
    return problem, str(problem["count"])


class BrokenStairsWays(CountEnv):
    """Ordered ways to climb n stairs with allowed step lengths, never landing on a broken stair.
    d: n = 2d + 8 stairs, 2-3 step lengths from 1..4, about 15% of stairs broken (never the top).
    Reward: count ratio^10 (our choice, after rlve line 43's formula). Own problem: order matters
    and landings are constrained (coin_change_ways ignores order)."""

    name = "broken_stairs_ways"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        steps = sorted(rng.sample(range(1, 5), rng.randint(2, 3)))
        broken = sorted(s for s in range(1, n) if rng.random() < 0.15)
        ways = stair_ways(n, steps, broken)
        if ways[n] == 0:
            raise Retry
        return _answer({"n": n, "steps": steps, "broken": broken, "count": ways[n]})

    def explain(self, problem):
        """ways(i) = sum of ways(i - s) over the step lengths s, 0 on a broken stair."""
        ways, lines = stair_ways(problem["n"], problem["steps"], problem["broken"]), ["ways(0) = 1"]
        for i in range(1, problem["n"] + 1):
            if i in problem["broken"]:
                lines.append(f"stair {i} is broken: ways({i}) = 0")
            elif i < min(problem["steps"]):
                lines.append(f"no step reaches stair {i} from below: ways({i}) = 0")
            else:
                terms = [ways[i - s] for s in problem["steps"] if s <= i]
                lines.append(f"ways({i}) = {' + '.join(map(str, terms))} = {ways[i]}")
        return "\n".join(lines)

    def prompt(self, problem):
        return ask(f"A staircase has {problem['n']} stairs above the floor (stair 0). In one move you climb exactly "
                   f"one of {', '.join(map(str, problem['steps']))} stairs. Broken stairs, where you must never land: "
                   f"{', '.join(map(str, problem['broken'])) or 'none'}.\n\nIn how many different sequences of moves "
                   f"can you go from stair 0 to stair {problem['n']} exactly?", COUNT_FORMAT)


def stair_ways(n: int, steps, broken) -> list[int]:
    ways, bad = [1] + [0] * n, set(broken)
    for i in range(1, n + 1):
        ways[i] = 0 if i in bad else sum(ways[i - s] for s in steps if s <= i)
    return ways


class SubsetSumCounting(CountEnv):
    """Subsets of a list (by position) that sum to a target, each item used at most once.
    d: d + 6 items from 1..3d + 10, the target the sum of a random subset. Reward: count ratio^10
    (our choice, after rlve line 43's formula). Own problem: 0/1 counting knapsack (subset_sum asks
    for one subset, coin_change_ways allows repeats)."""

    name = "subset_sum_counting"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        items = [rng.randint(1, 3 * difficulty + 10) for _ in range(self.size(difficulty))]
        target = sum(x for x in items if rng.random() < 0.5) or items[0]
        ways = [1] + [0] * target
        for x in items:
            for s in range(target, x - 1, -1):
                ways[s] += ways[s - x]
        return _answer({"items": items, "target": target, "count": ways[target]})

    def prompt(self, problem):
        return ask(f"List: {', '.join(map(str, problem['items']))}\n\nHow many subsets of the list's positions have "
                   f"elements summing to exactly {problem['target']}? (Equal values at different positions are "
                   "different elements.)", COUNT_FORMAT)


class SubsetsSumDivisibleCounting(CountEnv):
    """Non-empty subsets (by position) whose sum is divisible by m. d: d + 6 items from 1..10^3,
    m in [3, d + 6]. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own
    problem: a DP over residues mod m, not over sums."""

    name = "subsets_sum_divisible_counting"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        items, m = [rng.randint(1, 1000) for _ in range(n)], rng.randint(3, n)
        ways = [1] + [0] * (m - 1)
        for x in items:
            ways = [ways[r] + ways[(r - x) % m] for r in range(m)]
        return _answer({"items": items, "m": m, "count": ways[0] - 1})

    def prompt(self, problem):
        return ask(f"List: {', '.join(map(str, problem['items']))}\n\nHow many non-empty subsets of the list's "
                   f"positions have a sum divisible by {problem['m']}?", COUNT_FORMAT)


class IncreasingSubsequencesCounting(CountEnv):
    """Non-empty strictly increasing subsequences (by positions) of a list, of any length.
    d: d + 6 values from 1..d + 6. Reward: count ratio^10 (our choice, after rlve line 43's
    formula). Own problem: every length counts (lis_counting counts the longest only)."""

    name = "increasing_subsequences_counting"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [rng.randint(1, n) for _ in range(n)]
        ends = []  # ends[i]: increasing subsequences ending at position i
        for i, x in enumerate(a):
            ends.append(1 + sum(ends[j] for j in range(i) if a[j] < x))
        return _answer({"a": a, "count": sum(ends)})

    def prompt(self, problem):
        return ask(f"Sequence: {' '.join(map(str, problem['a']))}\n\nHow many non-empty subsequences (chosen by "
                   "positions, kept in order) are strictly increasing? A single element counts.", COUNT_FORMAT)


class ArithmeticSubsequencesCounting(CountEnv):
    """Subsequences (by positions) of length >= 3 whose consecutive differences are all equal.
    d: d + 6 values from 0..d // 2 + 5. Reward: count ratio^10 (our choice, after rlve line 43's
    formula). Own problem: a DP keyed by (end, common difference)."""

    name = "arithmetic_subsequences_counting"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        a = [rng.randint(0, difficulty // 2 + 5) for _ in range(self.size(difficulty))]
        ends = [defaultdict(int) for _ in a]  # ends[i][diff]: subsequences of length >= 2 ending at i
        total = 0
        for i in range(len(a)):
            for j in range(i):
                diff, longer = a[i] - a[j], ends[j][a[i] - a[j]]
                total += longer
                ends[i][diff] += longer + 1
        if total == 0:
            raise Retry
        return _answer({"a": a, "count": total})

    def prompt(self, problem):
        return ask(f"Sequence: {' '.join(map(str, problem['a']))}\n\nHow many subsequences (chosen by positions, "
                   "kept in order) of length at least 3 are arithmetic, i.e. all differences between consecutive "
                   "chosen elements are equal?", COUNT_FORMAT)


class DecodeWaysCounting(CountEnv):
    """Ways to split a digit string into numbers 1..26 (letters A=1 .. Z=26). d: d + 8 digits.
    Reward: count ratio^10 (our choice, after rlve line 43's formula). Own problem: a
    two-term recurrence with digit-dependent validity (zeros only after 1 or 2)."""

    name = "decode_ways_counting"

    def size(self, difficulty):
        return difficulty + 8

    def build(self, rng, difficulty):
        s = "".join(rng.choice("1112222345678900") for _ in range(self.size(difficulty)))
        count = decode_ways(s)
        if count == 0:
            raise Retry
        return _answer({"s": s, "count": count})

    def explain(self, problem):
        """Prefix by prefix: the last letter is one digit (not 0) or two digits (10..26)."""
        s, lines = problem["s"], ["ways(empty prefix) = 1"]
        for i, (one, two, total) in enumerate(decode_table(s), 1):
            lines.append(f"ways({s[:i]}) = {one} + {two} = {total}")
        return "\n".join(lines)

    def prompt(self, problem):
        return ask(f"Letters are encoded as numbers: A = 1, B = 2, ..., Z = 26, and a message is written as the "
                   f"concatenation of its letters' numbers. How many different messages encode to the digit string "
                   f"{problem['s']}?", COUNT_FORMAT)


def decode_ways(s: str) -> int:
    return decode_table(s)[-1][2]


def decode_table(s: str) -> list[tuple[int, int, int]]:
    """Per prefix s[:i]: (ways ending in a one-digit letter, in a two-digit letter, total)."""
    rows, prev, cur = [], 1, 1  # totals for s[:i-1], s[:i]
    for i in range(1, len(s) + 1):
        one = cur if s[i - 1] != "0" else 0
        two = prev if i >= 2 and 10 <= int(s[i - 2:i]) <= 26 else 0
        prev, cur = cur, one + two
        rows.append((one, two, cur))
    return rows


class PalindromicSubsequencesCounting(CountEnv):
    """Non-empty palindromic subsequences of a string, counted by positions. d: length d + 6
    over ABC. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own problem:
    scattered positions (palindromic_substrings_counting counts contiguous ones)."""

    name = "palindromic_subsequences_counting"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        s = "".join(rng.choice("ABC") for _ in range(self.size(difficulty)))
        return _answer({"s": s, "count": palindromic_subsequences(s)})

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nHow many non-empty subsequences of S are palindromes? Count sets of "
                   "positions: the same string taken from different positions counts again.", COUNT_FORMAT)


def palindromic_subsequences(s: str) -> int:
    n = len(s)
    c = [[0] * (n + 1) for _ in range(n + 1)]  # c[i][j]: in s[i:j]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n + 1):
            c[i][j] = 1 if j == i + 1 else c[i + 1][j] + c[i][j - 1] - c[i + 1][j - 1] + (
                c[i + 1][j - 1] + 1 if s[i] == s[j - 1] else 0)
    return c[0][n]


class PermutationSignatureCounting(CountEnv):
    """Permutations of 1..n whose up/down pattern equals a given string of I (rise) and D (fall).
    d: n = d + 4. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own problem:
    the whole descent set is fixed (eulerian_number fixes only how many descents)."""

    name = "permutation_signature_counting"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        sig = "".join(rng.choice("ID") for _ in range(self.size(difficulty) - 1))
        return _answer({"sig": sig, "count": signature_count(sig)})

    def prompt(self, problem):
        n = len(problem["sig"]) + 1
        return ask(f"Pattern: {problem['sig']}\n\nHow many permutations p_1, ..., p_{n} of 1..{n} satisfy, for every "
                   "i, p_i < p_(i+1) where the pattern's i-th letter is I and p_i > p_(i+1) where it is D?",
                   COUNT_FORMAT)


def signature_count(sig: str) -> int:
    row = [1]  # row[j]: arrangements of the first i+1 values ending with the (j+1)-th smallest
    for c in sig:
        m = len(row) + 1
        prefix = [0]
        for x in row:
            prefix.append(prefix[-1] + x)
        row = [prefix[j] if c == "I" else prefix[-1] - prefix[j] for j in range(m)]
    return sum(row)


class _PermutationTriangle(CountEnv):
    """Permutations of n with statistic k: d: n = d + 4, k uniform over its non-trivial range."""

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = rng.randint(*self.k_range(n))
        return _answer({"n": n, "k": k, "count": self.count(n, k)})


class EulerianNumber(_PermutationTriangle):
    """Permutations of 1..n with exactly k descents (Eulerian numbers A(n, k)). d: n = d + 4,
    k in [0, n - 1]. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own
    problem: the descent statistic (permutations_with_k_inversions counts inversions)."""

    name = "eulerian_number"

    def k_range(self, n):
        return 0, n - 1

    @staticmethod
    def count(n, k):
        row = [1]
        for m in range(2, n + 1):
            row = [(j + 1) * (row[j] if j < len(row) else 0) + (m - j) * (row[j - 1] if j else 0) for j in range(m)]
        return row[k]

    def prompt(self, problem):
        return ask(f"A descent of a permutation p_1, ..., p_n is a position i with p_i > p_(i+1). How many "
                   f"permutations of 1..{problem['n']} have exactly {problem['k']} descents?", COUNT_FORMAT)


class StirlingFirstKind(_PermutationTriangle):
    """Permutations of 1..n with exactly k cycles (unsigned Stirling numbers of the first kind).
    d: n = d + 4, k in [1, n]. Reward: count ratio^10 (our choice, after rlve line 43's formula).
    Own problem: the cycle statistic; stirling_second_kind counts set partitions."""

    name = "stirling_first_kind"

    def k_range(self, n):
        return 1, n

    @staticmethod
    def count(n, k):
        row = [1]  # c(0, 0)
        for m in range(n):
            row = [(m * row[j] if j < len(row) else 0) + (row[j - 1] if j else 0) for j in range(len(row) + 1)]
        return row[k]

    def prompt(self, problem):
        return ask(f"How many permutations of 1..{problem['n']} have exactly {problem['k']} cycles when written in "
                   "cycle notation (fixed points are cycles of length 1)?", COUNT_FORMAT)


class RencontresNumber(_PermutationTriangle):
    """Permutations of 1..n with exactly k fixed points (rencontres numbers C(n, k) D(n - k)).
    d: n = d + 4, k in [0, n - 2]. Reward: count ratio^10 (our choice, after rlve line 43's
    formula). Own problem: the fixed-point statistic, via derangements."""

    name = "rencontres_number"

    def k_range(self, n):
        return 0, n - 2

    @staticmethod
    def count(n, k):
        der = [1, 0]
        for m in range(2, n - k + 1):
            der.append((m - 1) * (der[-1] + der[-2]))
        return math.comb(n, k) * der[n - k]

    def explain(self, problem):
        """Choose the k fixed points, derange the rest: D(m) = (m - 1) (D(m - 1) + D(m - 2))."""
        n, k = problem["n"], problem["k"]
        der, lines = [1, 0], ["D(0) = 1", "D(1) = 0"]
        for m in range(2, n - k + 1):
            der.append((m - 1) * (der[-1] + der[-2]))
            lines.append(f"D({m}) = {m - 1} * ({der[-2]} + {der[-3]}) = {der[-1]}")
        lines.append(f"C({n}, {k}) * D({n - k}) = {math.comb(n, k)} * {der[n - k]} = {problem['count']}")
        return "\n".join(lines)

    def prompt(self, problem):
        return ask(f"How many permutations p of 1..{problem['n']} have exactly {problem['k']} fixed points "
                   "(positions i with p_i = i)?", COUNT_FORMAT)


class BoundedBlockSetPartitions(CountEnv):
    """Partitions of an n-set into blocks of size at most b. d: n = d + 4, b in [2, n - 1].
    Reward: count ratio^10 (our choice, after rlve line 43's formula). Own problem: block sizes are
    bounded, the number of blocks is free (stirling_second_kind fixes the block count)."""

    name = "bounded_block_set_partitions"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        b = rng.randint(2, n - 1)
        ways = [1]  # ways[m]: partitions of an m-set; the block of the last element has j elements
        for m in range(1, n + 1):
            ways.append(sum(math.comb(m - 1, j - 1) * ways[m - j] for j in range(1, min(b, m) + 1)))
        return _answer({"n": n, "b": b, "count": ways[n]})

    def prompt(self, problem):
        return ask(f"In how many ways can a set of {problem['n']} distinct items be split into non-empty unlabelled "
                   f"groups, each with at most {problem['b']} items?", COUNT_FORMAT)


class DistinctPartsPartitions(CountEnv):
    """Partitions of n into distinct parts, each at most m. d: n = 3d + 10, m in [n // 3, n].
    Reward: count ratio^10 (our choice, after rlve line 43's formula). Own problem: parts may not
    repeat (integer_partition_count allows repeats)."""

    name = "distinct_parts_partitions"

    def size(self, difficulty):
        return 3 * difficulty + 10

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        m = rng.randint(n // 3, n)
        ways = [1] + [0] * n
        for part in range(1, m + 1):
            for s in range(n, part - 1, -1):
                ways[s] += ways[s - part]
        if ways[n] == 0:
            raise Retry
        return _answer({"n": n, "m": m, "count": ways[n]})

    def prompt(self, problem):
        return ask(f"In how many ways can {problem['n']} be written as a sum of distinct positive integers, each at "
                   f"most {problem['m']}, if the order of the terms does not matter?", COUNT_FORMAT)


class GridPathsWithKTurns(CountEnv):
    """Monotone lattice paths from (0, 0) to (a, b) with exactly k changes of direction.
    d: a, b in [d + 2, 2d + 4], k in [1, min(a, b)]. Reward: count ratio^10 (our choice, after
    rlve line 43's formula). Own problem: a run-count statistic (grid_path_counting counts all
    paths around obstacles)."""

    name = "grid_paths_with_k_turns"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        a, b = (rng.randint(difficulty + 2, 2 * difficulty + 4) for _ in range(2))
        k = rng.randint(1, min(a, b))
        return _answer({"a": a, "b": b, "k": k, "count": turn_paths(a, b, k)})

    def prompt(self, problem):
        return ask(f"A path goes from (0, 0) to ({problem['a']}, {problem['b']}) with unit steps R (x + 1) and U "
                   f"(y + 1). A turn is a place where an R step is followed by a U step or vice versa. How many such "
                   f"paths have exactly {problem['k']} turns?", COUNT_FORMAT)


def turn_paths(a: int, b: int, k: int) -> int:
    """k turns = k + 1 runs alternating between R and U; choose how each axis splits into runs."""
    runs = k + 1
    total = 0
    for first_r in (runs - runs // 2, runs // 2):  # R runs when starting with R, then with U
        r, u = first_r, runs - first_r
        if r >= 1 and u >= 1:
            total += math.comb(a - 1, r - 1) * math.comb(b - 1, u - 1)
    return total


class BooleanParenthesizationCounting(CountEnv):
    """Full parenthesizations of a T/F expression with &, |, ^ that evaluate to true.
    d: d + 3 operands. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own
    problem: an interval DP counting (true, false) splits."""

    name = "boolean_parenthesization_counting"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        vals = [rng.choice("TF") for _ in range(n)]
        ops = [rng.choice("&|^") for _ in range(n - 1)]
        count = true_parenthesizations(vals, ops)
        if count == 0:
            raise Retry
        return _answer({"vals": vals, "ops": ops, "count": count})

    def prompt(self, problem):
        expr = problem["vals"][0] + "".join(f" {o} {v}" for o, v in zip(problem["ops"], problem["vals"][1:]))
        return ask(f"Expression: {expr}\n\nT is true, F false, & is AND, | is OR, ^ is XOR. In how many ways can the "
                   "expression be fully parenthesized (every operator applied to exactly two sub-expressions) so "
                   "that it evaluates to true?", COUNT_FORMAT)


def true_parenthesizations(vals: list[str], ops: list[str]) -> int:
    n = len(vals)
    t = [[0] * n for _ in range(n)]
    f = [[0] * n for _ in range(n)]
    for i, v in enumerate(vals):
        t[i][i], f[i][i] = int(v == "T"), int(v == "F")
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            for k in range(i, j):
                lt, lf, rt, rf = t[i][k], f[i][k], t[k + 1][j], f[k + 1][j]
                tot = (lt + lf) * (rt + rf)
                tt = {"&": lt * rt, "|": tot - lf * rf, "^": lt * rf + lf * rt}[ops[k]]
                t[i][j] += tt
                f[i][j] += tot - tt
    return t[0][n - 1]


class FencePaintingWays(CountEnv):
    """Colourings of n fence posts with k colours, no more than r consecutive posts alike.
    d: n = 2d + 6, k in [2, 5], r in [1, 3]. Reward: count ratio^10 (our choice, after rlve line
    43's formula). Own problem: a run-length-bounded colouring DP."""

    name = "fence_painting_ways"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        n, k, r = self.size(difficulty), rng.randint(2, 5), rng.randint(1, 3)
        return _answer({"n": n, "k": k, "r": r, "count": fence_ways(n, k, r)})

    def prompt(self, problem):
        return ask(f"A fence has {problem['n']} posts in a row, each painted one of {problem['k']} colours. No more "
                   f"than {problem['r']} consecutive posts may have the same colour. How many colourings are "
                   "there?", COUNT_FORMAT)


def fence_ways(n: int, k: int, r: int) -> int:
    runs = [k] + [0] * (r - 1)  # runs[j]: colourings of the posts so far ending in a run of j + 1
    for _ in range(n - 1):
        runs = [sum(runs) * (k - 1)] + runs[:-1]
    return sum(runs)


class DigraphWalksCounting(CountEnv):
    """Walks of exactly L steps from u to v in a directed graph. d: 4 + d // 3 vertices with
    edge probability 0.35, L = d + 4. Reward: count ratio^10 (our choice, after rlve line 43's
    formula). Own problem: walks may repeat vertices and edges (dag_path_counting counts paths
    of any length in an acyclic graph); one entry of A^L, found by a DP over L steps, where
    matrix_power asks for the whole power of a given small matrix."""

    name = "digraph_walks_counting"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n, steps = 4 + difficulty // 3, self.size(difficulty)
        edges = [[a, b] for a in range(n) for b in range(n) if rng.random() < 0.35]
        u, v = rng.randrange(n), rng.randrange(n)
        ways = [int(x == u) for x in range(n)]
        for _ in range(steps):
            nxt = [0] * n
            for a, b in edges:
                nxt[b] += ways[a]
            ways = nxt
        if ways[v] == 0:
            raise Retry
        return _answer({"n": n, "edges": edges, "u": u, "v": v, "steps": steps, "count": ways[v]})

    def prompt(self, problem):
        edges = ", ".join(f"{a}->{b}" for a, b in problem["edges"])
        return ask(f"A directed graph on vertices 0..{problem['n'] - 1} has the edges {edges} (a->a is a loop).\n\n"
                   f"How many walks of exactly {problem['steps']} edges go from vertex {problem['u']} to vertex "
                   f"{problem['v']}? Vertices and edges may repeat.", COUNT_FORMAT)


class DiceSumWays(CountEnv):
    """Outcomes (ordered) of n dice with f faces each whose faces sum to t. d: n = d // 2 + 2,
    f in [4, 12], t near the mean. Reward: count ratio^10 (our choice, after rlve line 43's
    formula). Own problem: ordered, every die within 1..f (a polynomial power's coefficient)."""

    name = "dice_sum_ways"

    def size(self, difficulty):
        return difficulty // 2 + 2

    def build(self, rng, difficulty):
        n, f = self.size(difficulty), rng.randint(4, 12)
        t = rng.randint(n, n * f)
        ways = [1]
        for _ in range(n):
            nxt = [0] * (len(ways) + f)
            for s, w in enumerate(ways):
                if w:
                    for face in range(1, f + 1):
                        nxt[s + face] += w
            ways = nxt
        return _answer({"n": n, "f": f, "t": t, "count": ways[t]})

    def prompt(self, problem):
        return ask(f"{problem['n']} distinguishable dice each show a number from 1 to {problem['f']}. In how many of "
                   f"the {problem['f']}^{problem['n']} outcomes do the numbers sum to {problem['t']}?", COUNT_FORMAT)


class DistinctSubsetSumsCounting(CountEnv):
    """Distinct values taken by the sums of non-empty subsets of a list. d: d + 5 items from
    1..5d + 20. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own problem:
    counts reachable sums, not subsets (a bitset of reachable sums)."""

    name = "distinct_subset_sums_counting"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        items = [rng.randint(1, 5 * difficulty + 20) for _ in range(self.size(difficulty))]
        reach = 1
        for x in items:
            reach |= reach << x
        return _answer({"items": items, "count": bin(reach).count("1") - 1})

    def prompt(self, problem):
        return ask(f"List: {', '.join(map(str, problem['items']))}\n\nHow many different numbers can be written as "
                   "the sum of a non-empty subset of the list?", COUNT_FORMAT)


class TriangleTriplesCounting(CountEnv):
    """Index triples i < j < k whose stick lengths form a triangle of positive area.
    d: 2d + 6 lengths from 1..4d + 12. Reward: count ratio^10 (our choice, after rlve line 43's
    formula). Own problem: sort plus two pointers over a triangle inequality."""

    name = "triangle_triples_counting"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        a = [rng.randint(1, 4 * difficulty + 12) for _ in range(self.size(difficulty))]
        s, total = sorted(a), 0
        for k in range(2, len(s)):
            i, j = 0, k - 1
            while i < j:
                if s[i] + s[j] > s[k]:
                    total += j - i
                    j -= 1
                else:
                    i += 1
        return _answer({"a": a, "count": total})

    def prompt(self, problem):
        return ask(f"Stick lengths: {', '.join(map(str, problem['a']))}\n\nHow many ways are there to choose three "
                   "of the sticks (by position) that form a triangle with positive area?", COUNT_FORMAT)


class _SubarrayCount(CountEnv):
    """Contiguous subarrays with a property: d: 3d + 8 elements."""

    def size(self, difficulty):
        return 3 * difficulty + 8


class SubarraysWithSumCounting(_SubarrayCount):
    """Contiguous non-empty subarrays with sum exactly K. d: 3d + 8 elements from -3..5, K the sum
    of a random subarray. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own
    problem: prefix sums with a hash map (negative values rule out a sliding window)."""

    name = "subarrays_with_sum_counting"

    def build(self, rng, difficulty):
        a = [rng.randint(-3, 5) for _ in range(self.size(difficulty))]
        i, j = sorted(rng.sample(range(len(a) + 1), 2))
        k, seen, prefix, total = sum(a[i:j]), Counter([0]), 0, 0
        for x in a:
            prefix += x
            total += seen[prefix - k]
            seen[prefix] += 1
        return _answer({"a": a, "k": k, "count": total})

    def prompt(self, problem):
        return ask(f"Array: {' '.join(map(str, problem['a']))}\n\nHow many non-empty contiguous subarrays have sum "
                   f"exactly {problem['k']}?", COUNT_FORMAT)


class SubarraysKDistinctCounting(_SubarrayCount):
    """Contiguous non-empty subarrays with at most k distinct values. d: 3d + 8 elements from
    1..d + 4, k in [2, 4]. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own
    problem: a sliding window over distinct counts."""

    name = "subarrays_k_distinct_counting"

    def build(self, rng, difficulty):
        a = [rng.randint(1, difficulty + 4) for _ in range(self.size(difficulty))]
        k = rng.randint(2, 4)
        seen, lo, total = Counter(), 0, 0
        for hi, x in enumerate(a):
            seen[x] += 1
            while len(seen) > k:
                seen[a[lo]] -= 1
                if not seen[a[lo]]:
                    del seen[a[lo]]
                lo += 1
            total += hi - lo + 1
        return _answer({"a": a, "k": k, "count": total})

    def prompt(self, problem):
        return ask(f"Array: {' '.join(map(str, problem['a']))}\n\nHow many non-empty contiguous subarrays contain "
                   f"at most {problem['k']} distinct values?", COUNT_FORMAT)


class BoundedRangeSubarraysCounting(_SubarrayCount):
    """Contiguous non-empty subarrays whose maximum minus minimum is at most K. d: 3d + 8
    elements from 0..3d + 20, K in [2, d + 5]. Reward: count ratio^10 (our choice, after rlve
    line 43's formula). Own problem: a window over max - min that only moves forward."""

    name = "bounded_range_subarrays_counting"

    def build(self, rng, difficulty):
        a = [rng.randint(0, 3 * difficulty + 20) for _ in range(self.size(difficulty))]
        k = rng.randint(2, difficulty + 5)
        total, lo = 0, 0
        for hi in range(len(a)):
            while max(a[lo:hi + 1]) - min(a[lo:hi + 1]) > k:
                lo += 1
            total += hi - lo + 1
        return _answer({"a": a, "k": k, "count": total})

    def prompt(self, problem):
        return ask(f"Array: {' '.join(map(str, problem['a']))}\n\nHow many non-empty contiguous subarrays have "
                   f"(largest element - smallest element) <= {problem['k']}?", COUNT_FORMAT)


class SubarraysGcdCounting(_SubarrayCount):
    """Contiguous non-empty subarrays whose gcd is exactly g. d: 3d + 8 elements, multiples of
    small numbers up to 60. Reward: count ratio^10 (our choice, after rlve line 43's formula).
    Own problem: the distinct gcds of subarrays ending at each position (few per position)."""

    name = "subarrays_gcd_counting"

    def build(self, rng, difficulty):
        a = [rng.choice((2, 3, 4, 6)) * rng.randint(1, 10) for _ in range(self.size(difficulty))]
        g = rng.choice(a[:3] + [2, 3])
        total, ending = 0, Counter()  # ending: gcd -> subarrays ending here with it
        for x in a:
            nxt = Counter({x: 1})
            for h, c in ending.items():
                nxt[math.gcd(h, x)] += c
            ending = nxt
            total += ending[g]
        if total == 0:
            raise Retry
        return _answer({"a": a, "g": g, "count": total})

    def prompt(self, problem):
        return ask(f"Array: {' '.join(map(str, problem['a']))}\n\nHow many non-empty contiguous subarrays have "
                   f"greatest common divisor exactly {problem['g']}?", COUNT_FORMAT)


class LabeledTreesDegreeSequence(CountEnv):
    """Labelled trees on n vertices where vertex i has a given degree (Prufer: (n-2)! / prod
    (deg_i - 1)!). d: n = d + 4, degrees of a random tree. Reward: count ratio^10 (our choice,
    after rlve line 43's formula). Own problem: the count of trees, which the Prufer bijection
    turns into a multinomial (a multinomial coefficient given as such is another problem)."""

    name = "labeled_trees_degree_sequence"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        deg = [1] * n
        for _ in range(n - 2):
            deg[rng.randrange(n)] += 1
        count = math.factorial(n - 2)
        for x in deg:
            count //= math.factorial(x - 1)
        return _answer({"deg": deg, "count": count})

    def explain(self, problem):
        """Each vertex appears deg - 1 times in the Prufer sequence of length n - 2."""
        deg = problem["deg"]
        facts = " * ".join(f"{math.factorial(x - 1)}" for x in deg)
        return (f"Prufer sequences of length {len(deg) - 2} with vertex i used d_i - 1 times: "
                f"{len(deg) - 2}! / ({' * '.join(f'{x - 1}!' for x in deg)})\n"
                f"{math.factorial(len(deg) - 2)} // ({facts}) = {problem['count']}")

    def prompt(self, problem):
        deg = problem["deg"]
        return ask(f"How many different trees on the labelled vertices 1..{len(deg)} give vertex i exactly the degree "
                   f"d_i, where (d_1, ..., d_{len(deg)}) = ({', '.join(map(str, deg))})?", COUNT_FORMAT)


class StandardYoungTableaux(CountEnv):
    """Standard Young tableaux of a given shape (hook length formula). d: a random partition of
    n = d + 4. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own problem:
    fillings of a Young diagram increasing along rows and columns."""

    name = "standard_young_tableaux"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        left, shape = self.size(difficulty), []
        while left:
            part = rng.randint(1, min(left, shape[-1] if shape else left))
            shape.append(part)
            left -= part
        shape.sort(reverse=True)
        if len(shape) == 1 or shape[0] == 1:
            raise Retry
        hooks = math.prod(x for row in hook_lengths(shape) for x in row)
        return _answer({"shape": shape, "count": math.factorial(sum(shape)) // hooks})

    def explain(self, problem):
        """The hook length formula: n! over the product of all hook lengths."""
        rows = hook_lengths(problem["shape"])
        lines = [f"hook lengths of row {r + 1}: {' '.join(map(str, row))}" for r, row in enumerate(rows)]
        prod = " * ".join(str(x) for row in rows for x in row)
        lines.append(f"{math.factorial(sum(problem['shape']))} // ({prod}) = {problem['count']}")
        return "\n".join(lines)

    def prompt(self, problem):
        shape, n = problem["shape"], sum(problem["shape"])
        return ask(f"A Young diagram has rows of lengths {', '.join(map(str, shape))} (left-aligned, top to bottom). "
                   f"How many ways are there to fill its {n} cells with 1..{n}, each once, so that numbers increase "
                   "left to right along every row and top to bottom down every column?", COUNT_FORMAT)


class BoundedHeightBinaryTrees(CountEnv):
    """Binary trees (each child left or right) with n nodes and height at most h (height of a
    single node 0). d: n = d + 4, h in [floor(log2 n), n - 1]. Reward: count ratio^10
    (our choice, after rlve line 43's formula). Own problem: the height of a binary tree, not of
    a Dyck path (dyck_paths_bounded_height bounds the plane tree's height under the other
    bijection)."""

    name = "bounded_height_binary_trees"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        h = rng.randint(n.bit_length() - 1, n - 1)  # below floor(log2 n) no tree fits
        trees = [[1] * (h + 2)]  # trees[m][j]: m nodes, height <= j - 1 (j = 0: empty only)
        for m in range(1, n + 1):
            trees.append([0] + [sum(trees[k][j - 1] * trees[m - 1 - k][j - 1] for k in range(m))
                                for j in range(1, h + 2)])
        if trees[n][h + 1] == 0:
            raise Retry
        return _answer({"n": n, "h": h, "count": trees[n][h + 1]})

    def prompt(self, problem):
        return ask(f"How many binary trees with {problem['n']} nodes have height at most {problem['h']}? Every node "
                   "has an optional left child and an optional right child (a lone left child differs from a lone "
                   "right child); the height is the number of edges on the longest path from the root down to a "
                   "node.", COUNT_FORMAT)


class IncreasingGridPathsCounting(CountEnv):
    """Strictly increasing paths in a grid of numbers: sequences of cells, each next cell a side
    neighbour with a larger value, of any length >= 1. d: a (d // 2 + 3) x (d // 2 + 4) grid of
    values 1..9. Reward: count ratio^10 (our choice, after rlve line 43's formula). Own problem:
    a DP over cells in value order (the grid path envs walk right/down only)."""

    name = "increasing_grid_paths_counting"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        r, c = self.size(difficulty), self.size(difficulty) + 1
        grid = [[rng.randint(1, 9) for _ in range(c)] for _ in range(r)]
        ending = {}  # paths ending at a cell: 1 + those ending at a smaller neighbour
        for v, i, j in sorted((grid[i][j], i, j) for i in range(r) for j in range(c)):
            ending[i, j] = 1 + sum(ending[a, b] for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1))
                                   if 0 <= a < r and 0 <= b < c and grid[a][b] < v)
        return _answer({"grid": grid, "count": sum(ending.values())})

    def prompt(self, problem):
        rows = "\n".join(" ".join(map(str, row)) for row in problem["grid"])
        return ask(f"Grid:\n{rows}\n\nA path is a sequence of one or more cells, each next cell sharing a side with "
                   "the previous one and holding a strictly larger number. How many paths are there (a single cell "
                   "counts)?", COUNT_FORMAT)


def hook_lengths(shape: list[int]) -> list[list[int]]:
    """Cells to the right + cells below + 1, per cell of the Young diagram."""
    cols = [sum(p > c for p in shape) for c in range(shape[0])]
    return [[shape[r] - c + cols[c] - r - 1 for c in range(shape[r])] for r in range(len(shape))]
