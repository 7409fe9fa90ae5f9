"""RLVE-style procedurally generated environments with an integer difficulty (rewards in [-1, 1])."""
GYM: dict[str, str] = {}
