"""RL trainer throughput, side by side with TRL's GRPOTrainer, on the tiny local model (CPU).

    python bench/trainer.py [--steps 6] [--batch 64] [--group 8] [--max-tokens 64] [--minibatches 1 4]

Both trainers run GSPO (sequence-level ratio, eps 3e-4/4e-4, GRPO per-sequence token-mean loss,
no KL, no std scaling) on the same tiny model, prompts (sorting problems, difficulty 0), G, batch,
response budget, sampling (temperature 1, no top-k/top-p), reward function and threads, in one
process, alternating rounds. Per configuration: RL steps/s and tokens/s (prompt + response tokens
of the rollouts per second of training-loop wall time; each run's first step is warm-up).
`--minibatches m` splits each rollout batch into m optimizer steps (TRL: steps_per_generation=m).

The untrained tiny model never sorts, so the bench reward is synthetic: on an "informative"
prompt it is the parity of the response's word count (it varies within the group); on the
others it is 0 for every rollout (a group with nothing to learn, as when all rollouts fail).
`--informative 1.0 0.5` runs both mixes: RL runs typically see 30-70% zero-variance groups,
which train.py skips exactly (their gradient is zero) and TRL computes.

Needs TRL (a bench-only extra): pip install -r requirements-extra.txt
Writes runs/bench/trainer/trainer.json and prints a Markdown table.

    python bench/trainer.py --gpu [--model Qwen/Qwen2.5-0.5B-Instruct]

GPU mode (needs vLLM): train.py's rollout throughput (vllm backend, weights synced after every
step) against standalone vLLM on the same prompts x G, and the training MFU train.py logs.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from envs.base import Env, Reward  # noqa: E402


class BenchEnv(Env):
    """Sorting prompts with the synthetic reward described above."""

    name = "bench"
    reward_range = (0.0, 1.0)
    informative = 1.0  # set by main()

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        import random

        import envs

        rec = envs.make("sorting").generate(seed=seed, difficulty=0)
        return {**rec, "env": "bench", "meta": {"informative": random.Random(seed).random() < self.informative}}

    def score(self, record: dict, response: str) -> Reward:
        value = float(len(response.split()) % 2) if record["meta"]["informative"] else 0.0
        return Reward(value, value == 1.0, {})


def prompts(n: int) -> list[dict]:
    return [BenchEnv().generate(seed=s) for s in range(10_000, 10_000 + n)]


def run_ours(model: str, out: Path, a, minibatches: int) -> dict:
    import train

    name = f"ours_mb{minibatches}_inf{BenchEnv.informative}"
    shutil.rmtree(out / name, ignore_errors=True)
    train.main([f"model={model}", f"out_dir={out}", f"name={name}", "stage=rl", "data.sources=[{env: bench}]",
                f"rl.steps={a.steps + 1}", f"rl.batch_size={a.batch}", f"rl.group_size={a.group}",
                f"rl.minibatches={minibatches}", f"rl.micro_batch_size={a.micro_batch}",
                f"rl.max_tokens={a.max_tokens}", "rl.level=sequence", "optim.lr=1e-5", "save_every=100000",
                f"rl.engine.batch_size={a.batch}", "rl.log_samples=0"])
    rows = [json.loads(line) for line in open(out / name / "metrics.jsonl")][1:]
    seconds = sum(r["time/step"] for r in rows)
    return {"steps_per_s": len(rows) / seconds, "tokens_per_s": sum(r["tokens"] for r in rows) / seconds,
            "response_len": statistics.fmean(r["response_len"] for r in rows)}


def run_trl(model: str, out: Path, a, minibatches: int) -> dict:
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    import train

    tok = AutoTokenizer.from_pretrained(model)
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

    marks: list[float] = []

    class Clock(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step % minibatches == 0:  # an RL step = minibatches optimizer steps
                marks.append(time.perf_counter())

    # one generation of `batch` rollouts feeds `minibatches` optimizer steps of micro_batch-row passes
    accum = a.batch // minibatches // a.micro_batch
    cfg = GRPOConfig(output_dir=str(out / "trl"), per_device_train_batch_size=a.micro_batch,
                     gradient_accumulation_steps=accum, steps_per_generation=accum * minibatches,
                     num_generations=a.group,
                     max_completion_length=a.max_tokens, importance_sampling_level="sequence", loss_type="grpo",
                     beta=0.0, epsilon=3e-4, epsilon_high=4e-4, scale_rewards="none", temperature=1.0, top_p=1.0,
                     top_k=0, learning_rate=1e-5, max_steps=(a.steps + 1) * minibatches, logging_steps=1,
                     report_to=[], use_cpu=True, bf16=False, save_strategy="no", seed=0, disable_tqdm=True,
                     dataloader_num_workers=0, shuffle_dataset=False)
    trainer = GRPOTrainer(model=AutoModelForCausalLM.from_pretrained(model, dtype=torch.float32), reward_funcs=reward,
                          args=cfg, train_dataset=ds, processing_class=tok, callbacks=[Clock()])
    start = time.perf_counter()
    trainer.train()
    seconds = marks[-1] - marks[0]  # from the end of the warm-up step
    del start
    return {"steps_per_s": (len(marks) - 1) / seconds, "tokens_per_s": sum(counted["tokens"][1:]) / seconds,
            "response_len": statistics.fmean(counted["lens"][1:])}


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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=6, help="measured RL steps per run (after one warm-up step)")
    p.add_argument("--batch", type=int, default=64, help="rollouts per RL step")
    p.add_argument("--group", type=int, default=8, help="G: rollouts per prompt")
    p.add_argument("--max-tokens", type=int, default=64, help="response budget")
    p.add_argument("--minibatches", type=int, nargs="+", default=[1, 4], help="optimizer steps per rollout batch")
    p.add_argument("--micro-batch", type=int, default=16, help="rollouts per forward/backward pass (both trainers)")
    p.add_argument("--informative", type=float, nargs="+", default=[1.0, 0.5],
                   help="fractions of prompts whose group rewards vary (the rest: zero-variance groups)")
    p.add_argument("--rounds", type=int, default=2, help="alternating rounds (ours, TRL) per configuration")
    p.add_argument("--threads", type=int, default=1, help="torch threads for both (1: no OpenMP oversubscription)")
    p.add_argument("--out", default="runs/bench/trainer")
    p.add_argument("--gpu", action="store_true", help="GPU mode: rollout throughput vs standalone vLLM, and MFU")
    p.add_argument("--model", default="Qwen/Qwen2.5-0.5B-Instruct", help="GPU mode: the model")
    a = p.parse_args()
    if a.gpu:
        import envs

        envs.REGISTRY["bench"] = "__main__:BenchEnv"
        return gpu_rollouts(a)
    try:
        import trl
    except ImportError:
        sys.exit("bench/trainer.py compares against TRL, which is not installed: pip install -r requirements-extra.txt")
    import logging

    import torch

    import envs

    envs.REGISTRY["bench"] = "__main__:BenchEnv"
    import transformers

    from utils.tiny import build_tiny

    torch.set_num_threads(a.threads)
    transformers.logging.set_verbosity_error()
    logging.getLogger("trl").setLevel(logging.ERROR)
    out = ROOT / a.out
    model = str(build_tiny(out / "tiny"))
    results = []
    import itertools

    for inf, mb in itertools.product(a.informative, a.minibatches):
        BenchEnv.informative = inf
        runs = {"ours": [], "trl": []}
        for _ in range(a.rounds):
            runs["ours"].append(run_ours(model, out, a, mb))
            runs["trl"].append(run_trl(model, out, a, mb))
        row = {"informative": inf, "minibatches": mb}
        for who, rs in runs.items():
            row[who] = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        row["speedup_steps"] = row["ours"]["steps_per_s"] / row["trl"]["steps_per_s"]
        row["speedup_tokens"] = row["ours"]["tokens_per_s"] / row["trl"]["tokens_per_s"]
        results.append(row)
    meta = {"torch": torch.__version__, "transformers": transformers.__version__, "trl": trl.__version__,
            "threads": a.threads, "batch": a.batch, "micro_batch": a.micro_batch, "group": a.group,
            "max_tokens": a.max_tokens, "steps": a.steps,
            "rounds": a.rounds}
    (out / "trainer.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    print(f"\nRL trainer on the tiny model, CPU, {a.threads} thread(s): G={a.group}, {a.batch} rollouts/step, "
          f"<= {a.max_tokens} response tokens, GSPO, median of {a.rounds} runs x {a.steps} steps "
          f"(TRL {trl.__version__})\n")
    print("| informative groups | minibatches | ours steps/s | TRL steps/s | ours tokens/s | TRL tokens/s | "
          "speed-up (tokens/s) | resp. len ours / TRL |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        o, t = r["ours"], r["trl"]
        print(f"| {r['informative']:.0%} | {r['minibatches']} | {o['steps_per_s']:.3f} | {t['steps_per_s']:.3f} | "
              f"{o['tokens_per_s']:.0f} | {t['tokens_per_s']:.0f} | {r['speedup_tokens']:.2f}x | "
              f"{o['response_len']:.1f} / {t['response_len']:.1f} |")


if __name__ == "__main__":
    main()
