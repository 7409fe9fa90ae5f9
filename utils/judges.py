"""A jury of LLM judges labelling spans (puzzle-to-math paper, Appendix K), through utils/engine.py.

Each judge sees the label definitions, the preceding spans as context, and the target span, and
answers `LABEL: <label>`. A reply without a label of the vocabulary is asked again once; if the
second reply is no better the verdict is invalid (label None): it is not a vote, it is left out of
every agreement statistic, and the report counts it. The consensus is the majority of the valid
labels; a span without any valid verdict gets `other`. A tie (two judges that disagree) is decided
by the rule `ties` (analyze.py `judge_ties`): `unresolved` leaves the span without a consensus
(None: it trains and scores no classifier, so macro-F1 does not lean on one judge), `judge` asks a
tie-break judge whose vote joins the others (still tied: unresolved), `first` gives it to the tied
label named by the judge listed first (the old rule). Ties are counted in the report.

Verdicts are appended to a JSONL cache after every batch, keyed by judge name, judge model and
prompt hash, so an interrupted run continues where it stopped, a finished one is not paid for
twice, and a judge pointed at another model is asked again.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Callable, Sequence

from utils.config import field
from utils.engine import EngineConfig, SamplingParams, chat
from utils.labels import judge_prompt, parse_label, reask_prompt
from utils.motifs import LABELS
from utils.records import append_jsonl, derive_seed, read_jsonl_tolerant


@dataclass
class JudgeConfig:
    name: str = field("judge", help="judge name used in outputs and the cache")
    engine: EngineConfig = field(EngineConfig(backend="openai"), help="the judge's model backend")
    temperature: float = field(0.0, help="judge sampling temperature (0: greedy)", ge=0)
    max_tokens: int = field(1024, help="judge reply budget (reasoning judges need room before LABEL:)", ge=1)


@dataclass
class Verdict:
    label: str | None  # in LABELS; None when invalid
    valid: bool  # False when neither the reply nor the re-asked reply named a label
    reasked: bool


def prompt_key(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8", "replace")).hexdigest()[:20]


def _ask(engine, prompts: list[str], judge: JudgeConfig, seed: int) -> list[str]:
    params = SamplingParams(n=1, temperature=judge.temperature, max_tokens=judge.max_tokens, seed=seed)
    return [c[0].text for c in engine.generate([chat(p) for p in prompts], params)]


def judge_spans(items: Sequence[tuple[str, Sequence[str]]], judges: Sequence[JudgeConfig], cache: str | Path,
                make_engine: Callable, batch_size: int = 256, context_chars: int = 1500, seed: int = 0,
                log: Callable[[str], None] | None = None) -> dict[str, list[Verdict]]:
    """Verdicts of every judge (by name) for every (span, context) item, in item order."""
    prompts = [judge_prompt(span, ctx, context_chars) for span, ctx in items]
    keys = [prompt_key(p) for p in prompts]
    done: dict[tuple[str, str], Verdict] = {}
    for row in read_jsonl_tolerant(cache):
        label = row["label"] if row["valid"] else None  # caches before this change wrote "other"
        done[(row["judge"], row.get("model", ""), row["key"])] = Verdict(label, row["valid"], row["reasked"])
    out: dict[str, list[Verdict]] = {}
    for judge in judges:
        pending: dict[str, int] = {}  # identical prompts are asked once
        for i, k in enumerate(keys):
            if (judge.name, judge.engine.model, k) not in done:
                pending.setdefault(k, i)
        todo_unique = list(pending.values())
        if todo_unique:
            engine = make_engine(judge.engine)
            for start in range(0, len(todo_unique), batch_size):
                batch = todo_unique[start:start + batch_size]
                replies = _ask(engine, [prompts[i] for i in batch], judge, derive_seed(seed, judge.name, start))
                labels = [parse_label(r) for r in replies]
                again = [j for j, label in enumerate(labels) if label is None]
                if again:
                    retry = _ask(engine, [reask_prompt(prompts[batch[j]], replies[j]) for j in again], judge,
                                 derive_seed(seed, judge.name, start, "reask"))
                    for j, reply in zip(again, retry):
                        labels[j] = parse_label(reply)
                rows = []
                for j, i in enumerate(batch):
                    verdict = Verdict(labels[j], labels[j] is not None, j in again)
                    done[(judge.name, judge.engine.model, keys[i])] = verdict
                    rows.append({"judge": judge.name, "model": judge.engine.model, "key": keys[i],
                                 "label": verdict.label, "valid": verdict.valid,
                                 "reasked": verdict.reasked, "reply": replies[j][-200:]})
                append_jsonl(cache, rows)
                if log:
                    log(f"judge {judge.name}: {min(start + batch_size, len(todo_unique))}/{len(todo_unique)} spans")
        out[judge.name] = [done[(judge.name, judge.engine.model, k)] for k in keys]
    return out


TIE_RULES = ("unresolved", "judge", "first")


def is_tie(votes: Sequence[str | None]) -> bool:
    """Two or more labels share the largest number of valid votes."""
    counts = Counter(v for v in votes if v is not None)
    return sum(c == max(counts.values()) for c in counts.values()) > 1 if counts else False


def consensus(votes: Sequence[str | None], ties: str = "first") -> str | None:
    """Majority of the valid labels (None: an invalid verdict, no vote); `other` when no vote is
    valid. A tie goes to the tied label voted by the earliest judge (ties="first"), or is None,
    unresolved (ties="unresolved", and "judge" once the tie-break judge's vote is among `votes`)."""
    votes = [v for v in votes if v is not None]
    if not votes:
        return "other"
    if ties != "first" and is_tie(votes):
        return None
    counts = Counter(votes)
    top = max(counts.values())
    return next(v for v in votes if counts[v] == top)


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    n = len(a)
    if n == 0:
        return float("nan")
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[label] * cb[label] for label in LABELS) / (n * n)
    return 1.0 if pe == 1 else (po - pe) / (1 - pe)


def fleiss_kappa(table: Sequence[Sequence[str]]) -> float:
    """table[i] = the labels the judges gave item i (same number of judges per item)."""
    if not table or len(table[0]) < 2:
        return float("nan")
    n = len(table[0])
    totals: Counter = Counter()
    p_items = 0.0
    for votes in table:
        c = Counter(votes)
        totals.update(c)
        p_items += (sum(v * v for v in c.values()) - n) / (n * (n - 1))
    p_bar = p_items / len(table)
    pe = sum((v / (len(table) * n)) ** 2 for v in totals.values())
    return 1.0 if pe == 1 else (p_bar - pe) / (1 - pe)


def agreement_report(verdicts: dict[str, list[Verdict]], consensus_labels: Sequence[str | None],
                     ties: dict | None = None) -> dict:
    """Pairwise percent agreement and Cohen's kappa (over the spans both judges answered validly),
    Fleiss' kappa (over the spans every judge answered validly), each judge's agreement with the
    consensus over its valid verdicts on resolved spans, the invalid verdicts (per judge and spans
    touched) and the ties: how many spans the jury tied on, how the rule decided them."""
    names = list(verdicts)
    labels = {name: [v.label for v in verdicts[name]] for name in names}
    n = len(consensus_labels)
    all_valid = [i for i in range(n) if all(labels[name][i] is not None for name in names)]
    tied = sum(is_tie([labels[name][i] for name in names]) for i in range(n))
    report = {"spans": n, "spans_with_invalid": n - len(all_valid), "judges": {}, "pairs": [], "fleiss_kappa": None,
              "fleiss_spans": len(all_valid),
              "ties": {"spans": tied, "unresolved": sum(c is None for c in consensus_labels), **(ties or {})}}
    for name in names:
        mine = [(a, b) for a, b in zip(labels[name], consensus_labels) if a is not None and b is not None]
        report["judges"][name] = {
            "agreement_with_consensus": sum(a == b for a, b in mine) / len(mine) if mine else None,
            "reasked": sum(v.reasked for v in verdicts[name]), "invalid": sum(not v.valid for v in verdicts[name]),
            "label_counts": dict(Counter(x for x in labels[name] if x is not None))}
    for a, b in combinations(names, 2):
        both = [(x, y) for x, y in zip(labels[a], labels[b]) if x is not None and y is not None]
        report["pairs"].append({"judges": [a, b], "spans": len(both),
                                "agreement": sum(x == y for x, y in both) / len(both) if both else None,
                                "cohen_kappa": cohen_kappa([x for x, _ in both], [y for _, y in both])})
    if len(names) >= 2:
        report["fleiss_kappa"] = fleiss_kappa([[labels[name][i] for name in names] for i in all_valid])
    return report
