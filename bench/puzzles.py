"""Unique puzzle instances per CPU second, ours against Tatham's C generators measured in the
same run on the same machine, at the same parameters, for every rung of every puzzle's ladder.

    python bench/puzzles.py [--seconds 2] [--rounds 4] [--only bridges] [--no-install]

The C anchor is Debian's `sgt-puzzles` package (Tatham's collection; `sgt-bridges --generate N
PARAMS` prints N fresh game IDs without a display). When its binaries are missing the script
installs the package with apt-get if it runs as root (else it says how), and when that fails it
prints our rates with the C columns marked "not measured".

How it is measured: for each rung, C and Python alternate for --rounds rounds, each side getting
about --seconds / --rounds CPU seconds per round. C time is the user + system CPU time of the
child processes (resource.getrusage(RUSAGE_CHILDREN)) minus, per process, the CPU time of
starting one (`--version`, median of 5 in this run: loading GTK); Python time is this process's
CPU time (time.process_time) for `env.generate(seed, difficulty=rung)`, which makes the whole
record (prompt, gold reasoning) after the uniqueness-checked puzzle. Seeds are consecutive.
Targets (issue 15): ours / C >= 0.1 for Pattern and >= 0.15 for the other puzzles.
Prints markdown; exits 0 whether or not C could be measured.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import envs  # noqa: E402
from envs.puzzles import PUZZLES  # noqa: E402

TARGETS = {"pattern": 0.1, "bridges": 0.15, "undead": 0.15, "galaxies": 0.15}
SEARCH = ("/usr/games", "/usr/local/games", "/usr/bin", "/usr/local/bin")


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


def find_binary(name: str) -> str | None:
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
            # never runs much past the chunk); the first call of a rung makes 4
            want = 4 if self.per_item is None else int((chunk - spent) / self.per_item) + 1
            n = max(1, min(want, 4 * self.n + 4))  # grow at most 4x per call while it calibrates
            dt, out = run_c(self.binary, ["--generate", str(n), self.params], timeout=max(60.0, 50 * chunk))
            got = len(out.split())
            if got != n:
                raise RuntimeError(f"`sgt-... --generate {n} {self.params}` printed {got} game IDs")
            self.calls_cpu += dt
            self.n += n
            self.cpu += max(dt - self.startup, 0.0)
            self.per_item = max(self.calls_cpu / self.n, 1e-6)
            spent += dt


class PySide:
    def __init__(self, name: str, difficulty: int):
        self.env, self.difficulty = envs.make(name), difficulty
        self.seed = self.n = 0
        self.cpu = 0.0

    def round(self, chunk: float) -> None:
        t0 = time.process_time()
        while True:
            self.env.generate(seed=self.seed, difficulty=self.difficulty)
            self.seed += 1
            self.n += 1
            dt = time.process_time() - t0
            if dt >= chunk:
                self.cpu += dt
                return


def startup_cpu(binary: str) -> float:
    return statistics.median(run_c(binary, ["--version"])[0] for _ in range(5))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per side per rung")
    ap.add_argument("--rounds", type=int, default=4, help="alternations of C and Python per rung")
    ap.add_argument("--only", default=None, choices=sorted(PUZZLES), help="one puzzle")
    ap.add_argument("--no-install", action="store_true", help="do not try apt-get when sgt-puzzles is missing")
    args = ap.parse_args()
    names = [args.only] if args.only else ["bridges", "pattern", "undead", "galaxies"]

    why_not = ""
    if any(find_binary(n) is None for n in names) and not args.no_install:
        why_not = install()
    binaries = {n: find_binary(n) for n in names}
    missing = [n for n, b in binaries.items() if b is None]
    if missing:
        why_not = why_not or "sgt-puzzles is not installed (apt-get install sgt-puzzles)"
        print(f"**C not measured for {', '.join(missing)}: {why_not}.**\n")
    startups: dict[str, float] = {}
    if any(binaries.values()):
        b = next(b for b in binaries.values() if b)
        version = (run_c(b, ["--version"])[1].strip().splitlines() or ["version unknown"])[-1]
        startups = {n: startup_cpu(b) for n, b in binaries.items() if b}
        print(f"C anchor: {version} ({Path(b).parent}/sgt-*), process start-up "
              + ", ".join(f"{n} {s * 1000:.1f} ms" for n, s in startups.items())
              + " CPU, subtracted per call.\n")
    print(f"{args.seconds:g} CPU s per side per rung in {args.rounds} alternating rounds; rates are unique "
          "puzzles per CPU second on one core.\n")
    print("| puzzle | d | size | level | Tatham params | ours /s | C /s | ours / C | target | met |")
    print("|---|---:|---|---|---|---:|---:|---:|---:|---|")
    worst: dict[str, float] = {}
    for name in names:
        env = envs.make(name)
        for d, (w, h, level) in enumerate(env.ladder):
            params = tatham_params(name, w, h, level)
            py = PySide(name, d)
            c = CSide(binaries[name], params, startups[name]) if binaries[name] else None
            note = ""
            chunk = args.seconds / args.rounds
            for _ in range(args.rounds):
                if c is not None:
                    try:
                        c.round(chunk)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        note, c = str(e), None
                py.round(chunk)
            ours = py.n / py.cpu
            target = TARGETS[name]
            if c is None:
                c_text, ratio_text, met = f"not measured{': ' + note if note else ''}", "-", "-"
            else:
                theirs = c.n / max(c.cpu, 1e-9)
                ratio = ours / theirs
                worst[name] = min(worst.get(name, ratio), ratio)
                c_text, ratio_text, met = f"{theirs:,.1f}", f"{ratio:.2f}", "yes" if ratio >= target else "NO"
            print(f"| {name} | {d} | {w}x{h} | {level or '-'} | `{params}` | {ours:,.1f} | {c_text} | {ratio_text} "
                  f"| {target:g} | {met} |", flush=True)
    if worst:
        print("\nLowest ours / C per puzzle: "
              + ", ".join(f"{n} {r:.2f} ({'meets' if r >= TARGETS[n] else 'misses'} {TARGETS[n]:g})"
                          for n, r in worst.items()) + ".")


if __name__ == "__main__":
    main()
