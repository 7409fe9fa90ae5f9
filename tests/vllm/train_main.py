"""train.py with a test env registered, for subprocess runs (an engine per process). The env
`parity` rewards responses of even length: the random tiny model gets it about half the time, so
groups differ and rows are trained. `--no-sync` turns the engine's weight sync into a no-op (the
test that the logp-gap check can fail)."""
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


if __name__ == "__main__":
    import envs
    import train
    from utils import engine

    envs.REGISTRY["parity"] = "__main__:ParityEnv"
    argv = sys.argv[1:]
    if "--no-sync" in argv:
        argv.remove("--no-sync")
        engine.VLLMEngine.sync_weights = lambda self, named_tensors: None
    train.main(argv)
