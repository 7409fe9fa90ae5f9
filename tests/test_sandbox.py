"""utils/sandbox.py: hostile code is contained (right status, caller alive, nothing outside the
sandbox changed, no process left), results are right and in order, and reuse does not leak state."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from utils.sandbox import Sandbox, run, run_many

ROOT = Path(__file__).resolve().parents[1]
T = 1.0  # per-job timeout in these tests


@pytest.fixture(scope="module")
def sb():
    with Sandbox() as s:
        yield s


def descendants(pid: int) -> set[int]:
    parent = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                parent[int(p.name)] = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, pp in parent.items() if pp in frontier} - out
        out |= frontier
    return out


def server_tree_is_clean(sb: Sandbox, workers: int = 3) -> bool:
    """Only live workers remain: at most `workers` children of the server, each a holder with a
    worker and a runner below it."""
    deadline = time.time() + 5
    while time.time() < deadline:
        holders = descendants_of_depth1(sb._proc.pid)
        if len(holders) <= workers and all(len(descendants(h)) <= 2 for h in holders):
            return True
        time.sleep(0.05)
    return False


def descendants_of_depth1(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def contained(sb: Sandbox, code: str, expr: str | None = None, **kw):
    t0 = time.time()
    r = sb.run(code, expr, timeout_s=kw.pop("timeout_s", T), **kw)
    assert time.time() - t0 < T + 5, "the caller waited far past the timeout"
    assert server_tree_is_clean(sb), "a process outlived its job"
    assert sb.run("x = 6 * 7", "x").value == "42", "the sandbox must keep working"
    return r


def test_values_and_order(sb):
    assert sb.run("def f(x):\n    return x * 2", "f(21)").value == sb.run("f = lambda x: 2 * x", "f(21)").value == "42"
    r = sb.run("print('hi')\nimport sys\nprint('err', file=sys.stderr)", "[1, 'a', None]")
    assert (r.status, r.value, r.stdout, r.stderr) == ("ok", "[1, 'a', None]", "hi\n", "err\n")
    assert sb.run("x = 1").value is None and sb.run("x = 1").ok
    jobs = [(f"def f():\n    return {i}", "f()") for i in range(60)]
    assert [r.value for r in sb.run_many(jobs, workers=3)] == [str(i) for i in range(60)]
    assert [r.value for r in run_many(jobs[:5], workers=2)] == ["0", "1", "2", "3", "4"]
    assert run("x = 3", "x").value == "3"
    r = sb.run("raise ValueError('boom')")
    assert r.status == "error" and "ValueError: boom" in r.stderr
    assert sb.run("def f(:").status == "error"
    assert sb.run("x = 'a' * 3_000_000", "x").status == "error", "values are capped"


def test_isolation_layers_detected(sb):
    iso = sb.isolation
    assert set(iso) >= {"uid_drop", "userns", "net_ns", "pid_ns", "mount_ns"}
    if os.geteuid() == 0:  # CI runs as root: everything is real there
        assert iso["uid_drop"] and iso["net_ns"] and iso["pid_ns"] and iso["mount_ns"]


def test_infinite_loop(sb):
    t0 = time.time()
    r = contained(sb, "while True:\n    pass", timeout_s=0.5)
    assert r.status == "timeout" and time.time() - t0 < 3


def test_fork_bomb(sb):
    assert contained(sb, "import os\nwhile True:\n    os.fork()").status == "forbidden"
    # around the guard, through libc: bounded by RLIMIT_NPROC, all killed with the namespace
    r = contained(sb, "import ctypes\nlibc = ctypes.CDLL(None)\nwhile True:\n    libc.fork()")
    assert r.status in ("timeout", "error", "killed")
    assert contained(sb, "import subprocess\nsubprocess.run(['ls'])").status == "forbidden"


def test_memory_bomb(sb):
    assert contained(sb, "x = []\nwhile True:\n    x.append(' ' * 10**7)", memory_mb=256).status == "memory"
    assert contained(sb, "x = bytearray(10**10)").status == "memory"


def test_deep_recursion(sb):
    r = contained(sb, "def f(n):\n    return f(n + 1)\nf(0)")
    assert r.status == "error" and "RecursionError" in r.stderr
    # past the recursion limit into the C stack: the job segfaults, the caller does not notice
    code = "import sys\nsys.setrecursionlimit(10**6)\nl = []\nfor _ in range(10**5):\n    l = [l]\nrepr(l)"
    assert contained(sb, code, timeout_s=5).status in ("killed", "timeout")


def test_files_outside_the_working_directory(sb, tmp_path):
    shm = Path("/dev/shm") / f"sandbox-test-{os.getpid()}"  # world-writable: only the sandbox protects it
    shm.mkdir(mode=0o777, exist_ok=True)
    os.chmod(shm, 0o777)
    sentinel = shm / "sentinel"
    sentinel.write_text("keep")
    os.chmod(sentinel, 0o666)
    readme = (ROOT / "README.md").read_bytes() if (ROOT / "README.md").exists() else None
    try:
        for code in (f"open({str(sentinel)!r}, 'w').write('gone')",
                     f"import os\nos.remove({str(sentinel)!r})",
                     f"open({str(shm / 'new')!r}, 'w').write('x')",
                     f"open({str(ROOT / 'HACKED')!r}, 'w').write('x')",
                     f"import shutil\nshutil.rmtree({str(ROOT / 'tests')!r})",
                     "open('/tmp/HACKED', 'w').write('x')",
                     "open('../HACKED', 'w').write('x')"):
            r = contained(sb, code)
            assert r.status == "error", (code, r)
        assert sentinel.read_text() == "keep" and not (shm / "new").exists()
        assert not (ROOT / "HACKED").exists() and not Path("/tmp/HACKED").exists()
        assert (ROOT / "tests" / "test_sandbox.py").exists()
        if readme is not None:
            assert (ROOT / "README.md").read_bytes() == readme
        # inside its own directory a job may write; the next job finds it empty again
        r = contained(sb, "import os\nopen('mine.txt', 'w').write('ok')\nos.mkdir('d')\nprint(sorted(os.listdir('.')))")
        assert r.ok and r.stdout == "['d', 'mine.txt']\n"
        assert sb.run("import os", "os.listdir('.')").value == "[]"
    finally:
        for p in (sentinel, shm / "new"):
            p.unlink(missing_ok=True)
        shm.rmdir()


def test_socket(sb):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    try:
        r = contained(sb, f"import socket\nsocket.create_connection(('127.0.0.1', {port}))")
        assert r.status == "forbidden"
        assert contained(sb, f"import _socket\n_socket.socket().connect(('127.0.0.1', {port}))").status == "forbidden"
        # the raw system call, around the guard: an empty network namespace has nowhere to go
        raw = ("import ctypes, struct\nlibc = ctypes.CDLL(None, use_errno=True)\nfd = libc.socket(2, 1, 0)\n"
               f"addr = struct.pack('!HH4s8x', 2, {port}, bytes([127, 0, 0, 1]))\n"
               "addr = addr[:2][::-1] + addr[2:]  # sa_family is host order\n"
               "print(fd, libc.connect(fd, addr, 16), ctypes.get_errno())")
        contained(sb, raw)
        with pytest.raises(socket.timeout):
            listener.accept()
    finally:
        listener.close()


def test_killing_the_parent(sb):
    me = os.getpid()
    assert contained(sb, "import os\nos.kill(os.getppid(), 9)").status == "forbidden"
    assert contained(sb, f"import os\nos.kill({me}, 9)").status == "forbidden"
    assert contained(sb, "import signal\nsignal.pthread_kill(1, 9)").status == "forbidden"
    libc = ("import ctypes, os\nlibc = ctypes.CDLL(None)\n"
            f"print(libc.kill(os.getppid(), 9), libc.kill({me}, 9), libc.kill(1, 9), libc.kill(-1, 9))")
    contained(sb, libc)
    assert os.getpid() == me  # still here


def test_exits(sb):
    r = contained(sb, "import sys\nsys.exit(3)")
    assert r.status == "error" and "SystemExit: 3" in r.stderr
    r = contained(sb, "import os\nos._exit(0)")
    assert r.status == "error" and "exited with status 0" in r.stderr
    assert contained(sb, "raise SystemExit").status == "error"


def test_huge_output(sb):
    r = contained(sb, "while True:\n    print('x' * 1000)")
    assert r.status in ("error", "timeout") and len(r.stdout) <= 8192
    r = contained(sb, "print('y' * 10**7)", "1")
    assert r.status == "ok" and r.stdout.endswith("y\n") and len(r.stdout) <= 8192


def test_signal_handlers(sb):
    code = ("import signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGXCPU, signal.SIGHUP):\n"
            "    signal.signal(s, signal.SIG_IGN)\nwhile True:\n    pass")
    assert contained(sb, code, timeout_s=0.5).status == "timeout"
    # changed handlers do not follow the code into the next job
    contained(sb, "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)")
    assert sb.run("import signal", "signal.getsignal(signal.SIGALRM) == signal.SIG_DFL").value == "True"


def test_callers_environment(sb):
    secret = f"s3cret-{os.getpid()}"
    os.environ["SANDBOX_TEST_SECRET"] = secret
    holder = subprocess.Popen(["sleep", "30"], env={**os.environ, "SANDBOX_TEST_SECRET": secret})
    try:
        code = ("import os, glob\nprint(dict(os.environ))\n"
                f"for p in glob.glob('/proc/*/environ') + ['/proc/{holder.pid}/environ', '/proc/{os.getpid()}/environ']:\n"
                "    try:\n        print(open(p, 'rb').read())\n    except OSError:\n        pass")
        r = contained(sb, code)
        assert r.ok and secret not in r.stdout and "SANDBOX_TEST_SECRET" not in r.stdout
    finally:
        holder.kill()
        holder.wait()
        del os.environ["SANDBOX_TEST_SECRET"]


def test_reuse_does_not_leak_state(sb):
    for code in ("import math\nmath.pi = 3", "import math as m\nm.floor = abs", "import collections\n"
                 "C = collections.Counter\nC.most_common = None", "import random\nrandom.seed(1)",
                 "import decimal\ndecimal.getcontext().prec = 3", "import sys\nsys.setrecursionlimit(50)",
                 "__builtins__['len'] = lambda x: 0", "import builtins\nbuiltins.sorted = None",
                 # a module's class reached through a call, an instance, a class body or a parameter
                 "import collections\ndef g():\n    return collections.Counter\ng().most_common = None",
                 "import collections\ntype(collections.Counter()).most_common = None",
                 "import collections\ncollections.Counter().__class__.most_common = None",
                 "import collections\nclass K:\n    C = collections.Counter\nK.C.most_common = None",
                 "import collections\ndef h(c):\n    c.most_common = None\nh(collections.Counter)",
                 "import collections\nclass K:\n    C = [collections.Counter]\ndel K.C[0].most_common"):
        jobs = [("import math", "math.pi")] * 3 + [(code, None)] + [
            ("import math, collections, decimal, random", "(math.pi, math.floor(2.5), len('ab'), sorted([2, 1]),"
             " callable(collections.Counter.most_common), str(decimal.Decimal(1) / 7)[:10])")] * 3
        out = sb.run_many(jobs, workers=1)
        assert all(r.ok for r in out[4:]), (code, out)
        assert len({r.value for r in out[4:]}) == 1 and "3.14159" in out[4].value and "0.14285714" in out[4].value
        assert out[4].value.startswith("(3.141592653589793, 2, 2, [1, 2], True"), (code, out[4])
    seeds = sb.run_many([("import random", "random.random()")] * 4, workers=1)
    assert len({r.value for r in seeds}) == 4, "each job draws fresh random numbers"


def test_one_process_per_job_mode_and_no_namespaces():
    with Sandbox(reuse=False) as s:
        assert [r.value for r in s.run_many([("x = 1", "x")] * 6, workers=2)] == ["1"] * 6
        assert s.run("import os\nos.fork()").status == "forbidden"
    with Sandbox(namespaces=False) as s:  # the fallback path: process groups and a subreaper
        assert not s.isolation["pid_ns"] and not s.isolation["net_ns"]
        assert s.run("while True:\n    pass", timeout_s=0.5).status == "timeout"
        r = s.run("import ctypes\nlibc = ctypes.CDLL(None)\nfor _ in range(8):\n    libc.fork()\nwhile True:\n"
                  "    pass", timeout_s=0.5)
        assert r.status == "timeout" and server_tree_is_clean(s, workers=1)
        assert s.run("x = 2", "x").value == "2"


def test_server_death_and_fork_and_threads():
    job_dirs = set()  # each server's directory for job files: gone afterwards, even when it was killed
    with Sandbox() as s:
        assert s.run("x = 1", "x").ok
        job_dirs.add(s._base)
        os.kill(s._proc.pid, signal.SIGKILL)  # the server dies between calls: the next call restarts it
        assert s.run("x = 2", "x").value == "2"
        job_dirs.add(s._base)
        killer = threading.Timer(0.3, lambda: os.kill(s._proc.pid, signal.SIGKILL))
        killer.start()  # ... and during one: the job is run again once in a new server
        r = s.run("import time\ntime.sleep(1)", "7", timeout_s=3)
        killer.join()
        assert r.value == "7" and s.run("x = 3", "x").value == "3"
        job_dirs.add(s._base)
        results = []
        threads = [threading.Thread(target=lambda i=i: results.append(s.run(f"x = {i}", "x").value)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == [str(i) for i in range(6)]
    assert len(job_dirs) == 3 and not any(os.path.exists(d) for d in job_dirs)
    pid = os.fork()  # a forked caller gets its own server, and leaves its parent's alone
    if pid == 0:
        os._exit(0 if run("x = 5", "x").value == "5" else 1)
    assert os.waitpid(pid, 0)[1] == 0
    assert run("x = 6", "x").value == "6"


def test_expressions_are_checked_too(sb):
    out = sb.run_many([("import math", "math.pi"), ("import math", "math.__dict__.update(pi=3)"),
                       ("import math", "math.pi"), ("x = 1", "(x +"), ("x = 1", "x")], workers=1)
    assert [r.value for r in out] == ["3.141592653589793", "None", "3.141592653589793", None, "1"]
    assert out[3].status == "error" and "SyntaxError" in out[3].stderr
    assert [r.value for r in sb.run_many([("x = 1", "x")] * 3, memory_mb=256)] == ["1"] * 3
    assert sb.run("x = 2", "x", memory_mb=1024).value == "2", "a larger limit gets a fresh runner"
    for bad in ({"timeout_s": 0}, {"timeout_s": -1}, {"memory_mb": -1}):  # negative limits would mean no limit
        with pytest.raises(ValueError, match="sandbox"):
            sb.run("x = 1", "x", **bad)
