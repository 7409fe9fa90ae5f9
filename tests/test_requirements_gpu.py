"""requirements-gpu.txt (never installed by CI) must resolve on the GPU nodes' Pythons (3.10-3.13).

Offline: the pins against a table of constraints the packages' own metadata declares (what made
`pip install -r requirements-gpu.txt` fail with ResolutionImpossible on Python <= 3.12: vllm 0.33
needs mistral_common[image] >= 1.11.6, whose releases declare numpy<2.4 there). Online, when the
package index answers: the same table read again from the index (so it cannot go stale), and every
pinned package's declared requirements checked against the other pins. A whole resolve
(`pip install --dry-run -r requirements-gpu.txt`: 236 packages, resolved on 2026-12-04 on Python
3.11 in 76 s) is too slow for CI; the pins' own metadata is fetched without their dependencies."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYTHONS = ("3.10", "3.11", "3.12", "3.13")

# (package, requirement as its metadata declares it), read with
# `pip install --dry-run --no-deps --report` on 2026-12-04; the online test reads them again
KNOWN = [
    ("vllm==0.33.0", "torch==2.14.0"),
    ("vllm==0.33.0", "mistral_common[image]>=1.11.6"),
    ("mistral_common>=1.11.6", 'numpy<2.4,>=1.25; python_version <= "3.12"'),
]


def pins(path: Path = ROOT / "requirements-gpu.txt") -> dict[str, Requirement]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            req = Requirement(line)
            out[canonicalize_name(req.name)] = req
    return out


def pinned_version(req: Requirement) -> str | None:
    exact = [s.version for s in req.specifier if s.operator == "=="]
    return exact[0] if exact else None


def conflicts(pinned: dict[str, Requirement], requirement: str, who: str) -> list[str]:
    """Where a pinned version breaks `requirement` (declared by `who`) on one of PYTHONS."""
    req = Requirement(requirement)
    mine = pinned.get(canonicalize_name(req.name))
    version = pinned_version(mine) if mine else None
    bad = []
    for py in PYTHONS:
        env = {"python_version": py, "python_full_version": f"{py}.0", "extra": ""}
        if req.marker and not Marker(str(req.marker)).evaluate(env):
            continue
        if version and not req.specifier.contains(version, prereleases=True):
            bad.append(f"{who} needs {req.name}{req.specifier} on Python {py}; requirements-gpu.txt pins {version}")
    return bad


def test_pins_meet_the_known_constraints_on_every_python():
    pinned = pins()
    for who, requirement in KNOWN:
        assert conflicts(pinned, requirement, who) == []


def test_the_table_catches_the_numpy_pin_that_could_not_resolve(tmp_path):
    old = tmp_path / "req.txt"
    old.write_text((ROOT / "requirements-gpu.txt").read_text().replace("numpy==2.3.5", "numpy==2.4.6"))
    bad = [c for who, r in KNOWN for c in conflicts(pins(old), r, who)]
    assert bad == [f"mistral_common>=1.11.6 needs numpy<2.4,>=1.25 on Python {py}; requirements-gpu.txt pins 2.4.6"
                   for py in ("3.10", "3.11", "3.12")]


def test_everything_the_cpu_requirements_install_is_there():
    """requirements-gpu.txt is requirements.txt with the GPU pins: nothing the code imports is missing
    (langdetect, the IFEval checks' language test, was)."""
    cpu, gpu = pins(ROOT / "requirements.txt"), pins()
    docs_only = {"mkdocs"}  # `make docs` builds the site on a workstation, never on a GPU node
    assert sorted(set(cpu) - set(gpu) - docs_only) == []


def index_metadata(specs: list[str]) -> dict[str, dict]:
    """name -> metadata of what pip would pick for each spec, dependencies not followed; skips the
    test when the index does not answer."""
    try:
        res = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--ignore-installed",
                              "--quiet", "--disable-pip-version-check", "--retries", "0", "--timeout", "15",
                              "--report", "-", *specs], capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired:
        pytest.skip("the package index took over 90 s to answer")
    if res.returncode != 0:
        pytest.skip(f"pip could not read the index: {(res.stderr.strip().splitlines() or ['?'])[-1][:200]}")
    report = json.loads(res.stdout)
    return {canonicalize_name(i["metadata"]["name"]): i["metadata"] for i in report["install"]}


def test_the_index_agrees_with_the_table_and_the_pins_with_each_other():
    pinned = pins()
    specs = [str(r) for r in pinned.values()] + ["mistral_common[image]>=1.11.6"]
    meta = index_metadata(specs)
    declared = {(canonicalize_name(Requirement(who).name), str(Requirement(r))) for who, r in KNOWN}
    for name, requirement in declared:
        assert requirement in {str(Requirement(x)) for x in meta[name].get("requires_dist") or []}, (name, requirement)
    bad = []
    for name, m in meta.items():
        for requirement in m.get("requires_dist") or []:
            if "extra ==" not in requirement:  # extras the pins do not ask for
                bad += conflicts(pinned, requirement, f"{name} {m['version']}")
    assert bad == []
