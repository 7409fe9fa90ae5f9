"""Registry-wide tests of the four Tatham puzzles against the real fixtures and generated instances."""
from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import envs
import tatham
from envs.puzzles import PUZZLES

NAMES = sorted(PUZZLES)


def fixtures(name: str) -> list[dict]:
    return tatham.load(name)


def respond(grid: list[str]) -> str:
    return "<reasoning>\nok\n</reasoning>\n<answer>\n" + "\n".join(grid) + "\n</answer>"


@pytest.mark.parametrize("name", NAMES)
def test_fixtures_decode_solve_verify(name):
    env = envs.make(name)
    fx = fixtures(name)
    assert len(fx) >= 100
    for f in fx:
        puzzle = env.decode(f["game_id"])
        assert (puzzle.width, puzzle.height) == (f["width"], f["height"])
        assert env.encode(puzzle) == f["game_id"], "game ID must round-trip"
        assert env.solve(puzzle, max_solutions=2) == [f["solution"]], f["game_id"]
        rec = env.from_game_id(f["game_id"])
        assert rec["meta"]["solution"] == f["solution"]
        rew = envs.score(rec, respond(f["solution"]))
        assert rew.correct and rew.parts["exact"] == 1.0 and rew.parts["completion"] == 1.0
        assert rew.parts["format"] == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_single_cell_change_is_not_exact(name):
    env = envs.make(name)
    for f in fixtures(name):
        rec = env.from_game_id(f["game_id"])
        puzzle = env.decode(f["game_id"])
        initial = env.initial_board(puzzle)
        sol = f["solution"]
        for r in range(f["height"]):
            for c in range(f["width"]):
                if name != "galaxies" and initial[r][c] == sol[r][c] and initial[r][c] != ".":
                    continue  # a given (island, mirror): not the solver's to change
                others = sorted(set(env.alphabet if name != "galaxies" else "".join(sorted(set("".join(sol)))))
                                - {sol[r][c]})
                for ch in others:
                    grid = [row if i != r else row[:c] + ch + row[c + 1:] for i, row in enumerate(sol)]
                    assert not envs.score(rec, respond(grid)).correct, (f["game_id"], r, c, ch)


@pytest.mark.parametrize("name", NAMES)
def test_generated_instances(name):
    env = envs.make(name)
    for d in range(min(3, len(env.ladder))):
        for seed in (1, 2):
            rec = env.generate(seed=seed, difficulty=d)
            assert rec == env.generate(seed=seed, difficulty=d), "same seed, same record"
            assert rec["env"] == name and rec["difficulty"] == d
            puzzle = env.decode(rec["meta"]["game_id"])
            assert env.encode(puzzle) == rec["meta"]["game_id"]
            assert env.solve(puzzle, max_solutions=2) == [rec["meta"]["solution"]], "exactly one solution"
            w, h, _ = env.ladder[d]
            assert (rec["meta"]["width"], rec["meta"]["height"]) == (w, h)
            rew = envs.score(rec, rec["answer"])
            assert rew.correct and rew.value == pytest.approx(env.reward_range[1])
            again = env.from_game_id(rec["meta"]["game_id"])  # graded back onto the same rung
            assert again["difficulty"] == d and again["meta"]["solution"] == rec["meta"]["solution"]
    assert env.generate(seed=1, difficulty=0) != env.generate(seed=3, difficulty=0)


@pytest.mark.parametrize("name", NAMES)
def test_explicit_size_and_level(name):
    w, h, level = envs.make(name).ladder[0]
    env = envs.make(name, width=w + 1, height=h, level=level)
    rec = env.generate(seed=5)
    assert (rec["meta"]["width"], rec["meta"]["height"]) == (w + 1, h)
    assert envs.score(rec, rec["answer"]).correct
    assert env.from_game_id(rec["meta"]["game_id"])["difficulty"] == -1  # a size off the ladder


@pytest.mark.parametrize("name", NAMES)
def test_invalid_game_ids_say_what_is_wrong(name):
    env = envs.make(name)
    for bad in ["", "garbage", "5x5", "0x0:", "5x5:" + "!" * 10, "99999x99999:a"]:
        with pytest.raises(ValueError) as e:
            env.from_game_id(bad)
        assert str(e.value)


@pytest.mark.parametrize("name", NAMES)
def test_corrupt_record_names_the_record(name):
    env = envs.make(name)
    rec = env.generate(seed=0)
    for broken in ({**rec, "meta": {}}, {**rec, "meta": {**rec["meta"], "game_id": "nonsense"}}):
        with pytest.raises(ValueError, match=rec["id"]):
            envs.score(broken, rec["answer"])
    with pytest.raises(ValueError, match=rec["id"]):
        envs.score({k: v for k, v in rec.items() if k != "meta"}, "x")


@pytest.mark.parametrize("name", NAMES)
def test_hostile_outputs_stay_in_range(name):
    env = envs.make(name)
    rec = env.generate(seed=0)
    sol = rec["meta"]["solution"]
    lo, hi = env.reward_range
    hostile = ["", "no tags at all", "<answer></answer>", "<answer>" * 1000, "</answer>" * 1000,
               "<answer>\n" + "\n".join(sol) + "\n</answer><answer>x</answer>",
               "<answer>\n" + "\n".join(r[::-1] for r in sol) + "\n",
               "<answer>\n" + "\n".join(sol[:-1]) + "\n</answer>",
               "<answer>\n" + "\n".join(r + "." for r in sol) + "\n</answer>",
               "<answer>\n" + "\n".join("é" * len(r) for r in sol) + "\n</answer>",
               "<answer>\n" + "\n".join("\x00" * len(r) for r in sol) + "\n</answer>",
               "<reasoning><reasoning>" + "x" * 1_000_000 + "</answer>",
               "<answer><answer>\n" + "\n".join(sol) + "\n</answer>",
               "x" * 1_000_000 + "<answer>\n" + "\n".join(sol) + "\n</answer>"]
    for text in hostile:
        rew = envs.score(rec, text)
        assert lo <= rew.value <= hi and isinstance(rew.correct, bool)
    # the last complete answer block is the one graded
    assert envs.score(rec, hostile[-1]).correct
    assert envs.score(rec, hostile[12]).correct


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_verifier(name, data):
    env = envs.make(name)
    rec = env.generate(seed=0)
    w, h = rec["meta"]["width"], rec["meta"]["height"]
    chars = env.alphabet if name != "galaxies" else "ABCDEFGHIJ"
    rows = data.draw(st.lists(st.text(alphabet=chars, min_size=w, max_size=w), min_size=h, max_size=h))
    noise = data.draw(st.text(max_size=200))
    for text in ("<answer>\n" + "\n".join(rows) + "\n</answer>", noise, noise + respond(rows)):
        rew = envs.score(rec, text)
        assert env.reward_range[0] <= rew.value <= env.reward_range[1]
        assert rew.correct == (rew.parts["exact"] == 1.0)


def test_completion_and_format_by_hand():
    from envs.base import format_score
    from envs.puzzles.grid import completion_score

    initial = ["1..", "..."]
    solution = ["1-1", "..."]
    # cells (0,1),(0,2) differ from the initial board: weight 2; four others weight 1; total 8
    matches = [[True, False, True], [True, True, False]]
    assert completion_score(initial, solution, matches) == pytest.approx((1 + 2 + 1 + 1) ** 3 / 8 ** 3)
    assert completion_score(initial, solution, [[True] * 3, [True] * 3]) == 1.0
    assert format_score("<reasoning>a</reasoning><answer>b</answer>") == 1.0
    assert format_score("<answer>b</answer><reasoning>a</reasoning>") == 0.75  # order wrong
    assert format_score("<reasoning>a</reasoning><answer>b</answer><answer>c</answer>") == 0.25
    assert format_score("<reasoning>a<answer>b</answer>") == 0.5  # unclosed reasoning
    assert format_score("") == 0.25  # no duplicates, nothing else


def test_reward_weights_configurable():
    env = envs.make("pattern", w_exact=2.0, w_completion=0.0)
    rec = env.generate(seed=0)
    rew = envs.score(rec, rec["answer"], env=env)
    assert rew.value == pytest.approx(2.1) and env.reward_range == (0.0, 2.1)
