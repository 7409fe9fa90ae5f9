"""More string algorithms: prefix (KMP failure) and Z functions, LCP arrays, edit scripts,
the Burrows-Wheeler transform, minimum windows, longest repeated and repeat-free substrings,
word breaking, Lyndon factorisation, palindrome partitioning, palindrome radii (Manacher),
LZ78 parsing.

What makes each its own problem (next to strings.py and arrays.py): the prefix and Z functions
are the two arrays behind linear-time matching, not string_matching's occurrence list; the LCP
array is computed from a given suffix array (suffix_array asks for the order itself); the
palindrome radii are Manacher's array for every centre (longest_palindromic_substring asks for
one palindrome); an edit
script is the sequence of operations, checked by applying it (edit_distance asks only for the
number); the others are distinct classical tasks (window, repeat, segmentation, factorisation,
partition).

Rewards (our choice): -1 unparsable, -0.5 an answer of the wrong shape (wrong length, not a
substring, not a segmentation of the string). Determined arrays and strings score (entries
right / entries)^5 (matches()); answers that name a substring or a segmentation are checked,
so every optimal one scores 1, and graded (length / optimum)^5 or (optimum / its size)^5.
"""
from __future__ import annotations

from collections import Counter

from envs.gym.arrays import _random_string, edit_distance
from envs.gym.base import GymEnv, Retry, ask, int_list, matches
from envs.gym.strings import _letters

ARRAY_FORMAT = "Give the {n} values in order separated by spaces, e.g. <answer>0 0 1 2</answer>."


def prefix_function(s: str) -> list[int]:
    pi = [0] * len(s)
    for i in range(1, len(s)):
        k = pi[i - 1]
        while k and s[i] != s[k]:
            k = pi[k - 1]
        pi[i] = k + (s[i] == s[k])
    return pi


def _pieces(answer: str, alphabet: str) -> list[str]:
    """The answer's space-separated words, each a non-empty string over `alphabet` (else ValueError:
    unparsable)."""
    pieces = answer.split()
    for p in pieces:
        _letters(p, alphabet)
    return pieces


class PrefixFunction(GymEnv):
    """The prefix function (KMP failure array) of a string (classical algorithms): pi[i] is the
    length of the longest proper prefix of s[0..i] that is also its suffix. d: length 2d + 8 over
    AB, built from a repeated random block so the values are not all small. Reward: -1
    unparsable, -0.5 wrong count, else (entries right / n)^5."""

    name = "prefix_function"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        s = _periodic(rng, self.size(difficulty))
        pi = prefix_function(s)
        return {"s": s, "values": pi}, " ".join(map(str, pi))

    def prompt(self, problem):
        s = problem["s"]
        return ask(f"S = {s} (positions 0 to {len(s) - 1}). For every position i, give the length of the longest "
                   "proper prefix of S[0..i] (shorter than S[0..i] itself) that is also a suffix of S[0..i].",
                   ARRAY_FORMAT.format(n=len(s)))

    def explain(self, problem):
        """One line per position with the longest border: 'i = 4: ABAAB ends with AB, so 2.'"""
        s, lines = problem["s"], []
        for i, k in enumerate(problem["values"]):
            lines.append(f"i = {i}: {s[:i + 1]} " + (f"ends with its prefix {s[:k]}, so {k}." if k else "has no border, so 0."))
        return "\n".join(lines)

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["values"])


def _periodic(rng, n: int) -> str:
    """A random block repeated, with a few letters changed: strings with long borders."""
    block = _random_string(rng, rng.randint(2, max(2, n // 3)), "AB")
    s = list((block * n)[:n])
    for _ in range(rng.randint(0, max(1, n // 8))):
        s[rng.randrange(n)] = rng.choice("AB")
    return "".join(s)


def z_function(s: str) -> list[int]:
    n = len(s)
    z, left, right = [0] * n, 0, 0
    for i in range(1, n):
        if i < right:
            z[i] = min(right - i, z[i - left])
        while i + z[i] < n and s[z[i]] == s[i + z[i]]:
            z[i] += 1
        if i + z[i] > right:
            left, right = i, i + z[i]
    if n:
        z[0] = n
    return z


class ZFunction(GymEnv):
    """The Z-function of a string (classical algorithms): z[i] is the length of the longest
    common prefix of S and S[i..], with z[0] = n. d: length 2d + 8 over AB, a repeated block with
    a few changes. Reward: -1 unparsable, -0.5 wrong count, else (entries right / n)^5."""

    name = "z_function"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        s = _periodic(rng, self.size(difficulty))
        z = z_function(s)
        return {"s": s, "values": z}, " ".join(map(str, z))

    def prompt(self, problem):
        s = problem["s"]
        return ask(f"S = {s} (positions 0 to {len(s) - 1}). For every position i, give the length of the longest "
                   f"common prefix of S and the suffix of S starting at i (at i = 0 that is {len(s)}).",
                   ARRAY_FORMAT.format(n=len(s)))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["values"])


def lcp_of(s: str, sa: list[int]) -> list[int]:
    """Kasai's algorithm: the common prefix length of each suffix and the one before it in sa."""
    n, rank, k, lcp = len(s), [0] * len(s), 0, [0] * len(s)
    for i, p in enumerate(sa):
        rank[p] = i
    for p in range(n):
        if rank[p] == 0:
            k = 0
            continue
        q = sa[rank[p] - 1]
        while p + k < n and q + k < n and s[p + k] == s[q + k]:
            k += 1
        lcp[rank[p]] = k
        k = max(k - 1, 0)
    return lcp[1:]


class LcpArray(GymEnv):
    """The LCP array of a string given its suffix array (classical algorithms, Kasai): for each
    pair of neighbouring suffixes in sorted order, the length of their common prefix. d: length
    2d + 6 over ABC. Reward: -1 unparsable, -0.5 wrong count, else (entries right / (n - 1))^5."""

    name = "lcp_array"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "ABC" if rng.random() < 0.5 else "AB")
        sa = sorted(range(len(s)), key=lambda i: s[i:])
        lcp = lcp_of(s, sa)
        return {"s": s, "sa": sa, "lcp": lcp}, " ".join(map(str, lcp))

    def prompt(self, problem):
        s, sa = problem["s"], problem["sa"]
        return ask(f"S = {s} (positions 0 to {len(s) - 1}). Its suffixes in alphabetical order start at positions: "
                   + " ".join(map(str, sa)) + f".\n\nFor each of the {len(s) - 1} neighbouring pairs in this order, give "
                   "the length of the longest common prefix of the two suffixes.", ARRAY_FORMAT.format(n=len(s) - 1))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["lcp"])


def edit_script(s: str, t: str) -> list[str]:
    """One shortest script, right to left so that each position is still valid when applied."""
    n, m = len(s), len(t)
    f = [[i + j if i * j == 0 else 0 for j in range(m + 1)] for i in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            f[i][j] = min(f[i - 1][j] + 1, f[i][j - 1] + 1, f[i - 1][j - 1] + (s[i - 1] != t[j - 1]))
    ops, i, j = [], n, m
    while i or j:
        if i and j and s[i - 1] == t[j - 1] and f[i][j] == f[i - 1][j - 1]:
            i, j = i - 1, j - 1
        elif i and j and f[i][j] == f[i - 1][j - 1] + 1:
            ops.append(f"REPLACE {i - 1} {t[j - 1]}")
            i, j = i - 1, j - 1
        elif i and f[i][j] == f[i - 1][j] + 1:
            ops.append(f"DELETE {i - 1}")
            i -= 1
        else:
            ops.append(f"INSERT {i} {t[j - 1]}")
            j -= 1
    return ops


class EditScript(GymEnv):
    """A shortest edit script turning S into T (classical algorithms, the Levenshtein DP with
    its backtrace): INSERT i c, DELETE i, REPLACE i c, positions in the string as it is when
    the operation runs. d: |S| = d + 4 over ABCD, T = S after a few random edits. Reward: -1
    unparsable, -0.5 an operation out of range or more operations than |S| + |T|, 0 if the
    script does not produce T, else (fewest operations / its operations)^5. Its own problem: the
    script is applied and checked (edit_distance asks only for the number; every shortest
    script scores 1)."""

    name = "edit_script"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "ABCD")
        t = list(s)
        for _ in range(rng.randint(1, max(2, len(s) // 2))):
            op, i = rng.randrange(3), rng.randrange(len(t) + 1)
            if op == 0:
                t.insert(i, rng.choice("ABCD"))
            elif op == 1 and i < len(t) and len(t) > 1:
                del t[i]
            elif i < len(t):
                t[i] = rng.choice("ABCD")
        t = "".join(t)
        if t == s:
            raise Retry
        return {"s": s, "t": t, "optimum": edit_distance(s, t)}, "\n".join(edit_script(s, t))

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\nT = {problem['t']}\n\nTurn S into T with as few operations as possible, "
                   "applied one after another; positions count from 0 in the string as it is at that moment:\n"
                   "INSERT i c - insert letter c before position i (i = current length appends)\n"
                   "DELETE i - delete the letter at position i\nREPLACE i c - replace the letter at position i by c",
                   "Give one operation per line, e.g. <answer>REPLACE 0 B\nINSERT 3 A</answer>.")

    def reward(self, problem, answer):
        s, t = list(problem["s"]), problem["t"]
        ops = [line.split() for line in answer.splitlines() if line.strip()]
        if len(ops) > len(s) + len(t):
            return -0.5
        for op in ops:
            kind = op[0].upper()
            if kind not in ("INSERT", "DELETE", "REPLACE") or len(op) != (2 if kind == "DELETE" else 3):
                raise ValueError("not an edit operation")
            i = int_list(op[1])
            if len(i) != 1:
                raise ValueError("not a position")
            i = i[0]
            if kind != "DELETE" and (len(op[2]) != 1 or op[2] not in "ABCD"):
                return -0.5
            if not 0 <= i <= len(s) - (kind != "INSERT"):
                return -0.5
            if kind == "INSERT":
                s.insert(i, op[2])
            elif kind == "DELETE":
                del s[i]
            else:
                s[i] = op[2]
        if "".join(s) != t:
            return 0.0
        return (problem["optimum"] / len(ops)) ** 5


class BurrowsWheeler(GymEnv):
    """The Burrows-Wheeler transform (classical algorithms): append $ (smaller than every
    letter), sort all rotations, read the last column. d: length 2d + 6 over ABC. Reward: -1
    unparsable, -0.5 wrong length, else (characters right / (n + 1))^5."""

    name = "burrows_wheeler"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "ABC") + "$"
        bwt = "".join(r[-1] for r in sorted(s[i:] + s[:i] for i in range(len(s))))
        return {"s": s[:-1], "bwt": bwt}, bwt

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nCompute the Burrows-Wheeler transform of S$: append the end marker $ (which "
                   "comes before A, B and C), sort all rotations of S$ alphabetically, and read off the last "
                   "character of each rotation in that order.",
                   "Give the transformed string (it contains one $), e.g. <answer>BA$AC</answer>.")

    def reward(self, problem, answer):
        return matches(list(_letters(answer, "ABC$")), list(problem["bwt"]))


def _covers(window: Counter, need: Counter) -> bool:
    return all(window[c] >= k for c, k in need.items())


class MinWindowSubstring(GymEnv):
    """The shortest window of a text containing given letters with multiplicity (classical
    algorithms, two pointers). d: text of length 3d + 10 over ABCDE, 3 + d // 8 required
    letters. Answer: l r (0-based, inclusive). Reward: -1 unparsable, -0.5 not a range of the
    text, 0 if the window lacks a required letter, else (shortest length / its length)^5 (any
    shortest window scores 1)."""

    name = "min_window_substring"
    category = "algorithms"

    def size(self, difficulty):
        return 3 * difficulty + 10

    def build(self, rng, difficulty):
        text = _random_string(rng, self.size(difficulty), "ABCDE")
        need = Counter(_random_string(rng, 3 + difficulty // 8, "ABCDE"))
        best, left, window = None, 0, Counter()
        for right, c in enumerate(text):
            window[c] += 1
            while _covers(window, need) and (window[text[left]] > need[text[left]]):
                window[text[left]] -= 1
                left += 1
            if _covers(window, need) and (best is None or right - left < best[1] - best[0]):
                best = (left, right)
        if best is None:
            raise Retry
        return {"text": text, "need": "".join(sorted(need.elements())), "optimum": best[1] - best[0] + 1}, \
            f"{best[0]} {best[1]}"

    def prompt(self, problem):
        text = problem["text"]
        return ask(f"Text T = {text} (positions 0 to {len(text) - 1}).\n\nFind a shortest contiguous part T[l..r] that "
                   f"contains all the letters {' '.join(problem['need'])} (a letter listed k times must appear at least "
                   "k times).", "Give l and r (inclusive) separated by a space, e.g. <answer>3 8</answer>.")

    def reward(self, problem, answer):
        lr, text = int_list(answer), problem["text"]
        if len(lr) != 2 or not 0 <= lr[0] <= lr[1] < len(text):
            return -0.5
        if not _covers(Counter(text[lr[0]:lr[1] + 1]), Counter(problem["need"])):
            return 0.0
        return (problem["optimum"] / (lr[1] - lr[0] + 1)) ** 5


def _occurrences(s: str, sub: str, limit: int = 2) -> int:
    count, at = 0, s.find(sub)
    while at >= 0 and count < limit:
        count, at = count + 1, s.find(sub, at + 1)
    return count


class LongestRepeatedSubstring(GymEnv):
    """A longest substring occurring at least twice, occurrences may overlap (classical
    algorithms, suffix array + LCP). d: length 2d + 8 over ABC. Reward: -1 unparsable, -0.5 if it
    does not occur twice, else (length / longest)^5 (any longest one scores 1)."""

    name = "longest_repeated_substring"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "ABC")
        for length in range(len(s) - 1, 0, -1):
            seen = set()
            hit = next((s[i:i + length] for i in range(len(s) - length + 1)
                        if s[i:i + length] in seen or seen.add(s[i:i + length])), None)
            if hit:
                return {"s": s, "optimum": length}, hit
        raise Retry

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nFind a longest string that occurs at least twice in S as a contiguous "
                   "substring (the two occurrences may overlap).", "Give the substring, e.g. <answer>ABCA</answer>.")

    def reward(self, problem, answer):
        sub = _letters(answer, "ABC")
        if _occurrences(problem["s"], sub) < 2:
            return -0.5
        return min(1.0, len(sub) / problem["optimum"]) ** 5


class LongestDistinctSubstring(GymEnv):
    """A longest substring with no repeated letter (classical algorithms, sliding window). d:
    length 3d + 10 over the first 6 + d // 6 letters of the alphabet. Reward: -1 unparsable,
    -0.5 not a substring or a letter repeats, else (length / longest)^5 (any longest one scores
    1)."""

    name = "longest_distinct_substring"
    category = "algorithms"

    def size(self, difficulty):
        return 3 * difficulty + 10

    def build(self, rng, difficulty):
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:min(26, 6 + difficulty // 6)]
        s = _random_string(rng, self.size(difficulty), letters)
        best, left, last = (0, 0), 0, {}
        for right, c in enumerate(s):
            if last.get(c, -1) >= left:
                left = last[c] + 1
            last[c] = right
            if right - left > best[1] - best[0]:
                best = (left, right)
        return {"s": s, "letters": letters, "optimum": best[1] - best[0] + 1}, s[best[0]:best[1] + 1]

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nFind a longest contiguous substring of S in which no letter appears twice.",
                   "Give the substring, e.g. <answer>CADB</answer>.")

    def reward(self, problem, answer):
        sub = _letters(answer, problem["letters"])
        if len(set(sub)) != len(sub) or sub not in problem["s"]:
            return -0.5
        return min(1.0, len(sub) / problem["optimum"]) ** 5


class WordBreak(GymEnv):
    """Split a text into the fewest dictionary words (classical algorithms, DP over prefixes).
    d: a dictionary of 6 + d // 3 distinct words of 1-4 letters over AB; the text joins d + 4
    random words. Answer: the words in order. Reward: -1 unparsable, -0.5 if a piece is not in
    the dictionary or the pieces do not spell the text, else (fewest words / its words)^5."""

    name = "word_break"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        words = sorted({_random_string(rng, rng.randint(1, 4), "AB") for _ in range(6 + difficulty // 3)})
        if len(words) < 3:
            raise Retry
        text = "".join(rng.choice(words) for _ in range(self.size(difficulty)))
        best: list = [None] * (len(text) + 1)  # best[i]: fewest words for text[:i], as a list
        best[0] = []
        for i in range(1, len(text) + 1):
            for w in words:
                if text.endswith(w, 0, i) and best[i - len(w)] is not None and \
                        (best[i] is None or len(best[i - len(w)]) + 1 < len(best[i])):
                    best[i] = best[i - len(w)] + [w]
        return {"text": text, "words": words, "optimum": len(best[-1])}, " ".join(best[-1])

    def prompt(self, problem):
        return ask(f"Dictionary: {', '.join(problem['words'])}\nText: {problem['text']}\n\nSplit the text into as few "
                   "dictionary words as possible (words may be used more than once).",
                   "Give the words in order separated by spaces, e.g. <answer>AB B ABA</answer>.")

    def reward(self, problem, answer):
        pieces = _pieces(answer, "AB")
        words = set(problem["words"])
        if any(p not in words for p in pieces) or "".join(pieces) != problem["text"]:
            return -0.5
        return min(1.0, problem["optimum"] / len(pieces)) ** 5


def lyndon_factors(s: str) -> list[str]:
    """Duval's algorithm."""
    out, i, n = [], 0, len(s)
    while i < n:
        j, k = i + 1, i
        while j < n and s[k] <= s[j]:
            k = i if s[k] < s[j] else k + 1
            j += 1
        while i <= k:
            out.append(s[i:i + j - k])
            i += j - k
    return out


class LyndonFactorization(GymEnv):
    """The Lyndon factorisation of a string (classical algorithms, Duval): the unique split into
    Lyndon words (each strictly smaller than all its proper rotations) in non-increasing order.
    d: length 2d + 6 over AB. Answer: the factors in order. Reward: -1 unparsable, -0.5 if they
    do not spell the string, 1 for the factorisation, else 0."""

    name = "lyndon_factorization"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "AB")
        factors = lyndon_factors(s)
        return {"s": s, "factors": factors}, " ".join(factors)

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nA Lyndon word is a non-empty string that is alphabetically smaller than "
                   "every one of its proper rotations. Split S into Lyndon words w1 w2 ... wk with w1 >= w2 >= ... >= "
                   "wk alphabetically (this split is unique).",
                   "Give the words in order separated by spaces, e.g. <answer>ABB AB A</answer>.")

    def reward(self, problem, answer):
        pieces = _pieces(answer, "AB")
        if "".join(pieces) != problem["s"]:
            return -0.5
        return 1.0 if pieces == problem["factors"] else 0.0


class PalindromePartition(GymEnv):
    """Split a string into the fewest palindromes (classical algorithms, DP over prefixes). d:
    length 2d + 6 over ABC. Answer: the pieces in order. Reward: -1 unparsable, -0.5 if a piece
    is not a palindrome or they do not spell the string, else (fewest pieces / its pieces)^5.
    Its own problem: a partition (longest_palindromic_substring and _subsequence ask for one
    palindrome)."""

    name = "palindrome_partition"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "ABC")
        n = len(s)
        best: list = [[]] + [None] * n
        for i in range(1, n + 1):
            for j in range(i):
                piece = s[j:i]
                if piece == piece[::-1] and (best[i] is None or len(best[j]) + 1 < len(best[i])):
                    best[i] = best[j] + [piece]
        return {"s": s, "optimum": len(best[n])}, " ".join(best[n])

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nCut S into as few contiguous pieces as possible so that every piece reads "
                   "the same forwards and backwards.", "Give the pieces in order separated by spaces, e.g. "
                   "<answer>ABA C BB</answer>.")

    def reward(self, problem, answer):
        pieces = _pieces(answer, "ABC")
        if any(p != p[::-1] for p in pieces) or "".join(pieces) != problem["s"]:
            return -0.5
        return min(1.0, problem["optimum"] / len(pieces)) ** 5


def palindrome_radii(s: str) -> list[int]:
    """Manacher (odd lengths): r[i] is the largest r with s[i - r..i + r] a palindrome."""
    n, r = len(s), [0] * len(s)
    left, right = 0, -1
    for i in range(n):
        k = 0 if i > right else min(r[left + right - i], right - i)
        while i - k - 1 >= 0 and i + k + 1 < n and s[i - k - 1] == s[i + k + 1]:
            k += 1
        r[i] = k
        if i + k > right:
            left, right = i - k, i + k
    return r


class PalindromeRadii(GymEnv):
    """The palindrome radius at every position (classical algorithms, Manacher's algorithm): the
    largest r such that the 2r + 1 letters centred on the position read the same both ways. d:
    length 2d + 8 over AB. Reward: -1 unparsable, -0.5 wrong count, else (entries right / n)^5."""

    name = "palindrome_radii"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "AB")
        r = palindrome_radii(s)
        return {"s": s, "radii": r}, " ".join(map(str, r))

    def prompt(self, problem):
        s = problem["s"]
        return ask(f"S = {s} (positions 0 to {len(s) - 1}). For every position i, give the largest r such that "
                   "S[i - r..i + r] (the 2r + 1 letters centred on i, all inside S) reads the same forwards and "
                   "backwards (r = 0 when only the letter itself does).", ARRAY_FORMAT.format(n=len(s)))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["radii"])


def lz78_phrases(s: str) -> list[str]:
    """Each phrase: the longest known phrase that prefixes the rest, plus one more letter (the
    last phrase may be a known one when the string runs out)."""
    known, out, i = set(), [], 0
    while i < len(s):
        j = i + 1
        while j <= len(s) and s[i:j] in known:
            j += 1
        phrase = s[i:min(j, len(s))]
        known.add(phrase)
        out.append(phrase)
        i += len(phrase)
    return out


class Lz78Parse(GymEnv):
    """The LZ78 parse of a string (classical algorithms, dictionary compression): each phrase
    is the longest phrase seen so far that the rest starts with, extended by the next letter.
    d: length 3d + 10 over AB. Answer: the phrases in order. Reward: -1 unparsable, -0.5 if they
    do not spell the string or their count is wrong, else (phrases right / phrases)^5."""

    name = "lz78_parse"
    category = "algorithms"

    def size(self, difficulty):
        return 3 * difficulty + 10

    def build(self, rng, difficulty):
        s = _random_string(rng, self.size(difficulty), "AB")
        phrases = lz78_phrases(s)
        return {"s": s, "phrases": phrases}, " ".join(phrases)

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nParse S as LZ78 does. The dictionary starts empty. Repeatedly take the "
                   "longest dictionary phrase that the rest of S starts with (possibly none), extend it by the next "
                   "letter, output that as the next phrase and add it to the dictionary. If S ends before a letter can "
                   "be added, the last phrase is the dictionary phrase itself.",
                   "Give the phrases in order separated by spaces, e.g. <answer>A B AB BA</answer>.")

    def reward(self, problem, answer):
        pieces = _pieces(answer, "AB")
        if "".join(pieces) != problem["s"]:
            return -0.5
        return matches(pieces, problem["phrases"])
