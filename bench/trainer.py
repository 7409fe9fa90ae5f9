"""RL trainer throughput, side by side with TRL's GRPOTrainer, like for like, on CPU.

    python bench/trainer.py                          # the tiny local model (seconds a step: per-step overhead)
    python bench/trainer.py --model runs/smollm2 --batch 32 --max-tokens 64 --micro-batch 8 \\
        --steps 2 --rounds 2 --configs 1.0:1 1.0:4 --reference   # SmolLM2-135M (`make smollm2`): `make bench`

Both trainers run GSPO on the same model, prompts (sorting problems, difficulty 0, the model's chat
template), G, batch, response budget, sampling, reward function and threads; each run is a process
of its own (its CPU seconds and peak RSS are its own), ours and TRL alternating, `--rounds` times
per configuration. Per configuration: prompt + response tokens of the rollouts per CPU second of the
process (all its threads; the primary figure, since the machine is shared) and per wall second,
measured between the ends of consecutive RL steps (rollouts, rewards, training, logging; the
first step is warm-up). `--minibatches m` splits each rollout batch into m optimizer steps.

Settings, ours (train.py) | TRL 1.16 (GRPOConfig), set explicitly on both sides where a default differs:

| setting | train.py | TRL |
|---|---|---|
| ratio | rl.level=sequence (GSPO) | importance_sampling_level="sequence" |
| clip | rl.eps_low=3e-4, rl.eps_high=4e-4 | epsilon=3e-4, epsilon_high=4e-4, delta=None |
| loss aggregation | rl.agg=seq_mean_token_mean | loss_type="grpo" (per-sequence token mean, then mean) |
| advantages | rl.scale_rewards=none | scale_rewards="none" (default "group") |
| KL / reference | rl.kl_coef=0, no reference (novelty off) | beta=0.0 (no reference model) |
| passes per batch | 1 (minibatches m: m optimizer steps) | num_iterations=1, steps_per_generation=m x accumulation |
| old log-probs | m=1: none (ratio 1 at the step); m>1: one no-grad pass | the same rule (generate_every vs accumulation) |
| entropy | computed with the log-probs, coefficient 0 | computed in the loss (compute_entropy=True), unused |
| other loss options | entropy_adv_alpha=0 | mask_truncated_completions=False, top_entropy_quantile=1.0, no off-policy mask |
| sampling | temperature 1, top_p 1, no top-k, max_tokens N | temperature=1.0, top_p=1.0, top_k=0, min_p=None, repetition_penalty=1.0, max_completion_length=N |
| generation | our sampler (hf backend), all `batch` rows at once | transformers generate, generation_batch_size = batch |
| precision | dtype=float32 | bf16=False (default True), model loaded in float32 |
| gradient checkpointing | gradient_checkpointing=false (`--grad-ckpt`: true) | gradient_checkpointing=False (default True; `--grad-ckpt`: True, use_reentrant=False as ours) |
| optimizer | AdamW (torch), lr 1e-5, betas 0.9/0.999, eps 1e-8, weight decay 0 | optim="adamw_torch" (default fused), the same values |
| schedule, clipping | constant, max_grad_norm 1.0 | lr_scheduler_type="constant" (default linear), max_grad_norm=1.0 |
| micro-batch | rl.micro_batch_size | per_device_train_batch_size; gradient_accumulation_steps = batch / m / micro |
| logging | metrics.jsonl every step, a line per 30 s, curves.png per 60 s | logging_steps=1 (default 10), report_to=[], no tqdm, log_completions=False |
| checkpoints | save_every beyond the run (the final save after the last measured step) | save_strategy="no" |
| threads | cpu_threads=--threads | torch.set_num_threads(--threads), use_cpu=True |
| data order | the sampler's prompts | shuffle_dataset=False, dataloader_num_workers=0 |

The untrained tiny model never sorts, so the bench reward is synthetic: on an "informative"
prompt it is the parity of the response's word count (it varies within the group); on the
others it is 0 for every rollout (a group with nothing to learn, as when all rollouts fail).
Which prompts are informative is fixed by their order (exactly `--informative` of them), the same
on both sides. train.py skips zero-variance groups exactly (their gradient is zero); TRL computes
them: `--informative 1.0` is the like-for-like figure, 0.5 shows what skipping gives.

Also reported: our RL step's time split (rollout, reward, reference, old log-probs, training, weight
sync, the rest) in CPU seconds, from train.py's own timers (`time/*` in metrics.jsonl; the bench
runs them on the process's CPU clock); `--reference` adds one run of ours with the novelty bonus
(the frozen reference = the model) so the split has a reference pass; and each run's peak RSS
against utils/memplan.py's estimate for that configuration (CPU: fp32 activations, no CUDA reserve;
the plan counts tensors: weights, gradients, Adam, activations at the micro-batch, the log-prob
chunk, the reference; not the rollouts' KV cache nor the Python/torch runtime, which the growth
over the process before the model loaded leaves out).

Needs TRL (a bench-only extra): pip install -r requirements-extra.txt
Writes runs/bench/trainer/trainer.json and prints Markdown tables.

    python bench/trainer.py --gpu [--model Qwen/Qwen2.5-0.5B-Instruct]

GPU mode (needs vLLM): train.py's rollout throughput (vllm backend, weights synced after every
step) against standalone vLLM on the same prompts x G, and the training MFU train.py logs.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from envs.base import Env, Reward  # noqa: E402

# the parts of train.py's RL step timers (metrics.jsonl time/*), in step order
SPLIT = ("rollout", "reward", "reference", "old_logp", "train", "sync")


class BenchEnv(Env):
    """Sorting prompts with the synthetic reward described above. A prompt's place in the order
    the trainer asks for them decides whether it is informative: exactly `informative` of every
    run of prompts, the same ones on both sides."""

    name = "bench"
    reward_range = (0.0, 1.0)
    informative = 1.0  # set by the role
    made = 0  # prompts generated so far in this process

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        import math

        import envs

        k, BenchEnv.made = BenchEnv.made, BenchEnv.made + 1
        yes = math.floor((k + 1) * self.informative) > math.floor(k * self.informative)
        rec = envs.make("sorting").generate(seed=seed, difficulty=0)
        return {**rec, "env": "bench", "meta": {"informative": yes}}

    def score(self, record: dict, response: str) -> Reward:
        value = float(len(response.split()) % 2) if record["meta"]["informative"] else 0.0
        return Reward(value, value == 1.0, {})


def prompts(n: int) -> list[dict]:
    return [BenchEnv().generate(seed=s) for s in range(10_000, 10_000 + n)]


def rss() -> dict:
    """This process' resident bytes, their peak (VmHWM) and the file-backed part (library code)."""
    status = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return {k: int(status[k].split()[0]) * 1024 for k in ("VmRSS", "VmHWM", "RssFile")}


def clocks() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


class _CPUClock:
    """Stands in for train.py's `time` module: its step timers (time.time() differences) then read
    this process' CPU seconds; everything else is the real module."""

    def __getattr__(self, name):
        return getattr(time, name)

    @staticmethod
    def time() -> float:
        return time.process_time()


def role_ours(a, spec: dict) -> dict:
    """One train.py RL run; marks (CPU, wall) where each step's metrics are logged."""
    import envs
    import train

    envs.REGISTRY["bench"] = "__main__:BenchEnv"
    BenchEnv.informative = spec["informative"]
    marks: list[tuple[float, float]] = []
    log_call = train.Log.__call__

    def marked(self, step, metrics, line):
        marks.append(clocks())  # the end of the step: what follows (logging) is the next interval's
        return log_call(self, step, metrics, line)

    before: dict = {}
    build_model = train.build_model

    def measured_build(*args, **kw):  # the process before the policy is loaded (TRL: before from_pretrained)
        before.update(before or rss())
        return build_model(*args, **kw)

    train.Log.__call__, train.build_model = marked, measured_build
    train.time = _CPUClock()  # the step's time/* split in CPU seconds
    out, name = Path(spec["out"]), spec["name"]
    shutil.rmtree(out / name, ignore_errors=True)
    ref = [f"ref_model={a.model}", "novelty.enabled=true"] if spec.get("reference") else []
    train.main([f"model={a.model}", f"out_dir={out}", f"name={name}", "stage=rl", "data.sources=[{env: bench}]",
                "seed=0", f"rl.steps={a.steps + 1}", f"rl.batch_size={a.batch}", f"rl.group_size={a.group}",
                f"rl.minibatches={spec['minibatches']}", f"rl.micro_batch_size={a.micro_batch}",
                f"rl.max_tokens={a.max_tokens}", "rl.level=sequence", "rl.eps_low=0.0003", "rl.eps_high=0.0004",
                "rl.agg=seq_mean_token_mean", "rl.scale_rewards=none", "rl.kl_coef=0", "rl.temperature=1.0",
                "rl.top_p=1.0", "rl.engine.backend=hf", f"rl.engine.batch_size={a.batch}", "rl.log_samples=0",
                "dtype=float32", f"gradient_checkpointing={str(a.grad_ckpt).lower()}", "optim.lr=1e-5",
                "optim.schedule=constant", "optim.max_grad_norm=1.0", "optim.weight_decay=0",
                f"cpu_threads={a.threads}", "save_every=100000", *ref])
    after = rss()
    rows = [json.loads(line) for line in open(out / name / "metrics.jsonl")]
    for d in ("checkpoints", "final"):  # the final save (after the last measured step): a real model's weights
        shutil.rmtree(out / name / d, ignore_errors=True)
    return {"marks": marks, "tokens": [r["tokens"] for r in rows], "response_len": [r["response_len"] for r in rows],
            "split": [{k: r.get(f"time/{k}", 0.0) for k in SPLIT} for r in rows],
            "trained_frac": [r["trained_frac"] for r in rows], "rss_before": before, "rss_after": after}


def role_trl(a, spec: dict) -> dict:
    """One GRPOTrainer run; marks (CPU, wall) at the end of each RL step (`minibatches` optimizer steps)."""
    import logging

    import torch
    import transformers
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    import train

    transformers.logging.set_verbosity_error()
    logging.getLogger("trl").setLevel(logging.ERROR)
    torch.set_num_threads(a.threads)
    BenchEnv.informative = spec["informative"]
    mb = spec["minibatches"]
    tok = AutoTokenizer.from_pretrained(a.model)
    recs = prompts(a.batch // a.group * (a.steps + 1))
    ds = Dataset.from_list([{"prompt": [{"role": "user", "content": r["prompt"]}], "record": json.dumps(r)}
                            for r in recs])
    counted = {"tokens": [], "lens": []}
    env = BenchEnv()

    def reward(prompts, completions, completion_ids, record, **kw):
        texts = [c[-1]["content"] for c in completions]
        p_tok = [len(train.encode_prompt(tok, p[-1]["content"], "")) for p in prompts]
        c_tok = [len(ids) for ids in completion_ids]
        counted["tokens"].append(sum(p_tok) + sum(c_tok))
        counted["lens"].append(statistics.fmean(c_tok))
        return [env.score(json.loads(r), t).value for r, t in zip(record, texts)]

    marks: list[tuple[float, float]] = []

    class Clock(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step % mb == 0:  # an RL step = minibatches optimizer steps
                marks.append(clocks())

    # one generation of `batch` rollouts feeds `minibatches` optimizer steps of micro_batch-row passes
    accum = a.batch // mb // a.micro_batch
    cfg = GRPOConfig(output_dir=str(Path(spec["out"]) / "trl"), per_device_train_batch_size=a.micro_batch,
                     gradient_accumulation_steps=accum, steps_per_generation=accum * mb, num_generations=a.group,
                     max_completion_length=a.max_tokens, importance_sampling_level="sequence", loss_type="grpo",
                     beta=0.0, num_iterations=1, epsilon=3e-4, epsilon_high=4e-4, scale_rewards="none",
                     mask_truncated_completions=False, top_entropy_quantile=1.0,
                     temperature=1.0, top_p=1.0, top_k=0, min_p=None, repetition_penalty=1.0,
                     gradient_checkpointing=a.grad_ckpt,
                     gradient_checkpointing_kwargs={"use_reentrant": False} if a.grad_ckpt else None,
                     bf16=False, optim="adamw_torch", learning_rate=1e-5, adam_beta1=0.9, adam_beta2=0.999,
                     adam_epsilon=1e-8, weight_decay=0.0, lr_scheduler_type="constant", max_grad_norm=1.0,
                     max_steps=(a.steps + 1) * mb, logging_steps=1, log_completions=False, report_to=[],
                     use_cpu=True, save_strategy="no", seed=0, disable_tqdm=True, dataloader_num_workers=0,
                     shuffle_dataset=False)
    before = rss()
    trainer = GRPOTrainer(model=AutoModelForCausalLM.from_pretrained(a.model, dtype=torch.float32),
                          reward_funcs=reward, args=cfg, train_dataset=ds, processing_class=tok, callbacks=[Clock()])
    gen_cpu: list[float] = []
    generate = trainer._generate_single_turn

    def timed(*args, **kw):
        c = time.process_time()
        try:
            return generate(*args, **kw)
        finally:
            gen_cpu.append(time.process_time() - c)

    trainer._generate_single_turn = timed
    trainer.train()
    after = rss()
    return {"marks": marks, "tokens": counted["tokens"], "response_len": counted["lens"], "generate": gen_cpu,
            "rss_before": before, "rss_after": after}


def measured(r: dict) -> dict:
    """Rates over the steps after the warm-up: the intervals between consecutive step ends."""
    m, toks = r["marks"], r["tokens"][1:len(r["marks"])]
    cpu, wall = m[-1][0] - m[0][0], m[-1][1] - m[0][1]
    steps = len(m) - 1
    out = {"steps": steps, "tokens": sum(toks), "cpu": cpu, "wall": wall, "cpu_per_step": cpu / steps,
           "wall_per_step": wall / steps, "tokens_per_cpu_s": sum(toks) / cpu, "tokens_per_wall_s": sum(toks) / wall,
           "response_len": statistics.fmean(r["response_len"][1:len(m)]),
           "peak_rss": r["rss_after"]["VmHWM"],
           # growth over the process before the model loaded, less library pages touched meanwhile
           "rss_growth": (r["rss_after"]["VmHWM"] - r["rss_before"]["VmRSS"]
                          - max(0, r["rss_after"]["RssFile"] - r["rss_before"]["RssFile"]))}
    if "split" in r:
        split = r["split"][1:len(m)]
        out["split"] = {k: statistics.fmean(s[k] for s in split) for k in SPLIT}
        out["split"]["other"] = out["cpu_per_step"] - sum(out["split"].values())
        out["trained_frac"] = statistics.fmean(r["trained_frac"][1:len(m)])
    if "generate" in r:  # TRL: one generation per RL step
        out["generate"] = statistics.fmean(r["generate"][1:len(m)])
    return out


def averaged(runs: list[dict]) -> dict:
    """One run's figures, averaged over the rounds (the split, generation, memory: means)."""
    out = dict(runs[0])
    for k in ("cpu_per_step", "generate", "peak_rss", "rss_growth"):
        if k in out:
            out[k] = statistics.fmean(r[k] for r in runs)
    if "split" in out:
        out["split"] = {k: statistics.fmean(r["split"][k] for r in runs) for k in out["split"]}
    return out


def plan_bytes(a, seq_len: int, reference: bool) -> float:
    """utils/memplan.py's estimate for this run on CPU (fp32 weights and activations, no CUDA reserve)."""
    from utils import memplan

    shape, _ = memplan.shape_of(a.model)
    s = memplan.Setup(shape=shape, gpus=1, gpu_mem_gb=0, strategy="none", shard=1, master_bytes=4, compute_bytes=4,
                      trainable=shape.params(), micro_batch=a.micro_batch, seq_len=seq_len, checkpointing=a.grad_ckpt,
                      chunk_tokens=512, reference=reference, cuda=False)
    return memplan.total_bytes(s)


def run_role(a, role: str, spec: dict) -> dict:
    """A role in its own process: its CPU seconds and peak RSS are its own."""
    record = Path(spec["out"]) / f"{spec['name']}.json"
    argv = [sys.executable, __file__, "--role", role, "--spec", json.dumps(spec), "--record", str(record),
            "--model", a.model, "--steps", str(a.steps), "--batch", str(a.batch), "--group", str(a.group),
            "--max-tokens", str(a.max_tokens), "--micro-batch", str(a.micro_batch), "--threads", str(a.threads)]
    argv += ["--grad-ckpt"] if a.grad_ckpt else []
    print(f"bench/trainer.py: {spec['name']} ...", file=sys.stderr, flush=True)
    p = subprocess.run(argv, cwd=ROOT, stdout=sys.stderr, env={**os.environ, "OMP_NUM_THREADS": str(a.threads)})
    if p.returncode != 0:
        sys.exit(f"bench/trainer.py: the {spec['name']} run failed (exit {p.returncode})")
    return measured(json.loads(record.read_text()))


def describe(model: str, tiny: bool) -> str:
    if tiny:
        return "the tiny model (utils/tiny.py)"
    from utils import memplan

    shape, _ = memplan.shape_of(model)
    return f"{model} ({shape.params() / 1e6:.0f}M parameters, {shape.layers} layers, vocabulary {shape.vocab:,})"


def gpu_rollouts(a) -> None:
    """GPU: our rollout phase (train.py, vllm backend, weights synced every step) against standalone
    vLLM generating the same prompts x G, and the training MFU train.py logs. Not run on CPU."""
    import torch
    from vllm import LLM, SamplingParams

    import train
    from utils.engine import chat

    out = ROOT / a.out
    recs = prompts(a.batch // a.group * a.steps)
    llm = LLM(model=a.model, gpu_memory_utilization=0.4, seed=0)
    sp = SamplingParams(n=a.group, temperature=1.0, max_tokens=a.max_tokens, seed=0)
    batches = [recs[i:i + a.batch // a.group] for i in range(0, len(recs), a.batch // a.group)]
    llm.chat([[{"role": "user", "content": recs[0]["prompt"]}]], sp, use_tqdm=False)  # warm-up
    rates = []
    for b in batches:
        t = time.perf_counter()
        res = llm.chat([chat(r["prompt"]) for r in b], sp, use_tqdm=False)
        rates.append(sum(len(o.token_ids) for r in res for o in r.outputs) / (time.perf_counter() - t))
    del llm
    torch.cuda.empty_cache()
    name = "ours_gpu"
    shutil.rmtree(out / name, ignore_errors=True)
    train.main([f"model={a.model}", f"out_dir={out}", f"name={name}", "stage=rl", "data.sources=[{env: bench}]",
                f"rl.steps={a.steps + 1}", f"rl.batch_size={a.batch}", f"rl.group_size={a.group}",
                f"rl.max_tokens={a.max_tokens}", "rl.engine.backend=vllm", "rl.engine.gpu_memory_utilization=0.4",
                "save_every=100000", "rl.log_samples=0"])
    rows = [json.loads(line) for line in open(out / name / "metrics.jsonl")][1:]
    ours = statistics.median(r["rollout_tokens_per_s"] for r in rows)
    alone = statistics.median(rates)
    print(f"| rollout tokens/s, train.py (vllm) | {ours:.0f} |\n| rollout tokens/s, standalone vLLM | {alone:.0f} |\n"
          f"| ratio | {ours / alone:.2f} |\n| training MFU (median) | "
          f"{statistics.median(r.get('mfu') or 0 for r in rows):.1%} |")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="", help="model directory (CPU: default the tiny model, built here; "
                                                "--gpu: default Qwen/Qwen2.5-0.5B-Instruct)")
    p.add_argument("--steps", type=int, default=6, help="measured RL steps per run (after one warm-up step)")
    p.add_argument("--batch", type=int, default=64, help="rollouts per RL step")
    p.add_argument("--group", type=int, default=8, help="G: rollouts per prompt")
    p.add_argument("--max-tokens", type=int, default=64, help="response budget")
    p.add_argument("--minibatches", type=int, nargs="+", default=[1, 4], help="optimizer steps per rollout batch")
    p.add_argument("--micro-batch", type=int, default=16, help="rollouts per forward/backward pass (both trainers)")
    p.add_argument("--informative", type=float, nargs="+", default=[1.0, 0.5],
                   help="fractions of prompts whose group rewards vary (the rest: zero-variance groups)")
    p.add_argument("--configs", nargs="+", metavar="INFORMATIVE:MINIBATCHES",
                   help="the configurations to run (e.g. 1.0:1 1.0:4), instead of --informative x --minibatches")
    p.add_argument("--rounds", type=int, default=2, help="alternating rounds (ours, TRL) per configuration")
    p.add_argument("--threads", type=int, default=1, help="torch threads for both (1: no OpenMP oversubscription)")
    p.add_argument("--grad-ckpt", action="store_true", help="gradient checkpointing on, on both sides (default off)")
    p.add_argument("--reference", action="store_true",
                   help="also one run of ours with the novelty bonus (a reference pass) for the time split")
    p.add_argument("--out", default="runs/bench/trainer")
    p.add_argument("--gpu", action="store_true", help="GPU mode: rollout throughput vs standalone vLLM, and MFU")
    p.add_argument("--role", choices=("ours", "trl"), help=argparse.SUPPRESS)
    p.add_argument("--spec", help=argparse.SUPPRESS)
    p.add_argument("--record", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    import envs

    envs.REGISTRY["bench"] = "__main__:BenchEnv"
    if a.role:
        spec = json.loads(a.spec)
        result = (role_ours if a.role == "ours" else role_trl)(a, spec)
        Path(a.record).write_text(json.dumps(result))
        return
    if a.gpu:
        a.model = a.model or "Qwen/Qwen2.5-0.5B-Instruct"
        return gpu_rollouts(a)
    try:
        configs = ([(float(c.split(":")[0]), int(c.split(":")[1])) for c in a.configs] if a.configs
                   else [(inf, mb) for inf in a.informative for mb in a.minibatches])
    except (ValueError, IndexError):
        sys.exit(f"bench/trainer.py: --configs {' '.join(a.configs)}: each must be INFORMATIVE:MINIBATCHES, e.g. 1.0:4")
    if a.batch % a.group or any(a.batch % (mb * a.micro_batch) for _, mb in configs):
        sys.exit("bench/trainer.py: --batch must be a multiple of --group and of minibatches x --micro-batch")
    if a.model and not (Path(a.model) / "config.json").is_file():
        sys.exit(f"bench/trainer.py: --model {a.model}: no config.json there (a local HF directory; "
                 "SmolLM2-135M: `make smollm2` builds runs/smollm2)")
    try:
        import trl
    except ImportError:
        sys.exit("bench/trainer.py compares against TRL, which is not installed: pip install -r requirements-extra.txt")
    import torch
    import transformers

    out = ROOT / a.out
    out.mkdir(parents=True, exist_ok=True)
    tiny = not a.model
    if tiny:
        from utils.tiny import build_tiny

        a.model = str(build_tiny(out / "tiny"))
    from transformers import AutoTokenizer

    import train

    tok = AutoTokenizer.from_pretrained(a.model)
    longest_prompt = max(len(train.encode_prompt(tok, r["prompt"], "")) for r in prompts(a.batch // a.group * (a.steps + 1)))
    seq_len = longest_prompt + a.max_tokens  # the plan's row: the longest prompt + the response budget
    results = []
    for inf, mb in configs:
        runs = {"ours": [], "trl": []}
        for k in range(a.rounds):
            for who in ("ours", "trl"):
                spec = {"out": str(out), "name": f"{who}_mb{mb}_inf{inf}_r{k}", "informative": inf, "minibatches": mb}
                runs[who].append(run_role(a, who, spec))
        row = {"informative": inf, "minibatches": mb, "runs": runs}
        for who, rs in runs.items():
            row[who] = {k: statistics.median(r[k] for r in rs) for k in ("tokens_per_cpu_s", "tokens_per_wall_s",
                                                                          "response_len", "cpu_per_step", "peak_rss",
                                                                          "rss_growth")}
        row["speedup_cpu"] = row["ours"]["tokens_per_cpu_s"] / row["trl"]["tokens_per_cpu_s"]
        row["speedup_wall"] = row["ours"]["tokens_per_wall_s"] / row["trl"]["tokens_per_wall_s"]
        results.append(row)
    reference = None
    if a.reference:
        inf, mb = configs[0]
        spec = {"out": str(out), "name": f"ours_mb{mb}_inf{inf}_novelty", "informative": inf, "minibatches": mb,
                "reference": True}
        reference = {"informative": inf, "minibatches": mb, "run": run_role(a, "ours", spec)}
    meta = {"model": a.model, "torch": torch.__version__, "transformers": transformers.__version__,
            "trl": trl.__version__, "threads": a.threads, "batch": a.batch, "micro_batch": a.micro_batch,
            "group": a.group, "max_tokens": a.max_tokens, "steps": a.steps, "rounds": a.rounds,
            "grad_ckpt": a.grad_ckpt, "seq_len_plan": seq_len}
    (out / "trainer.json").write_text(json.dumps({"meta": meta, "results": results, "reference": reference},
                                                 indent=2) + "\n")
    report(a, results, reference, describe(a.model, tiny), seq_len, trl.__version__)


def report(a, results: list[dict], reference: dict | None, model: str, seq_len: int, trl_version: str) -> None:
    GB = 2 ** 30
    ckpt = "on" if a.grad_ckpt else "off"
    print(f"GSPO on {model}, CPU, {a.threads} thread(s) per process: G={a.group}, {a.batch} rollouts/step, "
          f"<= {a.max_tokens} response tokens, micro-batch {a.micro_batch}, gradient checkpointing {ckpt} on both "
          f"sides, fp32; median of {a.rounds} alternating run(s) x {a.steps} measured steps each (TRL "
          f"{trl_version}; every setting matched: bench/trainer.py's docstring). Tokens: prompt + response of the "
          f"step's rollouts.\n")
    print("| informative groups | minibatches | ours tokens/CPU s | TRL tokens/CPU s | speed-up (CPU) | "
          "ours tokens/wall s | TRL tokens/wall s | speed-up (wall) | resp. len ours / TRL |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        o, t = r["ours"], r["trl"]
        print(f"| {r['informative']:.0%} | {r['minibatches']} | {o['tokens_per_cpu_s']:.0f} | {t['tokens_per_cpu_s']:.0f} "
              f"| {r['speedup_cpu']:.2f}x | {o['tokens_per_wall_s']:.0f} | {t['tokens_per_wall_s']:.0f} | "
              f"{r['speedup_wall']:.2f}x | {o['response_len']:.1f} / {t['response_len']:.1f} |")
    like = [r for r in results if r["informative"] == 1.0] or results
    worst = min(r["speedup_cpu"] for r in like)
    print(f"\nTarget: ours >= 1.2x TRL in tokens per CPU second, like for like (every group informative): "
          f"{worst:.2f}x at worst, {'met' if worst >= 1.2 else 'NOT met'}.")

    print("\nOur RL step's time split, CPU seconds per step (train.py's time/* timers on the process' CPU clock; "
          "`other`: logging and bookkeeping between steps); TRL's generation beside it:\n")
    print("| run | rollout | reward | reference | old log-probs | training | weight sync | other | step | "
          "TRL: generation | TRL: the rest | TRL step |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = [(f"{r['informative']:.0%} informative, {r['minibatches']} minibatch(es)", averaged(r["runs"]["ours"]),
             averaged(r["runs"]["trl"])) for r in results]
    if reference:
        rows.append((f"{reference['informative']:.0%} informative, {reference['minibatches']} minibatch(es), "
                     f"novelty bonus (reference pass)", reference["run"], None))
    for name, o, t in rows:
        s = o["split"]
        trl = (f"{t['generate']:.1f} | {t['cpu_per_step'] - t['generate']:.1f} | {t['cpu_per_step']:.1f}"
               if t else "- | - | -")
        print(f"| {name} | {s['rollout']:.1f} | {s['reward']:.2f} | {s['reference']:.1f} | {s['old_logp']:.1f} | "
              f"{s['train']:.1f} | {s['sync']:.2f} | {s['other']:.1f} | {o['cpu_per_step']:.1f} | {trl} |")

    print(f"\nPeak memory (RSS) of each run's process against utils/memplan.py's estimate for it (CPU, fp32, "
          f"micro-batch {a.micro_batch}, rows of {seq_len} tokens: the longest prompt + the response budget, "
          f"checkpointing {ckpt}). Growth: the peak less the process before the model loaded.\n")
    print("| run | peak RSS GB | growth GB | plan GB | growth / plan |")
    print("|---|---:|---:|---:|---:|")
    for name, o, t in rows:
        plan = plan_bytes(a, seq_len, reference=t is None)
        print(f"| ours, {name} | {o['peak_rss'] / GB:.2f} | {o['rss_growth'] / GB:.2f} | {plan / GB:.2f} | "
              f"{o['rss_growth'] / plan:.2f} |")
        if t:
            print(f"| TRL, {name} | {t['peak_rss'] / GB:.2f} | {t['rss_growth'] / GB:.2f} | - | - |")


if __name__ == "__main__":
    main()
