"""Programming-competition ranking and unranking: the k-th object of a combinatorial order.

Reward: -1 unparsable, 1 for exactly the right object (each order has one k-th element), else 0.

What makes each its own problem: kth_permutation and permutation_rank (existing) walk the
factorial number system. Here the orders and their counting tables differ: k-subsets in
lexicographic order (binomial coefficients), balanced bracket sequences (ballot numbers of
completions), the reflected binary Gray code (prefix XOR of the bits) and the lexicographic order
of the numbers 1..n as strings (subtree sizes of the denary trie).
"""
from __future__ import annotations

import math

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, ask, int_list


class KthCombination(GymEnv):
    """The k-th (1-based) k-element subset of {1..n} in lexicographic order of the increasing
    lists. d: n = d + 6, subset size in [2, n - 2]. Reward: -1 unparsable, 1 exact, else 0."""

    name = "kth_combination"
    category = "competition"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        r = rng.randint(2, n - 2)
        k = rng.randint(1, math.comb(n, r))
        left, out, lo = k - 1, [], 1
        for slot in range(r, 0, -1):  # smallest first element whose block contains the rank
            while math.comb(n - lo, slot - 1) <= left:
                left -= math.comb(n - lo, slot - 1)
                lo += 1
            out.append(lo)
            lo += 1
        return {"n": n, "r": r, "k": k, "out": out}, " ".join(map(str, out))

    def prompt(self, problem):
        return ask(f"List all {problem['r']}-element subsets of {{1, ..., {problem['n']}}}, each written as an "
                   "increasing list, in lexicographic order (so {1, 2, ...} comes first). Which subset is number "
                   f"{problem['k']} in this list (counting from 1)?", "Give its elements in increasing order "
                   "separated by spaces, e.g. <answer>1 4 5</answer>.")

    def reward(self, problem, answer):
        return 1.0 if int_list(answer) == problem["out"] else 0.0


class KthBalancedBrackets(GymEnv):
    """The k-th (1-based) balanced bracket sequence of length 2n in lexicographic order with
    '(' < ')'. d: n = d + 3. Reward: -1 for characters other than brackets, 1 exact, else 0."""

    name = "kth_balanced_brackets"
    category = "competition"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        k = rng.randint(1, math.comb(2 * n, n) // (n + 1))
        ways = _completions(2 * n)
        out, depth, left = [], 0, k - 1
        for pos in range(2 * n):
            rest = 2 * n - pos - 1
            opened = ways[rest][depth + 1] if depth + 1 <= rest else 0
            if left < opened:
                out.append("(")
                depth += 1
            else:
                left -= opened
                out.append(")")
                depth -= 1
        out = "".join(out)
        return {"n": n, "k": k, "out": out}, out

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"List all balanced bracket sequences with {n} pairs of brackets in lexicographic order, where '(' "
                   f"comes before ')' (so {'(' * n}{')' * n} is first). Which sequence is number {problem['k']} in "
                   "this list (counting from 1)?", "Give the sequence without spaces, e.g. <answer>(())()</answer>.")

    def reward(self, problem, answer):
        text = "".join(answer.split())
        if any(c not in "()" for c in text):
            raise ValueError("not a bracket sequence")
        return 1.0 if text == problem["out"] else 0.0


def _completions(m: int) -> list[list[int]]:
    """ways[r][h]: strings of r brackets that close depth h without going below 0."""
    ways = [[1] + [0] * (m + 1)]
    for r in range(1, m + 1):
        prev = ways[-1]
        ways.append([(prev[h - 1] if h else 0) + prev[h + 1] for h in range(m + 1)] + [0])
    return ways


class GrayCodeRank(IntEnv):
    """The position (from 0) of a bit string in the reflected binary Gray code of its length:
    bit i of the rank is the XOR of the code's first i + 1 bits. d: d + 4 bits. Reward: -1
    unparsable, 1 exact, else 0."""

    name = "gray_code_rank"
    category = "competition"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        code = "".join(rng.choice("01") for _ in range(self.size(difficulty)))
        rank = int(gray_decode(code), 2)
        return {"code": code, "value": rank}, str(rank)

    def explain(self, problem):
        """Bit i of the rank is the XOR of the code's first i + 1 bits."""
        bits = gray_decode(problem["code"])
        return f"prefix XORs of {problem['code']}: {bits}\nbinary {bits} = {problem['value']}"

    def prompt(self, problem):
        m = len(problem["code"])
        return ask(f"The reflected binary Gray code of length {m} lists all {m}-bit strings so that neighbours differ "
                   f"in one bit: G(0) = {'0' * m}, and G(i) = i XOR (i >> 1) written with {m} bits. For which i is "
                   f"G(i) = {problem['code']}?", INT_FORMAT)


def gray_decode(code: str) -> str:
    out, acc = [], 0
    for c in code:
        acc ^= int(c)
        out.append(str(acc))
    return "".join(out)


class KthLexicographicNumber(IntEnv):
    """The k-th smallest of 1..n when the numbers are compared as decimal strings (10 < 9).
    d: n with d // 2 + 3 digits. Reward: -1 unparsable, 1 exact, else 0."""

    name = "kth_lexicographic_number"
    category = "competition"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        digits = self.size(difficulty)
        n = rng.randint(10 ** (digits - 1), 10 ** digits - 1)
        k = rng.randint(1, n)
        cur, left = 1, k - 1
        while left:
            below = _trie_count(cur, n)  # numbers with prefix cur
            if below <= left:
                left -= below
                cur += 1
            else:
                left -= 1
                cur *= 10
        return {"n": n, "k": k, "value": cur}, str(cur)

    def prompt(self, problem):
        return ask(f"Sort the integers 1, 2, ..., {problem['n']} as strings of decimal digits, in dictionary order "
                   f"(so 1, 10, 100, ... come before 2). Which number is in position {problem['k']} (counting from "
                   "1)?", INT_FORMAT)


def _trie_count(prefix: int, n: int) -> int:
    count, lo, hi = 0, prefix, prefix
    while lo <= n:
        count += min(hi, n) - lo + 1
        lo, hi = lo * 10, hi * 10 + 9
    return count
