"""A rating pool's standings (ratings/pool.py): the tournament table's fit and counts over all the pool's games,
the same whatever the order of the games or the solver's start."""

from __future__ import annotations

import random

import pytest

from ratings.pool import DECIMALS, PoolRow, standings
from ratings.summary import summarize
from tests.ratings.test_history import random_games


@pytest.mark.parametrize("seed", range(5))
def test_shuffled_games_give_the_same_table(seed: int) -> None:
    games = random_games(seed, 400, players=8)
    table = standings(games)
    for shuffle_seed in range(4):
        shuffled = list(games)
        random.Random(shuffle_seed).shuffle(shuffled)
        reseated = [(list(reversed(bots)), list(reversed(ranks))) for bots, ranks in shuffled]
        assert standings(shuffled) == table
        assert standings(reseated) == table


def test_a_warm_start_gives_the_same_table() -> None:
    games = random_games(7, 600, players=8)
    earlier = {row.player: row.rating for row in standings(games[:450])}
    assert standings(games, start=earlier) == standings(games)
    assert standings(games, start={1: 2500.0, 99: 900.0}) == standings(games)


def test_the_columns_are_the_tournament_table_s() -> None:
    games = random_games(3, 200)
    summary = {row.player: row for row in summarize(games)}
    rows = standings(games)
    assert [row.player for row in rows] == sorted(summary, key=lambda bot: (-summary[bot].elo, bot))
    for row in rows:
        line = summary[row.player]
        assert (row.games, row.wins, row.shared_wins, row.mean_rank) == (
            line.games,
            line.wins,
            line.shared_wins,
            line.mean_rank,
        )
        assert row.rating == round(line.elo + 1500.0, DECIMALS)
        assert (row.low, row.high) == (round(line.low + 1500, DECIMALS), round(line.high + 1500, DECIMALS))
        assert row.low < row.rating < row.high
    assert sum(row.rating for row in rows) / len(rows) == pytest.approx(1500.0, abs=1e-3)


def test_wins_are_games_won_not_opponents_beaten() -> None:
    # bot 1 wins both 4-seat games: 2 games won (it finished ahead of 6 opponents)
    games = [([1, 2, 3, 4], [1, 2, 3, 4]), ([4, 3, 2, 1], [4, 3, 2, 1]), ([2, 3], [1, 1])]
    rows = {row.player: row for row in standings(games)}
    assert (rows[1].games, rows[1].wins, rows[1].shared_wins, rows[1].mean_rank) == (2, 2, 0, 1.0)
    assert (rows[2].wins, rows[2].shared_wins, rows[2].games) == (0, 1, 3)


def test_rows_round_trip_through_json() -> None:
    rows = standings(random_games(4, 50))
    assert [PoolRow.from_json(row.to_json()) for row in rows] == rows
    fields = {"bot_id", "rating", "low", "high", "games", "wins", "shared_wins", "mean_rank", "group"}
    fields |= {"forfeits", "forfeit_rate"}
    assert set(rows[0].to_json()) == fields
    with pytest.raises(KeyError):
        PoolRow.from_json({"bot_id": 1, "rating": 1500.0, "games": 3, "wins": 1, "draws": 0, "losses": 2})


def test_no_games_no_rows() -> None:
    assert standings([]) == []
