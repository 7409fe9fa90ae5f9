"""Bit grids (grid[bit]: cells 0/1) as maps and cellular automata: flood fills, islands, simulation.
"Neighbours" are the 4 cells up, down, left and right unless a brick says otherwise; cells outside
the grid count as 0. Shortest maze paths, monotone path counts and Lights Out come from the gym."""
from __future__ import annotations

from collections import deque

from envs.compose.brick import Brick, by_name
from envs.compose.bricks.grids import cells
from envs.compose.types import BITGRID, GRID, INT, LIST_INT

STEPS4 = ((-1, 0), (1, 0), (0, -1), (0, 1))


def around(g, r, k, steps=STEPS4):
    for dr, dk in steps:
        if 0 <= r + dr < len(g) and 0 <= k + dk < len(g[0]):
            yield r + dr, k + dk


def life_step(g, c):
    c.tick(9 * cells(g))
    eight = [(dr, dk) for dr in (-1, 0, 1) for dk in (-1, 0, 1) if dr or dk]
    out = []
    for r, row in enumerate(g):
        new = []
        for k, v in enumerate(row):
            live = sum(g[a][b] for a, b in around(g, r, k, eight))
            new.append(int(live == 3 or (v and live == 2)))
        out.append(new)
    return out


def island_sizes(g, c):
    c.tick(5 * cells(g))
    seen, sizes = set(), []
    for r, row in enumerate(g):
        for k, v in enumerate(row):
            if v and (r, k) not in seen:
                seen.add((r, k))
                stack, n = [(r, k)], 0
                while stack:
                    a, b = stack.pop()
                    n += 1
                    for p in around(g, a, b):
                        if g[p[0]][p[1]] and p not in seen:
                            seen.add(p)
                            stack.append(p)
                sizes.append(n)
    return sorted(sizes, reverse=True)


def flood_fill_corner(g, c):
    if g[0][0]:
        return None
    c.tick(5 * cells(g))
    out = [list(row) for row in g]
    out[0][0], stack = 1, [(0, 0)]
    while stack:
        for a, b in around(g, *stack.pop()):
            if not out[a][b]:
                out[a][b] = 1
                stack.append((a, b))
    return out


def largest_rectangle_of_ones(g, c):
    """Row by row, the histogram of 1-runs ending here, then the largest rectangle under it (a stack)."""
    w = len(g[0])
    c.tick(3 * cells(g))
    heights, best = [0] * w, 0
    for row in g:
        heights = [h + 1 if v else 0 for h, v in zip(heights, row)]
        stack = []
        for i, h in enumerate(heights + [0]):
            start = i
            while stack and stack[-1][1] >= h:
                start, top = stack.pop()
                best = max(best, top * (i - start))
            stack.append((start, h))
    return best


def distance_to_ones(g, c):
    if not any(map(any, g)):
        return None
    c.tick(5 * cells(g))
    dist = [[-1] * len(g[0]) for _ in g]
    queue = deque((r, k) for r, row in enumerate(g) for k, v in enumerate(row) if v)
    for r, k in queue:
        dist[r][k] = 0
    while queue:
        r, k = queue.popleft()
        for a, b in around(g, r, k):
            if dist[a][b] < 0:
                dist[a][b] = dist[r][k] + 1
                queue.append((a, b))
    return dist


def threshold_5(g, c):
    c.tick(cells(g))
    return [[int(v >= 5) for v in row] for row in g]


def gravity(g, c):
    c.tick(cells(g))
    h = len(g)
    cols = [sum(g[r][k] for r in range(h)) for k in range(len(g[0]))]
    return [[int(r >= h - cols[k]) for k in range(len(g[0]))] for r in range(h)]


def dilate(g, c):
    c.tick(5 * cells(g))
    return [[int(v or any(g[a][b] for a, b in around(g, r, k))) for k, v in enumerate(row)] for r, row in enumerate(g)]


def perimeter(g, c):
    c.tick(5 * cells(g))
    return sum(4 - sum(g[a][b] for a, b in around(g, r, k)) for r, row in enumerate(g) for k, v in enumerate(row) if v)


def rows_as_binary(g, c):
    c.tick(cells(g))
    return [int("".join(map(str, row)), 2) for row in g]


def langtons_ant(g, c):
    """10 moves of Langton's ant from the centre cell (row h//2, column w//2), facing up: on a 0 turn
    right, on a 1 turn left; flip the cell; step forward. Stops early if it would leave the grid."""
    c.tick(10 * 3)
    out = [list(row) for row in g]
    r, k, d = len(g) // 2, len(g[0]) // 2, 0  # d: 0 up, 1 right, 2 down, 3 left
    moves = ((-1, 0), (0, 1), (1, 0), (0, -1))
    for _ in range(10):
        d = (d + (1 if out[r][k] == 0 else 3)) % 4
        out[r][k] ^= 1
        r, k = r + moves[d][0], k + moves[d][1]
        if not (0 <= r < len(g) and 0 <= k < len(g[0])):
            break
    return out


BRICKS = by_name([
    Brick("life_step", BITGRID, BITGRID, "One step of Conway's Game of Life (8 neighbours, outside cells dead): a live "
          "cell (1) survives with 2 or 3 live neighbours, a dead cell becomes live with exactly 3.", life_step),
    Brick("island_sizes", BITGRID, LIST_INT, "Group the 1-cells into islands (joined through up/down/left/right "
          "neighbours) and list the island sizes from largest to smallest.", island_sizes),
    Brick("flood_fill_corner", BITGRID, BITGRID, "Set to 1 every 0-cell reachable from the top-left cell through "
          "0-cells (up/down/left/right); no output if the top-left cell is 1.", flood_fill_corner),
    Brick("largest_rectangle_of_ones", BITGRID, INT, "The area of the largest axis-aligned rectangle made only of "
          "1-cells.", largest_rectangle_of_ones),
    Brick("distance_to_ones", BITGRID, GRID, "Replace each cell by the number of up/down/left/right moves to the "
          "nearest 1-cell (0 on 1-cells; no output if there is no 1).", distance_to_ones),
    Brick("threshold_5", GRID, BITGRID, "Replace each cell by 1 if it is at least 5, else by 0.", threshold_5),
    Brick("gravity", BITGRID, BITGRID, "Let the 1-cells fall: in each column all 1s drop to the bottom.", gravity),
    Brick("dilate", BITGRID, BITGRID, "Set a cell to 1 if it or one of its up/down/left/right neighbours is 1.",
          dilate),
    Brick("perimeter", BITGRID, INT, "The total perimeter of the 1-cells: count the sides of 1-cells that touch a "
          "0-cell or the grid's border.", perimeter),
    Brick("rows_as_binary", BITGRID, LIST_INT, "Read each row, left to right, as a binary number; list them top to "
          "bottom.", rows_as_binary),
    Brick("langtons_ant", BITGRID, BITGRID, "Langton's ant starts on the cell at row h//2, column w//2 (counting from "
          "0) facing up; 10 times: turn right on a 0 or left on a 1, flip that cell, step forward (stop at once if "
          "the step leaves the grid).", langtons_ant),
])
