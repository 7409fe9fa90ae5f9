"""optim.trainable: only the parameters whose name matches are trained (the demo's RL stage trains
the RMSNorm gains of the tiny model this way); everything else stays bit for bit."""
from __future__ import annotations

import pytest
import torch

from utils.config import ConfigError, load_or_raise

RL = ["stage=rl", "data.sources=[{env: sorting}]", "rl.batch_size=16", "rl.group_size=8", "rl.minibatches=1",
      "rl.micro_batch_size=16", "rl.max_tokens=8", "optim.lr=0.05", "cpu_threads=1"]
SFT = ["stage=sft", "sft.batch_size=4", "sft.micro_batch_size=4", "sft.epochs=1", "optim.lr=0.05", "cpu_threads=1"]


def weights(model_dir) -> dict:
    from safetensors.torch import load_file

    return load_file(f"{model_dir}/model.safetensors")


def test_only_matching_parameters_change_and_resume_restores_them(tiny, tmp_path, one_thread):
    import train

    from utils.records import write_jsonl

    write_jsonl(tmp_path / "sft.jsonl", [{"prompt": f"Sort {i} 3", "response": f"<answer>3 {i}</answer>"}
                                         for i in range(4, 20)])
    args = SFT + [f"model={tiny}", f"out_dir={tmp_path}", f"sft.data=[{tmp_path}/sft.jsonl]",
                  "optim.trainable=[norm]", "save_every=1"]
    train.main(args + ["name=full", "sft.max_steps=3"])
    train.main(args + ["name=cut", "sft.max_steps=2"])
    train.main(args + ["name=cut", "sft.max_steps=3", "resume=true"])  # the optimizer state of the norms only
    before, full, cut = weights(tiny), weights(tmp_path / "full/final"), weights(tmp_path / "cut/final")
    changed = {k for k in before if not torch.equal(before[k], full[k])}
    assert changed and all("norm" in k for k in changed), sorted(changed)
    assert {k for k in before if "norm" in k} == changed  # every gain got a gradient
    assert all(torch.equal(full[k], cut[k]) for k in full), "resumed weights differ"


@pytest.mark.parametrize("argv", [["optim.trainable=[norm(]"], ["optim.trainable=[norm]", "lora.enabled=true"]])
def test_bad_trainable_is_a_config_error(tiny, argv):
    from train import TrainConfig

    with pytest.raises(ConfigError) as e:
        load_or_raise(TrainConfig, [f"model={tiny}", "data.sources=[{env: sorting}]"] + argv)
    assert e.value.key == "optim.trainable"


def test_trainable_matching_nothing_stops_with_one_line(tiny, tmp_path, capsys, one_thread):
    import train

    with pytest.raises(SystemExit) as e:
        train.main(RL + [f"model={tiny}", f"out_dir={tmp_path}", "name=x", "rl.steps=1", "optim.trainable=[nothing]"])
    err = capsys.readouterr().err.strip()  # after the model's loading bar
    assert e.value.code == 2 and "Traceback" not in err, err
    assert err.splitlines()[-1].startswith("train.py: config error: optim.trainable (command line): no parameter"), err
