"""Checkpoints: an HF model directory (LoRA merged) + trainer_state.pt, written atomically.

    runs/<name>/checkpoints/step_00000040/
        model/              save_pretrained output + tokenizer: what evaluate.py, vLLM and the next
                            stage load (LoRA merged into the base weights)
        adapter/            LoRA runs: the adapter alone in peft format (PeftModel.from_pretrained(base,
                            ".../adapter"), or vLLM's LoRARequest)
        trainer_state.pt    step, optimizer, scheduler, sampler/controller state, every rank's RNG,
                            LoRA weights (when used), anything else the trainer adds
        config.yaml         the resolved config that wrote it (resume compares against it)
        SHA256SUMS          sha256 of every file above (`sha256sum -c SHA256SUMS` checks it by hand)

A checkpoint is written to a hidden temp directory and renamed into place, so a crash mid-write
leaves the previous checkpoint intact; only the last `keep_last` are kept. On resume the newest
checkpoint whose files match SHA256SUMS is used: a corrupt one (a flipped bit, a truncated file)
is renamed corrupt_step_* and the previous one is taken, with one line saying so.
"""
from __future__ import annotations

import hashlib
import os
import random
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import torch
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                     get_optimizer_state_dict, set_optimizer_state_dict)

from utils import dist

PEFT_PREFIX = "base_model.model."
MANIFEST = "SHA256SUMS"


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


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _files(ckpt: Path) -> list[Path]:
    return sorted(p for p in ckpt.rglob("*") if p.is_file() and p.name != MANIFEST)


def _hash_all(ckpt: Path, files: list[Path]) -> dict[str, str]:
    """sha256 per file, relative names; files hashed in parallel (hashlib releases the GIL), so a
    sharded 70 GB model takes seconds per shard, not minutes in a row."""
    with ThreadPoolExecutor(min(8, os.cpu_count() or 1)) as ex:
        return dict(zip((p.relative_to(ckpt).as_posix() for p in files), ex.map(_sha256, files)))


def write_manifest(ckpt: Path) -> None:
    """SHA256SUMS in `sha256sum` format: "<hex>  <relative path>" per file."""
    sums = _hash_all(ckpt, _files(ckpt))
    (ckpt / MANIFEST).write_text("".join(f"{h}  {name}\n" for name, h in sorted(sums.items())))


def verify(ckpt: Path) -> str | None:
    """None if every file of the checkpoint matches its SHA256SUMS, else what is wrong (one phrase).
    A checkpoint written before checksums existed has no manifest and is taken as it is."""
    ckpt = Path(ckpt)
    manifest = ckpt / MANIFEST
    if not manifest.is_file():
        return None
    want = {}
    for line in manifest.read_text(errors="replace").splitlines():
        h, sep, name = line.partition("  ")
        if not sep or len(h) != 64:
            return f"{manifest} is garbled"
        want[name] = h
    missing = [n for n in want if not (ckpt / n).is_file()]
    if missing:
        return f"{missing[0]} is missing"
    got = _hash_all(ckpt, [ckpt / n for n in want])
    bad = sorted(n for n in want if got[n] != want[n])
    return f"{bad[0]} does not match its checksum in {MANIFEST}" if bad else None


def latest_intact(run_dir: str | os.PathLike, warn: Callable[[str], None]) -> Path | None:
    """The newest checkpoint that verifies. Each corrupt one on the way is renamed corrupt_step_*
    (kept for inspection, never picked again) and reported with one line through `warn`."""
    for ckpt in reversed(checkpoints(run_dir)):
        problem = verify(ckpt)
        if problem is None:
            return ckpt
        aside = ckpt.parent / f"corrupt_{ckpt.name}"
        shutil.rmtree(aside, ignore_errors=True)
        os.replace(ckpt, aside)
        older = checkpoints(run_dir)
        warn(f"checkpoint {ckpt} is corrupt ({problem}); moved to {aside.name}, "
             + (f"resuming from {older[-1].name}" if older else "no intact checkpoint left: starting afresh"))
    return None


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
        if _lora_scalings(model):  # peft keeps only the adapter's weights of the full state dict
            dist.unwrap(model).save_pretrained(tmp / "adapter", state_dict=sd)
        torch.save({**state, "step": step, "optimizer": osd, "scheduler": scheduler.state_dict(),
                    "lora": trainable_weights(model, sd), "ranks": rank_states, "world": ctx.world},
                   tmp / "trainer_state.pt")
        if (Path(run_dir) / "config.yaml").is_file():  # what a resume compares its config against
            shutil.copyfile(Path(run_dir) / "config.yaml", tmp / "config.yaml")
        write_manifest(tmp)
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
    """runs/<name>/final: the last checkpoint's model directory, hard-linked (no second copy on disk);
    LoRA runs also get runs/<name>/final_adapter."""
    dest = Path(dest)
    if (ckpt / "adapter").is_dir():
        _link_tree(ckpt / "adapter", dest.parent / f"{dest.name}_adapter")
    return _link_tree(ckpt / "model", dest)


def _link_tree(src: Path, dest: Path) -> Path:
    tmp = dest.parent / f".tmp_{dest.name}"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp, copy_function=_link_or_copy)
    if dest.exists():
        shutil.rmtree(dest)
    os.replace(tmp, dest)
    return dest


def _link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
