"""The balanced round-robin schedule: counts, seat balance, order, seeds and refusals (tournament/plans/schedule.py)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from tournament.plans.schedule import MAX_GAMES, Pairing, game_seed, games_count, schedule

BOTS = [11, 12, 13, 14, 15]


@pytest.mark.parametrize(
    ("n_bots", "table_size", "rounds", "expected"),
    [
        (2, 2, 1, 2),  # one pair, both seatings
        (5, 3, 2, 10 * 3 * 2),  # C(5,3) = 10 combinations, 3 rotations, 2 rounds
        (4, 4, 3, 1 * 4 * 3),
        (10, 4, 1, 210 * 4),
    ],
)
def test_games_count(n_bots: int, table_size: int, rounds: int, expected: int) -> None:
    assert games_count(n_bots, table_size, rounds) == expected
    assert len(schedule(list(range(n_bots)), table_size, rounds, seed=1)) == expected


@pytest.mark.parametrize("table_size", [2, 3, 4])
def test_every_bot_sits_in_every_seat_equally_often(table_size: int) -> None:
    games = schedule(BOTS, table_size, rounds=2, seed=7)
    per_round = math.comb(len(BOTS) - 1, table_size - 1)
    seat_counts = Counter((bot, seat) for game in games for seat, bot in enumerate(game.seats))
    assert seat_counts == {(bot, seat): 2 * per_round for bot in BOTS for seat in range(table_size)}


def test_every_round_plays_every_seating_once() -> None:
    games = schedule(BOTS, 3, rounds=3, seed=7)
    by_round = [sorted(game.seats for game in games if game.round == r) for r in (1, 2, 3)]
    assert by_round[0] == by_round[1] == by_round[2]
    assert len(set(by_round[0])) == len(by_round[0]) == 30
    assert {frozenset(seats) for seats in by_round[0]} == {
        frozenset((a, b, c)) for a in BOTS for b in BOTS for c in BOTS if a < b < c
    }


def test_rounds_are_in_order_and_indexes_count_the_play_order() -> None:
    games = schedule(BOTS, 2, rounds=4, seed=3)
    assert [game.index for game in games] == list(range(len(games)))
    assert [game.round for game in games] == sorted(game.round for game in games)
    assert games[0].round == 1 and games[-1].round == 4


def test_same_seed_same_schedule_and_bot_order_does_not_matter() -> None:
    assert schedule(BOTS, 3, 2, seed=42) == schedule(list(reversed(BOTS)), 3, 2, seed=42)


def test_another_seed_another_order_and_other_game_seeds() -> None:
    first, second = schedule(BOTS, 3, 1, seed=1), schedule(BOTS, 3, 1, seed=2)
    assert [g.seats for g in first] != [g.seats for g in second]
    assert sorted(g.seats for g in first) == sorted(g.seats for g in second)
    assert not {g.seed for g in first} & {g.seed for g in second}


def test_rounds_are_shuffled_differently() -> None:
    games = schedule(BOTS, 2, rounds=2, seed=5)
    assert [g.seats for g in games if g.round == 1] != [g.seats for g in games if g.round == 2]


def test_game_seeds_are_unique_in_range_and_independent_of_the_order() -> None:
    games = schedule(list(range(8)), 4, rounds=2, seed=9)
    seeds = [game.seed for game in games]
    assert len(set(seeds)) == len(seeds)
    assert all(0 <= s < 2**62 for s in seeds)
    # A seed is a function of the tournament seed, round and seating only, not of where the shuffle put the game.
    assert all(g.seed == game_seed(9, g.round, g.seats) for g in games)


def test_pairing_is_frozen() -> None:
    game = schedule(BOTS, 2, 1, seed=0)[0]
    assert isinstance(game, Pairing)
    with pytest.raises(AttributeError):
        game.seed = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("bots", "table_size", "rounds", "message"),
    [
        ([1, 2], 3, 1, "2 bots cannot fill a table of 3 seats"),
        ([1, 2, 2, 3], 2, 1, r"listed more than once: \[2\]"),
        ([1, 2, 3, 4, 5], 1, 1, "table size must be 2 to 4 seats, not 1"),
        ([1, 2, 3, 4, 5], 5, 1, "table size must be 2 to 4 seats, not 5"),
        ([1, 2, 3], 2, 0, "at least 1 round, not 0"),
        (list(range(40)), 4, 1, f"make 365560 games, more than the limit of {MAX_GAMES}"),
    ],
)
def test_refusals(bots: list[int], table_size: int, rounds: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        schedule(bots, table_size, rounds, seed=0)
