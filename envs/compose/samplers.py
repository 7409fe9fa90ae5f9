"""Input samplers, one per type: small values, so that a 5-step chain stays doable by hand."""
from __future__ import annotations

import random

from envs.compose.types import GRID, INT, LIST_INT, LIST_STR, PAIR, STR

WORDS = ("apple", "river", "stone", "cloud", "tiger", "lemon", "piano", "ocean", "maple", "robot",
         "candle", "forest", "garden", "silver", "rocket", "bridge", "castle", "dragon", "winter",
         "yellow", "cat", "dog", "sun", "map", "key", "owl", "bee", "ink", "jam", "fox", "zebra",
         "quilt", "night", "eagle", "honey", "kite", "moon", "star", "leaf", "wolf", "desk", "lamp",
         "book", "fish", "goat", "hill", "iron", "jade", "king", "nest", "oak", "pear", "ring")
VOWELS, CONSONANTS = "aeiou", "bcdfghjklmnpqrstvwxyz"


def sample_int(rng: random.Random) -> int:
    return rng.randint(2, 250)


def sample_str(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(WORDS) + rng.choice(WORDS)[:rng.randint(0, 3)]
    # pronounceable-ish: a vowel about every third letter, so vowel bricks have work to do
    return "".join(rng.choice(VOWELS if rng.random() < 0.35 else CONSONANTS) for _ in range(rng.randint(5, 9)))


def sample_list_int(rng: random.Random) -> list[int]:
    return [rng.randint(0, 20) for _ in range(rng.randint(4, 8))]


def sample_list_str(rng: random.Random) -> list[str]:
    return [rng.choice(WORDS) for _ in range(rng.randint(3, 6))]


def sample_grid(rng: random.Random) -> list[list[int]]:
    h, w = rng.randint(2, 4), rng.randint(2, 4)
    return [[rng.randint(0, 9) for _ in range(w)] for _ in range(h)]


def sample_pair(rng: random.Random) -> tuple[int, int]:
    return rng.randint(2, 60), rng.randint(2, 60)


SAMPLERS = {INT: sample_int, STR: sample_str, LIST_INT: sample_list_int, LIST_STR: sample_list_str,
            GRID: sample_grid, PAIR: sample_pair}
