"""The brick registry (name -> Brick) and the named pools the search draws from.

A pool is an ordered list of brick names; "first N bricks of a pool" is its prefix, so the paper's
50-vs-all ablation is `pool=all pool_size=50` (the first 50 of `all` are `base50`).
"""
from __future__ import annotations

from envs.compose.brick import Brick
from envs.compose.bricks import (bitgrids, encodings, exprs, graphs, grids, intervals, lists, matrices, numbers,
                                  numtheory, perms, predicates, sequences, strings, texts, trees, words)
from envs.compose.bricks.gym import gym_bricks

# one-line transforms (the first pool) and algorithms over structured values (issue 14)
TRANSFORMS = (strings, encodings, numbers, lists, words, grids, predicates)
ALGORITHMS = (graphs, trees, bitgrids, matrices, intervals, perms, exprs, sequences, texts, numtheory)
MODULES = TRANSFORMS + ALGORITHMS
GYM_BRICKS: dict[str, Brick] = {b.name: b for b in gym_bricks()}
BRICKS: dict[str, Brick] = {name: b for m in MODULES for name, b in m.BRICKS.items()}
assert len(BRICKS) == sum(len(m.BRICKS) for m in MODULES), "a brick name is defined twice"
assert not BRICKS.keys() & GYM_BRICKS.keys(), f"gym env and brick of one name: {BRICKS.keys() & GYM_BRICKS.keys()}"
BRICKS.update(GYM_BRICKS)
ALGORITHMIC = frozenset(name for m in ALGORITHMS for name in m.BRICKS) | GYM_BRICKS.keys()

# The paper's 50-base-environment pool (races line 48: RACES on 50 base environments beats RL on all
# 300 individually). The paper does not say how its 50 were chosen; ours is a type-balanced choice,
# 48 algorithms and two one-line transforms (digits, prefix_sums): every structured type is the
# input of at least two of them and the output of at least one, so each of the 50 can sit inside
# chains built from the 50 alone; 13 are gym envs, none is a predicate (the paper's four operators
# use none). `all` starts with it, so pool=all pool_size=50 is this pool.
BASE50 = [
    "digits", "count_primes", "zeckendorf", "sum_of_two_squares",  # int
    "bwt", "prefix_function", "suffix_array", "letter_spans", "longest_palindromic_subsequence",  # str
    "prefix_sums", "next_greater_element", "argsort", "runs_to_intervals", "join_alternating",  # list[int]
    "longest_increasing_subsequence", "house_robber", "from_prufer",
    "edit_distance", "shortest_superstring_greedy", "overlap_graph",  # list[str]
    "min_path_sum", "threshold_5", "gram_matrix",  # grid[int]
    "life_step", "island_sizes", "distance_to_ones",  # grid[bit]
    "matrix_determinant", "matrix_to_wgraph", "characteristic_polynomial",  # matrix
    "perm_inverse", "cycle_lengths", "cartesian_tree",  # perm
    "merge_intervals", "interval_graph", "min_rooms",  # list[interval]
    "eval_expr", "to_postfix",  # expr
    "bfs_spanning_tree", "connected_components", "orient_by_bfs", "graph_coloring",  # graph
    "topological_sort", "transitive_closure", "underlying_graph",  # digraph
    "shortest_path", "floyd_warshall",  # wgraph
    "prufer_code", "tree_diameter",  # tree
    "bezout", "josephus",  # tuple[int,int]
]
# The first pool: 45 one-line transforms covering the basic types, plus 5 predicates for `branch`.
CORE50 = [
    "reverse_string", "sort_chars", "remove_vowels", "caesar_3", "atbash", "run_length_encode",
    "string_length", "count_vowels", "letter_sum", "letter_positions", "run_lengths", "chunks_of_3",
    "digit_sum", "reverse_digits", "collatz_step", "count_divisors", "next_prime", "to_binary", "to_roman",
    "digits", "prime_factors", "digits_to_words", "divmod_7", "pair_gcd", "pair_sum", "fibonacci_step",
    "sort_ascending", "reverse_list", "prefix_sums", "differences", "dedupe_list", "list_sum", "value_range",
    "numbers_to_letters", "rows_of_3", "min_and_max", "sort_words", "reverse_each_word", "join_words",
    "first_letters", "word_lengths", "transpose", "rotate_clockwise", "flatten", "grid_sum",
    "is_prime", "is_palindrome", "is_sorted", "words_all_distinct", "pair_coprime",
]
POOLS: dict[str, list[str]] = {
    "base50": BASE50,
    "core50": CORE50,
    "all": BASE50 + [name for name in BRICKS if name not in BASE50],
}


def pool_bricks(pool: str | list[str] = "all", size: int = 0) -> list[Brick]:
    """The bricks of a named pool (or an explicit list of names), cut to the first `size` if size > 0."""
    if isinstance(pool, str):
        if pool not in POOLS:
            raise ValueError(f"unknown brick pool {pool!r}; known: {', '.join(POOLS)}")
        pool = POOLS[pool]
    unknown = [n for n in pool if n not in BRICKS]
    if unknown:
        raise ValueError(f"unknown brick name(s) {unknown}")
    if size < 0:
        raise ValueError(f"pool size must be >= 0, got {size}")
    return [BRICKS[n] for n in (pool[:size] if size else pool)]
