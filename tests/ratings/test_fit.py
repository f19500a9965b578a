"""The order-independent Bradley-Terry fit and its intervals (ratings/fit.py); their coverage over many simulated
tournaments is tests/ratings/test_coverage.py's.

Simulated bots play games whose finishing order is drawn from the Plackett-Luce model (an exponential race: each
seat finishes after an exponential time of rate ``10**(elo / 400)``), under which every pair of seats is ordered
exactly as Elo expects, ``P(i ahead of j) = 1 / (1 + 10**((elo_j - elo_i) / 400))``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from ratings.elo import expected
from ratings.fit import Rating, fit
from ratings.pool import groups_of

Game = tuple[list[str], list[int]]
TRUE_ELO = {"d": 0.0, "c": 100.0, "b": 200.0, "a": 400.0}
TINY_PRIOR = 1e-9


def simulated_games(true_elo: dict[str, float], count: int, seed: int, table_sizes: Sequence[int]) -> list[Game]:
    rng = random.Random(seed)
    names = sorted(true_elo)
    games: list[Game] = []
    for index in range(count):
        players = rng.sample(names, table_sizes[index % len(table_sizes)])
        finish = [rng.expovariate(10 ** (true_elo[p] / 400)) for p in players]
        order = sorted(range(len(players)), key=finish.__getitem__)
        ranks = [0] * len(players)
        for place, seat in enumerate(order):
            ranks[seat] = place
        games.append((players, ranks))
    return games


def two_player_games(wins: int, draws: int, losses: int) -> list[Game]:
    return [(["a", "b"], [0, 1])] * wins + [(["b", "a"], [0, 0])] * draws + [(["b", "a"], [0, 1])] * losses


def test_a_75_percent_score_is_190_8_elo() -> None:
    # P = 0.75 = 1 / (1 + 10**(-d/400))  =>  d = 400 * log10(3) = 190.85; centred: +95.42 / -95.42.
    exact = fit(two_player_games(300, 0, 100), intervals=False, prior_draws=TINY_PRIOR)
    assert exact["a"].elo == pytest.approx(200 * math.log10(3), abs=1e-6)
    assert exact["b"].elo == pytest.approx(-200 * math.log10(3), abs=1e-6)
    # The default prior (one virtual draw each against the origin) shrinks it a little: 189.6 over 100 games.
    shrunk = fit(two_player_games(75, 0, 25), intervals=False)
    assert 189.0 < shrunk["a"].elo - shrunk["b"].elo < 190.85


def test_a_draw_is_neither_a_win_nor_a_loss_but_the_odds_of_the_others_count() -> None:
    """Davidson's tie model: the rating difference is the log-odds of a win against a loss, whatever the ties. 50
    wins, 20 draws and 30 losses (a 60% score, as 60 wins and 40 losses) is 400 * log10(50 / 30) = 88.7 Elo, where
    counting each draw as half a win would give 400 * log10(60 / 40) = 70.4 Elo, shrinking the scale."""
    tied = fit(two_player_games(50, 20, 30), intervals=False, prior_draws=TINY_PRIOR)
    assert tied["a"].elo - tied["b"].elo == pytest.approx(400 * math.log10(50 / 30), abs=1e-4)
    untied = fit(two_player_games(60, 0, 40), intervals=False, prior_draws=TINY_PRIOR)
    assert untied["a"].elo - untied["b"].elo == pytest.approx(400 * math.log10(60 / 40), abs=1e-4)
    even = fit(two_player_games(30, 40, 30), intervals=False)
    assert even["a"].elo == pytest.approx(0.0, abs=1e-9)
    everything_tied = fit(two_player_games(0, 10, 0))  # no finite tie parameter: the ratings stay at the origin
    assert everything_tied["a"].elo == pytest.approx(0.0, abs=1e-9)
    assert all(math.isfinite(value) for value in everything_tied["a"].to_json().values())


def test_fitted_ratings_expect_each_player_s_actual_score() -> None:
    # The likelihood equations: at the fit, each player's Elo-expected score over their comparisons equals their
    # actual score (the fixed point incremental Elo hovers around), up to the tiny prior.
    games = simulated_games(TRUE_ELO, 300, seed=3, table_sizes=[2, 3, 4])
    ratings = fit(games, intervals=False, prior_draws=TINY_PRIOR)
    actual = dict.fromkeys(TRUE_ELO, 0.0)
    predicted = dict.fromkeys(TRUE_ELO, 0.0)
    for players, ranks in games:
        for i, me in enumerate(players):
            for j, other in enumerate(players):
                if i != j:
                    actual[me] += 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                    predicted[me] += expected(ratings[me].elo, ratings[other].elo)
    assert predicted == pytest.approx(actual, abs=1e-6)


def test_rock_paper_scissors_is_a_three_way_tie() -> None:
    games: list[Game] = [(["a", "b"], [0, 1]), (["b", "c"], [0, 1]), (["c", "a"], [0, 1])] * 5
    assert all(r.elo == pytest.approx(0.0, abs=1e-9) for r in fit(games, intervals=False).values())


def test_ratings_are_anchored_at_mean_zero_in_order_of_appearance() -> None:
    ratings = fit(simulated_games(TRUE_ELO, 200, seed=1, table_sizes=[4]))
    assert sum(r.elo for r in ratings.values()) == pytest.approx(0.0, abs=1e-9)
    assert fit([(["z", "y"], [0, 1]), (["x", "y"], [1, 0])], intervals=False).keys() == {"z", "y", "x"}
    assert list(fit([(["z", "y"], [0, 1]), (["x", "y"], [1, 0])], intervals=False)) == ["z", "y", "x"]


def test_order_independent() -> None:
    games = simulated_games(TRUE_ELO, 400, seed=2, table_sizes=[2, 4])
    shuffled = list(games)
    random.Random(0).shuffle(shuffled)
    # Seat order within a game does not matter either: reverse every game's seats.
    reseated = [(list(reversed(players)), list(reversed(ranks))) for players, ranks in shuffled]
    base, other = fit(games, intervals=False), fit(reseated, intervals=False)
    assert {p: r.elo for p, r in other.items()} == pytest.approx({p: r.elo for p, r in base.items()}, abs=1e-9)


def test_unbeaten_and_winless_players_stay_finite() -> None:
    few = fit(two_player_games(5, 0, 0))
    many = fit(two_player_games(50, 0, 0))
    assert 0 < few["a"].elo < many["a"].elo < 1000
    assert all(math.isfinite(v) for r in many.values() for v in (r.elo, r.low, r.high))


def test_groups_that_never_met_are_placed_by_the_prior_only() -> None:
    games: list[Game] = two_player_games(30, 0, 10) + [(["c", "d"], [1, 0])] * 30 + [(["c", "d"], [0, 1])] * 10
    assert groups_of([([ord(name) for name in players], ranks) for players, ranks in games]) == [
        list(range(40)),
        list(range(40, 80)),
    ]
    ratings = fit(games)
    assert ratings["a"].elo - ratings["b"].elo == pytest.approx(ratings["d"].elo - ratings["c"].elo)
    assert ratings["a"].elo == pytest.approx(ratings["d"].elo)  # symmetric groups sit at the same place


def test_groups_link_multiplayer_tables() -> None:
    """The games of each group, the group of most players first, equal sizes by their smallest player id."""
    games = [([1, 2, 3], [0, 1, 2]), ([4, 5], [0, 1]), ([3, 6], [0, 1]), ([8, 7], [1, 0]), ([0, 9], [0, 1])]
    assert groups_of(games) == [[0, 2], [4], [1], [3]]
    assert groups_of([]) == []


@pytest.mark.parametrize("table_sizes", [[2], [4], [2, 4]], ids=["2-seat", "4-seat", "mixed"])
def test_simulated_bots_of_known_strength_are_recovered(table_sizes: list[int]) -> None:
    # A 95% interval misses the truth 1 time in 20 by design (12 checks here: about once in 2 seeds), so this
    # fixed-seed check uses 99% intervals; a simulation can still be an outlier (seed 11's 2-seat games score
    # bot c 3 standard deviations below its strength). The coverage of the 95% intervals is test_coverage.py's.
    games = simulated_games(TRUE_ELO, 1200, seed=1, table_sizes=table_sizes)
    ratings = fit(games, confidence=0.99)
    mean = sum(TRUE_ELO.values()) / len(TRUE_ELO)
    for player, true in TRUE_ELO.items():
        rating = ratings[player]
        assert rating.low <= true - mean <= rating.high, (player, true - mean, rating)
    assert sorted(ratings, key=lambda p: ratings[p].elo) == ["d", "c", "b", "a"]


def test_intervals_contain_the_estimate_and_narrow_with_more_games() -> None:
    widths = []
    for count in (150, 1200):
        ratings = fit(simulated_games(TRUE_ELO, count, seed=4, table_sizes=[4]))
        assert all(r.low <= r.elo <= r.high and r.low < r.high for r in ratings.values())
        widths.append(sum(r.high - r.low for r in ratings.values()))
    # Eight times the games: intervals about sqrt(8) = 2.8 times narrower.
    assert 2.0 < widths[0] / widths[1] < 4.0


def test_narrower_confidence_narrower_interval() -> None:
    games = simulated_games(TRUE_ELO, 200, seed=4, table_sizes=[2])
    wide, narrow = fit(games, confidence=0.95), fit(games, confidence=0.5)
    assert all(narrow[p].high - narrow[p].low < wide[p].high - wide[p].low for p in TRUE_ELO)


def test_a_warm_start_reaches_the_same_fit() -> None:
    games = simulated_games(TRUE_ELO, 300, seed=6, table_sizes=[3])
    cold = fit(games)
    assert fit(games) == cold  # deterministic
    earlier = {player: rating.elo for player, rating in fit(games[:200], intervals=False).items()}
    for start in (earlier, {"a": 5000.0, "zz": 3.0}, {}):
        warm = fit(games, start=start)
        for player, rating in cold.items():
            assert warm[player].to_json() == pytest.approx(rating.to_json(), abs=1e-6)


def test_multiplayer_tables_widen_the_interval_of_the_same_comparisons() -> None:
    """A 4-seat game is 6 comparisons that are not independent (the winner beats all three others): the same
    comparisons as 6 separate 2-seat games give the same ratings with narrower intervals."""
    tables = simulated_games(TRUE_ELO, 400, seed=8, table_sizes=[4])
    pairs: list[Game] = [
        ([players[i], players[j]], [ranks[i], ranks[j]])
        for players, ranks in tables
        for i in range(4)
        for j in range(i + 1, 4)
    ]
    bundled, separate = fit(tables), fit(pairs)
    for player in TRUE_ELO:
        assert bundled[player].elo == pytest.approx(separate[player].elo, abs=1e-6)
        assert bundled[player].high - bundled[player].low > 1.1 * (separate[player].high - separate[player].low)


def test_no_interval_when_not_asked_and_no_games_no_ratings() -> None:
    ratings = fit(two_player_games(3, 1, 2), intervals=False)
    assert all(r.low == r.elo == r.high for r in ratings.values())
    assert ratings["a"].to_json() == {"elo": ratings["a"].elo, "low": ratings["a"].elo, "high": ratings["a"].elo}
    assert isinstance(ratings["a"], Rating)
    assert fit([]) == {}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"confidence": 1.0}, "confidence must be between 0 and 1"),
        ({"confidence": 0.0}, "confidence must be between 0 and 1"),
        ({"prior_draws": 0.0}, "prior_draws must be positive"),
    ],
)
def test_refused_options(options: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fit(two_player_games(1, 0, 1), **options)  # type: ignore[arg-type]


def test_any_hashable_players_in_order_of_first_appearance() -> None:
    huge = 2**70  # beyond numpy's integers: numbered as any other key
    games = [([huge, 5], [0, 1]), ([5, "x"], [0, 1]), ([(1, 2), huge], [1, 0])]
    assert list(fit(games, intervals=False)) == [huge, 5, "x", (1, 2)]
    assert list(fit([([9, 2], [0, 1]), ([2, 7], [1, 0])], intervals=False)) == [9, 2, 7]


def test_refused_games() -> None:
    with pytest.raises(ValueError, match="cannot sit twice"):
        fit([(["a", "b"], [0, 1]), (["a", "a"], [0, 1])])
    with pytest.raises(ValueError, match="2 players but 3 ranks"):
        fit([(["a", "b"], [0, 1, 2])])


def test_a_clean_sweep_of_few_games_proves_nothing() -> None:
    """4 games won by one bot have score vectors of no spread, so the robust variance is tiny: the interval must
    not shrink to a point; the normal approximation of the posterior keeps it as wide as 4 games allow."""
    ratings = fit([(("a", "b"), (1, 2))] * 4)
    assert ratings["a"].elo > ratings["b"].elo
    assert ratings["a"].low < ratings["b"].high  # 4 games do not separate them
    assert ratings["a"].high - ratings["a"].low > 300


def test_the_interval_is_at_least_the_normal_approximation() -> None:
    """Two players, 60 wins in 100: each centred rating is half the difference, whose variance is about
    1 / (n p (1 - p)) in log-strength (the prior's two draws shift it a little)."""
    ratings = fit([(("a", "b"), (1, 2))] * 60 + [(("a", "b"), (2, 1))] * 40)
    sd = 0.5 / math.sqrt(100 * 0.6 * 0.4) * 400 / math.log(10)
    margin = min(ratings["a"].elo - ratings["a"].low, ratings["a"].high - ratings["a"].elo)
    assert margin == pytest.approx(1.96 * sd, rel=0.05)
