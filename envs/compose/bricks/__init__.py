"""The brick registry (name -> Brick) and the named pools the search draws from.

A pool is an ordered list of brick names; "first N bricks of a pool" is its prefix. Two kinds:
- in code: base50, core50 and `all` (every registered brick, base50 first: it grows with the registry);
- a file per pool, envs/compose/pools/<name>.yaml, an explicit list in three parts (algorithmic,
  model_written, manual) that adding a brick never changes: races300 and races50, the paper's pools.
  Its model_written names are bricks written by a model (generate.py mode=bricks) that the caller
  loads from brick_dirs; pool_bricks(..., extra=loaded) resolves them.
"""
from __future__ import annotations

from pathlib import Path

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
# chains built from the 50 alone; 13 are gym envs, none is a predicate (our choice: none of the four
# operators as races line 39 describes them takes one). `all` starts with it, so pool=all pool_size=50 is this pool.
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
POOL_DIR = Path(__file__).resolve().parents[1] / "pools"
POOL_PARTS = ("algorithmic", "model_written", "manual")


def read_pool_file(path: str | Path) -> dict[str, list[str]]:
    """A pool file's parts (algorithmic, model_written, manual: lists of brick names)."""
    import yaml

    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict) or set(data) - set(POOL_PARTS) or not all(
            isinstance(v, list) and all(isinstance(n, str) for n in v) for v in data.values()):
        raise ValueError(f"{path}: a pool file maps {', '.join(POOL_PARTS)} to lists of brick names")
    return {k: list(data.get(k) or []) for k in POOL_PARTS}


def _file_pools() -> dict[str, list[str]]:
    out = {}
    for f in sorted(POOL_DIR.glob("*.yaml")):
        parts = read_pool_file(f)
        out[f.stem] = [n for k in POOL_PARTS for n in parts[k]]
    return out


POOLS: dict[str, list[str]] = {
    "base50": BASE50,
    "core50": CORE50,
    "all": BASE50 + [name for name in BRICKS if name not in BASE50],
    **_file_pools(),
}
MODEL_WRITTEN: dict[str, frozenset[str]] = {name: frozenset(read_pool_file(POOL_DIR / f"{name}.yaml")["model_written"])
                                            for name in _file_pools()}


def pool_bricks(pool: str | list[str] = "all", size: int = 0, extra: list[Brick] | tuple = ()) -> list[Brick]:
    """The bricks of a named pool (or an explicit list of names), cut to the first `size` if size > 0.
    extra: loaded bricks (model-written, from brick_dirs) that the pool's names may refer to. A pool
    file's model_written names must all be among them."""
    loaded = {b.name: b for b in extra}
    where = ""
    if isinstance(pool, str):
        if pool not in POOLS:
            raise ValueError(f"unknown brick pool {pool!r}; known: {', '.join(POOLS)}")
        where = f" (pool {pool})"
        missing = sorted(MODEL_WRITTEN.get(pool, frozenset()) - loaded.keys())
        if missing:
            raise ValueError(f"pool {pool}: model-written brick(s) {missing} are not in brick_dirs (write them with "
                             f"generate.py mode=bricks, e.g. --config configs/paper/races_bricks.yaml, and name the "
                             f"output folder in brick_dirs)")
        pool = POOLS[pool]
    known = {**BRICKS, **loaded}
    unknown = [n for n in pool if n not in known]
    if unknown:
        raise ValueError(f"unknown brick name(s) {unknown}{where}")
    if size < 0:
        raise ValueError(f"pool size must be >= 0, got {size}")
    return [known[n] for n in (pool[:size] if size else pool)]


def resolve_pool(pool: str | list[str], size: int, loaded: list[Brick]) -> list[Brick]:
    """The bricks a RACES env or dataset draws from, given the model-written bricks loaded from
    brick_dirs: a pool file names the ones it uses (a loaded brick it does not name is refused, so the
    pool stays the listed one); any other pool gets them appended."""
    if isinstance(pool, str) and pool in MODEL_WRITTEN:
        extra = sorted({b.name for b in loaded} - set(POOLS[pool]))
        if extra:
            raise ValueError(f"pool {pool}: brick_dirs holds bricks the pool file does not list: {extra}")
        return pool_bricks(pool, size, extra=loaded)
    return pool_bricks(pool, size) + list(loaded)
