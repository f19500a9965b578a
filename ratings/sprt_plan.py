"""What a match's SPRT (``ratings/sprt.py``) is expected to do before it starts: at a few true Elo differences, the
chance that it accepts H1, the chance that it reaches ``max_games`` with no verdict, and the expected games.

The approximation is Wald's: the log-likelihood ratio after ``n`` observations (pairs on paired deals, games on
independent ones) moves like a Brownian motion with drift ``mu = (t1 - t0) * (t - (t0 + t1) / 2)`` and variance
``(t1 - t0)^2`` per observation, where ``t`` is the normalized effect (``(mean - 1/2) / sd`` of one observation) of
the true difference and ``t0``, ``t1`` those of the hypotheses: the normalized model's LLR is this to first order
whatever the game (which is what normalized Elo is for). On that motion, with Wald's bounds ``lower < 0 < upper``:

- the chance of accepting H1 (the operating characteristic): ``(1 - e^(-theta lower)) / (e^(-theta upper) -
  e^(-theta lower))`` with ``theta = 2 mu / sigma^2`` (``-lower / (upper - lower)`` at ``mu = 0``), ignoring
  ``max_games``;
- the chance of no verdict within ``n`` observations, ``P(T > n)``: the eigenfunction series of the motion killed
  at either bound (Cox and Miller, "The Theory of Stochastic Processes", 1965, section 5.7), and the expected
  observations to a verdict or to ``max_games``, ``E[min(T, n)]``, its integral from 0 to ``n``.

For the logistic model the effect of a logistic Elo needs the observation's standard deviation: a game without ties
or correlation within a pair is assumed (a game's score sd 1/2, a pair's mean score sd ``1/(2 sqrt 2)``), which
over-states the games when ties are common or the pair's games are correlated. The approximation ignores the
overshoot of the bounds (the real test's errors are a little smaller than ``alpha`` and ``beta``) and the GSPRT's
estimated variance. ``tests/ratings/test_sprt_plan.py`` checks it against a simulated Gaussian walk. Pure: standard
library only.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from ratings.sprt import NORMALIZED_SCALE, Sprt, score_of_elo

TERMS = 400
"""Terms of the series of ``P(T > n)``: the ``k``-th decays as ``exp(-k^2 ...)``, far more than enough."""


@dataclass(frozen=True)
class PlanPoint:
    """At a true difference ``elo`` (of the test's model): the chance the match accepts H1 within ``max_games``
    (``p_h1``) and without that limit (``p_h1_ever``, Wald's operating characteristic), the chance it ends with no
    verdict at ``max_games`` (``p_none``), and the games it is expected to play (``games``)."""

    elo: float
    p_h1: float
    p_h1_ever: float
    p_none: float
    games: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def effect(test: Sprt, elo: float, paired: bool) -> float:
    """The normalized effect ``t`` of one observation (a pair on paired deals, else a game) at ``elo``."""
    if test.model == "normalized":
        return elo * (math.sqrt(2.0) if paired else 1.0) / NORMALIZED_SCALE
    sd = 0.5 / math.sqrt(2.0) if paired else 0.5
    return (score_of_elo(elo) - 0.5) / sd


def point(test: Sprt, elo: float, paired: bool, max_games: int, lower: float, upper: float) -> PlanPoint:
    """Wald's approximation at ``elo`` for the test with the bounds ``lower < 0 < upper`` (see the module
    docstring); ``max_games`` rounded up to whole pairs on paired deals."""
    t0, t1, t = effect(test, test.elo0, paired), effect(test, test.elo1, paired), effect(test, elo, paired)
    sigma2 = (t1 - t0) ** 2
    mu = (t1 - t0) * (t - (t0 + t1) / 2.0)
    p_h1 = operating_characteristic(2.0 * mu / sigma2, lower, upper)
    per_observation = 2 if paired else 1
    n = (max_games + 1) // 2 if paired else max_games
    survive, expected, later = _survival(mu, sigma2, -lower, upper - lower, n)
    by_n = min(max(p_h1 - later, 0.0), 1.0)
    return PlanPoint(elo=elo, p_h1=by_n, p_h1_ever=p_h1, p_none=survive, games=per_observation * expected)


def operating_characteristic(theta: float, lower: float, upper: float) -> float:
    """Wald's chance of leaving by ``upper`` before ``lower``: ``(1 - e^(-theta lower)) / (e^(-theta upper) -
    e^(-theta lower))``, ``theta = 2 mu / sigma^2``, written so that nothing overflows."""
    if abs(theta * (upper - lower)) < 1e-9:
        return -lower / (upper - lower)
    if theta > 0:  # scaled by e^(theta lower)
        return (math.exp(theta * lower) - 1.0) / (math.exp(theta * lower - theta * upper) - 1.0)
    return (1.0 - math.exp(-theta * lower)) / (math.exp(-theta * upper) - math.exp(-theta * lower))


def plan(test: Sprt, paired: bool, max_games: int, bounds: tuple[float, float] | None = None) -> list[PlanPoint]:
    """The plan at ``elo0``, the middle of the hypotheses and ``elo1`` (0, 15 and 30 by default), with the test's
    own bounds or ``bounds`` (a gauntlet's, ``ratings/gauntlet.py``)."""
    lower, upper = bounds or test.bounds
    middle = (test.elo0 + test.elo1) / 2.0
    return [point(test, elo, paired, max_games, lower, upper) for elo in (test.elo0, middle, test.elo1)]


def _survival(mu: float, sigma2: float, start: float, width: float, n: int) -> tuple[float, float, float]:
    """For a Brownian motion of drift ``mu`` and variance ``sigma2`` per unit time started at ``start`` in ``(0,
    width)``, killed at either end: ``P(T > n)``, ``E[min(T, n)]`` and the chance of leaving by the upper end after
    ``n`` (subtracted from the operating characteristic: that series converges fast). The killed density is ``e^(c (z - y) - mu^2 t / (2 sigma2)) (2 / w) sum_k sin(k pi y / w) sin(k pi z / w)
    e^(-k^2 pi^2 sigma2 t / (2 w^2))`` with ``c = mu / sigma2``: integrated over ``z`` in ``(0, w)`` and then over
    ``t``; the flux out of the upper end, ``-sigma2 / 2`` times its slope there, integrated over ``t``."""
    c = mu / sigma2
    survive = 0.0
    expected = 0.0
    upper = 0.0  # the flux out of the upper end after n
    for k in range(1, TERMS + 1):
        wave = k * math.pi / width
        rate = mu * mu / (2.0 * sigma2) + wave * wave * sigma2 / 2.0
        # (1 - (-1)^k e^(c w)) e^(-c y): written to stay finite for a large |c w|
        sign = -1.0 if k % 2 else 1.0
        weight = math.exp(-c * start) - sign * math.exp(c * (width - start))
        coefficient = (2.0 / width) * math.sin(wave * start) * wave * weight / (c * c + wave * wave)
        survive += coefficient * math.exp(-rate * n)
        expected += coefficient * -math.expm1(-rate * n) / rate
        upper += -sign * wave * math.sin(wave * start) * math.exp(-rate * n) / rate
    upper *= (sigma2 / width) * math.exp(c * (width - start))
    return min(max(survive, 0.0), 1.0), max(expected, 0.0), upper
