"""The chart's arithmetic (ratings/history.py): each player's incremental Elo (ratings.elo.EloTable) after each of
its games, the levels that let a reader take every 2**level-th point, and a line from 1500 to the current rating."""

from __future__ import annotations

import random

import pytest

from ratings.elo import INITIAL_RATING, EloTable, game_deltas
from ratings.history import MAX_LEVEL, level, line, line_level, replay


def random_games(seed: int, count: int, players: int = 6) -> list[tuple[list[int], list[int]]]:
    generator = random.Random(seed)
    games = []
    for _ in range(count):
        seats = generator.randint(2, min(4, players))
        bots = generator.sample(range(1, players + 1), seats)
        ranks = [generator.randint(1, seats) for _ in range(seats)]  # ties included
        games.append((bots, ranks))
    return games


@pytest.mark.parametrize("seed", range(3))
def test_the_replay_follows_the_incremental_elo_game_by_game(seed: int) -> None:
    games = random_games(seed, 300)
    table: EloTable[int] = EloTable()
    for (bots, ranks), points in zip(games, replay(games), strict=True):
        before = [table.rating(bot) for bot in bots]
        table.record(bots, ranks)
        deltas = game_deltas(before, ranks)
        assert [player for player, _, _ in points] == bots
        assert [number for _, number, _ in points] == [table.games(bot) for bot in bots]
        assert [rating for _, _, rating in points] == [b + d for b, d in zip(before, deltas, strict=True)]


def test_levels_count_the_factors_of_two() -> None:
    assert [level(number) for number in range(1, 17)] == [0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0, 4]
    assert level(2**40) == MAX_LEVEL
    with pytest.raises(ValueError):
        level(0)


@pytest.mark.parametrize("games", [0, 1, 199, 200, 201, 4000, 100_000])
def test_a_line_level_keeps_at_most_max_points(games: int) -> None:
    found = line_level(games, max_points=200)
    kept = sum(1 for number in range(1, games + 1) if level(number) >= found)
    assert kept <= 200
    assert found == 0 or sum(1 for number in range(1, games + 1) if level(number) >= found - 1) > 200


def test_a_line_runs_from_1500_to_the_current_rating() -> None:
    assert line(4, [(5, 1510.0), (9, 1490.0)], 1490.0, 12) == [
        (4, INITIAL_RATING),
        (5, 1510.0),
        (9, 1490.0),
        (12, 1490.0),
    ]
    assert line(4, [(5, 1510.0), (9, 1490.0)], 1495.0, 9) == [
        (4, INITIAL_RATING),
        (5, 1510.0),
        (9, 1490.0),
        (9, 1495.0),
    ]
    assert line(0, [], 1500.0, 0) == [(0, INITIAL_RATING)]
