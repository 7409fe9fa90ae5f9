"""Record I/O: atomic writes, append-only caches after a crash, seeds, record checks."""
from __future__ import annotations

import json

import pytest

from utils.records import (append_jsonl, atomic_write_text, check_record, derive_seed, read_jsonl_tolerant,
                           write_jsonl)


def test_append_after_a_torn_line_keeps_every_row(tmp_path):
    # regression: the next append used to glue its first row onto the torn line, losing it,
    # and the append after that turned the torn line into a corrupt middle line
    path = tmp_path / "samples.jsonl"
    append_jsonl(path, [{"i": 0}])
    with open(path, "a") as f:
        f.write('{"i": 1, "respo')  # a crash mid-write
    assert read_jsonl_tolerant(path) == [{"i": 0}]
    append_jsonl(path, [{"i": 2}])
    append_jsonl(path, [{"i": 3}])
    assert read_jsonl_tolerant(path) == [{"i": 0}, {"i": 2}, {"i": 3}]


def test_atomic_write_leaves_no_temp_files(tmp_path):
    atomic_write_text(tmp_path / "a.txt", "x")
    write_jsonl(tmp_path / "b.jsonl", [{"k": "é"}])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.jsonl"]
    assert json.loads((tmp_path / "b.jsonl").read_text(encoding="utf-8")) == {"k": "é"}


def test_derive_seed_is_stable_and_distinct():
    assert derive_seed(0, "test", 1) == derive_seed(0, "test", 1)
    assert len({derive_seed(0, "s", i) for i in range(1000)}) == 1000
    assert 0 <= derive_seed("x") < 2 ** 63


def test_check_record_names_the_record():
    with pytest.raises(ValueError, match="r1.*meta"):
        check_record({"id": "r1", "env": "e", "difficulty": 0, "prompt": "p", "answer": None})
    with pytest.raises(ValueError, match="r2.*object"):
        check_record({"id": "r2", "env": "e", "difficulty": 0, "prompt": "p", "answer": None, "meta": []})
