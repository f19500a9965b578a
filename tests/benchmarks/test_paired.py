"""benchmarks/paired.py's statistics on synthetic pairs with a known answer: the within-pair correlation, the games
saved, their centring within each seating and the bootstrap interval over deals; and its simulated SPRT."""

from __future__ import annotations

import math
import random

import pytest

from benchmarks.paired import (
    STATISTICS,
    bootstrap,
    correlation,
    deals,
    games_saved,
    moments,
    one_over_one_plus_rho,
    percentile_interval,
    ratio_of_means,
    run_test,
)
from ratings.sprt import Sprt

# x: four wins and four losses; y the same; three pairs split 1-0, three 0-1, one 1-1, one 0-0:
# Sxx = Syy = 2, Sxy = -0.75 - 0.75 + 0.25 + 0.25 = -1, so rho = -1/2 and the games saved 4 / (4 - 2) = 2.
HALF_SPLIT = [(1.0, 0.0)] * 3 + [(0.0, 1.0)] * 3 + [(1.0, 1.0), (0.0, 0.0)]


def test_a_known_correlation_and_the_games_it_saves() -> None:
    m = moments(HALF_SPLIT, ["s"] * len(HALF_SPLIT))
    assert (m.sxx, m.syy, m.sxy) == pytest.approx((2.0, 2.0, -1.0))
    assert correlation(m) == pytest.approx(-0.5)
    assert games_saved(m) == pytest.approx(2.0)
    assert one_over_one_plus_rho(m) == pytest.approx(2.0)


def test_uncorrelated_games_save_nothing_and_positively_correlated_ones_cost() -> None:
    independent = [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0)]
    assert games_saved(moments(independent, [0] * 4)) == pytest.approx(1.0)
    alike = [(1.0, 1.0), (0.0, 0.0), (1.0, 1.0), (0.0, 0.0), (1.0, 0.0)]
    m = moments(alike, [0] * 5)
    assert correlation(m) > 0 and games_saved(m) < 1


def test_unequal_variances_make_the_games_saved_differ_from_one_over_one_plus_rho() -> None:
    # x varies (0 or 1), y only by a half point, against x: Sxx = 1, Syy = 0.25, Sxy = -0.5, rho = -1
    pairs = [(1.0, 0.0), (0.0, 0.5), (1.0, 0.0), (0.0, 0.5)]
    m = moments(pairs, [0] * 4)
    assert correlation(m) == pytest.approx(-1.0)
    assert one_over_one_plus_rho(m) == math.inf
    assert games_saved(m) == pytest.approx(1.25 / 0.25)


def test_every_pair_split_saves_infinitely_and_no_variation_is_undefined() -> None:
    assert games_saved(moments([(1.0, 0.0), (0.0, 1.0)], [0, 0])) == math.inf
    assert math.isnan(correlation(moments([(1.0, 1.0)] * 3, [0] * 3)))
    assert math.isnan(games_saved(moments([(1.0, 1.0)] * 3, [0] * 3)))


def test_moments_are_centred_within_each_seating() -> None:
    """A seating that favours A shifts its scores: within seatings nothing changes; pooled, the shift would add a
    positive covariance (both games of a pair scored in that seating)."""
    shifted = [(x * 0.5 + 0.5, y * 0.5 + 0.5) for x, y in HALF_SPLIT]
    low = [(x * 0.5, y * 0.5) for x, y in HALF_SPLIT]
    pairs = shifted + low
    strata = ["a"] * len(shifted) + ["b"] * len(low)
    m = moments(pairs, strata)
    assert correlation(m) == pytest.approx(-0.5)
    assert games_saved(m) == pytest.approx(2.0)
    assert correlation(moments(pairs, [0] * len(pairs))) > -0.5 + 0.1


def test_the_bootstrap_interval_of_a_known_correlation() -> None:
    """2,000 pairs of standard normals with correlation -0.3: the interval holds -0.3 and is as wide as the
    correlation's standard error (1 - rho^2) / sqrt(n) = 0.020 says, about +-1.96 of it."""
    rng = random.Random(7)
    rho, n = -0.3, 2000
    pairs = []
    for _ in range(n):
        x, z = rng.gauss(0, 1), rng.gauss(0, 1)
        pairs.append((x, rho * x + math.sqrt(1 - rho * rho) * z))
    strata = [index % 3 for index in range(n)]
    m = moments(pairs, strata)
    intervals = bootstrap(pairs, strata, STATISTICS, 400, random.Random(1))
    low, high = intervals["rho"]
    assert low < correlation(m) < high and low < rho < high
    standard_error = (1 - rho * rho) / math.sqrt(n)
    assert high - low == pytest.approx(2 * 1.96 * standard_error, rel=0.25)
    saved_low, saved_high = intervals["games saved"]
    assert saved_low < games_saved(m) < saved_high and saved_low < 1 / (1 + rho) < saved_high
    # 1/(1+rho) falls as rho rises: its percentile interval is rho's, mapped (up to one rank at each end)
    assert intervals["1/(1+rho)"] == pytest.approx((1 / (1 + high), 1 / (1 + low)), rel=1e-2)


def test_the_bootstrap_keeps_each_seatings_size_and_leaves_out_undefined_resamples() -> None:
    """Two pairs in one seating and one in the other: a resample of the first drawing one pair twice has no
    variance (NaN, left out); the second seating's lone pair never adds any."""
    pairs = [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
    strata = ["a", "a", "b"]
    intervals = bootstrap(pairs, strata, STATISTICS, 200, random.Random(3))
    assert intervals["rho"] == (-1.0, -1.0)
    assert intervals["games saved"] == (math.inf, math.inf)
    nothing = bootstrap([(1.0, 1.0)] * 4, [0] * 4, STATISTICS, 50, random.Random(3))
    assert all(math.isnan(low) and math.isnan(high) for low, high in nothing.values())


def test_the_percentile_interval_is_the_nearest_rank_one() -> None:
    values = [float(value) for value in range(1, 201)]  # 1 .. 200
    assert percentile_interval(values, 0.95) == (5.0, 195.0)
    assert percentile_interval([2.0], 0.95) == (2.0, 2.0)


def test_deals_walk_through_a_matchs_seatings_at_4_seats() -> None:
    """Six deals at 4 seats: one in each seat pair of A and B (the fillers in the other seats), each scored 0, 0.5 or
    1 for A in both games."""
    pairs, strata = deals("card", 4, 6, seed=1, noise=0.1)
    assert len(pairs) == 6 and all(x in (0.0, 0.5, 1.0) and y in (0.0, 0.5, 1.0) for x, y in pairs)
    assert len(set(strata)) == 6
    assert all(sorted(seating) == ["A", "B", "F", "F"] for seating in strata)


def test_a_bot_that_wins_every_game_passes_in_both_designs() -> None:
    test = Sprt(0.0, 100.0, model="logistic")
    for paired in (True, False):
        games, verdict = run_test(test, [[(1.0, 1.0)]], paired, 4000, random.Random(1))
        assert verdict == "H1" and 0 < games < 200 and games % 2 == 0


def test_a_coin_flip_reaches_no_verdict_within_a_few_games() -> None:
    test = Sprt(-5.0, 5.0)
    for paired in (True, False):
        games, verdict = run_test(test, [[(1.0, 0.0)], [(0.0, 1.0)]], paired, 10, random.Random(1))
        assert (games, verdict) == (10, "none")


def test_split_pairs_decide_sooner_paired_than_the_same_games_unpaired() -> None:
    """Every pair splits 1-1 (A wins in one seating only): paired, every pair scores 1 of 2 and H0 (no gain of 100)
    comes after 9 pairs; unpaired, the games are coin flips and it takes longer on average."""
    test = Sprt(0.0, 100.0, model="logistic")
    rng = random.Random(2)
    groups = [[(1.0, 0.0), (0.0, 1.0)]]
    paired = [run_test(test, groups, True, 20000, rng) for _ in range(10)]
    unpaired = [run_test(test, groups, False, 20000, rng) for _ in range(10)]
    assert paired == [(18, "H0")] * 10
    assert sum(games for games, _ in unpaired) > 3 * sum(games for games, _ in paired)


def test_the_ratio_of_two_means_and_its_interval() -> None:
    """Means 4 and 2, sample standard deviations sqrt(4/3) and half of it (the same coefficient of variation
    sqrt(4/3) / 4), four values each: ratio 2, interval 2 * exp(+-1.96 * sqrt(2 * cv^2 / 4))."""
    ratio, low, high = ratio_of_means([3.0, 5.0, 3.0, 5.0], [1.5, 2.5, 1.5, 2.5])
    spread = 1.959963984540054 * math.sqrt(2 * (math.sqrt(4 / 3) / 4) ** 2 / 4)
    assert ratio == pytest.approx(2.0)
    assert (low, high) == pytest.approx((2 * math.exp(-spread), 2 * math.exp(spread)))
