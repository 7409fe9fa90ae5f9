"""What the four Tatham puzzles share: the record, the prompt, answer parsing and the reward.

A puzzle module subclasses PuzzleEnv and supplies the puzzle-specific parts (game-ID codec,
solver, generator, rule checker, text rendering). Grids are lists of H strings of W characters
in the canonical alphabet of ../shared/fixtures/tatham/README.md.

Reward (puzzle-to-math paper, Appendix J):
    value = w_exact * exact + w_completion * completion + 0.1 * format
    exact       1 if the board satisfies every rule (so any valid board counts), else 0
    completion  (weighted share of cells equal to the solution) ** 3; cells that differ between the
                initial board and the solution weigh 2, the others 1; a wrong shape gives 0
    format      envs.base.format_score, in [0, 1]
"""
from __future__ import annotations

import random
from typing import Any, ClassVar

from envs.base import Env, Reward, extract_answer, format_score

# The paper does not publish its reward weights; these are our choice (see configs' help).
DEFAULT_W_EXACT = 1.0
DEFAULT_W_COMPLETION = 0.5
W_FORMAT = 0.1


class PuzzleEnv(Env):
    title: ClassVar[str] = ""
    levels: ClassVar[tuple[str, ...]] = ()  # Tatham's difficulty names, easiest first; () if none
    # difficulty d -> (width, height, level); d past the end clamps to the last rung
    ladder: ClassVar[tuple[tuple[int, int, str | None], ...]] = ()
    alphabet: ClassVar[str] = ""
    rules: ClassVar[str] = ""
    answer_format: ClassVar[str] = ""

    def __init__(self, width: int | None = None, height: int | None = None, level: str | None = None,
                 w_exact: float = DEFAULT_W_EXACT, w_completion: float = DEFAULT_W_COMPLETION):
        if (width is None) != (height is None):
            raise ValueError(f"{self.name}: give both width and height, or neither")
        if level is not None and level not in self.levels:
            raise ValueError(f"{self.name}: level {level!r} is not one of {list(self.levels)}")
        self.width, self.height, self.level = width, height, level
        self.w_exact, self.w_completion = float(w_exact), float(w_completion)
        self.reward_range = (0.0, self.w_exact + self.w_completion + W_FORMAT)

    # ------------------------------------------------------------ puzzle-specific (override)

    def decode(self, game_id: str) -> Any:
        """Parse a game ID; raise ValueError saying what is wrong. The result has .width, .height."""
        raise NotImplementedError

    def encode(self, puzzle: Any) -> str:
        raise NotImplementedError

    def solve(self, puzzle: Any, max_solutions: int = 2) -> list[list[str]]:
        """Up to max_solutions distinct solution grids."""
        raise NotImplementedError

    def new_puzzle(self, rng: random.Random, width: int, height: int, level: str | None) -> tuple[Any, list[str]]:
        """A uniquely solvable puzzle at this size and level, and its solution; deterministic in rng."""
        raise NotImplementedError

    def is_solution(self, puzzle: Any, grid: list[str]) -> bool:
        """Rule check of a board of the right shape (characters may be anything)."""
        raise NotImplementedError

    def initial_board(self, puzzle: Any) -> list[str]:
        """The board before any move, in the answer alphabet (givens shown, unknown cells '.')."""
        raise NotImplementedError

    def describe(self, puzzle: Any) -> str:
        """The puzzle as a text grid AND explicit coordinate lists of its givens."""
        raise NotImplementedError

    def explain(self, puzzle: Any, solution: list[str]) -> str:
        """A short solver-derived justification for the gold response."""
        raise NotImplementedError

    def cell_matches(self, puzzle: Any, grid: list[str], solution: list[str]) -> list[list[bool]]:
        """Which cells of `grid` agree with the solution (Galaxies overrides: labels are free)."""
        return [[a == b for a, b in zip(gr, sr)] for gr, sr in zip(grid, solution)]

    def grade(self, puzzle: Any) -> str | None:
        """The easiest level whose techniques solve the puzzle, if the module can tell; else None."""
        return None

    def tatham_refusal(self, puzzle: Any) -> str | None:
        """Why Tatham's own apps would refuse this puzzle's game ID although it is valid here
        (his validate_params limits, e.g. Undead's "Grid is too big"), or None if they open it.
        Only Undead overrides it: the validate_params of Bridges, Pattern and Galaxies ask nothing
        that decode() does not (sides >= 3, resp. >= 2 cells; 1-4 bridges; no upper size)."""
        return None

    # ------------------------------------------------------------ shared

    def params_for(self, difficulty: int) -> tuple[int, int, str | None]:
        if self.width is not None:  # explicit size; without a level, the easiest one
            return self.width, self.height, self.level or (self.levels[0] if self.levels else None)
        w, h, level = self.ladder[max(0, min(int(difficulty), len(self.ladder) - 1))]
        return w, h, (self.level or level)

    def generate(self, seed: int, difficulty: int = 0) -> dict:
        w, h, level = self.params_for(difficulty)
        puzzle, solution = self.new_puzzle(random.Random(seed), w, h, level)
        return self._record(puzzle, solution, difficulty, level, seed)

    def from_game_id(self, game_id: str) -> dict:
        """The record of any valid game ID; ValueError saying what is wrong otherwise. Its
        difficulty is the ladder rung of the puzzle's (width, height, graded level), or -1 when
        no rung matches (a size or level the ladder does not hold). An ID valid here that
        Tatham's apps refuse gets meta.tatham_refuses, saying why (any record can: see _record)."""
        puzzle = self.decode(game_id)
        solutions = self.solve(puzzle, max_solutions=2)
        if not solutions:
            raise ValueError(f"{self.name} game ID {game_id!r} has no solution")
        if len(solutions) > 1:
            raise ValueError(f"{self.name} game ID {game_id!r} has more than one solution")
        level = self.grade(puzzle)
        rung = (puzzle.width, puzzle.height, level)
        difficulty = self.ladder.index(rung) if rung in self.ladder else -1
        return self._record(puzzle, solutions[0], difficulty, level, None)

    def _record(self, puzzle: Any, solution: list[str], difficulty: int, level: str | None, seed: int | None) -> dict:
        game_id = self.encode(puzzle)
        size = f"{puzzle.width}x{puzzle.height}" + (f"-{level}" if level else "")
        refusal = self.tatham_refusal(puzzle)
        gold = f"<reasoning>\n{self.explain(puzzle, solution)}\n</reasoning>\n<answer>\n" + "\n".join(solution) + "\n</answer>"
        return {
            "id": f"{self.name}-{size}-{seed if seed is not None else game_id}",
            "env": self.name,
            "difficulty": int(difficulty),
            "prompt": self.prompt(puzzle),
            "answer": gold,
            "meta": {"game_id": game_id, "solution": list(solution), "width": puzzle.width,
                     "height": puzzle.height, "level": level, "seed": seed,
                     # only when refused, so records Tatham opens keep their shape
                     **({"tatham_refuses": refusal} if refusal else {})},
        }

    def prompt(self, puzzle: Any) -> str:
        w, h = puzzle.width, puzzle.height
        described = self.describe(puzzle).strip("\n")  # keep a leading indent: grids may start with one
        return (
            f"Solve this {self.title} puzzle from Simon Tatham's Portable Puzzle Collection.\n\n"
            f"Rules:\n{self.rules.strip()}\n\n"
            f"The grid has {w} columns and {h} rows. Coordinates are (row, column), counted from 0 "
            f"at the top-left corner.\n\n{described}\n\n"
            f"Answer format:\n{self.answer_format.strip()}\n\n"
            f"Reason step by step inside <reasoning></reasoning>, then give the final board inside "
            f"<answer></answer> as exactly {h} lines of {w} characters, nothing else."
        )

    def puzzle_of(self, record: dict) -> Any:
        """Decode a record's game ID, raising ValueError naming the record if it is corrupt."""
        meta = record.get("meta")
        rid = record.get("id", "<no id>")
        if not isinstance(meta, dict) or not isinstance(meta.get("game_id"), str) or not isinstance(meta.get("solution"), list):
            raise ValueError(f"record {rid}: meta needs game_id (str) and solution (list of rows)")
        try:
            puzzle = self.decode(meta["game_id"])
        except ValueError as e:
            raise ValueError(f"record {rid}: bad game_id: {e}") from None
        sol = meta["solution"]
        if len(sol) != puzzle.height or any(not isinstance(r, str) or len(r) != puzzle.width for r in sol):
            raise ValueError(f"record {rid}: meta.solution is not {puzzle.height} rows of {puzzle.width} characters")
        return puzzle

    def score(self, record: dict, response: str) -> Reward:
        puzzle = self.puzzle_of(record)
        solution = record["meta"]["solution"]
        grid = parse_grid(extract_answer(response), puzzle.width, puzzle.height)
        exact = completion = 0.0
        if grid is not None:
            if all(c in self.alphabet for row in grid for c in row) and self.is_solution(puzzle, grid):
                exact = 1.0
            completion = completion_score(self.initial_board(puzzle), solution,
                                          self.cell_matches(puzzle, grid, solution))
        fmt = format_score(response)
        value = self.w_exact * exact + self.w_completion * completion + W_FORMAT * fmt
        return Reward(value=value, correct=exact == 1.0,
                      parts={"exact": exact, "completion": completion, "format": fmt})


def parse_grid(answer: str | None, width: int, height: int) -> list[str] | None:
    """H lines of W characters (surrounding whitespace and blank lines ignored), or None."""
    if answer is None or len(answer) > 64 * (width + 2) * (height + 2):
        return None
    rows = [line.strip() for line in answer.splitlines() if line.strip()]
    if len(rows) != height or any(len(r) != width for r in rows):
        return None
    return rows


def completion_score(initial: list[str], solution: list[str], matches: list[list[bool]]) -> float:
    """(weighted share of matching cells) ** 3; cells the solver had to change weigh 2, others 1."""
    total = got = 0
    for init_row, sol_row, match_row in zip(initial, solution, matches):
        for i, s, m in zip(init_row, sol_row, match_row):
            weight = 2 if i != s else 1
            total += weight
            got += weight * bool(m)
    return (got / total) ** 3 if total else 0.0
