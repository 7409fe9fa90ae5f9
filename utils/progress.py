"""Progress that shows in batch logs too: a tqdm bar on a terminal, else a plain line every
`every_s` seconds (and one at the end), e.g. under SLURM where stderr is a file.

    bar = Progress(total=640, desc="samples", unit="sample")
    bar.update(32, gen_s="1.2")
    bar.close()

PROGRESS_EVERY_S in the environment sets the interval of the plain lines (default 30 s).
"""
from __future__ import annotations

import os
import sys
import time


def _duration(s: float) -> str:
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    def __init__(self, total: int, desc: str, unit: str = "it", every_s: float | None = None, stream=None):
        self.total, self.desc, self.unit = total, desc, unit
        self.stream = stream or sys.stderr
        self.every_s = float(os.environ.get("PROGRESS_EVERY_S", 30)) if every_s is None else every_s
        self.n, self.postfix = 0, {}
        self.t0 = self.last = time.time()
        self.bar = None
        if getattr(self.stream, "isatty", lambda: False)():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit=unit, file=self.stream)

    def update(self, n: int = 1, **postfix) -> None:
        self.n += n
        self.postfix.update(postfix)
        if self.bar is not None:
            self.bar.update(n)
            if postfix:
                self.bar.set_postfix(self.postfix)
        elif time.time() - self.last >= self.every_s:
            self._line()

    def _line(self) -> None:
        self.last = time.time()
        elapsed = self.last - self.t0
        rate = self.n / elapsed if elapsed > 0 else 0.0
        pct = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        eta = f", eta {_duration((self.total - self.n) / rate)}" if rate > 0 and self.total > self.n else ""
        extra = "".join(f", {k} {v}" for k, v in self.postfix.items())
        print(f"{self.desc}: {self.n}/{self.total} {self.unit}{pct}, {rate:.2f} {self.unit}/s, "
              f"{_duration(elapsed)} elapsed{eta}{extra}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.n:
            self._line()
