"""RLVE end to end: every experiment of docs/reproduce/rlve.md as a command.

    python scripts/reproduce_rlve.py --print              # the commands, in order (GPU cluster)
    python scripts/reproduce_rlve.py --cpu runs/rlve_cpu  # the same commands, CPU-sized, end to end
    python scripts/reproduce_rlve.py --summary            # runs/figures/rlve_summary.md from the evaluations

--print is what the doc's command block holds (tests/test_reproduce_rlve.py checks they agree). --cpu runs
every stage in one process on the tiny local model: a held-out set of two envs, one RL step per run, two
samples of 8 tokens per problem; the ProRL checkpoints become the tiny model. It shows the wiring, not the
paper's numbers.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reproduce_lib  # noqa: E402
from reproduce_lib import ROOT, Stage  # noqa: E402

TRAIN = "torchrun --nproc_per_node 8 train.py"
EVAL = "python evaluate.py --config configs/eval/rlve_held_out.yaml"
RUNS = ["rlve_adaptive", "rlve_static_low", "rlve_static_high", "rlve_envs_1", "rlve_envs_4", "rlve_envs_16",
        "rlve_envs_64"]
RL_CPU = ["rl.engine.backend=hf", "rl.steps=1", "rl.batch_size=8", "rl.group_size=4", "rl.micro_batch_size=8",
          "rl.max_tokens=8", "save_every=100", "cpu_threads=1", "gradient_checkpointing=false",
          "data.adaptive.min_samples_factor=1", "model={tiny}"]
EVAL_CPU = ["engine.backend=hf", "n=2", "k=[1,2]", "max_tokens=8", "bootstrap=20", "grading_workers=1"]

STAGES = [
    Stage("held_out", "python generate.py --config configs/generate/rlve_held_out.yaml",
          ["workers=1", "splits.test=[{env: knapsack, difficulty: 2, count: 3}, {env: topological_sort, difficulty: 2, "
                        "count: 3}]"]),
    *[Stage(run.removeprefix("rlve_"), f"{TRAIN} --config configs/paper/{run}.yaml", RL_CPU) for run in RUNS],
    Stage("eval_base", f"{EVAL} name=eval/rlve_base model=nvidia/Nemotron-Research-Reasoning-Qwen-1.5B",
          EVAL_CPU + ["model={tiny}"]),
    Stage("eval_prorl_continued", f"{EVAL} name=eval/rlve_prorl_continued model=$PRORL_CONTINUED",
          EVAL_CPU + ["model={tiny}"]),
    Stage("eval_runs", f"{EVAL} name=eval/{{name}} model={{dir}}/final", EVAL_CPU, each="runs/paper/rlve_*"),
    Stage("compare_adaptive", "python evaluate.py compare runs/eval/rlve_base runs/eval/rlve_adaptive "
                              "runs/eval/rlve_static_low runs/eval/rlve_static_high runs/eval/rlve_prorl_continued"),
    Stage("compare_envs", "python evaluate.py compare runs/eval/rlve_envs_1 runs/eval/rlve_envs_4 runs/eval/rlve_envs_16 "
                          "runs/eval/rlve_envs_64 runs/eval/rlve_adaptive"),
    Stage("summary", "python scripts/reproduce_rlve.py --summary"),
]


def summary(root: Path = Path(".")) -> Path:
    """runs/figures/rlve_summary.md and rlve_envs.png: held-out pass@1 of every evaluated run, and the
    environment-count scaling (training envs -> held-out pass@1)."""
    from utils.plots import step_curves
    from utils.records import atomic_write_text

    rows = []
    for res in sorted((root / "runs" / "eval").glob("rlve_*/results.json")):
        r = json.loads(res.read_text())
        s = r["benchmarks"].get("rlve_held_out", {}).get("splits", {}).get("all", {})
        if s:
            rows.append((res.parent.name, s["problems"], s["pass@1"]["mean"], s["pass@1"]["ci95"]))
    lines = ["# RLVE: held-out environments (runs/eval/rlve_*)", "", "| run | problems | pass@1 | 95% CI |",
             "|---|---:|---:|---|"]
    lines += [f"| {name} | {n} | {m:.3f} | [{lo:.3f}, {hi:.3f}] |" for name, n, m, (lo, hi) in rows]
    counts = {"rlve_envs_1": 1, "rlve_envs_4": 4, "rlve_envs_16": 16, "rlve_envs_64": 64}
    import yaml

    exclude = yaml.safe_load((ROOT / "configs/paper/rlve_adaptive.yaml").read_text())["data"]["pool"]["exclude"]
    from envs.gym import GYM

    counts["rlve_adaptive"] = len(GYM) - len(exclude)
    scaling = sorted((counts[name], m) for name, _, m, _ in rows if name in counts)
    out = root / "runs" / "figures"
    out.mkdir(parents=True, exist_ok=True)
    if scaling:
        step_curves({"held-out pass@1": scaling}, out / "rlve_envs.png", "RLVE: environment count (held-out envs)",
                    "held-out pass@1", xlabel="training environments")
        lines += ["", "Environment count -> held-out pass@1: " + ", ".join(f"{c}: {m:.3f}" for c, m in scaling),
                  "(rlve_envs.png)"]
    atomic_write_text(out / "rlve_summary.md", "\n".join(lines) + "\n")
    return out / "rlve_summary.md"


def main(argv: list[str]) -> None:
    reproduce_lib.main(argv, __doc__, STAGES, summary=summary,
                       summary_help="write runs/figures/rlve_summary.md from runs/eval/rlve_*",
                       entries={"scripts/reproduce_rlve.py": main})  # the summary stage


if __name__ == "__main__":
    main(sys.argv[1:])
