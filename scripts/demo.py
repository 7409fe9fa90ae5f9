"""`make demo`: the whole pipeline on an embedded default, on CPU, with no download (a few minutes).

1. generate a small dataset of Tatham puzzles (shows what the puzzle envs produce);
2. build the tiny local model, make sorting problems (RLVE gym, 3 numbers) and rejection-sampled
   SFT traces for them;
3. SFT, then GSPO with the frozen-reference novelty bonus;
4. evaluate the SFT and the GSPO model (pass@k) and compare them problem by problem;
5. analyze the reasoning of both evaluations (spans, primitives, motifs, chain depth).
Every step resumes: re-running `make demo` redoes nothing that is finished."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> None:
    print("\n$ python " + " ".join(args), flush=True)
    subprocess.run([sys.executable, *args], cwd=ROOT, check=True)


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
    print("\n" + summary(ROOT / "runs/demo/eval_sft", ROOT / "runs/demo/eval_gspo", ROOT / "runs/smoke/gspo_novelty",
                          ROOT / "runs/demo/summary.md"))
    print("\nLook at: runs/demo/summary.md, runs/smoke/sft and runs/smoke/gspo_novelty (curves.png, metrics.jsonl, "
          "checkpoints), runs/demo/eval_*/results.json and passk.png, runs/demo/compare-eval_sft-eval_gspo/, "
          "runs/demo/analysis/summary.md, runs/demo/data/ (puzzles)")


def summary(sft: Path, rl: Path, rl_run: Path, out: Path) -> str:
    """What the RL stage did, from the files the steps wrote: held-out pass@k of both models with
    their bootstrap intervals, and the training curves' start and end (reward, accuracy, the
    adaptive controller's difficulty). Written to `out` and returned."""
    a, b = (json.loads((d / "results.json").read_text())["benchmarks"] for d in (sft, rl))
    rows = [json.loads(line) for line in (rl_run / "metrics.jsonl").read_text().splitlines() if line.strip()]
    lines = ["# make demo: SFT, then RL", "", f"Held-out problems ({sft.name} vs {rl.name}; mean over problems, "
             "[bootstrap 95% interval]):", "", "| benchmark | problems | metric | SFT | RL | RL - SFT |", "|---|---:|---|---|---|---:|"]
    verdicts = []
    for bench, entry in a.items():
        other = b.get(bench, {}).get("splits", {}).get("all", {})
        for metric, v in entry["splits"]["all"].items():
            if not metric.startswith("pass@") or metric not in other:
                continue
            w = other[metric]
            lines.append(f"| {bench} | {entry['problems']} | {metric} | {v['mean']:.3f} [{v['ci95'][0]:.2f}, "
                         f"{v['ci95'][1]:.2f}] | {w['mean']:.3f} [{w['ci95'][0]:.2f}, {w['ci95'][1]:.2f}] | "
                         f"{w['mean'] - v['mean']:+.3f} |")
            if metric == "pass@1":
                verdicts.append(f"{bench}: " + ("RL better (its interval lies above SFT's)" if w["ci95"][0] > v["ci95"][1]
                                                else "RL worse (its interval lies below SFT's)" if w["ci95"][1] < v["ci95"][0]
                                                else "no measurable difference (the intervals overlap)"))
    lines += ["", "pass@1, RL against SFT: " + "; ".join(verdicts) + "."]
    k = max(1, min(5, len(rows) // 4))
    mean = lambda key, part: sum(r[key] for r in part) / len(part)  # noqa: E731
    lines += ["", f"RL training ({rl_run.name}, {len(rows)} steps; first and last {k} steps' means; curves in "
              f"{rl_run / 'curves.png'}):", ""]
    for key in ("reward_mean", "accuracy"):
        lines.append(f"- {key}: {mean(key, rows[:k]):.3f} -> {mean(key, rows[-k:]):.3f}")
    for key in sorted(x for x in rows[-1] if x.startswith("difficulty/")):
        lines.append(f"- {key} (adaptive controller, top of the window after step 1 and at the end): "
                     f"{rows[0][key]} -> {rows[-1][key]}")
    text = "\n".join(lines) + "\n"
    out.write_text(text)
    return text


if __name__ == "__main__":
    main()
