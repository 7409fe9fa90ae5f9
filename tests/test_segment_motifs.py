"""Span segmentation and motif statistics on hand-built traces and label sequences."""
from __future__ import annotations

import re
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from utils.motifs import (BREAK, category_counts, chain_depth, count_nonoverlapping, exploit_runs,
                          filter_corpus, kgram_counts, kgram_frequencies, mean_exploit_run, parse_motif, with_breaks)
from utils.segment import segment


def squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


def sentence(n_chars: int, word: str = "grid") -> str:
    """A sentence of about n_chars characters ending in a period."""
    words = (word + " ") * max(1, n_chars // (len(word) + 1))
    return words.strip().capitalize() + "."


def test_markers_split_inside_paragraphs():
    a, b, c = sentence(400, "row"), sentence(400, "col"), sentence(400, "sum")
    text = f"<reasoning>{a}\nSuppose {b}\nWait, {c}</reasoning><answer>1</answer>"
    spans = segment(text)
    assert len(spans) == 3
    assert spans[1].startswith("Suppose") and spans[2].startswith("Wait")
    assert "<answer>" not in "".join(spans)


def test_short_fragments_accumulate_to_80_tokens():
    # 25-token paragraphs: 25+25+25 < 80, the fourth makes 100 >= 80 and the span is emitted
    paras = [sentence(100, w) for w in ("alpha", "beta", "gamma", "delta", "eta", "theta")]
    spans = segment("\n\n".join(paras))
    assert [squash(s) for s in spans] == [squash("".join(paras[:4])), squash("".join(paras[4:]))]
    # a trailing buffer under 40 tokens (one 25-token paragraph) merges into the previous span
    spans = segment("\n\n".join(paras[:5]))
    assert [squash(s) for s in spans] == [squash("".join(paras[:5]))]


def test_trailing_buffer_of_40_tokens_or_more_stays():
    first = sentence(400, "alpha")
    tail = sentence(200, "beta")  # 50 tokens: between 40 and 80
    spans = segment(first + "\n\n" + tail)
    assert [squash(s) for s in spans] == [squash(first), squash(tail)]


def test_long_paragraph_splits_at_sentences():
    sents = [sentence(300, w) for w in ("one", "two", "three", "four", "five", "six", "seven")]
    para = " ".join(sents)  # ~525 tokens, one paragraph, no markers
    spans = segment(para)
    assert len(spans) >= 3
    assert all(len(s) / 4 <= 250 for s in spans)
    assert all(s.endswith(".") for s in spans)  # cut only at sentence boundaries
    assert squash("".join(spans)) == squash(para)


def test_no_reasoning_tags_uses_whole_text_and_bad_input_is_empty():
    text = sentence(400) + "\n\nTherefore " + sentence(400)
    assert len(segment(text)) == 2
    assert segment("") == [] and segment(None) == [] and segment("   \n\n  ") == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["First ", "Wait, ", "Check: ", "x = 3. ", "So we get y. ", "\n", "\n\n",
                                 "Then ", "Hmm ", "long words here " * 30, "é ", "Case 2: "]), max_size=60))
def test_join_back_property(parts):
    text = "".join(parts)
    spans = segment(text)
    assert squash("".join(spans)) == squash(text)
    assert all(s.strip() for s in spans)


def test_kgram_counts_respect_breaks():
    labels = ["plan", "setup", "compute", "other", "other", "compute", "check", "compute"]
    assert with_breaks(labels) == ["plan", "setup", "compute", BREAK, "compute", "check", "compute"]
    assert kgram_counts(labels, 2) == Counter({("plan", "setup"): 1, ("setup", "compute"): 1,
                                               ("compute", "check"): 1, ("check", "compute"): 1})
    assert kgram_counts(labels, 3) == Counter({("plan", "setup", "compute"): 1, ("compute", "check", "compute"): 1})
    # L = 7 after the mapping; k=2 gives 6 windows
    assert kgram_frequencies(labels, 2)[("plan", "setup")] == 1 / 6
    assert kgram_frequencies(["plan"], 2) == {}
    c = Counter({("a", "b"): 5, ("b", "c"): 4})
    assert filter_corpus(c, 2) == Counter({("a", "b"): 5})
    assert filter_corpus(Counter({("a",) * 6: 9}), 6) == Counter()


def test_chain_depth_and_exploit_runs():
    labels = ["plan", "setup", "compute", "check", "hypothesize", "compute", "other", "check", "check"]
    assert exploit_runs(labels) == [3, 1, 2]
    assert chain_depth(labels) == 3
    assert chain_depth(["plan", "other"]) == 0 and exploit_runs([]) == []
    assert mean_exploit_run(labels) == 2.0 and mean_exploit_run(["plan", "other"]) is None  # (3 + 1 + 2) / 3


def test_categories_and_named_motifs():
    labels = ["hypothesize", "compute", "backtrack", "compute", "check", "compute", "check", "plan", "check",
              "other", "check", "backtrack", "check"]
    cats = category_counts(labels)
    # recovery: (hyp, compute, backtrack); exploitation: (compute, check, compute) once;
    # verification: (check, compute, check) and (check, plan, check); (check, backtrack, check) is recovery-x
    assert cats == {"recovery": 1, "exploitation": 1, "verification": 2}
    seq = ["check", "compute", "check", "compute", "check", "compute", "check", "compute", "check"]
    assert count_nonoverlapping(seq, parse_motif("check>compute>check")) == 2
    assert count_nonoverlapping(seq[:3] + ["other"] + seq[3:], ("check", "compute", "check")) == 2
    assert count_nonoverlapping(["check", "other", "compute", "check"], ("check", "compute", "check")) == 0
