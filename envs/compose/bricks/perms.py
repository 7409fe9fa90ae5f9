"""Permutations (perm: a list holding 0..n-1 once each): composition, cycles, codes, sorting by
reversals. Inversion counting comes from the gym (over any list of ints)."""
from __future__ import annotations

from envs.compose.brick import UNCOUNTED, Brick, by_name
from envs.compose.bricks.strings import sort_cost
from envs.compose.types import BOOL, LIST_INT, PERM
from envs.compose.samplers import sample_perm


def argsort(xs, c):
    c.tick(sort_cost(len(xs)))
    return sorted(range(len(xs)), key=lambda i: (xs[i], i))


def perm_inverse(p, c):
    c.tick(len(p))
    inv = [0] * len(p)
    for i, v in enumerate(p):
        inv[v] = i
    return inv


def perm_square(p, c):
    c.tick(len(p))
    return [p[v] for v in p]


def cycle_lengths(p, c):
    c.tick(len(p) + sort_cost(len(p)))
    seen, out = [False] * len(p), []
    for s in range(len(p)):
        n = 0
        while not seen[s]:
            seen[s] = True
            s = p[s]
            n += 1
        if n:
            out.append(n)
    return sorted(out, reverse=True)


def lehmer_code(p, c):
    n = len(p)
    c.tick(n * (n - 1) // 2)
    return [sum(p[j] < p[i] for j in range(i + 1, n)) for i in range(n)]


def from_lehmer(code, c):
    n = len(code)
    if any(not 0 <= x < n - i for i, x in enumerate(code)):
        return None
    c.tick(n * n)
    left, out = list(range(n)), []
    for x in code:
        out.append(left.pop(x))
    return out


def next_permutation(p, c):
    n = len(p)
    c.tick(2 * n)
    i = n - 2
    while i >= 0 and p[i] > p[i + 1]:
        i -= 1
    if i < 0:
        return None
    j = n - 1
    while p[j] < p[i]:
        j -= 1
    q = list(p)
    q[i], q[j] = q[j], q[i]
    q[i + 1:] = q[i + 1:][::-1]
    return q


def pancake_flips(p, c):
    """Pancake sort: for size k = n..2, flip the largest of the first k to the front, then flip the
    first k; flips of size 1 are skipped. The flip sizes, in order."""
    q, flips = list(p), []
    for k in range(len(q), 1, -1):
        c.tick(3 * k)
        i = q.index(max(q[:k]))
        if i == k - 1:
            continue
        if i > 0:
            q[:i + 1] = q[:i + 1][::-1]
            flips.append(i + 1)
        q[:k] = q[:k][::-1]
        flips.append(k)
    return flips


def stack_sortable(p, c):
    c.tick(2 * len(p))
    stack, want = [], 0
    for v in p:
        while stack and stack[-1] == want:
            stack.pop()
            want += 1
        if stack and stack[-1] < v:
            return False
        stack.append(v)
    return True


def is_involution(p, c):
    c.tick(len(p))
    return all(p[v] == i for i, v in enumerate(p))


def lehmer_sample(rng):
    return lehmer_code(sample_perm(rng), UNCOUNTED)


BRICKS = by_name([
    Brick("argsort", LIST_INT, PERM, "List the positions 0..n-1 ordered by their values, smallest first (equal values: "
          "earlier position first).", argsort),
    Brick("perm_inverse", PERM, PERM, "The inverse permutation q, with q[p[i]] = i.", perm_inverse),
    Brick("perm_square", PERM, PERM, "The permutation composed with itself: position i holds p[p[i]].", perm_square),
    Brick("cycle_lengths", PERM, LIST_INT, "Split the permutation into cycles (i -> p[i]) and list the cycle lengths "
          "from longest to shortest, fixed points as cycles of length 1.", cycle_lengths),
    Brick("lehmer_code", PERM, LIST_INT, "The Lehmer code: for each position, how many later entries are smaller.",
          lehmer_code),
    Brick("from_lehmer", LIST_INT, PERM, "Decode a Lehmer code: start with the list 0..n-1 and, for each code entry "
          "in turn, take out the element at that index (no output unless entry i is between 0 and n-1-i).",
          from_lehmer, lehmer_sample),
    Brick("next_permutation", PERM, PERM, "The next permutation in lexicographic order (no output for the last one).",
          next_permutation),
    Brick("pancake_flips", PERM, LIST_INT, "Pancake-sort the list (a flip of size k reverses the first k entries): for "
          "k = n down to 2, if the largest of the first k is not at position k-1, flip it to the front (unless it is "
          "there) and then flip size k; list the flip sizes in order.", pancake_flips),
    Brick("stack_sortable", PERM, BOOL, "Can one stack sort the permutation (push in order, pop whenever the top is "
          "the next value wanted)?", stack_sortable),
    Brick("is_involution", PERM, BOOL, "Does applying the permutation twice give the identity?", is_involution),
])
