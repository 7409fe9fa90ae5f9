"""Permutation group computations: the order of a permutation and a huge power of it, both by
cycle decomposition.

Mathematical operations in the RLVE paper's sense (rlve line 47). Rewards (our choice) are in
each class.
"""
from __future__ import annotations

import math

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, ask, int_list, matches


def cycles(perm: list[int]) -> list[list[int]]:
    seen, out = set(), []
    for s in range(len(perm)):
        if s not in seen:
            c, v = [], s
            while v not in seen:
                seen.add(v)
                c.append(v)
                v = perm[v] - 1
            out.append(c)
    return out


def _cyclic_permutation(rng, n: int, lengths_top: int) -> list[int]:
    """A permutation of 1..n with cycles of assorted lengths (so its order is large), shuffled."""
    items = rng.sample(range(n), n)
    perm, i = [0] * n, 0
    while i < n:
        k = min(n - i, rng.randint(1, lengths_top))
        block = items[i:i + k]
        for a, b in zip(block, block[1:] + block[:1]):
            perm[a] = b + 1
        i += k
    return perm


class PermutationOrder(IntEnv):
    """The order of a permutation: the least k >= 1 with P^k = identity, the lcm of its cycle
    lengths (mathematical operations). d: n = 2d + 6 points, cycles of lengths up to d + 4.
    Reward: -1 unparsable, 1 exact, else 0. Its own problem: a group-theoretic invariant of the
    cycle structure; min_swaps_to_sort counts n minus the number of cycles instead."""

    name = "permutation_order"
    category = "math"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        perm = _cyclic_permutation(rng, self.size(difficulty), difficulty + 4)
        value = math.lcm(*(len(c) for c in cycles(perm)))
        return {"perm": perm, "value": value}, str(value)

    def prompt(self, problem):
        perm = problem["perm"]
        return ask(f"The permutation P of 1..{len(perm)} maps i to the i-th number of: {' '.join(map(str, perm))}. "
                   "What is the smallest k >= 1 such that applying P k times gives the identity?", INT_FORMAT)


class PermutationPower(GymEnv):
    """P^k for a huge k, P a permutation in one-line notation (mathematical operations: rotate
    each cycle by k mod its length). d: n = 2d + 6 points, cycles of lengths up to d + 4, k with
    d + 6 digits. Answer: P^k in one-line notation. Reward: -1 unparsable, -0.5 wrong length,
    else (positions right / n)^5 (matches()), 1 only for P^k. Its own problem: the answer is a
    permutation computed by modular arithmetic on each cycle; permutation_order asks for the
    period only, kth_permutation ranks permutations."""

    name = "permutation_power"
    category = "math"

    def size(self, difficulty):
        return 2 * difficulty + 6

    def build(self, rng, difficulty):
        perm = _cyclic_permutation(rng, self.size(difficulty), difficulty + 4)
        k = rng.randint(10 ** (difficulty + 5), 10 ** (difficulty + 6))
        out = [0] * len(perm)
        for c in cycles(perm):
            for i, v in enumerate(c):
                out[v] = c[(i + k) % len(c)] + 1
        return {"perm": perm, "k": k, "power": out}, " ".join(map(str, out))

    def prompt(self, problem):
        perm = problem["perm"]
        return ask(f"The permutation P of 1..{len(perm)} maps i to the i-th number of: {' '.join(map(str, perm))}. "
                   f"Compute P^{problem['k']} (P applied {problem['k']} times).",
                   f"Give P^k in the same notation: {len(perm)} numbers, the image of 1, 2, ..., separated by "
                   "spaces, e.g. <answer>3 1 2</answer>.")

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["power"], 5)
