"""Weng-Lin ratings (Bradley-Terry, full pairing): a ladder's online rating of each bot, a mean and its uncertainty.

Each bot holds ``(mu, sigma)``: its skill believed normal with mean ``mu`` and standard deviation ``sigma``. A game
of ``n`` seats moves each seat's pair at once, from the ratings before it (Weng and Lin 2011, algorithm 1, the
Bradley-Terry model with every pair of seats compared): first ``TAU`` is added to every ``sigma`` (skills drift,
so no rating freezes), then seat ``i`` against each other seat ``q`` has ``c = sqrt(sigma_i**2 + sigma_q**2 +
2 * BETA**2)``, the chance ``p`` that ``i`` finishes ahead ``1 / (1 + exp((mu_q - mu_i) / c))`` and its score ``s``
(1 ahead, 0.5 tied, 0 behind); ``mu_i`` moves by the sum of ``sigma_i**2 / c * (s - p)`` and ``sigma_i**2`` shrinks
by the factor ``1 - sum of (sigma_i / c) * sigma_i**2 / c**2 * p * (1 - p)``, never below ``KAPPA``. The constants
are those of the ``openskill`` package and :func:`update` equals its ``BradleyTerryFull`` model with one player
per team (``tests/ratings/test_wenglin.py`` compares them).

A rating is shown on the Elo scale: a difference of 400 Elo between two bots of ``sigma`` 0 means odds of 10 to 1
(:func:`win_probability`), so one ``mu`` is ``ELO_PER_MU`` Elo (about 29.5) and ``MU`` is 1500. Its 95% interval is
``elo(mu) -+ half_width(sigma)``; a rating is provisional until that half width is under ``SETTLED_HALF_WIDTH``.
A bot's new version starts from its old version's rating with a widened ``sigma``
(:func:`prior_for_new_version`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
TAU = 25.0 / 300.0
KAPPA = 1e-4

ELO_PER_MU = 400.0 / (math.log(10.0) * BETA * math.sqrt(2.0))
SETTLED_HALF_WIDTH = 50.0

Rating = tuple[float, float]


def update(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """Each seat's ``(mu, sigma)`` after one game: its seats rated ``ratings`` before it finished ``ranks`` (lower
    is better, equal ranks tie; only their order matters)."""
    if len(ratings) != len(ranks):
        raise ValueError(f"{len(ratings)} ratings but {len(ranks)} ranks")
    if len(ratings) < 2:
        raise ValueError(f"a rated game needs at least 2 seats, not {len(ratings)}")
    variances = [sigma * sigma + TAU * TAU for _, sigma in ratings]
    two_beta_squared = 2 * BETA**2
    after: list[Rating] = []
    for i, (mu_i, _) in enumerate(ratings):
        variance_i = variances[i]
        omega = 0.0
        delta = 0.0
        for q, (mu_q, _) in enumerate(ratings):
            if q == i:
                continue
            c = math.sqrt(variance_i + variances[q] + two_beta_squared)
            p = 1 / (1 + math.exp((mu_q - mu_i) / c))
            score = 1.0 if ranks[q] > ranks[i] else 0.5 if ranks[q] == ranks[i] else 0.0
            omega += variance_i / c * (score - p)
            gamma = math.sqrt(variance_i) / c
            delta += gamma * variance_i / c / c * p * (1 - p)
        sigma_i = math.sqrt(variance_i) * math.sqrt(max(1 - delta, KAPPA))
        after.append((mu_i + omega, sigma_i))
    return after


def win_probability(a: Rating, b: Rating) -> float:
    """The chance that a bot rated ``a`` finishes ahead of one rated ``b`` (each ``(mu, sigma)``)."""
    (mu_a, sigma_a), (mu_b, sigma_b) = a, b
    c = math.sqrt(2 * BETA**2 + sigma_a**2 + sigma_b**2)
    return 1 / (1 + math.exp(-(mu_a - mu_b) / c))


def elo(mu: float) -> float:
    """``mu`` on the Elo scale (``MU`` is 1500)."""
    return 1500.0 + (mu - MU) * ELO_PER_MU


def half_width(sigma: float) -> float:
    """The half width of a rating's 95% interval on the Elo scale."""
    return 1.96 * sigma * ELO_PER_MU


def provisional(sigma: float) -> bool:
    """Whether a rating is still provisional: its 95% interval at least ``SETTLED_HALF_WIDTH`` Elo either side."""
    return half_width(sigma) >= SETTLED_HALF_WIDTH


def prior_for_new_version(mu: float, sigma: float) -> Rating:
    """The rating a bot's new version starts from: its old version's ``mu``, and its ``sigma`` widened by half the
    initial ``SIGMA`` (in variance), at most ``SIGMA``."""
    return mu, min(SIGMA, math.sqrt(sigma**2 + (SIGMA / 2) ** 2))
