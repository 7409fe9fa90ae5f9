"""Competition counting: lattice paths, inversions, necklaces, tilings, tree independent sets,
subsequences, palindromes, bracket completions, bounded compositions, lattice points.

Every count is an exact Python integer (no modulus), graded by CountEnv: (min(x, y) /
max(x, y))^10, exact at equality, -1 unparsable or negative (our choice, after the paper's
formula for BubbleSwapLowerBound_PermutationCounting, rlve line 43). Each generator computes
the count with a polynomial DP or a closed formula; the brick hooks expose the same function to
RACES where the input is one typed value.
"""
from __future__ import annotations

import math

from envs.gym.base import COUNT_FORMAT, UNCOUNTED, CountEnv, Retry, ask


class DyckPathsBoundedHeight(CountEnv):
    """Mountain ranges of bounded height (competition counting, ballot DP). d: n uniform in
    [d + 4, d + 7] up-steps, height bound h uniform in [1, n]; DP over (step, height), O(n h)."""

    name = "dyck_paths_bounded_height"
    brick_io = ("tuple[int,int]", "int")
    brick_text = "the number of paths of n up-steps and n down-steps from height 0 that never go below 0 or above h, for the pair (n, h)"

    def size(self, difficulty):
        return difficulty + 4

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty) + rng.randint(0, 3)
        return (n, rng.randint(1, n))

    def brick_apply(self, value, counter):
        n, h = value
        if n < 0 or h < 0 or n > 2000 or h > 2000:
            return None
        counter.tick(2 * n * (h + 1))
        ways = [1] + [0] * h
        for _ in range(2 * n):
            ways = [(ways[k - 1] if k else 0) + (ways[k + 1] if k < h else 0) for k in range(h + 1)]
        return ways[0]

    def build(self, rng, difficulty):
        n, h = self.brick_input(rng, difficulty)
        count = self.brick_apply((n, h), UNCOUNTED)
        return {"n": n, "h": h, "count": count}, str(count)

    def prompt(self, problem):
        n, h = problem["n"], problem["h"]
        return ask(f"A path starts at height 0 and takes {2 * n} steps, each +1 (up) or -1 (down), and ends at "
                   f"height 0. It may never go below 0 or above {h}. How many such paths are there?", COUNT_FORMAT)


class PermutationsWithKInversions(CountEnv):
    """Permutations of 1..n with exactly k inversions (competition counting, Mahonian numbers).
    d: n uniform in [d + 4, d + 7], k uniform in [0, n(n-1)/2]; DP with prefix sums, O(n k)."""

    name = "permutations_with_k_inversions"
    brick_io = ("tuple[int,int]", "int")
    brick_text = "the number of permutations of 1..n with exactly k inversions, for the pair (n, k)"

    def size(self, difficulty):
        return difficulty + 4

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty) + rng.randint(0, 3)
        return (n, rng.randint(0, n * (n - 1) // 2))

    def brick_apply(self, value, counter):
        n, k = value
        if n < 1 or k < 0 or n > 500 or k > n * (n - 1) // 2:
            return None if n > 500 or n < 1 else 0
        counter.tick(n * (k + 1))
        ways = [1] + [0] * k
        for m in range(2, n + 1):  # inserting m adds 0..m-1 inversions
            prefix = [0]
            for w in ways:
                prefix.append(prefix[-1] + w)
            ways = [prefix[j + 1] - prefix[max(0, j - m + 1)] for j in range(k + 1)]
        return ways[k]

    def build(self, rng, difficulty):
        n, k = self.brick_input(rng, difficulty)
        count = self.brick_apply((n, k), UNCOUNTED)
        return {"n": n, "k": k, "count": count}, str(count)

    def prompt(self, problem):
        return ask(f"An inversion of a permutation p is a pair of positions i < j with p_i > p_j. How many "
                   f"permutations of 1, 2, ..., {problem['n']} have exactly {problem['k']} inversions?", COUNT_FORMAT)


def _divisors(n: int) -> list[int]:
    small = [i for i in range(1, math.isqrt(n) + 1) if n % i == 0]
    return sorted(set(small + [n // i for i in small]))


def _phi(n: int) -> int:
    out, m, p = n, n, 2
    while p * p <= m:
        if m % p == 0:
            while m % p == 0:
                m //= p
            out -= out // p
        p += 1
    return out - out // m if m > 1 else out


class NecklaceCounting(CountEnv):
    """Necklaces up to rotation, or bracelets up to rotation and reflection (competition
    counting, Burnside's lemma). d: n uniform in [d + 4, 2d + 8] beads, k uniform in
    [2, 3 + d // 3] colours, necklace or bracelet at random; necklaces number
    N = (1/n) sum over t | n of phi(t) k^(n/t), bracelets (N + R) / 2 with R = k^((n+1)/2) for
    odd n and (k + 1) k^(n/2) / 2 for even n."""

    name = "necklace_counting"
    brick_io = ("tuple[int,int]", "int")
    brick_text = "the number of necklaces of n beads in k colours, two being the same when one is a rotation of the other, for the pair (n, k)"

    def size(self, difficulty):
        return difficulty + 4

    def brick_input(self, rng, difficulty):
        return (rng.randint(self.size(difficulty), 2 * self.size(difficulty)), rng.randint(2, 3 + difficulty // 3))

    def brick_apply(self, value, counter):
        n, k = value
        if not 1 <= n <= 10 ** 6 or not 1 <= k <= 10 ** 3:
            return None
        counter.tick(math.isqrt(n) + n.bit_length())
        return sum(_phi(t) * k ** (n // t) for t in _divisors(n)) // n

    def build(self, rng, difficulty):
        n, k = self.brick_input(rng, difficulty)
        count = self.brick_apply((n, k), UNCOUNTED)
        bracelet = rng.random() < 0.5
        if bracelet:
            mirror = k ** ((n + 1) // 2) if n % 2 else (k + 1) * k ** (n // 2) // 2
            count = (count + mirror) // 2
        return {"n": n, "k": k, "bracelet": bracelet, "count": count}, str(count)

    def prompt(self, problem):
        same = "one can be rotated or turned over into the other" if problem["bracelet"] else \
            "one can be rotated into the other (turning it over is not allowed)"
        return ask(f"A necklace has {problem['n']} beads on a circle, each bead one of {problem['k']} colours. Two "
                   f"necklaces are the same if {same}. How many different necklaces are there?", COUNT_FORMAT)


class DominoTilingCounting(CountEnv):
    """Domino tilings of a board with blocked cells (competition counting, broken-profile DP).
    d: m = 2 + min(6, d // 6) rows, n = d + 3 or d + 4 columns (even), the cells of about 15% of the dominoes of
    a random tiling blocked; DP over columns with an m-bit profile, O(n m 2^m)."""

    name = "domino_tiling_counting"
    brick_io = ("grid[int]", "int")
    brick_text = "the number of ways to tile the cells marked 0 of the grid with dominoes (cells marked 1 are blocked)"

    def size(self, difficulty):
        return (2 + min(6, difficulty // 6)) * 2 * ((difficulty + 4) // 2)

    def brick_input(self, rng, difficulty):
        """A random domino tiling (greedy, column by column), then about 15% of its dominoes
        blocked: the free cells stay tileable (count >= 1) and the board varies from seed to seed."""
        m, n = 2 + min(6, difficulty // 6), 2 * ((difficulty + 4) // 2)  # n even: always tileable
        for _ in range(100):
            covered = [[-1] * n for _ in range(m)]
            dominoes, dead = [], False
            for c in range(n):
                for r in range(m):
                    if covered[r][c] >= 0:
                        continue
                    moves = [(dr, dc) for dr, dc in ((1, 0), (0, 1))
                             if r + dr < m and c + dc < n and covered[r + dr][c + dc] < 0]
                    if not moves:
                        dead = True
                        break
                    dr, dc = rng.choice(moves)
                    covered[r][c] = covered[r + dr][c + dc] = len(dominoes)
                    dominoes.append(rng.random() < 0.15)
                if dead:
                    break
            if not dead:
                return [[int(dominoes[covered[r][c]]) for c in range(n)] for r in range(m)]
        return [[0] * n for _ in range(m)]  # (never seen) the free board, tiled by horizontal dominoes

    def brick_apply(self, value, counter):
        m, n = len(value), len(value[0])
        if m > 12:
            return None
        counter.tick(n * m * (1 << m))
        # cells in column-major order; state bit r set = cell (r, current column) already covered
        ways = {0: 1}
        for c in range(n):
            for r in range(m):
                nxt: dict[int, int] = {}
                for state, w in ways.items():
                    bit = 1 << r
                    below_free = r + 1 < m and not value[r + 1][c] and not state & (bit << 1)
                    if value[r][c] or state & bit:  # blocked or covered: pass on, nothing sticks out
                        if value[r][c] and state & bit:
                            continue
                        key = state & ~bit
                        nxt[key] = nxt.get(key, 0) + w
                        continue
                    if c + 1 < n and not value[r][c + 1]:  # horizontal: sticks into the next column
                        nxt[state | bit] = nxt.get(state | bit, 0) + w
                    if below_free:  # vertical: covers (r + 1, c) now
                        key = state | (bit << 1)
                        nxt[key] = nxt.get(key, 0) + w
                ways = nxt
            # moving to the next column: bits set now mean "covered by a horizontal domino"
        return ways.get(0, 0)

    def build(self, rng, difficulty):
        grid = self.brick_input(rng, difficulty)
        count = self.brick_apply(grid, UNCOUNTED)
        return {"grid": ["".join("#" if x else "." for x in row) for row in grid], "count": count}, str(count)

    def prompt(self, problem):
        return ask("A board ('.' free, '#' blocked):\n" + "\n".join(problem["grid"]) + "\n\nIn how many ways can "
                   "all free cells be covered by 1x2 dominoes (horizontal or vertical), each domino covering two "
                   "free cells and no two overlapping?", COUNT_FORMAT)


class TreeIndependentSetsCounting(CountEnv):
    """Independent sets of a tree, the empty set included (competition counting, tree DP).
    d: n = 2d + 5 vertices, a random tree."""

    name = "tree_independent_sets_counting"
    brick_io = ("list[int]", "int")
    brick_text = "the number of independent sets (the empty set included) of the tree in which vertex i + 1 has parent p[i] (p[i] <= i), for the list p."

    def size(self, difficulty):
        return 2 * difficulty + 5

    def brick_input(self, rng, difficulty):
        return [rng.randrange(v) for v in range(1, self.size(difficulty))]

    def brick_apply(self, value, counter):
        if any(not 0 <= p <= i for i, p in enumerate(value)):
            return None
        n = len(value) + 1
        counter.tick(n)
        take, skip = [1] * n, [1] * n
        for v in range(n - 1, 0, -1):  # children have larger numbers than their parents
            p = value[v - 1]
            take[p] *= skip[v]
            skip[p] *= take[v] + skip[v]
        return take[0] + skip[0]

    def build(self, rng, difficulty):
        parents = self.brick_input(rng, difficulty)
        count = self.brick_apply(parents, UNCOUNTED)
        n = len(parents) + 1
        perm = rng.sample(range(n), n)  # relabel so the numbering does not show the shape
        edges = [(perm[v], perm[parents[v - 1]]) for v in range(1, n)]
        rng.shuffle(edges)
        return {"n": n, "edges": edges, "count": count}, str(count)

    def prompt(self, problem):
        n = problem["n"]
        return ask(f"A tree has {n} vertices numbered 0 to {n - 1} and edges " +
                   ", ".join(f"{u}-{v}" for u, v in problem["edges"]) +
                   ".\n\nHow many sets of vertices contain no two vertices joined by an edge? (The empty set counts.)",
                   COUNT_FORMAT)


class LisCounting(CountEnv):
    """Number of longest strictly increasing subsequences, as sets of positions (competition
    counting, O(n^2) DP). d: n = d + 6 values in [0, n]."""

    name = "lis_counting"
    brick_io = ("list[int]", "int")
    brick_text = "the number of longest strictly increasing subsequences of the list, counted by positions."

    def size(self, difficulty):
        return difficulty + 6

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty)
        return [rng.randint(0, n) for _ in range(n)]

    def brick_apply(self, value, counter):
        n = len(value)
        if n == 0:
            return 0
        counter.tick(n * n)
        best, ways = [1] * n, [1] * n
        for i in range(n):
            for j in range(i):
                if value[j] < value[i]:
                    if best[j] + 1 > best[i]:
                        best[i], ways[i] = best[j] + 1, ways[j]
                    elif best[j] + 1 == best[i]:
                        ways[i] += ways[j]
        top = max(best)
        return sum(w for b, w in zip(best, ways) if b == top)

    def build(self, rng, difficulty):
        a = self.brick_input(rng, difficulty)
        count = self.brick_apply(a, UNCOUNTED)
        return {"array": a, "count": count}, str(count)

    def prompt(self, problem):
        return ask("Sequence: " + " ".join(map(str, problem["array"])) + "\n\nLet L be the length of its longest "
                   "strictly increasing subsequence. How many strictly increasing subsequences of length L are "
                   "there? (Subsequences at different positions count separately even if their values agree.)",
                   COUNT_FORMAT)


class DistinctSubsequencesCounting(CountEnv):
    """Distinct non-empty subsequences of a string (competition counting, O(n) DP with the last
    occurrence of each letter). d: length 2d + 6 over ABC."""

    name = "distinct_subsequences_counting"
    brick_io = ("str", "int")
    brick_text = "the number of distinct non-empty subsequences of the string."

    def size(self, difficulty):
        return 2 * difficulty + 6

    def brick_input(self, rng, difficulty):
        return "".join(rng.choice("ABC") for _ in range(self.size(difficulty)))

    def brick_apply(self, value, counter):
        counter.tick(len(value) + 1)
        total, last = 1, {}  # total counts the empty subsequence too
        for ch in value:
            new = 2 * total - last.get(ch, 0)
            last[ch] = total
            total = new
        return total - 1

    def build(self, rng, difficulty):
        s = self.brick_input(rng, difficulty)
        count = self.brick_apply(s, UNCOUNTED)
        return {"s": s, "count": count}, str(count)

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nHow many different non-empty strings can be obtained by deleting some "
                   "characters of S (keeping the order of the rest)? Equal strings obtained in different ways "
                   "count once.", COUNT_FORMAT)


class PalindromicSubstringsCounting(CountEnv):
    """Palindromic substrings counted by position (competition counting, centre expansion).
    d: length 3d + 8 over AB."""

    name = "palindromic_substrings_counting"
    brick_io = ("str", "int")
    brick_text = "the number of palindromic substrings of the string, counted by position (every single character counts)"

    def size(self, difficulty):
        return 3 * difficulty + 8

    def brick_input(self, rng, difficulty):
        return "".join(rng.choice("AB") for _ in range(self.size(difficulty)))

    def brick_apply(self, value, counter):
        n, total = len(value), 0
        counter.tick(n + 1)
        for centre in range(2 * n - 1):
            lo, hi = centre // 2, centre // 2 + centre % 2
            while lo >= 0 and hi < n and value[lo] == value[hi]:
                counter.tick()
                total += 1
                lo, hi = lo - 1, hi + 1
        return total

    def build(self, rng, difficulty):
        s = self.brick_input(rng, difficulty)
        count = self.brick_apply(s, UNCOUNTED)
        return {"s": s, "count": count}, str(count)

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nHow many pairs (i, j) with i <= j are there such that the substring of S "
                   "from position i to position j (inclusive) reads the same forwards and backwards?", COUNT_FORMAT)


class BracketCompletionCounting(CountEnv):
    """Ways to fill '?' in a bracket string so that it is balanced (competition counting, DP
    over the open count, O(n^2)). d: length 2(d + 3); about half of the characters are '?',
    the rest copied from a random balanced string."""

    name = "bracket_completion_counting"
    brick_io = ("str", "int")
    brick_text = "the number of ways to replace each '?' of the string by '(' or ')' so that the brackets are balanced."

    def size(self, difficulty):
        return 2 * (difficulty + 3)

    def brick_input(self, rng, difficulty):
        n = self.size(difficulty) // 2
        seq, opened, closed = [], 0, 0
        while len(seq) < 2 * n:  # a random balanced string, then half its characters hidden
            if opened < n and (opened == closed or rng.random() < 0.5):
                seq.append("(")
                opened += 1
            else:
                seq.append(")")
                closed += 1
        return "".join("?" if rng.random() < 0.5 else ch for ch in seq)

    def brick_apply(self, value, counter):
        if any(ch not in "()?" for ch in value):
            return None
        n = len(value)
        counter.tick(n * n + 1)
        ways = [1] + [0] * n  # ways[k]: prefixes with k unmatched '('
        for ch in value:
            nxt = [0] * (n + 1)
            for k, w in enumerate(ways):
                if w:
                    if ch != ")" and k < n:
                        nxt[k + 1] += w
                    if ch != "(" and k > 0:
                        nxt[k - 1] += w
            ways = nxt
        return ways[0]

    def build(self, rng, difficulty):
        s = self.brick_input(rng, difficulty)
        count = self.brick_apply(s, UNCOUNTED)
        return {"s": s, "count": count}, str(count)

    def prompt(self, problem):
        return ask(f"S = {problem['s']}\n\nReplace every '?' in S by '(' or ')'. In how many ways is the result a "
                   "balanced bracket sequence (every prefix has at least as many '(' as ')', and the totals are "
                   "equal)?", COUNT_FORMAT)


class BoundedCompositionsCounting(CountEnv):
    """Solutions of x_1 + ... + x_k = S with 0 <= x_i <= c_i (competition counting, knapsack
    DP with prefix sums, O(k S)). d: k = d // 2 + 3 variables, caps in [1, 3d + 5], S uniform in
    [0, sum of caps]."""

    name = "bounded_compositions_counting"

    def size(self, difficulty):
        return difficulty // 2 + 3

    def build(self, rng, difficulty):
        caps = [rng.randint(1, 3 * difficulty + 5) for _ in range(self.size(difficulty))]
        target = rng.randint(0, sum(caps))
        ways = [1] + [0] * target
        for c in caps:
            prefix = [0]
            for w in ways:
                prefix.append(prefix[-1] + w)
            ways = [prefix[s + 1] - prefix[max(0, s - c)] for s in range(target + 1)]
        return {"caps": caps, "target": target, "count": ways[target]}, str(ways[target])

    def prompt(self, problem):
        caps = problem["caps"]
        bounds = ", ".join(f"0 <= x{i + 1} <= {c}" for i, c in enumerate(caps))
        return ask(f"How many tuples of integers (x1, ..., x{len(caps)}) satisfy x1 + ... + x{len(caps)} = "
                   f"{problem['target']} with {bounds}?", COUNT_FORMAT)


class LatticePointsInCircle(CountEnv):
    """Integer points (x, y) with x^2 + y^2 <= r^2 (competition counting, one isqrt per row, O(r)).
    d: r uniform in [10(d + 1), 20(d + 1)]."""

    name = "lattice_points_in_circle"
    brick_io = ("int", "int")
    brick_text = "the number of integer points (x, y) with x^2 + y^2 <= r^2, for the radius r."

    def size(self, difficulty):
        return 10 * (difficulty + 1)

    def brick_input(self, rng, difficulty):
        return rng.randint(self.size(difficulty), 2 * self.size(difficulty))

    def brick_apply(self, value, counter):
        if not 0 <= value <= 10 ** 7:
            return None
        counter.tick(value + 1)
        return sum(2 * math.isqrt(value * value - x * x) + 1 for x in range(-value, value + 1))

    def build(self, rng, difficulty):
        r = self.brick_input(rng, difficulty)
        count = self.brick_apply(r, UNCOUNTED)
        return {"r": r, "count": count}, str(count)

    def prompt(self, problem):
        r = problem["r"]
        return ask(f"How many points (x, y) with integer coordinates satisfy x^2 + y^2 <= {r * r} (that is, lie in or "
                   f"on the circle of radius {r} around the origin)?", COUNT_FORMAT)
