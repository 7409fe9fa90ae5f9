"""Run every benchmark in bench/ and write bench/RESULTS.md; copy its figures into the docs pages.

    python scripts/bench.py                   # all of them (`make bench`), then the docs' blocks
    python scripts/bench.py --only puzzles    # rerun some; the other sections of RESULTS.md stay
    python scripts/bench.py --docs            # only copy RESULTS.md's sections into the docs' blocks
    python scripts/bench.py --check           # exit 1 if a docs block differs from RESULTS.md
    python scripts/bench.py --only trainer rollouts --tiny   # those two on the tiny model (minutes)

bench/trainer.py and bench/rollouts.py run at a real size (REAL_ARGS: SmolLM2-135M-Instruct) when
runs/smollm2 exists (`make smollm2`), else on the tiny model with a line saying so; --tiny keeps
them on the tiny model (their per-step overhead only). The real size costs about 65 minutes of CPU
time (trainer 51, rollouts 15; 72 minutes of wall time at load 4 on 2 cores, 2026-12-02).

Convention for a bench script: it prints markdown to stdout and exits 0 (stderr is for progress;
it goes to runs/bench/logs/). RESULTS.md opens with the machine (CPU model, cores, memory), then
one section per script: when it ran, at which git commit, the load average before and after, its
wall and CPU time, and its stdout verbatim (or why it was skipped or how it failed).

The docs pages (README.md and docs/**/*.md: each section next to what it measures, e.g. bench:puzzles
in docs/envs.md) hold copies of the sections between `<!-- bench:NAME -->` and `<!-- /bench -->`;
--readme rewrites them from RESULTS.md (a `<details>` table, e.g. one row per env, becomes a link to
RESULTS.md so the page stays readable) and --check (tests/test_bench_results.py) fails when they
drift, so the docs' benchmark figures are never typed by hand.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "RESULTS.md"
LOGS = ROOT / "runs" / "bench" / "logs"
VLLM_PYTHON = ROOT / ".venv-vllm" / "bin" / "python"
ORDER = ("puzzles", "gym", "races", "sandbox", "grading", "analyze", "trainer", "rollouts")
SECTION = re.compile(r"^## bench/(\w+)\.py$", re.M)
BLOCK = re.compile(r"(<!-- bench:(\w+) -->\n)(.*?)(<!-- /bench -->)", re.S)
DETAILS = re.compile(r"<details><summary>(.*?)</summary>.*?</details>", re.S)  # long tables stay in RESULTS.md
SMOL = ROOT / "runs" / "smollm2"  # SmolLM2-135M-Instruct, `make smollm2` (utils/smol.py)
# the real-size runs (issue 19): the rollouts at 64 x 128; the trainers at a batch that fits an hour
REAL_ARGS = {
    "rollouts": ["--model", "runs/smollm2", "--prompts", "8", "--group", "8", "--max-tokens", "128", "--steps", "1",
                 "--rounds", "2", "--micro-batch", "4"],
    "trainer": ["--model", "runs/smollm2", "--batch", "32", "--group", "8", "--max-tokens", "64", "--micro-batch", "8",
                "--steps", "2", "--rounds", "2", "--configs", "1.0:1", "1.0:4", "--reference"],
}


def machine(short: bool = False) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        names = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    mem = ""
    try:
        kb = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal"))
        mem = f", {kb / 2**20:.1f} GiB memory"
    except (OSError, StopIteration):
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if short:
        return f"{cpu}, {usable} cores"
    return (f"{cpu}, {os.cpu_count()} logical cores ({usable} usable){mem}; {platform.platform()}, "
            f"Python {platform.python_version()}")


def commit() -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short=10", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + (" with uncommitted changes" if dirty else "")


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def python_for(name: str) -> tuple[str | None, str]:
    """(interpreter, '') to run bench/<name>.py, or (None, why it is skipped)."""
    script = ROOT / "bench" / f"{name}.py"
    if not script.exists():
        return None, f"skipped: bench/{name}.py does not exist in this checkout"
    if name == "rollouts":
        if not VLLM_PYTHON.exists():
            return None, "skipped: needs the vLLM environment .venv-vllm (see docs/vllm.md)"
        return str(VLLM_PYTHON), ""
    if name == "trainer":
        probe = subprocess.run([sys.executable, "-c", "import trl"], capture_output=True)
        if probe.returncode != 0:
            return None, "skipped: needs TRL, a bench-only extra (`pip install -r requirements-extra.txt`)"
    return sys.executable, ""


def bench_args(name: str, tiny: bool = False) -> tuple[list[str], str]:
    """(arguments, a note) for bench/<name>.py: the real size where it has one and runs/smollm2 exists."""
    if name not in REAL_ARGS or tiny:
        return [], ""
    if not (SMOL / "config.json").is_file():
        return [], (f"On the tiny model: {SMOL.relative_to(ROOT)} does not exist (`make smollm2` builds "
                    "SmolLM2-135M-Instruct, the real size this bench is meant for).\n\n")
    return REAL_ARGS[name], ""


def run_one(name: str, tiny: bool = False) -> str:
    """The RESULTS.md section of one bench script."""
    python, why = python_for(name)
    head = f"## bench/{name}.py\n\n"
    if python is None:
        return head + f"{why} (checked {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}).\n"
    args, note = bench_args(name, tiny)
    exe = ".venv-vllm/bin/python" if python == str(VLLM_PYTHON) else "python"
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{name}.stderr"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.setdefault("OMP_NUM_THREADS", "1")  # one thread per core's worth of work, as in `make test`
    before, started, at = load(), datetime.datetime.now().astimezone(), commit()  # what runs is what is checked out now
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    print(f"bench: running bench/{name}.py (stderr: {log.relative_to(ROOT)})", file=sys.stderr, flush=True)
    with open(log, "w") as err:
        p = subprocess.run([python, f"bench/{name}.py", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=err, text=True)
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
    info = (f"Run {started:%Y-%m-%d %H:%M %Z} on {machine(short=True)} at commit {at}; load average (1/5/15 min) "
            f"{before} before, {load()} after; {wall:.0f} s wall, {cpu:.0f} s CPU (the script and its children)"
            + (f"; `{' '.join([exe, f'bench/{name}.py', *args])}`" if args else "") + ".\n\n" + note)
    body = p.stdout.strip() + "\n"
    if p.returncode != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-15:]
        body += (f"\n**Failed: exit {p.returncode}.** Last lines of stderr:\n\n```\n" + "\n".join(tail) + "\n```\n")
    print(f"bench: bench/{name}.py done in {wall:.0f} s (exit {p.returncode})", file=sys.stderr, flush=True)
    return head + info + body


def sections(text: str) -> dict[str, str]:
    """RESULTS.md's sections by script name, each from its heading to the next."""
    marks = list(SECTION.finditer(text))
    return {m[1]: text[m.start():marks[i + 1].start() if i + 1 < len(marks) else len(text)].rstrip() + "\n"
            for i, m in enumerate(marks)}


def write_results(new: dict[str, str]) -> None:
    """Merge the new sections into RESULTS.md. The header holds nothing that changes from run to
    run (each section says when, at which commit and under what load it ran), so branches that
    rerun different scripts merge without conflicts."""
    old = sections(RESULTS.read_text()) if RESULTS.exists() else {}
    merged = {**old, **new}
    names = [n for n in ORDER if n in merged] + sorted(set(merged) - set(ORDER))
    text = ("# Benchmark results\n\nWritten by `make bench` (scripts/bench.py): every script in bench/, its "
            "markdown output verbatim, each under a line saying when, on which machine, at which commit and "
            "under what load average it ran (`python scripts/bench.py --only NAME` reruns one). The docs' "
            "benchmark figures are copied from here.\n\n"
            f"Machine: {machine()}.\n\n" + "\n".join(merged[n] for n in names))
    tmp = RESULTS.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(RESULTS)


def pages() -> list[Path]:
    """The markdown files that may hold bench blocks."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def page_blocks(results: str, page: str, link: str = "bench/RESULTS.md") -> tuple[str, list[str]]:
    """A page with every bench block replaced by the body of its RESULTS.md section (the text
    after the section's heading), and the names of blocks that have no section. `link`: the path
    from the page to RESULTS.md."""
    found = sections(results)
    missing: list[str] = []

    def fill(m: re.Match) -> str:
        name = m[2]
        if name not in found:
            missing.append(name)
            return m[0]
        body = DETAILS.sub(lambda d: f"({d[1]}: [bench/RESULTS.md]({link}))",
                           found[name].split("\n", 1)[1].strip())
        return f"{m[1]}{body}\n{m[4]}"

    return BLOCK.sub(fill, page), missing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=ORDER, help="run only these; keep RESULTS.md's other sections")
    ap.add_argument("--docs", "--readme", dest="readme", action="store_true", help="only copy RESULTS.md's sections into the docs' blocks")
    ap.add_argument("--check", action="store_true", help="exit 1 if the docs' blocks differ from RESULTS.md")
    ap.add_argument("--tiny", action="store_true", help="trainer and rollouts on the tiny model, not SmolLM2-135M")
    args = ap.parse_args()
    if not (args.readme or args.check):
        for name in args.only or ORDER:  # written after each script: a later one hanging loses nothing
            write_results({name: run_one(name, args.tiny)})
        print(f"bench: wrote {RESULTS.relative_to(ROOT)}", file=sys.stderr)
    if not RESULTS.exists():
        sys.exit(f"bench: {RESULTS.relative_to(ROOT)} does not exist: run `make bench` first")
    results = RESULTS.read_text()
    for page in pages():
        text = page.read_text()
        new, missing = page_blocks(results, text, os.path.relpath(RESULTS, page.parent))
        name = page.relative_to(ROOT)
        if missing:
            sys.exit(f"bench: {name} has blocks {missing} with no section in {RESULTS.relative_to(ROOT)}")
        if new == text:
            continue
        if args.check:
            sys.exit(f"bench: {name}'s benchmark blocks differ from bench/RESULTS.md: run "
                     "`python scripts/bench.py --docs`")
        page.write_text(new)
        print(f"bench: {name}'s benchmark blocks updated from RESULTS.md", file=sys.stderr)


if __name__ == "__main__":
    main()
