"""`make demo`: the whole pipeline on an embedded default, on CPU, with no download (a few minutes).

1. generate a small dataset of Tatham puzzles (shows what the puzzle envs produce);
2. build the tiny local model, make sorting problems (RLVE gym, 3 numbers) and rejection-sampled
   SFT traces for them;
3. SFT, then GSPO with the frozen-reference novelty bonus;
4. evaluate the SFT and the GSPO model (pass@k) and compare them problem by problem;
5. analyze the reasoning of both evaluations (spans, primitives, motifs, chain depth).
Every step resumes: re-running `make demo` redoes nothing that is finished.

    python scripts/demo.py --publish   # runs/demo/summary.md -> docs/results/demo.md and docs/demos.md's block
    python scripts/demo.py --check     # exit 1 if docs/demos.md's block differs from docs/results/demo.md"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from utils.passk import bootstrap_mean_ci  # noqa: E402

PUBLISHED = ROOT / "docs/results/demo.md"  # a finished run's summary.md, what PAGE quotes
PAGE = ROOT / "docs/demos.md"  # quotes both demos' published runs, each between <!-- name --> markers
TIMINGS: list[tuple[str, float, float]] = []  # (step, CPU s of its process tree, wall s), for the summary


def run(*args: str) -> None:
    print("\n$ python " + " ".join(args), flush=True)
    cpu, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    subprocess.run([sys.executable, *args], cwd=ROOT, check=True)
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    # the script, its config and run name: the other overrides would only crowd the table
    label = " ".join(a for a in args if not a.startswith("-") and ("=" not in a or a.startswith("name=")))
    TIMINGS.append((label[:80],
                    end.ru_utime + end.ru_stime - cpu.ru_utime - cpu.ru_stime, time.monotonic() - wall))


def main() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # tiny model on 2 cores: one thread each is fastest
    run("generate.py", "--config", "configs/generate/demo.yaml")
    first = json.loads((ROOT / "runs/demo/data/test-00000.jsonl").open().readline())
    print(f"\nfirst test puzzle: {first['id']}  game_id {first['meta']['game_id']}\n{first['prompt'][:600]} ...")

    run("-m", "utils.tiny", "runs/tiny")
    run("generate.py", "--config", "configs/smoke/data.yaml")
    run("generate.py", "--config", "configs/smoke/traces.yaml")
    run("train.py", "--config", "configs/smoke/sft.yaml")
    run("train.py", "--config", "configs/smoke/gspo_novelty.yaml")

    run("evaluate.py", "--config", "configs/eval/demo.yaml", "name=demo/eval_sft", "model=runs/smoke/sft/final")
    run("evaluate.py", "--config", "configs/eval/demo.yaml", "name=demo/eval_gspo",
        "model=runs/smoke/gspo_novelty/final")
    run("evaluate.py", "compare", "runs/demo/eval_sft", "runs/demo/eval_gspo")
    run("analyze.py", "--config", "configs/analyze/default.yaml", "name=demo",
        "inputs=[runs/demo/eval_sft/samples.jsonl,runs/demo/eval_gspo/samples.jsonl]", "names=[sft,gspo]",
        "compare=runs/demo/compare-eval_sft-eval_gspo/compare.json")
    sft, rl = ROOT / "runs/demo/eval_sft", ROOT / "runs/demo/eval_gspo"
    heldout_figure(sft, rl, ROOT / "runs/demo/sft_vs_rl.png")
    training_accuracy_figure(ROOT / "runs/smoke/gspo_novelty/samples.jsonl", ROOT / "runs/demo/rl_accuracy.png")
    print("\n" + summary(sft, rl, ROOT / "runs/smoke/gspo_novelty", ROOT / "runs/demo/summary.md", TIMINGS))
    print("\nLook at: runs/demo/summary.md and sft_vs_rl.png (held-out pass@k of both models), "
          "runs/demo/rl_accuracy.png (training accuracy per difficulty), "
          "runs/smoke/gspo_novelty/curves.png (reward, accuracy, the controller's difficulty), runs/smoke/sft, "
          "runs/demo/eval_*/ (results.json, per_problem.csv, samples.jsonl), runs/demo/compare-eval_sft-eval_gspo/, "
          "runs/demo/analysis/summary.md, runs/demo/data/ (puzzles)")


def heldout_figure(sft: Path, rl: Path, out: Path) -> None:
    """pass@k of both models on every held-out split, with the bootstrap bands results.json holds."""
    from utils.plots import passk_curves

    curves, bands = {}, {}
    for name, run_dir in (("SFT", sft), ("RL", rl)):
        for bench, entry in json.loads((run_dir / "results.json").read_text())["benchmarks"].items():
            for split, metrics in entry["splits"].items():
                label = f"{name}: {split if split.startswith(bench) else f'{bench} {split}'}"
                ks = {int(m.split("@")[1]): v for m, v in metrics.items() if m.startswith("pass@")}
                curves[label] = {k: v["mean"] for k, v in ks.items()}
                bands[label] = {k: tuple(v["ci95"]) for k, v in ks.items()}
    passk_curves(curves, out, title="held-out problems: SFT vs RL", bands=bands)


def shown(path: Path) -> str:
    """A path as the user typed it: relative to the repository when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def per_problem(run: Path) -> dict[tuple[str, str], dict[str, tuple[int, int]]]:
    """(benchmark, split) -> problem id -> (n, c), from an evaluation's per_problem.csv."""
    out: dict = {}
    with (run / "per_problem.csv").open() as f:
        for row in csv.DictReader(f):
            for split in ("all", row["split"]):
                out.setdefault((row["benchmark"], split), {})[row["problem_id"]] = (int(row["n"]), int(row["c"]))
    return out


def rollouts_by_split(samples: Path) -> dict[str, dict[int, list[bool]]]:
    """samples.jsonl of an RL run -> {split ("sorting d=0"): {step: [correct, ...]}}; {} without it."""
    steps: dict[str, dict[int, list[bool]]] = {}
    if samples.is_file():
        for line in samples.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                steps.setdefault(row["split"], {}).setdefault(row["step"], []).append(bool(row["correct"]))
    return steps


def training_accuracy_figure(samples: Path, out: Path, k: int = 5) -> list[str]:
    """Training accuracy per difficulty against the step, each point pooling the rollouts of the
    last k steps that drew that difficulty: the curve curves.png cannot show (its accuracy is the
    mean over a step, which falls when the controller adds a harder difficulty). Returns the curves'
    labels, [] (and no figure) when samples.jsonl holds nothing."""
    from utils.plots import step_curves

    series = {}
    for split, by_step in sorted(rollouts_by_split(samples).items()):
        order = sorted(by_step)
        pooled = ([c for s in order[max(0, i - k + 1):i + 1] for c in by_step[s]] for i in range(len(order)))
        series[split] = [(step, sum(p) / len(p)) for step, p in zip(order, pooled)]
    if not series:
        return []
    return step_curves(series, out, "training accuracy per difficulty", f"accuracy (last {k} steps drawing it)",
                       xlabel="RL step")


def training_accuracy(samples: Path, k: int) -> dict[str, tuple[float, float, int, int]]:
    """Per difficulty ("sorting d=0"), the accuracy of the training rollouts of the first k and the
    last k steps that drew it, and how many rollouts that is (from samples.jsonl, which holds every
    rollout with rl.log_samples: -1). The mean accuracy over a step mixes difficulties: it falls when
    the controller adds a harder one, whatever the policy learned. Difficulties seen in fewer than
    2k steps are left out."""
    out = {}
    for split, by_step in sorted(rollouts_by_split(samples).items()):
        order = sorted(by_step)
        if len(order) >= 2 * k:
            first = [c for s in order[:k] for c in by_step[s]]
            last = [c for s in order[-k:] for c in by_step[s]]
            out[split] = (sum(first) / len(first), sum(last) / len(last), len(first), len(last))
    return out


def heldout_section(models: list[tuple[str, Path]]) -> tuple[list[str], list[str]]:
    """The held-out table of several evaluations of the same problems (in order: base, SFT, RL):
    each model's pass@k with its bootstrap interval, and each model minus the one before it, on
    pass@1 with a paired bootstrap interval over the same problems. Returns (table lines, verdicts)."""
    results = [json.loads((d / "results.json").read_text())["benchmarks"] for _, d in models]
    problems = [per_problem(d) for _, d in models]
    names = [n for n, _ in models]
    steps = list(zip(range(len(models) - 1), range(1, len(models))))
    lines = ["| benchmark | split | problems | metric | " + " | ".join(names) + " | "
             + " | ".join(f"{names[j]} - {names[i]}" for i, j in steps) + " |",
             "|---|---|---:|---|" + "---|" * len(names) + "---:|" * len(steps)]
    verdicts = []
    for bench, entry in results[0].items():
        for split, metrics in entry["splits"].items():
            where = split if split.startswith(bench) else f"{bench} {split}"  # "sorting d=0", "sorting all"
            for metric, v in metrics.items():
                row = [r.get(bench, {}).get("splits", {}).get(split, {}).get(metric) for r in results]
                if not metric.startswith("pass@") or None in row:
                    continue
                diffs = []
                for i, j in steps:
                    diff = f"{row[j]['mean'] - row[i]['mean']:+.3f}"
                    if metric == "pass@1":
                        pa, pb = problems[i].get((bench, split), {}), problems[j].get((bench, split), {})
                        d = [pb[p][1] / pb[p][0] - pa[p][1] / pa[p][0] for p in sorted(set(pa) & set(pb))]
                        lo, hi = bootstrap_mean_ci(d) if d else (0.0, 0.0)
                        diff += f" [{lo:+.2f}, {hi:+.2f}]"
                        than = "" if len(models) == 2 else f" than {names[i]}"
                        verdicts.append(f"{where}: " + (
                            f"{names[j]} better{than}" if lo > 0 else f"{names[j]} worse{than}" if hi < 0 else
                            "no measurable difference" + (f" between {names[i]} and {names[j]}" if than else ""))
                            + f" ({diff})")
                    diffs.append(diff)
                lines.append(f"| {bench} | {split} | {len(problems[0].get((bench, split), {}))} | {metric} | "
                             + " | ".join(f"{x['mean']:.3f} [{x['ci95'][0]:.2f}, {x['ci95'][1]:.2f}]" for x in row)
                             + " | " + " | ".join(diffs) + " |")
    return lines, verdicts


def training_section(rl_run: Path, figure_dir: Path) -> list[str]:
    """The RL run's curves, first against last steps: reward, accuracy, entropy, the training
    accuracy per difficulty, the controller's difficulty, what was trained."""
    rows = [json.loads(line) for line in (rl_run / "metrics.jsonl").read_text().splitlines() if line.strip()]
    k = max(1, min(5, len(rows) // 4))

    def mean(key: str, part: list[dict]) -> float:
        values = [r[key] for r in part if r.get(key) is not None]  # entropy: None when no row trained
        return sum(values) / len(values) if values else float("nan")

    lines = [f"RL training ({rl_run.name}, {len(rows)} steps; first and last {k} steps' means; curves in "
             f"{shown(rl_run / 'curves.png')}):", ""]
    config = rl_run / "config.yaml"
    saved = (yaml.safe_load(config.read_text()) or {}) if config.is_file() else {}
    trainable = saved.get("optim", {}).get("trainable")
    if trainable:
        lines.append(f"- trained parameters: only those whose name matches {trainable} (optim.trainable)")
    for key in ("reward_mean", "accuracy", "entropy"):
        if any(key in r for r in rows):
            lines.append(f"- {key}: {mean(key, rows[:k]):.3f} -> {mean(key, rows[-k:]):.3f}")
    for split, (first, last, n_first, n_last) in training_accuracy(rl_run / "samples.jsonl", k).items():
        lines.append(f"- accuracy at {split} (rollouts of the first and last {k} steps that drew it: {n_first} and "
                     f"{n_last}): {first:.3f} -> {last:.3f}")
    if (figure_dir / "rl_accuracy.png").is_file():
        lines.append(f"- training accuracy per difficulty, step by step: {shown(figure_dir / 'rl_accuracy.png')}")
    for key in sorted(x for x in rows[-1] if x.startswith("difficulty/")):
        lines.append(f"- {key} (adaptive controller, top of the window): {rows[0][key]} at step 1, "
                     f"{max(r[key] for r in rows)} at most, {rows[-1][key]} at the end")
    return lines


def timing_section(timings: list[tuple[str, float, float]]) -> list[str]:
    lines = ["Time per step (this run; a step done by an earlier run costs nothing):", "",
             "| step | CPU s | wall s |", "|---|---:|---:|"]
    lines += [f"| {name} | {cpu:.1f} | {wall:.1f} |" for name, cpu, wall in timings]
    return lines + [f"| total | {sum(t[1] for t in timings):.1f} | {sum(t[2] for t in timings):.1f} |"]


def summary(sft: Path, rl: Path, rl_run: Path, out: Path, timings: list[tuple[str, float, float]] = ()) -> str:
    """What the RL stage did, from the files the steps wrote: held-out pass@k of both models with
    their bootstrap intervals, per difficulty; RL - SFT on pass@1 with a paired bootstrap interval
    over the same problems (the verdict); the training curves' start and end (reward, accuracy, the
    adaptive controller's difficulty), the training accuracy per difficulty (the mean falls when
    the controller adds a harder one); CPU and wall seconds per step. Written to `out` and returned."""
    table, verdicts = heldout_section([("SFT", sft), ("RL", rl)])
    lines = ["# make demo: SFT, then RL", "", f"Held-out problems ({sft.name} vs {rl.name}; mean over problems "
             "[bootstrap 95% interval]; RL - SFT on pass@1 with a paired bootstrap interval over the same problems):",
             "", *table]
    figure = out.parent / "sft_vs_rl.png"
    if figure.is_file():
        lines += ["", f"Figure: {shown(figure)} (pass@k of both models per split, with the bands)."]
    lines += ["", "pass@1, RL against SFT (better / worse: the paired interval excludes 0):", ""]
    lines += [f"- {v}" for v in verdicts]
    lines += ["", *training_section(rl_run, out.parent)]
    if timings:
        lines += ["", *timing_section(timings)]
    text = "\n".join(lines) + "\n"
    out.write_text(text)
    return text


def publish(new: str | None, published: Path, page: Path, name: str, quote, redo: str) -> None:
    """Write `new` (a finished run's summary) to `published`, then `quote(published text)` between
    `page`'s `<!-- name -->` markers; with new=None, only exit 1 if the page's block differs from
    the published file. The published copy lives in the repository (runs/ does not), so the docs'
    figures are never typed by hand and a test sees when they drift. `redo`: how to renew them."""
    if new is not None:
        published.parent.mkdir(parents=True, exist_ok=True)
        published.write_text(new)
    if not published.is_file():
        sys.exit(f"{name}: {shown(published)} does not exist: run {redo}")
    block = re.compile(rf"(<!-- {name} -->\n)(.*?)(<!-- /{name} -->)", re.S)
    text = page.read_text()
    if not block.search(text):
        sys.exit(f"{name}: {shown(page)} has no <!-- {name} --> block")
    filled = block.sub(lambda m: m[1] + quote(published.read_text()) + m[3], text)
    if new is None:
        if filled != text:
            sys.exit(f"{name}: {shown(page)}'s {name} block differs from {shown(published)}: run {redo}")
        return
    page.write_text(filled)
    print(f"{name}: wrote {shown(published)} and {shown(page)}'s {name} block", file=sys.stderr)


def published_summary(out: Path) -> str:
    """runs/demo/summary.md with a line saying when and at which commit the run began (the first
    step's run_info.json) and where it is published from."""
    src = out / "summary.md"
    if not src.is_file():
        sys.exit(f"demo: {shown(src)} does not exist: run `make demo` first")
    from bench import machine  # scripts/ is on sys.path when this file runs as a script

    title, rest = src.read_text().split("\n", 1)
    info = out / "data/run_info.json"
    run = json.loads(info.read_text()) if info.is_file() else {}
    at = str(run.get("git_commit"))
    started = (f"Run started {run.get('time')} at commit {at[:10]}"
               f"{' with uncommitted changes' if at.endswith('-dirty') else ''}; published from {shown(src)} "
               f"on {machine(short=True)}.")
    return f"{title}\n\n{started}\n{rest}"


def page_block(published: str) -> str:
    """What docs/demos.md quotes of the published summary: all of it but the title."""
    return published.split("\n", 1)[1].strip() + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--publish", action="store_true", help="copy runs/demo/summary.md into docs/results/ and docs/demos.md")
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/demos.md's block differs from docs/results/")
    args = ap.parse_args()
    if args.publish or args.check:
        publish(None if args.check else published_summary(ROOT / "runs/demo"), PUBLISHED, PAGE, "demo", page_block,
                "`make demo`, then `python scripts/demo.py --publish`")
    else:
        main()
