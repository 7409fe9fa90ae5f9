"""Adding an env is one file: a module dropped into a family package is discovered and the
contract tests run on it; duplicate names are refused; `import envs` imports no env module."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from envs.registry import discover, merge
from gym_contract import check_gym_env

PARITY = '''
"""A new family file, exactly as docs/envs.md's "Adding an env" shows it."""
from envs.gym.base import GymEnv, ask, one_int


class Parity(GymEnv):
    """Parity of a sum (mathematical operations). d: d + 3 numbers below 10^(d+1).
    Reward: -1 unparsable, 1 exact, else 0."""

    name = "{name}"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        nums = [rng.randrange(10 ** (difficulty + 1)) for _ in range(self.size(difficulty))]
        return {{"numbers": nums}}, str(sum(nums) % {modulus})

    def prompt(self, problem):
        return ask("Numbers: " + " ".join(map(str, problem["numbers"])) + "\\n\\nIs their sum even or odd?",
                   "Give 0 for even or 1 for odd, e.g. <answer>1</answer>.")

    def reward(self, problem, answer):
        return 1.0 if one_int(answer) == sum(problem["numbers"]) % 2 else 0.0
'''
INIT = '''from envs.registry import lazy_registry

__getattr__ = lazy_registry(__name__, "GYM")
'''


def make_package(root, package: str, files: dict[str, str]):
    pkg = root / package
    pkg.mkdir()
    (pkg / "__init__.py").write_text(INIT)
    for name, text in files.items():
        (pkg / f"{name}.py").write_text(textwrap.dedent(text))
    sys.path.insert(0, str(root))
    return pkg


@pytest.fixture()
def scratch(tmp_path):
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for mod in [m for m in sys.modules if m.startswith("scratch_")]:
        del sys.modules[mod]


def test_a_dropped_in_file_is_discovered_and_contract_tested(scratch):
    make_package(scratch, "scratch_gym", {"parity": PARITY.format(name="parity_of_sum", modulus=2),
                                         "_helpers": "X = 1\n", "notes": "Y = 2\n"})
    import scratch_gym

    assert scratch_gym.GYM == {"parity_of_sum": "scratch_gym.parity:Parity"}
    module, _, cls = scratch_gym.GYM["parity_of_sum"].partition(":")
    env = getattr(sys.modules[module], cls)()
    check_gym_env(env)  # the same contract every registered gym env passes


def test_the_docs_show_the_tested_file():
    """docs/envs.md's example is PARITY (comments and blank lines aside), so the page shows a file that works."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "envs.md").read_text()
    shown = re.search(r"```python\n# envs/gym/parity.py\n(.*?)```", page, re.S)[1]
    tested = PARITY.format(name="parity_of_sum", modulus=2).split('"""', 2)[2]  # without the module docstring

    def code(text):
        return [re.sub(r"\s+#.*$", "", line).rstrip() for line in text.splitlines() if line.strip()]

    assert code(shown) == code(tested)


def test_the_contract_catches_a_broken_env(scratch):
    # gold written as sum mod 3 while the scorer wants mod 2: the contract must fail on it
    make_package(scratch, "scratch_broken", {"parity": PARITY.format(name="broken_parity", modulus=3)})
    import scratch_broken

    module, _, cls = scratch_broken.GYM["broken_parity"].partition(":")
    with pytest.raises(AssertionError, match="gold answer scores 1"):
        check_gym_env(getattr(sys.modules[module], cls)())


def test_duplicate_names_are_refused_naming_both(scratch):
    make_package(scratch, "scratch_dup", {"a": PARITY.format(name="same", modulus=2),
                                         "b": PARITY.format(name="same", modulus=2)})
    with pytest.raises(ValueError, match=r"'same' is registered twice: scratch_dup\.a:Parity and scratch_dup\.b:Parity"):
        discover("scratch_dup")
    with pytest.raises(ValueError, match="registered twice"):
        merge([{"sorting": "envs.gym.arrays:Sorting"}, {"sorting": "envs.other:Sorting"}])


def test_import_envs_imports_no_env_module():
    code = ("import sys, time; t = time.process_time(); import envs; t = time.process_time() - t; "
            "mods = [m for m in sys.modules if m.startswith('envs.') and m.count('.') >= 2]; "
            "print(len(mods), t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "0", "discovery waits for the first use of the registry"
