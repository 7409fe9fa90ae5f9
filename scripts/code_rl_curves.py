"""The code-RL paper's figures: pass@k on LiveCodeBench, MATH-500 and AIME 2024 over training steps.

    # evaluate every checkpoint of a run and of its seed<N>/ runs (and the base model as step 0)
    # that is not evaluated yet;
    # with --watch, again every N seconds while training runs (a checkpoint lives save_every x
    # keep_last steps)
    python scripts/code_rl_curves.py eval runs/code_rl/qwen3_8b/real_25k --watch 600
    # one PNG per metric, a line per experiment (mean +- std over its seeds), and curves.csv
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

solve-rates reads each run's solved.jsonl (train.py: per step, the ids of the problems that at
least one of the step's rollouts solved, over every rollout of every rank) and its training records
(the run's data source): the share of each level's problems solved at least once up to each step.

Seeds (the paper's curves are 'averaged across three seeds', two for Qwen2.5-32B): the runs given
are grouped by experiment, and each line is the mean over its seeds with a band of +- one standard
deviation (sample std; 0 for one seed), a step's point over the seeds that have it (the CSVs give
their count). Runs are one experiment when their config.yaml agree on everything but `seed`,
`name`, `out_dir` and the keys that only change how a run is watched or saved (train.RUN_ONLY_KEYS);
its label is the name without a trailing /seed<N>. A run directory's seed<N>/ folders holding a
config.yaml are taken with it: scripts/sweep.sbatch names seed N's run <name>/seed<N>, so
`plot runs/code_rl/qwen3_8b/real_25k` draws all three seeds of REAL 25K.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIGS = ("livecodebench", "code_paper_math500", "code_paper_aime24")


def stop(msg: str) -> None:
    """Input that cannot make a figure (a missing file, runs that are not seeds of one experiment)."""
    print(f"code_rl_curves: {msg}", file=sys.stderr)
    sys.exit(2)


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


def with_seeds(runs: list[Path]) -> list[Path]:
    """The runs given and the seed<N>/ runs inside them (scripts/sweep.sbatch's names), each once."""
    out = []
    for run in runs:
        seeds = sorted(p.parent for p in run.glob("seed*/config.yaml") if re.fullmatch(r"seed\d+", p.parent.name))
        for r in [run, *seeds]:
            if r.resolve() not in {o.resolve() for o in out}:
                out.append(r)
    return out


def experiments(runs: list[Path]) -> dict[Path, tuple[str, int]]:
    """Each run's (experiment label, seed). One line (exit 2) when two experiments would share a
    label or one experiment holds a seed twice: either would merge curves that are not seeds of one."""
    from omegaconf import OmegaConf

    import train
    from utils.config import _leaves

    drop = ("seed", "name", "out_dir", *train.RUN_ONLY_KEYS)
    groups: dict[str, list[tuple[Path, str, int]]] = defaultdict(list)
    for run in runs:
        if not (run / "config.yaml").is_file():
            stop(f"{run / 'config.yaml'} does not exist (a train.py run directory?)")
        cfg = _leaves(OmegaConf.to_container(OmegaConf.load(run / "config.yaml")))
        key = json.dumps({k: v for k, v in cfg.items() if not any(k == d or k.startswith(d + ".") for d in drop)},
                         sort_keys=True, default=str)
        groups[key].append((run, re.sub(r"/seed\d+$", "", str(cfg.get("name") or run.name)), cfg.get("seed", 0)))
    out, labels = {}, {}
    for key, members in groups.items():
        label = min(m[1] for m in members)
        if label in labels:
            stop(f"{labels[label]} and {members[0][0]} are both {label!r} but their configs "
                     f"differ beyond the seed: name one of them apart (name=...)")
        labels[label] = members[0][0]
        seeds = [m[2] for m in members]
        for run, _, seed in members:
            if seeds.count(seed) > 1:
                twice = ", ".join(str(m[0]) for m in members if m[2] == seed)
                stop(f"{label!r} has seed {seed} twice ({twice})")
            out[run] = (label, seed)
    return out


def mean_std(rows: list[dict], keys: tuple[str, ...]) -> list[dict]:
    """Per-run rows {experiment, seed, *keys, value} as one row per (experiment, *keys): the mean,
    sample std (0 for one seed) and the number of seeds."""
    values = defaultdict(list)
    for r in rows:
        values[(r["experiment"], *(r[k] for k in keys))].append(r["value"])
    return [{"experiment": k[0], **dict(zip(keys, k[1:])), "mean": statistics.fmean(v),
             "std": statistics.stdev(v) if len(v) > 1 else 0.0, "seeds": len(v)} for k, v in sorted(values.items())]


def collect(runs: list[Path]) -> list[dict]:
    """One row per (run, step, benchmark, split, k): the mean pass@k, with the run's experiment and seed."""
    rows = []
    for run, (experiment, seed) in experiments(with_seeds(runs)).items():
        for results in sorted((run / "eval").glob("step_*/*/results.json")):
            step = int(results.parent.parent.name.split("_")[1])
            for bench, entry in json.loads(results.read_text())["benchmarks"].items():
                for split, s in entry["splits"].items():
                    for k, v in s.items():
                        if k.startswith("pass@"):
                            rows.append({"run": str(run), "experiment": experiment, "seed": seed, "step": step,
                                         "benchmark": bench, "split": split, "metric": k, "value": v["mean"]})
    return rows


def _band(ax, pts: list[dict], **kw) -> None:
    """A mean line over steps with its +- std band."""
    xs, mean, std = [p["step"] for p in pts], [p["mean"] for p in pts], [p["std"] for p in pts]
    line, = ax.plot(xs, mean, **kw)
    ax.fill_between(xs, [m - s for m, s in zip(mean, std)], [m + s for m, s in zip(mean, std)],
                    color=line.get_color(), alpha=0.2, linewidth=0)


def _label(name: str, pts: list[dict]) -> str:
    n = max(p["seeds"] for p in pts)
    return f"{name} ({n} seed{'s' if n > 1 else ''})"


def plot(rows: list[dict], out: Path) -> list[Path]:
    """One PNG per (benchmark, split, metric): a line per experiment, mean +- std over its seeds;
    curves.csv holds the points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from utils.records import atomic_write_text

    out.mkdir(parents=True, exist_ok=True)
    keys = ("step", "benchmark", "split", "metric")
    agg = mean_std(rows, keys)
    lines = ["experiment,step,benchmark,split,metric,mean,std,seeds"] + [
        f"{r['experiment']},{r['step']},{r['benchmark']},{r['split']},{r['metric']},{r['mean']:.6f},{r['std']:.6f},"
        f"{r['seeds']}" for r in agg]
    atomic_write_text(out / "curves.csv", "\n".join(lines) + "\n")
    written = []
    for key in sorted({(r["benchmark"], r["split"], r["metric"]) for r in agg}):
        fig, ax = plt.subplots(figsize=(4.5, 3.2))
        for experiment in sorted({r["experiment"] for r in agg}):
            pts = [r for r in agg if (r["benchmark"], r["split"], r["metric"]) == key and r["experiment"] == experiment]
            if pts:
                _band(ax, pts, marker="o", label=_label(experiment, pts))
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
    """Cumulative solve rate (%) per level of `key` at each step of a run, over every rollout
    (the run's solved.jsonl)."""
    from omegaconf import OmegaConf

    from utils.records import load_records, read_jsonl_tolerant

    if not (run / "solved.jsonl").is_file():
        stop(f"{run / 'solved.jsonl'} does not exist (train.py writes it for RL runs; "
                 f"samples.jsonl holds only rl.log_samples rollouts a step, too few to count)")
    cfg = OmegaConf.to_container(OmegaConf.load(run / "config.yaml"))
    level = {r["id"]: (r.get("meta") or {}).get(key) for s in cfg["data"]["sources"] if s.get("data")
             for r in load_records(s["data"])}
    totals: dict[str, int] = defaultdict(int)
    for v in level.values():
        if v is not None:
            totals[v] += 1
    first: dict[str, int] = {}
    steps = set()
    for row in read_jsonl_tolerant(run / "solved.jsonl"):
        steps.add(row["step"])
        for i in row["ids"]:
            if level.get(i) is not None:
                first[i] = min(first.get(i, row["step"]), row["step"])
    return [{"run": str(run), "step": step, "level": lv,
             "value": 100.0 * sum(1 for i, s in first.items() if s <= step and level[i] == lv) / n}
            for step in sorted(steps) for lv, n in sorted(totals.items())]


def collect_solve_rates(runs: list[Path], key: str = "chain_level") -> list[dict]:
    """solve_rates of every run (and its seed folders), with its experiment and seed."""
    return [{**row, "experiment": experiment, "seed": seed}
            for run, (experiment, seed) in experiments(with_seeds(runs)).items() for row in solve_rates(run, key)]


def plot_solve_rates(rows: list[dict], out: Path) -> Path:
    """Fig. 9's form: a line per (experiment, level), the first experiment solid and the others dashed,
    mean +- std over seeds; solve_rates.csv holds the points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from utils.records import atomic_write_text

    out.mkdir(parents=True, exist_ok=True)
    agg = mean_std(rows, ("step", "level"))
    atomic_write_text(out / "solve_rates.csv", "experiment,step,level,mean,std,seeds\n" + "".join(
        f"{r['experiment']},{r['step']},{r['level']},{r['mean']:.4f},{r['std']:.4f},{r['seeds']}\n" for r in agg))
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for i, experiment in enumerate(dict.fromkeys(r["experiment"] for r in rows)):  # in the order given
        for level in sorted({r["level"] for r in agg}):
            pts = [r for r in agg if r["experiment"] == experiment and r["level"] == level]
            if pts:
                _band(ax, pts, linestyle="-" if i == 0 else "--", label=_label(f"{experiment} {level}", pts))
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
        print(f"wrote {plot_solve_rates(collect_solve_rates(args.runs, args.key), args.out)} and solve_rates.csv")
        return
    if args.cmd == "eval":
        while True:
            n = sum(evaluate_run(run, args.configs, extra, not args.no_base) for run in with_seeds(args.runs))
            print(f"code_rl_curves: evaluated {n} checkpoint x config pairs", flush=True)
            if not args.watch:
                break
            time.sleep(args.watch)
    else:
        rows = collect(args.runs)
        if not rows:
            stop(f"no <run>/eval/step_*/*/results.json under {[str(r) for r in args.runs]}")
        paths = plot(rows, args.out)
        print(f"wrote {args.out}/curves.csv and {len(paths)} plots")


if __name__ == "__main__":
    main(sys.argv[1:])
