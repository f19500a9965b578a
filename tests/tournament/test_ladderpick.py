"""A ladder's pure matchmaking (tournament/plans/ladderpick.py): who is seated, and where."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from ratings.wenglin import MU, SIGMA
from tournament.plans.ladderpick import Candidate, pair_key, pick_table, seat_order


def bot(
    bot_id: int, mu: float = MU, sigma: float = SIGMA, seats: tuple[int, ...] = (0, 0), waited: float = 0.0
) -> Candidate:
    return Candidate(bot_id=bot_id, mu=mu, sigma=sigma, games=sum(seats), seat_counts=seats, waited=waited)


@pytest.mark.parametrize("table_size", [2, 3, 4])
def test_the_table_holds_the_anchor_and_distinct_bots(table_size: int) -> None:
    rng = random.Random(table_size)
    seats = (0,) * table_size
    anchor = bot(1, seats=seats)
    others = [bot(i, mu=rng.gauss(MU, 5), seats=seats) for i in range(2, 12)]
    for _ in range(50):
        table = pick_table(anchor, [anchor, *others, others[0]], {}, table_size, rng)
        assert table is not None
        assert len(table) == table_size == len(set(table))
        assert 1 in table
        assert set(table) <= {1, *(c.bot_id for c in others)}


def test_none_when_too_few_candidates() -> None:
    rng = random.Random(0)
    anchor = bot(1, seats=(0, 0, 0))
    assert pick_table(anchor, [bot(2, seats=(0, 0, 0))], {}, 3, rng) is None
    assert pick_table(anchor, [anchor, bot(2, seats=(0, 0, 0)), bot(2, seats=(0, 0, 0))], {}, 3, rng) is None
    assert pick_table(anchor, [], {}, 2, rng) is None
    assert pick_table(anchor, [bot(2, seats=(0, 0, 0)), bot(3, seats=(0, 0, 0))], {}, 3, rng) is not None
    with pytest.raises(ValueError, match="at least 2 seats"):
        pick_table(anchor, [bot(2)], {}, 1, rng)


def chosen_opponent(anchor: Candidate, candidates: list[Candidate], together: dict[tuple[int, int], int]) -> int:
    table = pick_table(anchor, candidates, together, 2, random.Random(3), explore=0.0)
    assert table is not None
    (opponent,) = set(table) - {anchor.bot_id}
    return opponent


def test_a_closer_rating_is_preferred() -> None:
    anchor = bot(1, mu=30.0, sigma=3.0)
    near, far = bot(2, mu=31.0, sigma=3.0), bot(3, mu=45.0, sigma=3.0)
    assert chosen_opponent(anchor, [far, near], {}) == 2
    below, far_below = bot(4, mu=28.0, sigma=3.0), bot(5, mu=10.0, sigma=3.0)
    assert chosen_opponent(anchor, [far_below, below], {}) == 4


def test_a_wider_uncertainty_is_preferred() -> None:
    anchor = bot(1, mu=30.0, sigma=2.0)
    sure, unsure = bot(2, mu=30.0, sigma=1.0), bot(3, mu=30.0, sigma=5.0)
    assert chosen_opponent(anchor, [sure, unsure], {}) == 3


def test_a_pair_that_met_less_is_preferred() -> None:
    anchor = bot(5, mu=30.0, sigma=2.0)
    often, seldom = bot(7, mu=30.0, sigma=2.0), bot(3, mu=30.5, sigma=2.0)
    assert chosen_opponent(anchor, [often, seldom], {}) == 7  # equal history: the closer rating
    assert chosen_opponent(anchor, [often, seldom], {pair_key(5, 7): 20, pair_key(3, 5): 1}) == 3
    assert chosen_opponent(anchor, [often, seldom], {pair_key(5, 7): 1}) == 3  # never met beats met once


def test_the_third_seat_is_chosen_against_the_whole_table() -> None:
    # The anchor and bot 2 are seated first (closest); bot 3 sits near bot 2, bot 4 near nobody.
    anchor = bot(1, mu=20.0, sigma=2.0, seats=(0, 0, 0))
    second = bot(2, mu=26.0, sigma=2.0, seats=(0, 0, 0))
    near_second = bot(3, mu=28.0, sigma=2.0, seats=(0, 0, 0))
    away = bot(4, mu=10.0, sigma=2.0, seats=(0, 0, 0))
    table = pick_table(anchor, [away, near_second, second], {}, 3, random.Random(0), explore=0.0)
    assert table is not None and set(table) == {1, 2, 3}


def test_equal_scores_go_to_the_bot_idle_longest() -> None:
    anchor = bot(1)
    assert chosen_opponent(anchor, [bot(2, waited=5.0), bot(3, waited=50.0), bot(4, waited=1.0)], {}) == 3


def test_seat_order_seats_each_bot_where_it_sat_least() -> None:
    rng = random.Random(1)
    a = bot(1, seats=(5, 0, 5))
    b = bot(2, seats=(0, 5, 5))
    c = bot(3, seats=(5, 5, 0))
    for _ in range(10):
        assert [x.bot_id for x in seat_order([a, b, c], rng)] == [2, 1, 3]
    # Short counts (a seat never recorded) count as never sat there.
    assert [x.bot_id for x in seat_order([bot(1, seats=(3,)), bot(2, seats=(0, 3))], rng)] == [2, 1]


def test_equal_seat_costs_are_drawn_at_random() -> None:
    rng = random.Random(2)
    orders = Counter(tuple(x.bot_id for x in seat_order([bot(1), bot(2)], rng)) for _ in range(200))
    assert set(orders) == {(1, 2), (2, 1)}
    assert min(orders.values()) > 60


@pytest.mark.parametrize("table_size", [2, 3, 4])
def test_a_long_ladder_meets_every_pair_and_evens_the_seats(table_size: int) -> None:
    """12 bots, each game anchored by the bot idle longest: every pair meets and each bot's seats even out."""
    rng = random.Random(table_size * 7)
    size = 12
    strength = {i: rng.gauss(MU, 6) for i in range(size)}
    sigma = {i: SIGMA for i in range(size)}
    seats = {i: [0] * table_size for i in range(size)}
    last = {i: -i for i in range(size)}
    together: dict[tuple[int, int], int] = {}
    games = 1200

    def candidate(i: int, clock: int) -> Candidate:
        return Candidate(i, strength[i], sigma[i], sum(seats[i]), tuple(seats[i]), float(clock - last[i]))

    for clock in range(1, games + 1):
        anchor_id = min(last, key=lambda i: last[i])
        table = pick_table(
            candidate(anchor_id, clock), [candidate(i, clock) for i in range(size)], together, table_size, rng
        )
        assert table is not None
        for seat, i in enumerate(table):
            seats[i][seat] += 1
            last[i] = clock
            sigma[i] = max(1.0, sigma[i] * 0.97)  # the ratings grow surer, as they do
        for a, b in itertools.combinations(table, 2):
            together[pair_key(a, b)] = together.get(pair_key(a, b), 0) + 1
    pair_games = [together.get(pair, 0) for pair in itertools.combinations(range(size), 2)]
    assert min(pair_games) >= 3  # every pair meets, the farthest apart too: none starved
    for i in range(size):
        played = sum(seats[i])
        assert played > 0.5 * games * table_size / size
        expected = played / table_size
        chi_square = sum((count - expected) ** 2 / expected for count in seats[i])
        assert chi_square < 2.0, (i, seats[i])  # far below chance's spread (df <= 3): the seats are balanced
