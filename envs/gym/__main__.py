"""The gym catalogue: `python -m envs.gym` prints every discovered env by source, as markdown."""
from __future__ import annotations

import envs
from envs.gym import GYM
from envs.gym.base import CATEGORIES

TITLES = {"competition": "programming-competition problems (counting, DP, number theory, games)",
          "math": "mathematical operations", "optimization": "optimisation, graded against the optimum",
          "algorithms": "classical algorithms", "logic": "logic puzzles",
          "np_complete": "NP-complete problems with planted solutions"}


def main() -> None:
    by_cat: dict[str, list[str]] = {c: [] for c in CATEGORIES}
    bricks = set()
    for name in GYM:
        cls = envs.env_class(name)
        by_cat[cls.category].append(name)
        if cls.brick_io is not None:
            bricks.add(name)
    print(f"{len(GYM)} envs; the {len(bricks)} marked * are also RACES bricks (brick_io).\n")
    print("| source | n | envs |")
    print("|---|---:|---|")
    for cat in CATEGORIES:
        names = ", ".join(n + ("*" if n in bricks else "") for n in sorted(by_cat[cat]))
        print(f"| {TITLES[cat]} | {len(by_cat[cat])} | {names} |")


if __name__ == "__main__":
    main()
