"""train.py or generate.py with a test env registered, for subprocess runs (an engine per process):
    python tests/vllm/entry.py train|generate [--no-sync] key=value ...
The env
`parity` rewards responses of even length: the random tiny model gets it about half the time, so
groups differ and rows are trained. `--no-sync` turns the engine's weight sync into a no-op (the
test that the logp-gap check can fail): the engine keeps its initial weights. It refuses sleep mode
(see no_sync)."""
import sys

from envs.base import Env, Reward


class ParityEnv(Env):
    name = "parity"
    reward_range = (0.0, 1.0)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        return {"id": f"parity-{seed}", "env": "parity", "difficulty": difficulty,
                "prompt": f"Write something of even length (request {seed % 1000}).", "answer": None, "meta": {}}

    def score(self, record: dict, response: str) -> Reward:
        ok = len(response) % 2 == 0
        return Reward(float(ok), ok, {})


def no_sync() -> None:
    """Make VLLMEngine.sync_weights a no-op, so the engine samples from its initial weights while the
    trainer moves on (the control of scripts/gpu_check.sh's sync item). Not with sleep mode: the sync
    is also what wakes a sleeping engine (train.py sleeps it after each step's rollouts), and at
    level 2 vLLM discards the weights, so waking without loading would sample from uninitialised
    memory, a different failure than stale weights (and a no-op that does not wake fails the next
    step with "engine is asleep"). An EngineError saying so instead, at the first sync."""
    from utils import engine

    def sync_weights(self, named_tensors) -> None:
        if self.sleep_mode:
            raise engine.EngineError("--no-sync needs rl.engine.enable_sleep_mode=false: at sleep level 2 the "
                                     "engine's weights are gone, and only a sync brings them back")

    engine.VLLMEngine.sync_weights = sync_weights


if __name__ == "__main__":
    import importlib

    import envs

    envs.REGISTRY["parity"] = "__main__:ParityEnv"
    script, argv = sys.argv[1], sys.argv[2:]
    if "--no-sync" in argv:
        argv.remove("--no-sync")
        no_sync()
    importlib.import_module(script).main(argv)
