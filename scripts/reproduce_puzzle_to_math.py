"""The puzzle-to-math paper end to end: every stage of docs/reproduce/puzzle_to_math.md as a command.

    python scripts/reproduce_puzzle_to_math.py --print            # the commands, in order (GPU cluster)
    python scripts/reproduce_puzzle_to_math.py --cpu runs/p2m_cpu  # the same commands, CPU-sized, end to end

--print is what the doc's command block holds (tests/test_reproduce_puzzle_to_math.py checks they
agree). --cpu runs every stage in one process on the tiny local model and small data, with each
stage's CPU overrides appended and `runs/` under the given directory: hub benchmarks become the
fixture files of their layout (tests/data/bench), the DeepSeek teacher and judges become the tiny
model, replayed answers and the embedded n-gram labeller. It shows the wiring, not the paper's numbers.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRAIN = "torchrun --nproc_per_node 8 train.py"
EVAL = "python evaluate.py --config configs/eval/puzzle_to_math.yaml"
CLASSIFIER = "classifier.load=runs/analysis/p2m/analysis/classifier"  # fine-tuned once, by stage `analysis`


@dataclass
class Stage:
    id: str
    cmd: str
    cpu: list[str] = field(default_factory=list)  # overrides appended on CPU ({tiny}, {out} filled in)
    each: str = ""  # run cmd once per directory matching this glob ({dir}, {name} filled in)


RL_CPU = ["rl.steps=2", "rl.batch_size=8", "rl.group_size=4", "rl.minibatches=2", "rl.micro_batch_size=8",
          "rl.max_tokens=12", "rl.engine.backend=hf", "keep_every=1", "save_every=1000", "gradient_checkpointing=false",
          "cpu_threads=1"]
PILOT_CPU = [o for o in RL_CPU if not o.startswith("keep_every=")] + ["rl.steps=1"]  # the pilots keep no steps
EVAL_CPU = ["engine.backend=hf", "n=2", "k=[1,2]", "max_tokens=8", "bootstrap=20", "grading_workers=1"]
ANALYZE_CPU = ["classifier.kind=ngram", "classifier.train_data=shipped", "classifier.load=''", "strata=[]", "judges=[]",
               "tokenizer={tiny}", "passk=[1,2]", "bootstrap=20", "plot_benchmarks=[olymmath_en_hard,puzzles*,bridges*]"]

STAGES = [
    Stage("data", "python generate.py --config configs/generate/puzzles.yaml",
          ["workers=1", "splits.test=[{env: bridges, count: 2, params: {width: 5, height: 5, level: easy}}, "
                        "{env: undead, count: 2, params: {width: 4, height: 4, level: easy}}]",
           "splits.train_sft=[{env: undead, count: 4, params: {width: 3, height: 3, level: easy}}, "
           "{env: bridges, count: 4, params: {width: 4, height: 4, level: easy}}]",
           "splits.train_rl=[{env: undead, count: 4, params: {width: 3, height: 3, level: normal}}]"]),
    Stage("traces", "python generate.py --config configs/generate/sft_traces.yaml",
          ["traces.teacher.backend=hf", "traces.teacher.model={tiny}", "traces.samples=1", "traces.max_tokens=8",
           "traces.include_answer=true"]),
    Stage("sft", f"{TRAIN} --config configs/paper/puzzles_sft.yaml",
          ["model={tiny}", "sft.max_len=2048", "sft.epochs=2", "sft.batch_size=8", "sft.micro_batch_size=8",
           "optim.lr=5e-3", "gradient_checkpointing=false", "cpu_threads=1"]),
    Stage("vanilla", f"{TRAIN} --config configs/paper/gspo_vanilla.yaml", RL_CPU),
    Stage("novelty", f"{TRAIN} --config configs/paper/gspo_novelty.yaml", RL_CPU),
    # the pilots, all at one mini scale (configs/train/gspo_pilot.yaml; line 111), and GRPO beside them (line 39)
    Stage("pilot_vanilla", f"{TRAIN} --config configs/paper/pilot_gspo_vanilla.yaml", PILOT_CPU),
    Stage("pilot_novelty", f"{TRAIN} --config configs/paper/pilot_gspo_novelty.yaml", PILOT_CPU),
    Stage("pilot_entropy", f"{TRAIN} --config configs/paper/pilot_gspo_entropy.yaml", PILOT_CPU),
    Stage("pilot_entropy_adv", f"{TRAIN} --config configs/paper/pilot_gspo_entropy_adv.yaml", PILOT_CPU),
    Stage("pilot_grpo", f"{TRAIN} --config configs/paper/pilot_grpo.yaml", PILOT_CPU),
    Stage("eval_base", f"{EVAL} name=eval/base model=allenai/Olmo-3-7B-Instruct-SFT", EVAL_CPU + ["model={tiny}"]),
    Stage("eval_sft", f"{EVAL} name=eval/sft model=runs/paper/puzzles_sft/final", EVAL_CPU),
    Stage("eval_vanilla", f"{EVAL} name=eval/vanilla model=runs/paper/gspo_vanilla/final", EVAL_CPU),
    Stage("eval_novelty", f"{EVAL} name=eval/novelty model=runs/paper/gspo_novelty/final", EVAL_CPU),
    Stage("eval_steps", "python evaluate.py --config configs/eval/olymmath_hard.yaml name=eval/vanilla_{name} model={dir}",
          EVAL_CPU, each="runs/paper/gspo_vanilla/kept/step_*"),
    Stage("eval_pilots", "python evaluate.py --config configs/eval/olymmath_hard.yaml name=eval/pilot_{name} "
                         "model={dir}/final", EVAL_CPU, each="runs/paper/pilot/*"),
    Stage("eval_teacher", "python evaluate.py --config configs/eval/dsr_teacher.yaml",
          ["engine.backend=replay", "engine.replay_path={out}/teacher_replay.jsonl", "n=2", "k=[1,2]",
           "bootstrap=20"]),
    Stage("compare", "python evaluate.py compare runs/eval/base runs/eval/sft runs/eval/vanilla runs/eval/novelty"),
    Stage("compare_rl", "python evaluate.py compare runs/eval/vanilla runs/eval/novelty"),
    Stage("analysis", "python analyze.py --config configs/analyze/paper.yaml name=analysis/p2m "
                      "inputs=[runs/eval/base/samples.jsonl,runs/eval/sft/samples.jsonl,runs/eval/vanilla/samples.jsonl,"
                      "runs/eval/novelty/samples.jsonl] compare=runs/eval/compare-vanilla-novelty/compare.json",
          ANALYZE_CPU),
    Stage("analysis_vocabulary", f"python analyze.py --config configs/analyze/paper.yaml {CLASSIFIER} "
                                 "name=analysis/sft_vocabulary default_benchmark=puzzles 'inputs=[runs/eval/base/samples.jsonl,"
                                 "runs/eval/dsr_teacher/samples.jsonl,runs/data/sft_traces/train-*.jsonl,"
                                 "runs/eval/sft/samples.jsonl]'", ANALYZE_CPU),
    Stage("analysis_steps", f"python analyze.py --config configs/analyze/paper.yaml {CLASSIFIER} "
                            "name=analysis/vanilla_steps inputs=[runs/paper/gspo_vanilla/samples.jsonl] "
                            "'fields={checkpoint: step, benchmark: env}'", ANALYZE_CPU),
    Stage("analysis_checkpoints", f"python analyze.py --config configs/analyze/paper.yaml {CLASSIFIER} "
                                  "name=analysis/vanilla_checkpoints 'inputs=[runs/eval/vanilla_step_*/samples.jsonl]'",
          ANALYZE_CPU),
    Stage("novelty_signal", "python analyze.py novelty-signal runs/paper/gspo_novelty"),
    Stage("figure_pilots", "python analyze.py compare-runs runs/paper/pilot/gspo_vanilla runs/paper/pilot/gspo_novelty "
                           "runs/paper/pilot/gspo_entropy runs/paper/pilot/gspo_entropy_adv --out runs/figures/pilots"),
    Stage("figure_grpo_gspo", "python analyze.py compare-runs runs/paper/pilot/grpo_vanilla runs/paper/pilot/gspo_vanilla "
                              "--out runs/figures/grpo_vs_gspo"),
]


def fill(text: str, **values: str) -> str:
    """{key} placeholders replaced (str.format would trip on the YAML braces of overrides)."""
    for k, v in values.items():
        text = text.replace("{" + k + "}", v)
    return text


def commands() -> list[str]:
    """The stages as they run on a cluster, in order (a loop for per-checkpoint stages)."""
    out = []
    for s in STAGES:
        if s.each:
            out.append(f"for d in {s.each}; do {fill(s.cmd, dir='$d', name='$(basename $d)')}; done")
        else:
            out.append(s.cmd)
    return out


# ------------------------------------------------------------------ the CPU variant


FIXTURES = {"MathArena/": "matharena.jsonl", "allenai/omega-": "omega.jsonl", "RUC-AIBOX/OlymMATH": "math.jsonl"}


def cpu_eval_config(name: str, out: Path) -> Path:
    """configs/eval/<name> with every hub benchmark on the fixture file of its layout (3 problems per
    N=100 subset, no expected count): the same benchmark names, kinds, fields and groups."""
    import yaml

    src = ROOT / "configs" / "eval" / name
    cfg = yaml.safe_load(src.read_text())
    if "base" in cfg:
        cfg["base"] = str(src.parent / cfg["base"])
    for b in cfg.get("benchmarks", []):
        hub = next((f for prefix, f in FIXTURES.items() if b["path"].startswith(prefix)), None)
        if hub is not None:
            b.update(path=str(ROOT / "tests" / "data" / "bench" / hub), problems=0, data_files="",
                     sample=min(b.get("sample", 0), 3))
    dest = out / "cpu_configs" / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return dest


def teacher_replay(out: Path) -> None:
    """The CPU stand-in for DeepSeek-Reasoner on the held-out puzzles: their gold answers, replayed."""
    from utils.records import load_split, write_jsonl

    recs = load_split(out / "runs" / "data" / "puzzles", "test", training=False)
    write_jsonl(out / "teacher_replay.jsonl", [{"prompt": r["prompt"], "responses": [r["answer"]]} for r in recs])


def run_cpu(out: Path, only: list[str] | None = None) -> dict[str, float]:
    """Every stage (or those named in `only`) on CPU under out/runs; returns seconds per stage."""
    import analyze
    import evaluate
    import generate
    import train
    from utils.tiny import build_tiny

    out = out.resolve()
    (out / "runs").mkdir(parents=True, exist_ok=True)
    tiny = str(build_tiny(out / "tiny"))
    entry = {"generate.py": generate.main, "train.py": train.main, "evaluate.py": evaluate.main,
             "analyze.py": analyze.main}
    cwd, seconds = os.getcwd(), {}
    os.chdir(out)  # configs name runs/...: here, out/runs
    try:
        for s in STAGES:
            if only and s.id not in only:
                continue
            if s.id == "eval_teacher":
                teacher_replay(out)
            t0 = time.process_time()
            dirs = sorted(glob.glob(s.each)) if s.each else [None]
            for d in dirs:
                argv = shlex.split(fill(s.cmd, dir=d, name=Path(d).name) if d else s.cmd)
                argv = argv[argv.index(next(a for a in argv if a.endswith(".py"))):]  # drop python / torchrun
                script, args = argv[0], argv[1:]
                if "--config" in args:
                    i = args.index("--config") + 1
                    args[i] = str(cpu_eval_config(Path(args[i]).name, out) if args[i].startswith("configs/eval/")
                                  else ROOT / args[i])
                args += [fill(a, tiny=tiny, out=str(out)) for a in s.cpu]
                entry[script](args)
            seconds[s.id] = round(time.process_time() - t0, 2)
    finally:
        os.chdir(cwd)
    return seconds


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--print", action="store_true", help="print the cluster commands, in order")
    g.add_argument("--cpu", metavar="DIR", help="run every stage CPU-sized under DIR")
    p.add_argument("--only", nargs="*", help="with --cpu: only these stage ids")
    a = p.parse_args(argv)
    if a.print:
        print("\n".join(commands()))
        return
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.path.insert(0, str(ROOT))
    secs = run_cpu(Path(a.cpu), a.only)
    print(json.dumps(secs, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
