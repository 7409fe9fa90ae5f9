"""The memory plan of every paper training config on the hardware it names, as a table:
docs/results/paper_plans.md (train.py --plan, utils/memplan.py; estimates, nothing is loaded).

    python scripts/paper_plans.py            # write docs/results/paper_plans.md
    python scripts/paper_plans.py --check    # exit 1 if the file differs from what the configs give now

tests/test_paper_plans.py runs --check, so the table cannot go stale, and fails on any config that
does not fit its hardware or keeps fewer than memplan.MIN_ROWS_IN_FLIGHT rows in flight.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "results" / "paper_plans.md"


def plans() -> list[tuple[str, dict, str]]:
    """(config path under configs/paper, memplan.summary, the hardware's name) for every training config."""
    import train
    from utils import memplan
    from utils.config import ConfigError, load_or_raise

    out = []
    for path in sorted((ROOT / "configs" / "paper").rglob("*.yaml")):
        try:
            cfg = load_or_raise(train.PlanConfig, ["--config", str(path)])
        except ConfigError as e:
            if e.key == "mode":  # a generate.py config
                continue
            raise
        s, _ = train.plan_setup(cfg)
        out.append((str(path.relative_to(ROOT / "configs" / "paper")), memplan.summary(s), cfg.hardware.name))
    return out


def table() -> str:
    from utils import memplan

    lines = ["# Memory plans of the paper runs", "",
             "Written by `python scripts/paper_plans.py` from each config's `hardware` section and "
             "`train.py --plan` (utils/memplan.py: counted tensors, checked against measured CPU peaks; never run "
             "on these GPUs). Peak: the larger of the training phase and the rollout phase, GB per GPU. Rows in "
             f"flight: rollouts at full length one vLLM engine holds at once (at least {memplan.MIN_ROWS_IN_FLIGHT} "
             "wanted); waves: how many such rounds a step's rollouts take per engine. "
             "`tests/test_paper_plans.py` fails when this file is stale or a run does not fit.", "",
             "| config | GPUs | strategy | micro-batch x tokens | training GB | rollout GB | peak / GPU | fits | "
             "vLLM TP | rows in flight | waves |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for rel, d, name in plans():
        roll = f"{d['rollout_gb']:.1f}" if d["rollout_gb"] else "(async: in training)" if "rows" in d else "-"
        rows = d.get("rows", "-")
        lines.append(f"| {rel} | {d['gpus']} x {d['gpu_mem_gb']:g} GB ({name}) | {d['strategy']} | "
                     f"{d['micro_batch']} x {d['seq_len']} | {d['training_gb']:.1f} | {roll} | {d['peak_gb']:.1f} | "
                     f"{'yes' if d['fits'] else '**no**'} | {d['tp'] if 'rows' in d else '-'} | {rows} | "
                     f"{d.get('waves') or '-'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/results/paper_plans.md is stale")
    a = ap.parse_args(argv)
    text = table()
    if a.check:
        if not OUT.is_file() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python scripts/paper_plans.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
