"""The chart's series (ratings/history.py): each bot's incremental Elo (ratings.elo.EloTable) as the games came
in, from 1500 before its first game to its last rating, with a bounded number of points."""

from __future__ import annotations

import random

import pytest

from ratings.elo import INITIAL_RATING, EloTable
from ratings.history import series


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
def test_the_lines_end_at_the_incremental_elo(seed: int) -> None:
    games = random_games(seed, 300)
    table: EloTable[int] = EloTable()
    for bots, ranks in games:
        table.record(bots, ranks)
    lines = series(games)
    assert set(lines) == {row.player for row in table.table()}
    for row in table.table():
        assert lines[row.player][-1] == (300, pytest.approx(row.rating, abs=1e-9))


def test_the_lines_start_at_1500_with_bounded_points() -> None:
    games = random_games(2, 5000)
    lines = series(games, max_points=100)
    first_game = {bot: next(i for i, (bots, _) in enumerate(games) if bot in bots) for bot in lines}
    for bot, line in lines.items():
        assert line[0] == (first_game[bot], INITIAL_RATING)
        assert line[-1][0] == 5000
        assert len(line) <= 102
        assert [x for x, _ in line] == sorted(x for x, _ in line)


def test_no_games_no_lines() -> None:
    assert series([]) == {}
