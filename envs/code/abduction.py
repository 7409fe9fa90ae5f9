"""Abduction (Table 1 of the code-RL paper): given `f` and an output o, answer an input i;
reward 1 iff f(i) == o (as Python values of the same types), f run in the sandbox on i."""
from __future__ import annotations

import random

from envs.base import Reward
from envs.code.problem import NOT_A_VALUE, CodeEnv, Problem, fence, parse_args, parse_value, render_args, same


class Abduction(CodeEnv):
    name = "abduction"
    answer_tag = "input"

    def render(self, problem: Problem, rng: random.Random) -> tuple[str, str, dict]:
        case = rng.randrange(len(problem.cases))
        prompt = (f"Here is a Python function:\n\n{fence('python', problem.code)}\n\nFind an input for which `f` "
                  f"returns exactly this value:\n\n{fence('output', problem.cases[case]['output'])}\n\nThink it "
                  f"through, then give the arguments of the call as Python literals separated by commas (for "
                  f"`f([1, 2], 'a')` write `[1, 2], 'a'`) in one ```input block at the end of your answer.")
        return prompt, fence("input", problem.cases[case]["input"]), {"case": case}

    def score(self, record: dict, response: str) -> Reward:
        from utils.sandbox import run

        meta = self.meta(record, "case")
        args = parse_args(self.answer_block(response))
        if args is None:
            return self.reward(False, False)
        r = run(meta["code"], f"f({render_args(args)})", timeout_s=self.timeout_s, memory_mb=self.memory_mb)
        got = parse_value(r.value) if r.ok else NOT_A_VALUE
        want = parse_value(meta["cases"][meta["case"]]["output"])
        return self.reward(got is not NOT_A_VALUE and same(got, want), True)
