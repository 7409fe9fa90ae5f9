"""torchrun plumbing: process group, device, DDP / FSDP2 wrapping, small collectives.

A plain `python train.py` run still gets a one-process group (NCCL on a GPU, gloo on CPU), so
the trainer has one code path (collectives over one process are no-ops in effect)."""
from __future__ import annotations

import datetime
import glob
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

import torch
import torch.distributed as dist

STRATEGIES = ("auto", "none", "ddp", "fsdp", "hsdp")


@dataclass
class Ctx:
    rank: int
    world: int
    local_rank: int
    device: torch.device

    @property
    def main(self) -> bool:
        return self.rank == 0


# the oldest Linux driver each CUDA major version runs on (minor-version compatibility), for the hint
MIN_DRIVER = {13: "580", 12: "525", 11: "450"}
PROC_DRIVER = "/proc/driver/nvidia/version"


def _smi(*args: str) -> list[str]:
    """nvidia-smi's output lines ([] without it, or when it fails or hangs)."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        r = subprocess.run([smi, *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in r.stdout.splitlines() if line.strip()] if r.returncode == 0 else []


def gpus_present() -> str:
    """What shows that NVIDIA GPUs are meant for this process, in a few words ('' when nothing does):
    a /dev/nvidiaN device node, CUDA_VISIBLE_DEVICES naming devices, or GPUs that nvidia-smi lists.
    CUDA_VISIBLE_DEVICES set empty (or -1) hides them on purpose: a CPU run."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return ""
    nodes = sorted(glob.glob("/dev/nvidia[0-9]*"))
    if nodes:
        return nodes[0]
    if visible:
        return f"CUDA_VISIBLE_DEVICES={visible}"
    listed = [line for line in _smi("-L") if line.startswith("GPU ")]
    return f"nvidia-smi lists {len(listed)} GPU(s)" if listed else ""


def driver_version() -> str:
    """The NVIDIA kernel driver's version ('unknown' when neither /proc nor nvidia-smi says)."""
    try:
        m = re.search(r"Kernel Module\s+(?:for \S+\s+)?([0-9][0-9.]*)",
                      open(PROC_DRIVER).read())
        if m:
            return m.group(1)
    except OSError:
        pass
    lines = _smi("--query-gpu=driver_version", "--format=csv,noheader")
    return lines[0] if lines else "unknown"


def cuda_problem() -> str:
    """'' when torch can use CUDA, or when no GPU is meant for this process (the CPU path); else one
    line naming the GPUs' evidence, the driver version and the CUDA version torch was built for.
    torch==2.14.0 from PyPI is a CUDA 13 build (13.0 or 13.2): on a driver older than 580, is_available() is False
    and a run would silently train on CPU (gloo) on a GPU node."""
    if torch.cuda.is_available():
        return ""
    where = gpus_present()
    if not where:
        return ""
    built = torch.version.cuda
    if built:
        need = MIN_DRIVER.get(int(built.split(".")[0]))
        what = f"built for CUDA {built}" + (f", which needs driver >= {need}" if need else "")
    else:
        what = "a CPU-only build"
    return (f"GPUs are present ({where}; NVIDIA driver {driver_version()}) but torch {torch.__version__} "
            f"({what}) cannot use them: install a torch build for this driver (or a newer driver), or set "
            "CUDA_VISIBLE_DEVICES= (empty) to run on CPU on purpose")


def init(timeout_min: int = 60) -> Ctx:
    """Join the torchrun group (nccl on GPU, gloo on CPU) or make a one-process group. Stops with one
    line, before any group exists, when GPUs are present but torch cannot use them (cuda_problem), or
    when LOCAL_RANK names a GPU torch does not see (more processes per node than visible GPUs)."""
    cuda = torch.cuda.is_available()
    problem = "" if cuda else cuda_problem()
    if problem:
        raise SystemExit(f"utils.dist: {problem}")
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if cuda and local_rank >= torch.cuda.device_count():
        raise SystemExit(f"utils.dist: LOCAL_RANK {local_rank} but torch sees {torch.cuda.device_count()} GPU(s) "
                         f"(CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '<unset>')}): start at "
                         "most that many processes per node (torchrun --nproc_per_node)")
    if cuda:  # before the group: NCCL binds each communicator to the current device
        torch.cuda.set_device(local_rank)
    if not dist.is_initialized():
        # device_id: the NCCL communicator is made now, on this rank's GPU, not lazily on whatever
        # device is current at the first collective. A plain one-process run on a GPU gets a
        # one-process NCCL group too: vLLM builds its groups over the default one, and gloo has no
        # reduce-scatter or all-gather of CUDA tensors, which FSDP2 (strategy=fsdp on one GPU) runs
        kw = {"device_id": torch.device("cuda", local_rank)} if cuda else {}
        backend = "nccl" if cuda else "gloo"
        if "RANK" in os.environ:
            dist.init_process_group(backend, timeout=datetime.timedelta(minutes=timeout_min), **kw)
        else:
            dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1, **kw)
    return Ctx(dist.get_rank(), dist.get_world_size(), local_rank,
               torch.device("cuda", local_rank) if cuda else torch.device("cpu"))


def use_device(ctx: Ctx) -> None:
    """Make ctx.device current in this thread (the CUDA current device is per thread)."""
    if ctx.device.type == "cuda":
        torch.cuda.set_device(ctx.device)


def close() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def pick_strategy(strategy: str, model: torch.nn.Module, ctx: Ctx, cfg=None) -> str:
    """auto: nothing on one process; DDP on CPU; on GPUs the cheapest strategy whose memory plan
    (utils/memplan.py, from cfg: the TrainConfig) fits this GPU in both phases of a step, with the
    model's parameters at their element sizes (fp32 unless loaded in bf16, frozen ones too)."""
    if strategy != "auto":
        return strategy
    if ctx.world == 1:
        return "none"
    if ctx.device.type != "cuda" or cfg is None:
        return "ddp"
    from utils import memplan

    gpu_gb = torch.cuda.get_device_properties(ctx.device).total_memory / memplan.GB
    return memplan.pick_strategy(cfg, ctx.world, gpu_gb, memplan.shape_from_config(unwrap_hf(model).config.to_dict()),
                                 int(os.environ.get("LOCAL_WORLD_SIZE", ctx.world)), param_bytes=param_bytes(model),
                                 trainable=sum(p.numel() for p in model.parameters() if p.requires_grad))


def param_bytes(model: torch.nn.Module) -> int:
    """The parameters' bytes, each tensor at its own element size."""
    return sum(p.numel() * p.element_size() for p in model.parameters())


def tp_group(ctx: Ctx, tp: int) -> range:
    """The ranks that serve one tensor-parallel vLLM engine with this one: `tp` consecutive ranks
    (vLLM under external_launcher lays out its TP groups so: ranks [k * tp, (k + 1) * tp), the
    data-parallel engines outside them). tp = 1: this rank alone."""
    first = ctx.rank // tp * tp
    return range(first, first + tp)


def device_mesh(strategy: str, ctx: Ctx, shard_size: int = 0):
    """The FSDP2 mesh: fsdp shards over all ranks; hsdp replicates across groups of `shard_size`
    ranks (default: the ranks of one node, LOCAL_WORLD_SIZE) and shards within each, so the
    per-micro-batch reduce-scatter stays on the node's fast links and only one all-reduce per
    optimizer step crosses nodes. None for the other strategies."""
    from torch.distributed.device_mesh import init_device_mesh

    if strategy == "fsdp":
        return init_device_mesh(ctx.device.type, (ctx.world,))
    if strategy == "hsdp":
        return init_device_mesh(ctx.device.type, hsdp_shape(ctx, shard_size), mesh_dim_names=("replicate", "shard"))
    return None


def hsdp_shape(ctx: Ctx, shard_size: int = 0) -> tuple[int, int]:
    """(replicas, shard group size) of the hsdp mesh; ValueError when the ranks do not split."""
    shard = shard_size or int(os.environ.get("LOCAL_WORLD_SIZE", ctx.world))
    if shard < 1 or ctx.world % shard:
        raise ValueError(f"hsdp: {ctx.world} ranks do not split into shard groups of {shard}")
    return ctx.world // shard, shard


class LogprobModel(torch.nn.Module):
    """A causal LM whose forward returns the per-token log-probs and entropy of given response
    tokens (utils.losses.token_logprobs_entropy: chunked along T, never (B, T, V) logits).

    This, not the HF model, is what DDP / FSDP2 wrap: under FSDP2 the lm_head weight is gathered
    for, and its gradient reduce-scattered after, the root module's forward, so the chunked head
    must run inside that forward rather than on the output of a plain HF forward."""

    def __init__(self, lm: torch.nn.Module, chunk_tokens: int = 512, autocast_dtype: torch.dtype | None = None):
        super().__init__()
        self.lm = lm  # an HF causal LM, or a peft model around one
        self.chunk_tokens = chunk_tokens
        self.autocast_dtype = autocast_dtype
        hf = self.hf
        if getattr(hf.config, "final_logit_softcapping", None) or getattr(hf.config, "logit_scale", None):
            raise ValueError(f"{type(hf).__name__} transforms its logits beyond the lm_head; not supported")
        if not isinstance(hf.get_output_embeddings(), torch.nn.Linear):
            raise ValueError("the lm_head must be a plain Linear layer (LoRA on lm_head is not supported)")

    @property
    def hf(self) -> torch.nn.Module:
        return self.lm.get_base_model() if hasattr(self.lm, "get_base_model") else self.lm

    def forward(self, input_ids, attention_mask, position_ids, targets, temperature: float = 1.0):
        """Rows hold left-padded prompts then right-padded responses, so the response tokens
        `targets` (B, T) are the last T columns, predicted by the hidden states one column earlier."""
        from contextlib import nullcontext

        from utils.losses import token_logprobs_entropy

        T = targets.shape[1]
        autocast = (torch.autocast(input_ids.device.type, dtype=self.autocast_dtype) if self.autocast_dtype
                    else nullcontext())
        with autocast:
            hidden = self.hf.get_decoder()(input_ids=input_ids, attention_mask=attention_mask,
                                           position_ids=position_ids, use_cache=False).last_hidden_state
            head = self.hf.get_output_embeddings()
            return token_logprobs_entropy(hidden[:, -T - 1:-1], head.weight, targets, temperature, self.chunk_tokens,
                                          bias=head.bias)


def wrap(model: torch.nn.Module, strategy: str, ctx: Ctx, *, mesh=None, bf16: bool = False,
         chunk_tokens: int = 512, trainable: bool = True) -> torch.nn.Module:
    """A LogprobModel around `model`, on ctx.device: as is, under DDP, or sharded by FSDP2
    (`mesh` from device_mesh: fsdp or hsdp) with one shard unit per decoder layer (the model's
    `_no_split_modules`). bf16: bf16 compute (autocast, on GPU or CPU; FSDP2 gathers bf16 and
    reduces in fp32). trainable=False (the frozen reference): no DDP, and FSDP2 reshards the root
    after its forward too, as no backward will."""
    autocast = torch.bfloat16 if bf16 else None
    scorer = LogprobModel(model, chunk_tokens, autocast)
    if strategy == "none" or (strategy == "ddp" and not trainable):
        return scorer.to(ctx.device)
    if strategy == "ddp":
        from torch.nn.parallel import DistributedDataParallel as DDP

        return DDP(scorer.to(ctx.device), device_ids=[ctx.local_rank] if ctx.device.type == "cuda" else None)
    if strategy in ("fsdp", "hsdp"):
        # fully_shard moves each unit to the mesh's device as it shards it: the full model never
        # sits on one GPU (a 32B model in fp32 would not fit)
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

        kw = {"mesh": mesh}
        if autocast:
            kw["mp_policy"] = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        layer_names = set(getattr(scorer.hf, "_no_split_modules", None) or [])
        for m in scorer.modules():
            if type(m).__name__ in layer_names:
                fully_shard(m, **kw)
        fully_shard(scorer, **kw, reshard_after_forward=None if trainable else True)
        return scorer
    raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")


def grad_sync(model: torch.nn.Module, last: bool):
    """Gradient accumulation over micro-batches. DDP: all-reduce only at the last (no_sync; DDP's
    gradients are full-size anyway). FSDP2: reduce-scatter at every micro-batch and accumulate the
    gradient shards. Skipping it (set_requires_gradient_sync(False)) would keep each layer's
    unsharded fp32 gradient until the last micro-batch: the whole model's gradients on every GPU
    (~30 GB at 7B), which is what sharding is for. One reduce-scatter per micro-batch costs what a
    backward's all-gathers cost. HSDP: the cross-replica all-reduce still waits for the last."""
    from contextlib import nullcontext

    if hasattr(model, "no_sync"):  # DDP
        return nullcontext() if last else model.no_sync()
    if hasattr(model, "set_requires_all_reduce"):  # FSDP2 (a no-op without a replicate dimension)
        model.set_requires_all_reduce(last)
    return nullcontext()


def unwrap(model: torch.nn.Module) -> torch.nn.Module:
    """The trained LM as it was built (HF or peft), inside DDP and the LogprobModel (FSDP2 shards
    in place, so its modules are the originals)."""
    if isinstance(model, torch.nn.parallel.DistributedDataParallel):
        model = model.module
    return model.lm if isinstance(model, LogprobModel) else model


def unwrap_hf(model: torch.nn.Module) -> torch.nn.Module:
    """The transformers model inside DDP, the LogprobModel and/or a peft wrapper."""
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


def probe() -> int:
    """`python -m utils.dist --probe` (scripts/gpu_check.sh): one line, `gpus=N torch=... cuda=...
    driver=...` with N what torch sees (CUDA_VISIBLE_DEVICES applied, unlike nvidia-smi), exit 0; or
    cuda_problem's line, exit 3."""
    problem = cuda_problem()
    if problem:
        print(problem, flush=True)
        return 3
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    print(f"gpus={n} torch={torch.__version__} cuda={torch.version.cuda or 'none'} "
          f"driver={driver_version() if n else 'none'}", flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:] != ["--probe"]:
        sys.exit("usage: python -m utils.dist --probe")
    sys.exit(probe())
