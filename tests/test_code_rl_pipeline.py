"""Every config of configs/paper/code_rl/ run at CPU size on one shared synthesis run (recorded
teacher and student answers, the tiny model), as scripts/code_rl_cpu.py runs them: synthesis ->
training -> evaluation, each the paper's own config with CPU overrides. docs/reproduce/code_rl.md
maps each config to the paper's figure."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "configs" / "paper" / "code_rl"
sys.path.insert(0, str(ROOT / "scripts"))

import code_rl_cpu as cpu  # noqa: E402

TRAIN_CONFIGS = sorted(p.name for p in PAPER.glob("*.yaml") if "mode" not in cpu.raw_config(p))
GEN_CONFIGS = sorted(p.name for p in PAPER.glob("gen_*.yaml"))


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One CPU synthesis run (the paper's generate config + CPU overrides) and the tiny model."""
    from utils.tiny import build_tiny

    runs = tmp_path_factory.mktemp("code_rl_cpu")
    mp = pytest.MonkeyPatch()
    mp.chdir(ROOT)  # the paper configs and the replay files name paths from the repository root
    synth = cpu.synth_data(runs / "synth")
    yield {"runs": runs, "synth": synth, "model": str(build_tiny(runs / "tiny"))}
    mp.undo()


def metrics(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def train(shared, config: str) -> tuple[object, Path]:
    import torch

    import train as train_py
    from utils.config import load_or_raise

    argv = cpu.train_argv(str(PAPER / config), shared["synth"], shared["model"], shared["runs"] / "train")
    cfg = load_or_raise(train_py.TrainConfig, argv)
    threads = torch.get_num_threads()
    try:
        train_py.main(argv)
    finally:
        torch.set_num_threads(threads)
    return cfg, shared["runs"] / "train" / cfg.name


def test_synthesis_training_evaluation_end_to_end(shared):
    """The README command's path: REAL 25K + SYNTH* (the synthesis run's problems/) trains, and
    the trained model is evaluated under the paper's LiveCodeBench protocol."""
    import evaluate

    cfg, run = train(shared, "real25k_synth_star_induction.yaml")
    steps = metrics(run)
    assert [m["step"] for m in steps] == [1, 2] and (run / "final").exists()
    envs_seen = {k.split("/")[1] for m in steps for k in m if k.startswith("count/")}
    assert "code_contest" in envs_seen and envs_seen & {"induction", "deduction", "fuzzing", "abduction"}
    assert cfg.rl.async_rollouts and cfg.optim.lr == 1.4e-7 and cfg.optim.warmup_steps == 800
    evaluate.main(cpu.eval_argv(str(run / "final"), shared["runs"] / "eval"))
    results = json.loads((shared["runs"] / "eval" / "livecodebench" / "results.json").read_text())
    assert results["temperature"] == 0.2
    for bench in ("lcb", "lcbv5"):
        splits = results["benchmarks"][bench]["splits"]
        assert set(splits) == {"all", "easy", "medium"} and set(splits["all"]) >= {"problems", "pass@1", "pass@2"}
    # the figures' form: the base model (step 0) and each checkpoint evaluated, curves over steps
    import code_rl_curves as curves

    assert curves.evaluate_run(run, ["livecodebench"], cpu.eval_overrides()) == 2
    assert curves.evaluate_run(run, ["livecodebench"], cpu.eval_overrides()) == 0, "evaluated once"
    rows = curves.collect([run])
    assert {r["step"] for r in rows} == {0, 2} and {r["metric"] for r in rows} == {"pass@1", "pass@2"}
    pngs = curves.plot(rows, shared["runs"] / "figures")
    assert (shared["runs"] / "figures" / "lcb_all_pass1.png") in pngs and (shared["runs"] / "figures" / "curves.csv").exists()


def test_each_config_evaluates_into_its_own_folder(monkeypatch, tmp_path):
    """scripts/code_rl_cpu.py run for the default config and then for chains_hard.yaml (the two
    commands of docs/reproduce/code_rl.md): each evaluation (and its figures) goes to a folder of
    its own. They shared runs/code_rl_cpu/eval/livecodebench, and evaluate.py refused the second
    model's samples there ("holds samples from another model"). Training and evaluation are
    recorded, not run: this checks where main() sends them."""
    import code_rl_curves as curves

    import evaluate
    import train as train_py
    import utils.config
    import utils.tiny
    from utils.config import load_or_raise

    evals, figures = [], []
    monkeypatch.setattr(cpu, "synth_data", lambda out: out)
    monkeypatch.setattr(utils.tiny, "build_tiny", lambda out: out)
    monkeypatch.setattr(utils.config, "load", lambda schema, argv: load_or_raise(schema, argv, validate=False))
    monkeypatch.setattr(train_py, "main", lambda argv: None)
    monkeypatch.setattr(evaluate, "main", lambda argv: evals.append(dict(a.split("=", 1) for a in argv if "=" in a)))
    monkeypatch.setattr(curves, "evaluate_run", lambda run, configs, overrides: figures.append(("run", run)))
    monkeypatch.setattr(curves, "collect", lambda runs: [])
    monkeypatch.setattr(curves, "plot", lambda rows, out: figures.append(("figures", out)) or [])
    for config in (cpu.DEFAULT_TRAIN, "configs/paper/code_rl/chains_hard.yaml"):
        cpu.main(["--config", str(ROOT / config), "--runs", str(tmp_path)])
    outs = [Path(e["out_root"]) / e.get("name", "livecodebench") for e in evals]
    assert len(outs) == 2 and outs[0] != outs[1], outs
    assert outs[0] == tmp_path / "eval/code_rl/qwen3_8b/real25k_synth_star_induction/livecodebench"
    assert outs[1] == tmp_path / "eval/code_rl/qwen3_8b/chains_hard/livecodebench"
    assert [p for kind, p in figures if kind == "figures"] == [tmp_path / "figures/code_rl/qwen3_8b/real25k_synth_star_induction",
                                                              tmp_path / "figures/code_rl/qwen3_8b/chains_hard"]


@pytest.mark.parametrize("config", [c for c in TRAIN_CONFIGS if c != "real25k_synth_star_induction.yaml"])
def test_every_paper_train_config_runs_at_cpu_size(shared, config):
    """2 RL steps of each config; its curriculum, scaled to the 2 steps, draws only bins with weight."""
    from utils.curriculum import load

    cfg, run = train(shared, config)
    steps = metrics(run)
    assert [m["step"] for m in steps] == [1, 2]
    if cfg.data.curriculum.path:
        sched = load(cfg.data.curriculum.path, total_steps=2)
        for step, m in enumerate(steps):
            drawn = {k.split("frac_")[1] for k in m if k.startswith("curriculum/frac_")}
            assert drawn and all(sched.weights(step)[b] > 0 for b in drawn), (step, drawn)


MODELS = {  # code_rl Appendix E and the figures' step axes
    "qwen3_8b.yaml": ("Qwen/Qwen3-8B-Base", 1.4e-7, 800, 30000),
    "llama3.1_8b.yaml": ("meta-llama/Llama-3.1-8B-Instruct", 6e-8, 800, 30000),
    "qwen2.5_32b.yaml": ("Qwen/Qwen2.5-32B", 6e-8, 400, 50000),
}


@pytest.mark.parametrize("config", TRAIN_CONFIGS)
def test_paper_train_configs_keep_the_papers_optimisation(config, hub_ids_ok):
    import train as train_py
    from utils.config import load_or_raise

    cfg = load_or_raise(train_py.TrainConfig, ["--config", str(PAPER / config), "data.sources=[{env: sorting, bins: {easy: 0, easy_medium: 1, medium: 2, hard: 3}}]"])
    model, lr, warmup, steps = next(v for v in MODELS.values() if v[0] == cpu.raw_config(PAPER / config)["model"])
    assert (cfg.model, cfg.optim.lr, cfg.optim.warmup_steps, cfg.optim.schedule) == (model, lr, warmup, "constant")
    assert (cfg.rl.group_size, cfg.rl.kl_coef, cfg.rl.scale_rewards, cfg.clip_eps(), cfg.rl.temperature) == \
        (8, 0.0, "none", (0.2, 0.25), 1.0)
    assert cfg.rl.async_rollouts and cfg.rl.minibatches == 1
    curriculum = cpu.raw_config(PAPER / config).get("data", {}).get("curriculum")
    # the curricula of Table 2 and Table 4 run 40K steps; the uniform chain runs and the single-level
    # runs 30K, as the axes of Figs. 10c, 11 and 22 show
    assert cfg.rl.steps == (40000 if curriculum and "only_" not in curriculum["path"]
                            and curriculum["path"] != "chains_uniform" else steps)


@pytest.mark.parametrize("config", GEN_CONFIGS)
def test_every_paper_generate_config_runs_at_cpu_size(shared, config, capsys):
    import generate

    out = shared["runs"] / Path(config).stem
    if cpu.raw_config(PAPER / config).get("synth", {}).get("corpus", "").endswith(".jsonl"):
        generate.main(cpu.generate_argv(str(PAPER / "gen_seeds.yaml"), shared["synth"], shared["runs"] / "gen_seeds"))
    generate.main(cpu.generate_argv(str(PAPER / config), shared["synth"], out))
    captured = capsys.readouterr()
    printed = captured.out
    if config == "gen_seeds.yaml":  # one seed per solved problem: the reference solutions, not the wrong ones
        seeds = [json.loads(line) for line in (out / "seeds.jsonl").read_text().splitlines()]
        assert len(seeds) == 6 and all("print(0)" not in s["text"] for s in seeds)
    elif config == "gen_synth_real_aug.yaml":  # seeded with whole solutions, no 25-50 line window
        recs = [json.loads(line) for f in sorted((out / "problems").glob("*.jsonl")) for line in f.read_text().splitlines()]
        snippets = [r["meta"]["synth"]["snippet"] for r in recs]
        assert recs and all(s["corpus"].endswith("seeds.jsonl") and s["lines"] < 25 for s in snippets)
    elif config == "gen_select_envs4.yaml":
        assert "".join(sorted(json.loads(line)["env"][0] for f in out.glob("train-*.jsonl")
                              for line in f.read_text().splitlines())) == "adfi"
    elif config == "gen_select_levels.yaml":
        levels = sorted(json.loads(line)["meta"]["chain_level"] for f in out.glob("train-*.jsonl")
                        for line in f.read_text().splitlines())
        assert levels == ["easy", "hard", "medium"]
    elif config == "gen_select_real_aug.yaml":
        assert '"exact": 3' in printed
    elif config == "gen_select_chains.yaml":  # count=1 at CPU size: one whole chain, its three levels
        metas = [json.loads(line)["meta"] for f in out.glob("train-*.jsonl") for line in f.read_text().splitlines()]
        assert len({m["chain_id"] for m in metas}) == 1 and sorted(m["chain_level"] for m in metas) == ["easy", "hard", "medium"]
    elif config == "gen_select_table3.yaml":  # fewer than Table 3's sizes here: every bin taken whole, and said so
        bins = {json.loads(line)["meta"]["bin"] for f in out.glob("train-*.jsonl") for line in f.read_text().splitlines()}
        assert bins and bins <= {"easy", "easy_medium", "medium", "hard"} and "fewer than select.counts" in captured.err
    elif config == "gen_yield_single_turn.yaml":
        assert "single-turn" in printed and "teacher answers (yield" in printed
    else:
        assert "teacher answers (yield" in printed or "wrote" in printed


def test_solve_rates_per_chain_level(shared, tmp_path):
    """Fig. 9's measure: the share of each level's problems solved at least once up to each step."""
    import code_rl_curves as curves

    from utils.records import load_records, write_jsonl

    chains = load_records(shared["synth"] / "chains")
    by_level = {r["meta"]["chain_level"]: r["id"] for r in chains}
    (tmp_path / "config.yaml").write_text(f"data:\n  sources:\n    - {{data: {shared['synth'] / 'chains'}}}\n")
    write_jsonl(tmp_path / "solved.jsonl", [  # train.py: per step, the ids any rollout solved
        {"step": 1, "ids": [by_level["easy"]]}, {"step": 2, "ids": [by_level["medium"]]},
        {"step": 3, "ids": ["not-in-the-data"]}])
    rows = {(r["step"], r["level"]): r["value"] for r in curves.solve_rates(tmp_path)}
    assert rows == {(1, "easy"): 100.0, (1, "hard"): 0.0, (1, "medium"): 0.0, (2, "easy"): 100.0, (2, "hard"): 0.0,
                    (2, "medium"): 100.0, (3, "easy"): 100.0, (3, "hard"): 0.0, (3, "medium"): 100.0}
    assert curves.plot_solve_rates(curves.collect_solve_rates([tmp_path]), tmp_path / "fig").exists()
