"""NP-complete string problems with planted solutions (RLVE line 71's recipe: plant a solution,
then verify): closest string, shortest common superstring, longest common subsequence of many
strings.

What makes each its own problem: closest_string bounds Hamming distance to every string;
shortest_common_superstring asks for contiguous occurrences (strings.py's
shortest_common_supersequence takes two strings and subsequences, in polynomial time);
common_subsequence_many takes several strings (longest_common_subsequence, two strings, is a
polynomial DP; with an arbitrary number of strings it is NP-complete, Garey-Johnson SR10).

Reward (our choice): -1 unparsable (a character outside the alphabet), -0.5 a wrong length,
0 if a constraint fails, else (bound / value)^5 or (value / bound)^5 capped at 1 against the
planted bound.
"""
from __future__ import annotations

from envs.gym.base import GymEnv, ask
from envs.gym.np_graphs import graded


def word(answer: str, alphabet: str) -> str:
    """The answer as one word over alphabet (spaces ignored); ValueError (unparsable) otherwise."""
    w = "".join(answer.split())
    if not w or any(c not in alphabet for c in w):
        raise ValueError("not a word over the alphabet")
    return w


def is_subsequence(small: str, big: str) -> bool:
    it = iter(big)
    return all(c in it for c in small)


class ClosestString(GymEnv):
    """Closest string, planted (NP-complete, Frances and Litman 1997): find a binary string
    within Hamming distance r of every given string. d: length L = d + 8, m = d // 3 + 4
    strings, each the hidden centre with exactly r = L // 4 positions flipped. Answer: a string
    of length L. Reward: -1 unparsable or not binary, -0.5 wrong length, else
    min(1, r / (largest distance))^5 (1 at distance at most r)."""

    name = "closest_string"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 8

    def build(self, rng, difficulty):
        n, m = self.size(difficulty), difficulty // 3 + 4
        r = n // 4
        centre = [rng.randrange(2) for _ in range(n)]
        strings = []
        for _ in range(m):
            flip = set(rng.sample(range(n), r))
            strings.append("".join(str(b ^ (i in flip)) for i, b in enumerate(centre)))
        return {"r": r, "strings": strings}, "".join(map(str, centre))

    def prompt(self, problem):
        s = problem["strings"]
        return ask(f"Binary strings of length {len(s[0])}:\n" + "\n".join(s) +
                   f"\n\nFind a binary string of the same length that differs from each of them in at most "
                   f"{problem['r']} positions.", "Give the string, e.g. <answer>0110</answer>.")

    def reward(self, problem, answer):
        w, strings = word(answer, "01"), problem["strings"]
        if len(w) != len(strings[0]):
            return -0.5
        worst = max(sum(a != b for a, b in zip(w, s)) for s in strings)
        return graded(problem["r"], worst)


class ShortestCommonSuperstring(GymEnv):
    """Shortest common superstring, planted (NP-complete, Garey-Johnson SR9): find a string of
    length at most K containing every given string as a contiguous substring. d: a hidden
    string of length K = 2d + 12 over {a, b, c}, cut into overlapping pieces of length 3-6
    that cover it, shuffled. Answer: a string. Reward: -1 unparsable or a character outside
    a-c, 0 if a piece does not occur, else min(1, K / length)^5."""

    name = "shortest_common_superstring"
    category = "np_complete"

    def size(self, difficulty):
        return 2 * difficulty + 12

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        hidden = "".join(rng.choice("abc") for _ in range(k))
        pieces, start = [], 0
        while start < k - 2:
            length = min(rng.randint(3, 6), k - start)
            pieces.append(hidden[start:start + length])
            start += rng.randint(1, length - 1)  # the next piece overlaps this one
        if start < k:
            pieces.append(hidden[-3:])
        pieces = sorted(set(pieces))
        rng.shuffle(pieces)
        return {"k": k, "pieces": pieces}, hidden

    def prompt(self, problem):
        return ask("Strings: " + ", ".join(problem["pieces"]) +
                   f"\n\nFind a string of at most {problem['k']} letters that contains each of them as a contiguous "
                   "substring.", "Give the string, e.g. <answer>abcab</answer>.")

    def reward(self, problem, answer):
        w = word(answer, "abc")
        if not all(p in w for p in problem["pieces"]):
            return 0.0
        return graded(problem["k"], len(w))


class CommonSubsequenceMany(GymEnv):
    """Longest common subsequence of many strings, planted (NP-complete, Garey-Johnson SR10):
    find a string of length at least K that is a subsequence of every given string. d: a hidden
    string of length K = d + 4 over {a, b, c, d}; m = d // 5 + 3 strings, each the hidden one
    with K random letters inserted. Answer: a string. Reward: -1 unparsable or a character
    outside a-d, 0 if not a subsequence of every string, else min(1, length / K)^5."""

    name = "common_subsequence_many"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        k, m = self.size(difficulty), difficulty // 5 + 3
        hidden = [rng.choice("abcd") for _ in range(k)]
        strings = []
        for _ in range(m):
            s = hidden[:]
            for _ in range(k):
                s.insert(rng.randrange(len(s) + 1), rng.choice("abcd"))
            strings.append("".join(s))
        return {"k": k, "strings": strings}, "".join(hidden)

    def prompt(self, problem):
        return ask("Strings:\n" + "\n".join(problem["strings"]) +
                   f"\n\nFind a string of at least {problem['k']} letters that is a subsequence of every one of them "
                   "(its letters appear in each string in the same order, not necessarily together).",
                   "Give the string, e.g. <answer>abca</answer>.")

    def reward(self, problem, answer):
        w = word(answer, "abcd")
        if not all(is_subsequence(w, s) for s in problem["strings"]):
            return 0.0
        return graded(len(w), problem["k"])
