"""The env contract across every registered family (puzzles, gym, compose, code)."""
from __future__ import annotations

import importlib
import json
import re

import pytest

import envs


def test_families_are_discovered_and_do_not_shadow_each_other():
    families = [getattr(importlib.import_module(pkg), attr) for pkg, attr in envs.FAMILIES.items()]
    assert len(envs.REGISTRY) == sum(map(len, families))
    assert envs.names() == sorted(envs.REGISTRY)
    for name, target in envs.REGISTRY.items():  # every entry names the class that declares it
        assert envs.env_class(name).name == name and target.startswith("envs.")


# literals past Python's 4,300-digit int <-> str limit (repr of such an int raises ValueError)
HUGE = ("0x" + "f" * 4000, "9" * 5000, "-" + "9" * 5000)
# every answer shape the families read: the answer tag, bare text, the code envs' fenced blocks
SHAPES = ("<answer>{}</answer>", "{}", "```input\n{}\n```", "```output\n{}\n```", "```python\n{}\n```")
# digits of other scripts: int() and str.isdigit() take them, the envs' parsers must not
OTHER_DIGITS = {"arabic-indic": str.maketrans("0123456789", "".join(chr(0x0660 + i) for i in range(10))),
                "fullwidth": str.maketrans("0123456789", "".join(chr(0xFF10 + i) for i in range(10)))}


def in_answer(gold: str, change) -> str:
    """gold with `change` applied to what the scorer reads: the last <answer> block's content if
    there is one (digits in the reasoning do not matter), else the whole text (fenced blocks)."""
    a, b = gold.rfind("<answer>"), gold.rfind("</answer>")
    if 0 <= a < b:
        a += len("<answer>")
        return gold[:a] + change(gold[a:b]) + gold[b:]
    return change(gold)


def hostile(gold: str | None) -> tuple[list[str], list[str]]:
    """Model output no scorer may raise on: (texts that are never correct: empty, odd code points,
    huge literals in every answer shape; the gold answer with its numbers, the first and then all,
    replaced by huge literals, which may still be right where a number does not matter)."""
    wrong = ["", "<answer></answer>", "<answer>" + "9" * 10_000 + "</answer>", "\x00\udcff"]
    wrong += [shape.format(x) for x in HUGE for shape in SHAPES]
    mutated = [in_answer(gold, lambda s: re.sub(r"[0-9]+", lambda _: x, s, count=n))
               for x in HUGE for n in (1, 0)] if gold else []
    return wrong, mutated


@pytest.mark.parametrize("name", envs.names())
def test_contract(name):
    env = envs.make(name)
    rec = env.generate(seed=11, difficulty=1)
    assert set(rec) >= {"id", "env", "difficulty", "prompt", "answer", "meta"} and rec["env"] == name
    assert json.loads(json.dumps(rec)) == rec, "records are plain JSON"
    assert isinstance(rec["prompt"], str) and rec["prompt"]
    lo, hi = env.reward_range
    gold = rec["answer"]
    wrong, mutated = hostile(gold)
    for text in wrong + mutated:
        rew = envs.score(rec, text)  # never raises on model output
        assert lo <= rew.value <= hi and isinstance(rew.correct, bool), (name, text[:40])
        assert not rew.correct or text not in wrong, (name, text[:40])
    if gold is not None:
        assert envs.score(rec, gold).correct, "the gold answer is correct"
        assert envs.score(rec, gold.replace("\n", "\r\n")).correct, "the gold answer with CRLF line endings"
        for script, table in OTHER_DIGITS.items():
            other = in_answer(gold, lambda s: s.translate(table))
            if other != gold:
                assert not envs.score(rec, other).correct, (name, f"{script} digits accepted", other[:80])
