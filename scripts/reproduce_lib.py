"""What the reproduction scripts (puzzle-to-math, RLVE, RACES) share: a paper's stages as cluster commands, the
same commands run CPU-sized in one process (tiny model, fixture benchmarks) with each stage's overrides
appended, and the command line (--print, --cpu DIR [--only ...], --summary where the paper has one).

A Stage is one command line as the reproduce page prints it. `each` runs it once per directory matching a
glob ({dir} and {name} filled in: the directory and its base name). On CPU, hub benchmarks of the
evaluation configs are pointed at fixture files of their layout (tests/data/bench; `fixtures` maps a hub
path prefix to a file and the benchmark keys that file needs, `fields` merged into the benchmark's),
`--config configs/...` becomes an absolute path, `runs/` lives under the output directory, and `{tiny}` /
`{out}` in overrides are filled in.
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
BENCH = ROOT / "tests" / "data" / "bench"


@dataclass
class Stage:
    id: str
    cmd: str
    cpu: list[str] = field(default_factory=list)  # overrides appended on CPU ({tiny}, {out} filled in)
    each: str = ""  # run cmd once per directory matching this glob ({dir}, {name} filled in)


def fill(text: str, **values: str) -> str:
    """{key} placeholders replaced (str.format would trip on the YAML braces of overrides)."""
    for k, v in values.items():
        text = text.replace("{" + k + "}", v)
    return text


def commands(stages: list[Stage]) -> list[str]:
    """The stages as they run on a cluster, in order (a loop for per-directory stages)."""
    out = []
    for s in stages:
        if s.each:
            out.append(f"for d in {s.each}; do {fill(s.cmd, dir='$d', name='$(basename $d)')}; done")
        else:
            out.append(s.cmd)
    return out


def doc_block(doc: Path) -> list[str]:
    """The command block of a reproduce page (after its `<!-- commands:` marker)."""
    text = doc.read_text()
    return text.split("<!-- commands:", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0].strip().splitlines()


def cpu_eval_config(name: str, out: Path, fixtures: dict[str, tuple[str, dict]], sample: int = 0) -> Path:
    """configs/eval/<name> with every hub benchmark on the fixture file of its layout: the same names,
    kinds and fields, the fixture's keys added; no expected count, no date window; `sample` problems each."""
    import yaml

    src = ROOT / "configs" / "eval" / name
    cfg = yaml.safe_load(src.read_text())
    if "base" in cfg:
        cfg["base"] = str(src.parent / cfg["base"])
    for b in cfg.get("benchmarks", []):
        hit = next((v for prefix, v in fixtures.items() if b["path"].startswith(prefix)), None)
        if hit is not None:
            file, keys = hit
            b.update(path=str(BENCH / file), problems=0, data_files="", date_from="", date_to="", split="test")
            b.update({**keys, "fields": {**b.get("fields", {}), **keys.get("fields", {})}})
        if sample:
            b["sample"] = sample
    dest = out / "cpu_configs" / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return dest


def run_cpu(stages: list[Stage], out: Path, fixtures: dict[str, tuple[str, dict]], only: list[str] | None = None,
            sample: int = 0, hooks: dict | None = None, entries: dict | None = None) -> dict[str, float]:
    """Every stage (or those named in `only`) on CPU under out/runs; returns CPU seconds per stage.
    hooks: stage id -> function(out) run before that stage (e.g. a replay file it needs); entries: more
    scripts a stage may call (path as written -> main(argv))."""
    import analyze
    import evaluate
    import generate
    import train
    from utils.tiny import build_tiny

    out = out.resolve()
    (out / "runs").mkdir(parents=True, exist_ok=True)
    tiny = str(build_tiny(out / "tiny"))
    entry = {"generate.py": generate.main, "train.py": train.main, "evaluate.py": evaluate.main,
             "analyze.py": analyze.main, **(entries or {})}
    cwd, seconds = os.getcwd(), {}
    os.chdir(out)  # configs name runs/...: here, out/runs
    try:
        for s in stages:
            if only and s.id not in only:
                continue
            if hooks and s.id in hooks:
                hooks[s.id](out)
            t0 = time.process_time()
            dirs = sorted(glob.glob(s.each)) if s.each else [None]
            for d in dirs:
                argv = shlex.split(fill(s.cmd, dir=d, name=Path(d).name) if d else s.cmd)
                argv = argv[argv.index(next(a for a in argv if a.endswith(".py"))):]  # drop python / torchrun
                script, args = argv[0], argv[1:]
                if "--config" in args:
                    i = args.index("--config") + 1
                    args[i] = str(cpu_eval_config(Path(args[i]).name, out, fixtures, sample)
                                  if args[i].startswith("configs/eval/") else ROOT / args[i])
                args += [fill(a, tiny=tiny, out=str(out), root=str(ROOT)) for a in s.cpu]
                entry[script](args)
            seconds[s.id] = round(time.process_time() - t0, 2)
    finally:
        os.chdir(cwd)
    return seconds


def main(argv: list[str], doc: str, stages: list[Stage], fixtures: dict[str, tuple[str, dict]] | None = None,
         summary=None, summary_help: str = "", **cpu) -> None:
    """A reproduce script's command line: --print, --cpu DIR [--only ...], and --summary (`summary()` -> the path
    it wrote) where the paper has one. `cpu`: run_cpu's sample, hooks and entries."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--print", action="store_true", help="print the cluster commands, in order")
    g.add_argument("--cpu", metavar="DIR", help="run every stage CPU-sized under DIR")
    if summary:
        g.add_argument("--summary", action="store_true", help=summary_help)
    p.add_argument("--only", nargs="*", help="with --cpu: only these stage ids")
    a = p.parse_args(argv)
    if a.print:
        print("\n".join(commands(stages)))
        return
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    if summary and a.summary:
        print(f"wrote {summary()}")
        return
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    print(json.dumps(run_cpu(stages, Path(a.cpu), fixtures or {}, a.only, **cpu), indent=2))
