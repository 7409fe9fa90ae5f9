"""Reasoning-primitive analysis of chain-of-thought traces (puzzle-to-math paper, section 4 and
Appendices K-L): segment each response into spans, label every span with one of 9 primitives,
then count primitives, motifs (label k-grams, k = 2..15) and chain depth per checkpoint and
benchmark, split by solved/unsolved and by `evaluate.py compare` problem subsets, and correlate
them with pass@k across checkpoints.

    python analyze.py --config configs/analyze/default.yaml inputs=[runs/a/samples.jsonl,runs/b/samples.jsonl]
    python analyze.py ... inputs=['runs/eval/vanilla_step_*/samples.jsonl']      # a glob: checkpoints in step order
    python analyze.py novelty-signal runs/paper/gspo_novelty     # top-k vs mean NLL within-group signal
    python analyze.py compare-runs runs/paper/pilot/grpo_vanilla runs/paper/pilot/gspo_vanilla --out DIR  # training curves side by side
    python analyze.py cases runs/eval/base runs/eval/individual runs/eval/races --labels Base,RL_individual,RL_RACES \
        --config configs/eval/races_paper.yaml --cases configs/analyze/races_cases.yaml \
        --out runs/analysis/races_cases                                   # RACES case studies (Appendix E)

Inputs are samples.jsonl files from evaluate.py or train.py, SFT-trace rows (`responses`: one trace
each), or any JSONL with a response text and optionally `correct`, a problem id, a benchmark, a
group (evaluate.py's `split`: puzzle and grid) and a checkpoint name (see `fields`). Each input file
is one checkpoint unless its rows name their own (train.py's samples: fields.checkpoint=step).
Each group is also analysed as its own benchmark ("puzzles | bridges 8x8 hard"). Labellers: the embedded n-gram classifier trained on the
shipped spans (default, no download), the cue-phrase baseline, a jury of LLM judges, or a
classifier fine-tuned on the judges' consensus (the paper's pipeline). Outputs go to
runs/<name>/analysis/: CSV tables, PNG plots and summary.md linking them.
"""
from __future__ import annotations

import csv
import io
import json
import math
import random
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field as dc_field
from pathlib import Path
from typing import Dict, List, Optional

from utils.config import field, load
from utils.judges import JudgeConfig
from utils.span_classifier import HFTrainConfig, NgramConfig

DEFAULT_FIELDS = {"response": "response", "responses": "responses", "correct": "correct", "problem_id": "problem_id",
                  "benchmark": "benchmark", "checkpoint": "checkpoint", "sample": "sample", "group": "split"}
DEFAULT_MOTIFS = ["check>compute>check>compute>check", "compute>check>compute", "hypothesize>compute>backtrack",
                  "hypothesize>check>backtrack", "setup>compute>check", "enumerate>hypothesize>check"]


@dataclass
class ClassifierConfig:
    kind: str = field("ngram", help="ngram: the embedded bag-of-n-grams model; hf: fine-tune "
                                    "AutoModelForSequenceClassification from `model`", choices=("ngram", "hf"))
    train_data: str = field("shipped", help="shipped: the hand-labelled spans in data/spans/; judges: the "
                                            "consensus labels of `judges` on `judge_spans` sampled spans (paper)",
                            choices=("shipped", "judges"))
    model: str = field("", help="hf: model directory or hub name to fine-tune (paper: Qwen/Qwen3-1.7B)")
    load: str = field("", help="hf: an already fine-tuned classifier directory; used as is, no training")
    heldout_fraction: float = field(0.1, help="judges: share of judged problems (all their traces) held out "
                                                  "for macro-F1", gt=0, lt=1)
    context_chars: int = field(1500, help="hf: characters of the preceding spans given with each span (puzzle_to_math "
                                          "line 49: 'each span is then classified with its preceding context'); "
                                          "0: the span alone", ge=0)
    ngram: NgramConfig = field(NgramConfig(), help="embedded n-gram model")
    hf: HFTrainConfig = field(HFTrainConfig(), help="HF fine-tuning and inference")


@dataclass
class Stratum:
    name: str = field("all", help="stratum name (reported with its span count)")
    benchmarks: List[str] = field(["*"], help="benchmark names (fnmatch patterns) whose spans belong here; the "
                                             "first stratum that matches a span's benchmark takes it")
    spans: int = field(0, help="spans drawn for the jury from this stratum, spread evenly over its checkpoints x "
                               "benchmarks", ge=0)


@dataclass
class AppendixQConfig:
    benchmark: str = field("olymmath_en_hard", help="the benchmark whose traces are paired (paper: OlymMATH-Hard)")
    sft: str = field("sft", help="checkpoint name of the SFT model")
    gspo: str = field("vanilla", help="checkpoint name of vanilla GSPO")
    novelty: str = field("novelty", help="checkpoint name of GSPO + novelty bonus")
    opening: int = field(2, help="Part A: the paired traces share their first `opening` primitives (`other` "
                                 "skipped; puzzle_to_math line 213: 'share the first two opening primitives')", ge=0)
    sft_depth: List[int] = field([2, 4], help="Part A: the SFT trace's chain depth range, inclusive (line 213)", ge=0)
    gspo_depth: List[int] = field([5, 9], help="Part A: the GSPO trace's chain depth range, inclusive (line 213)", ge=0)
    pairs: int = field(2, help="problems drawn per part (the paper shows two each)", ge=1)


@dataclass
class AnalyzeConfig:
    inputs: List[str] = field([], help="samples.jsonl files (evaluate.py) or any JSONL of responses")
    names: List[str] = field([], help="checkpoint name per input (default: the row's checkpoint field, "
                                      "else the input's directory name)")
    name: str = field("", help="outputs go to <out_root>/<name>/analysis/; empty: next to the first input")
    out_root: str = field("runs", help="directory holding runs")
    fields: Dict[str, str] = field({}, help=f"our field -> input column, defaults {DEFAULT_FIELDS}")
    labeler: str = field("classifier", help="classifier (see `classifier`), cue (phrase baseline), or judges "
                                            "(the jury labels every span)", choices=("classifier", "cue", "judges"))
    classifier: ClassifierConfig = field(ClassifierConfig(), help="span classifier")
    judges: List[JudgeConfig] = field([], help="LLM jury (any utils/engine.py backend)")
    judge_spans: int = field(35000, help="classifier.train_data=judges: spans sampled for the jury (paper: 35k); "
                                         "with `strata`, their sum", ge=1)
    strata: List[Stratum] = field([], help="classifier.train_data=judges: a stratified draw, e.g. the paper's 17k "
                                           "puzzle + 18k math spans (line 161); empty: a uniform draw of judge_spans")
    judge_ties: str = field("unresolved", help="a span the judges tie on (two that disagree): unresolved (no "
                                               "consensus: it trains and scores no classifier, and labeler=judges "
                                               "labels it other), judge (ask tie_judge; its vote joins the others, "
                                               "a tie left is unresolved) or first (the first judge listed wins). "
                                               "The paper's 'judge consensus' (puzzle_to_math line 161) says "
                                               "nothing of ties; ties are counted in labeler.json and summary.md",
                            choices=("unresolved", "judge", "first"))
    tie_judge: JudgeConfig = field(JudgeConfig(name="tie_judge"), help="judge_ties=judge: the third judge, asked "
                                                                        "only on the spans the others tie on")
    judge_batch: int = field(256, help="spans per judge request batch (cached after each)", ge=1)
    context_chars: int = field(1500, help="judges: characters of preceding spans shown as context", ge=0)
    tokenizer: str = field("", help="HF tokenizer for reported span lengths (paper: OLMo3's, "
                                    "allenai/Olmo-3-7B-Instruct-SFT, line 157; empty: characters / 4). One that "
                                    "cannot be loaded (offline) falls back to characters / 4, noted in the summary")
    default_benchmark: str = field("default", help="benchmark of rows that name none (SFT-trace rows: puzzles, to "
                                                   "set the teacher beside evaluate.py's puzzle runs, Fig. 2)")
    per_group: bool = field(True, help="also analyse each group of a benchmark (puzzles: puzzle and grid) as its "
                                       "own benchmark '<benchmark> | <group>'")
    max_k: int = field(15, help="longest motif (paper: k = 2..15)", ge=2, le=15)
    motifs: List[str] = field(DEFAULT_MOTIFS, help="named motifs counted non-overlapping per trace")
    compare: str = field("", help="compare.json from `evaluate.py compare` for problem-subset splits")
    passk: List[int] = field([1, 8, 32], help="pass@k values correlated with the statistics (k <= samples)", ge=1)
    bootstrap: int = field(1000, help="bootstrap resamples for chain-depth 95% intervals", ge=1)
    plot_benchmarks: List[str] = field([], help="benchmarks to draw (fnmatch patterns, e.g. [olymmath_en_hard, "
                                                "'puzzles*']); empty: every benchmark. Tables cover all of them")
    strips: int = field(3, help="problems drawn as primitive strips (sample 0 of each checkpoint)", ge=0)
    appendix_q: AppendixQConfig = field(AppendixQConfig(), help="the paired traces of Figures 14-15 (puzzle_to_math "
                                                                "Appendix Q), selected by the paper's rule")
    top_motifs: int = field(12, help="motif changes listed in the summary and plot", ge=0)
    seed: int = field(0, help="seed for sampling spans for judges, bootstraps and held-out splits", ge=0)

    def validate(self):
        from utils.motifs import parse_motif

        if not self.inputs:
            yield "inputs", "no input files given (inputs=[runs/x/samples.jsonl,...])"
        for p in self.inputs:
            if not expand_inputs([p]):
                yield "inputs", f"{p} is not a file" + (" (the glob matches none)" if set("*?[") & set(p) else "")
        if self.names and len(self.names) != len(expand_inputs(self.inputs)):
            yield "names", f"{len(self.names)} names for {len(expand_inputs(self.inputs))} inputs"
        bad = set(self.fields) - set(DEFAULT_FIELDS)
        if bad:
            yield "fields", f"unknown field(s) {sorted(bad)}; known: {sorted(DEFAULT_FIELDS)}"
        for m in self.motifs:
            try:
                parse_motif(m)
            except ValueError as e:
                yield "motifs", str(e)
        needs_judges = self.labeler == "judges" or (self.labeler == "classifier" and self.classifier.train_data == "judges")
        if needs_judges and not self.judges:
            yield "judges", "no judges configured (judges=[{name: j1, engine: {...}}])"
        if len({j.name for j in self.judges}) != len(self.judges):
            yield "judges", "judge names must be unique"
        for i, j in enumerate(self.judges if needs_judges else []):
            yield from j.engine.problems(f"judges.{i}.engine")
        if needs_judges and self.judge_ties == "judge":
            if self.tie_judge.name in {j.name for j in self.judges}:
                yield "tie_judge.name", f"{self.tie_judge.name!r} is a judge of the jury already"
            if self.tie_judge.engine.backend != "replay" and not self.tie_judge.engine.model:
                yield "tie_judge.engine.model", "judge_ties=judge needs the tie-break judge's model"
            yield from self.tie_judge.engine.problems("tie_judge.engine")
        c = self.classifier
        if self.labeler == "classifier" and c.kind == "hf" and not (c.model or c.load):
            yield "classifier.model", "kind=hf needs a model to fine-tune (or classifier.load)"
        if self.compare and not Path(self.compare).is_file():
            yield "compare", f"{self.compare} is not a file"
        elif self.compare:
            yield from compare_problem(self.compare)
        if self.strata and not any(st.spans for st in self.strata):
            yield "strata", "no stratum draws any span"


def compare_problem(path: str):
    """("compare", message) if the file is not an `evaluate.py compare` report (compare.json)."""
    try:
        report = json.loads(Path(path).read_bytes())
    except (ValueError, OSError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        yield "compare", f"{path} is not valid JSON ({str(e).splitlines()[0][:120]})"
        return
    if not isinstance(report, dict) or not isinstance(report.get("benchmarks"), dict):
        yield "compare", f"{path} is not a compare.json from `evaluate.py compare` (no benchmarks mapping)"


@dataclass
class Trace:
    checkpoint: str
    benchmark: str
    problem_id: str
    sample: int
    correct: Optional[bool]
    spans: List[str] = dc_field(default_factory=list)
    group: str = ""
    labels: List[str] = dc_field(default_factory=list)
    tokens: List[int] = dc_field(default_factory=list)


def log(msg: str) -> None:
    print(f"[analyze] {msg}", file=sys.stderr, flush=True)


def expand_inputs(patterns: list[str]) -> list[str]:
    """Input files in order; a glob expands in natural order (step_50 before step_100), so a list of
    checkpoints' evaluations is one argument."""
    import glob

    def natural(p: str):
        return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", p)]

    out = []
    for p in patterns:
        if set("*?[") & set(p):
            out += sorted((f for f in glob.glob(p) if Path(f).is_file()), key=natural)
        elif Path(p).is_file():
            out.append(p)
    return out


# ------------------------------------------------------------------ reading and segmenting


def _as_bool(v) -> Optional[bool]:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)) and v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "false", "1", "0"):
        return v.strip().lower() in ("true", "1")
    return None


def read_traces(cfg: AnalyzeConfig, bad: Counter, per_input: dict | None = None) -> list[Trace]:
    """Every row of every input, segmented. Undecodable bytes, broken JSON lines, missing or empty
    responses are counted in `bad`, never fatal (input_problems() refuses an input with no usable
    row at all from `per_input`: path -> lines, JSON object rows, rows with a response, columns).
    A row that repeats a (checkpoint, benchmark, problem, sample) replaces the earlier one, as in
    evaluate.py's results (a batch re-sampled after an interruption or a prompt change is
    appended, not rewritten)."""
    from utils.segment import reasoning_text, segment

    fields = {**DEFAULT_FIELDS, **cfg.fields}
    traces: list[Trace] = []
    seen: dict[tuple, int] = {}
    per_input = {} if per_input is None else per_input
    for n, path in enumerate(expand_inputs(cfg.inputs)):
        default_ckpt = cfg.names[n] if cfg.names else Path(path).resolve().parent.name
        samples: Counter = Counter()
        got = per_input.setdefault(path, {"lines": 0, "objects": 0, "responses": 0, "columns": set()})
        for raw in Path(path).read_bytes().splitlines():
            if not raw.strip():
                continue
            got["lines"] += 1
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                bad["lines_not_utf8"] += 1
                line = raw.decode("utf-8", errors="replace")
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                bad["lines_not_json"] += 1
                continue
            if not isinstance(row, dict):
                bad["rows_not_objects"] += 1
                continue
            got["objects"] += 1
            got["columns"].update(row)
            got["responses"] += isinstance(row.get(fields["response"]), str) or \
                isinstance(row.get(fields["responses"]), list)
            if fields["response"] not in row and isinstance(row.get(fields["responses"]), list):
                # SFT-trace rows (generate.py mode=sft_traces): every kept response is one trace
                responses = [(j, r) for j, r in enumerate(row[fields["responses"]])]
            else:
                responses = [(row.get(fields["sample"]), row.get(fields["response"]))]
            ckpt = default_ckpt if cfg.names else str(row.get(fields["checkpoint"]) or default_ckpt)
            bench = str(row.get(fields["benchmark"]) or cfg.default_benchmark)
            pid = str(row.get(fields["problem_id"], row.get("id", f"row{len(traces)}")))
            group = row.get(fields["group"])
            group = str(group) if group not in (None, "", "all") else ""
            for sample, response in responses:
                if not isinstance(response, str):
                    bad["missing_response"] += 1
                    response = ""
                if not response.strip():
                    bad["empty_response"] += 1
                elif "<reasoning>" not in response and "</reasoning>" not in response:
                    bad["no_reasoning_tags"] += 1  # not an error: the whole response is the reasoning
                elif "</reasoning>" not in response:
                    bad["reasoning_not_closed"] += 1  # cut at the token budget: analysed up to the cut
                bad["largest_response_chars"] = max(bad["largest_response_chars"], len(response))
                if not isinstance(sample, int):
                    sample = samples[(ckpt, bench, pid)]
                samples[(ckpt, bench, pid)] += 1
                spans = segment(response)
                if not spans and response.strip() and not reasoning_text(response).strip():
                    bad["empty_reasoning_block"] += 1
                trace = Trace(ckpt, bench, pid, sample, _as_bool(row.get(fields["correct"])), spans, group=group)
                key = (ckpt, bench, pid, sample)
                if key in seen:
                    bad["repeated_samples_replaced"] += 1
                    traces[seen[key]] = trace
                else:
                    seen[key] = len(traces)
                    traces.append(trace)
    bad["traces"] = len(traces)
    bad["traces_without_spans"] = sum(not t.spans for t in traces)
    return traces


def input_problems(cfg: AnalyzeConfig, per_input: dict) -> list[tuple[str, str]]:
    """(key, message) for inputs that hold nothing to analyse, read by read_traces: an empty file,
    one with no JSON object row, one whose rows have no response, a column named in `fields` that
    no row of an input has. Single bad rows stay counted, not fatal."""
    fields = {**DEFAULT_FIELDS, **cfg.fields}
    out = []
    for path, got in per_input.items():
        if not got["lines"]:
            out.append(("inputs", f"{path} is empty"))
        elif not got["objects"]:
            out.append(("inputs", f"{path} has no JSON object rows ({got['lines']} lines): not JSONL of samples"))
        else:
            missing = [ours for ours, col in cfg.fields.items() if col not in got["columns"]]
            if missing:
                out.append((f"fields.{missing[0]}", f"no row of {path} has a column {cfg.fields[missing[0]]!r} "
                                                   f"(columns: {sorted(got['columns'])[:12]})"))
            elif not got["responses"]:
                out.append(("inputs", f"{path} has no response in any row (no text `{fields['response']}` or list "
                                      f"`{fields['responses']}`): name the column with fields.response="))
    return out


# ------------------------------------------------------------------ labelling


def _shipped_eval(predict, report: dict) -> None:
    """macro-F1 and confusion of `predict` and of the cue baseline on the shipped held-out spans."""
    from utils.labels import confusion_matrix, cue_label, macro_f1, per_label_f1
    from utils.span_classifier import SHIPPED_SPANS, load_spans

    rows = load_spans(SHIPPED_SPANS / "heldout.jsonl")
    gold = [r["label"] for r in rows]
    pred = predict([(r["text"], r["prev"]) for r in rows], lambda i: rows[i]["prev"])  # context: the previous span
    report["shipped_heldout"] = {"spans": len(rows), "macro_f1": macro_f1(gold, pred),
                                 "per_label_f1": per_label_f1(gold, pred), "confusion": confusion_matrix(gold, pred),
                                 "cue_baseline_macro_f1": macro_f1(gold, [cue_label(r["text"]) for r in rows])}


def _judge(cfg: AnalyzeConfig, items: list[tuple[str, list[str]]], out: Path,
           bad: Counter) -> tuple[list[str | None], dict]:
    """Consensus labels of the jury for (span, context) items (None: a tie left unresolved, see
    judge_ties), the agreement report, and consensus.jsonl (one row per span with every judge's
    label; `unresolved` where no consensus)."""
    from utils.engine import make_engine
    from utils.judges import agreement_report, consensus, is_tie, judge_spans
    from utils.records import write_jsonl

    verdicts = judge_spans(items, cfg.judges, out / "judgments.jsonl", make_engine, batch_size=cfg.judge_batch,
                           context_chars=cfg.context_chars, seed=cfg.seed, log=log)
    names = [j.name for j in cfg.judges]
    votes = [[verdicts[name][i].label for name in names] for i in range(len(items))]
    ties = {"rule": cfg.judge_ties}
    if cfg.judge_ties == "judge":  # the third judge sees only the tied spans; its vote joins the others
        tied = [i for i, v in enumerate(votes) if is_tie(v)]
        extra = judge_spans([items[i] for i in tied], [cfg.tie_judge], out / "judgments.jsonl", make_engine,
                            batch_size=cfg.judge_batch, context_chars=cfg.context_chars, seed=cfg.seed,
                            log=log)[cfg.tie_judge.name] if tied else []
        for i, v in zip(tied, extra):
            votes[i].append(v.label)
        ties["tie_judge"] = cfg.tie_judge.name
        ties["asked"] = len(tied)
    labels = [consensus(v, cfg.judge_ties) for v in votes]
    report = agreement_report(verdicts, labels, ties)
    bad["judge_replies_reasked"] = sum(v.reasked for vs in verdicts.values() for v in vs)
    bad["judge_invalid_verdicts"] = sum(not v.valid for vs in verdicts.values() for v in vs)
    write_jsonl(out / "consensus.jsonl", ({"span": span, "label": label or "unresolved",
                                           "votes": dict(zip(names + [cfg.tie_judge.name], votes[i]))}
                                          for i, ((span, _), label) in enumerate(zip(items, labels))))
    return labels, report


def _fit_classifier(cfg: AnalyzeConfig, train: list[tuple[str, str, str, str]], out: Path):
    """Train on (span, previous span, preceding context, label) rows; returns predict(pairs, context)
    -> labels, for (span, previous span) pairs and context(i), the preceding text of pair i (the HF
    classifier reads it, the n-gram model the previous span)."""
    c = cfg.classifier
    if c.kind == "ngram":
        from utils.span_classifier import NgramClassifier

        model = NgramClassifier(c.ngram).fit([(s, p) for s, p, _, _ in train], [y for *_, y in train])
        return lambda pairs, context=None: model.predict(pairs)
    import hashlib

    from utils.span_classifier import HFSpanClassifier

    saved = out / "classifier"
    with_context = c.context_chars > 0
    fp = hashlib.sha256(json.dumps([c.model, c.load, repr(c.hf), c.context_chars, train],
                                   default=str).encode()).hexdigest()[:16]
    if c.load:
        clf = HFSpanClassifier.load(c.load, c.hf)
    elif (saved / "train_fingerprint").is_file() and (saved / "train_fingerprint").read_text().strip() == fp:
        log(f"reusing the classifier fine-tuned earlier in {saved}")
        clf = HFSpanClassifier.load(saved, c.hf)
    else:
        log(f"fine-tuning {c.model} on {len(train)} spans" + (" with their preceding context" if with_context else ""))
        clf = HFSpanClassifier.load(c.model, c.hf, num_labels_check=False).fit(
            [s for s, *_ in train], [y for *_, y in train], log=log,
            contexts=[ctx[-c.context_chars:] for _, _, ctx, _ in train] if with_context else None)
        clf.save(saved)
        (saved / "train_fingerprint").write_text(fp + "\n")
    return lambda pairs, context=None: _cached_predict(
        clf, [s for s, _ in pairs], out / "label_cache.jsonl", fp,
        (lambda i: context(i)[-c.context_chars:]) if with_context and context is not None else None)


def _cached_predict(clf, texts: list[str], cache: Path, classifier_key: str, context=None) -> list[str]:
    """HF predictions through an append-only cache, so labelling a large corpus resumes. Keys hold
    the classifier's fingerprint (a retrained or another classifier never reuses stale labels) and
    the span's context; context(i) gives span i's, built chunk by chunk (never all at once)."""
    from utils.judges import prompt_key
    from utils.records import append_jsonl, read_jsonl_tolerant

    known = {row["key"]: row["label"] for row in read_jsonl_tolerant(cache)}
    keys = [prompt_key(f"{classifier_key}\0{t}" + (f"\0{context(i)}" if context else "")) for i, t in enumerate(texts)]
    todo = list({k: i for i, k in enumerate(keys) if k not in known}.values())
    chunk = 50 * clf.cfg.batch_size
    for start in range(0, len(todo), chunk):
        idx = todo[start:start + chunk]
        texts_in = [texts[i] for i in idx]
        labels = clf.predict(texts_in, [context(i) for i in idx]) if context else clf.predict(texts_in)
        append_jsonl(cache, [{"key": keys[i], "label": label} for i, label in zip(idx, labels)])
        known.update((keys[i], label) for i, label in zip(idx, labels))
        log(f"classified {min(start + chunk, len(todo))}/{len(todo)} spans")
    return [known[k] for k in keys]


def _context(spans: list[str], i: int, chars: int) -> list[str]:
    """The spans before spans[i], nearest last, only as many as cover `chars` characters: the judge
    sees the last `chars` anyway, and joining every earlier span of a 1 MB trace for each of its
    thousands of spans would build gigabytes of strings."""
    out, n, j = [], 0, i - 1
    while j >= 0 and n < chars:
        out.append(spans[j])
        n += len(spans[j]) + 2
        j -= 1
    return out[::-1]


def label_traces(cfg: AnalyzeConfig, traces: list[Trace], out: Path, bad: Counter) -> dict:
    """Fill trace.labels for every trace; returns the labeller report (macro-F1s, agreement)."""
    from utils.labels import confusion_matrix, cue_label, macro_f1, per_label_f1

    where = [(t, i) for t, tr in enumerate(traces) for i in range(len(tr.spans))]
    pairs = [(traces[t].spans[i], traces[t].spans[i - 1] if i else "") for t, i in where]
    report: dict = {"labeler": cfg.labeler, "spans": len(pairs)}
    chars = max(cfg.context_chars, cfg.classifier.context_chars)

    def context(j: int) -> str:  # the text before span j, as the judges and the HF classifier see it
        t, i = where[j]
        return "\n\n".join(_context(traces[t].spans, i, chars))

    t0 = time.time()
    if not pairs:
        labels = []  # nothing to label (every response empty): no judge is asked, nothing is trained
    elif cfg.labeler == "cue":
        labels = [cue_label(s) for s, _ in pairs]
        _shipped_eval(lambda ps, context=None: [cue_label(s) for s, _ in ps], report)
    elif cfg.labeler == "judges":
        items = [(traces[t].spans[i], _context(traces[t].spans, i, cfg.context_chars)) for t, i in where]
        labels, report["judges"] = _judge(cfg, items, out, bad)
        labels = [label or "other" for label in labels]  # an unresolved tie: a break, neither judge's label
    else:
        c = cfg.classifier
        report["classifier"] = {"kind": c.kind, "train_data": c.train_data, "model": c.model or c.load or None,
                                "context_chars": c.context_chars if c.kind == "hf" else None}
        if c.train_data == "shipped" or c.load:
            from utils.span_classifier import SHIPPED_SPANS, load_spans

            train = [(r["text"], r["prev"], r["prev"], r["label"]) for r in load_spans(SHIPPED_SPANS / "train.jsonl")]
            predict = _fit_classifier(cfg, train, out)
        else:
            # The paper's pipeline: the jury labels a sample of spans (stratified by domain, line 161), the
            # classifier learns the consensus on most problems and is scored on the held-out ones, then
            # labels everything.
            chosen, report["judge_sample"] = judge_sample(cfg, traces, where)
            items = [(pairs[j][0], _context(traces[where[j][0]].spans, where[j][1], cfg.context_chars)) for j in chosen]
            consensus_labels, report["judges"] = _judge(cfg, items, out, bad)
            # spans the judges tied on and left unresolved neither train nor score the classifier
            chosen, consensus_labels = zip(*[(j, y) for j, y in zip(chosen, consensus_labels) if y is not None]) \
                if any(y is not None for y in consensus_labels) else ((), ())
            held = heldout_problems([traces[where[j][0]] for j in chosen], c.heldout_fraction, cfg.seed)
            rows = [(pairs[j][0], pairs[j][1], context(j), y) for j, y in zip(chosen, consensus_labels)]
            in_held = [(traces[where[j][0]].benchmark, traces[where[j][0]].problem_id) in held for j in chosen]
            train = [r for r, h in zip(rows, in_held) if not h]
            test = [r for r, h in zip(rows, in_held) if h]
            predict = _fit_classifier(cfg, train, out)
            if test:
                gold = [y for *_, y in test]
                pred = predict([(s, p) for s, p, _, _ in test], lambda i: test[i][2])
                report["judged_heldout"] = {"spans": len(test), "macro_f1": macro_f1(gold, pred),
                                            "per_label_f1": per_label_f1(gold, pred),
                                            "confusion": confusion_matrix(gold, pred),
                                            "cue_baseline_macro_f1": macro_f1(gold, [cue_label(s) for s, *_ in test])}
        _shipped_eval(predict, report)
        labels = predict(pairs, context)
    report["seconds"] = round(time.time() - t0, 2)
    for (t, _), label in zip(where, labels):
        traces[t].labels.append(label)
    return report


def judge_sample(cfg: AnalyzeConfig, traces: list[Trace], where: list[tuple[int, int]]) -> tuple[list[int], dict]:
    """Indices (into `where`) of the spans the jury labels, and how many came from where. Without
    strata: a uniform draw of judge_spans. With strata (the paper: 17k puzzle + 18k math spans, line
    161): each span goes to the first stratum whose patterns match its benchmark, and each stratum's
    quota is spread evenly over its (checkpoint, benchmark) cells; a cell with fewer spans gives its
    remainder to the others."""
    from fnmatch import fnmatch

    rng = random.Random(cfg.seed)
    if not cfg.strata:
        chosen = sorted(rng.sample(range(len(where)), min(cfg.judge_spans, len(where))))
        return chosen, {"uniform": len(chosen)}
    cells: dict[str, dict[tuple[str, str], list[int]]] = {st.name: defaultdict(list) for st in cfg.strata}
    for j, (t, _) in enumerate(where):
        tr = traces[t]
        st = next((st for st in cfg.strata if any(fnmatch(tr.benchmark, p) for p in st.benchmarks)), None)
        if st is not None:
            cells[st.name][(tr.checkpoint, tr.benchmark)].append(j)
    chosen, report = [], {}
    for st in cfg.strata:
        pools = {k: rng.sample(v, len(v)) for k, v in sorted(cells[st.name].items())}
        got: Counter = Counter()
        left = st.spans
        while left > 0 and any(pools.values()):
            active = [k for k in pools if pools[k]]
            share = max(1, left // len(active))
            for k in active:
                take, pools[k] = pools[k][:min(share, left)], pools[k][min(share, left):]
                chosen += take
                got[k] += len(take)
                left -= len(take)
                if left <= 0:
                    break
        report[st.name] = {"spans": sum(got.values()), "asked": st.spans,
                           "cells": {f"{c} | {b}": n for (c, b), n in sorted(got.items())}}
    return sorted(chosen), report


def heldout_problems(traces: list[Trace], fraction: float, seed: int) -> set[tuple[str, str]]:
    """(benchmark, problem_id) of the problems whose judged spans score the classifier: a seeded
    `fraction` of the problems (at least one, never all), with every sample and checkpoint of a
    problem on the same side, so no held-out span has a sibling trace of its problem in training."""
    problems = sorted({(t.benchmark, t.problem_id) for t in traces})
    order = sorted(problems, key=lambda p: random.Random(f"{seed}/{p[0]}/{p[1]}").random())
    return set(order[:min(len(order) - 1, max(1, round(fraction * len(order))))])


def span_tokens(cfg: AnalyzeConfig, traces: list[Trace], report: dict) -> None:
    """Each span's length in cfg.tokenizer's tokens (the paper reports OLMo3 tokens, line 157); a
    tokenizer that cannot be loaded (offline, a typo) falls back to characters / 4, noted in report."""
    from utils.segment import span_lengths

    tok, report["span_tokens"] = None, "characters / 4"
    if cfg.tokenizer:
        from transformers import AutoTokenizer

        try:
            tok = AutoTokenizer.from_pretrained(cfg.tokenizer)
            report["span_tokens"] = f"tokens of {cfg.tokenizer}"
        except (OSError, ValueError, ImportError) as e:  # no network / no cache / not a tokenizer
            report["span_tokens"] = (f"characters / 4: tokenizer {cfg.tokenizer} could not be loaded "
                                     f"({type(e).__name__}: {str(e).splitlines()[0][:200]})")
            log(f"span lengths: {report['span_tokens']}")
    for t in traces:
        t.tokens = span_lengths(t.spans, tok)


# ------------------------------------------------------------------ statistics


def percentile(xs: list[float], q: float) -> float:
    """Linear-interpolation percentile (numpy's default) of a non-empty list."""
    s = sorted(xs)
    pos = (len(s) - 1) * q
    lo = math.floor(pos)
    return s[lo] + (s[min(lo + 1, len(s) - 1)] - s[lo]) * (pos - lo)


def bootstrap_mean_ci(xs: list[float], resamples: int, seed: int) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of the mean, resampling traces."""
    import numpy as np

    a = np.asarray(xs, dtype=float)
    rng = np.random.default_rng(seed)
    means = np.concatenate([a[rng.integers(0, len(a), (min(200, resamples - i), len(a)))].mean(axis=1)
                            for i in range(0, resamples, 200)])
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def group_stats(traces: list[Trace], motifs: list[tuple[str, ...]], cfg: AnalyzeConfig) -> dict:
    """Per-trace means of every statistic over a group of labelled traces."""
    from utils.motifs import LABELS, category_counts, chain_depth, count_nonoverlapping, exploit_runs, mean_exploit_run

    n = len(traces)
    depths = [chain_depth(t.labels) for t in traces]
    runs = [r for t in traces for r in exploit_runs(t.labels)]
    # exploit_run_mean: puzzle_to_math line 79 measures "the mean length of all exploit runs per trace" "to
    # check that this is not driven by a few exceptional traces": each trace's mean, averaged over the traces
    # that have a run (our choice: a trace without one has no run length; chain depth and runs per trace count
    # it). exploit_run_mean_pooled: every run of the group weighs the same, so long traces weigh more.
    per_trace = [m for m in map(mean_exploit_run, (t.labels for t in traces)) if m is not None]
    spans = sum(len(t.labels) for t in traces)
    counts = Counter(label for t in traces for label in t.labels)
    cats, with_recovery = Counter(), 0
    for t in traces:
        c = category_counts(t.labels)
        cats.update(c)
        with_recovery += c["recovery"] > 0
    lo, hi = bootstrap_mean_ci(depths, cfg.bootstrap, cfg.seed) if n > 1 else (float("nan"), float("nan"))
    # spans_per_trace counts `other`, one of the nine primitives (puzzle_to_math line 7); reasoning_spans_per_trace
    # only the 8 reasoning labels (line 165). Line 65's "2.8 primitive spans per trace" does not say which.
    row = {"traces": n, "solved": sum(t.correct is True for t in traces), "spans_per_trace": spans / n,
           "reasoning_spans_per_trace": sum(label != "other" for t in traces for label in t.labels) / n,
           "tokens_per_span": sum(sum(t.tokens) for t in traces) / max(1, spans),
           "chain_depth_mean": sum(depths) / n, "chain_depth_p90": percentile(depths, 0.9),
           "chain_depth_ci_lo": lo, "chain_depth_ci_hi": hi,
           "exploit_run_mean": sum(per_trace) / len(per_trace) if per_trace else 0.0,
           "exploit_run_mean_pooled": sum(runs) / len(runs) if runs else 0.0, "exploit_runs_per_trace": len(runs) / n,
           "traces_with_recovery": with_recovery}
    others, tail = map(sum, zip(*(other_tail(t) for t in traces)))
    row["other_last20_share"] = tail / others if others else float("nan")
    row.update({f"{label}_per_trace": counts[label] / n for label in LABELS})
    row.update({f"{label}_share": counts[label] / max(1, spans) for label in LABELS})
    row.update({f"{c}_per_trace": cats[c] / n for c in ("recovery", "exploitation", "verification")})
    row.update({f"motif:{'>'.join(m)}": sum(count_nonoverlapping(t.labels, m) for t in traces) / n for m in motifs})
    return row


def other_tail(t: Trace, tail: float = 0.2) -> tuple[int, int]:
    """(other spans, other spans in the last `tail` of the trace) of one trace: "other is
    predominantly output formatting in our traces (91.5% of other spans appear in the last 20% of
    the trace)" (puzzle_to_math line 165). A span is in the last 20% when its middle is, by its
    tokens' position in the trace (the paper does not say how it places a span; spans count equal
    when no lengths are known)."""
    sizes = t.tokens if len(t.tokens) == len(t.labels) and sum(t.tokens) > 0 else [1] * len(t.labels)
    total, pos, n, k = sum(sizes), 0, 0, 0
    for label, size in zip(t.labels, sizes):
        if label == "other":
            n += 1
            k += pos + size / 2 >= (1 - tail) * total
        pos += size
    return n, k


def appendix_q(traces: list[Trace], q: AppendixQConfig) -> tuple[list[dict], dict]:
    """The paired traces of Figures 14 and 15, chosen by the paper's rule (puzzle_to_math Appendix Q).
    Part A (Fig. 14, line 213): problems with a correct SFT and a correct vanilla-GSPO trace, pairs
    that "share the first two opening primitives and place the SFT depth in [2, 4] and the GSPO depth
    in [5, 9]"; per problem the pair whose depths lie nearest each checkpoint's mean (line 187), the
    problems in that order. Part B (Fig. 15, lines 217, 241): problems solved only by the novelty run
    (none of vanilla's traces correct), a novelty success holding a recovery primitive (hypothesize or
    backtrack; winners without one are left out, line 241: most backtracks, then the shortest) beside
    vanilla's shortest failure ("short enough to quote in full"), shortest first. Returns the rows
    (one per trace) and the counts behind them."""
    from utils.motifs import chain_depth

    by: dict[str, dict[str, list[Trace]]] = defaultdict(lambda: defaultdict(list))
    for t in traces:
        if t.benchmark == q.benchmark and t.labels:
            by[t.checkpoint][t.problem_id].append(t)

    def opening(t: Trace) -> tuple[str, ...]:
        return tuple(label for label in t.labels if label != "other")[:q.opening]

    def mean_depth(c: str) -> float:
        ds = [chain_depth(t.labels) for ts in by[c].values() for t in ts]
        return sum(ds) / len(ds) if ds else 0.0

    def solved(c: str, p: str) -> list[Trace]:
        return [t for t in by[c].get(p, []) if t.correct]

    sft, gspo, nov = by[q.sft], by[q.gspo], by[q.novelty]
    both = sorted(p for p in sft if solved(q.sft, p) and solved(q.gspo, p))
    ms, mg = mean_depth(q.sft), mean_depth(q.gspo)
    best: dict[str, tuple] = {}
    candidates = 0
    for p in both:
        for a in solved(q.sft, p):
            da = chain_depth(a.labels)
            if not q.sft_depth[0] <= da <= q.sft_depth[-1] or len(opening(a)) < q.opening:
                continue
            for b in solved(q.gspo, p):
                db = chain_depth(b.labels)
                if q.gspo_depth[0] <= db <= q.gspo_depth[-1] and opening(b) == opening(a):
                    candidates += 1
                    key = (abs(da - ms) + abs(db - mg), a.sample, b.sample)
                    if p not in best or key < best[p][0]:
                        best[p] = (key, a, b)
    part_a = sorted(best.items(), key=lambda kv: (kv[1][0], kv[0]))[:q.pairs]
    only_nov = sorted(p for p in nov if solved(q.novelty, p) and p in gspo and not solved(q.gspo, p))
    chosen_b, without_recovery = [], 0
    for p in only_nov:
        wins = [t for t in solved(q.novelty, p) if {"hypothesize", "backtrack"} & set(t.labels)]
        fails = [t for t in gspo[p] if t.correct is False]
        if not wins:
            without_recovery += 1
            continue
        if fails:
            win = min(wins, key=lambda t: (-t.labels.count("backtrack"), len(t.labels), t.sample))
            fail = min(fails, key=lambda t: (len(t.labels), t.sample))
            chosen_b.append(((len(fail.labels), p), fail, win))
    part_b = sorted(chosen_b, key=lambda x: x[0])[:q.pairs]

    def row(part: str, t: Trace) -> dict:
        return {"part": part, "problem_id": t.problem_id, "checkpoint": t.checkpoint, "sample": t.sample,
                "correct": t.correct, "chain_depth": chain_depth(t.labels), "opening": ">".join(opening(t)),
                "labels": " ".join(t.labels)}

    rows = [row("A", t) for _, (_, a, b) in part_a for t in (a, b)]
    rows += [row("B", t) for _, fail, win in part_b for t in (fail, win)]
    report = {"benchmark": q.benchmark,
              "part_a": {"problems_correct_in_both": len(both), "sft_correct_traces": sum(len(solved(q.sft, p)) for p in sft),
                         "gspo_correct_traces": sum(len(solved(q.gspo, p)) for p in gspo),
                         "candidate_pairs": candidates, "candidate_problems": len(best), "sft_mean_depth": ms,
                         "gspo_mean_depth": mg, "paper": "13 problems, 81/3200 and 89/3200 correct traces, 19 "
                                                         "candidate pairs across 4 problems (line 213)"},
              "part_b": {"novelty_only_problems": len(only_nov), "without_a_recovery_primitive": without_recovery,
                         "paper": "16 novelty-only problems (line 241)"}}
    return rows, report


def compare_runs(runs: list[Path], out: Path) -> list[str]:
    """Training curves of train.py runs side by side, a line per run: GRPO against GSPO on the same
    data (puzzle_to_math line 39: "GSPO trained reliably in long-context pilots where GRPO was
    unstable") and the pilots (line 111: entropy "less stable", entropy advantages "collapsed below
    baseline"). Writes out/curves.png and out/curves.csv (run, step, metric, value); returns the
    metrics drawn."""
    from utils.plots import runs_curves
    from utils.records import atomic_write_text, read_jsonl_tolerant

    names = [r.name for r in runs]
    names = [f"{r.parent.name}/{r.name}" if names.count(r.name) > 1 else r.name for r in runs]
    series = {n: read_jsonl_tolerant(r / "metrics.jsonl") for n, r in zip(names, runs)}
    keys = ["reward_mean", "accuracy", "entropy", "grad_norm", "clip_frac_low", "clip_frac_high", "kl",
            "response_len", "novelty/bonus_abs_mean"]
    out.mkdir(parents=True, exist_ok=True)
    lines = ["run,step,metric,value"] + [f"{n},{m['step']},{k},{m[k]}" for n, rows in series.items() for m in rows
                                         for k in keys if isinstance(m.get(k), (int, float)) and "step" in m]
    atomic_write_text(out / "curves.csv", "\n".join(lines) + "\n")
    return runs_curves(series, keys, out / "curves.png", "training: " + " vs ".join(names))


def motif_tables(grouped: dict[tuple, list[Trace]], max_k: int) -> dict[tuple, list[dict]]:
    """Per group: corpus counts of every k-gram (k = 2..max_k) with the paper's filter (>= 5
    occurrences for k <= 5, >= 10 above), the number of traces holding it, and the mean per-trace
    frequency over the traces long enough to hold a k-gram. Each trace is counted once and added to
    every group it belongs to (a trace sits in up to two outcome groups)."""
    from utils.motifs import filter_corpus, kgram_counts, with_breaks

    member: dict[int, list[tuple]] = defaultdict(list)
    traces: dict[int, Trace] = {}
    for key, ts in grouped.items():
        for t in ts:
            member[id(t)].append(key)
            traces[id(t)] = t
    totals = defaultdict(Counter)  # (group, k) -> motif -> count
    freq = defaultdict(Counter)  # (group, k) -> motif -> sum of per-trace frequencies
    holding = defaultdict(Counter)  # (group, k) -> motif -> traces holding it
    eligible = Counter()  # (group, k) -> traces with L >= k
    for tid, t in traces.items():
        L = len(with_breaks(t.labels))
        for k in range(2, min(max_k, L) + 1):
            counts = kgram_counts(t.labels, k)
            for key in member[tid]:
                totals[(key, k)].update(counts)
                freq[(key, k)].update({m: c / (L - k + 1) for m, c in counts.items()})
                holding[(key, k)].update(counts.keys())
                eligible[(key, k)] += 1
    out: dict[tuple, list[dict]] = defaultdict(list)
    for (key, k), total in sorted(totals.items(), key=lambda kv: kv[0][1]):
        for motif, count in sorted(filter_corpus(total, k).items(), key=lambda kv: (-kv[1], kv[0])):
            out[key].append({"k": k, "motif": ">".join(motif), "count": count, "traces": holding[(key, k)][motif],
                             "mean_frequency": freq[(key, k)][motif] / eligible[(key, k)]})
    return out


def pearson(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    return sxy / (sx * sy) if sx > 0 and sy > 0 else float("nan")


def _ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2
        i = j + 1
    return ranks


def passk_table(traces: list[Trace], ks: list[int]) -> dict[tuple[str, str], dict[int, float]]:
    """pass@k per (checkpoint, benchmark) from the `correct` fields, for k up to the fewest samples
    any problem has (a larger k was never measured)."""
    from utils.passk import mean_pass_at_k

    nc: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for t in traces:
        if t.correct is not None:
            entry = nc[(t.checkpoint, t.benchmark)][t.problem_id]
            entry[0] += 1
            entry[1] += t.correct
    out = {}
    for key, probs in nc.items():
        counts = [tuple(v) for v in probs.values()]
        out[key] = {k: mean_pass_at_k(counts, k) for k in ks if k <= min(n for n, _ in counts)}
    return out


def load_subsets(path: str) -> dict[tuple[str, str], list[str]]:
    """(benchmark, problem_id) -> names of the compare.json sets holding it ("both", "only <run>", ...)."""
    if not path:
        return {}
    report = json.loads(Path(path).read_text())
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for bench, per_run in report.get("benchmarks", {}).items():
        for run, entry in per_run.items():
            for name, pids in entry.get("sets", {}).items():
                label = name if len(per_run) == 1 else f"{name} (vs {run})"
                for pid in pids:
                    out[(bench, str(pid))].append(label)
    return out


# ------------------------------------------------------------------ writing


def write_csv(path: Path, rows: list[dict]) -> None:
    from utils.records import atomic_write_text

    buf = io.StringIO()
    cols = list(dict.fromkeys(k for r in rows for k in r))
    w = csv.DictWriter(buf, fieldnames=cols)
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    atomic_write_text(path, buf.getvalue())


def fmt(v, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def md_cell(text: str) -> str:
    """A table cell's text: `|` escaped (a group's benchmark is "sorting | sorting d=0"), one line."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def md_table(rows: list[dict], cols: list[str]) -> str:
    lines = ["| " + " | ".join(md_cell(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(md_cell(fmt(r.get(c))) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def novelty_signal(run: Path) -> dict:
    """The within-group signal of top-k NLL over mean NLL across a novelty run's steps (train.py logs
    both per step): the paper's "amplifies the within-group signal by 10-15x" (puzzle_to_math line
    105, Appendix O), checked on any run. Writes <run>/novelty_signal.json."""
    from utils.records import atomic_write_text, read_jsonl_tolerant

    steps = read_jsonl_tolerant(run / "metrics.jsonl")
    report: dict = {"run": str(run), "steps": len(steps), "paper": "10-15x (Appendix O)"}
    for tag in ("std", "cv"):
        xs = sorted(m[f"novelty/signal_ratio_{tag}"] for m in steps if m.get(f"novelty/signal_ratio_{tag}") is not None)
        report[tag] = ({"steps_with_data": len(xs), "median": percentile(xs, 0.5), "p25": percentile(xs, 0.25),
                        "p75": percentile(xs, 0.75), "mean": sum(xs) / len(xs)} if xs else {"steps_with_data": 0})
    atomic_write_text(run / "novelty_signal.json", json.dumps(report, indent=2) + "\n")
    return report


CASES_USAGE = """usage: analyze.py cases RUN_1 RUN_2 ... --out DIR [--labels A,B,...] [--config EVAL.yaml]
                        [--cases CASES.yaml] [--benchmarks b1,b2] [--per-benchmark N] [--excerpt-chars N]

Case studies in the RACES paper's way (races section 5.4 and Appendix E: "prompts and key response excerpts
... emphasizing decision points where Base, RLindividual, and RLRACES diverge", the same problems for all
models). RUN_i are evaluate.py runs of the same benchmarks (the last is the method, the others its
baselines). Per benchmark, the problems where the last run's solve rate most exceeds the best other run's
are chosen (ties: lower baseline rate, then problem id); for each, every run's solve rate and one response
of each run: a solved one for the last run, an unsolved one for the others where they have one (their
failure), else the first. With --config (the evaluation config the runs used) the prompt is shown too.
With --cases (e.g. configs/analyze/races_cases.yaml, the paper's three Appendix E problems) the problems are
the ones that file names instead, each matched by benchmark and id, prompt or gold answer; a pin that matches
no problem or several stops the command, naming it. Writes DIR/cases.md (prompt, rates, the last --excerpt-chars
characters of each response) and DIR/cases.jsonl (the whole responses: the paper releases them as supplementary material)."""


@dataclass
class CasePin:
    name: str = field("", help="the case's heading in cases.md (e.g. the paper's section)")
    cite: str = field("", help="where the paper describes the problem (races line N)")
    benchmark: str = field("", help="the benchmark's name in the evaluation config")
    id: str = field("", help="the problem id, exactly (empty: any)")
    prompt: str = field("", help="a regular expression searched in the prompt (case-insensitive; empty: any)")
    answer: str = field("", help="a regular expression searched in the gold answer (case-insensitive; empty: any)")


@dataclass
class CasesConfig:
    cases: List[CasePin] = field([], help="the problems `analyze.py cases` shows, in this order, instead of its rule")

    def validate(self):
        if not self.cases:
            yield "cases", "no case pinned (cases: [{name: ..., benchmark: ..., prompt: ...}])"
        for i, c in enumerate(self.cases):
            if not c.benchmark:
                yield f"cases.{i}.benchmark", "empty: name the benchmark"
            if not (c.id or c.prompt or c.answer):
                yield f"cases.{i}", "pins nothing: give an id, a prompt or an answer pattern"
            for key in ("prompt", "answer"):
                try:
                    re.compile(getattr(c, key))
                except re.error as e:
                    yield f"cases.{i}.{key}", f"not a regular expression: {e}"


def pinned(pins: list[CasePin], keys: set, prompts: dict, golds: dict) -> list[tuple]:
    """The one problem (benchmark, id) each pin matches among `keys`; ValueError naming the pin when it
    matches none or several (a pin that silently picked another problem would show the wrong case)."""
    out = []
    for i, pin in enumerate(pins):
        hits = sorted(k for k in keys if k[0] == pin.benchmark and (not pin.id or str(k[1]) == pin.id)
                      and (not pin.prompt or re.search(pin.prompt, prompts.get(k) or "", re.I | re.S))
                      and (not pin.answer or re.search(pin.answer, str(golds.get(k, "")), re.I | re.S)))
        if len(hits) != 1:
            raise ValueError(f"cases.{i} ({pin.name or pin.benchmark}): matches {len(hits)} problems of "
                             f"{pin.benchmark!r} common to the runs" + (f" ({', '.join(str(k[1]) for k in hits[:5])}"
                                                                       f"{' ...' if len(hits) > 5 else ''}): add its id"
                                                                       if hits else ""))
        out.append(hits[0])
    return out


def case_studies(runs: list[Path], labels: list[str], out: Path, config: str = "", benchmarks: list[str] | None = None,
                 per_benchmark: int = 3, excerpt_chars: int = 1500, pins: list[CasePin] | None = None) -> dict:
    from utils.records import atomic_write_text, read_jsonl_tolerant

    samples: list[dict] = []  # per run: (benchmark, problem_id) -> rows
    for run in runs:
        by: dict = defaultdict(list)
        for row in read_jsonl_tolerant(run / "samples.jsonl"):
            by[(row["benchmark"], row["problem_id"])].append(row)
        samples.append(by)
    common = set(samples[0]).intersection(*samples[1:])
    if benchmarks:
        common = {k for k in common if k[0] in benchmarks}
    prompts, golds = {}, {}
    if config:
        import evaluate
        from utils.benchmarks import load_problems
        from utils.config import load_or_raise

        cfg = load_or_raise(evaluate.EvalConfig, ["--config", config, "model=cases"], validate=False)
        for b in cfg.benchmarks:
            if not benchmarks or b.name in benchmarks:
                for p in load_problems(b):
                    prompts[(b.name, p.id)] = p.prompt[-1]["content"]
                    golds[(b.name, p.id)] = p.gold
    if pins and not config and any(p.prompt or p.answer for p in pins):
        raise ValueError("--cases pins problems by prompt or answer: give --config, the evaluation config the runs "
                         "used")
    rate = lambda rows: sum(bool(r.get("correct")) for r in rows) / len(rows)  # noqa: E731
    why = ("The problems pinned by the cases config" if pins else
           f"Problems where {labels[-1]} diverges most from the others (solve rate over the best other run's)")
    cases, lines = [], [f"# Case studies: {', '.join(labels)}", "",
                        f"Runs: {', '.join(f'{lab} = `{run}`' for lab, run in zip(labels, runs))}. {why}; whole "
                        f"responses in cases.jsonl.", ""]
    if pins:
        chosen = list(zip(pinned(pins, common, prompts, golds), pins))
    else:
        chosen = []
        for bench in sorted({b for b, _ in common}):
            keys = [k for k in common if k[0] == bench]
            scored = sorted(keys, key=lambda k: (-(rate(samples[-1][k]) - max(rate(s[k]) for s in samples[:-1])),
                                                 max(rate(s[k]) for s in samples[:-1]), k[1]))
            chosen += [(k, None) for k in scored[:per_benchmark]]
    for n, (k, pin) in enumerate(chosen):
        bench = k[0]
        if pin is None and (n == 0 or chosen[n - 1][0][0] != bench):
            lines += [f"## {bench}", ""]
        rates = {lab: rate(s[k]) for lab, s in zip(labels, samples)}
        picked = {}
        for i, (lab, s) in enumerate(zip(labels, samples)):
            rows = sorted(s[k], key=lambda r: r.get("sample", 0))
            want = i == len(samples) - 1  # the method: a solved response; baselines: a failure
            picked[lab] = next((r for r in rows if bool(r.get("correct")) == want), rows[0])
        case = {"benchmark": bench, "problem_id": k[1], "prompt": prompts.get(k), "solve_rate": rates,
                "responses": {lab: {"sample": r.get("sample"), "correct": bool(r.get("correct")),
                                    "response": r.get("response", "")} for lab, r in picked.items()}}
        if pin is not None:
            case.update(case=pin.name, cite=pin.cite)
        cases.append(case)
        lines += [f"### {pin.name + ': ' if pin is not None and pin.name else ''}{bench} / {k[1]}", ""]
        lines += [f"({pin.cite})", ""] if pin is not None and pin.cite else []
        lines += ["solve rate: " + ", ".join(f"{lab} {v:.2f}" for lab, v in rates.items()), ""]
        if case["prompt"] is not None:
            lines += ["Prompt:", "", "```text", case["prompt"].strip(), "```", ""]
        for lab, r in case["responses"].items():
            text = r["response"] or ""
            cut = text[-excerpt_chars:]
            lines += [f"**{lab}** (sample {r['sample']}, {'solved' if r['correct'] else 'not solved'}, "
                      f"{len(text)} characters{', last ' + str(excerpt_chars) if len(text) > excerpt_chars else ''}):",
                      "", "```text", ("..." if len(text) > excerpt_chars else "") + cut.strip(), "```", ""]
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "cases.md", "\n".join(lines) + "\n")
    atomic_write_text(out / "cases.jsonl", "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases))
    return {"out": str(out), "cases": len(cases), "benchmarks": sorted({c["benchmark"] for c in cases})}


def cases_main(argv: list[str]) -> None:
    import argparse

    if "-h" in argv or "--help" in argv:
        print(CASES_USAGE)
        return
    p = argparse.ArgumentParser(prog="analyze.py cases", usage=CASES_USAGE)
    p.add_argument("runs", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--labels", default="")
    p.add_argument("--config", default="")
    p.add_argument("--cases", default="")
    p.add_argument("--benchmarks", default="")
    p.add_argument("--per-benchmark", type=int, default=3)
    p.add_argument("--excerpt-chars", type=int, default=1500)
    a = p.parse_args(argv)
    runs = [Path(r) for r in a.runs]
    labels = a.labels.split(",") if a.labels else [r.name for r in runs]
    missing = [str(r) for r in runs if not (r / "samples.jsonl").is_file()]
    if len(runs) < 2 or missing or len(labels) != len(runs) or a.per_benchmark < 1:
        print(f"analyze.py cases: give two or more evaluate.py runs (with samples.jsonl; missing: {missing}), as "
              f"many --labels, --per-benchmark >= 1", file=sys.stderr)
        sys.exit(2)
    if a.cases and not Path(a.cases).is_file():
        print(f"analyze.py cases: --cases {a.cases}: not a file", file=sys.stderr)
        sys.exit(2)
    pins = load(CasesConfig, ["--config", a.cases], prog="analyze.py cases").cases if a.cases else None
    try:
        r = case_studies(runs, labels, Path(a.out), a.config, [b for b in a.benchmarks.split(",") if b],
                         a.per_benchmark, a.excerpt_chars, pins)
    except ValueError as e:
        print(f"analyze.py cases: {a.cases}: {e}", file=sys.stderr)
        sys.exit(2)
    print(f"wrote {r['out']}/cases.md and cases.jsonl: {r['cases']} case(s) on {', '.join(r['benchmarks']) or 'no benchmark'}")


def main(argv: list[str]) -> None:
    if argv[:1] == ["cases"]:
        cases_main(argv[1:])
        return
    if argv[:1] == ["novelty-signal"]:
        if len(argv) != 2 or not (Path(argv[1]) / "metrics.jsonl").is_file():
            sys.exit("analyze.py novelty-signal: give one train.py run directory (with metrics.jsonl)")
        r = novelty_signal(Path(argv[1]))
        for tag, what in (("std", "within-group std"), ("cv", "within-group std / mean")):
            x = r[tag]
            print(f"top-k / mean NLL, {what}: " + (f"median {x['median']:.2f}x (IQR {x['p25']:.2f}-{x['p75']:.2f}) "
                                                   f"over {x['steps_with_data']} steps" if x["steps_with_data"] else
                                                   "no step had a group with 2+ correct rollouts"))
        print(f"paper: {r['paper']}; wrote {argv[1]}/novelty_signal.json")
        return
    if argv[:1] == ["compare-runs"]:
        import argparse

        ap = argparse.ArgumentParser(prog="analyze.py compare-runs", description="training curves of train.py runs side by side")
        ap.add_argument("runs", nargs="+", type=Path, help="train.py run directories (with metrics.jsonl)")
        ap.add_argument("--out", type=Path, required=True, help="directory for curves.png and curves.csv")
        a = ap.parse_args(argv[1:])
        missing = [str(r) for r in a.runs if not (r / "metrics.jsonl").is_file()]
        if missing:
            sys.exit(f"analyze.py compare-runs: no metrics.jsonl in {', '.join(missing)}")
        drawn = compare_runs(a.runs, a.out)
        print(f"wrote {a.out}/curves.png ({', '.join(drawn) or 'no metric'}) and {a.out}/curves.csv")
        return
    cfg = load(AnalyzeConfig, argv, prog="analyze.py")
    from utils.config import save_run_info
    from utils.motifs import LABELS, chain_depth, parse_motif
    from utils.records import atomic_write_text, write_jsonl

    out = (Path(cfg.out_root) / cfg.name if cfg.name else Path(expand_inputs(cfg.inputs)[0]).parent) / "analysis"
    bad: Counter = Counter()

    # 1. read and segment every response (an input with nothing to analyse: one line, nothing written)
    per_input: dict = {}
    traces = read_traces(cfg, bad, per_input)
    for key, msg in input_problems(cfg, per_input)[:1]:
        from utils.config import fail

        fail(cfg, key, msg, "analyze.py")
    save_run_info(cfg, out, seed=cfg.seed)
    # 2. label every span
    log(f"{len(traces)} traces, {sum(len(t.spans) for t in traces)} spans from {len(expand_inputs(cfg.inputs))} input(s)")
    label_report = label_traces(cfg, traces, out, bad)
    span_tokens(cfg, traces, label_report)
    for t in traces:
        if len(t.labels) != len(t.spans):
            raise RuntimeError("labeller returned a label count that does not match the spans")
    write_jsonl(out / "spans.jsonl", ({"checkpoint": t.checkpoint, "benchmark": t.benchmark, "problem_id": t.problem_id,
                                       "sample": t.sample, "correct": t.correct, "position": i, "label": label,
                                       "tokens": n, "text": span}
                                      for t in traces for i, (span, label, n) in enumerate(zip(t.spans, t.labels, t.tokens))))
    atomic_write_text(out / "labeler.json", json.dumps(label_report, indent=2) + "\n")
    for split in ("shipped_heldout", "judged_heldout"):  # rows: gold label, columns: predicted
        if split in label_report:
            write_csv(out / f"confusion_{split}.csv", [{"gold": g, **dict(zip(LABELS, counts))}
                                                       for g, counts in zip(LABELS, label_report[split]["confusion"])])

    # 3. statistics per checkpoint x benchmark x outcome x problem subset (traces with spans only);
    # each group of a benchmark (puzzle and grid) is also a benchmark of its own
    from dataclasses import replace

    views = traces + [replace(t, benchmark=f"{t.benchmark} | {t.group}") for t in traces if cfg.per_group and t.group]
    labelled = [t for t in views if t.labels]
    checkpoints = list(dict.fromkeys(t.checkpoint for t in traces))
    benchmarks = sorted({t.benchmark for t in views})
    motifs = [parse_motif(m) for m in cfg.motifs]
    subsets = load_subsets(cfg.compare)
    groups: dict[tuple[str, str, str, str], list[Trace]] = defaultdict(list)
    for t in labelled:
        outcome = {True: "solved", False: "unsolved", None: None}[t.correct]
        for o in ("all", outcome):
            for s in ["all"] + subsets.get((t.benchmark.split(" | ")[0], t.problem_id), []):
                if o is not None:
                    groups[(t.checkpoint, t.benchmark, o, s)].append(t)
    stats = [{"checkpoint": c, "benchmark": b, "outcome": o, "subset": s, **group_stats(ts, motifs, cfg)}
             for (c, b, o, s), ts in sorted(groups.items(), key=lambda kv: (checkpoints.index(kv[0][0]), kv[0][1:]))]
    passk = passk_table(views, cfg.passk)
    for row in stats:
        if row["outcome"] == "all" and row["subset"] == "all":
            row.update({f"pass@{k}": v for k, v in passk.get((row["checkpoint"], row["benchmark"]), {}).items()})
    write_csv(out / "stats.csv", stats)
    write_csv(out / "primitives.csv", [{"checkpoint": r["checkpoint"], "benchmark": r["benchmark"], "outcome": r["outcome"],
                                        "subset": r["subset"], "label": label, "per_trace": r[f"{label}_per_trace"],
                                        "share": r[f"{label}_share"]} for r in stats for label in LABELS])
    write_csv(out / "traces.csv", [{"checkpoint": t.checkpoint, "benchmark": t.benchmark, "problem_id": t.problem_id,
                                    "sample": t.sample, "correct": t.correct, "spans": len(t.labels),
                                    "chain_depth": chain_depth(t.labels),
                                    "labels": " ".join(t.labels)} for t in traces if t.labels])
    recovery = recovery_table(stats)
    write_csv(out / "recovery.csv", recovery)
    extra = other_tail_summary(traces) + appendix_q_outputs(cfg, traces, out)

    # 4. motifs per checkpoint x benchmark x outcome, and what changed from the first to the last checkpoint
    tables = motif_tables({key: ts for key, ts in groups.items() if key[3] == "all"}, cfg.max_k)
    motif_rows = [{"checkpoint": c, "benchmark": b, "outcome": o, **r} for (c, b, o, _), rs in tables.items() for r in rs]
    motif_rows.sort(key=lambda r: (checkpoints.index(r["checkpoint"]), r["benchmark"], r["outcome"], r["k"], -r["count"]))
    write_csv(out / "motifs.csv", motif_rows)
    changes = motif_changes(motif_rows, checkpoints, benchmarks)
    write_csv(out / "motif_changes.csv", changes)

    # 5. correlation of each statistic, and of each motif's frequency, with pass@k across checkpoints
    corr = correlations(stats, benchmarks, cfg.passk)
    write_csv(out / "correlations.csv", corr)
    motif_corr = motif_correlations(motif_rows, passk, checkpoints, benchmarks, cfg.passk)
    write_csv(out / "motif_correlations.csv", motif_corr)
    write_csv(out / "passk.csv", [{"checkpoint": c, "benchmark": b, "k": k, "pass@k": v}
                                  for (c, b), per in passk.items() for k, v in per.items()])
    atomic_write_text(out / "bad_input.json", json.dumps(dict(bad), indent=2) + "\n")

    # 6. plots
    pngs = write_plots(cfg, out, stats, groups, labelled, changes, checkpoints, benchmarks)

    # 7. the one-page summary
    summary = write_summary(cfg, out, traces, stats, changes, corr, label_report, bad, pngs, checkpoints, benchmarks,
                            recovery, motif_corr, extra)
    atomic_write_text(out / "summary.md", summary)
    log(f"wrote {out}/summary.md, stats.csv, primitives.csv, motifs.csv, motif_changes.csv, correlations.csv, "
        f"motif_correlations.csv, recovery.csv, traces.csv, spans.jsonl and {len(pngs)} plots")
    print(out / "summary.md")


def other_tail_summary(traces: list[Trace]) -> list[str]:
    """Summary lines: the share of `other` spans in the last 20% of their trace, per checkpoint and
    benchmark and over everything (puzzle_to_math line 165: 91.5%); stats.csv has it per group."""
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for t in traces:
        n, k = other_tail(t)
        for key in ((t.checkpoint, t.benchmark), ("all", "all")):
            cells[key][0] += n
            cells[key][1] += k
    rows = [{"checkpoint": c, "benchmark": b, "other spans": n, "in the last 20%": k,
             "share": k / n if n else float("nan")} for (c, b), (n, k) in cells.items()]
    return ["## Where `other` spans fall", "",
            "Share of `other` spans whose middle lies in the last 20% of the trace (puzzle_to_math line 165: "
            "\"91.5% of other spans appear in the last 20% of the trace\"; `other_last20_share` in stats.csv).", "",
            md_table(rows, ["checkpoint", "benchmark", "other spans", "in the last 20%", "share"]), ""]


def appendix_q_outputs(cfg: AnalyzeConfig, traces: list[Trace], out: Path) -> list[str]:
    """appendix_q.csv (every selected trace), the strips of Figures 14 and 15 when a pair was found,
    and the summary lines with the counts behind the selection."""
    from utils.plots import primitive_strips
    from utils.records import atomic_write_text

    rows, report = appendix_q(traces, cfg.appendix_q)
    if rows:
        write_csv(out / "appendix_q.csv", rows)
    else:  # no pair found (the header alone)
        atomic_write_text(out / "appendix_q.csv", "part,problem_id,checkpoint,sample,correct,chain_depth,opening,labels\n")
    atomic_write_text(out / "appendix_q.json", json.dumps(report, indent=2) + "\n")
    lines = ["## Appendix Q: paired traces (Figures 14-15)", "",
             f"Selected by the paper's rule on {report['benchmark']} ([appendix_q.csv](appendix_q.csv), counts in "
             f"[appendix_q.json](appendix_q.json)). Part A: {report['part_a']['problems_correct_in_both']} problems "
             f"correct in both {cfg.appendix_q.sft} and {cfg.appendix_q.gspo}, {report['part_a']['candidate_pairs']} "
             f"candidate pairs across {report['part_a']['candidate_problems']} problems (paper: 19 across 4). Part B: "
             f"{report['part_b']['novelty_only_problems']} problems solved only by {cfg.appendix_q.novelty} (paper: "
             f"16), {report['part_b']['without_a_recovery_primitive']} left out for want of a recovery primitive.", ""]
    for part, fig in (("A", 14), ("B", 15)):
        strip = [(f"{r['checkpoint']} | {r['problem_id']} | depth {r['chain_depth']} | "
                  f"{'solved' if r['correct'] else 'unsolved'}", r["labels"].split()) for r in rows if r["part"] == part]
        if strip:
            name = f"strips_appendix_q_{part.lower()}.png"
            primitive_strips(strip, out / name, f"Figure {fig} (Appendix Q, part {part}): {report['benchmark']}")
            lines += [f"![{name}]({name})", ""]
    return lines


def motif_changes(motif_rows: list[dict], checkpoints: list[str], benchmarks: list[str]) -> list[dict]:
    """Per benchmark, the mean per-trace frequency of every kept motif at the first and the last
    checkpoint (input order), largest absolute change first: what training amplified or suppressed."""
    if len(checkpoints) < 2:
        return []
    first, last = checkpoints[0], checkpoints[-1]
    changes = []
    for b in benchmarks:
        freq = {c: {(r["k"], r["motif"]): r["mean_frequency"] for r in motif_rows
                    if r["checkpoint"] == c and r["benchmark"] == b and r["outcome"] == "all"} for c in (first, last)}
        for k, m in sorted(set(freq[first]) | set(freq[last])):
            a, z = freq[first].get((k, m), 0.0), freq[last].get((k, m), 0.0)
            changes.append({"benchmark": b, "k": k, "motif": m, f"freq_{first}": a, f"freq_{last}": z,
                            "change": z - a, "log2_ratio": math.log2((z + 1e-3) / (a + 1e-3))})
    return sorted(changes, key=lambda r: -abs(r["change"]))


def recovery_table(stats: list[dict]) -> list[dict]:
    """Rollouts holding at least one recovery motif (a trigram with hypothesize and backtrack), per
    checkpoint x benchmark x problem subset, overall and by outcome, as the paper counts them
    (puzzle_to_math line 119: "11/512 rollouts ... 3/24 solved traces ... 8/488 failed traces")."""
    cell = {(r["checkpoint"], r["benchmark"], r["subset"], r["outcome"]): r for r in stats}
    out = []
    for (c, b, s, o), r in cell.items():
        if o != "all":
            continue
        row = {"checkpoint": c, "benchmark": b, "subset": s}
        for outcome in ("all", "solved", "unsolved"):
            x = cell.get((c, b, s, outcome))
            row[f"{outcome}_with_recovery"] = x["traces_with_recovery"] if x else 0
            row[f"{outcome}_traces"] = x["traces"] if x else 0
        out.append(row)
    return out


def motif_correlations(motif_rows: list[dict], passk: dict, checkpoints: list[str], benchmarks: list[str],
                       ks: list[int]) -> list[dict]:
    """Per benchmark and k, Pearson and Spearman correlation across checkpoints of each motif's mean
    per-trace frequency with pass@k (puzzle_to_math line 55), over the checkpoints with pass@k (3 or
    more); a motif missing at a checkpoint (below the corpus filter there) counts as frequency 0.
    Strongest first."""
    out = []
    for b in benchmarks:
        freq: dict[tuple[int, str], dict[str, float]] = defaultdict(dict)
        for r in motif_rows:
            if r["benchmark"] == b and r["outcome"] == "all":
                freq[(r["k"], r["motif"])][r["checkpoint"]] = r["mean_frequency"]
        for k in ks:
            cks = [c for c in checkpoints if k in passk.get((c, b), {})]
            if len(cks) < 3:
                continue
            ys = [passk[(c, b)][k] for c in cks]
            for (length, motif), per in freq.items():
                if sum(c in per for c in cks) < 2:
                    continue
                xs = [per.get(c, 0.0) for c in cks]
                out.append({"benchmark": b, "k": k, "motif_k": length, "motif": motif, "checkpoints": len(cks),
                            "pearson": pearson(xs, ys), "spearman": pearson(_ranks(xs), _ranks(ys))})
    return sorted(out, key=lambda r: -abs(r["pearson"]) if not math.isnan(r["pearson"]) else 0)


def correlations(stats: list[dict], benchmarks: list[str], ks: list[int]) -> list[dict]:
    """Pearson and Spearman correlation of every statistic with pass@k across checkpoints, per
    benchmark; only with 3 or more checkpoints (two points always lie on a line: r = +-1)."""
    skip = ("checkpoint", "benchmark", "outcome", "subset", "traces", "solved", "chain_depth_ci_lo", "chain_depth_ci_hi",
            "traces_with_recovery", "other_last20_share")
    cols = [k for k in stats[0] if k not in skip and not k.startswith("pass@")] if stats else []
    out = []
    for b in benchmarks:
        rows = [r for r in stats if r["benchmark"] == b and r["outcome"] == "all" and r["subset"] == "all"]
        for k in ks:
            pts = [r for r in rows if f"pass@{k}" in r]
            if len(pts) < 3:
                continue
            ys = [r[f"pass@{k}"] for r in pts]
            for col in cols:
                xs = [r[col] for r in pts]
                out.append({"benchmark": b, "k": k, "statistic": col, "checkpoints": len(pts),
                            "pearson": pearson(xs, ys), "spearman": pearson(_ranks(xs), _ranks(ys))})
    return out


def write_plots(cfg, out: Path, stats, groups, labelled, changes, checkpoints, benchmarks) -> list[str]:
    """Per benchmark: primitive bars per checkpoint, chain-depth histograms, primitive strips of
    single traces and the largest motif changes. Returns the PNG names."""
    from utils.motifs import LABELS, chain_depth
    from utils.plots import depth_histograms, hbars, primitive_bars, primitive_strips

    from fnmatch import fnmatch

    pngs = []
    for b in benchmarks:
        if cfg.plot_benchmarks and not any(fnmatch(b, p) for p in cfg.plot_benchmarks):
            continue
        tag = re.sub(r"[^\w.-]+", "_", b)  # "puzzles | bridges 8x8 hard" -> puzzles_bridges_8x8_hard
        base = [r for r in stats if r["benchmark"] == b and r["outcome"] == "all" and r["subset"] == "all"]
        if not base:
            continue
        primitive_bars({r["checkpoint"]: {label: r[f"{label}_per_trace"] for label in LABELS} for r in base},
                       out / f"primitives_{tag}.png", f"{b}: primitives per trace", "spans per trace")
        depth_histograms({c: [chain_depth(t.labels) for t in groups[(c, b, "all", "all")]]
                          for c in checkpoints if (c, b, "all", "all") in groups}, out / f"depth_{tag}.png",
                         f"{b}: chain depth")
        pngs += [f"primitives_{tag}.png", f"depth_{tag}.png"]
        strip_rows = strips(labelled, b, checkpoints, cfg.strips)
        if strip_rows:
            primitive_strips(strip_rows, out / f"strips_{tag}.png", f"{b}: primitive sequence of single traces")
            pngs.append(f"strips_{tag}.png")
        top = [r for r in changes if r["benchmark"] == b][:cfg.top_motifs]
        if top:
            hbars({r["motif"]: r["change"] for r in top}, out / f"motif_changes_{tag}.png",
                  f"{b}: motif frequency change, {checkpoints[0]} -> {checkpoints[-1]}", "per-trace frequency change")
            pngs.append(f"motif_changes_{tag}.png")
    return pngs


def strips(traces: list[Trace], bench: str, checkpoints: list[str], n_problems: int) -> list[tuple[str, list[str]]]:
    """(caption, labels) of the lowest-numbered sample of the first problems every checkpoint has."""
    by = defaultdict(dict)
    for t in traces:
        if t.benchmark == bench:
            cur = by[t.problem_id].get(t.checkpoint)
            if cur is None or t.sample < cur.sample:
                by[t.problem_id][t.checkpoint] = t
    common = [p for p in sorted(by) if all(c in by[p] for c in checkpoints)][:n_problems]
    return [(f"{c} | {p} | {'solved' if by[p][c].correct else 'unsolved' if by[p][c].correct is False else '?'}",
             by[p][c].labels) for p in common for c in checkpoints]


def write_summary(cfg, out, traces, stats, changes, corr, label_report, bad, pngs, checkpoints, benchmarks,
                  recovery, motif_corr, extra: list[str] = ()) -> str:
    from utils.motifs import LABELS

    lines = ["# Reasoning-primitive analysis", "",
             f"Inputs: {', '.join(f'`{p}`' for p in cfg.inputs)}. Checkpoints (in order): {', '.join(checkpoints)}. "
             f"{bad['traces']} traces, {bad['traces_without_spans']} without any span (left out of the statistics).", ""]
    lines += ["## Labeller", ""]
    lr = label_report
    desc = {"cue": "cue-phrase baseline (utils/labels.py CUE_RULES)", "judges": "consensus of the LLM jury",
            "classifier": f"{cfg.classifier.kind} classifier trained on {cfg.classifier.train_data} spans"}[cfg.labeler]
    lines.append(f"{lr['spans']} spans labelled by the {desc} in {lr['seconds']} s.")
    if "judged_heldout" in lr:
        j = lr["judged_heldout"]
        lines.append(f"Against the judges' consensus on {j['spans']} held-out judged spans: macro-F1 "
                     f"{j['macro_f1']:.3f} (cue baseline {j['cue_baseline_macro_f1']:.3f}; paper: 0.80); confusion "
                     f"matrix [confusion_judged_heldout.csv](confusion_judged_heldout.csv).")
    if "shipped_heldout" in lr:
        s = lr["shipped_heldout"]
        lines.append(f"On the {s['spans']} shipped held-out spans (data/spans/heldout.jsonl): macro-F1 "
                     f"{s['macro_f1']:.3f} (cue baseline {s['cue_baseline_macro_f1']:.3f}); confusion matrix "
                     f"[confusion_shipped_heldout.csv](confusion_shipped_heldout.csv), per-label F1 in "
                     f"[labeler.json](labeler.json).")
    if "judges" in lr:
        jr = lr["judges"]
        pairs = "; ".join(f"{'/'.join(p['judges'])} {fmt(p['agreement'])} (κ {fmt(p['cohen_kappa'])})" for p in jr["pairs"])
        invalid = sum(j["invalid"] for j in jr["judges"].values())
        lines.append(f"Jury of {len(jr['judges'])} on {jr['spans']} spans, {invalid} invalid verdicts (unparsable "
                     f"after one re-ask) on {jr['spans_with_invalid']} spans, left out of agreement: Fleiss κ "
                     f"{fmt(jr['fleiss_kappa'])} over {jr['fleiss_spans']} spans; "
                     f"pairwise agreement {pairs or '–'}. Consensus labels: [consensus.jsonl](consensus.jsonl).")
        t = jr.get("ties", {})
        rule = {"unresolved": "left unresolved (no consensus: they train and score no classifier)",
                "judge": f"put to the tie-break judge {t.get('tie_judge')}", "first": "given to the first judge listed"}
        lines.append(f"Ties: the jury tied on {t.get('spans', 0)} spans, {rule.get(t.get('rule'), '')}; "
                     f"{t.get('unresolved', 0)} spans without a consensus.")
    lines.append(f"Span lengths: {lr.get('span_tokens', 'characters / 4')}.")
    if "judge_sample" in lr:
        lines.append("Spans judged: " + "; ".join(f"{k} {v['spans'] if isinstance(v, dict) else v}"
                                                  for k, v in lr["judge_sample"].items()) + " (per cell in labeler.json).")
    lines += ["", "## Per checkpoint and benchmark", ""]
    base = [r for r in stats if r["outcome"] == "all" and r["subset"] == "all"]
    pk = [f"pass@{k}" for k in cfg.passk if any(f"pass@{k}" in r for r in base)]
    lines.append(md_table([{**r, "depth 95% CI": f"[{fmt(r['chain_depth_ci_lo'])}, {fmt(r['chain_depth_ci_hi'])}]"}
                           for r in base],
                          ["checkpoint", "benchmark", "traces", *pk, "spans_per_trace", "reasoning_spans_per_trace",
                           "chain_depth_mean", "depth 95% CI", "chain_depth_p90", "exploit_run_mean",
                           "exploit_run_mean_pooled", "recovery_per_trace", "exploitation_per_trace",
                           "verification_per_trace"]))
    lines += ["", "spans_per_trace counts `other` spans, reasoning_spans_per_trace does not (the paper's \"primitive "
              "spans per trace\", line 65, does not say). exploit_run_mean is each trace's mean exploit-run length "
              "averaged over the traces with a run (line 79: \"the mean length of all exploit runs per trace\"); "
              "exploit_run_mean_pooled weighs every run the same."]
    lines += ["", "Primitives per trace:", "",
              md_table(base, ["checkpoint", "benchmark", *[f"{label}_per_trace" for label in LABELS]]).replace("_per_trace", ""),
              "", "## Solved vs unsolved", ""]
    split = [r for r in stats if r["outcome"] != "all" and r["subset"] == "all"]
    lines.append(md_table(split, ["checkpoint", "benchmark", "outcome", "traces", "spans_per_trace", "chain_depth_mean",
                                  "exploit_run_mean", "hypothesize_per_trace", "backtrack_per_trace",
                                  "recovery_per_trace"]) if split else "No `correct` field in the inputs.")
    sub = [r for r in stats if r["subset"] != "all" and r["outcome"] == "all"]
    if sub:
        lines += ["", "## Problem subsets (evaluate.py compare)", "",
                  md_table(sub, ["checkpoint", "benchmark", "subset", "traces", "chain_depth_mean", "exploit_run_mean",
                                 "hypothesize_per_trace", "backtrack_per_trace", "recovery_per_trace"])]
    if changes:
        lines += ["", f"## Motifs amplified and suppressed ({checkpoints[0]} → {checkpoints[-1]})", "",
                  md_table(changes[:cfg.top_motifs], ["benchmark", "k", "motif", f"freq_{checkpoints[0]}",
                                                      f"freq_{checkpoints[-1]}", "change"])]
    lines += ["", "## Rollouts holding a recovery motif", "",
              "Traces with at least one trigram holding hypothesize and backtrack, as k/n "
              "([recovery.csv](recovery.csv); the paper's 11/512, 3/24 solved, 8/488 failed, line 119).", "",
              md_table([{**r, **{o: f"{r[f'{o}_with_recovery']}/{r[f'{o}_traces']}" for o in ("all", "solved", "unsolved")}}
                        for r in recovery], ["checkpoint", "benchmark", "subset", "all", "solved", "unsolved"])]
    lines += ["", "## Correlation with pass@k across checkpoints", ""]
    if corr:
        top = sorted(corr, key=lambda r: -abs(r["pearson"]) if not math.isnan(r["pearson"]) else 0)[:10]
        lines.append(md_table(top, ["benchmark", "k", "statistic", "checkpoints", "pearson", "spearman"]))
        if motif_corr:
            lines += ["", "Motifs whose frequency tracks pass@k most closely ([motif_correlations.csv]"
                          "(motif_correlations.csv)):", "",
                      md_table(motif_corr[:10], ["benchmark", "k", "motif", "checkpoints", "pearson", "spearman"])]
    else:
        lines.append("Needs at least 3 checkpoints with `correct` fields (two points always give r = ±1).")
    lines += [""] + list(extra)
    bad_rows = {k: v for k, v in bad.items() if k not in ("traces",) and v}
    lines += ["## Input problems (counted, not fatal)", "",
              ", ".join(f"{k}: {v}" for k, v in sorted(bad_rows.items())) or "none", "",
              "## Files", "",
              "Tables: [stats.csv](stats.csv) (every statistic per checkpoint × benchmark × outcome × subset), "
              "[primitives.csv](primitives.csv), [motifs.csv](motifs.csv) (k = 2.." + str(cfg.max_k) + ", corpus filter "
              "≥5 / ≥10), [motif_changes.csv](motif_changes.csv), [correlations.csv](correlations.csv), "
              "[passk.csv](passk.csv), [recovery.csv](recovery.csv), [motif_correlations.csv](motif_correlations.csv), "
              "[traces.csv](traces.csv), [appendix_q.csv](appendix_q.csv), [spans.jsonl](spans.jsonl), "
              "[labeler.json](labeler.json), "
              "[bad_input.json](bad_input.json).", ""]
    lines += [f"![{p}]({p})" for p in pngs]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main(sys.argv[1:])
