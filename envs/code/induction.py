"""Induction (Table 1 of the code-RL paper): from a message and k' of the k input/output pairs,
write `f`; reward 1 iff it reproduces all k outputs, the hidden ones included."""
from __future__ import annotations

import random

from envs.base import Reward
from envs.code.problem import CodeEnv, Problem, fence, parse_value, run_cases, same


class Induction(CodeEnv):
    name = "induction"
    answer_tag = "python"

    def render(self, problem: Problem, rng: random.Random) -> tuple[str, str, dict]:
        k = len(problem.cases)
        shown = sorted(rng.sample(range(k), min(self.shown, k)))
        examples = "\n".join(f"f({problem.cases[i]['input']}) == {problem.cases[i]['output']}" for i in shown)
        prompt = (f"Find the Python function `f` behind these examples.\n\nMessage from the author of `f`: "
                  f"{problem.message.strip() or '(none)'}\n\nExamples:\n{examples}\n\n`f` is also checked on "
                  f"{k - len(shown)} hidden input(s), so write the general rule, not a lookup table. Think it "
                  f"through, then give the complete code of `f` (with any imports it needs) in one ```python "
                  f"block at the end of your answer.")
        return prompt, fence("python", problem.code), {"message": problem.message, "shown": shown}

    def score(self, record: dict, response: str) -> Reward:
        cases = self.meta(record)["cases"]
        code = self.answer_block(response)
        if code is None or not code.strip():
            return self.reward(False, False)
        expected = [parse_value(c["output"]) for c in cases]
        r, got = run_cases(code, [c["input"] for c in cases], self.timeout_s, self.memory_mb)
        return self.reward(got is not None and all(same(g, e) for g, e in zip(got, expected)), True)
