"""String algorithms: prefix and Z functions, palindromes, rotations, suffix arrays, compression,
factorisations, layout. (The gym supplies LCS, edit distance, palindromic subsequences and
subsequence counting.)"""
from __future__ import annotations

import heapq

from envs.compose.brick import Brick, by_name
from envs.compose.bricks.strings import sort_cost
from envs.compose.types import INT, LIST_INT, LIST_STR, STR


def prefix_function(s, c):
    c.tick(2 * len(s))
    pi = [0] * len(s)
    for i in range(1, len(s)):
        k = pi[i - 1]
        while k and s[i] != s[k]:
            k = pi[k - 1]
        pi[i] = k + (s[i] == s[k])
    return pi


def z_function(s, c):
    n = len(s)
    c.tick(2 * n)
    z, left, right = [0] * n, 0, 0
    if n:
        z[0] = n
    for i in range(1, n):
        if i < right:
            z[i] = min(right - i, z[i - left])
        while i + z[i] < n and s[z[i]] == s[i + z[i]]:
            z[i] += 1
        if i + z[i] > right:
            left, right = i, i + z[i]
    return z


def longest_repeated_substring(s, c):
    """Via the suffix array: the longest common prefix of neighbouring suffixes (earliest on ties)."""
    n = len(s)
    c.tick(sort_cost(n) * max(1, n // 2))
    sa = sorted(range(n), key=lambda i: s[i:])
    best = ""
    for a, b in zip(sa, sa[1:]):
        k = 0
        while a + k < n and b + k < n and s[a + k] == s[b + k]:
            k += 1
        cand = s[min(a, b):min(a, b) + k]
        if k > len(best) or (k == len(best) and k and s.index(cand) < s.index(best)):
            best = cand
    return best or None


def minimal_rotation(s, c):
    n = len(s)
    c.tick(n * n)
    return min(s[i:] + s[:i] for i in range(n))


def bwt(s, c):
    n = len(s)
    c.tick(sort_cost(n) * max(1, n // 2))
    return "".join(r[-1] for r in sorted(s[i:] + s[:i] for i in range(n)))


def suffix_array(s, c):
    n = len(s)
    c.tick(sort_cost(n) * max(1, n // 2))
    return sorted(range(n), key=lambda i: s[i:])


def lcp_array(s, c):
    """Kasai: lcp[i] = common prefix length of the i-th and (i+1)-th smallest suffixes."""
    sa = suffix_array(s, c)
    n = len(s)
    c.tick(2 * n)
    rank, lcp, k = [0] * n, [0] * max(0, n - 1), 0
    for i, p in enumerate(sa):
        rank[p] = i
    for i in range(n):
        if rank[i] == n - 1:
            k = 0
            continue
        j = sa[rank[i] + 1]
        while i + k < n and j + k < n and s[i + k] == s[j + k]:
            k += 1
        lcp[rank[i]] = k
        k = max(0, k - 1)
    return lcp


def distinct_substrings(s, c):
    lcp = lcp_array(s, c)
    n = len(s)
    return n * (n + 1) // 2 - sum(lcp)


def longest_unique_substring(s, c):
    c.tick(2 * len(s))
    last, left, best = {}, 0, (0, 0)
    for right, ch in enumerate(s):
        if last.get(ch, -1) >= left:
            left = last[ch] + 1
        last[ch] = right
        if right + 1 - left > best[1] - best[0]:
            best = (left, right + 1)
    return s[best[0]:best[1]]


def lyndon_factorization(s, c):
    """Duval's algorithm."""
    n, i, out = len(s), 0, []
    c.tick(4 * n)
    while i < n:
        j, k = i + 1, i
        while j < n and s[k] <= s[j]:
            k = i if s[k] < s[j] else k + 1
            j += 1
        while i <= k:
            out.append(s[i:i + j - k])
            i += j - k
    return out


def huffman_bits(s, c):
    counts = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    if len(counts) < 2:
        return None
    c.tick(len(s) + 2 * len(counts) * max(1, len(counts).bit_length()))
    heap = list(counts.values())
    heapq.heapify(heap)
    total = 0
    while len(heap) > 1:
        merged = heapq.heappop(heap) + heapq.heappop(heap)
        total += merged  # every symbol below this node gets one more bit
        heapq.heappush(heap, merged)
    return total


def lz78_phrases(s, c):
    c.tick(len(s) * 2)
    seen, out, cur = set(), [], ""
    for ch in s:
        cur += ch
        if cur not in seen:
            seen.add(cur)
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def move_to_front(s, c):
    if any(not "a" <= ch <= "z" for ch in s):
        return None
    c.tick(26 * len(s))
    table, out = [chr(97 + i) for i in range(26)], []
    for ch in s:
        i = table.index(ch)
        out.append(i)
        table.insert(0, table.pop(i))
    return out


def shortest_superstring_greedy(ws, c):
    """Greedy merging: drop words inside others, then repeatedly merge the two words with the longest
    overlap (ties: the earliest pair in list order, first word's end over second word's start)."""
    words = []
    for w in ws:
        c.tick(len(ws))
        if w not in words and not any(w in v for v in ws if v != w):
            words.append(w)
    while len(words) > 1:
        best = (-1, 0, 0)
        for i, a in enumerate(words):
            for j, b in enumerate(words):
                if i != j:
                    c.tick(min(len(a), len(b)))
                    k = next((k for k in range(min(len(a), len(b)), -1, -1) if a.endswith(b[:k])), 0)
                    if k > best[0]:
                        best = (k, i, j)
        k, i, j = best
        merged = words[i] + words[j][k:]
        words = [w for t, w in enumerate(words) if t not in (i, j)] + [merged]
    return words[0] if words else None


def longest_common_substring(ws, c):
    if len(ws) < 2:
        return None
    a, b = ws[0], ws[1]
    c.tick(len(a) * len(b))
    best, prev = (0, 0), [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best[0]:
                    best = (cur[j], i)
        prev = cur
    return a[best[1] - best[0]:best[1]] or None


def justify_lines(ws, c):
    """Greedy line filling: words joined by single spaces, a new line when the next word would
    make the line longer than 12 characters."""
    if any(len(w) > 12 for w in ws):
        return None
    c.tick(sum(len(w) + 1 for w in ws))
    lines = []
    for w in ws:
        if lines and len(lines[-1]) + 1 + len(w) <= 12:
            lines[-1] += " " + w
        else:
            lines.append(w)
    return lines


SOUNDEX = {**dict.fromkeys("bfpv", "1"), **dict.fromkeys("cgjkqsxz", "2"), **dict.fromkeys("dt", "3"), "l": "4",
           **dict.fromkeys("mn", "5"), "r": "6"}


def soundex(s, c):
    s = s.lower()
    if not s or not all("a" <= ch <= "z" for ch in s):
        return None
    c.tick(len(s))
    out, last = s[0].upper(), SOUNDEX.get(s[0], "")
    for ch in s[1:]:
        code = SOUNDEX.get(ch, "")
        if code and code != last:
            out += code
        if ch not in "hw":
            last = code
    return (out + "000")[:4]


def trie_size(ws, c):
    c.tick(sum(len(w) for w in ws))
    nodes = {""}
    for w in ws:
        for k in range(1, len(w) + 1):
            nodes.add(w[:k])
    return len(nodes)


def small_alphabet(rng):
    letters = "abc"[:rng.randint(2, 3)]
    return "".join(rng.choice(letters) for _ in range(rng.randint(6, 10)))


def two_strings(rng):
    return [small_alphabet(rng), small_alphabet(rng)]


BRICKS = by_name([
    Brick("prefix_function", STR, LIST_INT, "The KMP prefix function: for each position i, the length of the longest "
          "proper prefix of s[0..i] that is also a suffix of it.", prefix_function),
    Brick("z_function", STR, LIST_INT, "The Z-function: for each position i, the length of the longest common prefix "
          "of the string and its suffix starting at i (position 0 gets the full length).", z_function),
    Brick("longest_repeated_substring", STR, STR, "The longest substring that occurs at least twice, occurrences may "
          "overlap (ties: the one occurring first; no output if no character repeats).", longest_repeated_substring,
          small_alphabet),
    Brick("minimal_rotation", STR, STR, "The alphabetically smallest rotation of the string.", minimal_rotation),
    Brick("bwt", STR, STR, "The Burrows-Wheeler transform: sort all rotations of the string and take the last "
          "character of each.", bwt),
    Brick("lcp_array", STR, LIST_INT, "Sort the suffixes alphabetically and list the length of the longest common "
          "prefix of each neighbouring pair.", lcp_array),
    Brick("distinct_substrings", STR, INT, "Count the distinct non-empty substrings.", distinct_substrings),
    Brick("longest_unique_substring", STR, STR, "The longest contiguous substring without a repeated character (the "
          "leftmost if several).", longest_unique_substring),
    Brick("lyndon_factorization", STR, LIST_STR, "Split the string into its Lyndon factorisation: the unique "
          "non-increasing sequence of words, each strictly smaller than all its proper rotations.",
          lyndon_factorization),
    Brick("huffman_bits", STR, INT, "The length in bits of the string's Huffman encoding (no output if it has fewer "
          "than 2 distinct characters).", huffman_bits),
    Brick("lz78_phrases", STR, LIST_STR, "LZ78 parsing: cut the string left to right into phrases, each the shortest "
          "prefix of the rest not seen as a phrase before (the last may repeat one).", lz78_phrases),
    Brick("move_to_front", STR, LIST_INT, "Move-to-front coding with the table a..z: output each letter's position in "
          "the table (from 0), then move it to the front.", move_to_front),
    Brick("shortest_superstring_greedy", LIST_STR, STR, "Greedy superstring: drop duplicates and words inside other "
          "words; then, until one word is left, merge the ordered pair (earliest first word, then earliest second) "
          "with the longest overlap of the first's end with the second's start, the merge going to the end of the "
          "list.", shortest_superstring_greedy),
    Brick("longest_common_substring", LIST_STR, STR, "The longest contiguous substring of the first two words "
          "(the one ending earliest in the first word if several; no output if they share no letter).",
          longest_common_substring, two_strings),
    Brick("justify_lines", LIST_STR, LIST_STR, "Fill lines greedily: words in order, separated by single spaces, "
          "starting a new line when the next word would make the line longer than 12 characters.", justify_lines),
    Brick("soundex", STR, STR, "The Soundex code: first letter in upper case, then the digits of the following "
          "consonants (bfpv 1, cgjkqsxz 2, dt 3, l 4, mn 5, r 6), a digit equal to the previous one (h and w do not "
          "separate) skipped, vowels dropped, padded with 0 or cut to 4 characters.", soundex),
    Brick("trie_size", LIST_STR, INT, "The number of nodes of a trie holding the words, the root included.",
          trie_size),
])
