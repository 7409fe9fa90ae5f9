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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reproduce_lib  # noqa: E402
from reproduce_lib import Stage  # noqa: E402

TRAIN = "torchrun --nproc_per_node 8 train.py"
EVAL = "python evaluate.py --config configs/eval/puzzle_to_math.yaml"
CLASSIFIER = "classifier.load=runs/analysis/p2m/analysis/classifier"  # fine-tuned once, by stage `analysis`

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
    # line 135: OMEGA Explorative's N=100 subset against the whole split, on one model (configs/eval/omega_full.yaml)
    Stage("eval_omega_full", "python evaluate.py --config configs/eval/omega_full.yaml name=eval/omega_full "
                             "model=runs/paper/puzzles_sft/final", EVAL_CPU),
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


# hub benchmark -> the fixture file of its layout (tests/data/bench) and the keys it needs: 3 problems per
# OMEGA N=100 subset
FIXTURES = {"MathArena/": ("matharena.jsonl", {}), "allenai/omega-": ("omega.jsonl", {"sample": 3}),
            "RUC-AIBOX/OlymMATH": ("math.jsonl", {})}


def teacher_replay(out: Path) -> None:
    """The CPU stand-in for DeepSeek-Reasoner on the held-out puzzles: their gold answers, replayed."""
    from utils.records import load_split, write_jsonl

    recs = load_split(out / "runs" / "data" / "puzzles", "test", training=False)
    write_jsonl(out / "teacher_replay.jsonl", [{"prompt": r["prompt"], "responses": [r["answer"]]} for r in recs])


def main(argv: list[str]) -> None:
    reproduce_lib.main(argv, __doc__, STAGES, FIXTURES, hooks={"eval_teacher": teacher_replay})


if __name__ == "__main__":
    main(sys.argv[1:])
