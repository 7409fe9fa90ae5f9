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
from typing import Iterator

import torch
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict, set_optimizer_state_dict

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


def _full(p: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
    """A parameter's whole tensor, detached. FSDP2: all-gathered from the shards (a collective),
    cast before the gather (fp32 -> bf16 halves the traffic). Otherwise it may be the live tensor."""
    t = p.detach() if dtype is None else p.detach().to(dtype)
    return t.full_tensor() if hasattr(t, "full_tensor") else t


def iter_hf_weights(model: torch.nn.Module, dtype: torch.dtype) -> Iterator[tuple[str, torch.Tensor]]:
    """(HF checkpoint name, full tensor in `dtype`) for every weight of the trained model, one at a
    time: what vLLM's load_weights and save_pretrained take. LoRA is merged module by module
    (W + scaling * B @ A, in fp32). Peak memory: one full parameter (and its LoRA factors), never
    the whole model. Under FSDP2 each step all-gathers: every rank must run the generator to the
    end, and it yields the same names in the same order on every rank. A tensor may be the live
    parameter (no FSDP, no cast): copy it, do not keep or modify it."""
    scalings = _lora_scalings(model)
    params = dict(dist.unwrap(model).named_parameters())
    for name, p in params.items():
        if ".lora_" in name:
            continue
        mod = name[: -len(".base_layer.weight")] if name.endswith(".base_layer.weight") else None
        if mod in scalings:
            a = _full(params[f"{mod}.lora_A.default.weight"], torch.float32)
            b = _full(params[f"{mod}.lora_B.default.weight"], torch.float32)
            t = (_full(p, torch.float32) + scalings[mod] * (b @ a)).to(dtype)
        else:
            t = _full(p, dtype)
        yield name.removeprefix(PEFT_PREFIX).replace(".base_layer.", "."), t


def trainable_weights(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """The LoRA weights, full, on CPU (what a LoRA run restores beyond the base model). Collective."""
    return {n: _full(p).cpu() for n, p in dist.unwrap(model).named_parameters() if ".lora_" in n}


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
    `rank_state` is this rank's own (RNG, pending rollouts), saved as a list over ranks. The model
    is saved in the dtype it trains in (fp32 master weights stay fp32: resume is exact)."""
    dtype = next(dist.unwrap(model).parameters()).dtype
    weights = {}
    for name, t in iter_hf_weights(model, dtype):  # gathered one tensor at a time; rank 0 keeps them
        if ctx.main:
            weights[name] = t.to("cpu", copy=True)
    lora = trainable_weights(model)
    osd = get_optimizer_state_dict(model, optimizer, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    rank_states = dist.all_gather_object({**rank_state, "rng": rng_state()})
    final = Path(run_dir) / "checkpoints" / f"step_{step:08d}"
    if ctx.main:
        tmp = final.parent / f".tmp_{final.name}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        hf = dist.unwrap_hf(model)
        hf.config.dtype = dtype  # config.json names the dtype the tensors are in
        hf.save_pretrained(tmp / "model", state_dict=weights)
        tokenizer.save_pretrained(tmp / "model")
        torch.save({**state, "step": step, "optimizer": osd, "scheduler": scheduler.state_dict(),
                    "lora": lora, "ranks": rank_states, "world": ctx.world},
                   tmp / "trainer_state.pt")
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        for old in checkpoints(run_dir)[:-keep_last]:
            shutil.rmtree(old)
    dist.barrier()
    return final


def load_state(path: str | os.PathLike, main: bool) -> dict:
    """The trainer state, memory-mapped: nothing is read until used. Rank 0 keeps the optimizer
    state, which restore() reads from the mapped file as it broadcasts it; the other ranks drop it
    unread. So no rank holds a private copy of the whole state (~60 GB of fp32 Adam moments at 7B)."""
    state = torch.load(Path(path) / "trainer_state.pt", map_location="cpu", weights_only=False, mmap=True)
    if not main:
        state.pop("optimizer", None)
    return state


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
