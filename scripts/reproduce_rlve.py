"""RLVE end to end: every experiment of docs/reproduce/rlve.md as a command.

    python scripts/reproduce_rlve.py --print              # the commands, in order (GPU cluster)
    python scripts/reproduce_rlve.py --sweep | bash       # the environment-count sweep alone (1/4/16/256/400)
    python scripts/reproduce_rlve.py --cpu runs/rlve_cpu  # the same commands, CPU-sized, end to end
    python scripts/reproduce_rlve.py --summary            # runs/figures/rlve_summary.md from the evaluations

--print is what the doc's command block holds (tests/test_reproduce_rlve.py checks they agree). --sweep
prints the sweep's stages, after checking that the gym registry holds what every rlve_envs_*.yaml asks
(N training envs + the 50 held out; 400 for the 400-env run): if not, one line names the config, the envs
it needs and the envs the registry has, exit 2. --cpu runs every stage in one process on the tiny local
model: a held-out set of two envs, one RL step per run, two samples of 8 tokens per problem; the ProRL
checkpoints become the tiny model (no revision: it is a local directory), and the 256- and 400-env runs
draw 24 and 74 envs (the registry may hold fewer than 306 / 400; 24 + 50 keeps the two picks nested). It
shows the wiring, not the paper's numbers.
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
SWEEP = [1, 4, 16, 256, 400]  # training environments (configs/paper/rlve_envs_N.yaml)
CPU_COUNT = {256: 24, 400: 74}  # what --cpu draws instead (nested: 74 = 24 + the 50 held out)
RUNS = ["rlve_adaptive", "rlve_static_low", "rlve_static_high", *(f"rlve_envs_{n}" for n in SWEEP)]
MODEL = "nvidia/Nemotron-Research-Reasoning-Qwen-1.5B"  # ProRL-1.5B-v2 at revision v2 (rlve line 23)
RL_CPU = ["rl.engine.backend=hf", "rl.steps=1", "rl.batch_size=8", "rl.group_size=4", "rl.micro_batch_size=8",
          "rl.max_tokens=8", "save_every=100", "cpu_threads=1", "gradient_checkpointing=false",
          "data.adaptive.min_samples_factor=1", "model={tiny}", "model_revision=''"]


def rl_cpu(run: str) -> list[str]:
    n = run.removeprefix("rlve_envs_")
    return RL_CPU + [f"data.pool.count={CPU_COUNT[int(n)]}"] if n.isdigit() and int(n) in CPU_COUNT else RL_CPU


EVAL_CPU = ["engine.backend=hf", "n=2", "k=[1,2]", "max_tokens=8", "bootstrap=20", "grading_workers=1"]

STAGES = [
    Stage("held_out", "python generate.py --config configs/generate/rlve_held_out.yaml",
          ["workers=1", "splits.test=[{env: knapsack, difficulty: 2, count: 3}, {env: topological_sort, difficulty: 2, "
                        "count: 3}]"]),
    *[Stage(run.removeprefix("rlve_"), f"{TRAIN} --config configs/paper/{run}.yaml", rl_cpu(run)) for run in RUNS],
    Stage("eval_base", f"{EVAL} name=eval/rlve_base model={MODEL} engine.revision=v2",
          EVAL_CPU + ["model={tiny}", "engine.revision=''"]),
    Stage("eval_prorl_continued", f"{EVAL} name=eval/rlve_prorl_continued model=$PRORL_CONTINUED",
          EVAL_CPU + ["model={tiny}"]),
    Stage("eval_runs", f"{EVAL} name=eval/{{name}} model={{dir}}/final", EVAL_CPU, each="runs/paper/rlve_*"),
    Stage("compare_adaptive", "python evaluate.py compare runs/eval/rlve_base runs/eval/rlve_adaptive "
                              "runs/eval/rlve_static_low runs/eval/rlve_static_high runs/eval/rlve_prorl_continued"),
    Stage("compare_envs", "python evaluate.py compare " + " ".join(f"runs/eval/rlve_envs_{n}" for n in SWEEP)),
    Stage("summary", "python scripts/reproduce_rlve.py --summary"),
]
SWEEP_STAGES = ["held_out", *(f"envs_{n}" for n in SWEEP), "eval_runs", "compare_envs", "summary"]


def shortfall() -> str | None:
    """None if the gym registry holds every env the sweep configs draw, else one line: the first config
    short of envs, the envs it needs and the envs there are."""
    import train
    from envs.gym import GYM
    from utils.config import load_or_raise

    for n in SWEEP:
        pool = load_or_raise(train.TrainConfig, ["--config", str(ROOT / f"configs/paper/rlve_envs_{n}.yaml")],
                             validate=False).data.pool
        need = pool.count + len(set(pool.exclude))
        if len(GYM) < need:
            return (f"configs/paper/rlve_envs_{n}.yaml needs {need} gym envs ({pool.count} to train"
                    + (f" + {len(set(pool.exclude))} held out" if pool.exclude else ", none held out")
                    + f"); the registry has {len(GYM)} (python -m envs.gym lists them)")
    return None


def summary(root: Path = Path(".")) -> Path:
    """runs/figures/rlve_summary.md and rlve_envs.png: held-out pass@1 of every evaluated run, and the
    environment-count scaling (the envs each rlve_envs_* run trained on, from its config.yaml -> held-out
    pass@1). A run whose pool held out nothing (rlve_envs_400) is marked: it trained on the held-out envs."""
    import yaml

    from utils.plots import step_curves
    from utils.records import atomic_write_text

    rows = []
    for res in sorted((root / "runs" / "eval").glob("rlve_*/results.json")):
        r = json.loads(res.read_text())
        s = r["benchmarks"].get("rlve_held_out", {}).get("splits", {}).get("all", {})
        if s:
            rows.append((res.parent.name, s["problems"], s["pass@1"]["mean"], s["pass@1"]["ci95"]))
    pools = {}  # run -> its data.pool as trained
    for name, *_ in rows:
        written = root / "runs" / "paper" / name / "config.yaml"
        if written.is_file():
            pools[name] = yaml.safe_load(written.read_text())["data"]["pool"]
    seen = {name for name, pool in pools.items() if pool["family"] and not pool["exclude"]}
    lines = ["# RLVE: held-out environments (runs/eval/rlve_*)", "", "| run | problems | pass@1 | 95% CI |",
             "|---|---:|---:|---|"]
    lines += [f"| {name}{' (trained on the held-out envs)' if name in seen else ''} | {n} | {m:.3f} | "
              f"[{lo:.3f}, {hi:.3f}] |" for name, n, m, (lo, hi) in rows]
    scaling = sorted((pools[name]["count"], m) for name, _, m, _ in rows
                     if name.startswith("rlve_envs_") and name in pools)
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
    if argv == ["--sweep"]:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        short = shortfall()
        if short:
            sys.exit(print(f"reproduce_rlve.py --sweep: {short}", file=sys.stderr) or 2)
        print("\n".join(reproduce_lib.commands([s for s in STAGES if s.id in SWEEP_STAGES])))
        return
    reproduce_lib.main(argv, __doc__, STAGES, summary=summary,
                       summary_help="write runs/figures/rlve_summary.md from runs/eval/rlve_*",
                       entries={"scripts/reproduce_rlve.py": main})  # the summary stage


if __name__ == "__main__":
    main(sys.argv[1:])
