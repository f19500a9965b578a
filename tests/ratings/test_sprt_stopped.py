"""The estimate corrected for early stopping (ratings/sprt_stopped.py): its ordering of outcomes, and by simulation
of the real test (ratings/sprt_simulation.py) that its interval covers the truth about 95% of the time and its
estimate lies above the truth about half the time, where the fixed-sample interval falls short."""

from __future__ import annotations

import random

import pytest

from ratings.sprt import Sprt, estimate
from ratings.sprt_simulation import play, thresholds, win_chance
from ratings.sprt_stopped import stopped, stronger_chance


def test_earlier_h1_is_stronger_evidence_than_later_and_any_h1_than_any_h0():
    test = Sprt(0, 30)
    lower, upper = test.bounds
    early, late = (stopped(test, True, lower, upper, "H1", n, upper) for n in (50, 500))
    assert early is not None and late is not None
    assert early.nelo > late.nelo > 0 and early.nelo_low < early.nelo < early.nelo_high
    h0 = stopped(test, True, lower, upper, "H0", 500, lower)
    assert h0 is not None and h0.nelo < late.nelo
    # G grows with the true effect
    chances = [stronger_chance(test, True, t, lower, upper, "H1", 300, upper) for t in (-0.1, 0.0, 0.1, 0.2)]
    assert chances == sorted(chances) and chances[0] < 0.01 and chances[-1] > 0.5


def test_nothing_to_correct_for_a_match_not_over_or_on_logistic_elo():
    test = Sprt(0, 30)
    lower, upper = test.bounds
    assert stopped(test, True, lower, upper, "continue", 10, 0.5) is None
    assert stopped(test, True, lower, upper, "cancelled", 10, 0.5) is None
    logistic = Sprt(0, 30, model="logistic")
    assert stopped(logistic, True, *logistic.bounds, "H1", 10, 3.0) is None


@pytest.mark.parametrize("truth", [10.0, 20.0])
def test_the_corrected_interval_covers_about_95_percent_where_the_nominal_one_does_not(truth: float):
    """600 simulated matches of the default test (1000 games at most) at a true +10 or +20 normalized Elo."""
    test = Sprt(0, 30)
    lower, upper = test.bounds
    limits = thresholds(test, lower, upper, 1000)
    rng = random.Random(int(truth))
    covered = nominal = above = 0
    runs = 600
    for _ in range(runs):
        verdict, games, wins = play(limits, win_chance(truth), 1000, rng)
        corrected = stopped(test, False, lower, upper, verdict, games, test.llr([games - wins, 0, wins]))
        found = estimate([games - wins, 0, wins])
        assert corrected is not None and found is not None
        covered += corrected.nelo_low <= truth <= corrected.nelo_high
        nominal += found.nelo_low <= truth <= found.nelo_high
        above += corrected.nelo > truth
    assert 0.92 <= covered / runs <= 0.98, covered
    assert nominal < covered
    assert 0.4 <= above / runs <= 0.6, above
