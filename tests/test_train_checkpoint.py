"""utils/checkpoint.py: LoRA merged into HF weights gives the same model; atomic, pruned checkpoints."""
from __future__ import annotations

import torch

from utils import checkpoint, dist
from utils.tiny import build_tiny


def test_lora_merge_matches_the_adapted_model(tmp_path):
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    tiny = build_tiny(tmp_path / "tiny")
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(tiny),
                           LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "down_proj"]))
    with torch.no_grad():
        for n, p in model.named_parameters():
            if "lora_B" in n:
                p.normal_(0, 0.5)  # peft starts B at zero; make the adapter matter
    ctx = dist.init()
    sd = dict(checkpoint.iter_hf_weights(model, torch.float32))
    model.get_base_model().save_pretrained(tmp_path / "merged", state_dict=sd)
    merged = AutoModelForCausalLM.from_pretrained(tmp_path / "merged")
    ids = torch.tensor([[5, 17, 300, 42, 7]])
    with torch.no_grad():
        assert torch.allclose(model(ids).logits, merged(ids).logits, atol=1e-5)
        assert not torch.allclose(AutoModelForCausalLM.from_pretrained(tiny)(ids).logits, merged(ids).logits, atol=1e-3)
    assert ctx.world == 1
    dist.close()
