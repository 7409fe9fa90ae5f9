"""The 9 reasoning-primitive labels (puzzle-to-math transfer paper, section 4 / Appendix K): their
definitions, the judge prompt and its parser, a transparent cue-phrase baseline, and the scores
every labeller reports (macro-F1, confusion matrix).

The definitions below are the single source: the judge prompt quotes them, the shipped span set
(data/spans/) was labelled by them, and README points here.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

from utils.motifs import LABELS

DEFINITIONS = {
    "plan": "Decides how to attack the problem or what to do next, before doing it: choosing a method, "
            "ordering subgoals, announcing a strategy or a switch to a new one. A plan names work to be "
            "done; it does not carry it out (\"I'll place the forced bridges first, then the corners\"; "
            "\"use complementary counting\").",
    "setup": "States or formalises the problem: restates the givens and the goal, reads off a grid, clues "
             "or constraints, defines variables, notation or coordinates, translates words into equations. "
             "It organises information that is already given and derives nothing new.",
    "enumerate": "Systematically lists options: the cases of a case split, candidate values for a cell or "
                 "variable, neighbours, divisors, placements, possible moves. The span is organised as a "
                 "list of the possibility space, even if some items are quickly eliminated.",
    "hypothesize": "Tentatively adopts something not yet established in order to explore it: a guess, a "
                   "trial value, an assumption for one branch, a conjectured pattern (\"Suppose...\", "
                   "\"Maybe the answer is...\", \"What if...\", \"Try x = 2\"). It commits provisionally.",
    "compute": "Derives new facts from established ones: arithmetic, algebra, applying a rule or constraint "
               "to fill in cells, propagating consequences, evaluating a formula. Most forward progress.",
    "check": "Tests something already obtained against the conditions: substitutes an answer back, "
             "recounts, verifies a constraint, compares two methods, tests a candidate or a hypothesis for "
             "consistency. The outcome may be a confirmation or the discovery of a conflict.",
    "backtrack": "Recognises an error, contradiction or dead end and abandons or revises an earlier step, "
                 "assumption, reading of the problem or approach (\"Wait, that's wrong...\", \"this branch "
                 "fails, go back\", \"I misread the clue, redo\").",
    "summarize": "Restates what has been established so far or states the conclusion: a recap of the "
                 "current state, partial results, or the final answer. It adds no new derivation.",
    "other": "Not a reasoning move on the problem: filler (\"Okay, let me think\"), remarks about the "
             "output format or the instructions, pleasantries, off-topic text, garbled, truncated or "
             "endlessly repeated text.",
}
assert tuple(DEFINITIONS) == LABELS

JUDGE_PROMPT = """You are annotating a chain of thought written by a model solving a puzzle or a math problem. \
The chain of thought has been cut into spans. Classify the TARGET span into exactly one of nine reasoning \
primitives, by the main thing the span does. The preceding spans are given only as context.

Labels:
{definitions}

Preceding context:
<context>
{context}
</context>

TARGET span:
<span>
{span}
</span>

Reply with a single line of the form
LABEL: <one of {names}>"""

REASK = """

Your previous reply "{previous}" did not contain one of the nine labels. Reply with exactly one line: \
LABEL: <one of {names}>"""


def judge_prompt(span: str, context: Sequence[str], context_chars: int = 1500) -> str:
    """The judge's prompt for one span; context is the preceding spans (the last context_chars kept)."""
    ctx = "\n\n".join(context)[-context_chars:] if context_chars > 0 else ""
    defs = "\n".join(f"- {name}: {text}" for name, text in DEFINITIONS.items())
    return JUDGE_PROMPT.format(definitions=defs, context=ctx or "(start of the reasoning)", span=span,
                               names=", ".join(LABELS))


def reask_prompt(prompt: str, previous: str) -> str:
    previous = " ".join(previous.split())[:80]
    return prompt + REASK.format(previous=previous, names=", ".join(LABELS))


_LABEL_LINE = re.compile(r"label\s*[:=]\s*\**\s*([a-z]+)", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")


def parse_label(reply: str) -> str | None:
    """The label in a judge's reply: the last `LABEL: x`, else a reply that is just one label word
    (markdown and punctuation allowed); None when neither names a label of the vocabulary."""
    found = _LABEL_LINE.findall(reply or "")
    if found:
        word = found[-1].lower()
        return word if word in LABELS else None
    words = _WORD.findall((reply or "").lower())
    return words[0] if len(words) == 1 and words[0] in LABELS else None


# ------------------------------------------------------------------------------ cue baseline

# (label, pattern, where): the first rule that matches decides. "start" rules look at the span's first
# 60 characters, "any" rules at the whole span. Order encodes priority: a span that opens with "Wait"
# is a backtrack even if it goes on to check something.
CUE_RULES: list[tuple[str, str, str]] = [
    ("other", r"^\W*(okay|ok|alright|hmm+)?[,.]?\s*(so\s+)?(let me think|i need to figure|let me (look|start|read))", "start"),
    ("other", r"\b(the format|requested format|i hope this helps|final answer\*\*|\*\*step-by-step)", "any"),
    ("backtrack", r"^\W*(wait|actually|oops|no wait|hmm+,? (that|this|wait))\b", "start"),
    ("backtrack", r"\b(contradiction|dead end|doesn't work|does not work|can't be right|misread|"
                  r"go back|undo|that's wrong|was wrong|fails?\b|impossible)", "any"),
    ("check", r"^\W*(let me |let's |to |quick |a )?(double[- ]?check|check|verify|confirm|sanity[- ]?check|test)", "start"),
    ("hypothesize", r"^\W*(suppose|assume|let's (try|say|assume|suppose|guess)|what if|maybe|perhaps|"
                    r"try |guess|i (think|suspect|guess))", "start"),
    ("plan", r"^\W*(i'll|i will|let me first|first,? (i|we|let)|the (plan|strategy|approach|idea)|"
             r"my (plan|approach)|strategy|approach|use |we can use|standard approach)", "start"),
    ("enumerate", r"\b(cases?\b|candidates?|possibilit|options?\b|possible (values|placements)|list(ing)? )", "any"),
    ("summarize", r"^\W*(so far|in summary|to summari[sz]e|therefore|thus|hence|answer:|final|"
                  r"(so,? )?the (answer|result|solution|value|sum|remainder|probability|minimum|maximum) (is|equals)|"
                  r"there (are|is) \d+|(current|partial) (state|solution|progress)|progress)", "start"),
    ("summarize", r"\b(the|final) answer is\b|\bso far\b|\bin summary\b", "any"),
    ("setup", r"^\W*(we (have|need|want|are given)|given|the problem|this is an? |let \w+ (be|denote)|"
              r"define|find|how many|compute the|evaluate|solve|determine)", "start"),
    ("setup", r"\b(puzzle|grid|clues?|islands?)\b.*\b(rows?|columns?|clues?|totals?|islands?)\b", "start"),
    ("check", r"\b(check|verify|confirm|consistent|matches)\b", "any"),
]
_CUES = [(label, re.compile(pattern, re.IGNORECASE), where) for label, pattern, where in CUE_RULES]


def cue_label(span: str) -> str:
    """Cue-phrase baseline: the first matching rule in CUE_RULES, else compute (the commonest move)."""
    head = span[:60]
    for label, pattern, where in _CUES:
        if pattern.search(head if where == "start" else span):
            return label
    return "compute"


# ------------------------------------------------------------------------------ scores


def confusion_matrix(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str] = LABELS) -> list[list[int]]:
    """Rows: gold label, columns: predicted label, in the order of `labels`."""
    index = {label: i for i, label in enumerate(labels)}
    m = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, pred, strict=True):
        m[index[g]][index[p]] += 1
    return m


def per_label_f1(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str] = LABELS) -> dict[str, float]:
    counts = Counter(zip(gold, pred, strict=True))
    gold_n, pred_n = Counter(gold), Counter(pred)
    out = {}
    for label in labels:
        tp = counts[(label, label)]
        denom = gold_n[label] + pred_n[label]
        out[label] = 2 * tp / denom if denom else 0.0
    return out


def macro_f1(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str] | None = None) -> float:
    """Unweighted mean of per-label F1 over the labels that occur in gold or pred (as scikit-learn):
    a label absent from both has no defined F1 and would otherwise drag small evaluation sets to 0."""
    seen = set(gold) | set(pred)
    labels = [label for label in (labels or LABELS) if label in seen]
    if not labels:
        return 0.0
    f1 = per_label_f1(gold, pred, labels)
    return sum(f1.values()) / len(labels)
