"""`make bench` machinery (scripts/bench.py): RESULTS.md sections, the docs pages' blocks copied from
them and never typed by hand, and how a failing or skipped bench script is reported."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_runner", ROOT / "scripts" / "bench.py")
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)

RESULTS = """# Benchmark results

Machine: x.

## bench/puzzles.py

Run today.

| puzzle | ours / C |
|---|---:|
| bridges | 0.20 |

## bench/gym.py

skipped: no.
"""


def test_docs_match_results():
    """The docs pages' benchmark blocks are exactly RESULTS.md's sections (python scripts/bench.py --docs),
    and every bench script's section is quoted on some page, once."""
    p = subprocess.run([sys.executable, "scripts/bench.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    quoted = [m[2] for page in runner.pages() for m in runner.BLOCK.finditer(page.read_text())]
    assert sorted(quoted) == sorted(runner.ORDER), quoted


def test_check_sees_an_edited_page(tmp_path, monkeypatch):
    """--check fails, naming the page, when a block in a docs page is edited by hand."""
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "RESULTS.md").write_text(RESULTS)
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("no blocks\n")
    page = tmp_path / "docs" / "envs.md"
    page.write_text("<!-- bench:puzzles -->\nRun today.\n\n| puzzle | ours / C |\n|---|---:|\n| bridges | 0.20 |\n"
                    "<!-- /bench -->\n")
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    monkeypatch.setattr(runner, "RESULTS", tmp_path / "bench" / "RESULTS.md")
    monkeypatch.setattr(sys, "argv", ["bench.py", "--check"])
    runner.main()  # as RESULTS.md has it: passes
    page.write_text(page.read_text().replace("0.20", "0.99"))
    with pytest.raises(SystemExit, match="docs/envs.md's benchmark blocks differ"):
        runner.main()


def test_blocks_are_filled_and_drift_is_seen():
    page = "intro\n<!-- bench:puzzles -->\n| bridges | 0.99 |\n<!-- /bench -->\nend\n"
    new, missing = runner.page_blocks(RESULTS, page)
    assert missing == []
    assert new == ("intro\n<!-- bench:puzzles -->\nRun today.\n\n| puzzle | ours / C |\n|---|---:|\n"
                   "| bridges | 0.20 |\n<!-- /bench -->\nend\n")
    assert runner.page_blocks(RESULTS, new)[0] == new  # filling is idempotent
    _, missing = runner.page_blocks(RESULTS, "<!-- bench:races -->\nx\n<!-- /bench -->\n")
    assert missing == ["races"]


def test_long_tables_become_a_link_from_the_page():
    results = RESULTS.replace("| bridges | 0.20 |\n", "| bridges | 0.20 |\n\n<details><summary>every size</summary>\n\n"
                              "| size | rate |\n|---|---:|\n| 7x7 | 3 |\n\n</details>\n")
    new, _ = runner.page_blocks(results, "<!-- bench:puzzles -->\n<!-- /bench -->\n")
    assert "| 7x7 | 3 |" not in new and "(every size: [bench/RESULTS.md](bench/RESULTS.md))" in new
    assert "| bridges | 0.20 |" in new
    new, _ = runner.page_blocks(results, "<!-- bench:puzzles -->\n<!-- /bench -->\n", "../bench/RESULTS.md")
    assert "(every size: [bench/RESULTS.md](../bench/RESULTS.md))" in new  # from a page in docs/


def test_sections_split_by_script():
    found = runner.sections(RESULTS)
    assert list(found) == ["puzzles", "gym"]
    assert found["gym"] == "## bench/gym.py\n\nskipped: no.\n"


def test_failing_and_missing_scripts_are_reported(tmp_path, monkeypatch):
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "puzzles.py").write_text(
        "import sys\nprint('| a | b |')\nprint('boom', file=sys.stderr)\nsys.exit(3)\n")
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    monkeypatch.setattr(runner, "LOGS", tmp_path / "logs")
    monkeypatch.setattr(runner, "VLLM_PYTHON", tmp_path / ".venv-vllm" / "bin" / "python")
    section = runner.run_one("puzzles")
    assert section.startswith("## bench/puzzles.py\n\nRun ") and "load average" in section
    assert "| a | b |" in section and "**Failed: exit 3.**" in section and "boom" in section
    assert "does not exist" in runner.run_one("races")
    (tmp_path / "bench" / "rollouts.py").write_text("print(1)\n")
    assert ".venv-vllm" in runner.run_one("rollouts")


def test_real_size_arguments(tmp_path, monkeypatch):
    """trainer and rollouts run SmolLM2-135M when runs/smollm2 exists, else the tiny model with a
    line saying so; --tiny keeps the tiny model; the other benches take no arguments."""
    monkeypatch.setattr(runner, "SMOL", tmp_path / "runs" / "smollm2")
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    assert runner.bench_args("puzzles") == ([], "")
    args, note = runner.bench_args("trainer")
    assert args == [] and "make smollm2" in note
    (tmp_path / "runs" / "smollm2").mkdir(parents=True)
    (tmp_path / "runs" / "smollm2" / "config.json").write_text("{}")
    for name in ("trainer", "rollouts"):
        args, note = runner.bench_args(name)
        assert args[:2] == ["--model", "runs/smollm2"] and note == ""
        assert runner.bench_args(name, tiny=True) == ([], "")
