"""Run untrusted Python (written by a model or a teacher) and get back what it computed.

    r = run("def f(x):\n    return x * 2", "f(21)")      # Result(status='ok', value='42', ...)
    rs = run_many([(code, expr), ...], workers=8)         # same order as the jobs

Status: "ok" (value = repr of expr's value, or None without expr), "error" (an exception,
sys.exit, os._exit), "timeout" (wall clock or CPU seconds), "memory" (MemoryError under the
address-space limit), "forbidden" (the code tried a refused operation: sockets, processes,
signals), "killed" (died by a signal, e.g. a segfault from runaway recursion).

Processes. The caller starts one fork server (`python -S -s`, a scrubbed environment, the stdlib
modules problems use already imported). The server forks workers; each is the init of its own
PID namespace and keeps one runner process alive. The runner confines itself once and then runs
jobs one after another, each in a fresh namespace dict, while the code is judged unable to leave
a trace in the process (`_reusable`: safe imports only, no reflection, no attribute stores);
otherwise the job gets a fresh runner, which exits after it. A runner is also replaced after
`jobs_per_process` jobs and after any timeout, memory error, forbidden call or crash. So a small
call costs well under a millisecond instead of a fresh interpreter (bench/sandbox.py), and
`Sandbox(reuse=False)` gives every job a process of its own (a fork: a few ms, ~25x slower).

Isolation (`Sandbox.isolation` says which layers are active):
- real (kernel-enforced), as root: a private network namespace with no interfaces; a PID
  namespace per worker (a job cannot see or signal anything outside it, and killing the worker
  kills every process the job left); a mount namespace per worker in which every mount is
  read-only except a private size-capped tmpfs on /tmp holding the runner's working directory
  (emptied after every job; its parent is not writable); the runner is uid/gid nobody with
  no_new_privs, so it has no capabilities, cannot read other processes' /proc/<pid>/environ and
  cannot undo the read-only mounts; rlimits on CPU seconds, address space, file size, open
  files, processes (counted for nobody) and no core dumps; a wall-clock limit after which the
  server SIGKILLs the worker, and with it the whole namespace.
- without root: a user namespace gives the same network and PID namespaces where the kernel
  allows them; writes are then limited only by the user's own file permissions; without
  namespaces, leftover processes are found through the process group and child subreapers.
- best effort, inside the job's own process (code that digs can undo it): socket creation,
  fork/exec/spawn/subprocess and kill raise `Forbidden` (status "forbidden", even if caught);
  the environment holds only PATH, LANG and PYTHONHASHSEED.
A job writes its own result message, so code that deliberately forges it can fake its own
result, and code built to evade `_reusable` (say, by handing a module's dict to a function that
fills it) could disturb later jobs of the same runner; rewards therefore never compare inside the
sandbox against hidden answers (the envs parse values and compare outside), and `reuse=False`
removes the second risk.

Messages between caller, server and workers are JSON lines (never pickle): even a subverted
server can only send bogus results, never code.
"""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

STATUSES = ("ok", "error", "timeout", "memory", "forbidden", "killed")
NOBODY = 65534
GRACE_S = 10.0  # a reply this late past its job's timeout means the server is wedged: restart it


@dataclass
class Result:
    status: str
    value: str | None = None  # repr of expr's value (only when status == "ok")
    stdout: str = ""  # tails, at most output_chars each
    stderr: str = ""
    seconds: float = 0.0  # wall time of the job

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# ============================================================================ caller side


class Sandbox:
    """A fork server and its workers. Thread-safe (calls queue up); usable as a context manager."""

    def __init__(self, *, reuse: bool = True, jobs_per_process: int = 256, namespaces: bool = True,
                 output_chars: int = 8192, max_value_chars: int = 1 << 20, fsize_mb: int = 16, tmpfs_mb: int = 64,
                 nproc: int = 64):
        """reuse=False gives every job a process of its own (a few ms per job, ~25x slower);
        namespaces=False skips the kernel namespaces (for machines that refuse them; they are
        detected anyway)."""
        self.cfg = {"jobs_per_process": jobs_per_process if reuse else 1, "namespaces": namespaces,
                    "output_chars": output_chars, "max_value_chars": max_value_chars, "fsize_mb": fsize_mb,
                    "tmpfs_mb": tmpfs_mb, "nproc": nproc}
        self._isolation: dict = {}
        self._proc: subprocess.Popen | None = None
        self._base: str | None = None  # the jobs' directories live below it (unless a worker has its own /tmp)
        self._buf = b""
        self._lock = threading.Lock()
        self._next_id = 0
        self._pid = os.getpid()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def run(self, code: str, expr: str | None = None, *, timeout_s: float = 2.0, memory_mb: int = 512) -> Result:
        return self.run_many([(code, expr)], workers=1, timeout_s=timeout_s, memory_mb=memory_mb)[0]

    def run_many(self, jobs, workers: int | None = None, *, timeout_s: float = 2.0,
                 memory_mb: int = 512) -> list[Result]:
        """Results of (code, expr) jobs in their order, with at most `workers` running at once."""
        if not timeout_s > 0 or memory_mb < 1:  # a negative limit would turn into no limit at all
            raise ValueError(f"sandbox: need timeout_s > 0 and memory_mb >= 1, got {timeout_s} and {memory_mb}")
        jobs = list(jobs)
        workers = max(1, workers or os.cpu_count() or 1)
        results: list[Result | None] = [None] * len(jobs)
        with self._lock:
            todo = list(range(len(jobs)))[::-1]
            tries = [0] * len(jobs)
            inflight: dict[int, tuple[int, float]] = {}  # job id -> (index, reply deadline)
            while todo or inflight:
                self._ensure_started()
                while todo and len(inflight) < workers:
                    i = todo.pop()
                    code, expr = jobs[i]
                    self._next_id += 1
                    tries[i] += 1
                    self._send({"id": self._next_id, "code": code, "expr": expr, "timeout_s": float(timeout_s),
                                "memory_mb": int(memory_mb)})
                    inflight[self._next_id] = (i, time.monotonic() + timeout_s + GRACE_S)
                line = self._read_line(min(d for _, d in inflight.values()))
                if line is None:  # the server died or hung: its jobs run once more in a new one
                    for i, _ in inflight.values():
                        if tries[i] < 2:
                            todo.append(i)
                        else:
                            results[i] = Result("killed", stderr="[sandbox] the server stopped responding")
                    inflight.clear()
                    self._stop()
                    continue
                msg = _loads(line)
                if msg is not None and msg.get("id") in inflight:
                    results[inflight.pop(msg["id"])[0]] = _result(msg)
        return results  # type: ignore[return-value]

    def close(self) -> None:
        with self._lock:
            self._stop()

    @property
    def isolation(self) -> dict:
        """Which isolation layers are active (starts the server if needed): uid_drop, userns,
        net_ns, pid_ns, mount_ns."""
        with self._lock:
            self._ensure_started()
            return dict(self._isolation)

    # ------------------------------------------------------------------ plumbing

    def _ensure_started(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        self._stop()
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               # one fixed hash seed for every sandbox, so set iteration order (hence f's outputs)
               # is the same when a problem is made, when it is checked and when it is scored
               "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
        # made here, not by the server, so that it is deleted even when the server is killed
        self._base = tempfile.mkdtemp(prefix="sandbox-")
        self._proc = subprocess.Popen([sys.executable, "-S", "-s", "-B", str(Path(__file__).resolve()),
                                       json.dumps({**self.cfg, "base": self._base})], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE,
                                      env=env, cwd="/", start_new_session=True, close_fds=True)
        self._buf, self._pid = b"", os.getpid()
        line = self._read_line(time.monotonic() + 60)
        hello = _loads(line) if line is not None else None
        if not hello or "isolation" not in hello:
            self._stop()
            raise RuntimeError("sandbox: the fork server did not start")
        self._isolation = hello["isolation"]

    def _send(self, msg: dict) -> None:
        try:
            self._proc.stdin.write(json.dumps(msg).encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the read that follows sees EOF and restarts the server

    def _read_line(self, deadline: float) -> bytes | None:
        """One line from the server, or None on EOF or when the deadline passes."""
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or os.getpid() != self._pid:  # a forked copy must not kill its parent's server
            return
        try:
            proc.stdin.close()  # the server's cue to kill its workers and delete its directory
            proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the server's session, in case it hung
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        proc.stdout.close()
        shutil.rmtree(self._base, ignore_errors=True)


def _loads(line: bytes) -> dict | None:
    try:
        msg = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return msg if isinstance(msg, dict) else None


def _result(msg: dict) -> Result:
    status = msg.get("status") if msg.get("status") in STATUSES else "killed"
    value = msg.get("value")
    return Result(status=status, value=value if isinstance(value, str) and status == "ok" else None,
                  stdout=str(msg.get("stdout") or ""), stderr=str(msg.get("stderr") or ""),
                  seconds=float(msg.get("seconds") or 0.0))


_DEFAULT: Sandbox | None = None
_DEFAULT_LOCK = threading.Lock()


def default_sandbox() -> Sandbox:
    """The process-wide sandbox behind run()/run_many(), started on first use (again after a fork)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None or _DEFAULT._pid != os.getpid():
            _DEFAULT = Sandbox()
            import atexit

            atexit.register(_DEFAULT.close)
        return _DEFAULT


def run(code: str, expr: str | None = None, *, timeout_s: float = 2.0, memory_mb: int = 512) -> Result:
    return default_sandbox().run(code, expr, timeout_s=timeout_s, memory_mb=memory_mb)


def run_many(jobs, workers: int | None = None, *, timeout_s: float = 2.0, memory_mb: int = 512) -> list[Result]:
    return default_sandbox().run_many(jobs, workers, timeout_s=timeout_s, memory_mb=memory_mb)


# ============================================================================ server side
# Everything below runs in the fork server and its children, never in the caller.

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
# What problems import. Loaded once in the server; code importing nothing else (and passing the
# rest of _reusable) may share a runner process with the jobs before and after it.
SAFE_MODULES = frozenset("abc array bisect cmath collections copy dataclasses datetime decimal enum fractions "
                         "functools hashlib heapq itertools json math numbers operator random re statistics "
                         "string struct textwrap time typing unicodedata".split())
PRELOAD = sorted(SAFE_MODULES) + "ast ctypes fcntl resource shutil socket subprocess _posixsubprocess tempfile traceback".split()
RISKY_NAMES = frozenset("setattr delattr getattr vars globals locals __import__ exec eval compile breakpoint "
                        "__builtins__ __loader__ __spec__".split())
RISKY_ATTRS = frozenset("__dict__ __globals__ __subclasses__ __mro__ __bases__ __base__ __class__ __builtins__ "
                        "__code__ __closure__ __func__ __self__ __wrapped__ __loader__ __spec__ __import__ "
                        "__getattribute__ __setattr__ __delattr__ __reduce__ __reduce_ex__ __defaults__ __kwdefaults__ "
                        "__init_subclass__ f_globals f_locals f_builtins f_back f_code tb_frame gi_frame gi_code "
                        "cr_frame ag_frame".split())
REPLY_KEYS = ("status", "value", "stdout", "stderr", "seconds")


class Forbidden(PermissionError):
    """Raised inside a job by the operations the sandbox refuses."""


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _write_line(fd: int, msg: dict, lead: bytes = b"") -> None:
    data = lead + json.dumps(msg).encode() + b"\n"
    while data:
        data = data[os.write(fd, data):]


def _serve(cfg: dict) -> None:
    """The fork server: give the caller's jobs (stdin) to idle workers, send results back (stdout),
    and kill a worker whose job overruns its wall-clock limit."""
    import gc

    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if p and Path(p).resolve() != here]  # jobs must not import utils/
    for name in PRELOAD:
        __import__(name)
    cmd_in, out = os.dup(0), os.dup(1)  # keep the caller's pipes off fds 0/1, which children inherit
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    libc = _libc()
    root = os.geteuid() == 0
    iso = {"uid_drop": root, "userns": False, "net_ns": False}
    if cfg["namespaces"]:
        if not root:  # a user namespace grants the right to make the others, where the kernel allows it
            uid, gid = os.getuid(), os.getgid()
            if libc.unshare(CLONE_NEWUSER) == 0:
                try:
                    Path("/proc/self/setgroups").write_text("deny")
                    Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
                    Path("/proc/self/gid_map").write_text(f"0 {gid} 1")
                    iso["userns"] = True
                except OSError:
                    pass
        iso["net_ns"] = libc.unshare(CLONE_NEWNET) == 0
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1)  # what a killed worker leaves behind comes back here to be reaped
    # job directories live here unless a worker gets its own tmpfs; nobody may pass through, not list
    cfg = {**cfg, "root": root}
    os.chmod(cfg["base"], 0o711)
    gc.freeze()  # children share these objects; the collector must not touch (and so copy) their pages

    workers: dict[int, dict] = {}  # reply fd -> {"pid", "to", "buf", "state": starting|idle|busy, "job", "deadline"}
    queue: list[dict] = []
    inbuf = b""

    def spawn() -> None:
        w = _spawn_worker(cfg, [cmd_in, out] + [fd for w in workers.values() for fd in (w["to"], w["from"])])
        workers[w["from"]] = w

    def reply(w: dict, msg: dict) -> None:
        _write_line(out, {**{k: msg.get(k) for k in REPLY_KEYS}, "id": w["job"]["id"]})
        w["job"] = None

    def drop(w: dict) -> None:  # kill a worker: its PID namespace, and so everything in it, dies too
        del workers[w["from"]]
        _reap_strays({v["pid"] for v in workers.values()})  # the holder is one of them now
        os.close(w["from"])
        os.close(w["to"])

    def on_message(w: dict, msg: dict) -> None:
        job = w["job"]
        if "ready" in msg:  # a runner's hello: which namespaces it really got
            for k in ("pid_ns", "mount_ns"):
                iso[k] = bool(msg[k]) and iso.get(k, True)
            w["state"] = "idle" if job is None else w["state"]
        elif "exit" in msg:  # the worker says its runner ended; mid-job, that is the job's result
            if job is not None:
                sig, code = msg["exit"].get("signal"), msg["exit"].get("code")
                status = "timeout" if sig == signal.SIGXCPU else "killed" if sig else "error"
                how = f"was killed by signal {signal.Signals(sig).name}" if sig else f"exited with status {code}"
                reply(w, {"status": status, "stderr": f"[sandbox] the job {how} before finishing",
                          "seconds": time.monotonic() - w["sent"]})
            w["state"] = "starting"
        elif job is not None and msg.get("retry") == job["id"]:  # needs a fresh runner
            queue.insert(0, job)
            w["job"], w["state"] = None, "starting"
        elif job is not None and msg.get("id") == job["id"]:
            reply(w, msg)
            w["state"] = "starting" if msg.get("last") else "idle"

    try:
        spawn()  # pre-fork one worker, and learn from its first runner what isolation we have
        while "pid_ns" not in iso:
            w = next(iter(workers.values()))
            chunk = os.read(w["from"], 1 << 16)
            if not chunk:
                raise RuntimeError("sandbox: the first worker died while starting")
            w["buf"] += chunk
            *lines, w["buf"] = w["buf"].split(b"\n")
            for line in lines:
                on_message(w, _loads(line) or {})
        _write_line(out, {"isolation": iso})
        while True:
            now = time.monotonic()
            for w in list(workers.values()):
                if queue and w["state"] == "idle":
                    job = queue.pop(0)
                    w.update(state="busy", job=job, sent=now, deadline=now + job["timeout_s"])
                    _write_line(w["to"], job)
            for _ in range(len(queue) - sum(w["state"] == "starting" for w in workers.values())):
                spawn()
            deadlines = [w["deadline"] for w in workers.values() if w["job"] is not None]
            wait = max(0.0, min(deadlines) - now) if deadlines else None
            for fd in select.select([cmd_in, *workers], [], [], wait)[0]:
                chunk = os.read(fd, 1 << 16)
                if fd == cmd_in:
                    if not chunk:
                        return  # the caller is gone
                    *lines, inbuf = (inbuf + chunk).split(b"\n")
                    queue += [json.loads(line) for line in lines if line]
                    continue
                w = workers[fd]
                if not chunk:  # the worker itself died
                    if w["job"] is not None:
                        reply(w, {"status": "killed", "stderr": "[sandbox] the worker died during the job"})
                    drop(w)
                    continue
                w["buf"] += chunk
                *lines, w["buf"] = w["buf"].split(b"\n")
                for line in lines:
                    on_message(w, _loads(line) or {})
            now = time.monotonic()
            for w in list(workers.values()):
                if w["job"] is not None and now >= w["deadline"]:
                    reply(w, {"status": "timeout", "seconds": now - w["sent"],
                              "stderr": f"[sandbox] wall-clock limit of {w['job']['timeout_s']} s reached"})
                    drop(w)
    finally:
        _reap_strays(set())  # every worker, and all below them: nothing outlives the server
        shutil.rmtree(cfg["base"], ignore_errors=True)


def _children() -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/self/task/{os.getpid()}/children").read_text().split()]
    except OSError:
        return []


def _proc_parents() -> dict[int, int]:
    parents = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    parents[int(entry.name)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    return parents


def _subtree(roots: set[int], parents: dict[int, int]) -> set[int]:
    out, frontier = set(roots), set(roots)
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - out
        out |= frontier
    return out


def _reap_strays(live: set[int]) -> None:
    """Kill and reap every process below us that is not a live worker's: a killed worker's init
    and, without namespaces, whatever its jobs left behind (orphans come to us, a subreaper)."""
    for _ in range(200):
        parents = _proc_parents()
        strays = _subtree({os.getpid()}, parents) - _subtree(live, parents) - {os.getpid()}
        if not strays:
            return
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in strays:
            if parents.get(pid) == os.getpid():
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
        time.sleep(0.005)


def _spawn_worker(cfg: dict, close_fds: list[int]) -> dict:
    """Fork a holder that makes the namespaces and forks the worker, their init, inside them."""
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(job_r)
        os.close(res_w)
        return {"pid": pid, "to": job_w, "from": res_r, "buf": b"", "state": "starting", "job": None}
    try:
        for fd in [job_w, res_r] + close_fds:
            os.close(fd)
        libc = _libc()
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        flags = (CLONE_NEWPID | (CLONE_NEWNS if cfg["root"] else 0)) if cfg["namespaces"] else 0
        made = bool(flags) and libc.unshare(flags) == 0
        paths = _readonly_root(libc, cfg["tmpfs_mb"]) if made and cfg["root"] else None
        child = os.fork()
        if child == 0:
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            mount_ns = paths is not None
            _worker({**cfg, "base": "/tmp", "sys_path": paths} if mount_ns else cfg, job_r, res_w, mount_ns, libc)
        os.close(job_r)
        os.close(res_w)
        os.waitpid(child, 0)
    finally:
        os._exit(0)


def _readonly_root(libc, tmpfs_mb: int) -> list[str] | None:
    """In a fresh mount namespace: every mount read-only, a private tmpfs on /tmp, and the import
    path bound read-only under /tmp/.path (the interpreter may live where nobody cannot look, e.g.
    under /root). Returns sys.path as the job must see it, or None if this failed."""
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:  # nothing propagates back out
        return None
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        mp = line.split()[4].encode().decode("unicode_escape").encode("latin-1")  # octal escapes like \040
        try:
            keep = os.statvfs(mp).f_flag & (MS_NOSUID | MS_NODEV | MS_NOEXEC)
        except OSError:
            continue
        # MS_BIND makes this a per-mount flag in our namespace; without it the remount would
        # change the filesystem itself, for everyone
        if libc.mount(None, mp, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | keep, None) and mp == b"/":
            return None
    # owned by root, mode 755: a job can write only inside the directory made for it
    if libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, f"size={tmpfs_mb}m,mode=755".encode()):
        return None
    paths = []
    for i, entry in enumerate(p for p in sys.path if os.path.isdir(p)):
        target = f"/tmp/.path/{i}"
        os.makedirs(target)
        if libc.mount(entry.encode(), target.encode(), None, MS_BIND | MS_REC, None) or libc.mount(
                None, target.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None):
            return None
        paths.append(target)
    return paths


def _worker(cfg: dict, job_r: int, res_w: int, mount_ns: bool, libc) -> None:
    """Keep one runner alive: fork it, and when it ends, kill what it left, report, fork the next."""
    pid1 = os.getpid() == 1
    if pid1 and mount_ns:  # a /proc that shows only this namespace's processes
        libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    if not pid1:  # orphans of the runner come to us, so we can find and kill them
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
    cfg = {**cfg, "pid_ns": pid1, "mount_ns": mount_ns}
    while True:
        while select.select([job_r], [], [], 0)[0]:  # a job sent to a runner that died before reading it
            if not os.read(job_r, 1 << 16):
                os._exit(0)  # the server is gone
        scratch = tempfile.mkdtemp(dir=cfg["base"], prefix="run-")
        if cfg["root"]:
            os.chown(scratch, NOBODY, NOBODY)
        pid = os.fork()
        if pid == 0:
            try:
                _runner(cfg, scratch, job_r, res_w, libc)
            finally:
                os._exit(1)
        while True:
            done, status = os.waitpid(-1, 0)
            if done == pid:
                break
        _reap(pid)
        shutil.rmtree(scratch, ignore_errors=True)
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        code = None if sig else os.WEXITSTATUS(status)
        _write_line(res_w, {"exit": {"signal": sig, "code": code}}, lead=b"\n")  # ends a torn line


def _reap(pgid: int) -> None:
    """Kill and reap every process a runner left behind."""
    if os.getpid() == 1:  # init of our own PID namespace: every other process in it is the runner's
        while True:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                return
    try:  # no namespace: the runner's process group, then orphans reparented to us
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for _ in range(1000):
        for pid in _children():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        time.sleep(0.001)


def _runner(cfg: dict, scratch: str, job_r: int, res_w: int, libc) -> None:
    """The process that runs jobs: confine itself once, then run jobs until one may have left a
    trace (or after cfg['jobs_per_process']). Never returns."""
    import fcntl
    import resource

    try:
        outs = [os.memfd_create("stdout"), os.memfd_create("stderr")]  # unnamed: a job cannot swap them
        null = os.open(os.devnull, os.O_RDONLY)
        fds = [fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in (null, outs[0], outs[1], job_r, res_w, outs[0], outs[1])]
        for target, fd in enumerate(fds):  # 0 null, 1-2 output, 3 jobs in, 4 results out, 5-6 our copies
            os.dup2(fd, target)
        os.closerange(7, 1 << 16)
        os.setsid()
        for lim, value in ((resource.RLIMIT_FSIZE, cfg["fsize_mb"] << 20), (resource.RLIMIT_NOFILE, 256),
                           (resource.RLIMIT_NPROC, cfg["nproc"]), (resource.RLIMIT_CORE, 0)):
            resource.setrlimit(lim, (value, value))
        if cfg["root"]:
            os.setgroups([])
            os.setresgid(NOBODY, NOBODY, NOBODY)
            os.setresuid(NOBODY, NOBODY, NOBODY)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.chdir(scratch)
        os.umask(0o077)
        if cfg.get("sys_path"):
            sys.path[:] = cfg["sys_path"]
            sys.path_importer_cache.clear()
        tripped = _install_guards()
    except BaseException as e:  # reported by the worker as an exit before finishing
        os.write(2, f"[sandbox] runner setup failed: {e!r}\n".encode())
        os._exit(1)
    _write_line(4, {"ready": True, "pid_ns": cfg["pid_ns"], "mount_ns": cfg["mount_ns"]})
    _run_jobs(cfg, scratch, tripped)
    os._exit(0)


def _run_jobs(cfg: dict, scratch: str, tripped: list) -> None:
    import decimal
    import random
    import resource

    cache: dict[str, tuple] = {}  # code -> (code object or the compile error, reusable)
    modules = len(sys.modules)
    buf = b""
    for n in range(cfg["jobs_per_process"]):
        while b"\n" not in buf:
            chunk = os.read(3, 1 << 16)
            if not chunk:
                return
            buf += chunk
        line, _, buf = buf.partition(b"\n")
        job = json.loads(line)
        code, reusable = _compiled(job["code"], cache)
        expr = None if job.get("expr") is None else _compiled(job["expr"], cache, "eval")
        reusable = reusable and (expr is None or expr[1])
        mem = job["memory_mb"] << 20
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        # a limit can only be lowered, and code that may leave a trace gets a runner of its own
        if (hard != resource.RLIM_INFINITY and mem > hard) or (n and not reusable):
            _write_line(4, {"retry": job["id"]})
            return
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu = int(used.ru_utime + used.ru_stime) + int(job["timeout_s"]) + 1  # the wall clock usually ends it first
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.RLIM_INFINITY))
        os.chdir(scratch)  # emptied after every job; its parent is not ours to write
        tempfile.tempdir = scratch
        for fd in (5, 6):
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
        random.seed()  # forked runners would otherwise share the server's random state
        decimal.setcontext(decimal.Context())
        tripped.clear()
        status, value, seconds = _execute(code, expr and expr[0], cfg["max_value_chars"])
        if tripped and status != "memory":
            status, value = "forbidden", None
        tails = [_tail(fd, cfg["output_chars"]) for fd in (5, 6)]
        try:
            for name in os.listdir(scratch):
                shutil.rmtree(os.path.join(scratch, name))
        except OSError:
            reusable = False
        clean = reusable and status in ("ok", "error") and len(sys.modules) == modules
        last = not clean or n == cfg["jobs_per_process"] - 1
        _write_line(4, {"id": job["id"], "status": status, "value": value, "stdout": tails[0], "stderr": tails[1],
                        "seconds": round(seconds, 6), "last": last})
        if last:
            return


def _compiled(source: str, cache: dict, mode: str = "exec") -> tuple:
    """(code object, or the error compiling it raised; whether it may share a runner), cached."""
    key = (mode, source)
    if key not in cache:
        import ast

        if len(cache) > 256:
            cache.clear()
        try:
            tree = ast.parse(source, f"<{'code' if mode == 'exec' else 'expr'}>", mode)
            cache[key] = (compile(tree, f"<{'code' if mode == 'exec' else 'expr'}>", mode), _reusable(tree))
        except (SyntaxError, ValueError, MemoryError, RecursionError) as e:  # reported when the job runs
            cache[key] = (e, True)
    return cache[key]


def _execute(code, expr, max_value_chars: int) -> tuple[str, str | None, float]:
    """Run one job in a fresh namespace: (status, repr of expr's value, seconds)."""
    import builtins
    import traceback

    ns = {"__name__": "__sandbox__", "__builtins__": builtins}
    value, status = None, "ok"
    t0 = time.monotonic()
    try:
        if isinstance(code, BaseException):
            raise code
        exec(code, ns)
        if expr is not None:
            if isinstance(expr, BaseException):
                raise expr
            value = repr(eval(expr, ns))
            if len(value) > max_value_chars:
                raise ValueError(f"value repr of {len(value)} characters exceeds the sandbox limit")
    except MemoryError:
        status, value = "memory", None
    except BaseException as e:  # the code's own failure (SystemExit included) is its result
        status, value = ("forbidden" if isinstance(e, Forbidden) else "error"), None
        try:
            traceback.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None)
        except BaseException:  # a hostile __str__ or a full output file must not stop the report
            pass
    seconds = time.monotonic() - t0
    try:
        ns.clear()  # the job's objects go now, finalizers included, while output is still captured
    except BaseException:
        status = "error" if status == "ok" else status
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    return status, value, seconds


def _tail(fd: int, n: int) -> str:
    size = os.fstat(fd).st_size
    return os.pread(fd, n * 4, max(0, size - n * 4)).decode("utf-8", "replace")[-n:]


def _reusable(tree) -> bool:
    """Whether code cannot leave a trace in the process that runs it, judged conservatively from its
    syntax: it imports only SAFE_MODULES, uses no reflection (setattr, globals, exec, dunder
    attributes, frames), stores or deletes no attribute at all, and stores items only into names
    it did not bind to what a module holds. Code that fails this runs in a runner of its own,
    which then exits."""
    import ast

    external: set[str] = set()  # names bound to modules or to what a module holds
    nodes = list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom) and (node.level or not node.module):
                return False
            for alias in node.names:
                module = node.module if isinstance(node, ast.ImportFrom) else alias.name
                if module.split(".")[0] not in SAFE_MODULES or alias.name == "*":
                    return False
                external.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.Name) and node.id in RISKY_NAMES:
            return False
        elif isinstance(node, ast.Attribute) and node.attr in RISKY_ATTRS:
            return False
    call_roots = {id(_root(n.func)) for n in nodes if isinstance(n, ast.Call)}  # calls make new objects

    def refers(expr) -> bool:
        return any(isinstance(n, ast.Name) and n.id in external and id(n) not in call_roots for n in ast.walk(expr))

    for _ in range(3):  # aliases of aliases
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
                if refers(node.value):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    external |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            elif isinstance(node, (ast.For, ast.comprehension)) and refers(node.iter):
                external |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
            elif isinstance(node, ast.arguments):
                for arg, default in zip(node.args[::-1] + node.kwonlyargs, node.defaults[::-1] + node.kw_defaults):
                    if default is not None and refers(default):
                        external.add(arg.arg)
    for node in nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return False  # any object may be a module's (self, a parameter, type(x), a call's result)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = node.value
            while isinstance(root, ast.Subscript):
                root = root.value
            if not isinstance(root, ast.Name) or root.id in external:  # x.items[0] = ..., g()[0] = ...
                return False
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.endswith("__"):
            root = _root(node)
            if isinstance(root, ast.Name) and root.id in external:  # a module's private state
                return False
    return True


def _root(node):
    import ast

    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _install_guards() -> list:
    """Replace the obvious doors out (sockets, processes, signals) with functions raising Forbidden;
    the returned list records each attempt, even one the code catches."""
    import _posixsubprocess
    import _socket
    import posix
    import socket
    import subprocess as sp

    tripped: list = []

    def refuse(name):
        def blocked(*args, **kwargs):
            tripped.append(name)
            raise Forbidden(f"{name} is not allowed in the sandbox")
        return blocked

    doors = {socket: ["socket", "socketpair", "create_connection", "create_server", "fromfd"],
             _socket: ["socket", "socketpair"], sp: ["Popen"], _posixsubprocess: ["fork_exec"],
             os: ["fork", "forkpty", "system", "popen", "kill", "killpg", "posix_spawn", "posix_spawnp",
                  "execv", "execve", "execl", "execle", "execlp", "execlpe", "execvp", "execvpe",
                  "spawnv", "spawnve", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnvp", "spawnvpe"],
             posix: ["fork", "forkpty", "system", "kill", "killpg", "posix_spawn", "posix_spawnp", "execv",
                     "execve"], signal: ["pthread_kill"]}
    for module, names in doors.items():
        for name in names:
            if hasattr(module, name):
                setattr(module, name, refuse(f"{module.__name__}.{name}"))
    return tripped


if __name__ == "__main__":
    _serve(json.loads(sys.argv[1]))
