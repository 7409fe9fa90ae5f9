"""Fuzzing (Table 1 of the code-RL paper): given `f`, `pre_test_f` and `test_f`, answer an input i
with pre_test_f(i) true and test_f(i) false, i.e. a valid input on which f breaks its test;
reward 1 iff both hold when run in the sandbox (an exception counts as neither)."""
from __future__ import annotations

import random

from envs.base import Reward
from envs.code.problem import CodeEnv, Problem, fence, parse_args, render_args


class Fuzzing(CodeEnv):
    name = "fuzzing"
    answer_tag = "input"
    kind = "fuzzing"

    def render(self, problem: Problem, rng: random.Random) -> tuple[str, str, dict]:
        code = problem.full_code()
        prompt = (f"Here is a Python function `f`, a check `pre_test_f` of which inputs are valid, and a test "
                  f"`test_f` that `f` should pass:\n\n{fence('python', code)}\n\nFind a valid input on which `f` "
                  f"fails its test: pre_test_f(input) must return True and test_f(input) must return False. "
                  f"Think it through, then give the arguments of the call as Python literals separated by commas "
                  f"(for `f([1, 2], 'a')` write `[1, 2], 'a'`) in one ```input block at the end of your answer.")
        # a known failing input is the gold answer; the paper's teacher writes none (no gold answer)
        return prompt, fence("input", problem.fuzz_input) if problem.fuzz_input else "", {
            "pre_test": problem.pre_test, "test": problem.test, "fuzz_input": problem.fuzz_input}

    def score(self, record: dict, response: str) -> Reward:
        from utils.sandbox import run

        meta = self.meta(record, "pre_test", "test")
        args = parse_args(self.answer_block(response))
        if args is None:
            return self.reward(False, False)
        code = Problem(meta["code"], [], pre_test=meta["pre_test"], test=meta["test"]).full_code()
        a = render_args(args)
        r = run(code, f"bool(pre_test_f({a})) and not test_f({a})", timeout_s=self.timeout_s,
                memory_mb=self.memory_mb)
        return self.reward(r.ok and r.value == "True", True)
