"""The documentation: README.md and docs/ build as a site with `mkdocs build --strict` (a broken link,
anchor or nav entry fails), and every command in a ```bash block of README.md and docs/*.md names
things that exist: the script of `python X.py`, `torchrun ... X.py` and `bash X.sh`, our module of
`python -m M`, the file of `--config C`, `CONFIG=C` and `-r FILE`, the target of `make T`, and every
repository path in it (`runs/...` are outputs, not checked). The reproduce pages' command blocks are
checked against their scripts instead (tests/test_reproduce_*.py)."""
from __future__ import annotations

import glob
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OUTPUTS = {"runs", "site"}  # what commands write, not what the repository holds
BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")
PYTHON = re.compile(r"(^|/)python3?$")
ENV_VAR = re.compile(r"^[A-Z_][A-Z0-9_]*=")


def make_targets() -> set[str]:
    return set(re.findall(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", (ROOT / "Makefile").read_text(), re.M))


def commands(block: str) -> list[list[str]]:
    """The commands of a bash block as token lists: continuation lines joined, heredoc bodies and
    comments dropped, `a && b`, `a; b` and `a | b` split."""
    out, lines, end = [], block.replace("\\\n", " ").splitlines(), None
    for line in lines:
        if end is not None:
            end = None if line.strip() == end else end
            continue
        if m := HEREDOC.search(line):
            end = m[1]
        cmd: list[str] = []
        for tok in shlex.split(line, comments=True):
            if tok in ("&&", "||", ";", "|"):
                out.append(cmd)
                cmd = []
            else:
                cmd.append(tok)
        out.append(cmd)
    return [c for c in out if c]


def problems(cmd: list[str]) -> list[str]:
    """What in one command names a script, config, module, make target or repository path that does not exist."""
    top = {p.name for p in ROOT.iterdir() if not p.name.startswith(".")} - OUTPUTS
    found: list[str] = []
    seen: set[str] = set()  # each path once, under the first role that names it

    def need(path: str, what: str) -> None:
        if path in seen or any(x in path for x in ("<", "...", "$")):  # "...": a placeholder the reader fills in
            return
        seen.add(path)
        if not (glob.glob(str(ROOT / path)) if "*" in path else (ROOT / path).exists()):
            found.append(f"{what} {path} does not exist")

    while cmd and ENV_VAR.match(cmd[0]):
        name, value = cmd.pop(0).split("=", 1)
        if name == "CONFIG":
            need(value, "config")
    if not cmd:
        return found
    prog, args = cmd[0], cmd[1:]
    if prog == "make":
        found += [f"make target {t} does not exist" for t in args
                  if not t.startswith("-") and "=" not in t and t not in make_targets()]
    elif PYTHON.search(prog) and args[:1] == ["-m"] and len(args) > 1:
        module = args[1]
        if module.split(".")[0] in top:  # ours (utils.smol), not the standard library's or a package's
            path = module.replace(".", "/")
            if not ((ROOT / f"{path}.py").is_file() or (ROOT / path / "__main__.py").is_file()):
                found.append(f"module {module} does not exist")
    elif PYTHON.search(prog) or prog in ("bash", "sh"):
        script = next((a for a in args if not a.startswith("-")), None)
        if script:
            need(script, "script")
    elif prog == "torchrun":
        script = next((a for a in args if a.endswith(".py")), None)
        if script is None:
            found.append("torchrun runs no .py script")
        else:
            need(script, "script")
    for i, tok in enumerate(args):
        if tok in ("--config", "-r") and i + 1 < len(args):
            need(args[i + 1], "config" if tok == "--config" else "requirements file")
        elif tok.startswith("--config="):
            need(tok.split("=", 1)[1], "config")
    for tok in args:  # any repository path, alone or as an override's value
        value = tok.split("=", 1)[1] if "=" in tok and not tok.startswith("-") else tok
        if "/" in value and value.split("/")[0] in top:
            need(value, "path")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_names_what_exists(page):
    blocks = BLOCK.findall(page.read_text())
    bad = [f"{' '.join(cmd)}: {why}" for block in blocks for cmd in commands(block) for why in problems(cmd)]
    assert not bad, "\n".join(bad)


def test_make_targets_named_in_prose_exist():
    """`make T` in the text (the README's table of targets) names a target of the Makefile, as in the blocks."""
    named = {(page.name, m) for page in PAGES for m in re.findall(r"`make ([\w.-]+)`", page.read_text())}
    assert ("README.md", "docs") in named
    assert not [x for x in named if x[1] not in make_targets()]


def test_the_pages_have_commands_to_check():
    """The parser finds the commands (a check that parses nothing would pass on any page)."""
    cmds = [cmd for page in PAGES for block in BLOCK.findall(page.read_text()) for cmd in commands(block)]
    assert len(cmds) >= 40, len(cmds)
    readme = [c for block in BLOCK.findall((ROOT / "README.md").read_text()) for c in commands(block)]
    assert ["make", "demo"] in readme and ["make", "test"] in readme


def test_the_check_catches_what_does_not_exist():
    page = """```bash
make demo && make no-such-target
python train.py --config configs/smoke/sft.yaml   # exists
python no_such_script.py
python generate.py --config configs/generate/no_such.yaml
CONFIG=configs/paper/no_such.yaml sbatch --array=0-2 scripts/sweep.sbatch "novelty.weight=0.05"
torchrun --nproc_per_node 8 train.py --config=configs/paper/gspo_novelty.yaml
python -m utils.no_such_module runs/x
python -m venv .venv-gpu && .venv-gpu/bin/pip install -r requirements-no-such.txt
bash scripts/no_such_check.sh --probe
python evaluate.py model=runs/sft/final benchmarks.0.path=tests/data/no_such.jsonl
python evaluate.py --config configs/eval/puzzles.yaml model=... \\
    'inputs=[runs/a/samples.jsonl]'
cat > mine.jsonl <<'X'
python not_a_command_but_a_heredoc_line.py
X
```
"""
    found = [why for block in BLOCK.findall(page) for cmd in commands(block) for why in problems(cmd)]
    assert found == ["make target no-such-target does not exist", "script no_such_script.py does not exist",
                     "config configs/generate/no_such.yaml does not exist",
                     "config configs/paper/no_such.yaml does not exist", "module utils.no_such_module does not exist",
                     "requirements file requirements-no-such.txt does not exist",
                     "script scripts/no_such_check.sh does not exist", "path tests/data/no_such.jsonl does not exist"]


def mkdocs_build(root: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=root,
                          capture_output=True, text=True, timeout=120)


def test_the_site_builds_strict(tmp_path):
    p = mkdocs_build(ROOT, tmp_path / "site")
    assert p.returncode == 0, p.stderr
    site = tmp_path / "site"
    # README.md is the home page, its links to docs/X.md lead to the pages, and the pages' links to
    # the repository's markdown outside docs/ lead to its copy in the site
    assert 'href="envs.html"' in (site / "index.html").read_text()
    assert 'href="bench/RESULTS.html"' in (site / "envs.html").read_text()
    assert (site / "bench" / "RESULTS.html").is_file()


def test_a_broken_link_fails_the_build(tmp_path):
    """The strict build fails on a link to a page that does not exist, naming it."""
    for name in ("mkdocs.yml", "README.md", "bench/RESULTS.md", "envs/gym/README.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    with open(tmp_path / "docs" / "envs.md", "a") as f:
        f.write("\nSee [the missing page](no_such_page.md).\n")
    p = mkdocs_build(tmp_path, tmp_path / "site")
    assert p.returncode != 0 and "no_such_page.md" in p.stderr, p.stderr
