"""Unique puzzle instances per CPU second, ours against Tatham's C generators measured in the
same run on the same machine, at the same parameters, for every rung of every puzzle's ladder.

    python bench/puzzles.py [--seconds 2] [--rounds 4] [--min-puzzles 40] [--only bridges] [--no-install] [--c-dir DIR]

Two C anchors, each measured when present:
- packaged: Debian's `sgt-puzzles` (`sgt-bridges --generate N PARAMS` prints N fresh game IDs
  without a display). When its binaries are missing the script installs the package with apt-get
  if it runs as root (else it says how). Debian 12 ships a January 2023 build, older than
  Tatham's current Galaxies generator (see GALAXIES_CHANGE).
- current source: sgt-* binaries built from his repository (https://git.tartarus.org/simon/puzzles.git)
  with its own build, in a directory given by --upstream-dir or $TATHAM_CURRENT_DIR. This
  repository ships no recipe that builds his code.
A missing anchor is marked "not measured" in its columns, with the reason.

How it is measured: for each rung, the C anchors and Python alternate for --rounds rounds, each
getting about --seconds / --rounds CPU seconds per round; slow rungs get more rounds (up to 4x) until
every side has made --min-puzzles puzzles. C time is the user + system CPU time
of the child processes (resource.getrusage(RUSAGE_CHILDREN)) minus, per process, the CPU time of
starting one (`--version`, median of 5 in this run: loading GTK for the package); Python time is
this process's CPU time (time.process_time). Two Python columns:
- game IDs (the headline, like for like with `--generate`, which runs his new_game_desc: the
  uniqueness-checked puzzle and its game ID): `env.encode(env.new_puzzle(rng, w, h, level)[0])`
  with one random.Random for the whole run, as his loop keeps one random_state.
- records: `env.generate(seed, difficulty=rung)` on consecutive seeds, what generate.py writes:
  the same generation from a fresh random.Random(seed), then the record (prompt text, gold
  reasoning from the solver's trace, meta). Seeds start at 10**6 so this column never re-makes
  the puzzles of the first one (the solvers' caches would then flatter it).
Targets (issue 15): ours / C >= 0.1 for Pattern and >= 0.15 for the other puzzles, on the game-ID
column. Prints markdown; exits 0 whether or not C could be measured.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root

import envs  # noqa: E402
from envs.puzzles import PUZZLES  # noqa: E402

TARGETS = {"pattern": 0.1, "bridges": 0.15, "undead": 0.15, "galaxies": 0.15}
# Tatham's Galaxies generator changed on 2023-03-11/12 (upstream commits 47de8f44 "remove the
# 'maxtries' system" and adf2a098 "skew grid generation in favour of wiggliness"): since then it
# keeps the wiggliest of 10 layouts per attempt, as ours does, and never accepts a too-easy puzzle.
# Builds before that date (Debian 12 ships 20230122) make one layout per attempt and, after 50
# attempts, accept a puzzle easier than asked.
GALAXIES_CHANGE = 20230312
SEARCH = ("/usr/games", "/usr/local/games", "/usr/bin", "/usr/local/bin")
ROOT = Path(__file__).resolve().parents[1]
UPSTREAM_DIR = os.environ.get("TATHAM_CURRENT_DIR", "")  # his current source, built by his own build


def tatham_params(name: str, w: int, h: int, level: str | None) -> str:
    """Tatham's full parameter string for one rung of our ladder (what his presets print with
    --list-presets): Bridges with his default 30% islands, 10% expansion, 2 bridges per pair
    and loops allowed, as our generator uses; Pattern has no levels."""
    if name == "bridges":
        return f"{w}x{h}i30e10m2d{('easy', 'medium', 'hard').index(level)}"
    if name == "pattern":
        return f"{w}x{h}"
    if name == "undead":
        return f"{w}x{h}d{level[0]}"  # e, n, t
    if name == "galaxies":
        return f"{w}x{h}d{level[0]}"  # n, u
    raise ValueError(name)


def find_binary(name: str, where: str | None = None) -> str | None:
    """sgt-<name> in `where` if given, else on PATH or in the usual directories."""
    if where is not None:
        return f"{where}/sgt-{name}" if os.access(f"{where}/sgt-{name}", os.X_OK) else None
    return shutil.which(f"sgt-{name}") or next(
        (p for d in SEARCH if os.access(p := f"{d}/sgt-{name}", os.X_OK)), None)


def install() -> str:
    """Try to install sgt-puzzles; return '' on success, else why not (one line)."""
    if shutil.which("apt-get") is None:
        return "no apt-get here: install Tatham's puzzles (Debian/Ubuntu package sgt-puzzles) and put sgt-* on PATH"
    if os.geteuid() != 0:
        return "not root: run `sudo apt-get install sgt-puzzles`, then rerun"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "install", "-y", "-q", "--no-install-recommends", "sgt-puzzles"],
                ["apt-get", "update", "-q"],
                ["apt-get", "install", "-y", "-q", "--no-install-recommends", "sgt-puzzles"]):
        try:
            r = subprocess.run(cmd, env=env, stdout=sys.stderr, stderr=sys.stderr, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"`{' '.join(cmd)}` failed: {e}"
        if r.returncode == 0 and cmd[1] == "install":
            return ""
    return "`apt-get install sgt-puzzles` failed (see stderr)"


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_c(binary: str, args: list[str], timeout: float = 60.0) -> tuple[float, str]:
    """(CPU seconds of the child, its stdout); raises RuntimeError with its stderr on failure."""
    t0 = child_cpu()
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)
    dt = child_cpu() - t0
    if p.returncode != 0:
        err = [line for line in p.stderr.splitlines() if "Gtk-WARNING" not in line and line.strip()]
        raise RuntimeError(f"`{Path(binary).name} {' '.join(args)}` exited {p.returncode}: {' '.join(err)[:200]}")
    return dt, p.stdout


class CSide:
    """Calls of `binary --generate n params`, n sized so a call takes about `chunk` CPU seconds."""

    def __init__(self, binary: str, params: str, startup: float):
        self.binary, self.params, self.startup = binary, params, startup
        self.per_item = None  # CPU seconds per puzzle including start-up, from the calls so far
        self.n = 0
        self.cpu = self.calls_cpu = 0.0  # CPU seconds without / with the start-ups

    def round(self, chunk: float) -> None:
        spent = 0.0
        while spent < chunk:
            # sized by the CPU time per puzzle including start-up (an over-estimate, so a call
            # never runs much past the chunk); the first call of a rung makes 1 (Undead 9x6
            # tricky takes his generator about a second)
            want = 1 if self.per_item is None else int((chunk - spent) / self.per_item) + 1
            n = max(1, min(want, 4 * self.n + 4))  # grow at most 4x per call while it calibrates
            # the timeout (wall clock) only guards against a hang, on a machine that may be busy
            dt, out = run_c(self.binary, ["--generate", str(n), self.params], timeout=max(600.0, 100 * chunk))
            got = len(out.split())
            if got != n:
                raise RuntimeError(f"`sgt-... --generate {n} {self.params}` printed {got} game IDs")
            self.calls_cpu += dt
            self.n += n
            self.cpu += max(dt - self.startup, 0.0)
            self.per_item = max(self.calls_cpu / self.n, 1e-6)
            spent += dt


RECORD_SEEDS = 10**6  # the first seed of the records column


class PySide:
    """Our generator for one rung: game IDs (records=False) or whole records (records=True)."""

    def __init__(self, name: str, difficulty: int, records: bool):
        self.env, self.difficulty, self.records = envs.make(name), difficulty, records
        self.size = self.env.params_for(difficulty)
        self.rng = random.Random(0)
        self.seed = RECORD_SEEDS
        self.n = 0
        self.cpu = 0.0

    def round(self, chunk: float) -> None:
        env, rng, (w, h, level) = self.env, self.rng, self.size
        t0 = time.process_time()
        while True:
            if self.records:
                env.generate(seed=self.seed, difficulty=self.difficulty)
                self.seed += 1
            else:
                env.encode(env.new_puzzle(rng, w, h, level)[0])
            self.n += 1
            dt = time.process_time() - t0
            if dt >= chunk:
                self.cpu += dt
                return


def startup_cpu(binary: str) -> float:
    return statistics.median(run_c(binary, ["--version"])[0] for _ in range(5))


def describe_anchor(label: str, binaries: dict[str, str | None], names: list[str]) -> dict[str, float]:
    """Print what the anchor is (version, start-up CPU) and return the start-up per puzzle."""
    found = {n: b for n, b in binaries.items() if b}
    if not found:
        return {}
    b = next(iter(found.values()))
    version = (run_c(b, ["--version"])[1].strip().splitlines() or ["version unknown"])[-1]
    startups = {n: startup_cpu(b) for n, b in found.items()}
    where = Path(b).parent
    if where.is_relative_to(ROOT):
        where = where.relative_to(ROOT)
    print(f"{label}: {version} ({where}/sgt-*), process start-up "
          + ", ".join(f"{n} {s * 1000:.1f} ms" for n, s in startups.items()) + " CPU, subtracted per call.\n")
    built = re.search(r"(20\d{6})", version)
    if "galaxies" in found and built and int(built[1]) < GALAXIES_CHANGE:
        print(f"**Galaxies: this C build ({built[1]}) predates Tatham's generator change of 2023-03-12**: it "
              "makes one layout per attempt where his current generator, and ours, keep the wiggliest of 10, "
              "and after 50 attempts it accepts a puzzle easier than asked (most of its 'du' puzzles grade "
              "normal), so it does far less work per puzzle than his current code.\n")
    return startups


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per side per rung")
    ap.add_argument("--rounds", type=int, default=4, help="alternations of C and Python per rung")
    ap.add_argument("--min-puzzles", type=int, default=40,
                    help="more rounds (up to 4x --rounds) until every side has made this many puzzles")
    ap.add_argument("--only", default=None, choices=sorted(PUZZLES), help="one puzzle")
    ap.add_argument("--no-install", action="store_true", help="do not try apt-get when sgt-puzzles is missing")
    ap.add_argument("--c-dir", default=None, help="directory of Tatham's sgt-* binaries (default: PATH, /usr/games)")
    ap.add_argument("--upstream-dir", default=UPSTREAM_DIR,
                    help="sgt-* binaries built from his current source (default: $TATHAM_CURRENT_DIR; measured "
                         "when present)")
    args = ap.parse_args()
    names = [args.only] if args.only else ["bridges", "pattern", "undead", "galaxies"]
    made = {name: envs.make(name) for name in names}  # import every module now: the run measures one version

    why_not = ""
    if any(find_binary(n, args.c_dir) is None for n in names) and not args.no_install and args.c_dir is None:
        why_not = install()
    packaged = {n: find_binary(n, args.c_dir) for n in names}
    missing = [n for n, b in packaged.items() if b is None]
    if missing:
        why_not = why_not or "sgt-puzzles is not installed (apt-get install sgt-puzzles)"
        print(f"**C (packaged) not measured for {', '.join(missing)}: {why_not}.**\n")
    upstream = {n: find_binary(n, args.upstream_dir) if args.upstream_dir else None for n in names}
    if not any(upstream.values()):
        print("C (current source) not measured: build https://git.tartarus.org/simon/puzzles.git with its own "
              "build and pass --upstream-dir DIR (or set TATHAM_CURRENT_DIR).\n")
    anchors = [("C (packaged)", packaged), ("C (current source)", upstream)]
    startups = [describe_anchor(label, bins, names) for label, bins in anchors]
    print(f"{args.seconds:g} CPU s per side per rung in {args.rounds} rounds alternating C, our game IDs and "
          f"our records (more rounds, up to {4 * args.rounds}, until each side has made {args.min_puzzles} "
          "puzzles); rates are unique puzzles per CPU second on one core. `IDs /s`: our generator up to "
          "the game ID (new_puzzle + encode, one random.Random for the run), the work `--generate` does; "
          "`records /s`: whole records as generate.py writes them (a random.Random per seed, prompt, gold "
          "reasoning, meta). Ratios are ours / C: `IDs / C` is the headline, `rec. / C` the full-record "
          "rate against the same C. `met` judges `IDs / C` against his current source where it was "
          "measured (the generators ours reimplements), else against the package.\n")
    print("| puzzle | d | size | level | Tatham params | ours IDs /s | ours records /s | C (packaged) /s | "
          "IDs / C | rec. / C | C (current source) /s | IDs / C | rec. / C | target | met |")
    print("|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    worst: dict[tuple[str, str], float] = {}
    chunk = args.seconds / args.rounds
    for name in names:
        for d, (w, h, level) in enumerate(made[name].ladder):
            params = tatham_params(name, w, h, level)
            py, full = PySide(name, d, records=False), PySide(name, d, records=True)
            sides = [CSide(bins[name], params, ups[name]) if bins[name] else None
                     for (_, bins), ups in zip(anchors, startups)]
            notes = ["", ""]
            # at least --rounds rounds; then more (up to 4x as many) while a side has made fewer than
            # --min-puzzles: a rung making 10 puzzles per CPU s would otherwise be judged on 20 of them,
            # whose generation times vary several-fold
            for r in range(4 * args.rounds):
                if r >= args.rounds and min([py.n, full.n] + [c.n for c in sides if c is not None]) >= args.min_puzzles:
                    break
                for k, c in enumerate(sides):
                    if c is not None:
                        try:
                            c.round(chunk)
                        except (RuntimeError, subprocess.TimeoutExpired) as e:
                            notes[k], sides[k] = str(e)[:160], None
                py.round(chunk)
                full.round(chunk)
            ours, ours_full = py.n / py.cpu, full.n / full.cpu
            target = TARGETS[name]
            cells, ratios = [], []
            for (label, _), c, note in zip(anchors, sides, notes):
                if c is None:
                    cells += [f"not measured{': ' + note if note else ''}", "-", "-"]
                    ratios.append(None)
                else:
                    rate = c.n / max(c.cpu, 1e-9)
                    ratio = ours / rate
                    worst[name, label] = min(worst.get((name, label), ratio), ratio)
                    cells += [f"{rate:,.1f}", f"{ratio:.2f}", f"{ours_full / rate:.2f}"]
                    ratios.append(ratio)
            judged = ratios[1] if ratios[1] is not None else ratios[0]
            met = "-" if judged is None else "yes" if judged >= target else "NO"
            print(f"| {name} | {d} | {w}x{h} | {level or '-'} | `{params}` | {ours:,.1f} | {ours_full:,.1f} | "
                  f"{' | '.join(cells)} "
                  f"| {target:g} | {met} |", flush=True)
    for label, _ in anchors:
        lows = [(n, r) for (n, lab), r in worst.items() if lab == label]
        if lows:
            print(f"\nLowest ours (game IDs) / {label} per puzzle: "
                  + ", ".join(f"{n} {r:.2f} ({'meets' if r >= TARGETS[n] else 'misses'} {TARGETS[n]:g})"
                              for n, r in lows) + ".")


if __name__ == "__main__":
    main()
