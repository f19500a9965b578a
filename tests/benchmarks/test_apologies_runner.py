"""Smoke test of the apologies half of the engine benchmark (skipped unless the ``bench`` extra is installed)."""

import pytest

pytest.importorskip("apologies")

from benchmarks.apologies_runner import play_apologies_games, run_apologies_games


def test_two_player_games_complete_with_decisions() -> None:
    games, decisions, seconds = play_apologies_games(players=2, games=2, seed=1)
    assert games == 2
    assert decisions > 0
    assert seconds > 0


def test_same_seed_plays_same_games() -> None:
    first = run_apologies_games(players=2, games=2, seed=7)
    second = run_apologies_games(players=2, games=2, seed=7)
    assert first.capped == second.capped == 0
    assert first.decisions == second.decisions
