"""String algorithms: pattern occurrences, longest palindromic and common substrings, bracket
repair, shortest common supersequences, least rotations, suffix arrays.

Answers that name a string are checked (is it a substring / supersequence / balanced, how
long is it) and graded against the optimum, so every optimal answer scores 1, not only the
generator's; answers that are one determined list score by positions (share()).
"""
from __future__ import annotations

from envs.gym.arrays import _is_subsequence, _random_string
from envs.gym.base import UNCOUNTED, GymEnv, Retry, ask, int_list, jaccard, matches, ratio, share


def _letters(answer: str, alphabet: str) -> str:
    s = "".join(answer.split())
    if not s or any(c not in alphabet for c in s):
        raise ValueError(f"not a string over {alphabet}")
    return s


class StringMatching(GymEnv):
    """All occurrences of a pattern in a text, overlaps included (classical algorithms, KMP).
    d: text of length 4d + 12 over AB, pattern of length 2-4 occurring at least once. Answer:
    the 0-based start positions. Reward: -1 unparsable, else (|A & G| / |A | G|)^5 over the
    position sets, 1 only for exactly the occurrences."""

    name = "string_matching"
    category = "algorithms"

    def size(self, difficulty):
        return 4 * difficulty + 12

    def build(self, rng, difficulty):
        text = _random_string(rng, self.size(difficulty), "AB")
        pat = _random_string(rng, rng.randint(2, 4), "AB")
        where = [i for i in range(len(text) - len(pat) + 1) if text.startswith(pat, i)]
        if not where:
            raise Retry
        return {"text": text, "pattern": pat, "positions": where}, " ".join(map(str, where))

    def prompt(self, problem):
        return ask(f"Text T = {problem['text']}\nPattern P = {problem['pattern']}\n\nFind every position where P "
                   "occurs in T as a contiguous substring (occurrences may overlap). Positions count from 0.",
                   "Give all starting positions in increasing order, separated by spaces, e.g. <answer>0 3 4</answer>.")

    def reward(self, problem, answer):
        return jaccard(set(int_list(answer)), set(problem["positions"]))


def longest_palindrome(s: str, counter=UNCOUNTED) -> str:
    """The leftmost longest palindromic substring (centre expansion, O(n^2))."""
    best = s[:1]
    counter.tick(len(s) + 1)
    for centre in range(2 * len(s) - 1):
        lo, hi = centre // 2, centre // 2 + centre % 2
        while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
            counter.tick()
            lo, hi = lo - 1, hi + 1
        if hi - lo - 1 > len(best):
            best = s[lo + 1:hi]
    return best


class LongestPalindromicSubstring(GymEnv):
    """A longest palindromic substring, contiguous (classical algorithms). d: length 2d + 8
    over ABC. Reward: -1 unparsable, -0.5 not a palindromic substring, else (length /
    optimum)^5."""

    name = "longest_palindromic_substring"
    category = "algorithms"
    brick_io = ("str", "str")
    brick_text = "the leftmost longest substring of the string that reads the same forwards and backwards"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def brick_input(self, rng, difficulty):
        return _random_string(rng, self.size(difficulty), "ABC")

    def brick_apply(self, value, counter):
        return longest_palindrome(value, counter) if value else None

    def build(self, rng, difficulty):
        s = self.brick_input(rng, difficulty)
        best = longest_palindrome(s)
        return {"s": s, "optimum": len(best)}, best

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nFind a longest contiguous substring of S that reads the same forwards "
                   "and backwards.", "Give the substring, e.g. <answer>ABCBA</answer>.")

    def reward(self, problem, answer):
        sub = _letters(answer, "ABC")
        if sub != sub[::-1] or sub not in problem["s"]:
            return -0.5
        return ratio(len(sub), problem["optimum"], 5)


PAIRS = {"(": ")", "[": "]"}


def bracket_repair_cost(s: str, counter=UNCOUNTED) -> int:
    """Fewest brackets to insert so that s (over ()[]) becomes balanced: interval DP, O(n^3)."""
    n = len(s)
    counter.tick(n ** 3 + 1)
    f = [[0] * (n + 1) for _ in range(n + 1)]  # f[i][j]: cost for s[i:j]
    for length in range(1, n + 1):
        for i in range(n - length + 1):
            j = i + length
            best = f[i + 1][j] + 1  # s[i] gets a new partner
            if s[i] in PAIRS:
                for k in range(i + 1, j):
                    if s[k] == PAIRS[s[i]]:
                        best = min(best, f[i + 1][k] + f[k + 1][j])
            f[i][j] = best
    return f[0][n]


def balanced(s: str) -> bool:
    stack = []
    for c in s:
        if c in PAIRS:
            stack.append(PAIRS[c])
        elif not stack or stack.pop() != c:
            return False
    return not stack


class MinBracketInsertions(GymEnv):
    """Repair a bracket string with the fewest insertions (classical algorithms, interval DP).
    d: length d + 8 over ()[]; at least one insertion needed. Answer: the repaired string.
    Reward: -1 unparsable, -0.5 if it is not balanced or does not contain S as a subsequence,
    else (fewest insertions / its insertions)^5."""

    name = "min_bracket_insertions"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 8

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "()[]")
        cost = bracket_repair_cost(s)
        if cost == 0:
            raise Retry
        return {"s": s, "optimum": cost}, _repair(s)

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nInsert as few brackets as possible anywhere in S so that the result is "
                   "balanced (every bracket closed by the matching kind, properly nested, like ([]()) ).",
                   "Give the whole repaired string, e.g. <answer>([])()</answer>.")

    def reward(self, problem, answer):
        t = _letters(answer, "()[]")
        s = problem["s"]
        if not balanced(t) or not _is_subsequence(s, t):
            return -0.5
        return ratio(problem["optimum"], len(t) - len(s), 5)


def _repair(s: str) -> str:
    """One optimal repair, rebuilt from the interval DP."""
    n = len(s)
    f = [[0] * (n + 1) for _ in range(n + 1)]
    choice = [[-1] * (n + 1) for _ in range(n + 1)]
    for length in range(1, n + 1):
        for i in range(n - length + 1):
            j = i + length
            f[i][j], choice[i][j] = f[i + 1][j] + 1, -1
            if s[i] in PAIRS:
                for k in range(i + 1, j):
                    if s[k] == PAIRS[s[i]] and f[i + 1][k] + f[k + 1][j] < f[i][j]:
                        f[i][j], choice[i][j] = f[i + 1][k] + f[k + 1][j], k

    def build(i: int, j: int) -> str:
        if i >= j:
            return ""
        k = choice[i][j]
        if k < 0:  # s[i] gets a new partner next to it
            c = s[i]
            return (c + PAIRS[c] if c in PAIRS else {")": "(", "]": "["}[c] + c) + build(i + 1, j)
        return s[i] + build(i + 1, k) + s[k] + build(k + 1, j)

    return build(0, n)


class ShortestCommonSupersequence(GymEnv):
    """A shortest common supersequence of two strings (classical algorithms, LCS DP: its
    length is |S| + |T| - LCS). d: both of length d + 5 over ABC. Reward: -1 unparsable, -0.5
    if S or T is not a subsequence of it, else (optimum / its length)^5."""

    name = "shortest_common_supersequence"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        from envs.gym.arrays import lcs_table

        n = self.size(difficulty)
        s, t = _random_string(rng, n, "ABC"), _random_string(rng, n, "ABC")
        f = lcs_table(s, t)
        i = j = 0
        out = []
        while i < n or j < n:
            if i < n and j < n and s[i] == t[j]:
                out.append(s[i])
                i, j = i + 1, j + 1
            elif j == n or (i < n and f[i + 1][j] >= f[i][j + 1]):
                out.append(s[i])
                i += 1
            else:
                out.append(t[j])
                j += 1
        return {"s": s, "t": t, "optimum": 2 * n - f[0][0]}, "".join(out)

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\nT = {problem['t']}\n\nFind a shortest string that contains both S and T as "
                   "subsequences (their characters in order, not necessarily adjacent).",
                   "Give the string, e.g. <answer>ABCAB</answer>.")

    def reward(self, problem, answer):
        u = _letters(answer, "ABC")
        if not (_is_subsequence(problem["s"], u) and _is_subsequence(problem["t"], u)):
            return -0.5
        return ratio(problem["optimum"], len(u), 5)


class LongestCommonSubstring(GymEnv):
    """A longest common contiguous substring of two strings (classical algorithms, O(n m) DP).
    d: lengths d + 6 and d + 8 over ABC. Reward: -1 unparsable, -0.5 if not a substring of
    both, else (length / optimum)^5."""

    name = "longest_common_substring"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        s, t = _random_string(rng, self.size(difficulty), "ABC"), _random_string(rng, self.size(difficulty) + 2, "ABC")
        best, end = 0, 0
        prev = [0] * (len(t) + 1)
        for i in range(1, len(s) + 1):
            cur = [0] * (len(t) + 1)
            for j in range(1, len(t) + 1):
                if s[i - 1] == t[j - 1]:
                    cur[j] = prev[j - 1] + 1
                    if cur[j] > best:
                        best, end = cur[j], i
            prev = cur
        return {"s": s, "t": t, "optimum": best}, s[end - best:end]

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\nT = {problem['t']}\n\nFind a longest string that appears contiguously in "
                   "both S and T.", "Give the substring, e.g. <answer>CAB</answer>.")

    def reward(self, problem, answer):
        sub = _letters(answer, "ABC")
        if sub not in problem["s"] or sub not in problem["t"]:
            return -0.5
        return ratio(len(sub), problem["optimum"], 5)


def least_rotation(s: str, counter=UNCOUNTED) -> int:
    """Start of the lexicographically least rotation (Booth's algorithm, O(n))."""
    n = len(s)
    counter.tick(2 * n + 1)
    t = s + s
    fail = [-1] * (2 * n)
    k = 0
    for j in range(1, 2 * n):
        c = t[j]
        i = fail[j - k - 1]
        while i != -1 and c != t[k + i + 1]:
            if c < t[k + i + 1]:
                k = j - i - 1
            i = fail[i]
        if i == -1 and c != t[k]:
            if c < t[k]:
                k = j
            fail[j - k] = -1
        else:
            fail[j - k] = i + 1
    return k


class SmallestRotation(GymEnv):
    """The lexicographically least rotation of a string (classical algorithms, Booth's
    algorithm). d: length 3d + 8 over ABC. Reward: -1 unparsable, -0.5 not a rotation of S, 1
    for the least, else 0."""

    name = "smallest_rotation"
    category = "algorithms"
    brick_io = ("str", "str")
    brick_text = "the lexicographically smallest rotation of the string"

    def size(self, difficulty):
        return 3 * difficulty + 8

    def brick_input(self, rng, difficulty):
        return _random_string(rng, self.size(difficulty), "ABC")

    def brick_apply(self, value, counter):
        if not value:
            return None
        k = least_rotation(value, counter)
        return value[k:] + value[:k]

    def build(self, rng, difficulty):
        s = self.brick_input(rng, difficulty)
        least = self.brick_apply(s, UNCOUNTED)
        return {"s": s, "least": least}, least

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nA rotation of S moves some characters from its front to its back. Which "
                   "rotation of S comes first in alphabetical order?", "Give that rotation, e.g. <answer>ABCA</answer>.")

    def reward(self, problem, answer):
        r, s = _letters(answer, "ABC"), problem["s"]
        if len(r) != len(s) or r not in s + s:
            return -0.5
        return 1.0 if r == problem["least"] else 0.0


class SuffixArray(GymEnv):
    """The suffix array of a string (classical algorithms). d: length 2d + 6 over AB. Answer:
    the start positions of the suffixes in sorted order. Reward: -1 unparsable, -0.5 not a
    permutation of the positions, else (positions right / n)^5."""

    name = "suffix_array"
    category = "algorithms"
    brick_io = ("str", "list[int]")
    brick_text = "the start positions (from 0) of the suffixes of the string in alphabetical order"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def brick_input(self, rng, difficulty):
        return _random_string(rng, self.size(difficulty), "AB")

    def brick_apply(self, value, counter):
        counter.tick(len(value) ** 2 + 1)
        return sorted(range(len(value)), key=lambda i: value[i:])

    def build(self, rng, difficulty):
        s = self.brick_input(rng, difficulty)
        sa = self.brick_apply(s, UNCOUNTED)
        return {"s": s, "sa": sa}, " ".join(map(str, sa))

    def prompt(self, problem):
        n = len(problem["s"])
        return ask(f"S = {problem['s']} (positions 0 to {n - 1}). Sort all {n} suffixes of S (the suffix at position i "
                   "is S from i to the end) alphabetically, a proper prefix coming before the longer string.",
                   "Give the start positions of the suffixes in sorted order, separated by spaces.")

    def reward(self, problem, answer):
        got = int_list(answer)
        if sorted(got) != list(range(len(problem["s"]))):
            return -0.5
        return matches(got, problem["sa"])
