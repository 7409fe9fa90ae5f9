"""analyze.py as the puzzle-to-math paper uses it (issue 12 points 6, 8, 9, 10, 11): a list of
checkpoints' evaluations in one command (a glob, in step order) with per-checkpoint primitive and
motif tables correlated with pass@k, per puzzle-grid groups, recovery-motif rollouts by subset x
outcome, SFT-trace rows, the judges' stratified sample, the classifier's preceding context and
span lengths in a named tokenizer with an offline fallback. Hand-built traces, cue labeller: fast."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import analyze
from utils.config import load_or_raise

pytestmark = pytest.mark.usefixtures("hub_ids_ok")  # paper configs name hub models; tests run offline

FILL = " The count in this row follows from the clue and the neighbouring cells, one cell at a time." * 4


def para(opening: str) -> str:
    return opening + FILL


RECOVERY = "\n\n".join([para("Suppose the first cell is a ghost."), para("Then 3 * 3 = 9 and 9 - 2 = 7."),
                        para("Wait, that contradicts the clue on the left.")])
DIRECT = "\n\n".join([para("Then 2 + 2 = 4 and 4 + 1 = 5."), para("Then 5 * 2 = 10."),
                      para("Check: the totals match every clue.")])


def rows_of(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> Path:
    """Three evaluate.py-style runs (step_5, step_10, step_50), puzzles in two groups, 4 samples per
    problem; later checkpoints solve more and use fewer recovery motifs (as vanilla GSPO, line 85); plus
    a compare.json."""
    tmp = tmp_path_factory.mktemp("ck")
    groups = {"p1": "bridges 7x7 hard", "p2": "bridges 7x7 hard", "p3": "undead 4x4 tricky"}
    for n_solved, n_recovery, step in ((1, 3, 5), (2, 2, 10), (3, 1, 50)):
        rows = []
        for pid, group in groups.items():
            for j in range(4):
                solved = j < n_solved and pid != "p3"
                rows.append({"benchmark": "puzzles", "problem_id": pid, "sample": j, "split": group,
                             "correct": solved, "response": RECOVERY if j < n_recovery else DIRECT})
        (tmp / f"eval_step_{step}").mkdir()
        (tmp / f"eval_step_{step}" / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    compare = {"benchmarks": {"puzzles": {"eval_step_50": {"sets": {"both": ["p1"], "only eval_step_50": ["p2"],
                                                                    "neither": ["p3"]}}}}}
    (tmp / "compare.json").write_text(json.dumps(compare))
    return tmp


def test_one_command_over_a_glob_of_checkpoints(checkpoints):
    tmp = checkpoints
    analyze.main(["--config", "configs/analyze/default.yaml", f"inputs=[{tmp}/eval_step_*/samples.jsonl]",
                  f"out_root={tmp}", "name=dyn", "labeler=cue", "passk=[1,4]", "bootstrap=20",
                  f"compare={tmp}/compare.json", "tokenizer=/nonexistent/olmo3", "plot_benchmarks=[puzzles]"])
    out = tmp / "dyn" / "analysis"
    stats = rows_of(out / "stats.csv")
    base = [r for r in stats if r["outcome"] == "all" and r["subset"] == "all" and r["benchmark"] == "puzzles"]
    assert [r["checkpoint"] for r in base] == ["eval_step_5", "eval_step_10", "eval_step_50"]  # natural order
    assert [float(r["pass@1"]) for r in base] == pytest.approx([2 / 12, 4 / 12, 6 / 12], abs=1e-5)
    # per puzzle-grid group, as its own benchmark
    benches = {r["benchmark"] for r in stats}
    assert {"puzzles | bridges 7x7 hard", "puzzles | undead 4x4 tricky"} <= benches
    undead = [r for r in stats if r["benchmark"] == "puzzles | undead 4x4 tricky" and r["outcome"] == "all"
              and r["subset"] == "all"]
    assert [float(r["pass@4"]) for r in undead] == [0.0, 0.0, 0.0]
    # per-checkpoint primitive tables and motif correlations with pass@k (3 checkpoints)
    prims = rows_of(out / "primitives.csv")
    assert {r["checkpoint"] for r in prims} == {"eval_step_5", "eval_step_10", "eval_step_50"}
    mc = rows_of(out / "motif_correlations.csv")
    assert mc and {r["checkpoints"] for r in mc} == {"3"}
    recovery = {(r["k"], r["motif"]): float(r["pearson"]) for r in mc if r["benchmark"] == "puzzles"}
    assert recovery[("1", "hypothesize>compute>backtrack")] < -0.9  # suppressed as pass@1 rises
    # recovery-motif rollouts by subset x outcome: step 50, subset "both" (p1): samples 0..2 solved,
    # sample 0 the one recovery trace; at step 5, samples 0..2 recover and only sample 0 is solved
    rec = {(r["checkpoint"], r["benchmark"], r["subset"]): r for r in rows_of(out / "recovery.csv")}
    r = rec[("eval_step_50", "puzzles", "both")]
    assert (r["all_with_recovery"], r["all_traces"]) == ("1", "4")
    assert (r["solved_with_recovery"], r["solved_traces"], r["unsolved_with_recovery"], r["unsolved_traces"]) == \
        ("1", "3", "0", "1")
    summary = (out / "summary.md").read_text()
    assert "## Rollouts holding a recovery motif" in summary
    assert "| eval_step_5 | puzzles | both | 3/4 | 1/1 | 2/3 |" in summary
    # the tokenizer could not be loaded (offline): characters / 4, and the summary says so
    labeler = json.loads((out / "labeler.json").read_text())
    assert labeler["span_tokens"].startswith("characters / 4: tokenizer /nonexistent/olmo3 could not be loaded")
    assert "could not be loaded" in summary


def test_sft_trace_rows_are_one_trace_per_response(tmp_path):
    rows = [{"id": "bridges-5x5-easy-1", "env": "bridges", "prompt": "p", "responses": [RECOVERY, DIRECT],
             "traces": {"k": 8, "correct": 2}},
            {"id": "undead-3x3-easy-2", "env": "undead", "prompt": "p", "responses": [DIRECT]}]
    path = tmp_path / "teacher" / "train-00000.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    analyze.main([f"inputs=[{path}]", f"out_root={tmp_path}", "name=t", "labeler=cue", "passk=[1]", "bootstrap=20"])
    traces = rows_of(tmp_path / "t" / "analysis" / "traces.csv")
    assert [(t["checkpoint"], t["problem_id"], t["sample"]) for t in traces] == [
        ("teacher", "bridges-5x5-easy-1", "0"), ("teacher", "bridges-5x5-easy-1", "1"), ("teacher", "undead-3x3-easy-2", "0")]


def test_judge_sample_is_stratified_by_domain_and_spread_over_cells():
    T = analyze.Trace
    traces = ([T("sft", "puzzles", f"p{i}", 0, True, ["s"] * 10) for i in range(3)] +
              [T("gspo", "puzzles", f"p{i}", 0, True, ["s"] * 2) for i in range(3)] +
              [T(ck, "olymmath_en_hard", f"m{i}", 0, False, ["s"] * 10) for ck in ("sft", "gspo") for i in range(3)])
    where = [(t, i) for t, tr in enumerate(traces) for i in range(len(tr.spans))]
    cfg = load_or_raise(analyze.AnalyzeConfig, [
        f"inputs=[{__file__}]", "strata=[{name: puzzle, benchmarks: [puzzles*], spans: 17}, "
                                "{name: math, benchmarks: ['*'], spans: 18}]"])
    chosen, report = analyze.judge_sample(cfg, traces, where)
    assert len(chosen) == 35 and len(set(chosen)) == 35
    assert report["puzzle"]["cells"] == {"gspo | puzzles": 6, "sft | puzzles": 11}  # gspo has only 6 spans
    assert report["math"]["cells"] == {"gspo | olymmath_en_hard": 9, "sft | olymmath_en_hard": 9}
    assert all(traces[where[j][0]].benchmark == "puzzles" for j in chosen[:17])


def test_hf_classifier_input_keeps_the_span_and_the_nearest_context(tmp_path):
    from transformers import AutoTokenizer

    from utils.span_classifier import HFSpanClassifier, HFTrainConfig
    from utils.tiny import build_tiny

    tok = AutoTokenizer.from_pretrained(build_tiny(tmp_path / "tiny"))
    clf = HFSpanClassifier(None, tok, HFTrainConfig(max_length=24))
    span = "wait that does not work"
    span_ids = tok(span, add_special_tokens=False)["input_ids"]
    ctx = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
    ids = clf._encode(span, ctx)
    assert len(ids) == 24 and ids[-len(span_ids):] == span_ids  # the span whole, at the end
    kept = tok.decode(ids[:-len(span_ids)]).strip()
    assert len(kept) > 3 and ctx.endswith(kept)  # the context's end, nearest the span
    assert clf._encode(span, None) == span_ids
    long_span = " ".join(["grid"] * 100)
    assert clf._encode(long_span, ctx) == tok(long_span, add_special_tokens=False)["input_ids"][:24]


def test_paper_analysis_config(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "stand-in")  # the judges' key is checked at config load
    cfg = load_or_raise(analyze.AnalyzeConfig, ["--config", "configs/analyze/paper.yaml", f"inputs=[{__file__}]"])
    assert [j.engine.model for j in cfg.judges] == ["deepseek-reasoner", "deepseek-chat"]  # V3.2 + Chat, line 53
    assert all(j.engine.reasoning_content == "drop" for j in cfg.judges)
    assert [(s.name, s.spans) for s in cfg.strata] == [("puzzle", 17000), ("math", 18000)]  # line 161
    assert cfg.tokenizer == "allenai/Olmo-3-7B-Instruct-SFT" and cfg.classifier.context_chars > 0
    assert (cfg.classifier.kind, cfg.classifier.model) == ("hf", "Qwen/Qwen3-1.7B")


def T(ckpt: str, pid: str, sample: int, correct, labels: str, tokens=None) -> "analyze.Trace":
    labels = labels.split()
    return analyze.Trace(ckpt, "olymmath_en_hard", pid, sample, correct, spans=["x"] * len(labels),
                         labels=labels, tokens=tokens or [10] * len(labels))


def test_share_of_other_spans_in_the_last_fifth_of_the_trace():
    """puzzle_to_math line 165: '91.5% of other spans appear in the last 20% of the trace'. A span is
    in the last 20% when its middle is, by token position."""
    t = T("sft", "p", 0, True, "other plan compute check other other", tokens=[10, 40, 30, 10, 5, 5])
    assert analyze.other_tail(t) == (3, 2)  # the first other sits at the start; the two last at 92.5% and 97.5%
    assert analyze.other_tail(T("sft", "p", 0, True, "plan compute")) == (0, 0)
    row = analyze.group_stats([t, T("sft", "q", 0, True, "plan plan plan plan other")], [], analyze.AnalyzeConfig(bootstrap=10))
    assert row["other_last20_share"] == pytest.approx(3 / 4)
    lines = analyze.other_tail_summary([t])
    assert any("91.5%" in line for line in lines) and "| all | all | 3 | 2 | 0.67 |" in "\n".join(lines)


def test_appendix_q_selects_figure_14_and_15_traces_by_the_papers_rule():
    """Part A (line 213): correct SFT and vanilla traces of one problem sharing their first two
    primitives (other skipped), SFT depth 2-4, GSPO depth 5-9, nearest each checkpoint's mean depth.
    Part B (lines 217, 241): novelty-only problems, a novelty success holding a recovery primitive
    beside vanilla's shortest failure; a winner without recovery is left out."""
    traces = [
        # p1: a valid pair (opening plan>compute, depths 3 and 6) and a pair with another opening
        T("sft", "p1", 0, True, "other plan compute check compute"),               # depth 3
        T("sft", "p1", 1, True, "setup compute check"),                            # other opening
        T("vanilla", "p1", 0, True, "plan compute check compute check compute check"),  # depth 6
        T("vanilla", "p1", 1, True, "plan compute check compute check compute check compute check compute "
                                    "check"),                                      # depth 10: out of 5-9
        # p2: SFT depth 1 only (out of 2-4)
        T("sft", "p2", 0, True, "plan compute"), T("vanilla", "p2", 0, True, "plan compute check compute check compute"),
        # p3: solved only by novelty, with a backtrack; vanilla fails twice, the shorter one is shown
        T("sft", "p3", 0, False, "plan"), T("vanilla", "p3", 0, False, "plan compute check compute check"),
        T("vanilla", "p3", 1, False, "compute check"), T("novelty", "p3", 0, True, "plan hypothesize compute backtrack compute"),
        T("novelty", "p3", 1, True, "plan compute"),
        # p4: solved only by novelty, but without a recovery primitive: left out (line 241)
        T("vanilla", "p4", 0, False, "compute"), T("novelty", "p4", 0, True, "compute check"),
        # p5: novelty and vanilla both solve it: not novelty-only
        T("vanilla", "p5", 0, True, "compute"), T("novelty", "p5", 0, True, "backtrack compute"),
    ]
    rows, report = analyze.appendix_q(traces, analyze.AppendixQConfig())
    a = [(r["checkpoint"], r["problem_id"], r["sample"], r["chain_depth"], r["opening"]) for r in rows if r["part"] == "A"]
    assert a == [("sft", "p1", 0, 3, "plan>compute"), ("vanilla", "p1", 0, 6, "plan>compute")]
    b = [(r["checkpoint"], r["problem_id"], r["sample"], r["correct"]) for r in rows if r["part"] == "B"]
    assert b == [("vanilla", "p3", 1, False), ("novelty", "p3", 0, True)]
    assert report["part_a"]["problems_correct_in_both"] == 2 and report["part_a"]["candidate_pairs"] == 1
    assert report["part_b"] == {**report["part_b"], "novelty_only_problems": 2, "without_a_recovery_primitive": 1}


def test_compare_runs_draws_grpo_against_gspo(tmp_path, capsys):
    """puzzle_to_math line 39 ('GSPO trained reliably in long-context pilots where GRPO was unstable'):
    the training curves of two runs side by side."""
    for name, rewards in (("grpo_vanilla", [0.1, 0.3, 0.0]), ("gspo_vanilla", [0.1, 0.2, 0.4])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "metrics.jsonl").write_text("".join(
            json.dumps({"step": i + 1, "reward_mean": r, "entropy": 1 - r, "grad_norm": 2.0}) + "\n"
            for i, r in enumerate(rewards)))
    analyze.main(["compare-runs", str(tmp_path / "grpo_vanilla"), str(tmp_path / "gspo_vanilla"), "--out",
                  str(tmp_path / "fig")])
    assert "reward_mean, entropy, grad_norm" in capsys.readouterr().out
    assert (tmp_path / "fig" / "curves.png").stat().st_size > 5000
    rows = rows_of(tmp_path / "fig" / "curves.csv")
    assert {(r["run"], r["metric"]) for r in rows} >= {("grpo_vanilla", "reward_mean"), ("gspo_vanilla", "entropy")}
    with pytest.raises(SystemExit, match="no metrics.jsonl"):
        analyze.main(["compare-runs", str(tmp_path), "--out", str(tmp_path / "fig")])
