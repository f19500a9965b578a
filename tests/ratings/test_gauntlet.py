"""Gauntlets with Holm's step-down (ratings/gauntlet.py): the bounds, the combined verdict, and by simulation of the
real SPRT (ratings/sprt_simulation.py) the family-wise chance of a false "A is stronger" with 16 opponents."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from ratings.gauntlet import combined, gauntlet_bounds
from ratings.sprt import Sprt, bounds
from ratings.sprt_simulation import GauntletSimulation, thresholds, win_chance

GAUNTLETS = 1000
"""Simulated gauntlets of 16 matches: a false pass rate near 2.5% is then known to about +-1%."""


def wilson_upper(hits: int, trials: int, z: float = 1.6449) -> float:
    """The one-sided 95% upper bound of a proportion (Wilson's score interval)."""
    p = hits / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return (centre + spread) / (1 + z * z / trials)


def test_a_gauntlet_of_one_has_walds_bounds():
    assert gauntlet_bounds(0.05, 0.05, 1, 0) == pytest.approx(bounds(0.05, 0.05))


def test_the_h1_bound_steps_down_as_opponents_are_beaten_and_the_h0_bound_stays():
    steps = [gauntlet_bounds(0.05, 0.05, 16, rejected) for rejected in range(16)]
    assert steps[0][1] == pytest.approx(math.log(0.95 / (0.05 / 16)))  # Bonferroni first
    assert steps[15][1] == pytest.approx(math.log(0.95 / 0.05))  # the last at the full alpha
    assert all(a[1] > b[1] for a, b in itertools.pairwise(steps))
    assert len({lower for lower, _ in steps}) == 1
    with pytest.raises(ValueError, match="rejections"):
        gauntlet_bounds(0.05, 0.05, 4, 4)


@pytest.mark.parametrize(
    ("verdicts", "kind", "words"),
    [
        (["H1", "H1"], "all", "evidence that A is stronger than all 2"),
        (["H1", "H0", "inconclusive"], "some", "evidence that A is stronger than 1 of 3"),
        (["H0", "inconclusive", "cancelled"], "none", "no evidence that A is stronger than any of the 3"),
        (["H1", "continue"], "continue", "playing: 1 of 2 decided for A so far"),
    ],
)
def test_one_combined_verdict(verdicts: list[str], kind: str, words: str):
    verdict = combined(verdicts)
    assert verdict.verdict == kind
    said = verdict.words(0, 30, "normalized", 2)
    assert said.startswith(words)
    assert said.endswith("(Holm-corrected at elo0=0, elo1=30, normalized Elo, at 2 seats)")


def test_the_thresholds_are_the_tests_own_verdicts():
    test = Sprt(0, 30)
    lower, upper = test.bounds
    limits = thresholds(test, lower, upper, 300)
    for n in (40, 150, 300):
        for wins in range(n + 1):
            assert limits.verdict(n, wins) == test.verdict([n - wins, 0, wins])


def test_sixteen_opponents_as_strong_hold_the_family_wise_false_pass_at_alpha():
    """16 opponents all at Elo 0 (every null true): the chance of even one false "A is stronger" is at most 5% with
    Holm, one-sided 95% upper bound included; uncorrected it is many times that (the test can fail)."""
    test = Sprt(0, 30)
    rng = random.Random(20261129)
    p = win_chance(0.0)
    holm = GauntletSimulation(test, 16, 1000)
    false_pass = sum("H1" in holm.play([p] * 16, rng) for _ in range(GAUNTLETS))
    assert wilson_upper(false_pass, GAUNTLETS) <= 0.05, false_pass
    uncorrected = GauntletSimulation(test, 16, 1000, holm=False)
    loose = sum("H1" in uncorrected.play([p] * 16, rng) for _ in range(GAUNTLETS // 4))
    assert loose / (GAUNTLETS // 4) > 0.2, loose


def test_holm_still_finds_the_opponents_a_beats():
    """Half the field 60 normalized Elo weaker, half as strong: A passes against most of the weaker ones and (almost)
    never against the others."""
    test = Sprt(0, 30)
    rng = random.Random(7)
    chances = [win_chance(60.0)] * 2 + [win_chance(0.0)] * 2
    simulation = GauntletSimulation(test, 4, 600)
    runs = [simulation.play(chances, rng) for _ in range(200)]
    beaten = sum(verdicts[:2].count("H1") for verdicts in runs)
    false = sum(verdicts[2:].count("H1") for verdicts in runs)
    assert beaten >= 0.9 * 400
    assert false <= 12
