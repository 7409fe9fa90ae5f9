"""Deduction (Table 1 of the code-RL paper): given `f` and an input i, answer the output o;
reward 1 iff it equals f(i), both parsed with ast.literal_eval (never eval) and compared as
Python values of the same types, so "1" is not 1."""
from __future__ import annotations

import random

from envs.base import Reward
from envs.code.problem import NOT_A_VALUE, CodeEnv, Problem, fence, parse_value, same


class Deduction(CodeEnv):
    name = "deduction"
    answer_tag = "output"

    def render(self, problem: Problem, rng: random.Random) -> tuple[str, str, dict]:
        case = rng.randrange(len(problem.cases))
        prompt = (f"Here is a Python function:\n\n{fence('python', problem.code)}\n\nWhat does this call "
                  f"return?\n\n{fence('python', 'f(' + problem.cases[case]['input'] + ')')}\n\nThink it through, "
                  f"then give the returned value as a Python literal (as repr() would print it) in one ```output "
                  f"block at the end of your answer.")
        return prompt, fence("output", problem.cases[case]["output"]), {"case": case}

    def score(self, record: dict, response: str) -> Reward:
        meta = self.meta(record, "case")
        got = parse_value(self.answer_block(response))
        if got is NOT_A_VALUE:
            return self.reward(False, False)
        return self.reward(same(got, parse_value(meta["cases"][meta["case"]]["output"])), True)
