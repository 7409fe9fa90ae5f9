"""RACES: typed bricks composed into chains, turned into problems by operators."""
COMPOSE: dict[str, str] = {
    "races": "envs.compose.races:RacesEnv",
}
