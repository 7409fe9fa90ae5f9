"""`make demo`: the main job on an embedded default, on CPU, with no download.

Today: generate a small puzzle dataset and show what is in it. Later stages (SFT, RL,
evaluation, analysis) join as they are built."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> None:
    print("$ python " + " ".join(args), flush=True)
    subprocess.run([sys.executable, *args], cwd=ROOT, check=True)


def main() -> None:
    run("generate.py", "--config", "configs/generate/demo.yaml")
    data = ROOT / "runs/demo/data"
    records = [json.loads(line) for f in sorted(data.glob("*.jsonl")) for line in f.open()]
    print(f"\n{len(records)} records in {data.relative_to(ROOT)}/ ({', '.join(f.name for f in sorted(data.glob('*.jsonl')))})")
    print("per env:", dict(Counter(r["env"] for r in records)))
    sample = records[0]
    print(f"\nfirst record: id={sample['id']} game_id={sample['meta']['game_id']}")
    print("--- prompt ---\n" + sample["prompt"] + "\n--- gold answer ---\n" + sample["answer"])


if __name__ == "__main__":
    main()
