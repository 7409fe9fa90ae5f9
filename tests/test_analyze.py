"""analyze.py end to end: evaluate.py output of two replayed checkpoints (+ compare subsets) turned
into tables, plots and a summary; hostile inputs; the judges + fine-tuned classifier pipeline with
replayed judges and the tiny model; the tiny-model CPU pipeline (generate -> evaluate -> analyze)."""
from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from utils.benchmarks import BenchmarkConfig, load_problems
from utils.motifs import LABELS, chain_depth
from utils.segment import reasoning_text

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
RESPONSES = json.loads((DATA / "analyze_responses.json").read_text())
OUTPUTS = ["stats.csv", "primitives.csv", "motifs.csv", "motif_changes.csv", "correlations.csv", "passk.csv",
           "traces.csv", "spans.jsonl", "labeler.json", "bad_input.json", "summary.md", "config.yaml"]


def run(script: str, args: list[str], timeout: int = 600) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, script, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    return r


def rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def eval_runs(tmp_path_factory) -> Path:
    """runs/eval_a and runs/eval_b: evaluate.py on the 6 test math problems, 2 samples each, with the
    responses of tests/data/analyze_responses.json replayed; then `evaluate.py compare`."""
    tmp = tmp_path_factory.mktemp("runs")
    bench = DATA / "bench" / "math.jsonl"
    problems = {p.id: p for p in load_problems(BenchmarkConfig(name="math", kind="math", path=str(bench),
                                                               fields={"id": "unique_id"}))}
    for ck in ("a", "b"):
        replay = tmp / f"replay_{ck}.jsonl"
        replay.write_text("".join(json.dumps({"prompt": problems[pid].prompt[-1]["content"], "responses": resp}) + "\n"
                                  for pid, resp in RESPONSES[ck].items()))
        run("evaluate.py", [f"name=eval_{ck}", f"out_root={tmp}", f"engine.replay_path={replay}", "engine.backend=replay",
                            "n=2", "k=[1,2]", "bootstrap=50", "grading_workers=1",
                            f"benchmarks=[{{name: math, kind: math, path: {bench}, fields: {{id: unique_id}}}}]"])
    run("evaluate.py", ["compare", str(tmp / "eval_a"), str(tmp / "eval_b")])
    return tmp


def test_analyze_evaluate_output_with_compare_subsets(eval_runs):
    tmp = eval_runs
    run("analyze.py", ["--config", "configs/analyze/default.yaml", f"out_root={tmp}", "name=analysis_ab",
                       f"inputs=[{tmp / 'eval_a/samples.jsonl'},{tmp / 'eval_b/samples.jsonl'}]",
                       f"compare={tmp / 'compare-eval_a-eval_b/compare.json'}", "passk=[1,2]", "bootstrap=200"])
    out = tmp / "analysis_ab" / "analysis"
    for name in OUTPUTS:
        assert (out / name).stat().st_size > 0, name
    for png in ("primitives_math.png", "depth_math.png", "strips_math.png", "motif_changes_math.png"):
        assert (out / png).stat().st_size > 5000, png
    # every file the summary links to exists
    summary = (out / "summary.md").read_text()
    links = re.findall(r"\]\(([^)]+)\)", summary)
    assert len(links) >= 14 and all((out / link).is_file() for link in links)

    stats = rows(out / "stats.csv")
    base = {r["checkpoint"]: r for r in stats if r["outcome"] == "all" and r["subset"] == "all"}
    assert list(base) == ["eval_a", "eval_b"]
    for ck in ("a", "b"):  # pass@k is recomputed from the samples and matches evaluate.py's
        results = json.loads((tmp / f"eval_{ck}" / "results.json").read_text())
        for k in (1, 2):
            want = results["benchmarks"]["math"]["splits"]["all"][f"pass@{k}"]["mean"]
            assert float(base[f"eval_{ck}"][f"pass@{k}"]) == pytest.approx(want, abs=1e-5)
    assert {(r["checkpoint"], r["outcome"]) for r in stats} >= {("eval_a", "solved"), ("eval_a", "unsolved"), ("eval_b", "solved")}
    compare = json.loads((tmp / "compare-eval_a-eval_b/compare.json").read_text())
    sets = compare["benchmarks"]["math"]["eval_b"]["sets"]
    subset_traces = {r["subset"]: int(r["traces"]) for r in stats
                     if r["checkpoint"] == "eval_b" and r["outcome"] == "all" and r["subset"] != "all"}
    assert subset_traces == {name: 2 * len(pids) for name, pids in sets.items() if pids}

    # per-trace rows agree with the label sequences, and spans give back the reasoning text
    traces = rows(out / "traces.csv")
    assert len(traces) == 24
    for t in traces:
        assert int(t["chain_depth"]) == chain_depth(t["labels"].split())
        assert set(t["labels"].split()) <= set(LABELS)
    spans = [json.loads(line) for line in (out / "spans.jsonl").read_text().splitlines()]
    text = "".join(s["text"] for s in spans if s["checkpoint"] == "eval_b" and s["problem_id"] == "m4" and s["sample"] == 0)
    assert re.sub(r"\s+", "", text) == re.sub(r"\s+", "", reasoning_text(RESPONSES["b"]["m4"][0]))
    trained = float(base["eval_b"]["check_per_trace"]), float(base["eval_a"]["check_per_trace"])
    assert trained[0] > trained[1]  # the "trained" responses check more; the classifier sees it
    labeler = json.loads((out / "labeler.json").read_text())
    assert labeler["shipped_heldout"]["macro_f1"] > 0.6 and labeler["spans"] == len(spans)
    primitives = rows(out / "primitives.csv")
    assert {r["label"] for r in primitives} == set(LABELS)


def test_bad_input_is_counted_not_fatal(tmp_path):
    huge = "<reasoning>" + ("Compute 12 * 7 = 84. Then check: 84 / 7 = 12.\n\n" * 22000) + "</reasoning>"
    assert len(huge) > 1_000_000
    lines = [json.dumps({"problem_id": "ok", "response": RESPONSES["b"]["m3"][0], "correct": True}).encode(),
             json.dumps({"problem_id": "empty", "response": "", "correct": False}).encode(),
             json.dumps({"problem_id": "none", "response": None}).encode(),
             json.dumps({"problem_id": "plain", "response": "No tags at all. The answer is 4.", "correct": "true"}).encode(),
             json.dumps({"problem_id": "huge", "response": huge, "correct": 0}).encode(),
             b'{"problem_id": "latin1", "response": "caf\xe9 and na\xefve reasoning here"}',
             json.dumps({"problem_id": "twice", "sample": 0, "response": "Old sample.", "correct": False}).encode(),
             json.dumps({"problem_id": "twice", "sample": 0, "response": "Re-sampled.", "correct": True}).encode(),
             b'{"problem_id": "torn", "respo',
             b"[1, 2, 3]", b""]
    path = tmp_path / "bad" / "samples.jsonl"
    path.parent.mkdir()
    path.write_bytes(b"\n".join(lines) + b"\n")
    run("analyze.py", [f"inputs=[{path}]", "bootstrap=50"])
    out = tmp_path / "bad" / "analysis"
    bad = json.loads((out / "bad_input.json").read_text())
    assert bad["lines_not_utf8"] == 1 and bad["lines_not_json"] == 1 and bad["rows_not_objects"] == 1
    assert bad["missing_response"] == 1 and bad["empty_response"] == 2 and bad["traces_without_spans"] == 2
    assert bad["no_reasoning_tags"] == 4 and bad["largest_response_chars"] == len(huge)
    traces = {t["problem_id"]: t for t in rows(out / "traces.csv")}
    assert int(traces["huge"]["spans"]) > 1000 and set(traces) == {"ok", "plain", "huge", "latin1", "twice"}
    assert bad["repeated_samples_replaced"] == 1 and traces["twice"]["correct"] == "True"  # the later row wins
    assert (out / "summary.md").is_file() and (out / "depth_default.png").is_file()


def test_config_errors_are_one_line(tmp_path):
    for args, key in ([["inputs=[nope.jsonl]"], "inputs"], [["inputs=[]"], "inputs"],
                      [[f"inputs=[{DATA / 'analyze_responses.json'}]", 'motifs=["check>guess"]'], "motifs"],
                      [[f"inputs=[{DATA / 'analyze_responses.json'}]", "labeler=judges"], "judges"],
                      [[f"inputs=[{DATA / 'analyze_responses.json'}]", "classifier.kind=hf"], "classifier.model"]):
        r = subprocess.run([sys.executable, "analyze.py", *args], cwd=ROOT, capture_output=True, text=True)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and key in r.stderr, (args, r.stderr)


def cue_judge(path: Path, backtrack_word: str) -> str:
    """A replayed judge that labels by the span's opening (the target span follows '<span>\\n')."""
    rules = [("Wait", backtrack_word), ("Suppose", "hypothesize"), ("Check", "check"),
             ("Let me check", "check"), ("Let me verify", "check"), ("Okay", "other"), ("The problem", "setup"),
             ("We need", "setup"), ("We want", "setup"), ("Find", "setup"), ("Compute", "compute"),
             ("So the", "summarize"), ("The answer", "summarize")]
    lines = [{"match": 'previous reply "LABEL: undecided"', "responses": ["LABEL: backtrack"]}]
    lines += [{"match": "<span>\n" + cue, "responses": [f"LABEL: {label}"]} for cue, label in rules]
    lines.append({"match": "<span>\n", "responses": ["LABEL: compute"]})
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return str(path)


def test_judges_then_fine_tuned_classifier_resumes(eval_runs, tmp_path):
    """The paper's pipeline on CPU: two replayed judges label the spans, the tiny model is fine-tuned
    as a sequence classifier on their consensus, scored on held-out traces, then labels every span.
    A second run reuses the cached verdicts, the saved classifier and the cached labels."""
    from utils.tiny import build_tiny

    tiny = build_tiny(tmp_path / "tiny")
    judges = (f"judges=[{{name: j1, engine: {{backend: replay, replay_path: {cue_judge(tmp_path / 'j1.jsonl', 'undecided')}}}}},"
              f"{{name: j2, engine: {{backend: replay, replay_path: {cue_judge(tmp_path / 'j2.jsonl', 'backtrack')}}}}}]")
    args = [f"inputs=[{eval_runs / 'eval_a/samples.jsonl'},{eval_runs / 'eval_b/samples.jsonl'}]",
            f"out_root={tmp_path}", "name=judged", judges, "judge_spans=60", "classifier.kind=hf",
            f"classifier.model={tiny}", "classifier.train_data=judges", "classifier.heldout_fraction=0.3",
            "classifier.hf.epochs=1", "classifier.hf.max_length=64", "classifier.hf.lr=1e-3", "classifier.hf.device=cpu",
            f"tokenizer={tiny}", "passk=[1,2]", "bootstrap=50"]
    first = run("analyze.py", args)
    out = tmp_path / "judged" / "analysis"
    labeler = json.loads((out / "labeler.json").read_text())
    judged = len((out / "consensus.jsonl").read_text().splitlines())
    assert judged == min(60, labeler["spans"])
    assert 0 <= labeler["judged_heldout"]["macro_f1"] <= 1 and labeler["judged_heldout"]["spans"] > 0
    jr = labeler["judges"]
    assert set(jr["judges"]) == {"j1", "j2"} and jr["pairs"][0]["judges"] == ["j1", "j2"]
    assert jr["judges"]["j1"]["reasked"] == jr["judges"]["j1"]["label_counts"].get("backtrack", 0) > 0
    assert jr["judges"]["j1"]["invalid"] == 0 and jr["pairs"][0]["agreement"] == 1.0
    bad = json.loads((out / "bad_input.json").read_text())
    assert bad["judge_replies_reasked"] == jr["judges"]["j1"]["reasked"]
    assert (out / "classifier" / "config.json").is_file()
    spans = [json.loads(line) for line in (out / "spans.jsonl").read_text().splitlines()]
    assert all(s["tokens"] > 0 for s in spans)  # lengths in the tiny tokenizer's tokens
    verdicts = (out / "judgments.jsonl").read_text()
    labels_cache = (out / "label_cache.jsonl").read_text()
    second = run("analyze.py", args)
    assert "reusing the classifier" in second.stderr and "fine-tuning" not in second.stderr
    assert (out / "judgments.jsonl").read_text() == verdicts and (out / "label_cache.jsonl").read_text() == labels_cache
    assert [json.loads(line)["label"] for line in (out / "spans.jsonl").read_text().splitlines()] == [s["label"] for s in spans]
    assert "fine-tuning" in first.stderr

    # the jury alone labels every span; the span labels are its consensus. A third judge never names a
    # label on spans that open with "Wait", not even when asked again: its verdicts there are invalid,
    # left out of agreement (used to count as `other`, giving "Fleiss kappa 1.00") and said in the summary
    mute = tmp_path / "j3.jsonl"
    mute.write_text(json.dumps({"match": "<span>\nWait", "responses": ["I cannot tell."]}) + "\n"
                    + (tmp_path / "j1.jsonl").read_text())
    jury = judges[:-1] + f",{{name: j3, engine: {{backend: replay, replay_path: {mute}}}}}]"
    run("analyze.py", [a for a in args if not a.startswith("classifier.") and a != judges]
        + [jury, "labeler=judges", "name=jury"])
    out = tmp_path / "jury" / "analysis"
    jr = json.loads((out / "labeler.json").read_text())["judges"]
    waits = jr["judges"]["j3"]["invalid"]
    assert waits > 0 and jr["spans_with_invalid"] == waits and jr["fleiss_spans"] == jr["spans"] - waits
    assert jr["judges"]["j3"]["reasked"] >= waits
    summary = (out / "summary.md").read_text()
    assert (f"{waits} invalid verdicts (unparsable after one re-ask) on {waits} spans, left out of agreement: "
            f"Fleiss κ {jr['fleiss_kappa']:.2f} over {jr['spans'] - waits} spans") in summary, summary
    consensus = [json.loads(line) for line in (out / "consensus.jsonl").read_text().splitlines()]
    spans = [json.loads(line) for line in (out / "spans.jsonl").read_text().splitlines()]
    assert [c["label"] for c in consensus] == [s["label"] for s in spans] and len(spans) > 60
    assert all(c["span"] == s["text"] for c, s in zip(consensus, spans))
    assert any(s["text"].startswith("Wait") and s["label"] == "backtrack" for s in spans)


def test_tiny_model_pipeline_generate_evaluate_analyze(tmp_path):
    """The CPU pipeline of `make demo`: untrained tiny-model output is noise, and analyze.py must
    still produce every table and plot from it."""
    from utils.tiny import build_tiny

    tiny = build_tiny(tmp_path / "tiny")
    run("generate.py", [f"out={tmp_path / 'data'}", "splits.test=[{env: pattern, count: 3, params: {width: 4, height: 4}}]"])
    run("evaluate.py", [f"out_root={tmp_path}", "name=eval", f"model={tiny}", "n=2", "k=[1,2]", "max_tokens=48",
                        "bootstrap=20", f"benchmarks=[{{name: puzzles, kind: env, path: {tmp_path / 'data'}}}]"])
    run("analyze.py", ["--config", "configs/analyze/default.yaml", f"inputs=[{tmp_path / 'eval/samples.jsonl'}]",
                       "passk=[1,2]", "bootstrap=50"])
    out = tmp_path / "eval" / "analysis"
    for name in OUTPUTS:
        assert (out / name).is_file(), name
    assert (out / "primitives_puzzles.png").is_file() and (out / "depth_puzzles.png").is_file()
    assert json.loads((out / "bad_input.json").read_text())["traces"] == 6
    labels = [label for t in rows(out / "traces.csv") for label in t["labels"].split()]
    assert labels.count("other") >= len(labels) / 2  # an untrained model's token soup is not reasoning


def test_statistics_on_hand_computed_traces():
    import analyze
    from analyze import Trace

    cfg = analyze.AnalyzeConfig(bootstrap=200)
    a = Trace("c", "b", "p1", 0, True, labels=["setup", "compute", "check", "compute", "other", "check"])
    b = Trace("c", "b", "p1", 1, False, labels=["hypothesize", "compute", "backtrack", "compute", "check"])
    c = Trace("c", "b", "p2", 0, None, labels=["plan"])
    row = analyze.group_stats([a, b, c], [("compute", "check")], cfg)
    # depths: a = 4 (setup compute check compute), b = 2 (compute check), c = 0
    assert row["chain_depth_mean"] == pytest.approx(2.0) and row["chain_depth_p90"] == pytest.approx(3.6)
    assert row["chain_depth_ci_lo"] <= 2.0 <= row["chain_depth_ci_hi"]
    # exploit runs: a [4, 1], b [1, 2]: per-trace means 2.5 and 1.5 (c has none), four runs over three traces
    assert row["exploit_run_mean"] == 2.0 and row["exploit_runs_per_trace"] == pytest.approx(4 / 3)
    assert row["compute_per_trace"] == pytest.approx(4 / 3) and row["other_share"] == pytest.approx(1 / 12)
    assert row["recovery_per_trace"] == pytest.approx(1 / 3)  # only (hypothesize, compute, backtrack) in b
    assert row["motif:compute>check"] == pytest.approx(2 / 3)  # a: 1 (the one before `other`), b: 1
    assert row["solved"] == 1 and row["traces"] == 3

    # motif tables: five copies of `a` pass the k <= 5 filter (>= 5); the frequency is per trace
    tables = analyze.motif_tables({("g",): [a] * 5, ("h",): [a, b]}, max_k=4)
    got = {(r["k"], r["motif"]): r for r in tables[("g",)]}
    # a after the break mapping: setup compute check compute BREAK check (L = 6)
    assert got[(2, "compute>check")]["count"] == 5 and got[(2, "compute>check")]["traces"] == 5
    assert got[(2, "compute>check")]["mean_frequency"] == pytest.approx(1 / 5)
    assert got[(4, "setup>compute>check>compute")]["mean_frequency"] == pytest.approx(1 / 3)
    assert (2, "compute>other") not in got and (2, "check>compute") in got
    assert tables[("h",)] == []  # two traces never reach the corpus filter

    assert analyze.percentile([1, 2, 3, 4], 0.5) == 2.5
    assert analyze.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert analyze._ranks([10, 30, 20, 20]) == [0, 3, 1.5, 1.5]
    t = lambda pid, ok: Trace("c", "b", pid, 0, ok)  # noqa: E731
    assert analyze.passk_table([t("p", True), t("p", False), t("q", False), t("q", False)], [1, 2, 4]) == \
        {("c", "b"): {1: 0.25, 2: 0.5}}


def test_exploit_run_mean_is_per_trace_and_spans_with_and_without_other():
    """exploit_run_mean averages each trace's mean run length (puzzle_to_math line 79: "the mean length of all
    exploit runs per trace"), so one trace with many short runs does not outweigh the others; the pooled mean
    is reported beside it. Spans per trace with `other` and without."""
    import analyze
    from analyze import Trace

    long = Trace("c", "b", "p1", 0, True, labels=["compute", "plan"] * 4)      # four runs of 1: mean 1
    deep = Trace("c", "b", "p2", 0, True, labels=["setup", "compute", "check", "compute", "check", "other"])  # one of 5
    none = Trace("c", "b", "p3", 0, False, labels=["plan", "other", "other"])  # no run: not in the per-trace mean
    row = analyze.group_stats([long, deep, none], [], analyze.AnalyzeConfig(bootstrap=10))
    assert row["exploit_run_mean"] == pytest.approx((1 + 5) / 2)
    assert row["exploit_run_mean_pooled"] == pytest.approx((4 * 1 + 5) / 5)
    assert row["spans_per_trace"] == pytest.approx(17 / 3) and row["reasoning_spans_per_trace"] == pytest.approx(14 / 3)


def test_segmentation_regressions():
    from utils.segment import segment, segment_slices

    para = "The grid has five rows and five columns, and every clue must be satisfied exactly. " * 5
    # Windows line endings still separate paragraphs; curly apostrophes still open marker lines
    assert len(segment(para + "\r\n\r\n" + para)) == 2
    assert [s[:5] for s in segment(para + "\nLet’s try x = 2. " + para)] == ["The g", "Let’s"]
    assert [s[:6] for s in segment(para + "\n- Wait, " + para)] == ["The gr", "- Wait"]
    # spans start and end on non-whitespace, so joining them loses only whitespace
    text = "  \n\n" + para + "\n\n\t Check: " + para + "  \n\n  "
    assert all(not text[a].isspace() and not text[b - 1].isspace() for a, b in segment_slices(text))


def test_reasoning_text_of_cut_and_half_tagged_responses():
    # regression: a response cut at the token budget kept its "<reasoning>" tag in the first span,
    # and one whose opening tag was in the prompt was analysed answer and all
    assert reasoning_text("<reasoning>Let x = 2. Then") == "Let x = 2. Then"
    assert reasoning_text("Let x = 2.</reasoning><answer>2</answer>") == "Let x = 2."
    assert reasoning_text("a <reasoning>b</reasoning> c <reasoning>d</reasoning>") == "d"
    assert reasoning_text("plain text") == "plain text"


def test_judged_heldout_split_is_by_problem():
    import analyze
    from analyze import Trace

    traces = [Trace(f"ck{c}", "b", f"p{p}", s, None) for c in range(2) for p in range(20) for s in range(3)]
    held = analyze.heldout_problems(traces, 0.1, seed=0)
    assert len(held) == 2 and held <= {("b", f"p{p}") for p in range(20)}
    assert held == analyze.heldout_problems(list(reversed(traces)), 0.1, seed=0)  # order-free
    assert held != analyze.heldout_problems(traces, 0.1, seed=1)
    one = [Trace("c", "b", "p", 0, None)]
    two = one + [Trace("c", "b", "q", 0, None)]
    assert analyze.heldout_problems(one, 0.5, 0) == set()  # nothing to train on otherwise
    assert len(analyze.heldout_problems(two, 0.01, 0)) == 1 and len(analyze.heldout_problems(two, 0.99, 0)) == 1


def test_label_cache_is_per_classifier(tmp_path):
    # regression: a retrained classifier read the previous classifier's labels from the cache
    from types import SimpleNamespace

    import analyze

    def clf(label):
        return SimpleNamespace(cfg=SimpleNamespace(batch_size=4), predict=lambda texts: [label] * len(texts))

    cache = tmp_path / "label_cache.jsonl"
    assert analyze._cached_predict(clf("plan"), ["a", "b"], cache, "fp1") == ["plan", "plan"]
    assert analyze._cached_predict(clf("check"), ["a", "b"], cache, "fp2") == ["check", "check"]
    assert analyze._cached_predict(clf("other"), ["a", "c"], cache, "fp1") == ["plan", "other"]


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Every table of a markdown page as rows of cells, split as a renderer does: at `|` not
    escaped by a backslash."""
    tables, cur = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cur.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
        elif cur:
            tables.append(cur)
            cur = []
    return tables


def test_summary_tables_have_as_many_cells_as_their_header(tmp_path, capsys):
    # issue 21.11: an evaluation with splits analyses each group as "<benchmark> | <group>"; the
    # bare `|` in those names gave every such row one cell more than its header
    import analyze

    path = tmp_path / "eval" / "samples.jsonl"
    path.parent.mkdir()
    rows_ = [{"benchmark": "sorting", "problem_id": pid, "sample": j, "split": f"sorting d={i % 2}",
              "response": resp, "correct": j == 0}
             for ck in ("a", "b") for i, (pid, resps) in enumerate(RESPONSES[ck].items())
             for j, resp in enumerate(resps)]
    path.write_text("".join(json.dumps({**r, "checkpoint": ck}) + "\n" for ck in ("a", "b") for r in rows_))
    analyze.main([f"inputs=[{path}]", "fields={checkpoint: checkpoint}", "passk=[1]", "bootstrap=20", "strips=0"])
    summary = (tmp_path / "eval" / "analysis" / "summary.md").read_text()
    tables = markdown_tables(summary)
    assert len(tables) >= 5
    for table in tables:
        header, rule, *body = table
        assert len(rule) == len(header) and all(set(c) <= set("-:") for c in rule), (header, rule)
        for row in body:
            assert len(row) == len(header), (header, row)
    assert "sorting \\| sorting d=0" in summary  # the group's name, its `|` escaped
    assert any(row[:2] == ["b", "sorting \\| sorting d=1"] for t in tables for row in t[2:])
