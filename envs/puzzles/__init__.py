"""Simon Tatham's puzzles, as in the puzzle-to-math transfer paper."""
PUZZLES = {
    "bridges": "envs.puzzles.bridges:Bridges",
    "galaxies": "envs.puzzles.galaxies:Galaxies",
    "pattern": "envs.puzzles.pattern:Pattern",
    "undead": "envs.puzzles.undead:Undead",
}
