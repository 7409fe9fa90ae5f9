"""Checkpoints: an HF model directory (LoRA merged) + trainer_state.pt, written atomically.

    runs/<name>/checkpoints/step_00000040/
        model/              save_pretrained output + tokenizer: what evaluate.py, vLLM and the next
                            stage load (LoRA merged into the base weights)
        adapter/            LoRA runs: the adapter alone in peft format (PeftModel.from_pretrained(base,
                            ".../adapter"), or vLLM's LoRARequest)
        trainer_state.pt    step, optimizer, scheduler, sampler/controller state, every rank's RNG,
                            LoRA weights (when used), anything else the trainer adds
        config.yaml         the resolved config that wrote it (resume compares against it)
        data_fingerprint.json  size and sha256 of each data file it trained on (likewise); these two
                            come from train.py through save(files=...)
        SHA256SUMS          sha256 of every file above (`sha256sum -c SHA256SUMS` checks it by hand)

A checkpoint is written to a hidden temp directory and renamed into place, so a crash mid-write
leaves the previous checkpoint intact; only the last `keep_last` are kept. On resume the newest
checkpoint whose files match SHA256SUMS is used: a corrupt one (a flipped bit, a truncated file)
or an incomplete one (no SHA256SUMS or no trainer_state.pt) is renamed corrupt_step_* and the
previous one is taken, with one line saying so.
"""
from __future__ import annotations

import os
import random
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterator

import torch
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict, set_optimizer_state_dict

from utils import dist
from utils.records import follow_umask, io_cause, io_fault, sha256_file

PEFT_PREFIX = "base_model.model."
MANIFEST = "SHA256SUMS"
STATE = "trainer_state.pt"


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


def step_dirs(run_dir: str | os.PathLike) -> list[Path]:
    """Every checkpoints/step_* directory, oldest first, complete or not."""
    root = Path(run_dir) / "checkpoints"
    return sorted(p for p in root.glob("step_*") if p.is_dir()) if root.is_dir() else []


def checkpoints(run_dir: str | os.PathLike) -> list[Path]:
    return [p for p in step_dirs(run_dir) if (p / STATE).is_file()]


def latest(run_dir: str | os.PathLike) -> Path | None:
    found = checkpoints(run_dir)
    return found[-1] if found else None


def _files(ckpt: Path) -> list[Path]:
    return sorted(p for p in ckpt.rglob("*") if p.is_file() and p.name != MANIFEST)


def _hash_all(ckpt: Path, files: list[Path]) -> dict[str, str]:
    """sha256 per file, relative names; files hashed in parallel (hashlib releases the GIL), so a
    sharded 70 GB model takes seconds per shard, not minutes in a row."""
    with ThreadPoolExecutor(min(8, os.cpu_count() or 1)) as ex:
        return dict(zip((p.relative_to(ckpt).as_posix() for p in files), ex.map(sha256_file, files)))


def write_manifest(ckpt: Path) -> None:
    """SHA256SUMS in `sha256sum` format: "<hex>  <relative path>" per file."""
    sums = _hash_all(ckpt, _files(ckpt))
    (ckpt / MANIFEST).write_text("".join(f"{h}  {name}\n" for name, h in sorted(sums.items())))


def verify(ckpt: Path) -> str | None:
    """None if every file of the checkpoint matches its SHA256SUMS, else what is wrong (one phrase).
    A checkpoint without SHA256SUMS or trainer_state.pt is incomplete: nothing vouches for it (a
    manifest deleted by hand, a copy that stopped part-way), so it is never trusted."""
    ckpt = Path(ckpt)
    return f"{STATE} is missing" if not (ckpt / STATE).is_file() else verify_files(ckpt)


def verify_files(folder: Path) -> str | None:
    """None if the folder's SHA256SUMS exists and every file it lists matches, else what is wrong."""
    ckpt, manifest = Path(folder), Path(folder) / MANIFEST
    if not manifest.is_file():
        return f"{MANIFEST} is missing"
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
    """The newest checkpoint that verifies. Each corrupt or incomplete one on the way (every
    step_* directory counts, with or without its trainer state) is renamed corrupt_step_* (kept
    for inspection, never picked again) and reported with one line through `warn`."""
    for ckpt in reversed(step_dirs(run_dir)):
        problem = verify(ckpt)
        if problem is None:
            return ckpt
        aside = ckpt.parent / f"corrupt_{ckpt.name}"
        shutil.rmtree(aside, ignore_errors=True)
        os.replace(ckpt, aside)
        older = checkpoints(run_dir)
        what = "incomplete" if problem.endswith("is missing") else "corrupt"
        warn(f"checkpoint {ckpt} is {what} ({problem}); moved to {aside.name}, "
             + (f"resuming from {older[-1].name}" if older else "no intact checkpoint left: starting afresh"))
    return None


def save(run_dir: str | os.PathLike, step: int, model, optimizer, scheduler, tokenizer, *, state: dict,
         rank_state: dict, keep_last: int, ctx: dist.Ctx, files: dict[str, str] | None = None) -> Path:
    """Write checkpoint `step` (collective: every rank calls). `state` is rank 0's trainer state;
    `rank_state` is this rank's own (RNG, pending rollouts), saved as a list over ranks; `files`
    (name -> text) go in beside them (config.yaml: the config that wrote it, which a resume
    compares against). The model is saved in the dtype it trains in (fp32 master weights stay
    fp32: resume is exact). A write that fails (a full disk) removes the partial directory and
    raises OSError naming it: the previous checkpoints stay the newest intact ones."""
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
        try:
            _write(tmp, model, dtype, weights, tokenizer, lora, files or {},
                   {**state, "step": step, "optimizer": osd, "scheduler": scheduler.state_dict(),
                    "lora": lora, "ranks": rank_states, "world": ctx.world})
        except Exception as e:
            shutil.rmtree(tmp, ignore_errors=True)  # a partial checkpoint would only fill the disk further
            fault = io_fault(e)
            if fault is None:
                raise
            # torch.save and safetensors raise RuntimeError without a path: name the checkpoint
            raise OSError(fault.errno, io_cause(fault), str(final)) from e
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        prune(run_dir, keep_last)
    dist.barrier()
    return final


def _write(tmp: Path, model, dtype, weights: dict, tokenizer, lora: dict, files: dict[str, str],
           trainer_state: dict) -> None:
    tmp.mkdir(parents=True)
    hf = dist.unwrap_hf(model)
    hf.config.dtype = dtype  # config.json names the dtype the tensors are in
    hf.save_pretrained(tmp / "model", state_dict=weights)
    tokenizer.save_pretrained(tmp / "model")
    if lora:  # the adapter alone, in peft's format
        dist.unwrap(model).save_pretrained(tmp / "adapter", state_dict=lora)
    with open(tmp / STATE, "wb") as f:  # a file object: a full disk is an OSError (a path gives a bare RuntimeError)
        torch.save(trainer_state, f)
    for name, text in files.items():
        (tmp / name).write_text(text, encoding="utf-8")
    follow_umask(tmp)  # safetensors writes 0600: colleagues and a vLLM server under another user read these
    write_manifest(tmp)


def prune(run_dir: str | os.PathLike, keep_last: int) -> None:
    """Delete all but the newest keep_last step_* directories, a half-deleted one (a run killed
    while pruning) too. save() prunes after each checkpoint; the trainer again at the end, for a
    run resumed from its last checkpoint after a kill in that checkpoint's pruning."""
    for old in step_dirs(run_dir)[:-keep_last]:
        shutil.rmtree(old)


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
    osd = state["optimizer"] if ctx.main else {}
    if ctx.main and not any(str(k).startswith("lm.") for k in osd.get("state", {})):
        osd = _under_lm(osd)  # written before the trainer wrapped the model in dist.LogprobModel
    set_optimizer_state_dict(model, optimizer, optim_state_dict=osd,
                             options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True))
    for group in optimizer.param_groups:  # the round trip gives AdamW's betas back as a list
        if isinstance(group.get("betas"), list):
            group["betas"] = tuple(group["betas"])
    scheduler.load_state_dict(state["scheduler"])
    mine = state["ranks"][ctx.rank % len(state["ranks"])]
    set_rng_state(mine["rng"])
    return mine


def _under_lm(osd: dict) -> dict:
    """An optimizer state dict whose parameter names gain the LogprobModel's `lm.` prefix."""
    groups = [{**g, "params": [f"lm.{p}" for p in g["params"]]} for g in osd["param_groups"]]
    return {"state": {f"lm.{k}": v for k, v in osd["state"].items()}, "param_groups": groups}


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
