"""torchrun plumbing: process group, device, DDP / FSDP2 wrapping, small collectives.

A plain `python train.py` run still gets a one-process gloo group, so the trainer has one code
path (collectives over one process are no-ops in effect)."""
from __future__ import annotations

import datetime
import os
from dataclasses import dataclass

import torch
import torch.distributed as dist

STRATEGIES = ("auto", "none", "ddp", "fsdp")


@dataclass
class Ctx:
    rank: int
    world: int
    local_rank: int
    device: torch.device

    @property
    def main(self) -> bool:
        return self.rank == 0


def init(timeout_min: int = 60) -> Ctx:
    """Join the torchrun group (nccl on GPU, gloo on CPU) or make a one-process group."""
    cuda = torch.cuda.is_available()
    if not dist.is_initialized():
        if "RANK" in os.environ:
            dist.init_process_group("nccl" if cuda else "gloo", timeout=datetime.timedelta(minutes=timeout_min))
        else:
            dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if cuda:
        torch.cuda.set_device(local_rank)
    return Ctx(dist.get_rank(), dist.get_world_size(), local_rank,
               torch.device("cuda", local_rank) if cuda else torch.device("cpu"))


def close() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def pick_strategy(strategy: str, model: torch.nn.Module, ctx: Ctx) -> str:
    """auto: nothing on one process; FSDP2 on GPUs when weights + grads + Adam states (16 bytes per
    trainable parameter, 2 per frozen one) would not fit in 70% of one GPU; DDP otherwise."""
    if strategy != "auto":
        return strategy
    if ctx.world == 1:
        return "none"
    if ctx.device.type == "cuda":
        need = sum(p.numel() * (16 if p.requires_grad else 2) for p in model.parameters())
        if need > 0.7 * torch.cuda.get_device_properties(ctx.device).total_memory:
            return "fsdp"
    return "ddp"


def wrap(model: torch.nn.Module, strategy: str, ctx: Ctx, bf16: bool = False) -> torch.nn.Module:
    """DDP, or FSDP2 with one shard unit per decoder layer (the model's `_no_split_modules`)."""
    if strategy == "none":
        return model
    if strategy == "ddp":
        from torch.nn.parallel import DistributedDataParallel as DDP

        return DDP(model, device_ids=[ctx.local_rank] if ctx.device.type == "cuda" else None)
    if strategy == "fsdp":
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32) if bf16 else None
        kw = {"mp_policy": mp} if mp else {}
        layer_names = set(getattr(unwrap_hf(model), "_no_split_modules", None) or [])
        for m in model.modules():
            if type(m).__name__ in layer_names:
                fully_shard(m, **kw)
        fully_shard(model, **kw)
        return model
    raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")


def unwrap(model: torch.nn.Module) -> torch.nn.Module:
    """The module inside DDP (FSDP2 shards in place, so it is the module itself)."""
    return model.module if isinstance(model, torch.nn.parallel.DistributedDataParallel) else model


def unwrap_hf(model: torch.nn.Module) -> torch.nn.Module:
    """The transformers model inside DDP and/or a peft wrapper."""
    model = unwrap(model)
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def all_reduce(t: torch.Tensor, op: str = "sum") -> torch.Tensor:
    """Reduce over ranks and return the result on t's device (NCCL only reduces GPU tensors)."""
    ops = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN}
    x = t.cuda() if dist.get_backend() == "nccl" and t.device.type != "cuda" else t
    dist.all_reduce(x, op=ops[op])
    return x.to(t.device)


def all_gather_object(obj) -> list:
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


def broadcast_object(obj, src: int = 0):
    box = [obj]
    dist.broadcast_object_list(box, src=src)
    return box[0]


def barrier() -> None:
    dist.barrier()
