"""The plan of an SPRT before it starts (ratings/sprt_plan.py): Wald's operating characteristic and expected games,
the chance of no verdict within max_games, checked against their closed forms and the real test simulated
(ratings/sprt_simulation.py)."""

from __future__ import annotations

import math
import random

import pytest

from ratings.sprt import Sprt
from ratings.sprt_plan import plan, point
from ratings.sprt_simulation import play, thresholds, win_chance


def test_at_the_hypotheses_the_errors_are_alpha_and_beta_and_halfway_a_coin():
    low, middle, high = plan(Sprt(0, 30, alpha=0.05, beta=0.1), True, 100_000)
    assert (low.elo, middle.elo, high.elo) == (0, 15, 30)
    assert low.p_h1_ever == pytest.approx(0.05)
    assert high.p_h1_ever == pytest.approx(0.9)
    assert 0.05 < middle.p_h1_ever < 0.9
    for shown in (low, middle, high):  # so many games that every test decides: the limit changes nothing
        assert shown.p_none == pytest.approx(0.0, abs=1e-9)
        assert shown.p_h1 == pytest.approx(shown.p_h1_ever, abs=1e-9)


def test_the_expected_games_are_walds():
    test = Sprt(0, 30)
    lower, upper = test.bounds
    t1 = 30 / (800 / math.log(10))  # a game's normalized effect at elo1 (independent deals)
    halfway = point(test, 15, False, 1_000_000, lower, upper)
    assert halfway.games == pytest.approx(-lower * upper / t1**2, rel=1e-6)
    at_elo0 = point(test, 0, False, 1_000_000, lower, upper)
    wald = (0.05 * upper + 0.95 * lower) / (-(t1**2) / 2)
    assert at_elo0.games == pytest.approx(wald, rel=1e-6)
    # on paired deals an observation is a pair of two games, with sqrt(2) the effect: the same games
    assert point(test, 0, True, 1_000_000, lower, upper).games == pytest.approx(at_elo0.games, rel=1e-6)


def test_a_limit_leaves_tests_undecided_and_every_chance_adds_up():
    test = Sprt(0, 30)
    lower, upper = test.bounds
    for elo in (0, 10, 20, 30):
        short, long = point(test, elo, False, 1000, lower, upper), point(test, elo, False, 2000, lower, upper)
        assert short.p_none > long.p_none > 0
        assert short.p_h1 < long.p_h1 <= long.p_h1_ever
        assert short.games < long.games <= 2000
    # symmetric about the middle: H1 at elo1 - x as often as H0 at elo0 + x
    at10, at20 = point(test, 10, False, 2000, lower, upper), point(test, 20, False, 2000, lower, upper)
    assert at20.p_h1 == pytest.approx(1 - at10.p_h1 - at10.p_none)


def test_the_plan_agrees_with_the_real_test_simulated():
    """1000 simulated matches of the real SPRT at a true +20 normalized Elo, 1000 games at most: the plan's chances
    and games within a few points (the approximation ignores the overshoot of the bounds)."""
    test = Sprt(0, 30)
    lower, upper = test.bounds
    limits = thresholds(test, lower, upper, 1000)
    rng = random.Random(5)
    runs = [play(limits, win_chance(20.0), 1000, rng) for _ in range(1000)]
    shown = point(test, 20, False, 1000, lower, upper)
    assert sum(verdict == "H1" for verdict, _, _ in runs) / 1000 == pytest.approx(shown.p_h1, abs=0.05)
    assert sum(verdict == "inconclusive" for verdict, _, _ in runs) / 1000 == pytest.approx(shown.p_none, abs=0.05)
    assert sum(games for _, games, _ in runs) / 1000 == pytest.approx(shown.games, rel=0.07)
