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
    print("\nDone. Look at: runs/demo/data/ (puzzles), runs/smoke/sft and runs/smoke/gspo_novelty "
          "(metrics.jsonl, checkpoints), runs/demo/eval_*/results.json and passk.png, "
          "runs/demo/compare-eval_sft-eval_gspo/, runs/demo/analysis/summary.md")


if __name__ == "__main__":
    main()
