"""What a training run leaves for its user: step lines every log_every steps (difficulty per env in
the RL line), curves.png, the LoRA adapter in peft format beside the merged weights, the chat
template override and enable_thinking saved with the tokenizer; passk.png with its bands."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import torch

from utils.records import write_jsonl
from utils.tiny import build_tiny


def test_lora_sft_run_outputs(tmp_path, capsys):
    import train
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tiny = build_tiny(tmp_path / "tiny")
    write_jsonl(tmp_path / "sft.jsonl", [{"prompt": f"Say {i}.", "response": f"<answer>{i % 10}</answer>"}
                                         for i in range(40)])
    template = tmp_path / "t.jinja"
    template.write_text("{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}"
                        "{% if enable_thinking is defined and not enable_thinking %}[no-think]{% endif %}[assistant] ")
    train.main([f"model={tiny}", f"out_dir={tmp_path}", "name=lora", "stage=sft", f"sft.data=[{tmp_path}/sft.jsonl]",
                "sft.batch_size=4", "sft.micro_batch_size=4", "sft.epochs=1", "optim.lr=1e-2", "save_every=5",
                "lora.enabled=true", "lora.r=4", "log_every=4", f"chat_template={template}", "enable_thinking=false",
                "cpu_threads=1"])
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("sft step")]
    assert [x.split()[2] for x in lines] == ["1/10", "4/10", "8/10", "10/10"]  # first, every 4th, last
    run = tmp_path / "lora"
    assert len([json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]) == 10
    assert (run / "curves.png").stat().st_size > 5000
    # the adapter alone (peft format) on the base gives the merged model
    assert (run / "final_adapter" / "adapter_config.json").is_file()
    merged = AutoModelForCausalLM.from_pretrained(run / "final")
    adapted = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny), run / "final_adapter")
    ids = torch.tensor([[5, 17, 300, 42, 7]])
    with torch.no_grad():
        assert torch.allclose(merged(ids).logits, adapted(ids).logits, atol=1e-5)
        assert not torch.allclose(merged(ids).logits, AutoModelForCausalLM.from_pretrained(tiny)(ids).logits,
                                  atol=1e-4)
    # the override and the thinking switch travel with the saved tokenizer (evaluate.py renders the same)
    tok = AutoTokenizer.from_pretrained(run / "final")
    text = tok.apply_chat_template([{"role": "user", "content": "hi"}], add_generation_prompt=True, tokenize=False)
    assert text == "[user] hi\n[no-think][assistant] "


def test_rl_line_shows_difficulty_and_curves_draw_every_panel(tmp_path, capsys):
    import train

    cfg = train.TrainConfig(name="r", log_every=1)
    log = train.Log(tmp_path, cfg, SimpleNamespace(main=True), 0)
    for step in (1, 2):
        log(step, {"reward_mean": 0.1 * step, "accuracy": 0.2, "response_len": 30.0, "kl": 0.01, "clip_frac_low": 0.0,
                   "clip_frac_high": 0.1, "difficulty/sorting": step, "difficulty/lis": 0, "loss": 0.3},
            f"rl step {step}/2")
    log.close()
    out = capsys.readouterr().out.splitlines()
    assert out == ["rl step 1/2 | difficulty sorting 1 lis 0", "rl step 2/2 | difficulty sorting 2 lis 0"]
    assert (tmp_path / "curves.png").stat().st_size > 5000
    from utils.plots import CURVE_PANELS, training_curves

    rows = [{"step": 1, "reward_mean": 0.1, "grad_norm": 1.0}]
    training_curves(rows, tmp_path / "c.png")
    assert (tmp_path / "c.png").is_file() and {"reward and accuracy", "gradient norm"} <= {n for n, _ in CURVE_PANELS}


def test_optional_loggers_need_their_package():
    import importlib.util

    import train

    for key in ("wandb", "tensorboard"):
        if importlib.util.find_spec(key) is not None:
            continue
        problems = dict(train.TrainConfig(**{key: True}).validate())
        assert f"pip install {key}" in problems[key]


def _boxes_overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _renderer(fig):
    """A renderer for a figure pyplot already closed (its canvas is a bare one by then)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    return renderer


def _text_boxes(ax, renderer):
    """Window extents of an axes' tick labels, axis labels and title (what a legend must not cover)."""
    texts = [*ax.get_xticklabels(), *ax.get_yticklabels(), ax.xaxis.label, ax.yaxis.label, ax.title]
    return [t.get_window_extent(renderer) for t in texts if t.get_visible() and t.get_text()]


def test_passk_plot_has_bands_integer_ticks_and_a_legend_off_the_labels(tmp_path):
    from matplotlib.collections import PolyCollection

    from utils.plots import passk_curves

    fig = passk_curves({"a": {1: 0.2, 2: 0.3, 4: 0.5, 8: 0.6}, "b": {1: 0.1, 2: 0.2, 4: 0.25, 8: 0.3}},
                       tmp_path / "p.png", bands={"a": {1: (0.1, 0.3), 4: (0.4, 0.6), 8: (0.5, 0.7)}})
    assert (tmp_path / "p.png").stat().st_size > 5000
    ax = fig.axes[0]
    assert sum(isinstance(c, PolyCollection) for c in ax.collections) == 1  # a's band; b has none
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4", "8"]  # k is an integer: no 10^0
    renderer = _renderer(fig)
    legend = ax.get_legend().get_window_extent(renderer)
    assert not any(_boxes_overlap(legend, box) for box in _text_boxes(ax, renderer))
    assert not _boxes_overlap(legend, ax.get_window_extent(renderer))  # nor the curves


def test_training_curves_integer_difficulty_and_legends_beside_the_panels(tmp_path):
    from utils.plots import training_curves

    rows = [{"step": s, "reward_mean": 0.1 * s, "accuracy": 0.05 * s, "response_len": 20.0 + s, "kl": 0.01,
             "clip_frac_low": 0.0, "clip_frac_high": 0.02, "difficulty/sorting": s // 3,
             "difficulty/longest_increasing_subsequence": s // 4, "accuracy/sorting": 0.5} for s in range(1, 13)]
    fig = training_curves(rows, tmp_path / "c.png", title="t")
    panels = {ax.get_title(): ax for ax in fig.axes if ax.get_title()}
    diff = panels["difficulty per env (adaptive: top of the window)"]
    ticks = [t for t in diff.get_yticks() if diff.get_ylim()[0] <= t <= diff.get_ylim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)  # a difficulty of 1.5 does not exist
    assert all(float(t).is_integer() for ax in panels.values() for t in ax.get_xticks())  # steps
    renderer = _renderer(fig)
    labels = [box for ax in panels.values() for box in _text_boxes(ax, renderer)]
    for ax in panels.values():
        if ax.get_legend() is not None:
            legend = ax.get_legend().get_window_extent(renderer)
            assert not any(_boxes_overlap(legend, box) for box in labels), ax.get_title()
            assert not any(_boxes_overlap(legend, other.get_window_extent(renderer)) for other in panels.values())
    # 64 envs (configs/paper/rlve_envs_64.yaml): no legend taller than the figure ("tight layout not applied")
    import warnings

    many = [{"step": s, "reward_mean": 0.1, **{f"difficulty/env{i}": s // 2 for i in range(64)}} for s in range(1, 4)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = training_curves(many, tmp_path / "many.png")
    assert any(ax.get_title().endswith("(64 envs)") for ax in fig.axes)


def test_demo_summary_compares_the_models_and_reports_the_controller(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("demo", Path(__file__).resolve().parents[1] / "scripts" / "demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    # 20 problems at d=0 that RL solves more often (4 -> 6 of 8 samples) and 10 at d=2 where both are equal
    problems = [(f"p{i}", "sorting d=0") for i in range(20)] + [(f"q{i}", "sorting d=2") for i in range(10)]
    for name, c0 in (("sft", 4), ("rl", 6)):
        (tmp_path / name).mkdir()
        counts = {"sorting d=0": [c0] * 20, "sorting d=2": [1, 0] * 5}
        with (tmp_path / name / "per_problem.csv").open("w") as f:
            f.write("benchmark,problem_id,split,n,c\n")
            for i, (pid, split) in enumerate(problems):
                f.write(f"sorting,{pid},{split},8,{counts[split][i % 20 if split.endswith('0') else i - 20]}\n")
        p0 = c0 / 8
        (tmp_path / name / "results.json").write_text(json.dumps({"benchmarks": {"sorting": {"problems": 30, "splits": {
            "all": {"pass@1": {"mean": (20 * p0 + 5 / 8) / 30, "ci95": [0.1, 0.9]}},
            "sorting d=0": {"pass@1": {"mean": p0, "ci95": [p0 - 0.1, p0 + 0.1]}},
            "sorting d=2": {"pass@1": {"mean": 1 / 16, "ci95": [0.0, 0.12]}}}}}}))
    write_jsonl(tmp_path / "metrics.jsonl", [{"step": s, "reward_mean": s / 10, "accuracy": s / 20,
                                               "difficulty/sorting": min(s // 3, 2)} for s in range(1, 9)])
    text = demo.summary(tmp_path / "sft", tmp_path / "rl", tmp_path, tmp_path / "summary.md",
                        [("train.py configs/x.yaml", 12.0, 30.0)])
    assert "| sorting | sorting d=0 | 20 | pass@1 | 0.500 [0.40, 0.60] | 0.750 [0.65, 0.85] | +0.250 [+0.25, +0.25] |" \
        in text, text
    assert "- sorting d=0: RL better (+0.250 [+0.25, +0.25])" in text
    assert "- sorting d=2: no measurable difference (+0.000 [+0.00, +0.00])" in text
    assert "- sorting all: RL better" in text
    assert "difficulty/sorting (adaptive controller, top of the window): 0 at step 1, 2 at most, 2 at the end" in text
    assert "| train.py configs/x.yaml | 12.0 | 30.0 |" in text
    assert (tmp_path / "summary.md").read_text() == text


def test_demo_settings_measure_what_the_summary_claims():
    # the demo compares SFT and RL on held-out problems at the temperature RL samples at, per
    # difficulty, with the adaptive controller on; these settings live in four files that must agree
    from evaluate import EvalConfig
    from generate import GenerateConfig
    from train import TrainConfig
    from utils.config import load_or_raise

    root = Path(__file__).resolve().parents[1]
    demo = (root / "scripts" / "demo.py").read_text()
    data = load_or_raise(GenerateConfig, ["--config", str(root / "configs/smoke/data.yaml")])
    ev = load_or_raise(EvalConfig, ["--config", str(root / "configs/eval/demo.yaml")], validate=False)
    rl = load_or_raise(TrainConfig, ["--config", str(root / "configs/smoke/gspo_novelty.yaml")], validate=False)
    sft = load_or_raise(TrainConfig, ["--config", str(root / "configs/smoke/sft.yaml")], validate=False)
    assert all(f"configs/{p}" in demo for p in ("smoke/data.yaml", "eval/demo.yaml", "smoke/gspo_novelty.yaml",
                                               "smoke/sft.yaml"))
    assert ev.temperature == rl.rl.temperature and ev.n >= 8 and 1 in ev.k
    assert [(b.kind, b.path, b.split) for b in ev.benchmarks] == [("env", data.out, "test")]
    assert rl.data.adaptive.enabled and rl.model == f"{sft.out_dir}/{sft.name}/final"
    trained = {e.difficulty for e in data.splits["train"]}
    held_out = {e.difficulty for e in data.splits["test"]}
    assert held_out & trained and held_out - trained  # the training difficulty and a harder one
