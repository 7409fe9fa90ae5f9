"""One-process checks of the cluster path's smaller fixes (issue 11): the async rollout thread's
CUDA device, the prompt budget of a vLLM engine, the memory-mapped trainer state, checkpoints in
the training dtype, the engine built before the RNG state is restored, and the behaviour log-prob
gap measured at the sampling temperature. The multi-rank ones are in test_multirank.py."""
from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

import envs
from envs.base import Env, Reward
from utils.config import load_or_raise


class ParityEnv(Env):
    """Rewards responses of even length: a random tiny model gets it about half the time."""

    name = "parity"
    reward_range = (0.0, 1.0)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        return {"id": f"parity-{seed}", "env": "parity", "difficulty": difficulty,
                "prompt": f"Say something of even length (request {seed % 1000}).", "answer": None, "meta": {}}

    def score(self, record: dict, response: str) -> Reward:
        return Reward(float(len(response) % 2 == 0), len(response) % 2 == 0, {})


@pytest.fixture
def parity(monkeypatch):
    monkeypatch.setitem(envs.REGISTRY, "parity", f"{__name__}:ParityEnv")


def test_async_rollout_thread_generates_on_the_ranks_gpu(monkeypatch):
    # the CUDA current device is per thread: a new thread would generate on cuda:0 on every rank
    import train
    from utils.dist import Ctx

    calls = []
    monkeypatch.setattr(torch.cuda, "set_device", lambda d: calls.append((torch.device(d), threading.get_ident())))
    pool = train.rollout_pool(Ctx(rank=3, world=4, local_rank=1, device=torch.device("cuda", 1)))
    worker = pool.submit(threading.get_ident).result()
    pool.shutdown()
    assert calls == [(torch.device("cuda", 1), worker)] and worker != threading.get_ident()


def test_a_prompt_longer_than_the_vllm_budget_stops_the_run_with_one_line(tiny, capsys):
    import train

    cfg = load_or_raise(train.TrainConfig, [f"model={tiny}", "data.sources=[{env: sorting}]", "rl.engine.backend=vllm",
                                            "rl.engine.max_model_len=64", "rl.max_tokens=32", "rl.group_size=2"])
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny)
    seen = []
    engine = SimpleNamespace(generate=lambda prompts, params, seeds: seen.append(prompts) or [[] for _ in prompts],
                             max_model_len=64)
    short = SimpleNamespace(record={"prompt": "sort 2 1"})
    train.generate_rollouts(engine, tok, cfg, None, 0, [short], 0)
    assert len(seen) == 1  # 64 - 32 tokens leave room for a short prompt
    with pytest.raises(SystemExit) as e:
        train.generate_rollouts(engine, tok, cfg, None, 1, [short, SimpleNamespace(record={"prompt": "9 " * 40})], 0)
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(seen) == 1 and err.count("\n") == 0 and "rl.max_prompt_tokens" in err, err


def _rss() -> int:
    import resource

    return int(open("/proc/self/statm").read().split()[1]) * resource.getpagesize()


def test_trainer_state_is_memory_mapped_and_ranks_above_0_drop_the_optimizer(tmp_path):
    # ~60 GB of fp32 Adam moments at 7B: no rank may read the whole state into its own memory
    from utils import checkpoint

    big = torch.zeros(64 * 2 ** 20)  # 256 MB standing in for the optimizer state
    torch.save({"step": 3, "optimizer": {"state": {0: {"exp_avg": big}}}, "lora": {}}, tmp_path / "trainer_state.pt")
    del big
    before = _rss()
    other = checkpoint.load_state(tmp_path, main=False)
    main = checkpoint.load_state(tmp_path, main=True)
    grown = _rss() - before
    assert "optimizer" not in other and other["step"] == 3
    assert main["optimizer"]["state"][0]["exp_avg"].shape == (64 * 2 ** 20,)
    assert grown < 32 * 2 ** 20, f"loading grew RSS by {grown / 2**20:.0f} MB"  # read: +256 MB


@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_checkpoint_weights_are_in_the_training_dtype(tiny, tmp_path, dtype, one_thread):
    import train
    from safetensors.torch import load_file

    from utils import checkpoint, dist

    cfg = load_or_raise(train.TrainConfig, [f"model={tiny}", "data.sources=[{env: sorting}]", f"dtype={dtype}"])
    ctx = dist.init()
    try:
        model, tok = train.build_model(cfg, ctx, tiny)
        model = train.wrap(model, "none", None, cfg, ctx)
        opt, sched = train.make_optimizer(cfg, model, 1)
        ckpt = checkpoint.save(tmp_path, 1, model, opt, sched, tok, state={}, rank_state={}, keep_last=1, ctx=ctx)
    finally:
        dist.close()
    want = getattr(torch, dtype)
    assert {t.dtype for t in load_file(ckpt / "model" / "model.safetensors").values()} == {want}
    assert json.loads((ckpt / "model" / "config.json").read_text())["dtype"] == dtype


def test_engine_before_rng_restore_and_the_logp_gap_at_the_sampling_temperature(tiny, tmp_path, parity, monkeypatch,
                                                                                one_thread):
    import train
    from utils import checkpoint

    args = [f"model={tiny}", "data.sources=[{env: parity}]", "rl.batch_size=16", "rl.group_size=4", "rl.max_tokens=8",
            "rl.micro_batch_size=4", "rl.minibatches=2", "rl.temperature=0.7", "optim.lr=1e-3", "save_every=1",
            f"out_dir={tmp_path}", "name=t"]
    train.main(args + ["rl.steps=1"])
    # the engine's log-probs and the trainer's recomputed ones, both at temperature 0.7, agree; they
    # were compared with the engine's temperature-1 log-probs before (a gap of ~0.3 here)
    step1 = json.loads((tmp_path / "t" / "metrics.jsonl").read_text().splitlines()[0])
    assert step1["behaviour_logp_gap"] is not None and step1["behaviour_logp_gap"] < 1e-4, step1["behaviour_logp_gap"]

    events = []
    build = train.rollout_engine
    monkeypatch.setattr(train, "rollout_engine", lambda *a, **k: events.append("engine") or build(*a, **k))
    restore_rng = checkpoint.set_rng_state
    monkeypatch.setattr(checkpoint, "set_rng_state", lambda s: events.append("rng") or restore_rng(s))
    train.main(args + ["rl.steps=2", "resume=true"])
    # a vLLM engine reseeds the global RNGs when it starts: built after the restore, it would
    # overwrite the restored state
    assert events == ["engine", "rng"]
    assert Path(tmp_path / "t" / "final").is_dir()


def test_optimizer_state_from_before_the_logprob_wrapper_still_restores(tiny, one_thread):
    # checkpoints written before the trainer wrapped the model name parameters without "lm."
    import train
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

    from utils import checkpoint, dist

    cfg = load_or_raise(train.TrainConfig, [f"model={tiny}", "data.sources=[{env: sorting}]"])
    ctx = dist.init()
    try:
        model = train.wrap(train.build_model(cfg, ctx, tiny)[0], "none", None, cfg, ctx)
        opt, sched = train.make_optimizer(cfg, model, 1)
        for p in model.parameters():
            p.grad = torch.ones_like(p)
        opt.step()
        osd = get_optimizer_state_dict(model, opt, options=StateDictOptions(full_state_dict=True))
        old = {"state": {k.removeprefix("lm."): v for k, v in osd["state"].items()},
               "param_groups": [{**g, "params": [p.removeprefix("lm.") for p in g["params"]]}
                                for g in osd["param_groups"]]}
        fresh = train.wrap(train.build_model(cfg, ctx, tiny)[0], "none", None, cfg, ctx)
        opt2, sched2 = train.make_optimizer(cfg, fresh, 1)
        checkpoint.restore({"optimizer": old, "scheduler": sched.state_dict(), "ranks": [{"rng": checkpoint.rng_state()}]},
                           fresh, opt2, sched2, ctx)
        got = get_optimizer_state_dict(fresh, opt2, options=StateDictOptions(full_state_dict=True))
    finally:
        dist.close()
    assert got["state"].keys() == osd["state"].keys()
    assert all(torch.equal(got["state"][k]["exp_avg"], osd["state"][k]["exp_avg"]) for k in osd["state"])


def test_hsdp_groups_that_do_not_divide_the_ranks_are_one_line(tiny, tmp_path, capsys):
    import train

    with pytest.raises(SystemExit) as e:
        train.main([f"model={tiny}", "data.sources=[{env: sorting}]", "strategy=hsdp", "hsdp_shard_size=2",
                    f"out_dir={tmp_path}", "rl.steps=1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and "hsdp_shard_size" in err[0], err


def test_fsdp2_accumulates_gradients_sharded_between_micro_batches(tiny, one_thread):
    # FSDP2's no-sync mode (set_requires_gradient_sync(False)) would keep every layer's unsharded
    # fp32 gradient until the last micro-batch (~30 GB at 7B); dist.grad_sync reduce-scatters after
    # each one, so the sharded parameters hold their gradient shards already after the first
    import train
    from torch.distributed.tensor import DTensor

    from utils import dist

    cfg = load_or_raise(train.TrainConfig, [f"model={tiny}", "data.sources=[{env: sorting}]"])
    ctx = dist.init()
    try:
        model = train.wrap(train.build_model(cfg, ctx, tiny)[0], "fsdp", dist.device_mesh("fsdp", ctx), cfg, ctx)
        inputs, resp, _ = train.collate([([1, 2, 3], [4, 5]), ([6], [7, 8, 9])], 0, ctx.device)
        with dist.grad_sync(model, last=False):
            logp, _ = model(**inputs, targets=resp)
            logp.sum().backward()
        params = [p for p in model.parameters() if p.requires_grad]
        assert params and all(isinstance(p.grad, DTensor) for p in params)
    finally:
        dist.close()


def test_async_vllm_rollouts_take_a_temperature(tiny):
    # vLLM's log-probs are at the sampling temperature (logprobs_mode=processed_logprobs): the ratio
    # no longer needs temperature 1 (TP > 1, async top_p < 1 and the prompt budget: test_train.py)
    import train

    cfg = load_or_raise(train.TrainConfig, [f"model={tiny}", "data.sources=[{env: sorting}]", "rl.async_rollouts=true",
                                            "rl.engine.backend=vllm", "rl.temperature=0.7",
                                            "rl.engine.max_model_len=4096"])
    assert cfg.rl.temperature == 0.7


@pytest.mark.parametrize("weights_on,current,ok", [("cuda:1", 1, True), ("cuda:0", 1, False), ("cuda:1", 0, False)])
def test_vllm_engine_on_another_gpu_than_its_rank_is_refused_at_start(monkeypatch, weights_on, current, ok):
    # without external_launcher every rank's engine lands on cuda:0; the engine checks where its
    # weights are against LOCAL_RANK (vLLM itself is not needed to run the check)
    from utils.engine import EngineError, VLLMEngine

    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setattr(torch.cuda, "current_device", lambda: current)
    eng = object.__new__(VLLMEngine)
    eng.torchrun = True
    eng.llm = SimpleNamespace(collective_rpc=lambda fn: [weights_on])
    if ok:
        assert eng.check_placement() == "cuda:1"
    else:
        with pytest.raises(EngineError, match="expected cuda:1"):
            eng.check_placement()


def test_a_tied_embedding_reaches_vllm_as_the_lm_head_too():
    # the trainer names a tied weight once (the embedding); vLLM's CPU backend keeps a packed copy
    # of a layer that gets no weights on reload, so its lm_head would keep the old embedding
    from utils.engine import _with_tied_head

    emb = torch.ones(2)
    pairs = [("model.embed_tokens.weight", emb), ("model.norm.weight", 1), ("lm_head.weight", emb)]
    tied = list(_with_tied_head(iter(pairs), tied=True))
    assert [n for n, _ in tied] == ["model.embed_tokens.weight", "lm_head.weight", "model.norm.weight"]
    assert tied[1][1] is emb
    assert list(_with_tied_head(iter(pairs), tied=False)) == pairs


def test_mixed_computes_in_bf16_on_cpu_and_keeps_fp32_weights(tiny, one_thread):
    """dtype=mixed: fp32 weights (and gradients) with bf16 autocast on CPU as well (auto autocasts on
    GPU only): the log-probs move by bf16 rounding, not more."""
    import train

    from utils import dist

    ctx = dist.init()
    try:
        got = {}
        for dtype in ("auto", "mixed"):
            cfg = load_or_raise(train.TrainConfig, [f"model={tiny}", "data.sources=[{env: sorting}]", f"dtype={dtype}"])
            torch.manual_seed(0)
            model = train.wrap(train.build_model(cfg, ctx, tiny)[0], "none", None, cfg, ctx)
            ids = torch.randint(0, 500, (2, 12))
            one = torch.ones_like(ids)
            lp, _ = model(ids, one, one.cumsum(1) - 1, ids[:, -4:])
            lp.sum().backward()
            assert {p.dtype for p in model.parameters()} == {p.grad.dtype for p in model.parameters()} == {torch.float32}
            got[dtype] = lp.detach()
    finally:
        dist.close()
    gap = (got["auto"] - got["mixed"]).abs().max().item()
    assert 0 < gap < 0.1, gap
