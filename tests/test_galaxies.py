"""Galaxies-specific tests: rule checker, completion, codec, solver vs brute force, grading,
uniqueness, generator, prompt text."""
from __future__ import annotations

import itertools
import random

import pytest

import tatham
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.puzzles.galaxies import ALPHABET, GalaxiesPuzzle, _flood, _geometry, _layout, _mirror, _wiggliness

ENV = envs.make("galaxies")

# A: vertex of cells (0,0)-(1,1); B: centre of cell (1, 2); C: edge between (2, 0) and (2, 1)
SMALL = "3x3:ghg"
SMALL_SOLUTION = ["AAB", "AAB", "CCB"]


def fixtures() -> list[dict]:
    return tatham.load("galaxies")


def respond(grid: list[str]) -> str:
    return "<reasoning>\nok\n</reasoning>\n<answer>\n" + "\n".join(grid) + "\n</answer>"


def record(game_id: str) -> dict:
    return ENV.from_game_id(game_id)


# ------------------------------------------------------------------ rule checker

def test_small_puzzle_by_hand():
    puzzle = ENV.decode(SMALL)
    assert puzzle.dots == ((2, 2), (3, 5), (5, 2))
    assert ENV.solve(puzzle) == [SMALL_SOLUTION]
    assert ENV.is_solution(puzzle, SMALL_SOLUTION)


def test_any_labels_are_accepted():
    puzzle = ENV.decode(SMALL)
    assert ENV.is_solution(puzzle, ["xxQ", "xxQ", "77Q"])
    rec = record(SMALL)
    rew = envs.score(rec, respond(["xxQ", "xxQ", "77Q"]))
    assert rew.correct and rew.parts["completion"] == 1.0
    # every fixture under a random relabelling
    rng = random.Random(0)
    for f in fixtures()[::7]:
        perm = dict(zip(ALPHABET, rng.sample(ALPHABET, len(ALPHABET))))
        grid = ["".join(perm[ch] for ch in row) for row in f["solution"]]
        assert ENV.is_solution(ENV.decode(f["game_id"]), grid)


def test_labels_outside_the_alphabet_are_not_exact():
    rec = record(SMALL)
    assert ENV.is_solution(ENV.decode(SMALL), ["..B", "..B", "CCB"])  # the rules alone allow '.'
    assert not envs.score(rec, respond(["..B", "..B", "CCB"])).correct  # the answer format does not


@pytest.mark.parametrize("game_id, grid, broken", [
    # two dots: A's region swallows B's
    (SMALL, ["AAA", "AAA", "CCA"], "contains two dots"),
    # regions without a dot: B keeps only its centre cell (1, 2), which is symmetric; (0, 2) and
    # (2, 2) are alone
    (SMALL, ["AAD", "AAB", "CCE"], "contains no dot"),
    # dots A (1,4), B (3,1), C (3,3) centre, D (3,5), E (5,2): C = {(0,0), (1,1), (2,2)} is symmetric
    # about (1, 1) and holds one dot, but touches only at corners; every other region is fine
    ("3x3:dgbbg", ["CAA", "BCD", "EEC"], "not connected"),
    # dots A vertex (2,2), B edge (4,5), C edge (5,2): A = the 2x2 block + (0, 2) is connected and holds
    # one dot, but (0, 2) has no mirror cell through A's dot; B and C are fine
    ("3x3:gmb", ["AAA", "AAB", "CCB"], "not symmetric"),
    # dots A centre (0,1), B edge between (0,0) and (1,0), C centre (1,1), D centre (2,1): rows are
    # symmetric regions around A, C and D, but B's two cells lie in different regions
    ("3x3:ccgj", ["AAA", "CCC", "DDD"], "different regions"),
])
def test_each_rule_is_checked(game_id, grid, broken):
    puzzle = ENV.decode(game_id)
    assert broken in ENV.violation(puzzle, grid)
    assert not ENV.is_solution(puzzle, grid)


def test_wrong_shapes_are_rejected():
    puzzle = ENV.decode(SMALL)
    assert not ENV.is_solution(puzzle, ["AAB", "AAB"])
    assert not ENV.is_solution(puzzle, ["AAB", "AAB", "CCBB"])


# ------------------------------------------------------------------ completion

def test_completion_maps_labels_one_to_one():
    rec, sol = record(SMALL), SMALL_SOLUTION
    puzzle = ENV.decode(SMALL)
    # relabelled with one wrong cell: q->A, r->B, s->C; (2, 2) is q but should be B; all cells weigh 2
    matches = ENV.cell_matches(puzzle, ["qqr", "qqr", "ssq"], sol)
    assert matches == [[True] * 3, [True] * 3, [True, True, False]]
    rew = envs.score(rec, respond(["qqr", "qqr", "ssq"]))
    assert not rew.correct and rew.parts["completion"] == pytest.approx((8 / 9) ** 3)
    # one answer label cannot stand for two regions: A->A (4 cells) wins, B's cells under A do not match
    assert ENV.cell_matches(puzzle, ["AAA", "AAA", "CCC"], sol) == [[True, True, False], [True, True, False],
                                                                   [True, True, False]]
    # unlabelled cells never match, even though '.' shares 4 cells with A
    assert ENV.cell_matches(puzzle, ["..B", "..B", "CCB"], sol)[0] == [False, False, True]
    assert envs.score(rec, respond(["..B", "..B", "CCB"])).parts["completion"] == pytest.approx((5 / 9) ** 3)
    assert envs.score(rec, respond(["...", "...", "..."])).parts["completion"] == 0.0


# ------------------------------------------------------------------ codec

@pytest.mark.parametrize("bad, words", [
    ("", "WxH:dots"), ("7x7", "WxH:dots"), ("7:abc", "WxH:dots"), ("axb:abc", "whole numbers"),
    ("7x-7:a", "whole numbers"), ("07x7:a", "leading zero"), ("\uff17x7:a", "whole numbers"),
    ("2x7:a", "3 to 64"), ("65x7:a", "3 to 64"),
    ("99999x99999:a", "3 to 64"), ("5x5:a!b", "invalid character"), ("5x5:aZ", "invalid character"),
    ("5x5:zzzza", "past the end"), ("5x5:" + "z" * 10**6, "past the end"), ("5x5:zzz", "end with 'z'"),
    ("5x5:", "no dots"),
    ("5x5:aa", "too close"), ("5x5:jj", "too close"), ("3x3:" + "a" * 30, "past the end"),
])
def test_decode_says_what_is_wrong(bad, words):
    with pytest.raises(ValueError, match=words):
        ENV.decode(bad)


def test_decode_refuses_more_dots_than_labels():
    every_cell = GalaxiesPuzzle(9, 7, tuple((2 * r + 1, 2 * c + 1) for r in range(7) for c in range(9)))
    with pytest.raises(ValueError, match="at most 62"):
        ENV.decode(ENV.encode(every_cell))  # 63 dots


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789x:abcdefghijklmnopqrstuvwxyzABCYZ!", max_size=30) | st.text(max_size=30))
def test_decode_raises_only_value_error(text):
    try:
        puzzle = ENV.decode(text)
    except ValueError as e:
        assert str(e)
    else:
        assert ENV.encode(puzzle) == text


def test_black_dots_round_trip():
    gid = "5x5:fUcmltd"  # a fixture with one dot upper-cased (Tatham's picture generator's black dot)
    puzzle = ENV.decode(gid)
    assert puzzle.black == frozenset({1}) and ENV.encode(puzzle) == gid
    assert ENV.solve(puzzle) == ENV.solve(ENV.decode("5x5:fucmltd"))


def test_non_string_game_id():
    with pytest.raises(ValueError):
        ENV.decode(None)


# ------------------------------------------------------------------ bitboards and solver

def test_mirror_and_flood_match_cell_arithmetic():
    rng = random.Random(1)
    for w, h in ((3, 3), (7, 5), (8, 8)):
        g = _geometry(w, h)
        for (y, x), (touching, mirrorable, shift) in g.points.items():
            cells = [(r, c) for r, c in g.cells(mirrorable) if rng.random() < 0.5]
            bits = sum(g.bit(r, c) for r, c in cells)
            assert g.cells(_mirror(bits, shift)) == sorted((y - 1 - r, x - 1 - c) for r, c in cells)
            assert all(0 <= y - 1 - r < h and 0 <= x - 1 - c < w for r, c in g.cells(mirrorable))
            assert len(g.cells(mirrorable)) == sum(0 <= y - 1 - r < h and 0 <= x - 1 - c < w
                                                   for r in range(h) for c in range(w))
        # flood never crosses a row end
        assert _flood(g.bit(0, w - 1), g.bit(0, w - 1) | g.bit(1, 0), g.stride) == g.bit(0, w - 1)


def brute_force(puzzle: GalaxiesPuzzle, limit: int = 3) -> list[list[str]]:
    """Every labelling that passes the rule checker, trying for each cell only the dots whose mirror
    image of it is on the grid."""
    w, h = puzzle.width, puzzle.height
    options = [[ALPHABET[k] for k, (y, x) in enumerate(puzzle.dots)
                if 0 <= y - 1 - r < h and 0 <= x - 1 - c < w] for r in range(h) for c in range(w)]
    found = []
    for labels in itertools.product(*options):
        grid = ["".join(labels[r * w:(r + 1) * w]) for r in range(h)]
        if ENV.is_solution(puzzle, grid):
            found.append(grid)
            if len(found) == limit:
                break
    return found


def test_solver_agrees_with_brute_force():
    rng = random.Random(2)
    puzzles = [ENV.decode(gid) for gid in (SMALL, "3x3:cjj", "3x3:dgbbg", "3x3:gmb", "3x3:ccgj")]
    while len(puzzles) < 30:
        w, h = rng.choice([(3, 3), (4, 3)])
        points = [(y, x) for y in range(1, 2 * h) for x in range(1, 2 * w)]
        puzzle = GalaxiesPuzzle(w, h, tuple(sorted(rng.sample(points, rng.randint(2, 3)))))
        try:
            puzzles.append(ENV.decode(ENV.encode(puzzle)))
        except ValueError:
            continue  # dots too close
    counts = set()
    for puzzle in puzzles:
        truth = brute_force(puzzle)
        assert sorted(ENV.solve(puzzle, max_solutions=3)) == sorted(truth), ENV.encode(puzzle)
        counts.add(min(len(truth), 2))
    assert counts == {0, 1, 2}  # impossible, unique and ambiguous puzzles all occur


def test_ambiguous_puzzle_is_refused():
    # three cell-centre dots down the middle column: rows, or the middle region takes the corners too
    gid = "3x3:cjj"
    puzzle = ENV.decode(gid)
    solutions = ENV.solve(puzzle, max_solutions=5)
    assert sorted(solutions) == [["AAA", "BBB", "CCC"], ["BAB", "BBB", "BCB"]]
    assert all(ENV.is_solution(puzzle, s) for s in solutions)
    assert ENV.grade(puzzle) is None
    with pytest.raises(ValueError, match="more than one solution"):
        ENV.from_game_id(gid)


def test_impossible_puzzle_is_refused():
    puzzle = ENV.decode("3x3:dgbbg")  # (0, 0) can only join B's region, which E's dot blocks
    assert ENV.solve(puzzle) == [] and ENV.grade(puzzle) is None
    with pytest.raises(ValueError, match="no solution"):
        ENV.from_game_id("3x3:dgbbg")


def test_solver_gives_up_with_a_value_error(monkeypatch):
    import envs.puzzles.galaxies as galaxies

    # 20 scattered dots on 30x30: impossible, but only a huge search shows it
    gid = ("30x30:zzhzzzzzzzwzzzzzbzzzzzzzzzzzzzzzzzzezzzzzzzzzdzzzzzzzzzdzzzzzzzzzzzzzmzzzzztzjzzzzz"
           "ozzzzzzzgzzzzlpzzzzzzzzznzzzzuzzzzzzzzzzzkzmzzzzzzzzzzzzzyzzzfzzm")
    monkeypatch.setattr(galaxies, "MAX_SEARCH_NODES", 30)
    with pytest.raises(ValueError, match="gave up"):
        ENV.from_game_id(gid)
    assert ENV.grade(ENV.decode(gid)) is None


def test_fixture_grades_match_tatham():
    # README order: 25 5x5 normal, 25 7x7 normal, 25 7x7 unreasonable, 25 8x8 unreasonable; Tatham's
    # own galaxiessolver grades all 100 this way, and so do our techniques
    for i, f in enumerate(fixtures()):
        expected = "normal" if i < 50 else "unreasonable"
        assert ENV.grade(ENV.decode(f["game_id"])) == expected, f["game_id"]


# ------------------------------------------------------------------ generator and text

def wiggles_cell_by_cell(owner_of: dict[tuple[int, int], int], w: int, h: int) -> int:
    """Inward corners counted one cell at a time, as Tatham's measure_wiggliness: a cell whose
    neighbours in two directions at a right angle are in one region that the cell is not in. Like
    his loop (`if (y+2 < state->sy)`), cells of the bottom row are not counted."""
    total = 0
    for r in range(h - 1):
        for c in range(w):
            for (dr, dc) in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                a, b = (r + dr, c + dc), (r + dc, c - dr)  # a direction and the one a right angle round
                if a in owner_of and b in owner_of and owner_of[a] == owner_of[b] != owner_of[r, c]:
                    total += 1
    return total


def test_layouts_are_valid_partitions():
    # the generator's regions before grading: every cell in one region, each region holding its
    # dot's cells, symmetric about the dot and connected; the fast bytewise wiggliness agrees with a
    # cell-by-cell count
    rng = random.Random(3)
    for w, h in ((3, 3), (4, 6), (5, 5), (7, 7), (9, 9), (10, 6), (15, 15)):
        g = _geometry(w, h)
        for _ in range(40):
            dots, cells_of, owner = _layout(rng, g)
            assert sum(cells_of) == g.full and sum(c.bit_count() for c in cells_of) == w * h
            owner_of = {}
            for k, (p, cells) in enumerate(zip(dots, cells_of), 1):
                touching, _, shift = g.points[g.ys[p], g.xs[p]]
                assert touching & ~cells == 0
                assert _mirror(cells, shift) == cells
                assert _flood(touching, cells, g.stride) == cells
                assert all(owner[r * g.stride + c] == k for r, c in g.cells(cells))
                owner_of.update(dict.fromkeys(g.cells(cells), k))
            assert _wiggliness(owner, g) == wiggles_cell_by_cell(owner_of, w, h)


@pytest.mark.parametrize("w, h, level", [(5, 5, "normal"), (6, 4, "normal"), (7, 7, "unreasonable")])
def test_generator_gives_the_level_asked(w, h, level):
    for seed in range(3):
        puzzle, solution = ENV.new_puzzle(random.Random(seed), w, h, level)
        assert (puzzle.width, puzzle.height) == (w, h)
        assert ENV.grade(puzzle) == level
        assert ENV.solve(puzzle) == [solution]
        assert ENV.new_puzzle(random.Random(seed), w, h, level) == (puzzle, solution)


def test_ladder_and_levels():
    assert ENV.levels == ("normal", "unreasonable")
    assert ENV.ladder[0] == (5, 5, "normal")
    assert len(ENV.ladder) >= 5 and {(7, 7, "unreasonable"), (8, 8, "unreasonable")} <= set(ENV.ladder)
    assert len(ENV.alphabet) == 62 == len(set(ENV.alphabet))


def test_describe_places_every_kind_of_dot():
    # A centre of (0, 0), B vertex of rows 0-1 / columns 1-2, C edge between (2, 3) and (3, 3),
    # D edge between (5, 5) and (5, 6)
    puzzle = GalaxiesPuzzle(7, 6, ((1, 1), (2, 4), (6, 7), (11, 12)))
    text = ENV.describe(puzzle)
    assert "dot A: centre of cell (0, 0)" in text
    assert "dot B: on the vertex between rows 0-1 and columns 1-2" in text
    assert "dot C: on the edge between cells (2, 3) and (3, 3)" in text
    assert "dot D: on the edge between cells (5, 5) and (5, 6)" in text
    picture = [line for line in text.splitlines() if line.startswith(("+", "|"))]
    assert len(picture) == 13 and all(len(line) == 15 for line in picture)
    assert picture[1][1] == "A" and picture[2][4] == "B" and picture[6][7] == "C" and picture[11][12] == "D"


def test_explain_is_short_and_names_the_case_split():
    normal = record(fixtures()[0]["game_id"])
    hard = record(fixtures()[60]["game_id"])
    for rec in (normal, hard):
        reasoning = rec["answer"].split("</reasoning>")[0]
        assert 3 <= len(reasoning.splitlines()) <= 9
        assert envs.score(rec, rec["answer"]).correct
    assert "stall" not in normal["answer"] and "stall" in hard["answer"]
