"""Undead: hand-checked lines of sight, the rule checker, the game-ID codec, Tatham's levels and
the generator. Registry-wide checks (fixtures, single-cell changes, hostile output) live in
test_puzzles.py."""
from __future__ import annotations

import itertools
import random
import re
from collections import Counter

import pytest

import tatham
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.puzzles.undead import UndeadPuzzle, decode_id, encode_id, sightings


# A 3x3 board traced by hand (edges clockwise from the top-left: top 0-2, right 3-5, bottom 6-8
# from the right, left 9-11 from the bottom):
#     V \ G      k0  top col 0: V direct (1), then '/' sends it out left of row 1      -> 1
#     / Z V      k1  top col 1: '\' at once, then G in the mirror (1)                  -> 1
#     G V Z      k2  top col 2: G direct (0), V direct, Z                              -> 2
#                k3  right row 0: G direct (0), then '\' out the top                   -> 0
#                k4  right row 1: V, Z direct, '/' turns down, G in the mirror         -> 3
#                k5  right row 2: Z, V direct, G direct (0)                            -> 2
#                k6  bottom col 2: Z, V, G direct                                      -> 2
#                k7  bottom col 1: V, Z direct, '\' turns left, V in the mirror (0)    -> 2
#                k8  bottom col 0: G direct (0), '/' turns right, Z, V in mirror (0)   -> 1
#                k9  left row 2: G (0), V, Z                                           -> 2
#                k10 left row 1: '/' at once turns up, V in the mirror (0)             -> 0
#                k11 left row 0: V direct, '\' turns down, Z, V in the mirror (0)      -> 2
BOARD = ["V\\G", "/ZV", "GVZ"]
CLUES = (1, 1, 2, 0, 3, 2, 2, 2, 1, 2, 0, 2)
GAME_ID = "3x3:2,3,2,aLaRe," + ",".join(map(str, CLUES))


@pytest.fixture(scope="module")
def env():
    return envs.make("undead")


def fixtures() -> list[dict]:
    return tatham.load("undead")


def with_clue(k: int, n: int) -> UndeadPuzzle:
    p = decode_id(GAME_ID)
    return UndeadPuzzle(p.width, p.height, p.totals, p.grid, p.clues[:k] + (n,) + p.clues[k + 1:])


def test_lines_of_sight_traced_by_hand(env):
    assert tuple(sightings(BOARD, 3, 3, k) for k in range(12)) == CLUES
    p = env.decode(GAME_ID)
    assert p.grid == (".\\.", "/..", "...") and p.totals == (2, 3, 2)
    assert env.is_solution(p, BOARD)


@pytest.mark.parametrize("k, n, why", [
    (0, 0, "a vampire seen directly counts"),
    (1, 0, "a ghost seen in a mirror counts"),
    (8, 0, "a zombie seen in a mirror counts"),
    (2, 1, "a zombie seen directly counts"),
    (10, 1, "a vampire seen in a mirror does not count"),
    (8, 2, "a vampire seen in a mirror does not count (behind a zombie)"),
    (3, 1, "a ghost seen directly does not count"),
    (6, 3, "a ghost seen directly does not count (behind a zombie and a vampire)"),
])
def test_each_line_of_sight_rule_is_checked(env, k, n, why):
    assert not env.is_solution(with_clue(k, n), BOARD), why


def test_totals_are_checked(env):
    p = decode_id(GAME_ID)
    for totals in [(3, 2, 2), (2, 2, 3), (1, 3, 3)]:  # same cell count, every edge number still right
        wrong = UndeadPuzzle(3, 3, totals, p.grid, p.clues)
        assert not env.is_solution(wrong, BOARD)


def test_board_shape_mirrors_and_junk_are_rejected(env):
    p = env.decode(GAME_ID)
    for bad in [["G\\G", "/ZV", "GVZ"],  # wrong monster
                ["V/G", "/ZV", "GVZ"],  # mirror turned
                ["VGG", "/ZV", "GVZ"],  # mirror removed
                ["V\\G", "/Z\\", "GVZ"],  # mirror added
                ["V\\G", "/.V", "GVZ"],  # cell left empty
                ["V\\G", "/ZV"], ["V\\G", "/ZV", "GVZ", "GVZ"], ["V\\G", "/ZVV", "GV"],
                None, "V\\G/ZVGVZ", [["V", "\\", "G"], "/ZV", "GVZ"], [1, 2, 3]]:
        assert not env.is_solution(p, bad)


def test_monster_passed_twice_counts_twice(env):
    # top of column 0 goes down through (0,0), round the three mirrors and back through (0,0)
    # directly, then in the mirrors: a zombie is seen twice, a vampire or ghost once
    zombie = env.decode("2x2:0,0,1,aLLR,2,0,0,0,0,0,0,2")
    assert env.solve(zombie) == [["Z\\", "\\/"]]
    assert env.is_solution(zombie, ["Z\\", "\\/"])
    assert not env.is_solution(env.decode("2x2:0,0,1,aLLR,1,0,0,0,0,0,0,1"), ["Z\\", "\\/"])
    assert env.solve(env.decode("2x2:0,1,0,aLLR,1,0,0,0,0,0,0,1")) == [["V\\", "\\/"]]
    assert env.solve(env.decode("2x2:1,0,0,aLLR,1,0,0,0,0,0,0,1")) == [["G\\", "\\/"]]


def test_uniqueness_check_rejects_ambiguous_and_impossible_puzzles(env):
    ambiguous = "2x2:2,2,0,d,1,1,1,1,1,1,1,1"  # no mirrors: GV/VG and VG/GV look the same
    assert sorted(map(tuple, env.solve(env.decode(ambiguous), max_solutions=5))) == [("GV", "VG"), ("VG", "GV")]
    assert env.grade(env.decode(ambiguous)) is None
    with pytest.raises(ValueError, match="more than one solution"):
        env.from_game_id(ambiguous)
    impossible = "2x2:2,2,0,d,0,0,0,0,0,0,0,0"
    assert env.solve(env.decode(impossible)) == []
    with pytest.raises(ValueError, match="no solution"):
        env.from_game_id(impossible)


def test_solver_matches_brute_force_on_small_boards(env):
    rng = random.Random(0)
    for _ in range(25):
        w, h = rng.choice([(2, 3), (3, 3), (3, 2)])
        board = ["".join(rng.choice("GVZ\\/") for _ in range(w)) for _ in range(h)]
        flat = "".join(board)
        clues = ",".join(str(sightings(board, w, h, k)) for k in range(2 * (w + h)))
        grid = "".join("L" if ch == "\\" else "R" if ch == "/" else "a" for ch in flat)
        p = env.decode(f"{w}x{h}:{flat.count('G')},{flat.count('V')},{flat.count('Z')},{grid},{clues}")
        cells = [i for i, ch in enumerate(flat) if ch in "GVZ"]
        brute = []
        for fill in itertools.product("GVZ", repeat=len(cells)):
            chars = list(flat)
            for i, ch in zip(cells, fill):
                chars[i] = ch
            rows = ["".join(chars[r * w:(r + 1) * w]) for r in range(h)]
            if env.is_solution(p, rows):
                brute.append(rows)
        assert sorted(env.solve(p, max_solutions=10 ** 6)) == sorted(brute)
        assert board in brute


def test_fixed_monsters_in_the_game_id(env):
    gid = "3x3:2,3,2,VLaRe," + ",".join(map(str, CLUES))
    p = env.decode(gid)
    assert env.encode(p) == gid
    assert env.initial_board(p) == ["V\\.", "/..", "..."]
    solutions = env.solve(p, max_solutions=50)
    assert BOARD in solutions and all(sol[0][0] == "V" for sol in solutions)
    assert env.is_solution(p, BOARD)
    assert not env.is_solution(env.decode("3x3:2,3,2,GLaRe," + ",".join(map(str, CLUES))), BOARD)


def test_game_id_round_trips_long_runs():
    for gid in ["6x5:10,10,9,zcL," + ",".join(["0"] * 22),
                "8x7:20,20,16,zzd," + ",".join(["1"] * 30),
                "8x7:20,20,15,zLzc," + ",".join(["1"] * 30)]:
        p = decode_id(gid)
        assert encode_id(p) == gid
    assert "".join(decode_id("6x5:10,10,9,zcL," + ",".join(["0"] * 22)).grid).count(".") == 29
    # numbers past the encoder's table of small ones; mirrors and givens between runs
    big = "20x20:300,10,88," + "z" * 15 + "dLRGVZa," + ",".join(map(str, range(250, 330)))
    assert encode_id(decode_id(big)) == big


@pytest.mark.parametrize("bad, message", [
    ("", "must look like"),
    ("5x5", "must look like"),
    ("5:1,2,3", "must look like"),
    ("0x3:0,0,0,i,0,0,0,0,0,0", "out of range"),
    ("65x3:0,0,0,a", "out of range"),
    ("99999x99999:a", "must look like"),
    ("3x3:2,3,2,aLaRe,1,1", "needs 3 monster totals, a grid and 12 edge numbers"),
    ("3x3:2,3,2,aLaRe," + ",".join(["1"] * 13), "got more"),
    ("3x3:2,3,2,aL!Re," + ",".join(["1"] * 12), "invalid character '!'"),
    ("3x3:2,3,2,aLaRd," + ",".join(["1"] * 12), "covers 8 cells, expected 3x3 = 9"),
    ("3x3:2,3,2,aLaRf," + ",".join(["1"] * 12), "covers more than 3x3 = 9 cells"),
    ("3x3:2,3,3,aLaRe," + ",".join(["1"] * 12), "add up to 8"),
    ("3x3:2,x,2,aLaRe," + ",".join(["1"] * 12), "monster total 'x'"),
    ("3x3:2,3,2,aLaRe," + ",".join(["1"] * 11) + ",-1", "edge number '-1'"),
    ("3x3:2,3,2,aLaRe," + ",".join(["1"] * 11) + ",", "edge number ''"),
    ("3x3:2,3,2,aLaRe," + ",".join(["1"] * 11) + ",²", "edge number"),
])
def test_invalid_game_ids_say_what_is_wrong(env, bad, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        env.decode(bad)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=60), st.text(alphabet="0123456789x:,LRGVZaez!", max_size=60),
                 st.text(alphabet="0123456789,LRae", max_size=40).map(lambda s: "3x3:" + s)))
def test_decode_raises_only_value_error(text):
    try:
        p = decode_id(text)
    except ValueError as e:
        assert str(e)
    else:
        assert decode_id(encode_id(p)) == p


def test_fixture_levels_match_tatham():
    """The README says 5x5 easy/tricky and 7x7 normal/tricky, 25 each; our grader, which follows
    the rating rules of Tatham's generator, must agree."""
    env = envs.make("undead")
    levels = Counter((f["width"], env.grade(env.decode(f["game_id"]))) for f in fixtures())
    assert levels == {(5, "easy"): 25, (5, "tricky"): 25, (7, "normal"): 25, (7, "tricky"): 25}


@pytest.mark.parametrize("w, h, level", [(3, 3, "easy"), (4, 4, "normal"), (4, 3, "tricky"), (5, 5, "tricky"),
                                         (6, 6, "easy"), (7, 7, "normal")])
def test_generator_makes_unique_puzzles_of_the_asked_level(env, w, h, level):
    for seed in range(2):
        p, solution = env.new_puzzle(random.Random(seed), w, h, level)
        assert (p.width, p.height) == (w, h)
        assert env.solve(p) == [solution]
        assert env.grade(p) == level
        assert env.is_solution(p, solution)
        assert min(p.totals) >= (2 if level == "tricky" else 0) and sum(1 for n in p.totals if n) >= 2
        assert env.new_puzzle(random.Random(seed), w, h, level) == (p, solution)


def test_generator_rejects_what_it_cannot_make(env):
    for w, h, level in [(2, 5, "easy"), (11, 5, "easy"), (5, 5, "hard")]:
        with pytest.raises(ValueError):
            env.new_puzzle(random.Random(0), w, h, level)


def test_ladder_grows_from_small_easy_past_the_fixture_sizes(env):
    assert env.ladder[0] == (4, 4, "easy") and len(env.ladder) >= 5
    assert all(level in env.levels for _, _, level in env.ladder)
    assert max(w * h for w, h, _ in env.ladder) > 49
    rec = env.generate(seed=3, difficulty=3)
    assert rec["meta"]["level"] == "tricky" and env.grade(env.decode(rec["meta"]["game_id"])) == "tricky"


def test_describe_lists_every_given(env):
    text = env.describe(env.decode(GAME_ID))
    for line in ["Monster totals: 2 ghosts (G), 3 vampires (V), 2 zombies (Z).",
                 "  1 1 2",
                 "2 . \\ . 0",
                 "0 / . . 3",
                 "2 . . . 2",
                 "- top, looking down, columns 0 to 2: 1, 1, 2",
                 "- bottom, looking up, columns 0 to 2: 1, 2, 2",
                 "- left, looking right, rows 0 to 2: 2, 0, 2",
                 "- right, looking left, rows 0 to 2: 0, 3, 2",
                 "Mirrors '\\' at: (0, 1)",
                 "Mirrors '/' at: (1, 0)"]:
        assert line in text.splitlines(), line


def test_explain_claims_are_true_and_short(env):
    for f in fixtures()[::10]:
        p = env.decode(f["game_id"])
        text = env.explain(p, f["solution"])
        assert len(text.splitlines()) <= 6 and text.endswith("...and the rest follows.")
        claims = re.findall(r"a (ghost|vampire|zombie) at \((\d+), (\d+)\)", text)
        assert claims
        for name, r, c in claims:
            assert f["solution"][int(r)][int(c)] == name[0].upper()


@pytest.mark.parametrize("game_id, sweeps, n_open, level", [
    ("5x5:9,3,5,fRRcRLbRLaLdRa,0,2,1,2,4,1,1,4,3,1,4,1,4,2,1,2,3,1,1,1", 3, 0, "easy"),
    ("5x5:5,8,2,LRRRaRhLaRbRbLaL,0,0,2,1,1,2,3,1,0,0,1,3,2,3,4,0,3,4,0,0", 4, 0, "normal"),
    ("5x5:7,3,8,aRRbReRaLRhRa,1,1,1,2,2,4,3,1,4,1,2,0,3,7,6,6,4,1,1,1", 3, 3, "normal"),
])
def test_level_boundaries(env, game_id, sweeps, n_open, level):
    """Easy = settled within 3 sweeps; 4 sweeps, or up to 3 cells left for search, is normal."""
    from envs.puzzles.undead import _maze, _sweeps

    maze = _maze(env.decode(game_id))
    dom = maze.start()
    assert _sweeps(maze, dom) == (sweeps, True)
    assert sum(1 for d in dom if d & (d - 1)) == n_open
    assert env.grade(env.decode(game_id)) == level


def test_line_of_sight_deduction_matches_enumeration():
    """Both deductions (the filling table of short lines and the bitset pass) keep exactly the
    monsters that some filling of the line allows (both of its numbers right, open cells not
    exceeding what is left of each total)."""
    from envs.puzzles.undead import _maze, _support_pass, _support_table

    rng = random.Random(1)
    checked = 0
    for _ in range(40):
        w, h = rng.choice([(3, 3), (4, 3), (4, 4)])
        board = ["".join(rng.choice("GVZGVZ\\/") for _ in range(w)) for _ in range(h)]
        flat = "".join(board)
        clues = [sightings(board, w, h, k) for k in range(2 * (w + h))]
        if rng.random() < 0.3:  # sometimes numbers no filling meets
            clues[rng.randrange(len(clues))] += 1
        p = UndeadPuzzle(w, h, tuple(flat.count(m) for m in "GVZ"),
                         tuple("".join(ch if ch in "\\/" else "." for ch in row) for row in board), tuple(clues))
        maze = _maze(p)
        dom = [rng.choice([1, 2, 4, 3, 5, 6, 7, 7, 7]) for _ in maze.pos]
        caps = [rng.randrange(0, 4) for _ in range(3)]
        for ln, goal in zip(maze.lines, maze.goals):
            open_cells = [c for c in ln.cells if dom[c] & (dom[c] - 1)]
            seen = {c: 0 for c in open_cells}
            feasible = False
            for fill in itertools.product(*[[t for t in range(3) if dom[c] >> t & 1] for c in ln.cells]):
                rows = [list(row) for row in p.grid]
                for c, t in zip(ln.cells, fill):
                    r, col = maze.pos[c]
                    rows[r][col] = "GVZ"[t]
                rows = ["".join(row) for row in rows]
                placed = [sum(1 for c, t in zip(ln.cells, fill) if t == m and c in seen) for m in range(3)]
                if (sightings(rows, w, h, ln.a), sightings(rows, w, h, ln.b)) == (clues[ln.a], clues[ln.b]) \
                        and all(n <= cap for n, cap in zip(placed, caps)):
                    feasible = True
                    for c, t in zip(ln.cells, fill):
                        if c in seen:
                            seen[c] |= 1 << t
            got = _support_pass(ln, goal, dom, caps)
            assert (got is not None) == feasible
            if ln.table is not None:
                from_table = _support_table(ln, ln.table.reach.get(goal, 0) if goal >= 0 else 0, dom, caps)
                assert from_table == got  # same cells, same order (the sweep log depends on it)
            if feasible:
                assert dict(got) == seen
                checked += 1
    assert checked > 100


def _sweeps_reference(maze, dom):
    """Tatham's solve_iterative loop, literally: every line every sweep, until nothing changes."""
    from envs.puzzles.undead import _support

    depth, log = 0, []
    while True:
        changed = False
        for ln, goal in zip(maze.lines, maze.goals):
            caps = maze.caps(dom)
            support = _support(ln, goal, dom, caps)
            if support is None:
                return depth + 1, False, log
            for c, s in support:
                if dom[c] & ~s:
                    dom[c] &= s
                    changed = True
                    if not dom[c] & (dom[c] - 1):
                        log.append((ln, c, dom[c]))
        depth += 1
        if not changed or all(not d & (d - 1) for d in dom):
            return depth, True, log


@pytest.mark.parametrize("w, h", [(4, 4), (5, 5), (7, 7)])
def test_sweeps_skip_only_lines_that_would_not_change(w, h):
    """_sweeps skips lines whose cells and binding totals did not change: its sweeps, domains,
    log and consistency equal those of applying every line every sweep, on generated boards
    with their numbers, with one number changed, and from partly filled domains."""
    from envs.puzzles.undead import _layout, _sweeps

    rng = random.Random(w)
    for trial in range(30):
        maze = _layout(rng, w, h, "tricky" if trial % 2 else "easy")
        board = [rng.choice((1, 2, 4)) for _ in maze.pos]
        totals, clues = maze.numbers(board)
        if trial % 3 == 1:
            clues = list(clues)
            clues[rng.randrange(len(clues))] += rng.choice((-1, 1)) if min(clues) else 1
        maze.set_numbers(totals, clues)
        start = [rng.choice((d, 7, 7)) if trial % 3 == 2 else 7 for d in board]
        fast, slow, log = list(start), list(start), []
        assert _sweeps(maze, fast, log) + (log,) == _sweeps_reference(maze, slow)
        assert fast == slow


@pytest.mark.parametrize("w, h", [(4, 4), (7, 7)])
def test_unique_views_are_tathams_get_unique(w, h):
    """The candidates of Tatham's get_unique, from the filling table (lines of up to 6 cells) or
    by counting (longer lines): every filling within the guesses that alone gives its pair of
    numbers, in his enumeration order (itertools.product over the cells in path order)."""
    from envs.puzzles.undead import _layout, _unique_views

    rng = random.Random(h)
    long_lines = 0
    for _ in range(10):
        maze = _layout(rng, w, h, "normal")
        guess = [rng.choice((1, 2, 4, 3, 5, 6, 7, 7, 7)) for _ in maze.pos]
        for ln in maze.lines:
            long_lines += ln.table is None
            views = {}
            for fill in itertools.product(*[[t for t in range(3) if guess[c] >> t & 1] for c in ln.cells]):
                state = sum(sh[t] for sh, t in zip(ln.shifts, fill))
                views.setdefault(state, []).append(fill)
            got = _unique_views(ln, guess)
            if ln.table is not None:  # filling j as the bit 1 << j, j counting the reversed cells in base 3
                got = [tuple((x.bit_length() - 1) // 3 ** p % 3 for p in reversed(range(len(ln.cells)))) for x in got]
            assert got == [fills[0] for fills in views.values() if len(fills) == 1]
    assert long_lines or w < 7


def test_easy_puzzles_are_made_as_tatham_makes_them(env):
    """Tatham's easy boards come from unique-view fillings of the shortest lines: nearly all are
    settled by the first sweep (random monsters with repair gave 1 to 3 sweeps in equal parts)."""
    from envs.puzzles.undead import _generate

    rng = random.Random(0)
    sweeps = Counter(_generate(rng, 5, 5, "easy")[0].rated[1] for _ in range(40))
    assert sweeps[1] >= 30 and set(sweeps) <= {1, 2, 3}
