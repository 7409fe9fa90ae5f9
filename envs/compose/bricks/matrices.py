"""Linear algebra on square matrices and dynamic programming / traversals on grids of ints.
Exact arithmetic throughout (fractions, or integers modulo a prime). Determinant and the
assignment problem come from the gym."""
from __future__ import annotations

import heapq
from itertools import permutations

from envs.compose.brick import Brick, by_name
from envs.compose.bricks.grids import cells
from envs.compose.types import BOOL, GRID, INT, LIST_INT, MATRIX


def matrix_square(m, c):
    n = len(m)
    c.tick(n ** 3)
    return [[sum(m[i][k] * m[k][j] for k in range(n)) for j in range(n)] for i in range(n)]


def characteristic_polynomial(m, c):
    """Faddeev-LeVerrier: coefficients of det(xI - A), highest power first. For an integer matrix
    every M_k is an integer matrix and each division by k is exact."""
    n = len(m)
    c.tick(n ** 4)
    coeffs = [1]
    mk = [[0] * n for _ in range(n)]  # M_0 = 0
    for k in range(1, n + 1):
        # M_k = A M_{k-1} + c_{n-k+1} I;  c_{n-k} = -tr(A M_k) / k
        prod = [[sum(m[i][t] * mk[t][j] for t in range(n)) for j in range(n)] for i in range(n)]
        mk = [[prod[i][j] + (coeffs[-1] if i == j else 0) for j in range(n)] for i in range(n)]
        am = [[sum(m[i][t] * mk[t][j] for t in range(n)) for j in range(n)] for i in range(n)]
        coeffs.append(-sum(am[i][i] for i in range(n)) // k)
    return coeffs


def permanent(m, c):
    n = len(m)
    if n > 5:
        return None
    total = 0
    for p in permutations(range(n)):
        c.tick(n)
        prod = 1
        for i in range(n):
            prod *= m[i][p[i]]
        total += prod
    return total


def inverse_mod_7(m, c):
    n = len(m)
    c.tick(2 * n ** 3)
    a = [[x % 7 for x in r] + [int(i == j) for j in range(n)] for i, r in enumerate(m)]
    for col in range(n):
        p = next((r for r in range(col, n) if a[r][col]), None)
        if p is None:
            return None
        a[col], a[p] = a[p], a[col]
        inv = pow(a[col][col], 5, 7)  # Fermat: x^(7-2) is 1/x mod 7
        a[col] = [x * inv % 7 for x in a[col]]
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col]
                a[r] = [(x - f * y) % 7 for x, y in zip(a[r], a[col])]
    return [row[n:] for row in a]


def gram_matrix(g, c):
    h, w = len(g), len(g[0])
    c.tick(h * h * w)
    return [[sum(a * b for a, b in zip(g[i], g[j])) for j in range(h)] for i in range(h)]


def is_symmetric(m, c):
    c.tick(cells(m))
    return all(m[i][j] == m[j][i] for i in range(len(m)) for j in range(i))


def antidiagonal_order(g, c):
    c.tick(cells(g))
    h, w = len(g), len(g[0])
    return [g[r][s - r] for s in range(h + w - 1) for r in range(h) if 0 <= s - r < w]


def min_path_sum(g, c):
    c.tick(cells(g))
    h, w = len(g), len(g[0])
    best = [[0] * w for _ in range(h)]
    for r in range(h):
        for k in range(w):
            prev = [best[r - 1][k]] * (r > 0) + [best[r][k - 1]] * (k > 0)
            best[r][k] = g[r][k] + (min(prev) if prev else 0)
    return best[-1][-1]


def summed_area_table(g, c):
    c.tick(cells(g))
    h, w = len(g), len(g[0])
    s = [[0] * w for _ in range(h)]
    for r in range(h):
        for k in range(w):
            s[r][k] = g[r][k] + (s[r - 1][k] if r else 0) + (s[r][k - 1] if k else 0) - (s[r - 1][k - 1] if r and k else 0)
    return s


def local_maxima_count(g, c):
    c.tick(5 * cells(g))
    h, w = len(g), len(g[0])
    return sum(all(g[r][k] > g[a][b] for a, b in ((r - 1, k), (r + 1, k), (r, k - 1), (r, k + 1))
                   if 0 <= a < h and 0 <= b < w) for r in range(h) for k in range(w))


def cheapest_grid_path(g, c):
    """Dijkstra over cells: entering a cell costs its value (the start cell counts too)."""
    h, w = len(g), len(g[0])
    c.tick(5 * cells(g) * max(1, cells(g).bit_length()))
    dist = {(0, 0): g[0][0]}
    heap = [(g[0][0], 0, 0)]
    done = set()
    while heap:
        d, r, k = heapq.heappop(heap)
        if (r, k) in done:
            continue
        done.add((r, k))
        if (r, k) == (h - 1, w - 1):
            return d
        for a, b in ((r - 1, k), (r + 1, k), (r, k - 1), (r, k + 1)):
            if 0 <= a < h and 0 <= b < w and d + g[a][b] < dist.get((a, b), 10 ** 9):
                dist[a, b] = d + g[a][b]
                heapq.heappush(heap, (d + g[a][b], a, b))
    return None


BRICKS = by_name([
    Brick("matrix_square", MATRIX, MATRIX, "Multiply the matrix by itself.", matrix_square),
    Brick("characteristic_polynomial", MATRIX, LIST_INT, "The coefficients of det(xI - M), from the highest power "
          "of x (always 1) down to the constant term.", characteristic_polynomial),
    Brick("permanent", MATRIX, INT, "The permanent: like the determinant but with every term added (no output above "
          "5 x 5).", permanent),
    Brick("inverse_mod_7", MATRIX, MATRIX, "The inverse matrix modulo 7, entries in 0..6 (no output if the matrix is "
          "not invertible modulo 7).", inverse_mod_7),
    Brick("gram_matrix", GRID, MATRIX, "The matrix G with G[i][j] = the dot product of rows i and j.", gram_matrix),
    Brick("is_symmetric", MATRIX, BOOL, "Is the matrix equal to its transpose?", is_symmetric),
    Brick("antidiagonal_order", GRID, LIST_INT, "List the cells anti-diagonal by anti-diagonal (row + column = 0, 1, "
          "2, ...), each from the top row down.", antidiagonal_order),
    Brick("min_path_sum", GRID, INT, "The smallest sum of cells on a path from the top-left to the bottom-right cell "
          "moving only right or down (both ends included).", min_path_sum),
    Brick("summed_area_table", GRID, GRID, "Replace each cell by the sum of all cells above and to the left of it, "
          "itself included.", summed_area_table),
    Brick("local_maxima_count", GRID, INT, "Count the cells larger than each of their up/down/left/right neighbours.",
          local_maxima_count),
    Brick("cheapest_grid_path", GRID, INT, "The smallest sum of cells on a path from the top-left to the bottom-right "
          "cell moving up, down, left or right (both ends included).", cheapest_grid_path),
])
