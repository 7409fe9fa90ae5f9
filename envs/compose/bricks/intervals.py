"""Intervals (list[interval]: closed [s, e]) and scheduling: sweeps, greedy selection, merging.
Weighted interval scheduling comes from the gym."""
from __future__ import annotations

from envs.compose.brick import Brick, by_name
from envs.compose.bricks.strings import sort_cost
from envs.compose.types import BOOL, GRAPH, INT, INTERVALS, LIST_INT, STR, make_graph


def merge_intervals(ivs, c):
    c.tick(sort_cost(len(ivs)) + len(ivs))
    out = []
    for s, e in sorted(ivs):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def activity_selection(ivs, c):
    c.tick(sort_cost(len(ivs)) + len(ivs))
    out, end = [], None
    for s, e in sorted(ivs, key=lambda iv: (iv[1], iv[0])):
        if end is None or s > end:
            out.append([s, e])
            end = e
    return out


def min_rooms(ivs, c):
    c.tick(sort_cost(2 * len(ivs)) + 2 * len(ivs))
    events = sorted([(s, 0) for s, _ in ivs] + [(e, 1) for _, e in ivs])  # a start before an end at one time
    best = cur = 0
    for _, kind in events:
        cur += 1 if kind == 0 else -1
        best = max(best, cur)
    return best


def union_length(ivs, c):
    return sum(e - s + 1 for s, e in merge_intervals(ivs, c))


def interval_gaps(ivs, c):
    merged = merge_intervals(ivs, c)
    c.tick(len(merged))
    return [[a[1] + 1, b[0] - 1] for a, b in zip(merged, merged[1:]) if b[0] - a[1] > 1]


def stabbing_points(ivs, c):
    c.tick(sort_cost(len(ivs)) + len(ivs))
    points = []
    for s, e in sorted(ivs, key=lambda iv: (iv[1], iv[0])):
        if not points or points[-1] < s:
            points.append(e)
    return points


def interval_lengths(ivs, c):
    c.tick(len(ivs))
    return [e - s + 1 for s, e in ivs]


def overlapping_pairs(ivs, c):
    c.tick(sort_cost(len(ivs)) + len(ivs) * len(ivs) // 2)
    order = sorted(ivs)
    return sum(1 for i, (s, e) in enumerate(order) for t, _ in order[i + 1:] if t <= e)


def runs_to_intervals(xs, c):
    c.tick(sort_cost(len(xs)) + len(xs))
    out = []
    for v in sorted(set(xs)):
        if out and v == out[-1][1] + 1:
            out[-1][1] = v
        else:
            out.append([v, v])
    return out


def covered_points(ivs, c):
    merged = merge_intervals(ivs, c)
    total = sum(e - s + 1 for s, e in merged)
    if total > 100:
        return None
    c.tick(total)
    return [v for s, e in merged for v in range(s, e + 1)]


def interval_graph(ivs, c):
    n = len(ivs)
    c.tick(n * n)
    return make_graph(n, [[i, j] for i in range(n) for j in range(i + 1, n)
                          if ivs[i][0] <= ivs[j][1] and ivs[j][0] <= ivs[i][1]])


def round_robin(xs, c):
    """Completion times of jobs with these burst times under round-robin with quantum 3."""
    if not xs or min(xs) < 0:
        return None
    c.tick(len(xs) + sum((x + 2) // 3 for x in xs))
    left, done, t = list(xs), [0] * len(xs), 0
    queue = list(range(len(xs)))
    while queue:
        i = queue.pop(0)
        run = min(3, left[i])
        t += run
        left[i] -= run
        if left[i]:
            queue.append(i)
        else:
            done[i] = t
    return done


def value_spans(xs, c):
    c.tick(len(xs) + sort_cost(len(xs)))
    spans = {}
    for i, v in enumerate(xs):
        spans.setdefault(v, [i, i])[1] = i
    return [spans[v] for v in sorted(spans)]


def letter_spans(s, c):
    c.tick(len(s))
    spans = {}
    for i, ch in enumerate(s):
        spans.setdefault(ch, [i, i])[1] = i
    return list(spans.values())


def remove_covered(ivs, c):
    c.tick(sort_cost(len(ivs)) + len(ivs))
    out, far = [], None
    for s, e in sorted(ivs, key=lambda iv: (iv[0], -iv[1])):
        if far is None or e > far:
            out.append([s, e])
            far = e
    return out


def intervals_disjoint(ivs, c):
    c.tick(sort_cost(len(ivs)) + len(ivs))
    order = sorted(ivs)
    return all(a[1] < b[0] for a, b in zip(order, order[1:]))


BRICKS = by_name([
    Brick("merge_intervals", INTERVALS, INTERVALS, "Merge overlapping intervals (sharing at least one point) and list "
          "the result sorted by start.", merge_intervals),
    Brick("activity_selection", INTERVALS, INTERVALS, "Greedy activity selection: go through the intervals by "
          "increasing end (ties: smaller start) and keep each one that starts after the last kept one ends; list the "
          "kept intervals in that order.", activity_selection),
    Brick("min_rooms", INTERVALS, INT, "The largest number of intervals that share a common point (the rooms needed "
          "to hold them all).", min_rooms),
    Brick("union_length", INTERVALS, INT, "Count the integers covered by at least one interval.", union_length),
    Brick("interval_gaps", INTERVALS, INTERVALS, "List, in order, the maximal runs of integers between the smallest "
          "start and the largest end that no interval covers, as intervals.", interval_gaps),
    Brick("stabbing_points", INTERVALS, LIST_INT, "Greedy stabbing: go through the intervals by increasing end (ties: "
          "smaller start) and, whenever one contains none of the chosen points, choose its end; list the chosen "
          "points.", stabbing_points),
    Brick("interval_lengths", INTERVALS, LIST_INT, "List the number of integers in each interval (e - s + 1), in "
          "order.", interval_lengths),
    Brick("overlapping_pairs", INTERVALS, INT, "Count the pairs of intervals that share at least one point.",
          overlapping_pairs),
    Brick("runs_to_intervals", LIST_INT, INTERVALS, "Take the distinct numbers in increasing order and list their "
          "maximal runs of consecutive integers as intervals.", runs_to_intervals),
    Brick("covered_points", INTERVALS, LIST_INT, "List, in increasing order, every integer covered by some interval "
          "(no output if there are more than 100).", covered_points),
    Brick("interval_graph", INTERVALS, GRAPH, "The interval graph: node i is the i-th interval, and two nodes are "
          "joined when their intervals share a point.", interval_graph),
    Brick("round_robin", LIST_INT, LIST_INT, "The numbers are job lengths, queued in order; a processor runs the job "
          "at the front for up to 3 time units, then moves it to the back if unfinished; list each job's finishing "
          "time (time starts at 0).", round_robin),
    Brick("value_spans", LIST_INT, INTERVALS, "For each distinct number, in increasing order, the interval from its "
          "first to its last position (positions from 0).", value_spans),
    Brick("letter_spans", STR, INTERVALS, "For each distinct character, in order of first appearance, the interval "
          "from its first to its last position (positions from 0).", letter_spans),
    Brick("remove_covered", INTERVALS, INTERVALS, "Drop every interval contained in another one (of equal intervals "
          "keep one) and list the rest sorted by start.", remove_covered),
    Brick("intervals_disjoint", INTERVALS, BOOL, "Are the intervals pairwise disjoint (no shared point)?",
          intervals_disjoint),
])
