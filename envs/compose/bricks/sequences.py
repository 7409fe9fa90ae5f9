"""Algorithms over sequences of ints: monotonic stacks and queues, dynamic programming, sorting
passes, two pointers, greedy scheduling and cache simulation. (The gym supplies LIS length, maximum
subarray, inversions, subset sums, partition, bin packing, multiprocessor scheduling and Nim.)"""
from __future__ import annotations

import math
from collections import Counter as Tally, deque

from envs.compose.brick import Brick, by_name
from envs.compose.bricks.strings import sort_cost
from envs.compose.types import INT, LIST_INT


def next_greater(xs, c):
    c.tick(2 * len(xs))
    out, stack = [-1] * len(xs), []
    for i, v in enumerate(xs):
        while stack and xs[stack[-1]] < v:
            out[stack.pop()] = v
        stack.append(i)
    return out


def sliding_max_3(xs, c):
    if len(xs) < 3:
        return None
    c.tick(2 * len(xs))
    out, window = [], deque()
    for i, v in enumerate(xs):
        while window and xs[window[-1]] <= v:
            window.pop()
        window.append(i)
        if window[0] <= i - 3:
            window.popleft()
        if i >= 2:
            out.append(xs[window[0]])
    return out


def mode(xs, c):
    if not xs:
        return None
    c.tick(2 * len(xs))
    counts = Tally(xs)
    return min(counts, key=lambda v: (-counts[v], v))


def median_low(xs, c):
    if not xs:
        return None
    c.tick(sort_cost(len(xs)))
    return sorted(xs)[(len(xs) - 1) // 2]


def lomuto_partition(xs, c):
    if len(xs) < 2:
        return None
    c.tick(len(xs))
    a, pivot, i = list(xs), xs[-1], 0
    for j in range(len(a) - 1):
        if a[j] <= pivot:
            a[i], a[j] = a[j], a[i]
            i += 1
    a[i], a[-1] = a[-1], a[i]
    return a


def bubble_pass(xs, c):
    c.tick(len(xs))
    a = list(xs)
    for i in range(len(a) - 1):
        if a[i] > a[i + 1]:
            a[i], a[i + 1] = a[i + 1], a[i]
    return a


def heapify(xs, c):
    n = len(xs)
    c.tick(2 * n)
    a = list(xs)
    for i in range(n // 2 - 1, -1, -1):
        j = i
        while True:
            small = j
            for k in (2 * j + 1, 2 * j + 2):
                if k < n and a[k] < a[small]:
                    small = k
            if small == j:
                break
            a[j], a[small] = a[small], a[j]
            j = small
    return a


def trapped_water(xs, c):
    c.tick(len(xs))
    left, right, lmax, rmax, water = 0, len(xs) - 1, 0, 0, 0
    while left < right:
        if xs[left] <= xs[right]:
            lmax = max(lmax, xs[left])
            water += lmax - xs[left]
            left += 1
        else:
            rmax = max(rmax, xs[right])
            water += rmax - xs[right]
            right -= 1
    return water


def largest_histogram_rectangle(xs, c):
    if min(xs, default=0) < 0:
        return None
    c.tick(2 * len(xs))
    best, stack = 0, []
    for i, h in enumerate(list(xs) + [0]):
        start = i
        while stack and stack[-1][1] >= h:
            start, top = stack.pop()
            best = max(best, top * (i - start))
        stack.append((start, h))
    return best


def min_jumps(xs, c):
    """From index 0, a jump from i goes up to xs[i] places right; the fewest jumps to the last index."""
    c.tick(len(xs))
    jumps, end, reach = 0, 0, 0
    for i in range(len(xs) - 1):
        if i > reach:
            return None
        reach = max(reach, i + xs[i])
        if i == end:
            jumps, end = jumps + 1, reach
    return jumps if reach >= len(xs) - 1 else None


def house_robber(xs, c):
    c.tick(len(xs))
    take = skip = 0
    for v in xs:
        take, skip = skip + v, max(take, skip)
    return max(take, skip)


def longest_zigzag(xs, c):
    c.tick(len(xs))
    up = down = 1
    for a, b in zip(xs, xs[1:]):
        if b > a:
            up = down + 1
        elif b < a:
            down = up + 1
    return max(up, down) if xs else None


def subarrays_divisible_by_5(xs, c):
    c.tick(len(xs))
    seen, total, count = Tally({0: 1}), 0, 0
    for v in xs:
        total = (total + v) % 5
        count += seen[total]
        seen[total] += 1
    return count


def pairs_summing_to_20(xs, c):
    c.tick(len(xs))
    seen, count = Tally(), 0
    for v in xs:
        count += seen[20 - v]
        seen[v] += 1
    return count


def distinct_subset_sums(xs, c):
    if min(xs, default=0) < 0 or sum(xs) > 400:
        return None
    c.tick(len(xs) * (sum(xs) // 8 + 1))  # a bitset shift per number, 8 sums per word-step
    sums = 1
    for v in xs:
        sums |= sums << v
    return bin(sums).count("1")


def dense_ranks(xs, c):
    c.tick(sort_cost(len(xs)) + len(xs))
    rank = {v: i + 1 for i, v in enumerate(sorted(set(xs)))}
    return [rank[v] for v in xs]


def longest_bitonic(xs, c):
    n = len(xs)
    c.tick(n * n)
    inc = [1] * n
    dec = [1] * n
    for i in range(n):
        for j in range(i):
            if xs[j] < xs[i]:
                inc[i] = max(inc[i], inc[j] + 1)
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if xs[j] < xs[i]:
                dec[i] = max(dec[i], dec[j] + 1)
    return max((inc[i] + dec[i] - 1 for i in range(n)), default=None)


def subarray_min_sum(xs, c):
    """Sum over all contiguous subarrays of their minimum (monotonic stack)."""
    n = len(xs)
    c.tick(3 * n)
    left, right, stack = [0] * n, [0] * n, []
    for i in range(n):
        while stack and xs[stack[-1]] > xs[i]:
            stack.pop()
        left[i] = i - (stack[-1] if stack else -1)
        stack.append(i)
    stack = []
    for i in range(n - 1, -1, -1):
        while stack and xs[stack[-1]] >= xs[i]:
            stack.pop()
        right[i] = (stack[-1] if stack else n) - i
        stack.append(i)
    return sum(xs[i] * left[i] * right[i] for i in range(n))


def look_and_say(xs, c):
    c.tick(len(xs))
    out, i = [], 0
    while i < len(xs):
        j = i
        while j < len(xs) and xs[j] == xs[i]:
            j += 1
        out += [j - i, xs[i]]
        i = j
    return out


def list_gcd(xs, c):
    g = 0
    for v in xs:
        c.tick(max(1, abs(v).bit_length()))
        g = math.gcd(g, v)
    return g


def riffle(xs, c):
    c.tick(len(xs))
    half = (len(xs) + 1) // 2
    top, bottom = xs[:half], xs[half:]
    return [v for pair in zip(top, bottom) for v in pair] + top[len(bottom):]


def longest_arithmetic_subsequence(xs, c):
    n = len(xs)
    c.tick(n * n)
    best, length = min(n, 1), [dict() for _ in range(n)]
    for i in range(n):
        for j in range(i):
            d = xs[i] - xs[j]
            length[i][d] = length[j].get(d, 1) + 1
            best = max(best, length[i][d])
    return best


def first_fit_bins(xs, c):
    if any(not 0 < v <= 20 for v in xs):
        return None
    loads = []
    for v in xs:
        c.tick(len(loads) + 1)
        for i, load in enumerate(loads):
            if load + v <= 20:
                loads[i] += v
                break
        else:
            loads.append(v)
    return loads


def lru_misses(xs, c):
    c.tick(3 * len(xs))
    cache, misses = [], 0
    for v in xs:
        if v in cache:
            cache.remove(v)
        else:
            misses += 1
            if len(cache) == 3:
                cache.pop(0)
        cache.append(v)
    return misses


def sort_by_frequency(xs, c):
    c.tick(sort_cost(len(xs)) + len(xs))
    counts = Tally(xs)
    return sorted(xs, key=lambda v: (-counts[v], v))


def longest_subarray_sum_at_most_20(xs, c):
    if min(xs, default=0) < 0:
        return None
    c.tick(2 * len(xs))
    best, total, left = 0, 0, 0
    for right, v in enumerate(xs):
        total += v
        while total > 20:
            total -= xs[left]
            left += 1
        best = max(best, right - left + 1)
    return best


def dutch_flag_mod_3(xs, c):
    """Dijkstra's three-way partition by v mod 3 (0s, then 1s, then 2s), swapping in place."""
    c.tick(len(xs))
    a, low, mid, high = list(xs), 0, 0, len(xs) - 1
    while mid <= high:
        r = a[mid] % 3
        if r == 0:
            a[low], a[mid] = a[mid], a[low]
            low, mid = low + 1, mid + 1
        elif r == 1:
            mid += 1
        else:
            a[mid], a[high] = a[high], a[mid]
            high -= 1
    return a


def candy(xs, c):
    c.tick(2 * len(xs))
    n = len(xs)
    give = [1] * n
    for i in range(1, n):
        if xs[i] > xs[i - 1]:
            give[i] = give[i - 1] + 1
    for i in range(n - 2, -1, -1):
        if xs[i] > xs[i + 1]:
            give[i] = max(give[i], give[i + 1] + 1)
    return sum(give)


def max_water_container(xs, c):
    c.tick(len(xs))
    left, right, best = 0, len(xs) - 1, 0
    while left < right:
        best = max(best, min(xs[left], xs[right]) * (right - left))
        if xs[left] <= xs[right]:
            left += 1
        else:
            right -= 1
    return best


def count_smaller_after(xs, c):
    """Merge sort counting, for each element, the later elements smaller than it."""
    n = len(xs)
    c.tick(sort_cost(n))
    counts = [0] * n

    def sort(idx):
        if len(idx) <= 1:
            return idx
        mid = len(idx) // 2
        left, right = sort(idx[:mid]), sort(idx[mid:])
        merged, j = [], 0
        for i in left:
            while j < len(right) and xs[right[j]] < xs[i]:
                merged.append(right[j])
                j += 1
            counts[i] += j
            merged.append(i)
        return merged + right[j:]
    sort(list(range(n)))
    return counts


def multiples(rng):
    g = rng.randint(2, 12)
    return [g * rng.randint(1, 12) for _ in range(rng.randint(3, 6))]


def short_hops(rng):
    return [rng.randint(1, 3) for _ in range(rng.randint(6, 12))]


def middling(rng):
    return [rng.randint(4, 16) for _ in range(rng.randint(5, 9))]


BRICKS = by_name([
    Brick("next_greater", LIST_INT, LIST_INT, "Replace each number by the first later number that is strictly larger "
          "(-1 if there is none).", next_greater),
    Brick("sliding_max_3", LIST_INT, LIST_INT, "List the maximum of every window of 3 consecutive numbers, left to "
          "right (no output for fewer than 3 numbers).", sliding_max_3),
    Brick("mode", LIST_INT, INT, "The most frequent number (ties: the smallest of them).", mode),
    Brick("median_low", LIST_INT, INT, "The lower median: the middle number after sorting (of the two middle ones, "
          "the smaller).", median_low),
    Brick("lomuto_partition", LIST_INT, LIST_INT, "One Lomuto partition pass with the last number as pivot: scan left "
          "to right swapping each number <= pivot into the next slot of the front part, then swap the pivot in "
          "after that part.", lomuto_partition),
    Brick("bubble_pass", LIST_INT, LIST_INT, "One bubble-sort pass: left to right, swap each adjacent pair that is out "
          "of order.", bubble_pass),
    Brick("heapify", LIST_INT, LIST_INT, "Build a binary min-heap in place (sift down positions n//2-1 down to 0, "
          "children of i at 2i+1 and 2i+2, swapping with the smaller child) and list the array.", heapify),
    Brick("trapped_water", LIST_INT, INT, "Read the numbers as bar heights; how many units of rain water stay "
          "trapped between the bars?", trapped_water),
    Brick("largest_histogram_rectangle", LIST_INT, INT, "Read the numbers as bar heights of width 1; the area of the "
          "largest rectangle inside the bars (no output for negative heights).", largest_histogram_rectangle),
    Brick("min_jumps", LIST_INT, INT, "From index 0, a jump from index i moves right by 1 up to the number at i; the "
          "fewest jumps to reach the last index (no output if impossible).", min_jumps, short_hops),
    Brick("house_robber", LIST_INT, INT, "The largest sum of numbers no two of which are adjacent.", house_robber),
    Brick("longest_zigzag", LIST_INT, INT, "The length of a longest subsequence whose consecutive differences are "
          "strictly alternately positive and negative.", longest_zigzag),
    Brick("subarrays_divisible_by_5", LIST_INT, INT, "Count the non-empty contiguous runs of numbers whose sum is "
          "divisible by 5.", subarrays_divisible_by_5),
    Brick("pairs_summing_to_20", LIST_INT, INT, "Count the pairs of positions i < j whose numbers add up to 20.",
          pairs_summing_to_20, middling),
    Brick("distinct_subset_sums", LIST_INT, INT, "Count the distinct sums of subsets of the numbers, the empty sum 0 "
          "included (no output for negative numbers or a total above 400).", distinct_subset_sums),
    Brick("dense_ranks", LIST_INT, LIST_INT, "Replace each number by its rank among the distinct values (smallest is "
          "1).", dense_ranks),
    Brick("longest_bitonic", LIST_INT, INT, "The length of a longest subsequence that strictly increases and then "
          "strictly decreases (either part may be empty).", longest_bitonic),
    Brick("subarray_min_sum", LIST_INT, INT, "The sum, over all non-empty contiguous runs of numbers, of the run's "
          "minimum.", subarray_min_sum),
    Brick("look_and_say", LIST_INT, LIST_INT, "Read the list aloud: each maximal run of equal numbers becomes its "
          "length followed by the number.", look_and_say),
    Brick("list_gcd", LIST_INT, INT, "The greatest common divisor of all the numbers.", list_gcd, multiples),
    Brick("riffle", LIST_INT, LIST_INT, "Perfect riffle shuffle: split into a first half (one longer if odd) and a "
          "second half, then interleave them starting with the first.", riffle),
    Brick("longest_arithmetic_subsequence", LIST_INT, INT, "The length of a longest subsequence with a constant "
          "difference between consecutive terms.", longest_arithmetic_subsequence),
    Brick("first_fit_bins", LIST_INT, LIST_INT, "First-fit bin packing with bins of capacity 20: put each number, in "
          "order, into the first bin it fits in (else a new bin); list the bin loads (no output unless every number "
          "is between 1 and 20).", first_fit_bins),
    Brick("lru_misses", LIST_INT, INT, "Read the numbers as page requests to a cache of 3 pages that evicts the least "
          "recently used page; count the misses.", lru_misses),
    Brick("sort_by_frequency", LIST_INT, LIST_INT, "Sort the numbers by how often they occur, most frequent first "
          "(ties: smaller number first).", sort_by_frequency),
    Brick("longest_subarray_sum_at_most_20", LIST_INT, INT, "The length of a longest contiguous run of numbers with "
          "sum at most 20 (no output for negative numbers).", longest_subarray_sum_at_most_20),
    Brick("dutch_flag_mod_3", LIST_INT, LIST_INT, "Dijkstra's three-way partition by remainder mod 3 with pointers "
          "low = mid = 0 and high = last: remainder 0 swaps a[mid] with a[low] (both advance), 1 advances mid, 2 swaps "
          "a[mid] with a[high] (high retreats); until mid passes high.", dutch_flag_mod_3),
    Brick("candy", LIST_INT, INT, "Read the numbers as children's ratings in a row; each child gets at least 1 candy "
          "and more than any neighbour with a lower rating; the least total.", candy),
    Brick("max_water_container", LIST_INT, INT, "Read the numbers as wall heights at positions 0, 1, ...; the most "
          "water two walls can hold: min(height) x distance.", max_water_container),
    Brick("count_smaller_after", LIST_INT, LIST_INT, "Replace each number by how many later numbers are strictly "
          "smaller.", count_smaller_after),
])
