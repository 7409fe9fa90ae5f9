"""What issue 29 found the code-RL reproduction to lack: the teacher's seed instruction, the paper's
data sizes (1012 chains / 3036 problems, Table 3's bins, 20K, 5K x 4) selected or refused, and
curves averaged over seeds, Fig. 9's solve rate over every rollout."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import envs
from envs.base import Env, Reward
from utils.records import write_jsonl

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "configs" / "paper" / "code_rl"
sys.path.insert(0, str(ROOT / "scripts"))

import code_rl_cpu as cpu  # noqa: E402
import code_rl_curves as curves  # noqa: E402


# ------------------------------------------------------------------ the teacher's first turn


def test_first_prompt_asks_to_incorporate_the_snippets_core_logic():
    """code_rl line 57: 'the teacher model is asked to try to incorporate the core logic of this
    example snippet' (not to take it as a mere theme)."""
    from envs.code.teacher import first_prompt

    snippet = "def running_total(xs):\n    out, s = [], 0\n    for x in xs:\n        s += x\n        out.append(s)\n"
    prompt = first_prompt("induction", snippet, 5, 3)
    ask = prompt.index("incorporate the core logic of this example snippet")
    assert prompt.index(snippet) > ask, "the instruction introduces the snippet"
    assert "only as inspiration" not in prompt and "theme" not in prompt[:prompt.index(snippet)]


# ------------------------------------------------------------------ selections of the paper's sizes


def rec(rid: str, env: str = "induction", **meta) -> dict:
    return {"id": rid, "env": env, "difficulty": 0, "prompt": "p", "answer": None,
            "meta": {"pass_rate": 0.5, **meta}}


def chains(n: int) -> list[dict]:
    return [rec(f"c{c}-{lv}", chain_id=f"c{c}", chain_level=lv, pass_rate=p)
            for c in range(n) for lv, p in (("easy", 0.875), ("medium", 0.5), ("hard", 0.125))]


def select(tmp_path: Path, records: list[dict], *overrides: str):
    from envs.code import data
    from generate import GenerateConfig
    from utils.config import load_or_raise

    write_jsonl(tmp_path / "in.jsonl", records)
    cfg = load_or_raise(GenerateConfig, ["mode=select", f"out={tmp_path}/out", f"select.data=[{tmp_path}/in.jsonl]",
                                         *overrides])
    return data.select(cfg.select, cfg.seed)


def test_chains_are_taken_whole_and_counted_as_chains(tmp_path):
    """'1012 coherent easy-medium-hard question chains (3036 problems total)': `unit: chain_id`
    takes each chain's three records together, `count` counts chains, `total` the records."""
    rows, report = select(tmp_path, chains(5), "select.unit=chain_id", "select.count=3", "select.total=9")
    by_chain = {}
    for r in rows:
        by_chain.setdefault(r["meta"]["chain_id"], []).append(r["meta"]["chain_level"])
    assert len(by_chain) == 3 and all(sorted(v) == ["easy", "hard", "medium"] for v in by_chain.values())
    assert report == {"all": {"available": 5, "taken": 3}, "records": 9}


@pytest.mark.parametrize("records,overrides,words", [
    (chains(2), ["select.unit=chain_id", "select.count=3"], "group 'all' has 2 chain_ids, fewer than select.count=3"),
    (chains(3)[:-1], ["select.unit=chain_id", "select.count=3", "select.total=9"],  # a chain without its hard record
     "holds 8 records, not select.total=9"),
    ([rec(f"e{i}", bin="easy") for i in range(3)] + [rec("h0", bin="hard")],
     ["select.by=bin", "select.counts={easy: 2, hard: 2}"], "group 'hard' has 1 records, fewer than select.counts.hard=2"),
    ([rec("e0", bin="easy")], ["select.by=bin", "select.counts={easy: 1, hard: 1}"],  # a bin absent altogether
     "group 'hard' has 0 records"),
    ([rec("i0", env="induction")], ["select.by=env", "select.groups=[induction,fuzzing]", "select.count=1"],
     "group 'fuzzing' has 0 records"),
])
def test_a_short_selection_stops_unless_allowed(tmp_path, capsys, records, overrides, words):
    from envs.code import data

    with pytest.raises(ValueError, match="select.allow_short=true") as e:
        select(tmp_path, records, *overrides)
    assert str(e.value).startswith(str(tmp_path / "in.jsonl")) and words in str(e.value), e.value
    rows, _ = select(tmp_path, records, *overrides, "select.allow_short=true")
    assert rows and words in capsys.readouterr().err  # taken as it is, and said so
    assert data.SelectConfig().allow_short is False


def test_table3_sizes_are_taken_per_bin(tmp_path):
    records = [rec(f"{b}{i}", bin=b) for b, n in (("easy", 5), ("easy_medium", 4), ("medium", 3), ("hard", 2))
               for i in range(n)] + [rec("none", bin=None)]
    rows, report = select(tmp_path, records, "select.by=bin", "select.counts={easy: 4, easy_medium: 3, medium: 2, hard: 2}")
    assert {b: report[b]["taken"] for b in report} == {"easy": 4, "easy_medium": 3, "medium": 2, "hard": 2}
    assert len(rows) == 11 and all(r["meta"]["bin"] is not None for r in rows)


def test_a_short_histogram_match_stops(tmp_path):
    write_jsonl(tmp_path / "ref.jsonl", chains(2))
    with pytest.raises(ValueError, match="2 records to match the 6 of select.match"):
        select(tmp_path, chains(2)[:2], f"select.match={tmp_path}/ref.jsonl")


def test_generate_reports_a_short_selection_in_one_line_with_exit_2(tmp_path, capsys):
    import generate

    write_jsonl(tmp_path / "in.jsonl", chains(2))
    (tmp_path / "sel.yaml").write_text(f"mode: select\nout: {tmp_path}/out\nselect: {{data: [{tmp_path}/in.jsonl], "
                                       f"unit: chain_id, count: 1012, total: 3036}}\n")
    with pytest.raises(SystemExit) as e:
        generate.main(["--config", str(tmp_path / "sel.yaml")])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and "\n" not in err and f"select.data ({tmp_path / 'sel.yaml'})" in err, err
    assert "fewer than select.count=1012" in err and not (tmp_path / "out").exists()


def test_each_paper_training_set_is_a_selection_of_the_papers_size():
    """The chains, disjoint, curriculum, 20K and 5K x 4 configs train on what a gen_select config
    writes (not on a synthesis run's whole output), and no paper selection allows a short set."""
    from generate import GenerateConfig
    from utils.config import load_or_raise

    outs = {}
    for p in sorted(PAPER.glob("gen_select_*.yaml")):
        cfg = load_or_raise(GenerateConfig, ["--config", str(p)], validate=False)
        assert cfg.select.allow_short is False, p.name
        outs[cfg.out] = p.name
    expected = {"chains_": "gen_select_chains.yaml", "disjoint_": "gen_select_disjoint.yaml",
                "curriculum_": "gen_select_table3.yaml", "synth_envs4": "gen_select_envs4.yaml",
                "synth_star_induction": "gen_select_induction.yaml", "only_": "gen_select_levels.yaml"}
    for prefix, gen in expected.items():
        for p in sorted(PAPER.glob(f"{prefix}*.yaml")):
            data = [s["data"] for s in cpu.raw_config(p)["data"]["sources"] if s.get("data")]
            assert [outs.get(d) for d in data] == [gen], (p.name, data)


# ------------------------------------------------------------------ curves over seeds


def fake_run(root: Path, name: str, seed: int, lr: float = 1.4e-7, evals: dict | None = None,
             solved: list[list[str]] | None = None, data: str = "") -> Path:
    run = root / name
    run.mkdir(parents=True)
    sources = [{"data": data}] if data else [{"env": "code_contest"}]
    (run / "config.yaml").write_text(json.dumps({"name": name, "seed": seed, "out_dir": str(root), "resume": seed > 1,
                                                 "optim": {"lr": lr}, "data": {"sources": sources}}))
    for step, value in (evals or {}).items():
        out = run / "eval" / f"step_{step:08d}" / "livecodebench"
        out.mkdir(parents=True)
        (out / "results.json").write_text(json.dumps(
            {"benchmarks": {"lcb": {"splits": {"all": {"pass@1": {"mean": value}}}}}}))
    if solved is not None:
        write_jsonl(run / "solved.jsonl", [{"step": i + 1, "ids": ids} for i, ids in enumerate(solved)])
    return run


def test_curves_average_the_seeds_of_each_experiment(tmp_path):
    """Two experiments of three seeds each, seeds 1 and 2 in <name>/seed<N>/ as scripts/sweep.sbatch
    names them: one line each, mean +- std over its three seeds; seed folders of different
    experiments (all named seed1, seed2) are not merged."""
    a = fake_run(tmp_path, "code_rl/a", 0, evals={0: 0.1, 100: 0.2})
    fake_run(tmp_path, "code_rl/a/seed1", 1, evals={0: 0.1, 100: 0.4})
    fake_run(tmp_path, "code_rl/a/seed2", 2, evals={0: 0.1, 100: 0.6})
    b = fake_run(tmp_path, "code_rl/b", 0, lr=6e-8, evals={100: 0.3})
    fake_run(tmp_path, "code_rl/b/seed1", 1, lr=6e-8, evals={100: 0.5})
    fake_run(tmp_path, "code_rl/b/seed2", 2, lr=6e-8, evals={100: 0.7})
    rows = curves.collect([a, b])
    assert len(rows) == 9 and {r["experiment"] for r in rows} == {"code_rl/a", "code_rl/b"}
    curves.plot(rows, tmp_path / "fig")
    csv = (tmp_path / "fig" / "curves.csv").read_text().splitlines()
    assert csv[0] == "experiment,step,benchmark,split,metric,mean,std,seeds"
    got = {(c[0], int(c[1])): (float(c[5]), float(c[6]), int(c[7])) for c in (line.split(",") for line in csv[1:])}
    assert got[("code_rl/a", 100)] == pytest.approx((0.4, 0.2, 3)) and got[("code_rl/b", 100)] == pytest.approx((0.5, 0.2, 3))
    assert got[("code_rl/a", 0)] == pytest.approx((0.1, 0.0, 3)) and len(got) == 3


def stopped(capsys, fn, *args) -> str:
    """The one line a figure command stops with (exit 2)."""
    with pytest.raises(SystemExit) as e:
        fn(*args)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1, err
    return err


def test_runs_that_differ_beyond_the_seed_are_not_averaged(tmp_path, capsys):
    a = fake_run(tmp_path, "x/a", 0)
    other = fake_run(tmp_path, "y/a/seed1", 1, lr=1e-3)  # labelled y/a: another experiment, its own line
    assert curves.experiments([a, other]) == {a: ("x/a", 0), other: ("y/a", 1)}
    clash = fake_run(tmp_path, "x/a/seed1", 1, lr=1e-3)  # labelled x/a, but not a seed of x/a
    assert "both 'x/a' but their configs differ" in stopped(capsys, curves.experiments, [a, clash])
    twice = fake_run(tmp_path, "x/a/seed2", 0)
    assert "has seed 0 twice" in stopped(capsys, curves.experiments, [a, twice])


def test_solve_rates_count_every_rollout_and_average_the_seeds(tmp_path, capsys):
    """Fig. 9: the share of each level's problems solved at least once up to each step, from
    solved.jsonl (every rollout), mean +- std over seeds."""
    write_jsonl(tmp_path / "chains.jsonl", chains(2))
    data = str(tmp_path / "chains.jsonl")
    a = fake_run(tmp_path, "chains", 0, data=data, solved=[["c0-easy"], ["c0-medium", "c1-easy", "elsewhere"]])
    fake_run(tmp_path, "chains/seed1", 1, data=data, solved=[[], ["c0-easy", "c1-hard"]])
    rows = curves.collect_solve_rates([a])
    mean = {(r["step"], r["level"]): (r["mean"], r["seeds"]) for r in curves.mean_std(rows, ("step", "level"))}
    assert mean[(1, "easy")] == (25.0, 2) and mean[(2, "easy")] == (75.0, 2)   # seed 0: 1/2 then 2/2; seed 1: 0 then 1/2
    assert mean[(2, "medium")] == (25.0, 2) and mean[(2, "hard")] == (25.0, 2)
    assert curves.plot_solve_rates(rows, tmp_path / "fig").exists()
    assert "experiment,step,level,mean,std,seeds" in (tmp_path / "fig" / "solve_rates.csv").read_text()
    (a / "seed1" / "solved.jsonl").unlink()  # a run with the logged samples only: refused, not a lower bound
    assert "solved.jsonl does not exist" in stopped(capsys, curves.collect_solve_rates, [a])


class HalfEnv(Env):
    """Test-only env: the problems of even seed are solved by any answer, the others by none."""

    name = "half"
    reward_range = (0.0, 1.0)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        return {"id": f"half-{seed}", "env": "half", "difficulty": difficulty, "prompt": f"Say anything ({seed}).",
                "answer": None, "meta": {}}

    def score(self, record: dict, response: str) -> Reward:
        ok = int(record["id"].split("-")[1]) % 2 == 0
        return Reward(float(ok), ok, {})


def test_train_logs_every_solved_problem_whatever_it_samples(tiny, tmp_path, monkeypatch, one_thread):
    """train.py's solved.jsonl: per step the ids solved by any rollout, the same whether every
    rollout or one is written to samples.jsonl."""
    import train

    monkeypatch.setitem(envs.REGISTRY, "half", f"{__name__}:HalfEnv")
    args = ["stage=rl", f"model={tiny}", f"out_dir={tmp_path}", "data.sources=[{env: half}]", "rl.steps=2",
            "rl.batch_size=32", "rl.group_size=4", "rl.micro_batch_size=32", "rl.max_tokens=4", "save_every=100"]
    train.main(args + ["name=all", "rl.log_samples=-1"])
    train.main(args + ["name=one", "rl.log_samples=1"])
    read = lambda run, f: [json.loads(x) for x in (tmp_path / run / f).read_text().splitlines()]  # noqa: E731
    full = read("all", "samples.jsonl")
    want = [{"step": s, "ids": sorted({r["id"] for r in full if r["step"] == s and r["correct"]})} for s in (1, 2)]
    assert read("all", "solved.jsonl") == want and any(w["ids"] for w in want)
    assert read("one", "solved.jsonl") == want and len(read("one", "samples.jsonl")) == 2
