"""Array and string algorithms: sorting, subsequences, edit distance, subarrays, inversions.

Each answer that names a subsequence is checked (is it one, how long is it) rather than
compared with one stored solution, so every optimal answer scores 1.
"""
from __future__ import annotations

import bisect
import random

from envs.gym.base import GymEnv, Retry, ask, int_list, one_int, ratio
from envs.compose.samplers import ints_of, perm_of, word_of

LETTERS = "ABCD"


def _random_string(rng: random.Random, n: int, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _is_subsequence(sub: str, s: str) -> bool:
    it = iter(s)
    return all(c in it for c in sub)


class Sorting(GymEnv):
    """Sorting (RLVE paper, classical algorithms). d: N = round(3 * 1.1^d) integers.

    Reward: -1 unparsable, -0.5 wrong length, else (x / N)^10 with x the number of positions
    equal to the sorted array."""

    name = "sorting"
    category = "algorithms"

    def size(self, difficulty: int) -> int:
        return round(3 * 1.1 ** difficulty)

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        nums = [rng.randint(0, max(10, 2 * n)) for _ in range(n)]
        return {"numbers": nums}, " ".join(map(str, sorted(nums)))

    def prompt(self, problem):
        nums = problem["numbers"]
        return ask(f"Sort these {len(nums)} integers in ascending (non-decreasing) order:\n"
                   + " ".join(map(str, nums)),
                   "Give the sorted numbers separated by spaces, e.g. <answer>1 2 2 5</answer>.")

    def explain(self, problem):
        """Selection sort, one line per pick: 'Smallest of 9 0 7 is 0.'"""
        left, lines = list(problem["numbers"]), []
        while len(left) > 1:
            low = min(left)
            lines.append(f"Smallest of {' '.join(map(str, left))} is {low}.")
            left.remove(low)
        return "\n".join(lines + [f"Last is {left[0]}." if left else "Nothing to sort.",
                                   "Sorted: " + " ".join(map(str, sorted(problem["numbers"]))) + "."])

    def reward(self, problem, answer):
        got, gold = int_list(answer), sorted(problem["numbers"])
        if len(got) != len(gold):
            return -0.5
        return (sum(a == b for a, b in zip(got, gold)) / len(gold)) ** 10


def lis_length(a: list[int]) -> int:
    tails: list[int] = []
    for v in a:
        i = bisect.bisect_left(tails, v)
        tails[i:i + 1] = [v]
    return len(tails)


class LongestIncreasingSubsequence(GymEnv):
    """Longest strictly increasing subsequence (classical algorithms). d: N = d + 6 integers.

    Answer: 0-based indices of the subsequence. Reward: -1 unparsable, -0.5 if the indices do
    not pick a strictly increasing subsequence, else (length / optimum)^5."""

    name = "longest_increasing_subsequence"
    category = "algorithms"

    brick_io = ("list[int]", "int")
    brick_text = "The length of a longest strictly increasing subsequence."

    def brick_input(self, rng, difficulty):
        return ints_of(rng, self.size(difficulty), 0, 20)

    def brick_apply(self, a, counter):
        counter.tick(len(a) * max(1, len(a).bit_length()))  # patience sorting: a binary search per element
        return lis_length(a)

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        a = [rng.randint(0, 2 * n) for _ in range(n)]
        # O(n^2) DP to recover one optimal subsequence for the gold answer
        best, prev = [1] * n, [-1] * n
        for i in range(n):
            for j in range(i):
                if a[j] < a[i] and best[j] + 1 > best[i]:
                    best[i], prev[i] = best[j] + 1, j
        i, path = max(range(n), key=best.__getitem__), []
        while i >= 0:
            path.append(i)
            i = prev[i]
        return {"array": a, "optimum": lis_length(a)}, " ".join(map(str, reversed(path)))

    def prompt(self, problem):
        a = problem["array"]
        return ask(f"Array (indices 0 to {len(a) - 1}):\n" + " ".join(map(str, a)) +
                   "\n\nFind a longest strictly increasing subsequence.",
                   "Give the 0-based indices of its elements in increasing order, separated by "
                   "spaces, e.g. <answer>0 3 4</answer>.")

    def reward(self, problem, answer):
        a, idx = problem["array"], int_list(answer)
        ok = all(0 <= i < len(a) for i in idx) and all(i < j and a[i] < a[j] for i, j in zip(idx, idx[1:]))
        return (len(idx) / problem["optimum"]) ** 5 if ok else -0.5


def lcs_table(s: str, t: str) -> list[list[int]]:
    f = [[0] * (len(t) + 1) for _ in range(len(s) + 1)]
    for i in range(len(s) - 1, -1, -1):
        for j in range(len(t) - 1, -1, -1):
            f[i][j] = f[i + 1][j + 1] + 1 if s[i] == t[j] else max(f[i + 1][j], f[i][j + 1])
    return f


def lcs_string(s: str, t: str) -> str:
    """One longest common subsequence: the table walk from the front, skipping in s on ties."""
    f = lcs_table(s, t)
    i = j = 0
    out = []
    while i < len(s) and j < len(t):
        if s[i] == t[j]:
            out.append(s[i])
            i, j = i + 1, j + 1
        elif f[i + 1][j] >= f[i][j + 1]:
            i += 1
        else:
            j += 1
    return "".join(out)


class LongestCommonSubsequence(GymEnv):
    """Longest common subsequence of two strings over ABCD (classical algorithms).
    d: both strings have length d + 5.

    Reward: -1 unparsable, -0.5 if the answer is not a common subsequence, else (len / opt)^5."""

    name = "longest_common_subsequence"
    category = "algorithms"

    brick_io = ("list[str]", "str")
    brick_text = ("A longest common subsequence of the first two strings, read off the LCS table from the front: take "
                  "the next character when both strings have it next, else skip one character of the first string "
                  "if that keeps the best length, else one of the second (no output if they share no character).")

    def brick_input(self, rng, difficulty):
        return [word_of(rng, self.size(difficulty), "abcd") for _ in range(2)]

    def brick_apply(self, ws, counter):
        if len(ws) < 2:
            return None
        counter.tick((len(ws[0]) + 1) * (len(ws[1]) + 1))
        return lcs_string(ws[0], ws[1]) or None

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        s, t = _random_string(rng, n, LETTERS), _random_string(rng, n, LETTERS)
        gold = lcs_string(s, t)
        if not gold:
            raise Retry
        return {"s": s, "t": t, "optimum": len(gold)}, gold

    def prompt(self, problem):
        return ask(f"String S = {problem['s']}\nString T = {problem['t']}\n\n"
                   "Find a longest common subsequence of S and T (characters in order, not "
                   "necessarily adjacent).", "Give the subsequence as one string, e.g. <answer>ABDA</answer>.")

    def reward(self, problem, answer):
        sub = answer.strip()
        if not sub or any(c not in LETTERS for c in sub):
            raise ValueError("not a string over ABCD")
        if not (_is_subsequence(sub, problem["s"]) and _is_subsequence(sub, problem["t"])):
            return -0.5
        return (len(sub) / problem["optimum"]) ** 5


def edit_distance(s: str, t: str) -> int:
    prev = list(range(len(t) + 1))
    for i, a in enumerate(s, 1):
        cur = [i]
        for j, b in enumerate(t, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a != b)))
        prev = cur
    return prev[-1]


class EditDistance(GymEnv):
    """Levenshtein distance of two strings over ABCD (classical algorithms).
    d: lengths d + 4 and d + 4 + (0..2). Reward: -1 unparsable, 1 exact, else 0."""

    name = "edit_distance"
    category = "algorithms"

    brick_io = ("list[str]", "int")
    brick_text = ("The edit distance of the first two strings: the fewest single-character insertions, deletions and "
                  "substitutions that turn the first into the second.")

    def brick_input(self, rng, difficulty):
        return [word_of(rng, self.size(difficulty), "abcd"), word_of(rng, self.size(difficulty), "abcd")]

    def brick_apply(self, ws, counter):
        if len(ws) < 2:
            return None
        counter.tick((len(ws[0]) + 1) * (len(ws[1]) + 1))
        return edit_distance(ws[0], ws[1])

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        s = _random_string(rng, n, LETTERS)
        # t is s after a few random edits, so the distance is informative rather than ~n
        t = list(s)
        for _ in range(rng.randint(1, max(2, n // 2))):
            op, i = rng.randrange(3), rng.randrange(len(t) + 1)
            if op == 0:
                t.insert(i, rng.choice(LETTERS))
            elif op == 1 and i < len(t) and len(t) > 1:
                del t[i]
            elif i < len(t):
                t[i] = rng.choice(LETTERS)
        t = "".join(t)
        dist = edit_distance(s, t)
        return {"s": s, "t": t, "distance": dist}, str(dist)

    def prompt(self, problem):
        return ask(f"String S = {problem['s']}\nString T = {problem['t']}\n\nWhat is the minimum number of "
                   "single-character insertions, deletions and substitutions that turns S into T?",
                   "Give one integer, e.g. <answer>3</answer>.")

    def reward(self, problem, answer):
        return 1.0 if one_int(answer) == problem["distance"] else 0.0


class MaxSubarraySum(GymEnv):
    """Maximum-sum contiguous subarray (classical algorithms). d: N = d + 6 integers in [-20, 20].

    Answer: 0-based l r of the subarray a[l..r]. Reward: -1 unparsable, -0.5 if not a valid
    range, 1 if its sum is the maximum, else 0 (a range is checked, so every optimum counts)."""

    name = "max_subarray_sum"
    category = "algorithms"

    brick_io = ("list[int]", "int")
    brick_text = "The largest sum of a non-empty contiguous run of the numbers."

    def brick_input(self, rng, difficulty):
        return ints_of(rng, self.size(difficulty), -20, 20)

    def brick_apply(self, a, counter):
        if not a:
            return None
        counter.tick(len(a))
        best = cur = a[0]
        for v in a[1:]:  # Kadane
            cur = max(v, cur + v)
            best = max(best, cur)
        return best

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        a = [rng.randint(-20, 20) for _ in range(self.size(difficulty))]
        best, arg, cur, start = a[0], (0, 0), 0, 0
        for i, v in enumerate(a):  # Kadane
            if cur <= 0:
                cur, start = v, i
            else:
                cur += v
            if cur > best:
                best, arg = cur, (start, i)
        return {"array": a, "best": best}, f"{arg[0]} {arg[1]}"

    def prompt(self, problem):
        a = problem["array"]
        return ask(f"Array (indices 0 to {len(a) - 1}):\n" + " ".join(map(str, a)) +
                   "\n\nFind a non-empty contiguous subarray a[l..r] (inclusive) with the largest sum.",
                   "Give l and r separated by a space, e.g. <answer>2 5</answer>.")

    def reward(self, problem, answer):
        a, lr = problem["array"], int_list(answer)
        if len(lr) != 2 or not 0 <= lr[0] <= lr[1] < len(a):
            return -0.5
        return 1.0 if sum(a[lr[0]:lr[1] + 1]) == problem["best"] else 0.0


class InversionCount(GymEnv):
    """Number of inversions of a permutation (competition counting). d: N = 2d + 6.

    Reward: -1 unparsable or negative, else (min(x, y) / max(x, y))^10."""

    name = "inversion_count"
    category = "competition"

    brick_io = ("list[int]", "int")
    brick_text = "Count the pairs of positions i < j whose numbers are in decreasing order (a[i] > a[j])."

    def brick_input(self, rng, difficulty):
        return perm_of(rng, self.size(difficulty))

    def brick_apply(self, a, counter):
        counter.tick(len(a) * (len(a) - 1) // 2)
        return sum(a[i] > a[j] for i in range(len(a)) for j in range(i + 1, len(a)))

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        p = list(range(1, self.size(difficulty) + 1))
        rng.shuffle(p)
        inv = sum(p[i] > p[j] for i in range(len(p)) for j in range(i + 1, len(p)))
        return {"perm": p, "count": inv}, str(inv)

    def prompt(self, problem):
        return ask("Permutation: " + " ".join(map(str, problem["perm"])) +
                   "\n\nHow many pairs of positions i < j have p[i] > p[j]?", "Give one integer, e.g. <answer>7</answer>.")

    def reward(self, problem, answer):
        x = one_int(answer)
        return -1.0 if x < 0 else ratio(x, problem["count"], 10)


class LongestPalindromicSubsequence(GymEnv):
    """Longest palindromic subsequence of a string over ABC (classical algorithms / DP).
    d: length d + 6. Reward: -1 unparsable, -0.5 if not a palindromic subsequence, else (len/opt)^5."""

    name = "longest_palindromic_subsequence"
    category = "algorithms"

    brick_io = ("str", "str")
    brick_text = ("A longest palindromic subsequence, read off the interval table from both ends: keep the two end "
                  "characters when equal, else drop the end whose removal keeps the longer answer (the left end on "
                  "ties), and a middle character when the ends meet.")

    def brick_input(self, rng, difficulty):
        return word_of(rng, self.size(difficulty), "abc")

    def brick_apply(self, s, counter):
        counter.tick(len(s) * len(s))
        return _palindrome(s)

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "ABC")
        gold = _palindrome(s)
        return {"s": s, "optimum": len(gold)}, gold

    def prompt(self, problem):
        return ask(f"String S = {problem['s']}\n\nFind a longest subsequence of S (characters in order, "
                   "not necessarily adjacent) that reads the same forwards and backwards.",
                   "Give the subsequence as one string, e.g. <answer>ABBA</answer>.")

    def reward(self, problem, answer):
        sub = answer.strip()
        if not sub or any(c not in "ABC" for c in sub):
            raise ValueError("not a string over ABC")
        if sub != sub[::-1] or not _is_subsequence(sub, problem["s"]):
            return -0.5
        return (len(sub) / problem["optimum"]) ** 5


def _palindrome(s: str) -> str:
    """One longest palindromic subsequence (interval DP, O(n^2))."""
    n = len(s)
    f = [[0] * n for _ in range(n)]
    for i in range(n - 1, -1, -1):
        f[i][i] = 1
        for j in range(i + 1, n):
            f[i][j] = f[i + 1][j - 1] + 2 if s[i] == s[j] else max(f[i + 1][j], f[i][j - 1])
    left, mid, i, j = [], "", 0, n - 1
    while i <= j:
        if i == j:
            mid = s[i]
            break
        if s[i] == s[j]:
            left.append(s[i])
            i, j = i + 1, j - 1
        elif f[i + 1][j] >= f[i][j - 1]:
            i += 1
        else:
            j -= 1
    return "".join(left) + mid + "".join(reversed(left))
