"""`make demo-real`'s published figures (scripts/demo_real.py): README quotes the last clean run's
summary.md (docs/results/demo_real.md) between `<!-- demo-real -->` markers, never typed by hand."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import demo_real  # noqa: E402

SUMMARY = """# make demo-real: SmolLM2-135M-Instruct, base -> SFT -> RL

Run started then.

| benchmark | pass@1 |
|---|---|
| real | 0.5 |

- real all: RL better than SFT (+0.1 [+0.05, +0.15])

Figure: runs/real/sft_vs_rl.png (pass@k of SFT and RL per split).

SFT (16 steps): loss 1.0 -> 0.1

Time per step (this run; a step done by an earlier run costs nothing):

| step | CPU s | wall s |
|---|---:|---:|
| total | 1.0 | 2.0 |
"""


def test_readme_quotes_the_published_run():
    p = subprocess.run([sys.executable, "scripts/demo_real.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    published = (ROOT / "docs/results/demo_real.md").read_text()
    assert "RL - SFT" in published and "Time per step" in published


def test_the_block_is_the_run_line_table_verdicts_and_timing():
    block = demo_real.readme_block(SUMMARY)
    assert block.startswith("Run started then.") and "RL better than SFT" in block
    assert "Figure:" not in block and "SFT (16 steps)" not in block  # curves stay in the published file
    assert block.rstrip().endswith("| total | 1.0 | 2.0 |")


def test_check_fails_when_readme_is_edited(tmp_path, monkeypatch):
    readme = tmp_path / "README.md"
    published = tmp_path / "demo_real.md"
    published.write_text(SUMMARY)
    readme.write_text("intro\n<!-- demo-real -->\ntyped by hand: RL +0.9\n<!-- /demo-real -->\nend\n")
    monkeypatch.setattr(demo_real, "README", readme)
    monkeypatch.setattr(demo_real, "PUBLISHED", published)
    with pytest.raises(SystemExit, match="differs"):
        demo_real.publish(check=True)
    monkeypatch.setattr(demo_real, "OUT", tmp_path / "no-run")
    with pytest.raises(SystemExit, match="make demo-real"):
        demo_real.publish(check=False)
