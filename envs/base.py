"""The env contract: Reward, the Env base class, and answer extraction shared by all envs.

Model output is hostile: everything here takes any string, never raises on it, and runs in
time linear in its length (str.rfind/count only; no backtracking regex over the response).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar


@dataclass
class Reward:
    value: float  # in the env's declared reward_range
    correct: bool  # fully solved: pass@k, accuracy and the novelty bonus use this
    parts: dict = field(default_factory=dict)  # named components, e.g. {"exact": 1, "format": 0.75}


class Env:
    """One family of problems. Subclasses set `name` and `reward_range` and implement both methods.

    generate(seed, difficulty) must be a pure function of its arguments and the constructor params;
    score(record, response) must accept any response string and return a Reward in reward_range."""

    name: ClassVar[str] = ""
    reward_range: tuple[float, float] = (0.0, 1.0)  # may depend on constructor params (reward weights)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        raise NotImplementedError

    def score(self, record: dict, response: str) -> Reward:
        raise NotImplementedError


def extract_tag(text: str, tag: str) -> str | None:
    """Content of the LAST complete <tag>...</tag> block, or None.

    The last closing tag is paired with the nearest opening tag before it, so an unclosed or
    nested opening tag earlier in the text cannot swallow the final answer."""
    if not isinstance(text, str):
        return None
    close = text.rfind(f"</{tag}>")
    if close < 0:
        return None
    open_ = text.rfind(f"<{tag}>", 0, close)
    if open_ < 0:
        return None
    return text[open_ + len(tag) + 2:close]


def extract_answer(text: str) -> str | None:
    return extract_tag(text, "answer")


def extract_reasoning(text: str) -> str | None:
    return extract_tag(text, "reasoning")


def format_score(text: str) -> float:
    """Puzzle-to-math paper, Appendix J: 0.25 each for exactly one closed <reasoning>, exactly one
    closed <answer>, reasoning before answer, and no duplicate opening tags. In [0, 1]."""
    if not isinstance(text, str):
        return 0.0
    counts = {t: text.count(t) for t in ("<reasoning>", "</reasoning>", "<answer>", "</answer>")}
    r_open, r_close = text.find("<reasoning>"), text.find("</reasoning>")
    a_open, a_close = text.find("<answer>"), text.find("</answer>")
    one_reasoning = counts["<reasoning>"] == 1 and counts["</reasoning>"] == 1 and r_open < r_close
    one_answer = counts["<answer>"] == 1 and counts["</answer>"] == 1 and a_open < a_close
    ordered = one_reasoning and one_answer and r_close < a_open
    no_duplicates = counts["<reasoning>"] <= 1 and counts["<answer>"] <= 1
    return 0.25 * (one_reasoning + one_answer + ordered + no_duplicates)
