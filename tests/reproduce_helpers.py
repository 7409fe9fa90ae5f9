"""What the tests of the reproduce scripts share (tests/test_reproduce_*.py): one CPU run of the script per test
module, and the checks of its docs/reproduce page: the command block is the script's, every stage a table row
names is one, every output file the page names was written."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import reproduce_lib  # noqa: E402


def cpu_run(script):
    """A module fixture: `script --cpu DIR` into a fresh directory (torch on one thread); DIR."""
    @pytest.fixture(scope="module")
    def run(tmp_path_factory) -> Path:
        import torch

        n = torch.get_num_threads()
        torch.set_num_threads(1)
        out = tmp_path_factory.mktemp(script.__name__.removeprefix("reproduce_"))
        try:
            script.main(["--cpu", str(out)])
        finally:
            torch.set_num_threads(n)
        return out

    return run


def check_doc_stages(doc: Path, script, heading: str, also: tuple[str, ...] = ()) -> None:
    """The doc's command block is the script's --print, and the stages column of the table after `heading` names
    only stage ids (or words in `also`); `a ... b` counts as a list."""
    assert reproduce_lib.doc_block(doc) == reproduce_lib.commands(script.STAGES)
    stages = {s.id for s in script.STAGES}
    table = doc.read_text().split(heading, 1)[1].split("## Choices", 1)[0]
    for row in [r for r in table.splitlines() if r.startswith("| ")][1:]:  # the first is the header
        named = {s.strip() for s in row.split(" | ")[2].replace("...", ",").split(",") if s.strip()}
        assert named - set(also) <= stages, row


def check_outputs(run: Path, doc: Path, heading: str, at_least: int) -> None:
    """Every `runs/...` path named after `heading` (at least `at_least` of them) exists under the CPU run."""
    paths = set(re.findall(r"`(runs/[^`\s]+)`", doc.read_text().split(heading, 1)[1]))
    assert len(paths) >= at_least, len(paths)
    missing = [p for p in sorted(paths) if not (run / p).exists()]
    assert not missing, missing
