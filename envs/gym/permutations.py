"""Permutations and their algorithms: lexicographic unranking and ranking, cycle structure,
the Tower of Hanoi state after k moves.

Answers are exact; list answers score (positions right / n)^5 with 1 only when all are
right (share()), -0.5 for a list of the wrong length or not a permutation.
"""
from __future__ import annotations

import math

from envs.gym.base import INT_FORMAT, UNCOUNTED, GymEnv, IntEnv, ask, int_list, matches


def kth_permutation(n: int, k: int, counter=UNCOUNTED) -> list[int]:
    """The k-th (1-based) permutation of 1..n in lexicographic order (factorial number system)."""
    counter.tick(n * n + 1)
    items, k, out = list(range(1, n + 1)), k - 1, []
    for i in range(n, 0, -1):
        f = math.factorial(i - 1)
        out.append(items.pop(k // f))
        k %= f
    return out


def permutation_rank(p: list[int], counter=UNCOUNTED) -> int:
    """1-based lexicographic rank of a permutation of 1..n."""
    n = len(p)
    counter.tick(n * n + 1)
    rank = 0
    for i, v in enumerate(p):
        smaller = sum(w < v for w in p[i + 1:])
        rank += smaller * math.factorial(n - 1 - i)
    return rank + 1


def _is_perm(p: list[int]) -> bool:
    return sorted(p) == list(range(1, len(p) + 1))


class KthPermutation(GymEnv):
    """The k-th permutation of 1..n in lexicographic order (competition combinatorics,
    factorial number system). d: n = d + 4, k uniform in [1, n!]. Reward: -1 unparsable, -0.5
    not a permutation of 1..n, else (positions right / n)^5."""

    name = "kth_permutation"
    category = "competition"
    brick_io = ("tuple[int,int]", "list[int]")
    brick_text = "the k-th permutation of 1..n in lexicographic order (k counted from 1), for the pair (n, k)"

    def size(self, difficulty):
        return difficulty + 4

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        return (n, rng.randint(1, math.factorial(n)))

    def brick_apply(self, value, counter):
        n, k = value
        if not 1 <= n <= 500 or not 1 <= k <= math.factorial(n):
            return None
        return kth_permutation(n, k, counter)

    def build(self, rng, difficulty):
        n, k = self.brick_input(rng, difficulty)
        perm = kth_permutation(n, k)
        return {"n": n, "k": k, "perm": perm}, " ".join(map(str, perm))

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"List all permutations of 1, 2, ..., {n} in lexicographic (dictionary) order, numbered from 1 "
                   f"(so permutation 1 is 1 2 ... {n}). Which permutation has number {problem['k']}?",
                   f"Give its {n} numbers separated by spaces.")

    def reward(self, problem, answer):
        p = int_list(answer)
        return matches(p, problem["perm"]) if _is_perm(p) else -0.5


class PermutationRank(IntEnv):
    """Lexicographic rank of a permutation (competition combinatorics). d: a random
    permutation of 1..n, n = d + 4. Reward: -1 unparsable, 1 exact, else 0."""

    name = "permutation_rank"
    category = "competition"
    brick_io = ("list[int]", "int")
    brick_text = "the position (from 1) of the permutation of 1..n among all permutations of 1..n in lexicographic order"

    def size(self, difficulty):
        return difficulty + 4

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        return rng.sample(range(1, n + 1), n)

    def brick_apply(self, value, counter):
        return permutation_rank(value, counter) if _is_perm(value) and len(value) <= 500 else None

    def build(self, rng, difficulty):
        p = self.brick_input(rng, difficulty)
        rank = permutation_rank(p)
        return {"perm": p, "value": rank}, str(rank)

    def prompt(self, problem):
        p = problem["perm"]
        return ask(f"List all permutations of 1, 2, ..., {len(p)} in lexicographic (dictionary) order, numbered from 1 "
                   f"(so 1 2 ... {len(p)} is number 1). What is the number of the permutation " + " ".join(map(str, p)) + "?",
                   INT_FORMAT)


class MinSwapsToSort(IntEnv):
    """Fewest swaps of two elements that sort a permutation: n minus its number of cycles
    (classical algorithms). d: a random permutation of 1..n, n = 2d + 6. Reward: -1
    unparsable, 1 exact, else 0."""

    name = "min_swaps_to_sort"
    category = "algorithms"
    brick_io = ("list[int]", "int")
    brick_text = "the fewest swaps of two entries that sort the permutation of 1..n"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        return rng.sample(range(1, n + 1), n)

    def brick_apply(self, value, counter):
        if not _is_perm(value):
            return None
        counter.tick(len(value) + 1)
        seen, cycles = [False] * len(value), 0
        for i in range(len(value)):
            if not seen[i]:
                cycles += 1
                j = i
                while not seen[j]:
                    seen[j] = True
                    j = value[j] - 1
        return len(value) - cycles

    def build(self, rng, difficulty):
        p = self.brick_input(rng, difficulty)
        v = self.brick_apply(p, UNCOUNTED)
        return {"perm": p, "value": v}, str(v)

    def prompt(self, problem):
        return ask("Permutation: " + " ".join(map(str, problem["perm"])) + "\n\nWhat is the smallest number of swaps "
                   "(each exchanges any two entries) that sorts it into increasing order?", INT_FORMAT)


def hanoi_state(n: int, k: int, counter=UNCOUNTED) -> list[int]:
    """Peg (0, 1, 2) of disks 1..n (1 smallest) after k moves of the optimal solution that moves
    the tower from peg 0 to peg 2: disk i's position follows from the bits of k."""
    counter.tick(n + 1)
    pegs = [0] * n
    src, aux, dst = 0, 1, 2
    for disk in range(n, 0, -1):  # largest first
        half = 1 << (disk - 1)
        if k >= half:  # the disk has moved: the smaller tower goes aux -> dst next
            pegs[disk - 1] = dst
            k -= half
            src, aux = aux, src
        else:
            pegs[disk - 1] = src
            aux, dst = dst, aux
    return pegs


class HanoiState(GymEnv):
    """Where each disk is after k moves of the optimal Tower of Hanoi solution (competition
    simulation; computed from the bits of k, no simulation). d: n = d + 3 disks, k uniform in
    [0, 2^n - 1]. Answer: a peg letter per disk. Reward: -1 unparsable, -0.5 wrong length,
    else (disks right / n)^5."""

    name = "hanoi_state"
    category = "competition"
    brick_io = ("tuple[int,int]", "str")
    brick_text = "the pegs (letters A, B, C, smallest disk first) of the n disks after k moves of the optimal solution moving the tower from A to C, for the pair (n, k)"

    def size(self, difficulty):
        return difficulty + 3

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        return (n, rng.randint(0, 2 ** n - 1))

    def brick_apply(self, value, counter):
        n, k = value
        if not 1 <= n <= 10_000 or not 0 <= k < 2 ** n:
            return None
        return "".join("ABC"[p] for p in hanoi_state(n, k, counter))

    def build(self, rng, difficulty):
        n, k = self.brick_input(rng, difficulty)
        letters = self.brick_apply((n, k), UNCOUNTED)
        return {"n": n, "k": k, "pegs": letters}, " ".join(letters)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"Tower of Hanoi with {n} disks numbered 1 (smallest) to {n} (largest) on pegs A, B, C. All disks "
                   f"start on peg A; the optimal solution moves them to peg C in {2 ** n - 1} moves (never a larger "
                   f"disk on a smaller one). Where is each disk after the first {problem['k']} moves of that solution?",
                   f"Give {n} letters for disks 1 to {n}, separated by spaces, e.g. <answer>A C B</answer>.")

    def reward(self, problem, answer):
        got = answer.upper().replace(",", " ").split()
        if any(g not in ("A", "B", "C") for g in got):
            raise ValueError("pegs are A, B, C")
        return matches(got, list(problem["pegs"]))
