"""RL trainer throughput, side by side with TRL's GRPOTrainer, on the tiny local model (CPU).

    python bench/trainer.py [--steps 6] [--batch 64] [--group 8] [--max-tokens 64] [--minibatches 1 4]

Both trainers run GSPO (sequence-level ratio, eps 3e-4/4e-4, GRPO per-sequence token-mean loss,
no KL, no std scaling) on the same tiny model, prompts (sorting, difficulty 0), G, batch, response
budget, sampling (temperature 1, no top-k/top-p) and threads, in one process, alternating
rounds. Per configuration: RL steps/s and tokens/s (prompt + response tokens of the rollouts,
per second of training-loop wall time; the first step of each run is warm-up and not counted).
`--minibatches m` splits each rollout batch into m optimizer steps (TRL: steps_per_generation=m).

Needs TRL (a bench-only extra): pip install -r requirements-extra.txt
Writes runs/bench/trainer.json and prints a Markdown table.
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


def prompts(n: int) -> list[dict]:
    import envs

    env = envs.make("sorting")
    return [env.generate(seed=s, difficulty=0) for s in range(n)]


def run_ours(model: str, out: Path, a, minibatches: int) -> dict:
    import train

    name = f"ours_mb{minibatches}"
    shutil.rmtree(out / name, ignore_errors=True)
    train.main([f"model={model}", f"out_dir={out}", f"name={name}", "stage=rl", "data.sources=[{env: sorting}]",
                f"rl.steps={a.steps + 1}", f"rl.batch_size={a.batch}", f"rl.group_size={a.group}",
                f"rl.minibatches={minibatches}", f"rl.micro_batch_size={a.batch // minibatches}",
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

    import envs

    tok = AutoTokenizer.from_pretrained(model)
    recs = prompts(a.batch // a.group * (a.steps + 1))
    ds = Dataset.from_list([{"prompt": [{"role": "user", "content": r["prompt"]}], "record": json.dumps(r)}
                            for r in recs])
    counted = {"tokens": [], "lens": []}

    def reward(prompts, completions, record, **kw):
        texts = [c[-1]["content"] for c in completions]
        p_tok = [len(tok.apply_chat_template(p, add_generation_prompt=True, tokenize=True)) for p in prompts]
        c_tok = [len(tok(t, add_special_tokens=False)["input_ids"]) for t in texts]
        counted["tokens"].append(sum(p_tok) + sum(c_tok))
        counted["lens"].append(statistics.fmean(c_tok))
        return [envs.score(json.loads(r), t).value for r, t in zip(record, texts)]

    marks: list[float] = []

    class Clock(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step % minibatches == 0:  # an RL step = minibatches optimizer steps
                marks.append(time.perf_counter())

    cfg = GRPOConfig(output_dir=str(out / f"trl_mb{minibatches}"), per_device_train_batch_size=a.batch // minibatches,
                     gradient_accumulation_steps=1, steps_per_generation=minibatches, num_generations=a.group,
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=6, help="measured RL steps per run (after one warm-up step)")
    p.add_argument("--batch", type=int, default=64, help="rollouts per RL step")
    p.add_argument("--group", type=int, default=8, help="G: rollouts per prompt")
    p.add_argument("--max-tokens", type=int, default=64, help="response budget")
    p.add_argument("--minibatches", type=int, nargs="+", default=[1, 4], help="optimizer steps per rollout batch")
    p.add_argument("--rounds", type=int, default=2, help="alternating rounds (ours, TRL) per configuration")
    p.add_argument("--threads", type=int, default=1, help="torch threads for both (1: no OpenMP oversubscription)")
    p.add_argument("--out", default="runs/bench/trainer")
    a = p.parse_args()
    try:
        import trl
    except ImportError:
        sys.exit("bench/trainer.py compares against TRL, which is not installed: pip install -r requirements-extra.txt")
    import logging

    import torch
    import transformers

    from utils.tiny import build_tiny

    torch.set_num_threads(a.threads)
    transformers.logging.set_verbosity_error()
    logging.getLogger("trl").setLevel(logging.ERROR)
    out = ROOT / a.out
    model = str(build_tiny(out / "tiny"))
    results = []
    for mb in a.minibatches:
        runs = {"ours": [], "trl": []}
        for _ in range(a.rounds):
            runs["ours"].append(run_ours(model, out, a, mb))
            runs["trl"].append(run_trl(model, out, a, mb))
        row = {"minibatches": mb}
        for who, rs in runs.items():
            row[who] = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        row["speedup_steps"] = row["ours"]["steps_per_s"] / row["trl"]["steps_per_s"]
        row["speedup_tokens"] = row["ours"]["tokens_per_s"] / row["trl"]["tokens_per_s"]
        results.append(row)
    meta = {"torch": torch.__version__, "transformers": transformers.__version__, "trl": trl.__version__,
            "threads": a.threads, "batch": a.batch, "group": a.group, "max_tokens": a.max_tokens, "steps": a.steps,
            "rounds": a.rounds}
    (out / "trainer.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    print(f"\nRL trainer on the tiny model, CPU, {a.threads} thread(s): G={a.group}, {a.batch} rollouts/step, "
          f"<= {a.max_tokens} response tokens, GSPO, median of {a.rounds} runs x {a.steps} steps (TRL {trl.__version__})\n")
    print("| minibatches | ours steps/s | TRL steps/s | ours tokens/s | TRL tokens/s | speed-up (tokens/s) | resp. len ours / TRL |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        o, t = r["ours"], r["trl"]
        print(f"| {r['minibatches']} | {o['steps_per_s']:.3f} | {t['steps_per_s']:.3f} | {o['tokens_per_s']:.0f} | "
              f"{t['tokens_per_s']:.0f} | {r['speedup_tokens']:.2f}x | {o['response_len']:.1f} / {t['response_len']:.1f} |")


if __name__ == "__main__":
    main()
