"""Motifs and chain depth over sequences of reasoning-primitive labels (puzzle-to-math paper,
section 4 and Appendix L).

Labels are the 9 primitives below. `other` marks a span outside the reasoning vocabulary: it
becomes a __BREAK__ token that no motif crosses (runs of `other` collapse into one break).
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

LABELS = ("plan", "setup", "enumerate", "hypothesize", "compute", "check", "backtrack", "summarize", "other")
REASONING_LABELS = LABELS[:-1]
BREAK = "__BREAK__"
EXPLOIT = frozenset({"compute", "check", "setup"})  # exploitation primitives (chain depth)
RECOVERY = frozenset({"hypothesize", "backtrack"})
KS = range(2, 16)


def with_breaks(labels: Sequence[str]) -> list[str]:
    """Map `other` to BREAK, collapsing consecutive breaks."""
    out: list[str] = []
    for label in labels:
        token = BREAK if label == "other" else label
        if not (token == BREAK and out and out[-1] == BREAK):
            out.append(token)
    return out


def _windows(seq: Sequence[str], k: int) -> Iterable[tuple[str, ...]]:
    for i in range(len(seq) - k + 1):
        window = tuple(seq[i:i + k])
        if BREAK not in window:
            yield window


def kgram_counts(labels: Sequence[str], k: int) -> Counter:
    """Raw counts of every length-k window that does not contain a break."""
    return Counter(_windows(with_breaks(labels), k))


def kgram_frequencies(labels: Sequence[str], k: int) -> dict[tuple[str, ...], float]:
    """Per-trace frequency: count / (L - k + 1), L the length after the break mapping."""
    seq = with_breaks(labels)
    n = len(seq) - k + 1
    return {m: c / n for m, c in Counter(_windows(seq, k)).items()} if n > 0 else {}


def min_count(k: int) -> int:
    """Corpus-level filter: a motif must occur >= 5 times (k <= 5) or >= 10 times (k > 5)."""
    return 5 if k <= 5 else 10


def filter_corpus(counts: Counter, k: int) -> Counter:
    return Counter({m: c for m, c in counts.items() if c >= min_count(k)})


def exploit_runs(labels: Sequence[str]) -> list[int]:
    """Lengths of all maximal contiguous runs of exploitation primitives (compute, check, setup)."""
    runs, n = [], 0
    for label in labels:
        if label in EXPLOIT:
            n += 1
        elif n:
            runs.append(n)
            n = 0
    return runs + [n] if n else runs


def mean_exploit_run(labels: Sequence[str]) -> float | None:
    """The mean length of one trace's exploit runs, None for a trace with none: "we also measure the mean
    length of all exploit runs per trace" (puzzle_to_math line 79)."""
    runs = exploit_runs(labels)
    return sum(runs) / len(runs) if runs else None


def chain_depth(labels: Sequence[str]) -> int:
    return max(exploit_runs(labels), default=0)


def category_counts(labels: Sequence[str]) -> dict[str, int]:
    """Trigram categories: recovery (contains hypothesize and backtrack), exploitation
    (compute, check, compute), verification (check, x, check; x neither check nor recovery)."""
    out = {"recovery": 0, "exploitation": 0, "verification": 0}
    for a, b, c in _windows(with_breaks(labels), 3):
        if RECOVERY <= {a, b, c}:
            out["recovery"] += 1
        if (a, b, c) == ("compute", "check", "compute"):
            out["exploitation"] += 1
        if a == c == "check" and b != "check" and b not in RECOVERY:
            out["verification"] += 1
    return out


def count_nonoverlapping(labels: Sequence[str], motif: Sequence[str]) -> int:
    """Occurrences of a named motif (e.g. check>compute>check>compute>check), scanning left to
    right and skipping past each match, never across a break."""
    seq, motif = with_breaks(labels), tuple(motif)
    i = n = 0
    while i + len(motif) <= len(seq):
        if tuple(seq[i:i + len(motif)]) == motif:
            n, i = n + 1, i + len(motif)
        else:
            i += 1
    return n


def parse_motif(name: str) -> tuple[str, ...]:
    """'check>compute>check' -> ('check', 'compute', 'check'), validating the labels."""
    parts = tuple(p.strip() for p in name.split(">"))
    bad = [p for p in parts if p not in REASONING_LABELS]
    if bad or not parts:
        raise ValueError(f"motif {name!r}: unknown label(s) {bad}; use {list(REASONING_LABELS)}")
    return parts
