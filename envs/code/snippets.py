"""Seed snippets for problem synthesis: 25-50 consecutive lines of real code, shown to the teacher
as inspiration (code-RL paper, Sec. 3).

    source = SnippetSource("stdlib")                     # the running interpreter's standard library
    source = SnippetSource("path/to/dir")                # every *.py below a directory
    source = SnippetSource("hf:bigcode/starcoderdata", field="content")   # a HF dataset (streamed)
    text, where = source.snippet(seed, min_lines=25, max_lines=50)

A snippet is a pure function of (source, seed): resuming a run sees the same snippets.
"""
from __future__ import annotations

import os
import random
import sysconfig
from functools import cached_property
from pathlib import Path

SKIP_DIRS = {"test", "tests", "idlelib", "site-packages", "dist-packages", "__pycache__", "lib2to3", "turtledemo"}


class SnippetSource:
    def __init__(self, corpus: str = "stdlib", field: str = "content", split: str = "train"):
        self.corpus, self.field, self.split = corpus, field, split
        if not corpus.startswith("hf:") and corpus != "stdlib" and not Path(corpus).is_dir():
            raise ValueError(f"corpus {corpus!r}: not 'stdlib', 'hf:<dataset>' or a directory")

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
        """(text, provenance) of one snippet: a random window of a random document, not mostly blank."""
        rng = random.Random(seed)
        for _ in range(100):
            name, lines = self._document(rng)
            if len(lines) < min_lines:  # a shorter document cannot give a window of min_lines lines
                continue
            n = min(len(lines), rng.randint(min_lines, max_lines))
            start = rng.randint(0, len(lines) - n)
            window = lines[start:start + n]
            if sum(bool(line.strip()) for line in window) >= n // 2:
                return "\n".join(window) + "\n", {"corpus": self.corpus, "document": name, "start_line": start + 1,
                                                   "lines": n}
        raise ValueError(f"corpus {self.corpus!r}: no usable snippet for seed {seed}")

    def _document(self, rng: random.Random) -> tuple[str, list[str]]:
        if self.corpus.startswith("hf:"):
            i = rng.randrange(len(self._hf_rows))
            return f"{self.corpus}#{i}", self._hf_rows[i].splitlines()
        path = rng.choice(self.files)
        return str(path.relative_to(self.root)), path.read_text(encoding="utf-8", errors="replace").splitlines()

    HF_SAMPLE = 20_000  # rows streamed once from a HF dataset, so snippets stay reproducible and local

    @cached_property
    def _hf_rows(self) -> list[str]:
        from datasets import load_dataset

        rows = []
        for row in load_dataset(self.corpus[3:], split=self.split, streaming=True):
            text = row.get(self.field)
            if isinstance(text, str) and text.count("\n") >= 10:
                rows.append(text)
            if len(rows) >= self.HF_SAMPLE:
                break
        if not rows:
            raise ValueError(f"corpus {self.corpus!r}: no rows with a text field {self.field!r}")
        return rows
