"""The standings page's ratings (ratings/history.py) equal the workers' incremental Elo
(ratings.elo.EloTable), its wins and mean ranks equal ratings.summary's, and its history and intervals are
what the chart and the table need."""

from __future__ import annotations

import math
import random

import pytest

from ratings.elo import EloTable
from ratings.history import INITIAL_RATING, rate
from ratings.summary import summarize


def random_games(seed: int, count: int, players: int = 6) -> list[tuple[list[int], list[int]]]:
    generator = random.Random(seed)
    games = []
    for _ in range(count):
        seats = generator.randint(2, min(4, players))
        bots = generator.sample(range(1, players + 1), seats)
        ranks = [generator.randint(1, seats) for _ in range(seats)]  # ties included
        games.append((bots, ranks))
    return games


@pytest.mark.parametrize("seed", range(5))
def test_ratings_equal_the_workers_incremental_elo(seed: int) -> None:
    games = random_games(seed, 300)
    table: EloTable[int] = EloTable()
    for bots, ranks in games:
        table.record(bots, ranks)
    history = rate(games)
    expected = {row.player: row for row in table.table()}
    assert [row.player for row in history.rows] == [row.player for row in table.table()]
    for row in history.rows:
        assert row.rating == pytest.approx(expected[row.player].rating, abs=1e-9)
        assert row.games == expected[row.player].games


@pytest.mark.parametrize("seed", range(3))
def test_wins_and_mean_ranks_equal_the_tournament_summary(seed: int) -> None:
    games = random_games(seed, 120)
    summary = {row.player: row for row in summarize(games, intervals=False)}
    for row in rate(games).rows:
        assert row.wins == summary[row.player].wins
        assert row.mean_rank == pytest.approx(summary[row.player].mean_rank)


def test_the_interval_holds_the_rating_and_narrows_with_more_games() -> None:
    few = {row.player: row for row in rate(random_games(1, 40, players=3)).rows}
    many = {row.player: row for row in rate(random_games(1, 4000, players=3)).rows}
    for player, row in many.items():
        assert row.low < row.rating < row.high
        assert math.isfinite(row.low) and math.isfinite(row.high)
        assert row.high - row.low < few[player].high - few[player].low


def test_one_two_seat_game_has_the_interval_of_one_comparison() -> None:
    (winner, loser) = rate([([1, 2], [1, 2])]).rows
    assert winner.player == 1 and winner.rating == pytest.approx(1516.0)
    # information = p (1 - p) at the final ratings, one comparison; half width = 1.96 / (ln 10 / 400 * sqrt(info))
    p = 1 / (1 + 10 ** ((loser.rating - winner.rating) / 400))
    half = 1.959963984540054 / (math.log(10) / 400 * math.sqrt(p * (1 - p)))
    assert winner.high - winner.rating == pytest.approx(half)


def test_the_history_starts_at_1500_and_ends_at_the_rating_with_bounded_points() -> None:
    games = random_games(2, 5000)
    history = rate(games, max_points=100)
    assert history.games == 5000
    first_game = {bot: next(i for i, (bots, _) in enumerate(games) if bot in bots) for bot in history.series}
    for row in history.rows:
        series = history.series[row.player]
        assert series[0] == (first_game[row.player], INITIAL_RATING)
        assert series[-1] == (5000, pytest.approx(row.rating))
        assert len(series) <= 102
        assert [x for x, _ in series] == sorted(x for x, _ in series)


def test_no_games_no_rows() -> None:
    history = rate([])
    assert history.games == 0 and history.rows == [] and history.series == {}
