"""The evaluation kinds the RACES paper's six benchmarks need beyond math and code (races line 42):
ifeval (IFEval's verifiable instructions), choice (LongBench v2's multiple choice), answer (Enigmata's
exact answers). Each on a fixture file in its hub layout (tests/data/bench), hostile responses, and
evaluate.py end to end with replayed responses."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from utils.benchmarks import BenchmarkConfig, load_problems
from utils.grading import extract_choice, final_answer, grade_answer, grade_choice, normalize_answer
from utils.ifeval import CHECKS, grade_ifeval, split_sentences

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "bench"
HOSTILE = [None, "", " ", "\x00" * 10, "<think>" * 1000, "*" * 50_000, "[[" * 5000, "(" * 10_000 + "The correct",
           "é\u202e" * 1000, '{"a": ' * 3000, "```json\n" + "[" * 100_000, "\n\n" * 10_000, 12345]


def gold(ids, **kwargs):
    return {"instruction_id_list": ids, "kwargs": [kwargs.get(i, {}) for i in ids]}


def test_ifeval_fixture_loads_in_the_hub_layout():
    ps = load_problems(BenchmarkConfig(name="ifeval", kind="ifeval", path=str(DATA / "ifeval.jsonl")))
    assert len(ps) == 5 and ps[0].id == "1000"
    assert ps[0].prompt[-1]["content"].startswith("Write a 3-sentence note")
    assert all(set(p.gold["instruction_id_list"]) <= set(CHECKS) for p in ps)
    assert ps[0].gold["kwargs"][2]["num_sentences"] == 4  # the hub rows' null keys are kept here, dropped at grading


@pytest.mark.parametrize("response, strict, loose", [
    ('"Your parcel came today. I left it by the door. Have a good evening."', True, True),
    ('"Your parcel came today, I left it by the door."', False, False),  # a comma
    ('Note:\n"Your parcel came today. It is by the door."', False, True),  # loose drops the first line
    ('<think>Let me use, commas.</think>"One. Two. Three."', True, True),  # thinking is not graded
])
def test_ifeval_strict_and_loose(response, strict, loose):
    ps = load_problems(BenchmarkConfig(name="ifeval", kind="ifeval", path=str(DATA / "ifeval.jsonl")))
    g = grade_ifeval(ps[0].gold, response)
    assert (g.strict, g.loose, g.status) == (strict, loose, "ok")


def test_ifeval_each_check():
    ok = {
        "detectable_format:number_bullet_lists": ("* a\n* b\n- c", {"num_bullets": 3}),
        "keywords:existence": ("The beam swept the coast.", {"keywords": ["beam", "coast"]}),
        "startend:end_checker": ("Done. Any other questions?", {"end_phrase": "Any other questions?"}),
        "detectable_format:title": ("<<River>>\nwater", {}),
        "detectable_format:json_format": ('```json\n{"primes": [2, 3]}\n```', {}),
        "length_constraints:number_paragraphs": ("One.\n***\nTwo.", {"num_paragraphs": 2}),
        "detectable_content:postscript": ("Hi.\nP.S. bye", {"postscript_marker": "P.S."}),
        "keywords:frequency": ("a cat, a cat and a cat", {"keyword": "cat", "frequency": 3, "relation": "at least"}),
        "keywords:forbidden_words": ("fine words only", {"forbidden_words": ["bad"]}),
        "keywords:letter_frequency": ("zzz", {"letter": "z", "let_frequency": 3, "let_relation": "at least"}),
        "length_constraints:number_words": ("one two three", {"num_words": 4, "relation": "less than"}),
        "length_constraints:nth_paragraph_first_word": ("Intro\n\nsummit view", {"num_paragraphs": 2, "nth_paragraph": 2,
                                                                                 "first_word": "summit"}),
        "detectable_content:number_placeholders": ("[name] at [address]", {"num_placeholders": 2}),
        "detectable_format:constrained_response": ("My answer is yes.", {}),
        "detectable_format:number_highlighted_sections": ("*one* and **two**", {"num_highlights": 2}),
        "detectable_format:multiple_sections": ("SECTION 1\na\nSECTION 2\nb", {"section_spliter": "SECTION",
                                                                              "num_sections": 2}),
        "combination:two_responses": ("first\n******\nsecond", {}),
        "combination:repeat_prompt": ("Say hi. hi", {"prompt_to_repeat": "Say hi."}),
        "startend:quotation": ('"quoted"', {}),
        "change_case:capital_word_frequency": ("THIS IS LOUD", {"capital_frequency": 3, "capital_relation": "at least"}),
        "punctuation:no_comma": ("no commas here", {}),
        "length_constraints:number_sentences": ("Mr. Smith came. He left! Why?", {"num_sentences": 3,
                                                                              "relation": "at least"}),
    }
    for iid, (text, kw) in ok.items():
        assert grade_ifeval(gold([iid], **{iid: kw}), text).strict, iid
        assert not grade_ifeval(gold([iid], **{iid: kw}), "").strict, iid
    assert len(split_sentences("Mr. Smith came. He left! Why?")) == 3


def test_ifeval_language_checks():
    langdetect = pytest.importorskip("langdetect")  # noqa: F841  (requirements: langdetect==1.0.9)
    g = gold(["language:response_language"], **{"language:response_language": {"language": "de"}})
    assert grade_ifeval(g, "Das ist ein kurzer Satz auf Deutsch, und er bleibt deutsch.").strict
    assert not grade_ifeval(g, "This is a short sentence in English, and it stays English.").strict


def test_ifeval_never_raises_on_hostile_output_or_bad_rows():
    g = gold(["keywords:existence", "detectable_format:json_format", "detectable_format:number_highlighted_sections",
              "length_constraints:number_sentences", "combination:two_responses"],
             **{"keywords:existence": {"keywords": ["a(b", "[x"]},
                "detectable_format:number_highlighted_sections": {"num_highlights": 1},
                "length_constraints:number_sentences": {"num_sentences": 2, "relation": "less than"}})
    for r in HOSTILE:
        out = grade_ifeval(g, r)
        assert isinstance(out.strict, bool) and isinstance(out.loose, bool)
    assert grade_ifeval({"instruction_id_list": ["made:up"], "kwargs": [{}]}, "x").status == "unknown_instruction"
    assert grade_ifeval({"instruction_id_list": ["keywords:existence"], "kwargs": [{}]}, "x").status == "bad_kwargs"


def test_choice_fixture_prompt_and_filter():
    ps = load_problems(BenchmarkConfig(name="lb", kind="choice", path=str(DATA / "longbench_v2.jsonl"),
                                       difficulty="short", fields={"difficulty": "length"}))
    assert [p.id for p in ps] == ["lb-1", "lb-2"] and [p.gold for p in ps] == ["C", "B"]
    text = ps[0].prompt[-1]["content"]
    assert "<text>\nThe Tower of Berin" in text and "(C) 1410" in text and "The correct answer is" in text
    with pytest.raises(ValueError, match="choices"):
        load_problems(BenchmarkConfig(name="lb", kind="choice", path=str(DATA / "longbench_v2.jsonl"),
                                      fields={"choices": "choice_A,choice_Z"}))


def test_choice_grading():
    assert extract_choice("I think... **The correct answer is (B)**") == "B"
    assert extract_choice("<think>The correct answer is (A)</think>The correct answer is D") == "D"
    assert grade_choice("C", "The correct answer is (C).").correct
    assert not grade_choice("C", "The correct answer is (A).").correct
    assert grade_choice("C", "C").status == "no_answer"
    for r in HOSTILE:
        g = grade_choice("A", r)
        assert isinstance(g.correct, bool)


def test_answer_kind_on_the_enigmata_layout():
    ps = load_problems(BenchmarkConfig(name="en", kind="answer", path=str(DATA / "enigmata.jsonl"),
                                       fields={"problem": "prompt", "difficulty": "task_name"}))
    assert len(ps) == 3 and ps[0].meta["difficulty"] == "list_transformation"
    assert grade_answer(ps[0].gold, "so <answer>[66,66, 66]</answer>").correct
    assert grade_answer(ps[1].gold, "<answer>\n[[2,1],[1,2]]\n</answer>").correct
    assert grade_answer(ps[2].gold, "The word is\nACE").correct  # last line, case and spaces ignored
    assert not grade_answer(ps[2].gold, "<answer>abc</answer>").correct
    assert final_answer("x \\boxed{7}") == "7" and normalize_answer(' "Yes." ') == "yes"
    for r in HOSTILE:
        assert isinstance(grade_answer("[1]", r).correct, bool)


def test_evaluate_runs_the_three_kinds(tmp_path):
    """evaluate.py with the three fixture benchmarks and replayed answers: each kind graded, in range."""
    import evaluate

    replay = tmp_path / "replay.jsonl"
    rows = [{"match": "Write a 3-sentence note", "responses": ['"Parcel here. By the door. Bye."', "Hi, there"]},
            {"match": "When was the tower rebuilt", "responses": ["The correct answer is (C)", "no idea"]},
            {"match": "What covered the roof", "responses": ["The correct answer is (A)"]},
            {"match": "Rule induction", "responses": ["<answer>[66, 66, 66]</answer>"]},
            {"match": "", "responses": ["nothing useful"]}]
    replay.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cfg = tmp_path / "eval.yaml"
    cfg.write_text(f"""name: kinds
n: 2
k: [1, 2]
bootstrap: 20
engine: {{backend: replay, replay_path: {replay}}}
benchmarks:
  - {{name: ifeval, kind: ifeval, path: {DATA / 'ifeval.jsonl'}}}
  - {{name: longbench, kind: choice, path: {DATA / 'longbench_v2.jsonl'}, difficulty: short,
     fields: {{difficulty: length}}}}
  - {{name: enigmata, kind: answer, path: {DATA / 'enigmata.jsonl'}, fields: {{problem: prompt}}}}
""")
    evaluate.main(["--config", str(cfg), f"out_root={tmp_path}"])
    res = json.loads((tmp_path / "kinds" / "results.json").read_text())["benchmarks"]
    assert res["ifeval"]["problems"] == 5 and res["longbench"]["problems"] == 2 and res["enigmata"]["problems"] == 3
    assert res["longbench"]["splits"]["all"]["pass@1"]["mean"] == pytest.approx(0.25)  # 1 of 4 samples
    assert res["enigmata"]["splits"]["all"]["pass@1"]["mean"] == pytest.approx(1 / 3)
    assert 0 < res["ifeval"]["splits"]["all"]["pass@1"]["mean"] < 1
    samples = [json.loads(line) for line in (tmp_path / "kinds" / "samples.jsonl").read_text().splitlines()]
    assert all("loose" in s and "followed" in s for s in samples if s["benchmark"] == "ifeval")


def test_races_paper_config_lists_six_benchmarks():
    """races line 42: six benchmarks spanning code generation, mathematical and logic reasoning, instruction
    following and long-context understanding; line 72 names AIME 2025, line 50 Enigmata."""
    import evaluate
    from utils.config import load_or_raise

    cfg = load_or_raise(evaluate.EvalConfig, ["--config", str(ROOT / "configs/eval/races_paper.yaml"), "model=x"],
                        validate=False)
    kinds = {b.name: b.kind for b in cfg.benchmarks}
    assert kinds == {"aime24": "math", "aime25": "math", "lcb": "code", "enigmata": "answer", "ifeval": "ifeval",
                     "longbench_v2": "choice"}
    by = {b.name: b for b in cfg.benchmarks}
    assert by["aime25"].path == "yentinglin/aime_2025" and "Enigmata" in by["enigmata"].path
    assert by["ifeval"].path == "google/IFEval" and by["longbench_v2"].path == "THUDM/LongBench-v2"
