"""Game seeds keyed by a tournament's secret salt: a guessable tournament seed (2024) and a finished game's
published seed do not give another game's seed away; the published seed still replays its game exactly."""

from __future__ import annotations

import secrets

from tournament.plans.schedule import game_seed, schedule

BOTS = [11, 12, 13]


def test_a_running_games_seed_cannot_be_derived_from_a_finished_one_and_the_tournament_seed() -> None:
    salt = secrets.token_hex(16)
    games = schedule(BOTS, 2, rounds=2, seed=2024, salt=salt)
    finished, running = games[0], games[1]
    # the attacker's search: every tournament seed up to 10,000 with the public recipe, keyed by nothing
    guesses = [seed for seed in range(10_000) if game_seed(seed, finished.round, finished.seats) == finished.seed]
    assert guesses == []
    assert running.seed != game_seed(2024, running.round, running.seats)  # the seed alone predicts nothing
    # with the salt (shown once the tournament is done) each seed is checked
    assert all(game.seed == game_seed(2024, game.round, game.seats, salt) for game in games)
    assert [game.seats for game in games] == [game.seats for game in schedule(BOTS, 2, rounds=2, seed=2024)]
