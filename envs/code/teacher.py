"""The teacher's side of multi-turn synthesis (code-RL paper, Sec. 3): its prompts (the first turn
from a seed snippet, later turns from the previous problem, the student's results and a
progression strategy, and easier variants for chains) and the parsing of its answers.

Everything the teacher writes is untrusted: parsing only reads fenced blocks and literals, and
the code runs in the sandbox (envs/code/filters.py), never here.
"""
from __future__ import annotations

import ast

from envs.code.problem import Problem, all_blocks, fence, last_block, parse_args, render_args

MAX_CODE_CHARS = 8000
MAX_SUMMARY_CHARS = 1500

SYSTEM = "You write Python programming problems that train a student model."

ENV_RULES = {
    "induction": ("The student sees your message and {shown} of the {k} input/output pairs of `f`, and must write `f` "
                  "itself; its code is then run on all {k} inputs. So the message should hint at what `f` does "
                  "without giving it away, and the inputs should pin the behaviour down."),
    "abduction": "The student sees the code of `f` and its output on your input, and must find an input that "
                 "produces that output.",
    "deduction": "The student sees the code of `f` and your input, and must work out the output without running "
                 "the code.",
    "fuzzing": ("Besides `f`, write `pre_test_f(...)`, returning True for the inputs `f` is meant to handle, and "
                "`test_f(...)`, a test that calls `f` and returns True when its result is right; both take the same "
                "arguments as `f`. `f` must have a subtle bug: `test_f` returns False for some valid inputs, and at "
                "least one of your inputs is such an input. The student sees the three functions and must find a "
                "valid input on which the test fails."),
}
# The paper's fuzzing teacher (code_rl Table 1: 'Generates a function f(), which contains a subtle bug
# to be exploited, and tests pre_test_f() and test_f()'): the three functions and no input
# (SynthConfig.inputs.fuzzing = 0). Whether the bug can be hit shows in the student's pass rate.
FUZZING_NO_INPUTS = ("Besides `f`, write `pre_test_f(...)`, returning True for the inputs `f` is meant to handle (a type "
                     "check, so that the test fails for non-trivial reasons), and `test_f(...)`, a test that calls `f` "
                     "and returns True when its result is right; both take the same arguments as `f`. `f` must have a "
                     "subtle bug: `test_f` returns False for some valid inputs. The student sees the three functions "
                     "and must find a valid input on which the test fails.")

STRATEGIES = {  # code-RL paper, Sec. 3: the next turn's instruction, chosen from the pass rate p
    "harder": ("The student solves it too often. Write a harder problem on the same theme, aiming for a pass rate "
               "between 35% and 65%: more cases to handle, a less obvious rule, or a longer chain of reasoning."),
    "easier": ("The student never solved it. Write an easier problem on the same theme: a simpler rule, fewer "
               "special cases, clearer inputs."),
    "vary": ("Its difficulty is about right. Write a different problem of similar difficulty on the same theme: "
             "vary the idea rather than copy it."),
}


# Deviation from the paper, whose later turns see only the previous problem and the student's
# results: when the teacher's last answer was rejected, the retry says why, so that a retry is not
# a blind re-draw (and a deterministic teacher does not repeat itself).
REJECTIONS = {
    "format": "it did not have the requested blocks (code defining the functions and the inputs as literals)",
    "execution": "running f on the inputs raised an error or took too long",
    "output_not_literal": "an output of f was not a Python literal",
    "nondeterministic": "f gave different outputs on two runs",
    "outputs_not_diverse": "the outputs of f were (nearly) all the same",
    "no_failing_input": "none of the inputs was valid and made test_f return False",
    "duplicate": "it repeated an earlier problem",
    "near_duplicate": "it nearly repeated an earlier problem",
}


def with_rejection(prompt: str, reason: str | None) -> str:
    if reason not in REJECTIONS:
        return prompt
    return f"Your last answer was rejected ({reason}): {REJECTIONS[reason]}. Try again.\n\n{prompt}"


def strategy_for(p: float, harder_at: float = 0.65) -> str:
    """code_rl: 'increasing complexity if p > 0.65, or decreasing complexity if p = 0' (strict)."""
    return "harder" if p > harder_at else "easier" if p == 0 else "vary"


def _format(env: str, k: int) -> str:
    functions = "`f`, `pre_test_f` and `test_f`" if env == "fuzzing" else "the function `f`"
    message = ("\nand one block with one or two sentences for the student:\n" + fence("message", "...")
               if env == "induction" else "")
    rules = (f"Requirements: {functions} in pure Python 3 using only the standard library; deterministic (no "
             f"randomness, time or hashing of objects); no input/output or files; each call well under a second. ")
    code = f"Answer with one block holding the code:\n{fence('python', 'def f(...):' + chr(10) + '    ...')}"
    if k == 0:  # the paper's fuzzing teacher: the functions only
        return (f"{rules}`f` takes arguments that can be written as Python literals and returns a literal value "
                f"(numbers, strings, booleans, None, and lists, tuples, dicts or sets of them).\n\n{code}")
    choose = (f"Choose {k} inputs that exercise different behaviours, so that the outputs differ." if k > 1 else
              "Choose one input that makes the task interesting.")
    blocks = f"{k} blocks, one per input" if k > 1 else "one block holding the input"
    return (f"{rules}Inputs are the arguments of one call written as Python literals, and `f` returns a literal value "
            f"(numbers, strings, booleans, None, and lists, tuples, dicts or sets of them). {choose}\n\n"
            f"{code}\nthen {blocks}, for example:\n{fence('input', '[3, 1, 2], 2')}{message}")


def _rules(env: str, k: int, shown: int) -> str:
    rules = FUZZING_NO_INPUTS if env == "fuzzing" and k == 0 else ENV_RULES[env].format(k=k, shown=shown)
    return f"The problem is for the {env} task. " + rules


# code_rl line 57: 'the teacher model is asked to try to incorporate the core logic of this example
# snippet for data generation'.
SEED_INSTRUCTION = "Try to incorporate the core logic of this example snippet in the problem:"


def first_prompt(env: str, snippet: str, k: int, shown: int) -> str:
    return f"{_rules(env, k, shown)}\n\n{SEED_INSTRUCTION}\n\n{fence('python', snippet)}\n\n{_format(env, k)}"


# code_rl Appendix F: a turn-1 induction problem without a message was still given to the student,
# and the next turn's prompt said so in these words.
NO_MESSAGE = "No message found! Make sure to correctly format the message."


def render(problem: Problem, env: str) -> str:
    cases = "\n".join(f"f({c['input']}) == {c['output']}" for c in problem.cases)
    message = f"\nMessage: {problem.message or NO_MESSAGE}" if env == "induction" else ""
    if not problem.cases:  # the paper's fuzzing form: the functions only
        return f"{fence('python', problem.full_code())}{message}"
    return f"{fence('python', problem.full_code())}\nInputs and outputs:\n{cases}{message}"


def _clip(text: str | None) -> str:
    if not text:
        return "(none)"
    return text if len(text) <= MAX_SUMMARY_CHARS else "..." + text[-MAX_SUMMARY_CHARS:]


def next_prompt(env: str, previous: Problem, p: float, samples: int, solved: str | None, failed: str | None,
                strategy: str, k: int, shown: int) -> str:
    """A later turn: only the previous problem, the student summary and the strategy."""
    return (f"You wrote this problem for the {env} task:\n\n{render(previous, env)}\n\nThe student tried it {samples} "
            f"times and solved it {round(100 * p)}% of the time.\nA solved attempt: {_clip(solved)}\nA failed "
            f"attempt: {_clip(failed)}\n\n{STRATEGIES[strategy]} The new problem must stand on its own: the student "
            f"will not see this one.\n\n{_rules(env, k, shown)}\n\n{_format(env, k)}")


def easier_prompt(env: str, problem: Problem, p: float, low: float, high: float, k: int, shown: int) -> str:
    """Chains: an easier variant of the same core task, aimed at a pass-rate band."""
    return (f"This problem for the {env} task is solved by the student {round(100 * p)}% of the time:\n\n"
            f"{render(problem, env)}\n\nWrite an easier variant of the same core task, one the student would solve "
            f"between {round(100 * low)}% and {round(100 * high)}% of the time: keep the idea, simplify what makes "
            f"it hard. It must stand on its own.\n\n{_rules(env, k, shown)}\n\n{_format(env, k)}")


def parse(text: str, env: str, k: int) -> tuple[Problem | None, str | None]:
    """The teacher's answer as a Problem (outputs still to compute), or (None, "format"). Extra
    inputs beyond k are ignored (k = 0, the paper's fuzzing form: all of them); an induction answer
    without a message keeps message ''."""
    code = last_block(text, "python")
    if code is None or not code.strip() or len(code) > MAX_CODE_CHARS:
        return None, "format"
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None, "format"
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    if not {"f"} | ({"pre_test_f", "test_f"} if env == "fuzzing" else set()) <= defined:
        return None, "format"
    inputs = []
    for block in all_blocks(text, "input"):
        args = parse_args(block)
        if args is not None and render_args(args) not in inputs:
            inputs.append(render_args(args))
    message = (last_block(text, "message") or "").strip()
    if len(inputs) < k:  # an induction problem without a message is evaluated, not rejected (Appendix F)
        return None, "format"
    return Problem(code=code.strip("\n") + "\n", cases=[{"input": i} for i in inputs[:k]], message=message), None
