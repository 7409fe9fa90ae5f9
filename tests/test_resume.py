"""train.py resume: checksummed checkpoints, fallback past a corrupt one, the same command resumes,
a changed config is refused naming the keys; outputs respect the umask."""
from __future__ import annotations

import os
import stat

import pytest
import torch

from utils import checkpoint
from utils.records import write_jsonl
from utils.tiny import build_tiny


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("resume")
    tiny = build_tiny(root / "tiny")
    write_jsonl(root / "sft.jsonl", [{"prompt": f"Say {i}.", "response": f"<answer>{i % 10}</answer>"}
                                     for i in range(24)])
    return root, tiny


def sft_args(root, tiny, name: str, *extra: str) -> list[str]:
    return [f"model={tiny}", f"out_dir={root}", f"name={name}", "stage=sft", f"sft.data=[{root}/sft.jsonl]",
            "sft.batch_size=8", "sft.micro_batch_size=8", "sft.epochs=1", "optim.lr=1e-3", "save_every=1",
            "keep_last=3", "cpu_threads=1", *extra]


def train(argv):
    import train as t

    t.main(argv)


def weights(d):
    from safetensors.torch import load_file

    return load_file(f"{d}/model.safetensors")


@pytest.fixture(scope="module")
def clean(setup):
    """The final weights of the uninterrupted SFT run every resumed one must reproduce."""
    root, tiny = setup
    train(sft_args(root, tiny, "clean"))
    return weights(root / "clean" / "final")


def flip_bytes(path, n: int) -> None:
    """n bytes in the middle of a file inverted: a safetensors header still parses, only a checksum sees it."""
    data = bytearray(path.read_bytes())
    mid = len(data) // 2
    data[mid:mid + n] = bytes(b ^ 0xFF for b in data[mid:mid + n])
    path.write_bytes(bytes(data))


def test_checkpoints_carry_checksums_and_a_corrupt_one_is_skipped(setup, clean, capsys):
    root, tiny = setup
    train(sft_args(root, tiny, "ref"))
    ckpts = checkpoint.checkpoints(root / "ref")
    assert [c.name for c in ckpts] == ["step_00000001", "step_00000002", "step_00000003"]
    last = ckpts[-1]
    assert checkpoint.verify(last) is None
    listed = (last / checkpoint.MANIFEST).read_text()
    assert "model/model.safetensors" in listed and "trainer_state.pt" in listed and "config.yaml" in listed
    # 64 flipped bytes in the middle of the weights: the header still parses, only the checksum sees it
    blob = last / "model" / "model.safetensors"
    flip_bytes(blob, 64)
    assert "model/model.safetensors does not match" in checkpoint.verify(last)
    capsys.readouterr()
    train(sft_args(root, tiny, "ref"))  # the same command: falls back to step 2 and redoes step 3
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("train.py")]
    assert len(err) == 1 and "step_00000003 is corrupt" in err[0] and "resuming from step_00000002" in err[0], err
    assert (root / "ref" / "checkpoints" / "corrupt_step_00000003").is_dir()
    assert checkpoint.verify(checkpoint.latest(root / "ref")) is None
    a = weights(root / "ref" / "final")
    assert all(torch.equal(a[k], clean[k]) for k in a)


@pytest.mark.parametrize("missing", ["SHA256SUMS", "trainer_state.pt"])
def test_a_checkpoint_missing_its_checksums_or_state_is_incomplete_and_skipped(setup, clean, capsys, missing):
    # issue 21.4: with SHA256SUMS deleted and 8 bytes of the weights flipped, the newest checkpoint
    # was trusted (exit 0, final weights off by up to 81). Without its checksums (or its trainer
    # state) a checkpoint is incomplete: set aside with one line, as a corrupt one is
    root, tiny = setup
    name = f"no_{missing.split('.')[0]}"
    train(sft_args(root, tiny, name))
    last = checkpoint.latest(root / name)
    (last / missing).unlink()
    flip_bytes(last / "model" / "model.safetensors", 8)
    assert missing in checkpoint.verify(last)
    capsys.readouterr()
    train(sft_args(root, tiny, name))
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("train.py")]
    assert len(err) == 1 and f"{last.name} is incomplete ({missing} is missing)" in err[0], err
    assert "resuming from step_00000002" in err[0], err
    assert (root / name / "checkpoints" / f"corrupt_{last.name}").is_dir()
    assert checkpoint.verify(checkpoint.latest(root / name)) is None
    a = weights(root / name / "final")
    assert all(torch.equal(a[k], clean[k]) for k in a)


def test_same_command_resumes_and_a_changed_config_is_refused(setup, capsys):
    root, tiny = setup
    args = sft_args(root, tiny, "again")
    train(args)
    capsys.readouterr()
    train(args)  # nothing left to do: resumes at the last step, no error
    assert "resuming" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        train(args + ["optim.lr=2e-3", "sft.epochs=2"])
    assert e.value.code == 2
    line, = [x for x in capsys.readouterr().err.splitlines() if x.startswith("train.py")]
    assert "optim.lr: 0.001 -> 0.002" in line and "sft.epochs: 1 -> 2" in line
    assert "config error: optim.lr (command line)" in line and "resume=true" in line
    train(args + ["sft.epochs=2", "resume=true", "keep_last=1", "cpu_threads=0"])  # forced: continues
    assert len(checkpoint.checkpoints(root / "again")) == 1
    assert checkpoint.latest(root / "again").name == "step_00000006"


def test_outputs_follow_the_umask(tmp_path):
    from utils.records import atomic_write_text

    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o640
    atomic_write_text(tmp_path / "b.txt", "x")
    assert stat.S_IMODE((tmp_path / "b.txt").stat().st_mode) == 0o666 & ~old


def test_a_whole_run_follows_the_umask(setup):
    # every file and folder a training run writes (checkpoints, manifests, plots, metrics), not only
    # atomic_write_text: a colleague in the group (or a vLLM server under another user) reads them
    root, tiny = setup
    old = os.umask(0o002)
    try:
        train(sft_args(root, tiny, "shared"))
    finally:
        os.umask(old)
    paths = [p for p in (root / "shared").rglob("*") if not p.is_symlink()]
    assert any(p.name == "model.safetensors" for p in paths) and any(p.name == "SHA256SUMS" for p in paths)
    wrong = [(str(p.relative_to(root)), oct(stat.S_IMODE(p.stat().st_mode))) for p in paths
             if stat.S_IMODE(p.stat().st_mode) != (0o775 if p.is_dir() else 0o664)]
    assert not wrong, wrong
