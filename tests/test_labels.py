"""Span labellers: the judge prompt and parser, the jury through the replay backend (re-ask, invalid
labels, consensus, agreement, cache), the cue baseline, the embedded classifier's macro-F1 on the
shipped held-out spans, and the AutoModelForSequenceClassification path on the tiny model."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from utils.engine import EngineConfig, make_engine
from utils.judges import JudgeConfig, agreement_report, cohen_kappa, consensus, fleiss_kappa, judge_spans
from utils.labels import (DEFINITIONS, LABELS, confusion_matrix, cue_label, judge_prompt, macro_f1, parse_label,
                          per_label_f1)
from utils.span_classifier import SHIPPED_SPANS, HFSpanClassifier, HFTrainConfig, NgramClassifier, load_spans, train_embedded

# Measured on data/spans/heldout.jsonl (256 spans); the asserts leave a small margin below.
EMBEDDED_HELDOUT_F1 = 0.734
CUE_HELDOUT_F1 = 0.447


def test_shipped_spans_cover_the_vocabulary_and_splits_are_disjoint():
    train, held = load_spans(SHIPPED_SPANS / "train.jsonl"), load_spans(SHIPPED_SPANS / "heldout.jsonl")
    assert len(train) + len(held) >= 600
    for rows in (train, held):
        counts = {label: sum(r["label"] == label for r in rows) for label in LABELS}
        assert min(counts.values()) >= 13, counts
    assert not {r["text"] for r in train} & {r["text"] for r in held}
    assert not {r["trace"] for r in train} & {r["trace"] for r in held}
    # context: the previous span of the same trace, '' at a trace's start
    first = next(r for r in train if r["position"] == 1)
    assert first["prev"] == next(r["text"] for r in train if r["trace"] == first["trace"] and r["position"] == 0)


def test_parse_label():
    assert parse_label("LABEL: check") == "check"
    assert parse_label("Reasoning... it verifies the sum.\nLabel: **Backtrack**") == "backtrack"
    assert parse_label("label: plan\nLABEL: compute") == "compute"  # the last one wins
    assert parse_label("  Hypothesize. ") == "hypothesize"
    assert parse_label("LABEL: verification") is None  # not in the vocabulary
    assert parse_label("compute or check") is None and parse_label("") is None and parse_label(None) is None


def test_judge_prompt_has_definitions_context_and_span():
    p = judge_prompt("Wait, that is wrong.", ["First span.", "Second span."], context_chars=15)
    assert all(text in p for text in DEFINITIONS.values())
    assert "<span>\nWait, that is wrong.\n</span>" in p
    assert "Second span." in p and "First span." not in p  # only the last 15 characters of context
    assert "(start of the reasoning)" in judge_prompt("x", [])


def test_scores_on_hand_computed_example():
    gold = ["check", "check", "compute", "plan"]
    pred = ["check", "compute", "compute", "compute"]
    f1 = per_label_f1(gold, pred)
    assert f1["check"] == pytest.approx(2 / 3) and f1["compute"] == pytest.approx(0.5) and f1["plan"] == 0
    assert macro_f1(gold, pred) == pytest.approx((2 / 3 + 0.5 + 0) / 3)
    m = confusion_matrix(gold, pred)
    assert m[LABELS.index("check")][LABELS.index("compute")] == 1 and sum(map(sum, m)) == 4
    assert consensus(["check", "compute", "compute"]) == "compute"
    assert consensus(["plan", "check", "check", "plan"]) == "plan"  # tie: the first judge's side
    assert cohen_kappa(["a", "b"], ["a", "b"]) == 1.0
    assert fleiss_kappa([["check", "check"], ["plan", "plan"]]) == pytest.approx(1.0)
    assert fleiss_kappa([["check", "plan"], ["plan", "check"]]) < 0


def test_cue_baseline_rules_and_heldout_f1():
    assert cue_label("Wait, that can't be right because the sum exceeds 4.") == "backtrack"
    assert cue_label("Let me double-check by substituting x = 3.") == "check"
    assert cue_label("Suppose the bridge goes from A to B.") == "hypothesize"
    assert cue_label("Okay, let me think.") == "other"
    assert cue_label("12 * 7 = 84 and 84 - 5 = 79.") == "compute"
    held = load_spans(SHIPPED_SPANS / "heldout.jsonl")
    f1 = macro_f1([r["label"] for r in held], [cue_label(r["text"]) for r in held])
    assert f1 == pytest.approx(CUE_HELDOUT_F1, abs=0.005)


def test_embedded_classifier_heldout_macro_f1_and_determinism():
    held = load_spans(SHIPPED_SPANS / "heldout.jsonl")
    pairs, gold = [(r["text"], r["prev"]) for r in held], [r["label"] for r in held]
    clf = train_embedded()
    pred = clf.predict(pairs)
    assert macro_f1(gold, pred) >= EMBEDDED_HELDOUT_F1 - 0.02
    assert macro_f1(gold, pred) > CUE_HELDOUT_F1 + 0.1
    assert train_embedded().predict(pairs[:40]) == pred[:40]  # no seed: the fit is the convex optimum
    tiny = NgramClassifier().fit([("x = 1", ""), ("Wait, no.", "x = 1")] * 2, ["compute", "backtrack"] * 2)
    assert len(tiny.predict([("", ""), ("a" * 1_000_000, "")])) == 2  # empty and huge spans are fine


# ------------------------------------------------------------------ judges through the replay backend

SPANS = ["First, list the neighbours of every island.", "Suppose the bridge goes left.",
         "Wait, that crosses another bridge, so undo it.", "Check: every island has its count."]


def write_replay(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def jury(tmp_path: Path) -> list[JudgeConfig]:
    """Three replayed judges: `a` is careful; `b` answers nonsense once (fixed on re-ask) and calls the
    hypothesis a plan; `c` never gives a valid label for the backtrack span."""
    span = lambda s: "<span>\n" + s  # noqa: E731  (the target span, not the same text inside the context)
    a = [{"match": span(SPANS[0]), "responses": ["LABEL: enumerate"]},
         {"match": span(SPANS[1]), "responses": ["It assumes a placement.\nLABEL: hypothesize"]},
         {"match": span(SPANS[2]), "responses": ["LABEL: backtrack"]},
         {"match": span(SPANS[3]), "responses": ["LABEL: check"]}]
    b = [{"match": 'Your previous reply "banana"', "responses": ["LABEL: enumerate"]},
         {"match": span(SPANS[0]), "responses": ["banana"]},
         {"match": span(SPANS[1]), "responses": ["LABEL: plan"]},
         {"match": span(SPANS[2]), "responses": ["label: backtrack"]},
         {"match": span(SPANS[3]), "responses": ["check"]}]
    c = [{"match": 'Your previous reply "I am not sure"', "responses": ["still not sure"]},
         {"match": span(SPANS[0]), "responses": ["LABEL: enumerate"]},
         {"match": span(SPANS[1]), "responses": ["LABEL: hypothesize"]},
         {"match": span(SPANS[2]), "responses": ["I am not sure"]},
         {"match": span(SPANS[3]), "responses": ["LABEL: compute"]}]
    return [JudgeConfig(name=n, engine=EngineConfig(backend="replay", replay_path=write_replay(tmp_path / f"{n}.jsonl", rows)))
            for n, rows in (("a", a), ("b", b), ("c", c))]


def test_jury_reasks_counts_invalid_and_agrees(tmp_path):
    items = [(s, SPANS[:i]) for i, s in enumerate(SPANS)]
    calls = []

    def counting_engine(cfg):
        calls.append(cfg.replay_path)
        return make_engine(cfg)

    judges = jury(tmp_path)
    cache = tmp_path / "judgments.jsonl"
    verdicts = judge_spans(items, judges, cache, counting_engine, batch_size=2)
    assert [v.label for v in verdicts["a"]] == ["enumerate", "hypothesize", "backtrack", "check"]
    assert [v.label for v in verdicts["b"]] == ["enumerate", "plan", "backtrack", "check"]
    assert verdicts["b"][0].reasked and verdicts["b"][0].valid
    assert [v.label for v in verdicts["c"]] == ["enumerate", "hypothesize", None, "compute"]
    assert verdicts["c"][2].reasked and not verdicts["c"][2].valid  # re-asked once, then invalid: no vote
    labels = [consensus([verdicts[j][i].label for j in "abc"]) for i in range(len(SPANS))]
    assert labels == ["enumerate", "hypothesize", "backtrack", "check"]
    report = agreement_report(verdicts, labels)
    assert report["judges"]["c"]["invalid"] == 1 and report["judges"]["b"]["reasked"] == 1
    assert report["judges"]["a"]["agreement_with_consensus"] == 1.0
    assert report["judges"]["c"]["agreement_with_consensus"] == 2 / 3  # over its 3 valid verdicts
    pairs = {tuple(p["judges"]): p for p in report["pairs"]}
    assert pairs[("a", "b")]["agreement"] == 0.75 and pairs[("a", "b")]["spans"] == 4
    assert pairs[("a", "c")]["agreement"] == 2 / 3 and pairs[("a", "c")]["spans"] == 3  # the invalid one left out
    assert report["spans_with_invalid"] == 1 and report["fleiss_spans"] == 3
    assert report["fleiss_kappa"] == fleiss_kappa([[verdicts[j][i].label for j in "abc"] for i in (0, 1, 3)])
    # regression: every judge invalid on every span used to be "all other", Fleiss kappa 1.00
    from utils.judges import Verdict

    dud = {j: [Verdict(None, False, True)] * 4 for j in "xy"}
    r = agreement_report(dud, [consensus([None, None])] * 4)
    assert r["fleiss_spans"] == 0 and r["pairs"][0]["agreement"] is None and r["judges"]["x"]["invalid"] == 4
    assert r["fleiss_kappa"] != 1.0
    # resumed: everything comes from the cache, no engine is built
    calls.clear()
    again = judge_spans(items, judges, cache, counting_engine)
    assert calls == [] and {k: [v.label for v in vs] for k, vs in again.items()} == \
        {k: [v.label for v in vs] for k, vs in verdicts.items()}
    # a torn last line (crash while appending) is dropped and that verdict asked again
    lines = cache.read_text().splitlines()
    cache.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:25])
    judge_spans(items, judges, cache, counting_engine)
    assert len(calls) == 1


# ------------------------------------------------------------------ AutoModelForSequenceClassification


def test_hf_classifier_fine_tunes_predicts_and_reloads(tmp_path):
    from utils.tiny import build_tiny

    tiny = build_tiny(tmp_path / "tiny")
    train = load_spans(SHIPPED_SPANS / "train.jsonl")[:64]
    held = load_spans(SHIPPED_SPANS / "heldout.jsonl")[:32]
    cfg = HFTrainConfig(epochs=1, batch_size=16, max_length=64, lr=1e-3, device="cpu")
    clf = HFSpanClassifier.load(tiny, cfg, num_labels_check=False).fit([r["text"] for r in train], [r["label"] for r in train])
    pred = clf.predict([r["text"] for r in held])
    assert len(pred) == len(held) and set(pred) <= set(LABELS)
    f1 = macro_f1([r["label"] for r in held], pred)  # poor on a 64-dim random model; the path is what counts
    assert 0.0 <= f1 <= 1.0
    clf.save(tmp_path / "clf")
    again = HFSpanClassifier.load(tmp_path / "clf", cfg)
    assert again.model.config.id2label[LABELS.index("backtrack")] == "backtrack"
    assert again.predict([r["text"] for r in held]) == pred


@pytest.mark.parametrize("rule", ["unresolved", "judge", "first"])
def test_two_judges_that_disagree_are_reported_and_decided_by_the_rule(tmp_path, rule, monkeypatch):
    """Judges a and b tie on span 1 (hypothesize vs plan). `first` gave it to a silently (the old
    rule); `unresolved` leaves it without a consensus, so it trains and scores no classifier; `judge`
    asks the third judge (c: hypothesize) on that span only. Every rule counts the tie."""
    import analyze
    from collections import Counter as C

    a, b, c = jury(tmp_path)
    asked = []

    class Counting:
        def __init__(self, inner):
            self.inner = inner

        def generate(self, prompts, params, seeds=None):
            asked.extend(p[-1]["content"] for p in prompts)
            return self.inner.generate(prompts, params, seeds)

    cfg = analyze.AnalyzeConfig(judges=[a, b], judge_ties=rule, tie_judge=c)
    items = [(s, SPANS[:i]) for i, s in enumerate(SPANS)]
    import utils.engine

    monkeypatch.setattr(utils.engine, "make_engine",
                        lambda e: Counting(make_engine(e)) if e.replay_path == c.engine.replay_path else make_engine(e))
    labels, report = analyze._judge(cfg, items, tmp_path, C())
    expected = {"unresolved": None, "judge": "hypothesize", "first": "hypothesize"}[rule]
    assert labels == ["enumerate", expected, "backtrack", "check"]
    assert report["ties"]["spans"] == 1 and report["ties"]["rule"] == rule
    assert report["ties"]["unresolved"] == (1 if rule == "unresolved" else 0)
    rows = [json.loads(line) for line in (tmp_path / "consensus.jsonl").read_text().splitlines()]
    assert rows[1]["label"] == (expected or "unresolved")
    if rule == "judge":
        assert report["ties"]["asked"] == 1 and len(asked) == 1 and SPANS[1] in asked[0]
        assert rows[1]["votes"] == {"a": "hypothesize", "b": "plan", "c": "hypothesize"}
    assert consensus(["plan", "check"], "unresolved") is None and consensus(["plan", "check"]) == "plan"
    assert consensus(["plan", "check", "check"], "unresolved") == "check" and consensus([None, None], "judge") == "other"
