"""Weng-Lin ratings (ratings/wenglin.py) against the ``openskill`` package, and the Elo scale they are shown on.

Figures: ``ELO_PER_MU = 400 / (ln 10 * BETA * sqrt 2) = 400 / (2.302585 * 4.166667 * 1.414214) = 29.4809``; at
``sigma`` 0, a gap of 400 Elo is a ``mu`` gap of ``400 / ELO_PER_MU`` and the stronger bot finishes ahead 10 times
in 11.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import BradleyTerryFull

from ratings import wenglin
from ratings.wenglin import (
    MU,
    SIGMA,
    elo,
    half_width,
    prior_for_new_version,
    provisional,
    update,
    win_probability,
)

MODEL = BradleyTerryFull()


def openskill_update(ratings: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """One game rated by ``openskill``'s ``BradleyTerryFull``, one player per team."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    return [(team[0].mu, team[0].sigma) for team in MODEL.rate(teams, ranks=list(ranks))]


def assert_close(ours: list[tuple[float, float]], theirs: list[tuple[float, float]]) -> None:
    assert len(ours) == len(theirs)
    for (mu, sigma), (their_mu, their_sigma) in zip(ours, theirs, strict=True):
        assert mu == pytest.approx(their_mu, abs=1e-9, rel=0)
        assert sigma == pytest.approx(their_sigma, abs=1e-9, rel=0)


@st.composite
def games(draw: st.DrawFn) -> tuple[list[tuple[float, float]], list[int]]:
    seats = draw(st.integers(2, 4))
    ratings = [(draw(st.floats(-20.0, 70.0)), draw(st.floats(0.05, SIGMA * 1.2))) for _ in range(seats)]
    ranks = [draw(st.integers(0, seats - 1)) for _ in range(seats)]  # repeated ranks tie
    return ratings, ranks


@settings(max_examples=400, deadline=None)
@given(games())
def test_update_equals_openskill_bradley_terry_full(game: tuple[list[tuple[float, float]], list[int]]) -> None:
    ratings, ranks = game
    assert_close(update(ratings, ranks), openskill_update(ratings, ranks))


@pytest.mark.parametrize(
    "ranks",
    [
        [0, 1],
        [1, 0],
        [0, 0],
        [0, 1, 2],
        [2, 0, 1],
        [0, 0, 1],
        [1, 0, 0],
        [0, 0, 0],
        [0, 1, 2, 3],
        [3, 1, 0, 2],
        [0, 1, 1, 2],
        [1, 0, 1, 0],
        [2, 2, 0, 2],
        [0, 0, 0, 0],
    ],
)
def test_ties_and_orders_at_every_table_size_equal_openskill(ranks: list[int]) -> None:
    rng = random.Random(len(ranks) * 100 + sum(ranks))
    for _ in range(20):
        ratings = [(rng.gauss(MU, 6), rng.uniform(0.3, SIGMA)) for _ in ranks]
        assert_close(update(ratings, ranks), openskill_update(ratings, ranks))


def test_a_chain_of_games_stays_equal_to_openskill() -> None:
    rng = random.Random(7)
    ours = {bot: (MU, SIGMA) for bot in range(6)}
    theirs = dict(ours)
    for _ in range(300):
        seats = rng.sample(range(6), rng.randint(2, 4))
        ranks = [rng.randint(0, len(seats) - 1) for _ in seats]
        for table, rate in ((ours, update), (theirs, openskill_update)):
            for bot, rating in zip(seats, rate([table[bot] for bot in seats], ranks), strict=True):
                table[bot] = rating
    assert_close(list(ours.values()), list(theirs.values()))


def test_the_winner_rises_the_loser_falls_and_both_grow_surer() -> None:
    (winner_mu, winner_sigma), (loser_mu, loser_sigma) = update([(MU, SIGMA), (MU, SIGMA)], [0, 1])
    assert winner_mu > MU > loser_mu
    assert winner_mu - MU == pytest.approx(MU - loser_mu)
    assert winner_sigma < SIGMA and loser_sigma < SIGMA
    assert update([(MU, SIGMA), (MU, SIGMA)], [1, 1])[0][0] == pytest.approx(MU)  # a tie between equals


def test_update_refuses_a_malformed_game() -> None:
    with pytest.raises(ValueError, match="2 ratings but 3 ranks"):
        update([(MU, SIGMA)] * 2, [0, 1, 2])
    with pytest.raises(ValueError, match="at least 2 seats"):
        update([(MU, SIGMA)], [0])


def test_the_elo_scale() -> None:
    assert wenglin.ELO_PER_MU == pytest.approx(29.4809, abs=1e-4)
    assert elo(MU) == 1500.0
    assert elo(MU + 1) - elo(MU) == pytest.approx(wenglin.ELO_PER_MU)
    gap = 400 / wenglin.ELO_PER_MU  # 400 Elo in mu
    assert win_probability((MU + gap, 0.0), (MU, 0.0)) == pytest.approx(10 / 11, abs=1e-12)
    assert win_probability((MU, 0.0), (MU + gap, 0.0)) == pytest.approx(1 / 11, abs=1e-12)
    # At sigma 0 the chance is Elo's expected score at any gap.
    for elo_gap in (-250.0, 0.0, 100.0, 800.0):
        expected = 1 / (1 + 10 ** (-elo_gap / 400))
        assert win_probability((MU + elo_gap / wenglin.ELO_PER_MU, 0.0), (MU, 0.0)) == pytest.approx(expected)
    # Uncertainty flattens the chance toward a coin toss.
    assert 0.5 < win_probability((MU + gap, SIGMA), (MU, SIGMA)) < 10 / 11


def test_win_probability_by_hand() -> None:
    # c = sqrt(2 * (25/6)**2 + 2.5**2 + 5**2) = sqrt(65.9722) = 8.12233; 1 / (1 + exp(-7 / 8.12233)) = 0.703041
    a, b = (31.0, 2.5), (24.0, 5.0)
    assert win_probability(a, b) == pytest.approx(0.703041, abs=1e-6)
    assert win_probability(a, b) + win_probability(b, a) == pytest.approx(1.0)


def test_the_interval_and_when_a_rating_is_settled() -> None:
    assert half_width(SIGMA) == pytest.approx(1.96 * SIGMA * wenglin.ELO_PER_MU)
    assert half_width(SIGMA) == pytest.approx(481.6, abs=0.1)
    settled_sigma = wenglin.SETTLED_HALF_WIDTH / (1.96 * wenglin.ELO_PER_MU)  # 0.8654
    assert provisional(SIGMA)
    assert provisional(settled_sigma * 1.001)
    assert not provisional(settled_sigma * 0.999)


def test_a_new_version_starts_from_the_old_rating_widened() -> None:
    mu, sigma = prior_for_new_version(31.0, 1.2)
    assert mu == 31.0
    assert sigma == pytest.approx(math.sqrt(1.2**2 + (SIGMA / 2) ** 2))
    assert 1.2 < sigma < SIGMA
    assert prior_for_new_version(20.0, 7.9) == (20.0, SIGMA)  # never wider than a newcomer
    assert prior_for_new_version(20.0, SIGMA) == (20.0, SIGMA)
