"""Programming-competition string problems: counts, periods, factorizations, greedy subsequences.

Rewards: counts -1 unparsable or negative, else (min(x, y) / max(x, y))^10 against the true count
(our choice, after rlve line 43's formula, which the paper gives for
BubbleSwapLowerBound_PermutationCounting); single values -1 unparsable, 1 exact, else 0; strings
-1 when not made of the problem's letters, 1 exact (the answers are unique), else 0.

What makes each its own problem: the existing string envs count subsequence occurrences,
distinct subsequences and palindromic substrings, and find LCS, edit distance, palindromes,
matches, suffix arrays and the smallest rotation. Here: distinct substrings (not subsequences),
the smallest period (prefix function; a number, not the prefix-function array), the shortest
palindrome by prepending (a palindromic prefix), the number of dictionary segmentations (a count,
not the fewest words), interleavings of two strings, anagram windows, the smallest subsequence
with each letter once (a monotonic stack) and the smallest number after deleting k digits
(another stack greedy, on digits with leading zeros), and the k-th distinct substring. (Lyndon factorization, minimum palindrome
cuts and the longest repeat were dropped here: the parallel branch h/envalgo28 adds them.)
"""
from __future__ import annotations

from collections import Counter

from envs.gym.base import COUNT_FORMAT, INT_FORMAT, CountEnv, GymEnv, IntEnv, Retry, ask


def _count(problem):
    return problem, str(problem["count"])


def _value(problem):
    return problem, str(problem["value"])


def word(rng, n: int, letters: str = "AB") -> str:
    return "".join(rng.choice(letters) for _ in range(n))


def prefix_function(s: str) -> list[int]:
    pi = [0] * len(s)
    for i in range(1, len(s)):
        k = pi[i - 1]
        while k and s[i] != s[k]:
            k = pi[k - 1]
        pi[i] = k + (s[i] == s[k])
    return pi


class DistinctSubstringsCounting(CountEnv):
    """Distinct non-empty substrings (contiguous) of a string. d: length 2d + 8 over ABC.
    Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "distinct_substrings_counting"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        s = word(rng, self.size(difficulty), "ABC")
        return _count({"s": s, "count": len({s[i:j] for i in range(len(s)) for j in range(i + 1, len(s) + 1)})})

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nHow many different non-empty strings occur in S as a contiguous "
                   "substring?", COUNT_FORMAT)


class MinimalPeriod(IntEnv):
    """The smallest period p of a string (s[i] = s[i + p] for all valid i), via the prefix
    function: p = n - pi[n - 1]. d: a random block of 2..d + 3 letters repeated, cut at a random
    length in [2d + 8, 4d + 16], sometimes with one letter changed. Reward: -1 unparsable, 1
    exact, else 0."""

    name = "minimal_period"
    category = "competition"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        block = word(rng, rng.randint(2, difficulty + 3))
        n = rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        s = list((block * (n // len(block) + 1))[:n])
        if rng.random() < 0.3:
            i = rng.randrange(n)
            s[i] = "A" if s[i] == "B" else "B"
        s = "".join(s)
        return _value({"s": s, "value": n - prefix_function(s)[-1]})

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nA period of S is a p >= 1 such that S[i] = S[i + p] for every position "
                   "where both exist. What is the smallest period of S?", INT_FORMAT)


class _StringAnswer(GymEnv):
    """Reward: -1 if the answer uses characters outside `alphabet`, 1 if it equals problem["out"]
    (spaces between tokens normalised), else 0."""

    category = "competition"
    alphabet = "AB "

    def reward(self, problem, answer):
        text = " ".join(answer.split())
        if any(c not in self.alphabet for c in text):
            raise ValueError("not made of the problem's letters")
        return 1.0 if text == problem["out"] else 0.0


class MinPrependForPalindrome(IntEnv):
    """The fewest characters to add in front of a string to make it a palindrome (n minus its
    longest palindromic prefix). d: length 2d + 8 over AB, often starting with a planted
    palindrome. Reward: -1 unparsable, 1 exact, else 0."""

    name = "min_prepend_for_palindrome"
    category = "competition"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        half = word(rng, rng.randint(1, n // 2))
        s = (half + half[::-1][rng.randint(0, 1):] + word(rng, n))[:n]
        t = s + "#" + s[::-1]
        return _value({"s": s, "value": n - prefix_function(t)[-1]})

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nWhat is the smallest number of characters that must be added to the front "
                   "of S (and nowhere else) to make it a palindrome?", INT_FORMAT)


class WordBreakCounting(CountEnv):
    """Ways to split a string into words of a dictionary (words may repeat). d: the string is
    d + 5 random dictionary words glued together; 4-6 words of length 1-3 over AB. Reward: count
    ratio^10 (our choice, after rlve line 43's formula)."""

    name = "word_break_counting"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        words = sorted({word(rng, rng.randint(1, 3)) for _ in range(rng.randint(4, 6))})
        s = "".join(rng.choice(words) for _ in range(self.size(difficulty)))
        ways = [1] + [0] * len(s)
        for j in range(1, len(s) + 1):
            ways[j] = sum(ways[j - len(w)] for w in words if s.endswith(w, 0, j))
        return _count({"s": s, "words": words, "count": ways[-1]})

    def prompt(self, problem):
        return ask(f"Dictionary: {', '.join(problem['words'])}\nS = {problem['s']}\n\nIn how many ways can S be split "
                   "into consecutive pieces that are all dictionary words (a word may be used many times)?",
                   COUNT_FORMAT)


class InterleavingStringsCounting(CountEnv):
    """Ways to read C as an interleaving of A and B: sets of positions of C that spell A, in order,
    while the other positions spell B. d: |A| + |B| = d + 8 over AB, C a random interleaving.
    Reward: count ratio^10 (our choice, after rlve line 43's formula)."""

    name = "interleaving_strings_counting"

    def size(self, difficulty):
        return difficulty + 8

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        la = rng.randint(2, n - 2)
        a, b = word(rng, la), word(rng, n - la)
        picks = sorted(rng.sample(range(n), la))
        ia, ib, c = iter(a), iter(b), []
        for i in range(n):
            c.append(next(ia) if i in picks else next(ib))
        c = "".join(c)
        ways = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        ways[0][0] = 1
        for i in range(len(a) + 1):
            for j in range(len(b) + 1):
                if i and a[i - 1] == c[i + j - 1]:
                    ways[i][j] += ways[i - 1][j]
                if j and b[j - 1] == c[i + j - 1]:
                    ways[i][j] += ways[i][j - 1]
        return _count({"a": a, "b": b, "c": c, "count": ways[-1][-1]})

    def prompt(self, problem):
        return ask(f"A = {problem['a']}\nB = {problem['b']}\nC = {problem['c']}\n\nIn how many ways can the positions "
                   "of C be split into two sets so that the letters at the first set, in order, spell A and the "
                   "letters at the other positions, in order, spell B?", COUNT_FORMAT)


class AnagramSubstringsCounting(CountEnv):
    """Positions where a contiguous substring of S is an anagram of P (a sliding letter count).
    d: |S| = 3d + 12 over ABC, |P| in [2, 4]. Reward: count ratio^10 (our choice, after rlve line
    43's formula)."""

    name = "anagram_substrings_counting"

    def size(self, difficulty):
        return 3 * difficulty + 12

    def build(self, rng, difficulty):
        s, p = word(rng, self.size(difficulty), "ABC"), word(rng, rng.randint(2, 4), "ABC")
        want = Counter(p)
        count = sum(Counter(s[i:i + len(p)]) == want for i in range(len(s) - len(p) + 1))
        if count == 0:
            raise Retry
        return _count({"s": s, "p": p, "count": count})

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\nP = {problem['p']}\n\nAt how many starting positions does S have a "
                   "contiguous substring of the same length as P that uses exactly P's letters (an anagram of P, P "
                   "itself included)?", COUNT_FORMAT)


class SmallestDistinctSubsequence(_StringAnswer):
    """The lexicographically smallest subsequence of S that contains every letter of S exactly
    once (a monotonic stack). d: length 2d + 8 over the first d // 4 + 4 letters. Reward: -1 for
    characters outside the letters, 1 exact, else 0."""

    name = "smallest_distinct_subsequence"
    alphabet = "abcdefghijklmnopqrstuvwxyz "

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        letters = "abcdefghijklmnopqrstuvwxyz"[:min(26, difficulty // 4 + 4)]
        s = word(rng, self.size(difficulty), letters)
        last = {c: i for i, c in enumerate(s)}
        stack = []
        for i, c in enumerate(s):
            if c in stack:
                continue
            while stack and stack[-1] > c and last[stack[-1]] > i:
                stack.pop()
            stack.append(c)
        out = "".join(stack)
        return {"s": s, "out": out}, out

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nAmong the subsequences of S (letters kept in order) that contain every "
                   "letter appearing in S exactly once, which is the smallest in alphabetical (lexicographic) "
                   "order?", "Give the subsequence as one word, e.g. <answer>acdb</answer>.")


class RemoveKDigits(IntEnv):
    """The smallest number left after deleting exactly k digits of a digit string (a stack greedy;
    leading zeros drop). d: d + 6 digits, k in [1, d + 5]. Reward: -1 unparsable, 1 exact, else 0."""

    name = "remove_k_digits"
    category = "competition"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        s = "".join(rng.choice("0123456789") for _ in range(self.size(difficulty)))
        k = rng.randint(1, len(s) - 1)
        stack, left = [], k
        for c in s:
            while left and stack and stack[-1] > c:
                stack.pop()
                left -= 1
            stack.append(c)
        value = int("".join(stack[:len(stack) - left]) or "0")
        return _value({"s": s, "k": k, "value": value})

    def prompt(self, problem):
        return ask(f"Digits: {problem['s']}\n\nDelete exactly {problem['k']} of the digits, keeping the others in "
                   "order, to make the resulting number as small as possible (leading zeros are allowed and then "
                   "ignored). What is that number?", "Give the number without leading zeros, e.g. "
                   "<answer>1024</answer>.")


class KthDistinctSubstring(_StringAnswer):
    """The k-th smallest (lexicographic, 1-based) among the distinct non-empty substrings of S.
    d: length 2d + 8 over AB. Reward: -1 for characters other than A and B, 1 exact, else 0.
    Own problem: ranks the set that distinct_substrings_counting only counts."""

    name = "kth_distinct_substring"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        s = word(rng, self.size(difficulty))
        subs = sorted({s[i:j] for i in range(len(s)) for j in range(i + 1, len(s) + 1)})
        k = rng.randint(1, len(subs))
        return {"s": s, "k": k, "out": subs[k - 1]}, subs[k - 1]

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nSort the distinct non-empty contiguous substrings of S in dictionary order "
                   f"(A before B, a prefix before its extensions). Which substring is number {problem['k']} (counting "
                   "from 1)?", "Give the substring, e.g. <answer>ABBA</answer>.")
