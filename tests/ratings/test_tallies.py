"""A pool's tallies (ratings/tallies.py) and the fit of counted games (ratings.fit's and ratings.summary's
``counts``): a game counted n times is fitted exactly as the game listed n times, so a pool fits its distinct
configurations and gets the table of all its results."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ratings import pool
from ratings.fit import fit
from ratings.summary import summarize
from ratings.tallies import config_key, parse, parse_game, parse_games


def random_games(seed: int, count: int, players: int = 5) -> list[tuple[list[int], list[int]]]:
    generator = random.Random(seed)
    games = []
    for _ in range(count):
        seats = generator.choice([2, 4])
        bots = generator.sample(range(1, players + 1), seats)
        ranks = [generator.randint(0, seats - 1) for _ in range(seats)]
        games.append((bots, ranks))
    return games


def test_a_key_names_players_and_ranks_whatever_the_seats() -> None:
    assert config_key([7, 3, 12], [1, 0, 1]) == "3:0,7:1,12:1"
    assert config_key([12, 7, 3], [1, 1, 0]) == "3:0,7:1,12:1"
    assert parse("3:0,7:1,12:1") == ([3, 7, 12], [0, 1, 1])
    assert config_key([12, 7, 3], [1, 1, 0], {0}) == "3:0,7:1,12:1:f"
    assert parse_game("3:0,7:1,12:1:f") == ([3, 7, 12], [0, 1, 1], {2})
    assert parse("3:0,7:1,12:1:f") == ([3, 7, 12], [0, 1, 1])
    with pytest.raises(ValueError):
        config_key([1, 2], [0, 1], {2})
    for bad in ("", "3:0", "3:0,3:1", "x:1,2:0", "3:0,7:1:x", "3:0,7:1:f:f"):
        with pytest.raises(ValueError):
            parse(bad)


@pytest.mark.parametrize("seed", range(3))
def test_tallied_games_give_the_table_of_every_game(seed: int) -> None:
    games = random_games(seed, 600)
    tally = Counter(config_key(players, ranks) for players, ranks in games)
    distinct = [parse(key) for key in tally]
    assert len(distinct) < len(games)
    assert pool.standings(distinct, counts=list(tally.values())) == pool.standings(games)
    by_game = {row.player: row for row in summarize(games)}
    for row in summarize(distinct, counts=list(tally.values())):
        expected = by_game[row.player]
        assert (row.games, row.wins, row.shared_wins, row.mean_rank) == (
            expected.games,
            expected.wins,
            expected.shared_wins,
            expected.mean_rank,
        )
        assert row.low == pytest.approx(expected.low, abs=1e-6) and row.high == pytest.approx(
            expected.high, abs=1e-6
        )


def test_counts_must_match_the_games() -> None:
    games = random_games(0, 3)
    with pytest.raises(ValueError):
        fit(games, counts=[1, 2])
    with pytest.raises(ValueError):
        fit(games, counts=[1, 0, 1])


def test_parse_games_reads_every_key_as_parse_game_does() -> None:
    rng = random.Random(5)
    keys = []
    for _ in range(500):
        seats = rng.choice([2, 3, 4])
        players = rng.sample(range(1, 60), seats)
        ranks = [rng.randint(1, seats) for _ in range(seats)]
        forfeited = {seat for seat in range(seats) if rng.random() < 0.1}
        keys.append(config_key(players, ranks, forfeited))
    for chosen in (keys, [key for key in keys if key.count(",") == 3]):  # mixed table sizes, and one
        games, forfeited = parse_games(chosen)
        assert games == [parse_game(key)[:2] for key in chosen]
        assert forfeited == [parse_game(key)[2] for key in chosen]
    assert parse_games([]) == ([], [])


@pytest.mark.parametrize(
    "bad",
    ["1:1,x", "1::1", "1:1,", "1,1", "1:1:1", ":", "1:2,3", "", "-1:1,2:2", "1:1,-2:2", "1:1:g,2:2", "1:1,,2:2"],
)
def test_parse_games_names_a_key_that_is_not_one(bad: str) -> None:
    with pytest.raises(ValueError, match="not a game's key"):
        parse_games(["1:1,2:2", "3:2,4:1:f", bad, "5:1,6:2"])
