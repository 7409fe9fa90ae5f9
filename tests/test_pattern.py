"""Pattern-specific tests: line solver, verifier, game-ID codec, uniqueness, generator, text."""
from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.puzzles.pattern import (PatternPuzzle, _has_plain_line, _line_solve, _placements,
                                  _propagate, runs_of, solve_line)

ENV = envs.make("pattern")

# 3x2, rows "#.#" / ".##": columns 1 / 1 / 2, rows 1.1 / 2
SMALL = "3x2:1/1/2/1.1/2"
SMALL_SOLUTION = ["#.#", ".##"]
DIAGONAL = "2x2:1/1/1/1"  # both diagonals fit
BELLA = "4x4:2/1/2/1/1.1/2/1/1"  # unique, but no single line gets it started (Tatham's comment)


def brute_force_line(clue, n, filled, empty):
    full = (1 << n) - 1
    fits = [bits for bits in range(1 << n) if not bits & empty and bits & filled == filled
            and runs_of(format(bits, f"0{n}b")[::-1].replace("1", "#").replace("0", ".")) == clue]
    if not fits:
        return None
    always, ever = full, 0
    for bits in fits:
        always &= bits
        ever |= bits
    return always, full & ~ever


def test_line_solver_matches_brute_force():
    rng = random.Random(0)
    for _ in range(1500):
        n = rng.randint(1, 9)
        truth = rng.getrandbits(n)
        clue = runs_of(format(truth, f"0{n}b")[::-1].replace("1", "#").replace("0", "."))
        if rng.random() < 0.3:  # a clue unrelated to the known cells: contradictions happen
            clue = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 3)))
        filled = empty = 0
        for i in range(n):
            r = rng.random()
            filled |= (r < 0.2) << i
            empty |= (0.2 <= r < 0.4) << i
        assert solve_line(clue, n, filled, empty) == brute_force_line(clue, n, filled, empty), (clue, n, filled, empty)


def test_placement_lists_agree_with_solve_line():
    """_propagate solves most lines by narrowing a cached list of their placements; with every
    list switched off (None: solve_line, checked against brute force above) it must reach the
    same cells, or the same contradiction, on random grids with random cells already known."""
    rng = random.Random(2)
    dp_lines = 0
    for trial in range(400):
        w, h = rng.randint(1, 25 if trial % 4 == 0 else 9), rng.randint(2, 9)
        grid = ["".join(rng.choice("#.") for _ in range(w)) for _ in range(h)]
        rows = [runs_of(row) for row in grid]
        if trial % 3 == 0:  # a clue from another grid: contradictions happen
            r = rng.randrange(h)
            rows[r] = runs_of("".join(rng.choice("#.") for _ in range(w)))
        puzzle = PatternPuzzle(w, h, tuple(runs_of("".join(col)) for col in zip(*grid)), tuple(rows))
        dp_lines += sum(c is None for c in puzzle.placements)
        known_f, known_e = [0] * (w + h), [0] * (w + h)
        for _ in range(rng.randint(0, w * h // 3)):
            r, c = rng.randrange(h), rng.randrange(w)
            target = known_f if grid[r][c] == "#" else known_e
            target[r] |= 1 << c
            target[h + c] |= 1 << r
        outcomes = []
        for cands in (list(puzzle.placements), [None] * (w + h)):
            f, e = known_f[:], known_e[:]
            ok = _propagate(puzzle, f, e, cands, (1 << (w + h)) - 1)
            outcomes.append((f, e) if ok else None)
        assert outcomes[0] == outcomes[1], (grid, rows)
    assert dp_lines > 0  # some lines had more than PLACEMENT_LIMIT placements


def test_placements_of_a_line():
    masks, always, ever = _placements((2, 1), 5)
    assert sorted(masks) == sorted([0b01011, 0b10011, 0b10110])  # bit i = cell i
    assert (always, ever) == (0b00010, 0b11111)
    assert _placements((), 3) == ((0,), 0, 0)
    assert _placements((3, 2), 5)[0] == ()  # needs 6 cells
    assert _placements((1,) * 8, 30) is None  # C(23, 8) placements: more than PLACEMENT_LIMIT


def test_line_solver_by_hand():
    # 5 cells, clue 3: the middle cell is in every placement
    assert solve_line((3,), 5, 0, 0) == (0b00100, 0)
    # clue 2 with cell 4 known filled: cells 3,4 filled, 0..2 empty
    assert solve_line((2,), 5, 0b10000, 0) == (0b11000, 0b00111)
    assert solve_line((), 4, 0, 0) == (0, 0b1111)
    assert solve_line((2, 2), 4, 0, 0) is None  # needs 5 cells
    assert solve_line((1,), 3, 0b101, 0) is None  # two filled cells, one run of 1


def test_verifier_by_hand():
    puzzle = ENV.decode(SMALL)
    assert ENV.is_solution(puzzle, SMALL_SOLUTION)
    # every row matches its clue, columns 0 and 2 do not
    assert ENV.is_solution(puzzle, ["#.#", "##."]) is False
    # every column matches its clue, both rows do not
    assert ENV.is_solution(puzzle, [".##", "#.#"]) is False
    # any board satisfying every clue is exact, even when the puzzle is ambiguous
    diagonal = ENV.decode(DIAGONAL)
    assert ENV.is_solution(diagonal, ["#.", ".#"]) and ENV.is_solution(diagonal, [".#", "#."])


@pytest.mark.parametrize("grid", [
    [], ["#.#"], ["#.#", ".##", "..."], ["#.#", ".#"], ["#.#", ".###"], ["#X#", ".##"],
    ["# #", ".##"], ["#.#", "o##"], None, "#.#\n.##", [1, 2], ["#.#", None], [["#", ".", "#"], [".", "#", "#"]],
])
def test_verifier_rejects_junk_without_raising(grid):
    assert ENV.is_solution(ENV.decode(SMALL), grid) is False


@pytest.mark.parametrize("game_id, message", [
    ("5x5", "no ':'"),
    ("5:1/1/1/1/1/1/1/1/1/1", "WxH"),
    ("x5:", "width '' is not a number"),
    ("05x5:", "leading zero"),
    ("0x5:", "out of range"),
    ("65x5:", "out of range"),
    ("99999x99999:a", "too large"),
    ("1x1:1/1", "at least 2"),
    ("2x2:1/1/1", "needs 4 '/'-separated clues"),
    ("2x2:1/1/1/1/1", "needs 4 '/'-separated clues"),
    ("2x2:1/a/1/1", "column 1 clue 'a' has a bad character 'a'"),
    ("2x2:1/1/1/1 ", "row 1 clue '1 ' has a bad character ' '"),
    ("2x2:3/1/1/1", "column 0 clue '3' needs 3 cells but the line has 2"),
    ("3x3:1..1/1/1/1/1/1", "column 0 run '' is not a number"),
    ("2x2:01/1/1/1", "leading zero"),
    ("2x2:0/1/1/1", "run of length 0"),
    ("2x2:1/1/1/1,a", "not supported"),
    ("3x3:\u0661/1/1/1/1/1", "bad character"),
])
def test_decode_errors_say_what_is_wrong(game_id, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        ENV.decode(game_id)


def test_decode_rejects_non_strings():
    for bad in (None, 5, b"2x2:1/1/1/1"):
        with pytest.raises(ValueError, match="must be a string"):
            ENV.decode(bad)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789x:/.,a -", max_size=30) | st.text(max_size=30))
def test_decode_raises_only_value_error(text):
    try:
        puzzle = ENV.decode(text)
    except ValueError as e:
        assert str(e)
    else:
        assert ENV.encode(puzzle) == text


def test_decode_encode_by_hand():
    puzzle = ENV.decode("2x3:/2/1/1/")  # empty clues first and last
    assert puzzle == PatternPuzzle(2, 3, ((), (2,)), ((1,), (1,), ()))
    assert ENV.encode(puzzle) == "2x3:/2/1/1/"
    assert ENV.decode("10x1:1/1/1/1/1/1/1/1/1/1/10").rows == ((10,),)


def test_uniqueness_check():
    solutions = ENV.solve(ENV.decode(DIAGONAL), max_solutions=5)
    assert sorted(solutions) == [["#.", ".#"], [".#", "#."]]
    assert len(ENV.solve(ENV.decode(DIAGONAL), max_solutions=1)) == 1
    with pytest.raises(ValueError, match="more than one solution"):
        ENV.from_game_id(DIAGONAL)
    assert ENV.solve(ENV.decode("2x2:2/2//"), max_solutions=2) == []  # columns full, rows empty
    with pytest.raises(ValueError, match="no solution"):
        ENV.from_game_id("2x2:2/2//")


def test_search_goes_beyond_line_solving():
    puzzle = ENV.decode(BELLA)
    assert not _line_solve(puzzle)
    assert ENV.solve(puzzle, max_solutions=2) == [["#..#", "##..", "..#.", "..#."]]
    assert "stall" in ENV.explain(puzzle, ["#..#", "##..", "..#.", "..#."])


def test_probing_search_on_a_hard_random_grid():
    # the clues of a random 25x25 grid: lines alone decide 34 of 625 cells, and plain
    # depth-first search took minutes to find two solutions; probing takes well under a second
    game_id = ("25x25:1.1.3.1.1.1.1/1.3.3.2.1.4.1/4.1.1.1.1.1/1.1.2.1.1.1.1/1.1.4.5.1.1/1.6.3/2.1.3.1/2.6."
               "1.1.2.1.1/2.1.1.1.1.1.2.3/1.1.1.2.1.1.2.1/1.3.4.1.2.1.1.1/2.1.3.1.2.1/1.1.2.2.1.1.1/2.1.3."
               "2.2.1.1/1.1.2.2.2/1.2.1.1.3.3/1.2.4.2.5/2.1.1.1.3.1.3/2.3.2.1.3.3/9.2.1.1.3/4.3.2.7/3.2.4."
               "2.1.1.1.2/1.1.3.1.2.3.1/1.1.3.1.1.2.1.1/6.1.1.5.2/2.4.2.1.1.1/1.4.1.1.2.1.2/1.1.1.1.3.1.2."
               "1/2.1.2.2.2.1.2/2.5.2.2.1.1/2.1.2.2.7.2/2.1.1.4.4.1/1.2.2.2.2.3.3/2.3.1.2.1.1.1.1.2/2.1.2."
               "3.1.4.1/2.2.2.1.4.1/3.3.1.2.5.1/2.2.1.1.1/2.1.3.2.1.1.2.2/1.1.1.1.1.1.4.1/1.2.1.1.5.3/2.2."
               "1/1.1.2.1.1.2.1/1.1.2.2.1.1.3/1.3.1.1.1.2.1/1.1.2.1.2.2.1/3.2.1.1.3/1.2.2.1.6.1/1.1.1.1.5."
               "1/1.1.1.4.1.8")
    puzzle = ENV.decode(game_id)
    solutions = ENV.solve(puzzle, max_solutions=2)
    assert len(solutions) == 2 and solutions[0] != solutions[1]
    assert all(ENV.is_solution(puzzle, grid) for grid in solutions)


def test_search_finds_every_solution_of_a_small_puzzle():
    # all 2^9 boards of a 3x3 grid, grouped by their clues: the solver must find each group exactly
    groups: dict = {}
    for cells in itertools.product("#.", repeat=9):
        grid = ["".join(cells[r * 3:r * 3 + 3]) for r in range(3)]
        key = (tuple(runs_of("".join(col)) for col in zip(*grid)), tuple(map(runs_of, grid)))
        groups.setdefault(key, []).append(grid)
    for (cols, rows), grids in groups.items():
        found = ENV.solve(PatternPuzzle(3, 3, cols, rows), max_solutions=len(grids) + 1)
        assert sorted(found) == sorted(grids)


@pytest.mark.parametrize("w, h", [(5, 5), (10, 10), (6, 4), (2, 7), (1, 6)])
def test_generator_guarantees(w, h):
    for seed in range(3):
        puzzle, solution = ENV.new_puzzle(random.Random(seed), w, h, None)
        assert (puzzle, solution) == ENV.new_puzzle(random.Random(seed), w, h, None)
        assert (puzzle.width, puzzle.height) == (w, h) and ENV.is_solution(puzzle, solution)
        assert _line_solve(puzzle), "generated puzzles are solvable one line at a time"
        filled = sum(row.count("#") for row in solution)
        assert w * h // 2 <= filled <= w * h // 2 + 1  # thresholded at the median
        rows = [int(row[::-1].replace("#", "1").replace(".", "0"), 2) for row in solution]
        assert not _has_plain_line(rows, w, h)


def test_plain_line_check():
    assert _has_plain_line([0b111, 0b010, 0b001], 3, 3)  # row 0 all filled
    assert _has_plain_line([0b011, 0b010, 0b011], 3, 3)  # column 2 all empty
    assert not _has_plain_line([0b011, 0b110, 0b001], 3, 3)
    assert not _has_plain_line([0b11, 0b00], 2, 2)  # sides of 2 are exempt


def test_new_puzzle_refuses_bad_sizes():
    for w, h in ((0, 5), (65, 5), (1, 1)):
        with pytest.raises(ValueError):
            ENV.new_puzzle(random.Random(0), w, h, None)


def test_ladder_grows_and_covers_fixture_sizes():
    sizes = [(w, h) for w, h, _ in ENV.ladder]
    assert len(sizes) >= 5 and sizes == sorted(sizes, key=lambda s: s[0] * s[1])
    assert {(5, 5), (7, 7), (8, 8), (10, 10)} <= set(sizes)
    assert ENV.levels == () and all(level is None for _, _, level in ENV.ladder)


def test_describe_lists_every_clue():
    puzzle = ENV.decode("3x3:2/1.1//1/1.1/1")
    text = ENV.describe(puzzle)
    for line in ("row 0: 1", "row 1: 1 1", "row 2: 1", "column 0: 2", "column 1: 1 1", "column 2: 0"):
        assert f"  {line}" in text.splitlines()
    board = [line for line in text.splitlines() if "|" in line]
    assert [line.split("|")[0].strip() for line in board] == ["1", "1 1", "1"]
    assert all(line.split("|")[1] == "? ? ?" for line in board)
    above = text.splitlines()[1:3]  # column clues stacked bottom-aligned above their columns
    assert above == ["       1", "     2 1 0"]
    assert board[1] == "1 1 |? ? ?"


def test_explain_reports_true_deductions():
    rec = ENV.generate(seed=7, difficulty=3)
    puzzle, solution = ENV.decode(rec["meta"]["game_id"]), rec["meta"]["solution"]
    text = ENV.explain(puzzle, solution)
    steps = [line for line in text.splitlines() if line.startswith("- ")]
    assert 1 <= len(steps) <= 4 and len(text.splitlines()) <= 7
    assert text.endswith("fills in the rest of the grid.")
    for step in steps:  # "- Row 3 (clue 2 1): (3,4), (3,5) filled; (3,0) empty."
        for part in step.split("): ", 1)[1].rstrip(".").split("; "):
            coords, _, state = part.rpartition(" ")
            for coord in coords.replace(" and", ",").split(", "):
                if coord.startswith("("):
                    r, c = map(int, coord.strip("()").split(","))
                    assert solution[r][c] == ("#" if state == "filled" else ".")


def test_decode_errors_stay_short_on_huge_input():
    for huge in ("x" * 100_000, "5x5:" + "1" * 100_000, "2x2:1/1/1/" + "#" * 100_000):
        with pytest.raises(ValueError) as e:
            ENV.decode(huge)
        assert len(str(e.value)) < 200
