"""The puzzle-to-math evaluation configs (issue 12 points 6 and 7): the paper's sampling settings, the
123 HMMT problems pooled, OMEGA's fixed-seed N=100 subsets read from chat-format rows, AIME25, and
pass@k per puzzle and grid. Hub datasets cannot be downloaded here: the configs are checked as
loaded, and their code paths on fixture files of each hub layout (tests/data/bench)."""
from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import pytest

import envs
from utils.benchmarks import MATH_SUFFIX, load_problems
from utils.config import load_or_raise
from utils.records import shard_path, write_jsonl

pytestmark = pytest.mark.usefixtures("hub_ids_ok")  # paper configs name hub models; tests run offline

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "bench"
FIXTURES = {"MathArena/": DATA / "matharena.jsonl", "allenai/omega-": DATA / "omega.jsonl",
            "RUC-AIBOX/OlymMATH": DATA / "math.jsonl"}


@pytest.fixture(autouse=True)
def stand_ins(tmp_path, monkeypatch):
    """What a config load checks exists: a model directory and the puzzle test split (runs/ here)."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes((2).to_bytes(8, "little") + b"{}")
    rec = envs.make("undead", width=3, height=3, level="easy").generate(seed=0)
    write_jsonl(shard_path(tmp_path / "runs" / "data" / "puzzles", "test", 0), [rec])
    monkeypatch.chdir(tmp_path)


def eval_cfg(name: str, *extra: str):
    import evaluate

    return load_or_raise(evaluate.EvalConfig, ["--config", str(ROOT / "configs" / "eval" / name), "model=model", *extra])


def test_paper_sampling_settings_and_benchmark_sets():
    cfg = eval_cfg("puzzle_to_math.yaml")
    assert (cfg.n, cfg.temperature, cfg.max_tokens, max(cfg.k)) == (32, 0.6, 25000, 32)  # lines 35, 135
    assert cfg.engine.max_model_len >= cfg.max_tokens + 2048
    by = {b.name: b for b in cfg.benchmarks}
    hmmt = cfg.groups["hmmt"]
    assert sum(by[b].problems for b in hmmt) == 123  # line 43
    assert {by[b].path for b in hmmt} == {f"MathArena/{b}" for b in hmmt}
    omega = [b for b in cfg.benchmarks if b.name.startswith("omega_")]
    assert len(omega) == 3 and all((b.sample, b.sample_seed, b.problems) == (100, 0, 100) for b in omega)
    assert all(b.data_files and b.fields["problem"] == "messages" for b in omega)
    assert by["aime25"].problems == 30 and by["olymmath_en_hard"].problems == 100
    assert (by["puzzles"].kind, by["puzzles"].split) == ("env", "test")
    # the sweep repeats each single-benchmark config's entries exactly
    for single in ("olymmath_hard", "olymmath_easy", "hmmt", "omega", "aime25", "puzzles"):
        one = eval_cfg(f"{single}.yaml")
        assert (one.n, one.temperature, one.max_tokens) == (32, 0.6, 25000)
        for b in one.benchmarks:
            assert by[b.name] == b, (single, b.name)
        assert all(cfg.groups[g] == m for g, m in one.groups.items())


def test_omega_full_set_check_scores_the_same_subset_and_the_whole_split():
    """Line 135's check: omega_full.yaml's subset is omega.yaml's explorative entry exactly, and its full-set
    entry is the same split with no sub-sample, at the paper's sampling."""
    cfg, sub = eval_cfg("omega_full.yaml"), eval_cfg("omega.yaml").benchmarks[0]
    assert (cfg.n, cfg.temperature, cfg.max_tokens, max(cfg.k)) == (32, 0.6, 25000, 32)
    part, full = cfg.benchmarks
    assert part == sub
    assert (full.sample, full.problems) == (0, 0) and full.name == sub.name + "_full"
    assert dataclasses.replace(full, name=sub.name, sample=sub.sample, problems=sub.problems) == sub


def test_every_paper_math_benchmark_loads_from_its_hub_layout():
    cfg = eval_cfg("puzzle_to_math.yaml")
    for b in cfg.benchmarks:
        if b.kind != "math":
            continue
        local = copy.deepcopy(b)
        local.path = str(next(f for prefix, f in FIXTURES.items() if b.path.startswith(prefix)))
        local.problems, local.sample = 0, min(b.sample, 3)
        problems = load_problems(local)
        assert problems and all(p.gold for p in problems), b.name
        text = problems[0].prompt[-1]["content"]
        assert text.endswith(MATH_SUFFIX) and "'role'" not in text and len(text) > len(MATH_SUFFIX), (b.name, text)
    b = copy.deepcopy(next(b for b in cfg.benchmarks if b.name == "hmmt_feb_2026"))
    b.path = str(DATA / "matharena.jsonl")
    with pytest.raises(ValueError, match="hmmt_feb_2026: 3 problems .* expects 33"):
        load_problems(b)


def test_omega_subset_is_fixed_by_seed_not_by_file_order(tmp_path):
    rows = [json.loads(line) for line in (DATA / "omega.jsonl").read_text().splitlines()]
    write_jsonl(tmp_path / "a.jsonl", rows)
    write_jsonl(tmp_path / "b.jsonl", rows[::-1])
    cfg = eval_cfg("omega.yaml").benchmarks[0]
    cfg.problems, cfg.sample = 0, 3
    picked = []
    for f in ("a.jsonl", "b.jsonl"):
        cfg.path = str(tmp_path / f)
        picked.append(sorted(p.id for p in load_problems(cfg)))
    assert picked[0] == picked[1] and len(picked[0]) == 3


def test_pooled_group_and_pass_at_k_per_puzzle_grid(tmp_path):
    """One evaluate.py run: two MathArena-layout sets pooled as a group, and a puzzle test split
    reported per puzzle and grid (replayed responses: every Undead answer right, every Bridges one wrong)."""
    import evaluate

    undead = envs.make("undead", width=3, height=3, level="easy")
    bridges = envs.make("bridges", width=5, height=5, level="easy")
    recs = [undead.generate(seed=s) for s in range(2)] + [bridges.generate(seed=s) for s in range(3)]
    write_jsonl(shard_path(tmp_path / "puzzles", "test", 0), recs)
    replay = [{"prompt": r["prompt"], "responses": [r["answer"] if r["env"] == "undead" else "<answer>x</answer>"]}
              for r in recs]
    replay += [{"prompt": json.loads(line)["problem"] + MATH_SUFFIX, "responses": ["\\boxed{5}"]}
               for line in (DATA / "matharena.jsonl").read_text().splitlines()]
    write_jsonl(tmp_path / "replay.jsonl", replay)
    mathb = "kind: math, path: {p}, split: train, fields: {{id: problem_idx, problem: problem, answer: answer}}"
    benches = (f"[{{name: a, {mathb.format(p=DATA / 'matharena.jsonl')}}}, {{name: b, "
               f"{mathb.format(p=DATA / 'matharena.jsonl')}}}, {{name: puzzles, kind: env, "
               f"path: {tmp_path / 'puzzles'}, split: test}}]")
    evaluate.main([f"out_root={tmp_path}", "name=ev", "engine.backend=replay", f"engine.replay_path={tmp_path}/replay.jsonl",
                   "n=2", "k=[1,2]", "bootstrap=20", "grading_workers=1", f"benchmarks={benches}",
                   "groups={ab: [a, b]}"])
    res = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert res["groups"]["ab"]["problems"] == 6
    assert res["groups"]["ab"]["pass@1"]["mean"] == pytest.approx(1 / 3)  # only "2+3" answers 5
    splits = res["benchmarks"]["puzzles"]["splits"]
    assert set(splits) == {"all", "undead 3x3 easy", "bridges 5x5 easy"}
    assert splits["undead 3x3 easy"]["pass@1"]["mean"] == 1.0 and splits["bridges 5x5 easy"]["pass@1"]["mean"] == 0.0
    assert splits["all"]["problems"] == 5
