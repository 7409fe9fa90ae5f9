"""The operators that turn valid chains into problems a model answers, and their verifiers.

build(rng, pool, chain) -> Problem, or None when this chain does not suit the operator.
score(meta, answer, pool) -> (exact 0/1, partial in [0, 1], reason or ""), where answer is the
parsed JSON of the response's <answer> block and meta is the record's (self-contained) meta; the
pool supplies the limits and the bricks that sort and select re-execute.

Prompts show each step with its types; structured types (graphs, intervals, ...) get one line
saying how their values are written. SORT only takes chains whose steps type-check in at least
two orders, so the types alone never give the answer away.

The paper's four: sequential, parallel, sort, select. Beyond the paper, whose stated limitation
is the lack of control flow: branch (a predicate picks one of two chains) and loop (a chain run k
times). Partial credit is the share of correct intermediate states (sort/select: gold states
reproduced at the same position by executing the answered order) or of correct threads.
"""
from __future__ import annotations

import random
from collections import Counter as Multiset
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple

from envs.compose.filters import execute, run_steps
from envs.compose.search import Chain, Pool, grow, start
from envs.compose.types import BOOL, NOTES, TYPES, canon, normalize, show, to_json

PREAMBLE = ("Each step below is a deterministic function from one typed value to another. Values are written as "
            "JSON: a pair as a two-element list, a grid as a list of rows.")
LOOP_TIMES = (2, 3)
THREADS = (2, 3)


class Problem(NamedTuple):
    prompt: str
    gold: Any  # the JSON answer
    trace: str  # a worked solution, for the gold response's reasoning
    meta: dict


def step_line(pool: Pool, label: str, name: str) -> str:
    b = pool.brick(name)
    return f"{label} {name} ({b.x} -> {b.y}): {b.text}"


def numbered(pool: Pool, steps) -> list[str]:
    return [step_line(pool, f"{i}.", n) for i, n in enumerate(steps, 1)]


def listed(pool: Pool, steps) -> list[str]:
    return [step_line(pool, "-", n) for n in steps]


def preamble(pool: Pool, steps) -> str:
    """The shared first lines, with a note on every structured type the steps read or write."""
    used = {t for n in steps for t in (pool.brick(n).x, pool.brick(n).y)}
    return "\n".join([PREAMBLE] + [NOTES[t] for t in TYPES if t in used and t in NOTES])


def type_orders(pool: Pool, steps, x: str, y: str) -> int:
    """How many distinct orders of these steps (each used once) type-check from x to y."""
    steps = tuple(sorted(steps))  # a step listed twice is one choice, not two

    @lru_cache(maxsize=None)
    def count(left: tuple, t: str) -> int:
        if not left:
            return int(t == y)
        return sum(count(left[:i] + left[i + 1:], pool.brick(n).y) for i, n in enumerate(left)
                   if pool.brick(n).x == t and (i == 0 or left[i - 1] != n))
    return count(steps, x)


def ask(what: str) -> str:
    return (f"Reason step by step inside <reasoning></reasoning>, then give the answer inside <answer></answer> "
            f"as JSON: {what}.")


def trace_of(chain: Chain, prefix: str = "") -> list[str]:
    return [f"{prefix}{name}: {show(a)} -> {show(b)}"
            for name, a, b in zip(chain.steps, chain.states, chain.states[1:])]


def chain_meta(chain: Chain) -> dict:
    return {"steps": list(chain.steps), "states": [to_json(s) for s in chain.states], "types": list(chain.types)}


def compare(answer: Any, gold: list, types: list | None = None) -> tuple[int, float, str]:
    """Exact, share of positions right, reason; a list of another length scores 0. With the gold
    values' types, a graph answer counts in any edge order (types.normalize)."""
    if type(answer) is not list:
        return 0, 0.0, "answer is not a JSON list"
    if len(answer) != len(gold):
        return 0, 0.0, f"expected a list of {len(gold)} values, got {len(answer)}"
    answer = [normalize(a, t) for a, t in zip(answer, types)] if types else answer
    hits = sum(canon(a) == canon(g) for a, g in zip(answer, gold))
    wrong = len(gold) - hits
    return int(wrong == 0), hits / len(gold), f"{wrong} of {len(gold)} values wrong" if wrong else ""


def check_names(answer: Any, allowed: list[str], exact_multiset: bool) -> str:
    """Why a list of step names is not a valid pick from `allowed` (each entry usable once), or ""."""
    if type(answer) is not list or not all(type(a) is str for a in answer):
        return "answer is not a JSON list of step names"
    unknown = [a for a in answer if a not in allowed]
    if unknown:
        return f"unknown step name {unknown[0][:60]!r}"
    if exact_multiset and Multiset(answer) != Multiset(allowed):
        return "must use every listed step exactly once"
    if not answer:
        return "no steps given"
    if Multiset(answer) - Multiset(allowed):
        return "uses a step more often than it is listed"
    return ""


def verify_order(meta: dict, names: list[str], pool: Pool) -> tuple[int, float, str]:
    """Execute names from the record's input; exact if it reaches the record's output."""
    gold = meta["states"]
    states, reason = run_steps([pool.brick(n) for n in names], gold[0], meta["types"][0], pool.limits)
    if not reason and len(states) > 1 and canon(states[-1]) == canon(gold[-1]):
        return 1, 1.0, ""
    hits = sum(canon(s) == canon(g) for s, g in zip(states[1:], gold[1:]))
    return 0, hits / (len(gold) - 1), reason or "does not reach the output"


class Operator:
    name: ClassVar[str] = ""
    endo: ClassVar[bool] = False  # needs a chain whose output type equals its input type
    stay: ClassVar[float] = 0.0  # live sampling: chance of a type-preserving step (see Pool.walk)

    def suits(self, pool: Pool, chain: Chain) -> bool:
        """Whether build can use this composite at all (live sampling draws only such composites)."""
        return not self.endo or chain.types[0] == chain.types[-1]

    def build(self, rng: random.Random, pool: Pool, chain: Chain) -> Problem | None:
        raise NotImplementedError

    def score(self, meta: dict, answer: Any, pool: Pool) -> tuple[int, float, str]:
        raise NotImplementedError


class Sequential(Operator):
    """The input and the ordered steps; answer every intermediate output and the final output."""
    name = "sequential"

    def build(self, rng, pool, chain):
        n = chain.size
        prompt = "\n".join([preamble(pool, chain.steps), "", f"Input ({chain.types[0]}): {show(chain.states[0])}", "",
                            "Apply these steps in order:", *numbered(pool, chain.steps), "",
                            ask(f"a list of {n} values, the result after each step in order (the last one is "
                                f"the final output)")])
        return Problem(prompt, [to_json(s) for s in chain.states[1:]], "\n".join(trace_of(chain)), chain_meta(chain))

    def score(self, meta, answer, pool):
        return compare(answer, meta["states"][1:], meta["types"][1:])


class Parallel(Operator):
    """Several independent chains at once; answer each thread's final output."""
    name = "parallel"

    def build(self, rng, pool, chain):
        threads = [chain]
        for _ in range(rng.choice(THREADS) - 1):
            other = pool.draw(rng, chain.size)  # from the search's bank when the pool has one
            if other is None or any(other.steps == t.steps for t in threads):
                return None
            threads.append(other)
        lines = [preamble(pool, [n for t in threads for n in t.steps]), "", f"Work out {len(threads)} independent threads."]
        trace = []
        for k, t in enumerate(threads, 1):
            lines += ["", f"Thread {k}. Input ({t.types[0]}): {show(t.states[0])}", "Apply these steps in order:",
                      *numbered(pool, t.steps)]
            trace += trace_of(t, f"thread {k}, ")
        lines += ["", ask(f"a list of {len(threads)} values, the final output of each thread in order")]
        metas = [chain_meta(t) for t in threads]
        meta = {key: [m[key] for m in metas] for key in ("steps", "states", "types")}
        return Problem("\n".join(lines), [to_json(t.states[-1]) for t in threads], "\n".join(trace), meta)

    def score(self, meta, answer, pool):
        return compare(answer, [states[-1] for states in meta["states"]], [types[-1] for types in meta["types"]])


class Sort(Operator):
    """The steps shown shuffled, with the input and the final output; answer an order that works."""
    name = "sort"
    stay = 0.75

    def suits(self, pool, chain):
        return type_orders(pool, chain.steps, chain.types[0], chain.types[-1]) >= 2

    def build(self, rng, pool, chain):
        if type_orders(pool, chain.steps, chain.types[0], chain.types[-1]) < 2:
            return None  # one type-consistent order: the types alone would answer it
        shown = list(chain.steps)
        for _ in range(10):  # the shown order must not already be an answer
            rng.shuffle(shown)
            states, reason = run_steps([pool.bricks[n] for n in shown], chain.states[0], chain.types[0], pool.limits)
            if reason or canon(states[-1]) != canon(chain.states[-1]):
                break
        else:
            return None
        prompt = "\n".join([preamble(pool, shown), "", f"Input ({chain.types[0]}): {show(chain.states[0])}",
                            f"Output ({chain.types[-1]}): {show(chain.states[-1])}", "",
                            "Applied in the right order, each exactly once, these steps turn the input into the "
                            "output:", *listed(pool, shown), "",
                            ask(f"a list of the {len(shown)} step names in an order that produces the output")])
        meta = {**chain_meta(chain), "candidates": shown}
        return Problem(prompt, list(chain.steps), "\n".join(trace_of(chain)), meta)

    def score(self, meta, answer, pool):
        reason = check_names(answer, meta["candidates"], exact_multiset=True)
        return (0, 0.0, reason) if reason else verify_order(meta, answer, pool)


class Select(Operator):
    """The true steps mixed with executable distractors; pick and order a subset that works."""
    name = "select"

    def build(self, rng, pool, chain):
        runnable = []
        for b in rng.sample(pool.links, len(pool.links)):
            if b.name in chain.steps:
                continue
            at = [s for s, t in zip(chain.states[:-1], chain.types) if t == b.x]
            if at and type(execute(b, at[0], 0, pool.limits)) is not str:
                runnable.append(b.name)
            if len(runnable) == max(2, chain.size // 2):
                break
        if not runnable:
            return None
        shown = list(chain.steps) + runnable
        rng.shuffle(shown)
        prompt = "\n".join([preamble(pool, shown), "", f"Input ({chain.types[0]}): {show(chain.states[0])}",
                            f"Output ({chain.types[-1]}): {show(chain.states[-1])}", "",
                            "Some of these steps, each used at most once and applied in the right order, turn the "
                            "input into the output; the others are distractors:", *listed(pool, shown), "",
                            ask("a list of the step names you use, in the order you apply them")])
        meta = {**chain_meta(chain), "candidates": shown, "distractors": runnable}
        return Problem(prompt, list(chain.steps), "\n".join(trace_of(chain)), meta)

    def score(self, meta, answer, pool):
        reason = check_names(answer, meta["candidates"], exact_multiset=False)
        return (0, 0.0, reason) if reason else verify_order(meta, answer, pool)


class Branch(Operator):
    """A predicate on the input decides which of two chains runs; answer the predicate's value, then
    every intermediate output of the chain that runs."""
    name = "branch"

    def build(self, rng, pool, chain):
        predicates = [p for p in pool.predicates if p.x == chain.types[0]]
        if not predicates:
            return None
        root = start(chain.states[0], chain.types[0])
        for _ in range(10):
            other = pool.walk(rng, chain.size, begin=root, end_type=chain.types[-1], tries=5)
            if other and other.steps != chain.steps and canon(other.states[-1]) != canon(chain.states[-1]):
                break
        else:
            return None
        pred = rng.choice(predicates)
        r = execute(pred, chain.states[0], 0, pool.limits)
        if type(r) is str:
            return None
        cond = r[0]
        yes, no = (chain, other) if rng.random() < 0.5 else (other, chain)
        taken = yes if cond else no
        prompt = "\n".join([preamble(pool, yes.steps + no.steps), "", f"Input ({chain.types[0]}): {show(chain.states[0])}",
                            "", f"Condition: {step_line(pool, '', pred.name).strip()}", "",
                            "If the condition is true, apply these steps in order:", *numbered(pool, yes.steps), "",
                            "Otherwise apply these steps in order:", *numbered(pool, no.steps), "",
                            ask(f"a list whose first value is the condition ({BOOL}: true or false), followed by "
                                f"the result after each step that runs, in order")])
        trace = [f"condition {pred.name}: {show(chain.states[0])} -> {show(cond)}", *trace_of(taken)]
        meta = {**chain_meta(taken), "predicate": pred.name, "condition": cond, "then_steps": list(yes.steps),
                "else_steps": list(no.steps)}
        return Problem(prompt, [cond] + [to_json(s) for s in taken.states[1:]], "\n".join(trace), meta)

    def score(self, meta, answer, pool):
        return compare(answer, [meta["condition"]] + meta["states"][1:], [BOOL] + meta["types"][1:])


class Loop(Operator):
    """A chain whose output type is its input type, applied k times (k shown); answer the output
    after each pass. The unrolled path passes the same filter, so a loop never cycles."""
    name = "loop"
    endo = True

    def build(self, rng, pool, chain):
        if chain.types[0] != chain.types[-1]:
            return None
        body = [pool.bricks[n] for n in chain.steps]
        unrolled, k = chain, 1
        for _ in range(rng.choice(LOOP_TIMES) - 1):
            longer = unrolled
            for b in body:
                longer = grow(b, longer, [], pool.limits)
                if type(longer) is str:
                    break
            if type(longer) is str:
                break  # keep the passes that went through
            unrolled, k = longer, k + 1
        if k < 2:
            return None
        prompt = "\n".join([preamble(pool, chain.steps), "", f"Input ({chain.types[0]}): {show(chain.states[0])}", "",
                            f"Apply these steps in order, and repeat the whole sequence {k} times in a row (the "
                            f"output of one pass is the input of the next):", *numbered(pool, chain.steps), "",
                            ask(f"a list of {k} values, the output after each pass in order")])
        meta = {**chain_meta(unrolled), "body": list(chain.steps), "k": k}
        gold = [to_json(unrolled.states[chain.size * i]) for i in range(1, k + 1)]
        return Problem(prompt, gold, "\n".join(trace_of(unrolled)), meta)

    def score(self, meta, answer, pool):
        n = len(meta["body"])
        return compare(answer, [meta["states"][n * i] for i in range(1, meta["k"] + 1)],
                       [meta["types"][n * i] for i in range(1, meta["k"] + 1)])


OPERATORS: dict[str, Operator] = {
    "sequential": Sequential(),
    "parallel": Parallel(),
    "sort": Sort(),
    "select": Select(),
    "branch": Branch(),
    "loop": Loop(),
}
