"""The code-RL paper's pipeline at CPU size: synthesis -> training -> evaluation, each stage the
paper's own config with CPU overrides (recorded teacher and student answers instead of GPT-OSS 120B,
the standard library instead of starcoderdata, the tiny local model instead of Qwen3-8B, 2 RL steps,
the LiveCodeBench fixture instead of the release files).

    python scripts/code_rl_cpu.py                                              # REAL 25K + SYNTH* mix
    python scripts/code_rl_cpu.py --config configs/paper/code_rl/chains_hard.yaml
    python scripts/code_rl_cpu.py --config configs/paper/code_rl/gen_select_envs4.yaml

Everything goes under runs/code_rl_cpu/ (the synthesis run is shared and resumed, not redone); each
train config has its own run, evaluation and figures folder, named by its run name:
train/<name>/, eval/<name>/livecodebench/ and figures/<name>/, so configs run one after another
never meet each other's outputs.
A train config's sources are pointed at the CPU data: the real problem set at the shipped sample
of contest problems (envs/code/contest_sample.jsonl), a synthesis folder (problems, chains,
disjoint) at the same folder of the CPU synthesis run, a selected subset at its problems. The
weights, curriculum and every other setting stay the paper's. docs/reproduce/code_rl.md lists
which config reproduces which figure.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

SYNTH_CONFIG = "configs/paper/code_rl/gen_synth_star_induction.yaml"
DEFAULT_TRAIN = "configs/paper/code_rl/real25k_synth_star_induction.yaml"
EVAL_CONFIG = "configs/eval/livecodebench.yaml"
FIXTURE_LCB = "tests/data/bench/livecodebench.jsonl"

# The recorded scenario of tests/data/synth_*.jsonl: 4 seeds over the four environments. It was
# recorded against our prompts: its retries answer the rejection hint and its fuzzing answers carry
# inputs, so it runs with ours (retry_hint, inputs.fuzzing=5) where the paper configs set the paper's
# (no hint, no fuzzing inputs); tests/test_synth.py runs the paper's form on a scenario of its own.
SYNTH_CPU = ["synth.seeds=4", "synth.shard_size=2", "synth.envs=[induction,deduction,fuzzing,abduction]",
             "synth.retry_hint=true", "synth.inputs.fuzzing=5",
             "synth.corpus=stdlib", "synth.teacher.engine={backend: replay, replay_path: tests/data/synth_teacher.jsonl}",
             "synth.student.engine={backend: replay, replay_path: tests/data/synth_student.jsonl}",
             "synth.teacher.backoff_s=0.01"]
TRAIN_CPU = ["rl.steps=2", "rl.batch_size=16", "rl.micro_batch_size=16", "rl.max_tokens=16", "rl.log_samples=16",
             "rl.engine.backend=hf", "rl.engine.tensor_parallel_size=1",  # the 32B configs' TP 8 is vLLM's
             "gradient_checkpointing=false", "cpu_threads=1", "save_every=2"]


def synth_data(out: Path) -> Path:
    """The CPU synthesis run (paper config + CPU overrides), done once and resumed after."""
    import generate

    if not (out / "manifest.json").exists():
        generate.main(["--config", SYNTH_CONFIG, f"out={out}", *SYNTH_CPU])
    return out


def cpu_folder(path: str, synth: Path, other: str = "problems") -> Path:
    """The CPU synthesis run's folder for a paper data path: its problems, chains or disjoint by the
    path's last part (runs/code_rl/synth_star_induction_1012/chains: chains), else `other`."""
    folder = Path(path).name
    return synth / (folder if folder in ("problems", "chains", "disjoint") else other)


def cpu_source(src: dict, synth: Path) -> dict:
    """One source of a paper config, pointed at the CPU data (weights and everything else kept)."""
    src = dict(src)
    if src.get("env") == "code_contest":
        src["params"] = {**src.get("params", {}), "path": ""}  # the shipped sample
    elif src.get("data"):
        src["data"], src["split"] = str(cpu_folder(src["data"], synth)), "train"
    return src


def raw_config(path: str | Path) -> dict:
    """The YAML of a config with its `base` files merged under it, before validation (the paper
    configs name inputs that only a GPU run writes)."""
    from omegaconf import OmegaConf

    data = OmegaConf.to_container(OmegaConf.load(path))
    base = data.pop("base", None)
    if base is None:
        return data
    return OmegaConf.to_container(OmegaConf.merge(raw_config(Path(path).parent / base), data))


def train_argv(config: str, synth: Path, model: str, out_dir: Path) -> list[str]:
    cfg = raw_config(config)
    sources = [cpu_source(s, synth) for s in cfg["data"]["sources"]]
    return ["--config", config, f"model={model}", f"out_dir={out_dir}", f"data.sources={json.dumps(sources)}",
            *TRAIN_CPU]


def eval_overrides(config: str = EVAL_CONFIG) -> list[str]:
    """The paper's LiveCodeBench protocol (both date windows, every split) on the fixture problems,
    2 samples of 24 tokens each from the hf backend."""
    benches = [{**b, "path": str(ROOT / FIXTURE_LCB), "timeout_s": 2.0, "expect": 0}
               for b in raw_config(config)["benchmarks"]]
    return ["engine.backend=hf", "n=2", "k=[1,2]", "max_tokens=24", f"benchmarks={json.dumps(benches)}"]


def eval_argv(model: str, out_root: Path, config: str = EVAL_CONFIG) -> list[str]:
    return ["--config", config, f"model={model}", f"out_root={out_root}", *eval_overrides(config)]


def solved_samples(out: Path) -> Path:
    """A stand-in for the samples.jsonl of a GPU training run that solved problems (the tiny model
    solves none): every shipped contest problem answered once with its reference solution
    (correct) and once wrongly."""
    import envs
    from utils.records import write_jsonl

    env, rows, seen = envs.make("code_contest"), [], set()
    for seed in range(64):
        rec = env.generate(seed)
        if rec["id"] not in seen:
            seen.add(rec["id"])
            rows += [{"step": len(seen), "id": rec["id"], "env": rec["env"], "response": rec["answer"],
                      "reward": 1.0, "correct": True},
                     {"step": len(seen), "id": rec["id"], "env": rec["env"], "response": "```python\nprint(0)\n```",
                      "reward": 0.0, "correct": False}]
    write_jsonl(out / "samples.jsonl", rows)
    return out


def generate_argv(config: str, synth: Path, out: Path) -> list[str]:
    """A generate config at CPU size: synthesis on recorded answers, seeds from solved_samples(),
    a selection from the CPU synthesis run (one record or unit per group, or what there is where
    that is fewer than the paper's sizes; a histogram match to its chains or disjoint set)."""
    cfg = raw_config(config)
    argv = ["--config", config, f"out={out}"]
    if cfg["mode"] == "synth":
        argv += SYNTH_CPU
        if str(cfg["synth"].get("corpus", "")).endswith(".jsonl"):  # seeded with solutions: the CPU seeds
            argv += [f"synth.corpus={out.parent / 'gen_seeds' / 'seeds.jsonl'}"]
    elif cfg["mode"] == "seeds":
        argv += [f"seeds.samples=[{solved_samples(out.parent / 'solved_run')}]"]
    elif cfg["mode"] == "select":  # the CPU run holds fewer than the paper's sizes: allow_short takes what there is
        argv += [f"select.data=[{cpu_folder(cfg['select']['data'][0], synth)}]", "select.count=1",
                 "select.allow_short=true"]
        if cfg["select"].get("match"):
            argv += [f"select.match={cpu_folder(cfg['select']['match'], synth, 'disjoint')}"]
    return argv


def run_dirs(runs: Path, name: str) -> dict[str, Path]:
    """Where one train config's CPU run writes: its training run, the evaluation of its final model
    (out_root for evaluate.py, which adds the eval config's name) and its figures. Each config has
    its own (a shared eval folder made the second config's evaluation refuse the first's samples)."""
    return {"train": runs / "train" / name, "eval": runs / "eval" / name, "figures": runs / "figures" / name}


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=DEFAULT_TRAIN, help="a configs/paper/code_rl/ config")
    ap.add_argument("--runs", default="runs/code_rl_cpu", help="where everything goes")
    args = ap.parse_args(argv)
    import evaluate
    import generate
    import train
    from utils.tiny import build_tiny

    runs = Path(args.runs)
    synth = synth_data(runs / "synth")
    mode = raw_config(args.config).get("mode")
    if mode:
        if raw_config(args.config).get("synth", {}).get("corpus", "").endswith(".jsonl"):
            generate.main(generate_argv("configs/paper/code_rl/gen_seeds.yaml", synth, runs / "gen_seeds"))
        generate.main(generate_argv(args.config, synth, runs / Path(args.config).stem))
        return
    model = str(build_tiny(runs / "tiny"))
    argv = train_argv(args.config, synth, model, runs / "train")
    train.main(argv + ["resume=true"])
    from utils.config import load

    dirs = run_dirs(runs, load(train.TrainConfig, argv).name)
    evaluate.main(eval_argv(str(dirs["train"] / "final"), dirs["eval"]))
    # the figures' form: every checkpoint (and the base model as step 0) evaluated, then curves
    import code_rl_curves as curves

    curves.evaluate_run(dirs["train"], ["livecodebench"], eval_overrides())
    print(f"wrote {len(curves.plot(curves.collect([dirs['train']]), dirs['figures']))} plots to {dirs['figures']}/")


if __name__ == "__main__":
    main(sys.argv[1:])
