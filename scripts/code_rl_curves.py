"""The code-RL paper's figures: pass@k on LiveCodeBench, MATH-500 and AIME 2024 over training steps.

    # evaluate every checkpoint of a run (and its base model as step 0) that is not evaluated yet;
    # with --watch, again every N seconds while training runs (a checkpoint lives save_every x
    # keep_last steps)
    python scripts/code_rl_curves.py eval runs/code_rl/qwen3_8b/real_25k --watch 600
    # one PNG per metric, a line per run, and curves.csv
    python scripts/code_rl_curves.py plot runs/code_rl/qwen3_8b/real_25k runs/code_rl/qwen3_8b/real_81k \
        --out runs/code_rl/figures/fig3

eval runs evaluate.py with the paper's protocol (configs/eval/livecodebench.yaml,
code_paper_math500.yaml, code_paper_aime24.yaml; extra key=value overrides after `--`) into
<run>/eval/step_NNNNNNNN/<config>/; evaluate.py resumes, so an interrupted pass continues.
plot reads those results.json files: LCB pass@1 and pass@10 (all problems and each LCBv5 split),
MATH-500 and AIME 2024 pass@1 and pass@5, as the paper's figures show them.

    # code_rl Fig. 9: cumulative solve rate per chain level during training, chains vs disjoint
    python scripts/code_rl_curves.py solve-rates runs/code_rl/qwen3_8b/chains_hard \
        runs/code_rl/qwen3_8b/disjoint_hard --out runs/code_rl/figures/fig9a

solve-rates reads each run's samples.jsonl (the rollouts train.py logged, rl.log_samples per step)
and its training records (the run's data source): the share of each level's problems solved at
least once up to each step. Only logged rollouts count, so it is a lower bound when not every
rollout is logged.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIGS = ("livecodebench", "code_paper_math500", "code_paper_aime24")


def checkpoints(run: Path, base: bool = True) -> list[tuple[int, str]]:
    """(step, model dir) of every checkpoint of a run, and its base model as step 0."""
    out = []
    if base:
        from omegaconf import OmegaConf

        out.append((0, str(OmegaConf.load(run / "config.yaml")["model"])))
    for ck in sorted((run / "checkpoints").glob("step_*")):
        if (ck / "model").is_dir():
            out.append((int(ck.name.split("_")[1]), str(ck / "model")))
    return out


def evaluate_run(run: Path, configs: list[str], overrides: list[str], base: bool = True) -> int:
    """Evaluate what is not evaluated yet; returns how many (checkpoint, config) pairs ran."""
    import evaluate

    done = 0
    for step, model in checkpoints(run, base):
        for name in configs:
            out = run / "eval" / f"step_{step:08d}" / name
            if (out / "results.json").exists():
                continue
            evaluate.main(["--config", str(ROOT / "configs" / "eval" / f"{name}.yaml"), f"model={model}",
                           f"out_root={run / 'eval'}", f"name=step_{step:08d}/{name}", *overrides])
            done += 1
    return done


def collect(runs: list[Path]) -> list[dict]:
    """One row per (run, step, benchmark, split, k): the mean pass@k."""
    rows = []
    for run in runs:
        for results in sorted((run / "eval").glob("step_*/*/results.json")):
            step = int(results.parent.parent.name.split("_")[1])
            for bench, entry in json.loads(results.read_text())["benchmarks"].items():
                for split, s in entry["splits"].items():
                    for k, v in s.items():
                        if k.startswith("pass@"):
                            rows.append({"run": run.name, "step": step, "benchmark": bench, "split": split,
                                         "metric": k, "value": v["mean"]})
    return rows


def plot(rows: list[dict], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from utils.records import atomic_write_text

    out.mkdir(parents=True, exist_ok=True)
    lines = ["run,step,benchmark,split,metric,value"] + [
        f"{r['run']},{r['step']},{r['benchmark']},{r['split']},{r['metric']},{r['value']:.6f}" for r in rows]
    atomic_write_text(out / "curves.csv", "\n".join(lines) + "\n")
    written = []
    for key in sorted({(r["benchmark"], r["split"], r["metric"]) for r in rows}):
        fig, ax = plt.subplots(figsize=(4.5, 3.2))
        for run in sorted({r["run"] for r in rows}):
            pts = sorted((r["step"], r["value"]) for r in rows if (r["benchmark"], r["split"], r["metric"]) == key
                         and r["run"] == run)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=run)
        bench, split, metric = key
        ax.set_title(f"{bench}{'' if split == 'all' else '/' + split} {metric}")
        ax.set_xlabel("training steps")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = out / f"{bench}_{split}_{metric.replace('@', '')}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def solve_rates(run: Path, key: str = "chain_level") -> list[dict]:
    """Cumulative solve rate (%) per level of `key` at each logged step of a run."""
    from omegaconf import OmegaConf

    from utils.records import load_records, read_jsonl_tolerant

    cfg = OmegaConf.to_container(OmegaConf.load(run / "config.yaml"))
    level = {r["id"]: (r.get("meta") or {}).get(key) for s in cfg["data"]["sources"] if s.get("data")
             for r in load_records(s["data"])}
    totals: dict[str, int] = {}
    for v in level.values():
        if v is not None:
            totals[v] = totals.get(v, 0) + 1
    first: dict[str, int] = {}
    steps = set()
    for row in read_jsonl_tolerant(run / "samples.jsonl"):
        steps.add(row["step"])
        if row.get("correct") and level.get(row.get("id")) is not None:
            first[row["id"]] = min(first.get(row["id"], row["step"]), row["step"])
    return [{"run": run.name, "step": step, "level": lv,
             "value": 100.0 * sum(1 for i, s in first.items() if s <= step and level[i] == lv) / n}
            for step in sorted(steps) for lv, n in sorted(totals.items())]


def plot_solve_rates(rows: list[dict], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from utils.records import atomic_write_text

    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "solve_rates.csv", "run,step,level,value\n" + "".join(
        f"{r['run']},{r['step']},{r['level']},{r['value']:.4f}\n" for r in rows))
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for i, run in enumerate(sorted({r["run"] for r in rows})):
        for level in sorted({r["level"] for r in rows}):
            pts = [(r["step"], r["value"]) for r in rows if r["run"] == run and r["level"] == level]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="-" if i == 0 else "--", label=f"{run} {level}")
    ax.set_xlabel("RL training step")
    ax.set_ylabel("cumulative solve rate (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "solve_rates.png", dpi=120)
    plt.close(fig)
    return out / "solve_rates.png"


def main(argv: list[str]) -> None:
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("eval", help="evaluate every checkpoint of runs")
    e.add_argument("runs", nargs="+", type=Path)
    e.add_argument("--configs", nargs="+", default=list(CONFIGS), help="configs/eval/<name>.yaml to run")
    e.add_argument("--no-base", action="store_true", help="skip the base model (step 0)")
    e.add_argument("--watch", type=float, default=0, help="repeat every this many seconds (0: once)")
    p = sub.add_parser("plot", help="curves over training steps")
    p.add_argument("runs", nargs="+", type=Path)
    p.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("solve-rates", help="cumulative solve rate per level (Fig. 9)")
    r.add_argument("runs", nargs="+", type=Path)
    r.add_argument("--key", default="chain_level", help="the records' level field")
    r.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "solve-rates":
        rows = [row for run in args.runs for row in solve_rates(run, args.key)]
        print(f"wrote {plot_solve_rates(rows, args.out)} and solve_rates.csv")
        return
    if args.cmd == "eval":
        while True:
            n = sum(evaluate_run(run, args.configs, extra, not args.no_base) for run in args.runs)
            print(f"code_rl_curves: evaluated {n} checkpoint x config pairs", flush=True)
            if not args.watch:
                break
            time.sleep(args.watch)
    else:
        rows = collect(args.runs)
        if not rows:
            sys.exit(f"code_rl_curves: no <run>/eval/step_*/*/results.json under {[str(r) for r in args.runs]}")
        paths = plot(rows, args.out)
        print(f"wrote {args.out}/curves.csv and {len(paths)} plots")


if __name__ == "__main__":
    main(sys.argv[1:])
