"""The SPRT of ratings/sprt.py against fastchess's reference values and hand computations.

fastchess's own unit tests (its ``sprt_test.cpp``) check ``SPRT::getLLR`` to 2 decimals on these counts; its
``Stats(ll, ld, wl, dd, wd, ww)`` pentanomial constructor lists the pairs from worst to best, with ``wl`` (a win
and a loss) and ``dd`` (two draws) both scoring 1 point of 2; its trinomial ``Stats(wins, losses, draws)``:

    normalized pentanomial  Stats(365, 16618, 36029, 200, 16974, 390)   elo0 0,     elo1 2     LLR  2.25
    normalized pentanomial  Stats(127, 4883, 10311, 401, 5150, 104)     elo0 -1.75, elo1 0.25  LLR  3.01
    logistic pentanomial    Stats(223, 9863, 20279, 1000, 10037, 246)   elo0 0.5,   elo1 2.5   LLR -3.07
    logistic pentanomial    Stats(871, 26175, 55003, 980, 26678, 821)   elo0 0,     elo1 2     LLR -4.98
    normalized trinomial    Stats(36433, 36027, 68692)                  elo0 0,     elo1 2     LLR  0.92
    normalized trinomial    Stats(10871, 10650, 20431)                  elo0 -1.75, elo1 0.25  LLR  2.30
    logistic trinomial      Stats(21404, 21184, 40708)                  elo0 0.5,   elo1 2.5   LLR -1.57
    logistic trinomial      Stats(57433, 57030, 106593)                 elo0 0,     elo1 2     LLR -2.59

The bounds are fastchess's ``lower = log(beta / (1 - alpha))``, ``upper = log((1 - beta) / alpha)``; the Elo
estimate is its ``EloPentanomial``: ``score = WW + 0.75 WD + 0.5 (WL + DD) + 0.25 LD``, ``variance = sum p_i
(x_i - score)^2``, the interval ``score +- 1.96 sqrt(variance / pairs)`` mapped by ``-400 log10(1 / s - 1)``.
"""

from __future__ import annotations

import math

import pytest

from ratings import sprt


def penta(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> list[int]:
    """fastchess's ``Stats(ll, ld, wl, dd, wd, ww)`` as our bins (pairs scoring 0, 0.5, 1, 1.5, 2 points)."""
    return [ll, ld, wl + dd, wd, ww]


def tri(wins: int, losses: int, draws: int) -> list[int]:
    """fastchess's ``Stats(wins, losses, draws)`` as our trinomial bins (losses, ties, wins)."""
    return [losses, draws, wins]


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "model", "expected"),
    [
        (penta(365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
        (penta(127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
        (penta(223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
        (penta(871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
        (tri(36433, 36027, 68692), 0, 2, "normalized", 0.92),
        (tri(10871, 10650, 20431), -1.75, 0.25, "normalized", 2.30),
        (tri(21404, 21184, 40708), 0.5, 2.5, "logistic", -1.57),
        (tri(57433, 57030, 106593), 0, 2, "logistic", -2.59),
    ],
)
def test_llr_matches_fastchess(counts: list[int], elo0: float, elo1: float, model: sprt.Model, expected: float):
    assert sprt.llr(counts, elo0, elo1, model) == pytest.approx(expected, abs=0.01)


def test_bounds_are_walds():
    lower, upper = sprt.bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95))  # -2.944
    assert upper == pytest.approx(math.log(0.95 / 0.05))  # +2.944
    lower, upper = sprt.bounds(0.1, 0.02)
    assert (lower, upper) == pytest.approx((math.log(0.02 / 0.9), math.log(0.98 / 0.1)))


def test_verdict_at_and_between_the_bounds():
    assert sprt.verdict(2.95, -2.94, 2.94) == "H1"
    assert sprt.verdict(2.94, -2.94, 2.94) == "H1"
    assert sprt.verdict(-2.94, -2.94, 2.94) == "H0"
    assert sprt.verdict(0.0, -2.94, 2.94) == "continue"


def test_no_pairs_no_evidence():
    assert sprt.llr([0, 0, 0, 0, 0], 0, 10) == 0.0
    assert sprt.estimate([0, 0, 0, 0, 0]) is None
    assert sprt.Sprt(0, 10).verdict([0, 0, 0, 0, 0]) == "continue"


def test_symmetric_results_favour_neither_symmetric_hypothesis():
    """Counts mirrored about the middle have mean score 1/2: equally far from -x and +x, in either model."""
    for model in sprt.MODELS:
        assert sprt.llr([3, 10, 20, 10, 3], -5, 5, model) == pytest.approx(0.0, abs=1e-6)


def test_llr_grows_with_the_evidence():
    """More pairs of the same frequencies scale the LLR (the frequencies fix its sign)."""
    counts = [2, 10, 20, 14, 4]
    once, ten = sprt.llr(counts, 0, 20), sprt.llr([10 * c for c in counts], 0, 20)
    assert once > 0 and ten == pytest.approx(10 * once, rel=1e-6)
    assert sprt.llr([4, 14, 20, 10, 2], 0, 20) < 0


def test_logistic_mle_has_the_hypothesis_mean():
    """Proposition 1.1 of Van den Bergh's note: ``p_i = phat_i / (1 + theta (x_i - s))`` sums to 1, mean ``s``."""
    observed = [0.1, 0.2, 0.3, 0.25, 0.15]
    p = sprt._logistic_mle(observed, sprt.PAIR_SCORES, 0.55)
    assert sum(p) == pytest.approx(1.0)
    assert sum(x * q for x, q in zip(sprt.PAIR_SCORES, p, strict=True)) == pytest.approx(0.55)


def test_estimate_by_hand():
    """Counts 1, 2, 3, 4, 5 (15 pairs): score (0 + 2 * 0.25 + 3 * 0.5 + 4 * 0.75 + 5) / 15 = 2/3, so Elo
    -400 log10(1/2) = 120.41; variance (1 * 4/9 + 2 * (5/12)^2 + 3 * (1/6)^2 + 4 * (1/12)^2 + 5 * (1/3)^2) / 15
    = 0.097222, so the score interval is 2/3 +- 1.96 sqrt(0.097222 / 15) = 2/3 +- 0.15779."""
    found = sprt.estimate([1, 2, 3, 4, 5])
    assert found is not None
    assert found.pairs == 15
    assert found.score == pytest.approx(2 / 3)
    assert found.elo == pytest.approx(120.412, abs=1e-3)
    half = 1.959963984540054 * math.sqrt(0.0972222 / 15)
    assert found.low == pytest.approx(-400 * math.log10(1 / (2 / 3 - half) - 1), abs=1e-3)
    assert found.high == pytest.approx(-400 * math.log10(1 / (2 / 3 + half) - 1), abs=1e-3)
    assert found.low < found.elo < found.high
    # normalized Elo: (s - 1/2) / sqrt(2 var) * 800 / ln 10
    assert found.nelo == pytest.approx((2 / 3 - 0.5) / math.sqrt(2 * 0.0972222) * 800 / math.log(10), rel=1e-5)


def test_estimate_of_a_clean_sweep_is_unbounded_above():
    found = sprt.estimate([0, 0, 0, 0, 7])
    assert found is not None and found.elo == math.inf
    assert found.to_json()["elo"] is None and found.to_json()["pairs"] == 7


def test_pair_outcomes_from_ranks():
    assert sprt.game_score(0, 1) == 1.0 and sprt.game_score(2, 2) == 0.5 and sprt.game_score(3, 1) == 0.0
    assert sprt.pair_bin(1.0, 1.0) == 4
    assert sprt.pair_bin(1.0, 0.0) == 2 == sprt.pair_bin(0.5, 0.5)
    assert sprt.pair_bin(0.0, 0.5) == 1
    with pytest.raises(ValueError, match=r"scores 0, 0\.5 or 1"):
        sprt.pair_bin(0.25, 1.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"elo0": 5, "elo1": 5}, "elo0 must be less than elo1"),
        ({"elo0": 0, "elo1": 5, "alpha": 0}, "between 0 and 1"),
        ({"elo0": 0, "elo1": 5, "alpha": 0.6, "beta": 0.5}, "less than 1"),
        ({"elo0": 0, "elo1": 5, "model": "bayesian"}, "normalized, logistic"),
        ({"elo0": 0, "elo1": math.nan}, "elo0 must be less than elo1"),
        ({"elo0": 0, "elo1": 250}, "within"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], message: str):
    with pytest.raises(ValueError, match=message):
        sprt.Sprt(**kwargs)  # type: ignore[arg-type]


def test_normalized_hypotheses_up_to_200_always_have_an_llr():
    """Section 4.1's constrained maximum is found for every count within +-200 normalized Elo (beyond, refused)."""
    import random

    generator = random.Random(2)
    for elo in (-200, -100, 100, 200):
        for _ in range(200):
            counts = [generator.choice([0, 0, 1, 2, 5, 30, 300]) for _ in range(5)]
            assert math.isfinite(sprt.llr(counts, elo - 1, elo) if elo > 0 else sprt.llr(counts, elo, elo + 1))
    assert math.isfinite(sprt.llr([5, 1, 0, 0, 0], 0, 1000, "logistic"))


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match="5 numbers"):
        sprt.llr([1, 2, 3, 4], 0, 5)
    with pytest.raises(ValueError, match="5 numbers"):
        sprt.llr([1, -2, 3, 4, 5], 0, 5)


def test_estimate_of_single_games_by_hand():
    """Independent deals count games, trinomially (fastchess's ``EloWDL``): 2 losses, 1 tie and 5 wins score
    (0.5 + 5) / 8 = 0.6875, a game's variance (2 * 0.6875^2 + 0.1875^2 + 5 * 0.3125^2) / 8 = 0.18359375, and the
    normalized Elo divides by a game's standard deviation, sqrt(var), not sqrt(2 var) as a pair's."""
    found = sprt.estimate([2, 1, 5])
    assert found is not None and found.pairs == 8
    assert found.score == pytest.approx(0.6875)
    assert found.elo == pytest.approx(-400 * math.log10(1 / 0.6875 - 1))
    half = 1.959963984540054 * math.sqrt(0.18359375 / 8)
    assert found.low == pytest.approx(-400 * math.log10(1 / (0.6875 - half) - 1))
    assert found.high == pytest.approx(-400 * math.log10(1 / (0.6875 + half) - 1))
    assert found.nelo == pytest.approx(0.1875 / math.sqrt(0.18359375) * 800 / math.log(10))
    assert sprt.estimate([0, 0, 0]) is None


def test_the_test_on_single_games_moves_with_the_evidence():
    test = sprt.Sprt(0, 100, model="logistic")
    assert test.llr([0, 0, 0]) == 0.0
    assert test.llr([1, 2, 12]) > 0 > test.llr([12, 2, 1])
    assert test.verdict([0, 0, 40]) == "H1" and test.verdict([40, 0, 0]) == "H0"
