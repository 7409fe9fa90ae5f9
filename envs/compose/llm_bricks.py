"""Bricks written by a model (generate.py mode=bricks), filtered as the paper filtered its initial
environments: "static code self-consistency and multi-sample output consistency" (races line 60).

    python generate.py --config configs/generate/bricks.yaml [bricks.engine.backend=openai bricks.engine.model=...]
    python generate.py --config configs/generate/races.yaml races.brick_dirs=[runs/data/bricks]

For each requested brick (name, types, task) the model writes `samples` candidates, each a Python
module defining NAME, INPUT, OUTPUT, TEXT, sample(rng) and apply(x, tick). A candidate is kept when
1. static self-consistency (no execution): it parses; defines exactly that interface with literal
   strings; NAME / INPUT / OUTPUT are the ones asked for and known types; it imports only the
   sandbox's safe modules, uses no reflection, and apply counts its steps (calls tick) and draws
   no randomness;
2. it runs in the sandbox (utils/sandbox.py) on shared probe inputs: its sampler's values have the
   INPUT type, apply never raises, gives the same output twice on each input (deterministic), an
   OUTPUT-typed value or None, ticks at least once per output, stays within the 400-step limit,
   and at least half of its outputs pass the Appendix D filter (not degenerate);
3. multi-sample output consistency: at least `min_agree` kept candidates give identical outputs on
   every probe input; the first of the largest agreeing group is accepted.
Accepted bricks go to <out>/bricks/<name>.py with <out>/manifest.json (types, text, SHA-256);
`load_bricks` turns a folder into Bricks whose sampler and mapper run only in the sandbox, since
they are model-written code. <out>/report.jsonl says why each candidate was refused.
This module is imported by generate.py at startup: keep its top-level imports light.
"""
from __future__ import annotations

import ast
import hashlib
import json
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, List

from utils.config import field
from utils.engine import EngineConfig

HARNESS = '''
import json as _json, random as _random


class _StepLimit(Exception):
    pass


def _call(x, budget):
    steps = [0]

    def tick(n=1):
        steps[0] += n
        if steps[0] > budget:
            raise _StepLimit
    try:
        return ["ok", apply(x, tick), steps[0]]
    except _StepLimit:
        return ["steps", None, steps[0]]
    except Exception as e:
        return ["error", type(e).__name__, steps[0]]


def _probe(inputs, pair, budget, n_samples, seed):
    samples = [sample(_random.Random(seed + i)) for i in range(n_samples)]
    runs = [[_call(tuple(x) if pair else x, budget) for _ in range(2)] for x in _json.loads(inputs)]
    return _json.dumps([samples, runs])


def _apply(x, pair, budget):
    x = _json.loads(x)
    return _json.dumps(_call(tuple(x) if pair else x, budget))


def _sample(seed):
    return _json.dumps(sample(_random.Random(seed)))
'''
INTERFACE = ("NAME", "INPUT", "OUTPUT", "TEXT")
HARNESS_NAMES = frozenset(("_json", "_random", "_StepLimit", "_call", "_probe", "_apply", "_sample"))


@dataclass
class BrickSpec:
    name: str = field("", help="the brick's name (a Python identifier, not a registered brick)")
    input: str = field("list[int]", help="input type (envs/compose/types.py)")
    output: str = field("int", help="output type")
    task: str = field("", help="what the brick computes, in a sentence or two (the model writes TEXT from it)")


@dataclass
class BricksGenConfig:
    engine: EngineConfig = field(EngineConfig(backend="replay", replay_path="tests/data/llm_bricks.jsonl"),
                                 help="the model writing bricks: openai for a served model (the paper used "
                                      "Claude-Sonnet-4.5, races line 60), replay for the recorded test answers")
    specs: List[BrickSpec] = field([], help="the bricks to ask for: {name, input, output, task}")
    samples: int = field(3, help="candidates asked per brick (multi-sample consistency needs >= 2)", ge=1)
    min_agree: int = field(2, help="candidates that must give identical outputs on every probe input", ge=1)
    probes: int = field(8, help="probe inputs per brick, drawn from the input type's sampler", ge=1)
    temperature: float = field(0.8, help="sampling temperature (diverse candidates); 0: greedy", ge=0)
    max_tokens: int = field(4096, help="response budget", ge=1)
    max_steps: int = field(400, help="step limit of one call (races line 65's 400 atomic steps, which the summary "
                                     "sets for composition paths; applied to a written brick: our choice)", ge=1)
    timeout_s: float = field(2.0, help="sandbox seconds per candidate check (races line 65's 2-second timeout, set "
                                       "there for composition paths; applied to a written brick: our choice)", gt=0)

    def validate(self):
        from envs.compose.bricks import BRICKS
        from envs.compose.types import TYPES

        if not self.specs:
            yield "specs", "no bricks requested"
        for i, s in enumerate(self.specs):
            if not s.name.isidentifier() or s.name in BRICKS:
                yield f"specs.{i}.name", f"{s.name!r} must be a Python identifier and not a registered brick"
            for key in ("input", "output"):
                if getattr(s, key) not in TYPES:
                    yield f"specs.{i}.{key}", f"unknown type {getattr(s, key)!r}; known: {list(TYPES)}"
            if not s.task.strip():
                yield f"specs.{i}.task", "say what the brick computes"
        if len({s.name for s in self.specs}) != len(self.specs):
            yield "specs", "two specs share a name"
        if not 1 <= self.min_agree <= self.samples:
            yield "min_agree", f"need 1 <= min_agree <= samples ({self.samples})"


def prompt_of(spec: BrickSpec) -> str:
    from envs.compose.types import NOTES
    from utils.sandbox import SAFE_MODULES

    notes = " ".join(NOTES[t] for t in dict.fromkeys((spec.input, spec.output)) if t in NOTES)
    return f"""Write one brick for a library of verifiable reasoning tasks: a deterministic Python function from one typed value to another, with a sampler of inputs.

Brick: {spec.name} ({spec.input} -> {spec.output}): {spec.task}

Values are JSON-like Python values. int, bool, str, list[int] and list[str] are as named. {notes}

Answer with one ```python block that defines exactly:
NAME = "{spec.name}"
INPUT = "{spec.input}"
OUTPUT = "{spec.output}"
TEXT = "<one sentence a solver reads: exactly what apply computes, ties and edge cases included>"
def sample(rng):  # rng is a random.Random; return a small input of type INPUT (a few items)
def apply(x, tick):  # call tick(n) before every n elementary steps; return a value of type OUTPUT, or None for no output

apply must be deterministic and must not modify x. Import only from: {", ".join(sorted(SAFE_MODULES))}."""


def code_of(response: str) -> str:
    """The last ```python block of a response ('' if none)."""
    start = response.rfind("```python")
    if start < 0:
        return ""
    end = response.find("```", start + 9)
    return response[start + 9:end if end >= 0 else len(response)].strip("\n")


def static_problem(code: str, spec: BrickSpec) -> str:
    """Why the code is not a self-consistent brick for spec, judged without running it ('' if it is)."""
    from envs.compose.types import TYPES
    from utils.sandbox import RISKY_ATTRS, RISKY_NAMES, SAFE_MODULES

    if not code.strip():
        return "no ```python block"
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError) as e:
        return f"does not parse ({type(e).__name__})"
    consts, funcs = {}, {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if isinstance(node.value, ast.Constant) and type(node.value.value) is str:
                consts[node.targets[0].id] = node.value.value
        elif isinstance(node, ast.FunctionDef):
            funcs[node.name] = node
    missing = [k for k in INTERFACE if k not in consts] + [f for f in ("sample", "apply") if f not in funcs]
    if missing:
        return f"does not define {', '.join(missing)} (constants must be string literals)"
    for key, want in (("NAME", spec.name), ("INPUT", spec.input), ("OUTPUT", spec.output)):
        if consts[key] != want:
            return f"{key} is {consts[key]!r}, asked for {want!r}"
    if consts["INPUT"] not in TYPES or consts["OUTPUT"] not in TYPES:
        return "unknown type"
    if not consts["TEXT"].strip() or len(consts["TEXT"]) > 500:
        return "TEXT empty or longer than 500 characters"
    if len(funcs["sample"].args.args) != 1 or len(funcs["apply"].args.args) != 2:
        return "sample must take (rng) and apply (x, tick)"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            bad = [m for m in mods if m.split(".")[0] not in SAFE_MODULES]
            if bad or (isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)):
                return f"imports {bad[0] if bad else '*'}"
        elif isinstance(node, ast.Name) and node.id in RISKY_NAMES:
            return f"uses {node.id}"
        elif isinstance(node, ast.Attribute) and node.attr in RISKY_ATTRS:
            return f"uses .{node.attr}"
        elif isinstance(node, ast.Name) and node.id in HARNESS_NAMES:
            return f"uses the harness's name {node.id}"
    apply_names = {n.id for n in ast.walk(funcs["apply"]) if isinstance(n, ast.Name)}
    calls = {n.func.id for n in ast.walk(funcs["apply"]) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    if "tick" not in calls:
        return "apply never calls tick (steps must be counted)"
    if {"random", "rng", "time"} & apply_names:
        return "apply uses randomness or the clock (it must be deterministic)"
    return ""


@dataclass
class Verdict:
    ok: bool
    reason: str = ""
    outputs: str = ""  # canonical outputs on the probes (the consistency key)


def run_check(code: str, spec: BrickSpec, probes: list, cfg: BricksGenConfig, sandbox) -> Verdict:
    """Stage 2: run the candidate in the sandbox on the probe inputs and check what it did."""
    from envs.compose.filters import degenerate
    from envs.compose.types import PAIR, canon, conforms, from_json, to_json

    expr = f"_probe({json.dumps([to_json(p) for p in probes])!r}, {spec.input == PAIR}, {cfg.max_steps}, 4, 0)"
    r = sandbox.run(code + "\n" + HARNESS, expr, timeout_s=cfg.timeout_s)
    if not r.ok:
        return Verdict(False, f"run: sandbox {r.status} {r.stderr.strip().splitlines()[-1][:120] if r.stderr.strip() else ''}".strip())
    try:
        samples, runs = json.loads(ast.literal_eval(r.value))
    except (ValueError, SyntaxError, TypeError):
        return Verdict(False, "run: unreadable result")
    if not all(conforms(from_json(s, spec.input), spec.input) for s in samples):
        return Verdict(False, f"run: sample() gave a value that is not {spec.input}")
    kept, outputs = 0, []
    for x, (a, b) in zip(probes, runs):
        if a != b:
            return Verdict(False, f"run: not deterministic on {canon(x)[:60]}")
        status, out, steps = a
        if status == "error":
            return Verdict(False, f"run: raises {out} on {canon(x)[:60]}")
        if status == "ok" and out is not None:
            value = from_json(out, spec.output)
            if not conforms(value, spec.output):
                return Verdict(False, f"run: returned {canon(out)[:40]}, not {spec.output}")
            if steps < 1:
                return Verdict(False, "run: counted no steps")
            kept += degenerate(value) is None
        outputs.append([status, out])
    if kept < len(probes) / 2:
        return Verdict(False, f"run: only {kept} of {len(probes)} outputs pass the Appendix D filter")
    return Verdict(True, "", canon(outputs))


def generate_bricks(cfg: BricksGenConfig, out: str, seed: int) -> dict:
    from envs.compose.samplers import SAMPLERS
    from utils.engine import SamplingParams, chat, make_engine
    from utils.records import atomic_write_text, derive_seed
    from utils.sandbox import Sandbox

    t0 = time.perf_counter()
    out_dir = Path(out)
    engine = make_engine(cfg.engine)
    prompts = [chat(prompt_of(s)) for s in cfg.specs]
    answers = engine.generate(prompts, SamplingParams(n=cfg.samples, temperature=cfg.temperature,
                                                      max_tokens=cfg.max_tokens, seed=seed))
    accepted, report = [], []
    with Sandbox() as sandbox:
        for i, (spec, outs) in enumerate(zip(cfg.specs, answers)):
            rng = random.Random(derive_seed(seed, "bricks-probes", i))
            probes = [SAMPLERS[spec.input](rng) for _ in range(cfg.probes)]
            groups: dict[str, list[int]] = {}
            rows = []
            for j, completion in enumerate(outs):
                code = code_of(completion.text)
                why = static_problem(code, spec)
                verdict = Verdict(False, f"static: {why}") if why else run_check(code, spec, probes, cfg, sandbox)
                rows.append({"sample": j, "kept": verdict.ok, "reason": verdict.reason})
                if verdict.ok:
                    groups.setdefault(verdict.outputs, []).append(j)
            best = max(groups.values(), key=len, default=[])
            ok = len(best) >= cfg.min_agree
            for row in rows:
                if row["kept"] and not ok:
                    row["reason"] = f"consistency: the largest agreeing group has {len(best)} of {cfg.min_agree} needed"
                elif row["kept"] and row["sample"] not in best:
                    row["reason"] = "consistency: outputs differ from the majority"
            if ok:
                code = code_of(outs[best[0]].text) + "\n"
                path = out_dir / "bricks" / f"{spec.name}.py"
                atomic_write_text(path, code)
                text = ast.literal_eval(next(n.value for n in ast.parse(code).body if isinstance(n, ast.Assign)
                                             and getattr(n.targets[0], "id", "") == "TEXT"))
                accepted.append({"name": spec.name, "input": spec.input, "output": spec.output, "text": text,
                                 "file": f"bricks/{spec.name}.py", "sha256": hashlib.sha256(code.encode()).hexdigest(),
                                 "agreeing": len(best), "samples": len(outs)})
            report.append({"spec": asdict(spec), "accepted": ok, "candidates": rows})
    atomic_write_text(out_dir / "manifest.json", json.dumps({"bricks": accepted}, indent=2) + "\n")
    atomic_write_text(out_dir / "report.jsonl", "".join(json.dumps(r) + "\n" for r in report))
    reasons: dict[str, int] = {}
    for r in report:
        for row in r["candidates"]:
            if row["reason"]:
                stage = row["reason"].split(":")[0]
                reasons[stage] = reasons.get(stage, 0) + 1
    return {"out": str(out_dir), "requested": len(cfg.specs), "accepted": [a["name"] for a in accepted],
            "candidates": sum(len(r["candidates"]) for r in report), "refused_by": reasons,
            "seconds": round(time.perf_counter() - t0, 3)}


def format_summary(s: dict) -> str:
    refused = ", ".join(f"{k} {v}" for k, v in sorted(s["refused_by"].items())) or "none"
    return "\n".join([f"wrote {s['out']}/ (manifest.json, bricks/, report.jsonl)",
                      f"  bricks accepted: {len(s['accepted'])} of {s['requested']} requested "
                      f"({', '.join(s['accepted']) or 'none'})",
                      f"  candidates: {s['candidates']}; refused by stage: {refused}",
                      f"  use them: generate.py --config configs/generate/races.yaml races.brick_dirs=[{s['out']}]",
                      f"seconds: {s['seconds']}"])


# ------------------------------------------------------------------ loading


class SandboxedBrick:
    """A loaded brick's mapper and sampler: every call is a sandbox job (model-written code never
    runs in this process). The step budget left on the counter is the job's, and its steps are
    charged back; the counter's remaining time is the job's timeout."""

    def __init__(self, code: str, x: str, y: str):
        self.code, self.x, self.y = code + "\n" + HARNESS, x, y

    def __call__(self, value: Any, counter) -> Any:
        from envs.compose.brick import StepLimit, TimeLimit
        from envs.compose.types import PAIR, from_json, to_json
        from utils.sandbox import run

        left = counter.deadline - time.perf_counter()
        if left <= 0:
            raise TimeLimit
        budget = counter.limit - counter.steps
        r = run(self.code, f"_apply({json.dumps(to_json(value))!r}, {self.x == PAIR}, {max(0, budget)})",
                timeout_s=left)
        if r.status == "timeout":
            raise TimeLimit
        if not r.ok:
            raise RuntimeError(f"sandboxed brick: {r.status}")
        status, out, steps = json.loads(ast.literal_eval(r.value))
        counter.tick(steps)  # raises StepLimit past the budget, as an in-process brick would
        if status == "steps":
            raise StepLimit
        if status == "error":
            raise RuntimeError(f"sandboxed brick raised {out}")
        return None if out is None else from_json(out, self.y)

    def sample(self, rng: random.Random) -> Any:
        from envs.compose.types import from_json
        from utils.sandbox import run

        r = run(self.code, f"_sample({rng.getrandbits(48)})", timeout_s=2.0)
        if not r.ok:
            raise RuntimeError(f"sandboxed sampler: {r.status}")
        return from_json(json.loads(ast.literal_eval(r.value)), self.x)


def load_bricks(folder: str) -> list:
    """The bricks of a mode=bricks output folder; a file whose SHA-256 differs from the manifest's
    (edited or replaced since it was checked) is refused."""
    from envs.compose.brick import Brick

    root = Path(folder)
    manifest = root / "manifest.json"
    if not root.exists():
        raise ValueError(f"{folder} does not exist (model-written bricks: write them with generate.py mode=bricks, "
                         f"e.g. --config configs/paper/races_bricks.yaml)")
    if not manifest.is_file():
        raise ValueError(f"{folder}: no manifest.json (not a generate.py mode=bricks output)")
    out = []
    for entry in json.loads(manifest.read_text())["bricks"]:
        code = (root / entry["file"]).read_text()
        if hashlib.sha256(code.encode()).hexdigest() != entry["sha256"]:
            raise ValueError(f"{root / entry['file']}: changed since it was checked (SHA-256 differs from the manifest)")
        mapper = SandboxedBrick(code, entry["input"], entry["output"])
        out.append(Brick(entry["name"], entry["input"], entry["output"], entry["text"], mapper, mapper.sample))
    return out
