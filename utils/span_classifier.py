"""Span classifiers for the 9 primitive labels.

- NgramClassifier: the embedded default. Multinomial logistic regression (torch, full batch) on
  word 1-2-grams, the span's opening words and a few shape features, trained from scratch in about
  a second on the shipped spans (data/spans/train.jsonl). Nothing is downloaded.
- HFSpanClassifier: AutoModelForSequenceClassification fine-tuned from any HF model directory on
  labelled spans (the paper: Qwen3-1.7B on 35k judge-consensus spans), then used in batches.

Both see what precedes a span: the n-gram model the previous span's opening words (a span that
follows "Suppose..." is often a compute or check of that guess), the HF model the preceding text
itself, as much as fits before the span in max_length tokens.
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from utils.config import field
from utils.motifs import LABELS
from utils.records import follow_umask

SHIPPED_SPANS = Path(__file__).resolve().parent.parent / "data" / "spans"

# A segmenter span is at most ~1000 characters unless the text has no sentence ends at all (a
# degenerate loop, a 1 MB line of digits): its first 4000 characters say all the model can use.
MAX_FEATURE_CHARS = 4000
MATHY = frozenset("=+*/^<>≡≥≤0")
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+|[=+*/^<>≡≥≤?!:()\[\]{}|#.,-]")


def load_spans(path: str | Path) -> list[dict]:
    """Labelled spans (JSONL rows with text, label and optionally trace/position for context), with
    `prev` (the preceding span of the same trace, or '') filled in."""
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    bad = [r.get("label") for r in rows if r.get("label") not in LABELS]
    if bad:
        raise ValueError(f"{path}: labels outside the vocabulary: {sorted(set(map(str, bad)))}")
    by_pos = {(r.get("trace"), r.get("position")): r["text"] for r in rows}
    for r in rows:
        pos = r.get("position")
        r.setdefault("prev", by_pos.get((r.get("trace"), pos - 1), "") if isinstance(pos, int) else "")
    return rows


_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(_DIGITS.sub("0", text.lower()))


def features(span: str, prev: str = "") -> Counter:
    """Sparse features of one span: word 1- and 2-grams, the first one to three words and the bag of
    the first six (where discourse markers sit), the previous span's first two words, and
    length/symbol-density bins. (Chosen by 5-fold cross-validation over the traces of the train split.)"""
    span = span[:MAX_FEATURE_CHARS]
    toks = _tokens(span)
    words = _WORD.findall(span[:200].lower())[:6]  # the opening words (the first 200 characters hold six)
    f = Counter(toks)
    f.update(map(" ".join, zip(toks, toks[1:])))
    for n in (1, 2, 3):
        if len(words) >= n:
            f["^" + " ".join(words[:n])] += 1
    f.update("^^" + w for w in words[:6])  # the opening words in any order ("so let me check", "let me check")
    pw = _WORD.findall(prev[:80].lower())[:2]
    if pw:
        f["prev^" + " ".join(pw)] += 1
    else:
        f["prev^<start>"] += 1
    n = max(1, len(toks))
    f[f"len:{min(6, int(math.log2(len(span) + 1)) // 2)}"] += 1
    f[f"math:{min(4, int(8 * sum(map(MATHY.__contains__, toks)) / n))}"] += 1
    if toks and len(set(toks)) < 0.25 * len(toks) and len(toks) > 12:
        f["repetitive"] += 1  # degenerate loops ("the answer the answer ...") are `other`
    return f


@contextmanager
def _one_thread():
    """The n-gram model's matrices are small: torch's thread pool only adds synchronisation, 5-8x
    slower on a busy 2-core machine than one thread. The caller's setting is restored."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@dataclass
class NgramConfig:
    min_count: int = field(2, help="n-gram: keep features seen in at least this many training spans", ge=1)
    weight_decay: float = field(1e-4, help="n-gram: L2 penalty (5-fold CV over train traces picked it)", ge=0)
    max_iter: int = field(100, help="n-gram: L-BFGS iterations (the loss is convex; 100 reach the optimum)", ge=1)


class NgramClassifier:
    """Bag-of-n-grams logistic regression, fitted to its (convex) optimum: the result depends only on
    the training spans and the config, not on a seed."""

    def __init__(self, cfg: NgramConfig | None = None):
        self.cfg = cfg or NgramConfig()
        self.vocab: dict[str, int] = {}
        self.weight = None  # torch tensor (features + 1 bias) x labels

    def _matrix(self, pairs: Sequence[tuple[str, str]]):
        """Dense rows of L2-normalised log-counts plus a bias column (a few thousand columns: dense is
        faster than torch.sparse here, both to train and to predict)."""
        import numpy as np
        import torch

        rows, cols, vals = [], [], []
        vocab = self.vocab
        for i, (span, prev) in enumerate(pairs):
            feats = [(j, math.log1p(v)) for k, v in features(span, prev).items() if (j := vocab.get(k)) is not None]
            norm = math.sqrt(sum(v * v for _, v in feats)) or 1.0
            rows += [i] * len(feats)
            cols += [j for j, _ in feats]
            vals += [v / norm for _, v in feats]
        x = torch.zeros(len(pairs), len(vocab) + 1)
        x[torch.from_numpy(np.array(rows, dtype=np.int64)), torch.from_numpy(np.array(cols, dtype=np.int64))] = \
            torch.from_numpy(np.array(vals, dtype=np.float32))
        x[:, -1] = 1.0
        return x

    def fit(self, pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> "NgramClassifier":
        with _one_thread():
            return self._fit(pairs, labels)

    def _fit(self, pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> "NgramClassifier":
        import torch

        docs = Counter()
        for span, prev in pairs:
            docs.update(features(span, prev).keys())
        self.vocab = {k: i for i, k in enumerate(sorted(k for k, c in docs.items() if c >= self.cfg.min_count))}
        x = self._matrix(pairs)
        y = torch.tensor([LABELS.index(label) for label in labels])
        # balanced class weights: macro-F1 is what we report, and rare moves (backtrack, other) matter
        counts = torch.bincount(y, minlength=len(LABELS)).float()
        class_w = torch.where(counts > 0, counts.sum() / (len(LABELS) * counts.clamp(min=1)), torch.zeros(()))
        w = torch.zeros(x.shape[1], len(LABELS), requires_grad=True)
        opt = torch.optim.LBFGS([w], lr=1, max_iter=self.cfg.max_iter, history_size=10, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(x @ w, y, weight=class_w) + self.cfg.weight_decay * w[:-1].pow(2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        self.weight = w.detach()
        return self

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 1024) -> list[str]:
        out: list[str] = []
        with _one_thread():
            for i in range(0, len(pairs), batch_size):
                x = self._matrix(pairs[i:i + batch_size])
                out += [LABELS[j] for j in (x @ self.weight).argmax(-1).tolist()]
        return out


def train_embedded(cfg: NgramConfig | None = None, path: str | Path = SHIPPED_SPANS / "train.jsonl") -> NgramClassifier:
    rows = load_spans(path)
    return NgramClassifier(cfg).fit([(r["text"], r["prev"]) for r in rows], [r["label"] for r in rows])


# ------------------------------------------------------------------------------ HF sequence classifier


@dataclass
class HFTrainConfig:
    epochs: int = field(2, help="hf: fine-tuning epochs", ge=1)
    lr: float = field(2e-5, help="hf: AdamW learning rate", gt=0)
    batch_size: int = field(16, help="hf: spans per training/inference batch", ge=1)
    max_length: int = field(512, help="hf: tokens per span (longer spans are truncated; paper spans <= ~250)", ge=1)
    weight_decay: float = field(0.01, help="hf: AdamW weight decay", ge=0)
    device: str = field("auto", help="hf: cpu, cuda or auto")
    dtype: str = field("float32", help="hf: training dtype (bfloat16 on GPU for large models)")
    seed: int = field(0, help="hf: shuffling and head initialisation seed", ge=0)


def _device(name: str) -> str:
    import torch

    return name if name != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")


class HFSpanClassifier:
    """A sequence classifier over the 9 labels (id2label in its config), loaded from a directory."""

    def __init__(self, model, tokenizer, cfg: HFTrainConfig):
        self.model, self.tokenizer, self.cfg = model, tokenizer, cfg

    @classmethod
    def load(cls, path: str | Path, cfg: HFTrainConfig, num_labels_check: bool = True) -> "HFSpanClassifier":
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        tok = AutoTokenizer.from_pretrained(path)
        if tok.pad_token is None:  # decoder-only LMs often ship without one; the classifier pools at the last non-pad
            tok.pad_token = tok.eos_token
        model = AutoModelForSequenceClassification.from_pretrained(
            path, num_labels=len(LABELS), id2label=dict(enumerate(LABELS)),
            label2id={label: i for i, label in enumerate(LABELS)}, dtype=getattr(torch, cfg.dtype))
        model.config.pad_token_id = tok.pad_token_id
        if num_labels_check and [model.config.id2label[i] for i in range(len(LABELS))] != list(LABELS):
            raise ValueError(f"{path}: classifier labels {model.config.id2label} are not {list(LABELS)}")
        return cls(model.to(_device(cfg.device)), tok, cfg)

    def _encode(self, text: str, context: str | None) -> list[int]:
        """The span's tokens (at most max_length), preceded by as much of the context's end as fits: the
        span is never cut for context, and the context nearest the span is kept (puzzle_to_math line 49:
        "each span is then classified with its preceding context")."""
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"][:self.cfg.max_length]
        room = self.cfg.max_length - len(ids)
        if context and room > 0:
            ids = self.tokenizer(context + "\n\n", add_special_tokens=False)["input_ids"][-room:] + ids
        return ids

    def _batch(self, texts: Sequence[str], contexts: Sequence[str] | None = None):
        rows = [{"input_ids": self._encode(t, contexts[i] if contexts else None)} for i, t in enumerate(texts)]
        enc = self.tokenizer.pad(rows, padding=True, return_tensors="pt")
        return {k: v.to(self.model.device) for k, v in enc.items()}

    def fit(self, texts: Sequence[str], labels: Sequence[str], log=None,
            contexts: Sequence[str] | None = None) -> "HFSpanClassifier":
        import random

        import torch

        torch.manual_seed(self.cfg.seed)
        order = list(range(len(texts)))
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.cfg.lr, weight_decay=self.cfg.weight_decay)
        y_all = [LABELS.index(label) for label in labels]
        self.model.train()
        step = 0
        for epoch in range(self.cfg.epochs):
            random.Random(self.cfg.seed + epoch).shuffle(order)
            for i in range(0, len(order), self.cfg.batch_size):
                idx = order[i:i + self.cfg.batch_size]
                batch = self._batch([texts[j] for j in idx], [contexts[j] for j in idx] if contexts else None)
                y = torch.tensor([y_all[j] for j in idx], device=self.model.device)
                loss = torch.nn.functional.cross_entropy(self.model(**batch).logits.float(), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if log is not None and step % 50 == 0:
                    log(f"classifier epoch {epoch} step {step} loss {loss.item():.3f}")
        self.model.eval()
        return self

    def predict(self, texts: Sequence[str], contexts: Sequence[str] | None = None) -> list[str]:
        import torch

        self.model.eval()
        # longest first so each batch pads little; results are put back in input order
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        preds = [0] * len(texts)
        with torch.no_grad():
            for i in range(0, len(order), self.cfg.batch_size):
                idx = order[i:i + self.cfg.batch_size]
                logits = self.model(**self._batch([texts[j] for j in idx],
                                                  [contexts[j] for j in idx] if contexts else None)).logits
                for j, p in zip(idx, logits.argmax(-1).tolist()):
                    preds[j] = p
        return [LABELS[p] for p in preds]

    def save(self, path: str | Path) -> None:
        self.model.save_pretrained(path)
        self.tokenizer.save_pretrained(path)
        follow_umask(path)
