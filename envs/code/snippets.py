"""Seed snippets for problem synthesis, shown to the teacher as inspiration (code-RL paper, Sec. 3.2:
'two different classes of seed data: (1) we extract successful solutions to real coding problems
solved during an initial RL training run, and (2) random open source code snippets').

    source = SnippetSource("stdlib")                     # the running interpreter's standard library
    source = SnippetSource("path/to/dir")                # every *.py below a directory
    source = SnippetSource("hf:bigcode/starcoderdata", data_dir="python")   # the paper's corpus (streamed)
    source = SnippetSource("runs/seeds/seeds.jsonl")     # solutions (generate.py mode=seeds), each whole
    text, where = source.snippet(seed, min_lines=25, max_lines=50)

Code corpora (stdlib, a directory, a hub dataset) give a random window of 25-50 consecutive lines
('we randomly select 25-50 consecutive lines to be our seed snippet', said of starcoderdata); a
solutions file gives one whole solution per seed, since the paper applies the window to the
random-code corpus only and a contest solution is often shorter than 25 lines (its Fig. 2 seed
has 10). A snippet is a pure function of (source, seed): resuming a run sees the same snippets.
"""
from __future__ import annotations

import os
import random
import sys
import sysconfig
from functools import cached_property
from pathlib import Path

SKIP_DIRS = {"test", "tests", "idlelib", "site-packages", "dist-packages", "__pycache__", "lib2to3", "turtledemo"}


class SnippetSource:
    def __init__(self, corpus: str = "stdlib", field: str = "content", split: str = "train", data_dir: str = "",
                 rows: int = 20_000, fallback: str = ""):
        self.corpus, self.field, self.split, self.data_dir, self.rows = corpus, field, split, data_dir, rows
        self.fallback = fallback
        self.solutions = corpus.endswith(".jsonl")
        if not corpus.startswith("hf:") and corpus != "stdlib" and not Path(corpus).is_dir() and \
                not (self.solutions and Path(corpus).is_file()):
            raise ValueError(f"corpus {corpus!r}: not 'stdlib', 'hf:<dataset>', a directory or a .jsonl file")

    @cached_property
    def root(self) -> Path:
        return Path(sysconfig.get_paths()["stdlib"]) if self.corpus == "stdlib" else Path(self.corpus)

    @cached_property
    def files(self) -> list[Path]:
        files = []
        for parent, dirs, names in os.walk(self.root):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]  # pruned, not walked and filtered
            files += [Path(parent) / n for n in names if n.endswith(".py")]
        files.sort()
        if not files:
            raise ValueError(f"corpus {self.corpus!r}: no .py files found under {self.root}")
        return files

    def snippet(self, seed: int, min_lines: int = 25, max_lines: int = 50) -> tuple[str, dict]:
        """(text, provenance) of one snippet: a random window of a random document, not mostly blank;
        from a solutions file, one whole solution."""
        rng = random.Random(seed)
        if self.solutions:
            i = rng.randrange(len(self._solutions))
            row = self._solutions[i]
            return row["text"].rstrip("\n") + "\n", {"corpus": self.corpus, "document": i,
                                                      "source": row.get("source"), "lines": row["text"].count("\n") + 1}
        corpus = self.corpus if self._hf_rows is not None or not self.corpus.startswith("hf:") else "stdlib"
        for _ in range(100):
            name, lines = self._document(rng)
            if len(lines) < min_lines:  # a shorter document cannot give a window of min_lines lines
                continue
            n = min(len(lines), rng.randint(min_lines, max_lines))
            start = rng.randint(0, len(lines) - n)
            window = lines[start:start + n]
            if sum(bool(line.strip()) for line in window) >= n // 2:
                return "\n".join(window) + "\n", {"corpus": corpus, "document": name, "start_line": start + 1,
                                                   "lines": n}
        raise ValueError(f"corpus {self.corpus!r}: no usable snippet for seed {seed}")

    def _document(self, rng: random.Random) -> tuple[str, list[str]]:
        if self.corpus.startswith("hf:") and self._hf_rows is not None:
            i = rng.randrange(len(self._hf_rows))
            return f"{self.corpus}#{i}", self._hf_rows[i].splitlines()
        path = rng.choice(self.files)
        return str(path.relative_to(self.root)), path.read_text(encoding="utf-8", errors="replace").splitlines()

    @cached_property
    def _solutions(self) -> list[dict]:
        from utils.records import read_jsonl

        rows = [r for r in read_jsonl(self.corpus) if isinstance(r.get("text"), str) and r["text"].strip()]
        if not rows:
            raise ValueError(f"corpus {self.corpus!r}: no rows with a non-empty 'text'")
        return rows

    @cached_property
    def _hf_rows(self) -> list[str] | None:
        """`rows` documents streamed once from the hub (shards and a buffer shuffled with a fixed
        seed, so the pool is not one repository's files), or None after falling back to stdlib."""
        if not self.corpus.startswith("hf:"):
            return None
        try:
            from datasets import load_dataset

            ds = load_dataset(self.corpus[3:], data_dir=self.data_dir or None, split=self.split, streaming=True)
            rows = []
            for row in ds.shuffle(seed=0, buffer_size=min(10_000, self.rows)):
                text = row.get(self.field)
                if isinstance(text, str) and text.count("\n") >= 10:
                    rows.append(text)
                if len(rows) >= self.rows:
                    break
        except Exception as e:  # offline node, gated dataset, no such dataset or data_dir
            if self.fallback != "stdlib":
                raise ValueError(f"corpus {self.corpus!r}: cannot be loaded ({type(e).__name__}: {str(e)[:200]}); "
                                 f"log in / go online, or set synth.corpus_fallback=stdlib") from None
            print(f"synth: corpus {self.corpus} cannot be loaded ({type(e).__name__}); falling back to the standard "
                  f"library (each record's meta.synth.snippet.corpus says stdlib)", file=sys.stderr, flush=True)
            self.root = Path(sysconfig.get_paths()["stdlib"])
            return None
        if not rows:
            raise ValueError(f"corpus {self.corpus!r}: no rows with a text field {self.field!r}")
        return rows
