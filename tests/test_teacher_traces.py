"""The procedural teacher (envs/puzzles/teacher.py) and generate.py mode=teacher_traces."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import envs
from envs.puzzles.teacher import check_params, render, teach
from utils.labels import LABELS, cue_label

ROOT = Path(__file__).resolve().parent.parent
# the study's training sizes, its larger test sizes, and a level whose grids make the search guess
SIZES = [("pattern", 4, None), ("pattern", 5, None), ("undead", 3, "easy"), ("undead", 4, "easy"),
         ("undead", 3, "normal")]


def records(env, side, level, n=50):
    e = envs.make(env, width=side, height=side, **({"level": level} if level else {}))
    return [e.generate(seed=s) for s in range(n)]


@pytest.mark.parametrize("env,side,level", SIZES)
def test_every_trace_scores_correct_and_is_its_labelled_steps(env, side, level):
    for i, rec in enumerate(records(env, side, level)):
        traces = teach(rec, samples=3, detour_rate=0.5, seed=i)
        for text, steps in traces:
            assert envs.score(rec, text).correct, (rec["id"], text)
            assert {s["label"] for s in steps} <= set(LABELS)
            assert text.startswith("<reasoning>\n" + "\n".join(s["text"] for s in steps) + "\n</reasoning>")
            assert steps[0]["label"] == "plan" and steps[-1]["label"] == "summarize"
        assert len({text for text, _ in traces}) > 1, rec["id"]  # one instance, different traces


@pytest.mark.parametrize("env,side,level", SIZES)
def test_detour_rate_controls_the_wrong_hypothesis(env, side, level):
    for i, rec in enumerate(records(env, side, level, n=20)):
        for _, steps in teach(rec, samples=2, detour_rate=0.0, seed=i):
            assert "backtrack" not in [s["label"] for s in steps]
        for _, steps in teach(rec, samples=2, detour_rate=1.0, seed=i):
            labels = [s["label"] for s in steps]
            assert "backtrack" in labels
            first = labels.index("backtrack")  # a hypothesis, followed to a conflict, then abandoned
            assert "hypothesize" in labels[:first] and labels[first - 1] == "check"


def test_phrasing_is_not_only_cue_words():
    """Every move type has templates the cue-phrase baseline misses: labels are not one cue word."""
    missed, seen = set(), set()
    for i, rec in enumerate(records("undead", 3, "easy", n=10) + records("pattern", 4, None, n=10)):
        for _, steps in teach(rec, samples=4, detour_rate=0.7, seed=i):
            for s in steps:
                seen.add(s["label"])
                if cue_label(s["text"]) != s["label"]:
                    missed.add(s["label"])
    assert {"hypothesize", "backtrack", "check", "plan", "summarize"} <= seen & missed


def test_bad_params_are_one_line():
    for args in (("bridges", 5, 5), ("pattern", 40, 4), ("undead", 2, 3), ("pattern", 4, 4, 1.5)):
        with pytest.raises(ValueError) as e:
            check_params(*args)
        assert "\n" not in str(e.value)
    rec = records("pattern", 4, None, n=1)[0]
    with pytest.raises(ValueError, match="detour_rate"):
        teach(rec, 1, -0.1, 0)


def generate(tmp_path, *overrides):
    return subprocess.run([sys.executable, "generate.py", "--config", "configs/study/p2m_traces.yaml",
                           f"out={tmp_path / 'data'}", *overrides], cwd=ROOT, capture_output=True, text=True)


SMALL = ("splits={test: [{env: pattern, count: 20, params: {width: 4, height: 4}}, {env: undead, count: 10, "
         "params: {width: 4, height: 4, level: easy}}], train: [{env: pattern, count: 30, params: {width: 4, "
         "height: 4}}, {env: undead, count: 10, params: {width: 3, height: 3, level: easy}}]}")


def test_generate_writes_sft_rows_and_held_out_records(tmp_path):
    p = generate(tmp_path, SMALL, "teacher.samples=3")
    assert p.returncode == 0, p.stderr
    out = tmp_path / "data"
    train = [json.loads(line) for line in (out / "train-00000.jsonl").read_text().splitlines()]
    test = [json.loads(line) for line in (out / "test-00000.jsonl").read_text().splitlines()]
    assert len(train) == 40 and len(test) == 30
    for row in train:
        assert len(row["responses"]) == len(row["steps"]) == row["traces"]["correct"] and row["traces"]["k"] == 3
        assert all(envs.score(row, r).correct for r in row["responses"])
        assert [render(st, row["meta"]["solution"]) for st in row["steps"]] == row["responses"]
    assert not any("responses" in r for r in test)
    assert all(envs.score(r, r["answer"]).correct for r in test)  # ordinary env records
    assert not {r["meta"]["game_id"] for r in test} & {r["meta"]["game_id"] for r in train}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["teacher"]["per_split"]["train pattern 4x4"]["records"] == 30
    before = (out / "train-00000.jsonl").read_bytes()
    again = generate(tmp_path, SMALL, "teacher.samples=3")  # resumes: nothing changes
    assert again.returncode == 0 and (out / "train-00000.jsonl").read_bytes() == before


@pytest.mark.parametrize("override,key", [("teacher.detour_rate=1.5", "teacher.detour_rate"),
                                          ("splits={train: [{env: bridges, count: 2}]}", "splits.train.0"),
                                          ("splits={train: [{env: undead, count: 2, params: {width: 8, height: 8}}]}",
                                           "splits.train.0")])
def test_generate_refuses_bad_teacher_params_in_one_line(tmp_path, override, key):
    p = generate(tmp_path, override)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and key in p.stderr, p.stderr
    assert not (tmp_path / "data").exists()
