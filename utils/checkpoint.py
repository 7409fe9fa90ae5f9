"""Checkpoints: an HF model directory (LoRA merged) + trainer_state.pt, written atomically.

    runs/<name>/checkpoints/step_00000040/
        model/              save_pretrained output + tokenizer: what evaluate.py, vLLM and the next
                            stage load (LoRA merged into the base weights)
        trainer_state.pt    step, optimizer, scheduler, sampler/controller state, every rank's RNG,
                            LoRA weights (when used), anything else the trainer adds

A checkpoint is written to a hidden temp directory and renamed into place, so a crash mid-write
leaves the previous checkpoint intact; only the last `keep_last` are kept.
"""
from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import torch
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                     get_optimizer_state_dict, set_optimizer_state_dict)

from utils import dist

PEFT_PREFIX = "base_model.model."


def _lora_scalings(model: torch.nn.Module) -> dict[str, float]:
    """module name -> LoRA scaling (alpha / r), for the modules peft wrapped."""
    out = {}
    for name, m in dist.unwrap(model).named_modules():
        scaling = getattr(m, "scaling", None)
        if isinstance(scaling, dict) and "default" in scaling and hasattr(m, "base_layer"):
            out[name] = float(scaling["default"])
    return out


def full_state_dict(model: torch.nn.Module, *, cpu: bool = True) -> dict[str, torch.Tensor]:
    """Every parameter, unsharded, named without DDP prefixes. Collective: call on every rank.
    cpu=True gathers to rank 0 only (others get {}); cpu=False gives every rank the full tensors."""
    return get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=cpu))


def hf_weights(model: torch.nn.Module, sd: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A full state dict renamed to the HF checkpoint's names, LoRA merged (W + scaling * B @ A)."""
    scalings = _lora_scalings(model)
    if not scalings:
        return dict(sd)
    out = {}
    for key, value in sd.items():
        if ".lora_" in key:
            continue
        if key.endswith(".base_layer.weight"):
            mod = key[: -len(".base_layer.weight")]
            a, b = sd[f"{mod}.lora_A.default.weight"], sd[f"{mod}.lora_B.default.weight"]
            value = value + scalings[mod] * (b.float() @ a.float()).to(value.dtype)
        out[key.removeprefix(PEFT_PREFIX).replace(".base_layer.", ".")] = value
    return out


def trainable_weights(model: torch.nn.Module, sd: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The LoRA weights of a full state dict (what a LoRA run must restore beyond the base model)."""
    return {k: v for k, v in sd.items() if ".lora_" in k}


def rng_state() -> dict:
    state = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state()
    return state


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state(state["cuda"])


def checkpoints(run_dir: str | os.PathLike) -> list[Path]:
    root = Path(run_dir) / "checkpoints"
    return sorted(p for p in root.glob("step_*") if (p / "trainer_state.pt").is_file()) if root.is_dir() else []


def latest(run_dir: str | os.PathLike) -> Path | None:
    found = checkpoints(run_dir)
    return found[-1] if found else None


def save(run_dir: str | os.PathLike, step: int, model, optimizer, scheduler, tokenizer, *, state: dict,
         rank_state: dict, keep_last: int, ctx: dist.Ctx) -> Path:
    """Write checkpoint `step` (collective: every rank calls). `state` is rank 0's trainer state;
    `rank_state` is this rank's own (RNG, pending rollouts), saved as a list over ranks."""
    sd = full_state_dict(model)
    osd = get_optimizer_state_dict(model, optimizer, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    rank_states = dist.all_gather_object({**rank_state, "rng": rng_state()})
    final = Path(run_dir) / "checkpoints" / f"step_{step:08d}"
    if ctx.main:
        tmp = final.parent / f".tmp_{final.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        dist.unwrap_hf(model).save_pretrained(tmp / "model", state_dict=hf_weights(model, sd))
        tokenizer.save_pretrained(tmp / "model")
        torch.save({**state, "step": step, "optimizer": osd, "scheduler": scheduler.state_dict(),
                    "lora": trainable_weights(model, sd), "ranks": rank_states, "world": ctx.world},
                   tmp / "trainer_state.pt")
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        for old in checkpoints(run_dir)[:-keep_last]:
            shutil.rmtree(old)
    dist.barrier()
    return final


def load_state(path: str | os.PathLike) -> dict:
    return torch.load(Path(path) / "trainer_state.pt", map_location="cpu", weights_only=False)


def restore(state: dict, model, optimizer, scheduler, ctx: dist.Ctx) -> dict:
    """Restore optimizer, scheduler and this rank's RNG from a loaded trainer state (collective);
    returns this rank's own saved state. Weights are restored when the model is built."""
    set_optimizer_state_dict(model, optimizer, optim_state_dict=state["optimizer"] if ctx.main else {},
                             options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True))
    scheduler.load_state_dict(state["scheduler"])
    mine = state["ranks"][ctx.rank % len(state["ranks"])]
    set_rng_state(mine["rng"])
    return mine


def link_final(ckpt: Path, dest: str | os.PathLike) -> Path:
    """runs/<name>/final: the last checkpoint's model directory, hard-linked (no second copy on disk)."""
    dest = Path(dest)
    tmp = dest.parent / f".tmp_{dest.name}"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(ckpt / "model", tmp, copy_function=_link_or_copy)
    if dest.exists():
        shutil.rmtree(dest)
    os.replace(tmp, dest)
    return dest


def _link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
