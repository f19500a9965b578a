"""A pool's groups and forfeits (ratings/pool.py): bots that never met, directly or through others, are fitted
group by group, each with its own anchor (mean 1500), the largest group first; each row carries its forfeit rate;
``rate_forfeits=False`` leaves the games with a forfeit out of the fit, but not out of the forfeit rate."""

from __future__ import annotations

import math
import random

import pytest

from ratings.pool import groups, standings

Game = tuple[list[int], list[int]]


def simulated(seed: int, strengths: dict[int, float], count: int, seats: int = 2) -> list[Game]:
    """``count`` games among these bots (Elo strengths), ranks drawn by the Plackett-Luce model of the strengths."""
    generator = random.Random(seed)
    bots = sorted(strengths)
    games = []
    for _ in range(count):
        table = generator.sample(bots, seats)
        left, order = list(table), []
        while left:
            weights = [math.pow(10.0, strengths[bot] / 400.0) for bot in left]
            chosen = generator.choices(left, weights)[0]
            order.append(chosen)
            left.remove(chosen)
        games.append((table, [order.index(bot) for bot in table]))
    return games


LOW = {1: 0.0, 2: 50.0, 3: 100.0, 4: 150.0, 5: 200.0}
HIGH = {11: 600.0, 12: 650.0, 13: 700.0}
"""Two groups 600 Elo apart that never met: five bots and three."""


def test_groups_that_never_met_are_fitted_apart_each_with_its_own_anchor() -> None:
    low, high = simulated(1, LOW, 400), simulated(2, HIGH, 300)
    mixed = [game for pair in zip(high, low, strict=False) for game in pair] + low[len(high) :]
    rows = standings(mixed)
    assert [row.group for row in rows] == [1] * 5 + [2] * 3  # the larger group first, although it came second
    assert {row.player for row in rows if row.group == 1} == set(LOW)
    assert {row.player for row in rows if row.group == 2} == set(HIGH)
    for number in (1, 2):
        ratings = [row.rating for row in rows if row.group == number]
        assert sum(ratings) / len(ratings) == pytest.approx(1500.0, abs=1e-2)  # each group's own anchor
        assert ratings == sorted(ratings, reverse=True)  # best first within a group
    # each group's rows are the table of its own games alone
    alone = {row.player: row for row in standings(low)}
    for row in rows[:5]:
        assert (row.rating, row.low, row.high, row.games) == (
            alone[row.player].rating,
            alone[row.player].low,
            alone[row.player].high,
            alone[row.player].games,
        )
    assert groups([row.to_json() for row in rows]) == 2


def test_equal_groups_are_ordered_by_their_smallest_bot_whatever_the_order_of_the_games() -> None:
    first, second = simulated(3, {7: 0.0, 8: 0.0}, 20), simulated(4, {3: 0.0, 4: 0.0}, 20)
    for games in (first + second, second + first):
        rows = standings(games)
        assert [(row.group, row.player in (3, 4)) for row in rows] == [
            (1, True),
            (1, True),
            (2, False),
            (2, False),
        ]


def test_a_connected_pool_is_one_group_and_one_fit() -> None:
    games = simulated(5, {**LOW, **HIGH}, 600, seats=3)
    rows = standings(games)
    assert {row.group for row in rows} == {1}
    assert groups([row.to_json() for row in rows]) == 1
    assert sum(row.rating for row in rows) / len(rows) == pytest.approx(1500.0, abs=1e-2)
    assert groups([]) == 0


FORFEITS = [
    ([1, 2], [0, 1], set()),
    ([1, 2], [1, 0], set()),
    ([1, 3], [1, 0], {0}),  # 1 forfeited against 3
    ([2, 3], [0, 1], set()),
    ([2, 3], [1, 0], set()),
    ([1, 3], [0, 1], set()),
    ([1, 2], [1, 0], {0}),  # 1 forfeited against 2
    ([3, 2], [0, 1], set()),
]


def test_forfeits_are_rated_as_losses_by_default_and_their_rate_shown() -> None:
    games = [(players, ranks) for players, ranks, _ in FORFEITS]
    forfeited = [seats for _, _, seats in FORFEITS]
    rows = {row.player: row for row in standings(games, forfeited=forfeited)}
    plain = {row.player: row for row in standings(games)}
    assert {bot: row.rating for bot, row in rows.items()} == {bot: row.rating for bot, row in plain.items()}
    assert (rows[1].forfeits, rows[1].games, rows[1].forfeit_rate) == (2, 5, 0.4)
    assert (rows[2].forfeits, rows[2].forfeit_rate, rows[3].forfeit_rate) == (0, 0.0, 0.0)
    assert (plain[1].forfeits, plain[1].forfeit_rate) == (0, 0.0)  # none said: none counted


def test_unrated_forfeits_leave_the_fit_but_not_the_forfeit_rate() -> None:
    games = [(players, ranks) for players, ranks, _ in FORFEITS]
    forfeited = [seats for _, _, seats in FORFEITS]
    rows = {row.player: row for row in standings(games, forfeited=forfeited, rate_forfeits=False)}
    clean = [(players, ranks) for players, ranks, seats in FORFEITS if not seats]
    fitted = {row.player: row for row in standings(clean)}
    assert {bot: (row.rating, row.low, row.high, row.games, row.wins) for bot, row in rows.items()} == {
        bot: (row.rating, row.low, row.high, row.games, row.wins) for bot, row in fitted.items()
    }
    assert rows[1].rating > standings(games)[-1].rating  # its forfeits no longer pull it down
    assert (rows[1].forfeits, rows[1].games, rows[1].forfeit_rate) == (2, 3, 0.4)  # 2 of the 5 games it played


def test_unrated_forfeits_may_split_a_pool_and_leave_a_bot_without_a_row() -> None:
    games = [([1, 2], [0, 1]), ([3, 4], [0, 1]), ([2, 3], [1, 0]), ([5, 1], [1, 0])]
    forfeited: list[set[int]] = [set(), set(), {0}, {0}]
    assert {row.group for row in standings(games, forfeited=forfeited)} == {1}
    rows = standings(games, forfeited=forfeited, rate_forfeits=False)
    assert sorted((row.group, row.player) for row in rows) == [(1, 1), (1, 2), (2, 3), (2, 4)]  # 5 only forfeited
    assert [row.rating for row in rows if row.group == 1] == [row.rating for row in rows if row.group == 2]


def test_bad_forfeits_are_refused() -> None:
    with pytest.raises(ValueError):
        standings([([1, 2], [0, 1])], forfeited=[{2}])
    with pytest.raises(ValueError):
        standings([([1, 2], [0, 1])], forfeited=[])
