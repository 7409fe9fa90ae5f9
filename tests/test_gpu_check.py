"""scripts/gpu_check.sh's set-up on stubbed GPUs (a fake nvidia-smi; torch.cuda patched inside the
real utils.dist probe), its per-step time limit, and tests/vllm/entry.py's --no-sync. GPU minutes
are scarce: what the script decides before its first item must be right before it meets a GPU."""
import importlib.util
import os
import signal
import stat
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_check.sh"
DRIVER = "535.104.05"
SLEEPER = "313"  # the seconds of the stray process the hung step leaves (a marker to find it by)

pytestmark = pytest.mark.skipif(Path("/proc/driver/nvidia/version").exists() or any(Path("/dev").glob("nvidia[0-9]*")),
                                reason="a GPU machine: the stubs would not be what the script sees")


def _exe(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def stubs(tmp_path: Path, gpus: int, patch: str, hang_import: bool = False, hang_memplan: bool = False) -> dict:
    """An environment whose nvidia-smi lists `gpus` H200s on driver 535, and whose python runs
    `python -m utils.dist --probe` with `patch` applied to torch first (the real probe code)."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    listing = "\n".join(f"GPU {i}: NVIDIA H200 (UUID: GPU-{i})" for i in range(gpus))
    query = "\n".join(f"{i}, NVIDIA H200, 143771 MiB, {DRIVER}" for i in range(gpus))
    _exe(bin_ / "nvidia-smi", f"""#!/bin/sh
case "$*" in
    -L) printf '%s\\n' "{listing}";;
    *index,name*) printf '%s\\n' "{query}";;
    *driver_version*) echo {DRIVER};;
    *) exit 9;;
esac
""")
    probe = (f"{patch}; import runpy, sys; sys.argv = ['utils.dist', '--probe']; "
             "runpy.run_module('utils.dist', run_name='__main__')")
    # a hung `import torch, vllm`: like a torchrun worker, it leaves a process in a session of its own
    hang = (f"""case "$2" in "import torch"*)
    "{sys.executable}" -c "import subprocess; subprocess.Popen(['sleep', '{SLEEPER}'], start_new_session=True)"
    exec sleep 600;;
esac
""" if hang_import else "")
    if hang_memplan:  # the first item's step hangs
        hang += 'if [ "$1 $2 $3" = "-m utils.memplan probe" ]; then exec sleep 600; fi\n'
    _exe(bin_ / "python", f"""#!/bin/sh
if [ "$1 $2 $3" = "-m utils.dist --probe" ]; then exec "{sys.executable}" -c "{probe}"; fi
{hang}exec "{sys.executable}" "$@"
""")
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_VISIBLE_DEVICES", "GPU_CHECK_BUDGET")}
    return {**env, "PATH": f"{bin_}:{env['PATH']}", "PY": str(bin_ / "python"), "OMP_NUM_THREADS": "1"}


def run(env: dict, *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_driver_too_old_for_torch_stops_at_once_with_one_line(tmp_path):
    env = stubs(tmp_path, 2, "import torch; torch.version.cuda = '13.0'; torch.cuda.is_available = lambda: False")
    res = run(env, str(tmp_path / "out"))
    assert res.returncode == 1
    assert res.stdout.splitlines() == [res.stdout.strip()], res.stdout
    line = res.stdout.strip()
    assert line.startswith("gpu_check: FAIL setup: GPUs are present (nvidia-smi lists 2 GPU(s); "
                           f"NVIDIA driver {DRIVER}) but torch "), line
    assert "(built for CUDA 13.0, which needs driver >= 580) cannot use them" in line and line.endswith("(no item ran)")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".gpu_check", "probe.log"]  # nothing ran


@pytest.mark.parametrize("seen,nproc", [(1, 1), (3, 2)])
def test_ranks_are_counted_from_the_gpus_torch_sees(tmp_path, seen, nproc):
    env = stubs(tmp_path, 4, f"import torch; torch.version.cuda = '13.0'; torch.cuda.is_available = lambda: True; "
                             f"torch.cuda.device_count = lambda: {seen}")
    env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(seen))
    res = run(env, "--probe", str(tmp_path / "out"))
    assert res.returncode == 0, res.stdout + res.stderr
    devices = [line for line in res.stdout.splitlines() if line.startswith("devices: ")]
    assert devices == [f"devices: gpus={seen} torch={devices[0].split('torch=')[1].split()[0]} cuda=13.0 "
                       f"driver={DRIVER}; nvidia-smi lists 4; CUDA_VISIBLE_DEVICES={env['CUDA_VISIBLE_DEVICES']}; "
                       f"{nproc} rank(s) per torchrun"], res.stdout


def test_torch_sees_no_gpu_is_one_line(tmp_path):
    env = stubs(tmp_path, 1, "import torch; torch.cuda.is_available = lambda: False")
    env["CUDA_VISIBLE_DEVICES"] = ""  # hidden: utils.dist allows CPU, the GPU check does not
    res = run(env, str(tmp_path / "out"))
    assert res.returncode == 1 and res.stdout.count("\n") == 1
    assert res.stdout.startswith("gpu_check: FAIL setup: torch sees no GPU (gpus=0 ")
    assert f"driver {DRIVER}" in res.stdout


def _strays() -> list[int]:
    pids = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            if (d / "cmdline").read_bytes() == f"sleep\0{SLEEPER}\0".encode():
                pids.append(int(d.name))
        except OSError:
            pass
    return pids


def test_a_hung_step_is_stopped_at_its_limit_and_its_processes_killed(tmp_path):
    env = stubs(tmp_path, 1, "import torch; torch.version.cuda = '13.0'; torch.cuda.is_available = lambda: True; "
                             "torch.cuda.device_count = lambda: 1", hang_import=True)
    env["GPU_CHECK_BUDGET"] = "75"  # the import's limit: what the budget leaves less the 45 s kill grace, ~25 s
    before = set(_strays())
    t0 = time.time()
    try:
        res = run(env, str(tmp_path / "out"), timeout=150)
        took = time.time() - t0
        assert res.returncode == 1 and res.stdout.splitlines()[-1].startswith(
            "gpu_check: FAIL setup: " + env["PY"] + " cannot import torch"), res.stdout
        assert "timed out" in res.stdout.splitlines()[-1]
        assert took < 75, took
        time.sleep(0.5)
        assert set(_strays()) - before == set()  # the worker in its own session was killed too
    finally:
        for pid in set(_strays()) - before:
            os.kill(pid, signal.SIGKILL)


def test_out_dir_that_is_not_a_gpu_check_output_is_kept(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    res = run(dict(os.environ), "--dry-run", str(tmp_path))
    assert res.returncode == 1 and "is not an earlier gpu_check output" in res.stdout
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_no_sync_control_refuses_sleep_mode(monkeypatch):
    from utils import engine

    monkeypatch.setattr(engine.VLLMEngine, "sync_weights", engine.VLLMEngine.sync_weights)  # restored afterwards
    spec = importlib.util.spec_from_file_location("vllm_entry", ROOT / "tests" / "vllm" / "entry.py")
    entry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(entry)
    entry.no_sync()
    streamed = []
    assert engine.VLLMEngine.sync_weights(types.SimpleNamespace(sleep_mode=False), iter(streamed)) is None
    with pytest.raises(engine.EngineError, match="--no-sync needs rl.engine.enable_sleep_mode=false"):
        engine.VLLMEngine.sync_weights(types.SimpleNamespace(sleep_mode=True), iter(streamed))


ITEMS = ["memory", "sft", "rl", "fsdp", "model", "placement", "sync", "tp", "evaluate"]


def dry_run(tmp_path, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**{k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}, **(env or {})}
    env.setdefault("PY", sys.executable)
    return run(env, "--dry-run", str(tmp_path / "out"), timeout=120)


def test_dry_run_lists_every_item_torch_only_first_and_runs_nothing(tmp_path):
    """--dry-run on CPU (CI): the prerequisites checked, each item with the commands it would run on
    the GPU (bf16, the SmolLM2-shaped stand-in), the vLLM items one SKIP line each without vLLM."""
    res = dry_run(tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    lines = res.stdout.splitlines()
    items = [line.split(":")[0].split()[1] for line in lines if line.startswith("ITEM ")]
    assert items == ITEMS  # the cheap torch-only items before the model build and vLLM

    def block(name: str) -> str:  # the lines under an item's ITEM line
        start = items.index(name)
        at = [i for i, line in enumerate(lines) if line.startswith("ITEM ")] + [len(lines) - 1]
        return "\n".join(lines[at[start] + 1:at[start + 1]])

    assert "train.py stage=sft" in block("sft") and "model=" + str(tmp_path / "out" / "smolshape") in block("sft")
    assert "rl.engine.backend=hf dtype=bfloat16" in block("rl") and "--nproc_per_node 1" in block("fsdp")
    assert "strategy=fsdp" in block("fsdp") and "--vocab 151936 --tokens 8192" in block("memory")
    vllm = subprocess.run([sys.executable, "-c", "import importlib.util as u, sys; sys.exit(u.find_spec('vllm') is None)"],
                          cwd=ROOT).returncode == 0  # not here: pytest puts tests/ (and tests/vllm/) on sys.path
    for name in ("placement", "sync", "tp", "evaluate"):
        assert ("SKIP: vLLM is not installed" in block(name)) != vllm, block(name)
    assert lines[-1] == f"gpu_check: dry run: {len(ITEMS)} items ({' '.join(ITEMS)}), nothing run; 0 prerequisite(s) missing"
    ran = {p.name for p in (tmp_path / "out").iterdir()}
    assert not ran & {"sft", "rl", "fsdp", "smolshape", "tiny"}, ran  # no run directory, no model built


def test_dry_run_names_missing_prerequisites_and_the_wheels_to_bring(tmp_path):
    """An offline node's stack: no omegaconf (train.py's config) and no C compiler on PATH: one line
    each, the wheel named, exit 1; the items are still listed."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool in ("bash", "sed", "grep", "cut", "head", "tail", "awk", "paste", "rm", "mkdir", "touch", "ls", "cat",
                 "timeout", "sort", "env", "dirname"):
        src = next((Path(d) / tool for d in os.environ["PATH"].split(":") if (Path(d) / tool).exists()), None)
        if src:
            (bin_ / tool).symlink_to(src)
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import importlib.util as u\n_find = u.find_spec\n"
        "u.find_spec = lambda name, *a: None if name in ('omegaconf', 'math_verify') else _find(name, *a)\n")
    res = dry_run(tmp_path, {"PATH": str(bin_), "PYTHONPATH": str(hide)})
    assert res.returncode == 1, res.stdout + res.stderr
    missing = [line for line in res.stdout.splitlines() if line.startswith("prerequisite")]
    assert missing[0] == "prerequisite missing: omegaconf: the torch-only items import it (bring omegaconf==2.4.0)"
    assert "prerequisite (not for the items): math_verify: no item imports it, the project does (bring " \
           "math-verify==0.9.0)" in missing
    assert "prerequisite missing: no C compiler (gcc or cc) on PATH: Triton cannot compile its launcher, pycosat " \
           "cannot build" in missing
    assert res.stdout.splitlines()[-1].endswith("nothing run; 2 prerequisite(s) missing")
    assert sum(line.startswith("ITEM ") for line in res.stdout.splitlines()) == len(ITEMS)


def test_items_the_budget_stops_are_skipped_with_their_seconds(tmp_path):
    """The memory item hangs past what the budget leaves it: timed out at the budget, it is SKIP, and
    so is every item after it (no time left), each line with its seconds; nothing FAILs."""
    import re

    env = stubs(tmp_path, 1, "import torch; torch.version.cuda = '13.0'; torch.cuda.is_available = lambda: True; "
                             "torch.cuda.device_count = lambda: 1", hang_memplan=True)
    env["GPU_CHECK_BUDGET"] = "85"  # the set-up takes ~15 s, the 45 s kill grace is kept: memory gets ~25 s
    res = run(env, str(tmp_path / "out"), timeout=150)
    lines = [line for line in res.stdout.splitlines() if re.match(r"(PASS|FAIL|SKIP) ", line)]
    assert res.returncode == 0, res.stdout + res.stderr
    assert [line.split()[1] for line in lines] == ITEMS, res.stdout
    assert all(re.match(r"SKIP \w+ \(\d+ s\): ", line) for line in lines), lines
    assert re.match(r"SKIP memory \(\d+ s\): stopped by the 85 s budget: ", lines[0]), lines[0]
    assert "stopped by the 85 s budget" in lines[1]  # sft: no time left
    assert res.stdout.splitlines()[-1].startswith("gpu_check: 0 passed, 0 failed, 9 skipped in ")
