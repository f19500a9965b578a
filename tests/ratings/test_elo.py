"""Incremental Elo against hand-computed cases (ratings/elo.py).

Figures: expected(1400, 1600) = 1 / (1 + 10**(200/400)) = 1 / (1 + 3.16227766) = 0.24025307.
"""

from __future__ import annotations

import pytest

from ratings.elo import EloRow, EloTable, expected, pairwise

UNDERDOG = 0.2402530733  # expected score of 1400 against 1600


def test_pairwise_scores_every_pair_of_seats() -> None:
    # Seat 0 is first, seat 2 second, seats 1 and 3 tie for last.
    assert pairwise([0, 2, 1, 2]) == [
        (0, 1, 1.0),
        (0, 2, 1.0),
        (0, 3, 1.0),
        (1, 2, 0.0),
        (1, 3, 0.5),
        (2, 3, 1.0),
    ]
    assert pairwise([1, 3, 2, 3]) == pairwise([0, 2, 1, 2])  # the engine's 1-based ranks mean the same
    assert pairwise([2, 1]) == [(0, 1, 0.0)]


def test_expected_score() -> None:
    assert expected(1500, 1500) == 0.5
    assert expected(1400, 1600) == pytest.approx(UNDERDOG)
    assert expected(1600, 1400) == pytest.approx(1 - UNDERDOG)
    assert expected(1900, 1500) == pytest.approx(10 / 11)  # 400 points: 10 to 1 odds


def test_equal_players_winner_gains_16_at_k32() -> None:
    elo: EloTable[str] = EloTable()
    # 32 * (1 - 0.5) = +16 and 32 * (0 - 0.5) = -16.
    assert elo.record(["a", "b"], [0, 1]) == {"a": 16.0, "b": -16.0}
    assert elo.rating("a") == 1516.0 and elo.rating("b") == 1484.0


def test_upset_1400_beats_1600() -> None:
    elo: EloTable[str] = EloTable()
    elo.set_rating("strong", 1600)
    elo.set_rating("weak", 1400)
    # 32 * (1 - 0.24025307) = +24.3119 for the underdog, -24.3119 for the favourite.
    deltas = elo.record(["strong", "weak"], [1, 0])
    assert deltas["weak"] == pytest.approx(24.3119, abs=1e-4)
    assert deltas["strong"] == pytest.approx(-24.3119, abs=1e-4)
    assert elo.rating("weak") == pytest.approx(1424.3119, abs=1e-4)


def test_tie_between_unequal_players_moves_them_together() -> None:
    elo: EloTable[str] = EloTable(initial=1400)
    elo.record(["x", "y"], [0, 0])  # equal ratings: a tie changes nothing
    assert elo.rating("x") == elo.rating("y") == 1400.0
    elo.set_rating("y", 1600)
    # 32 * (0.5 - 0.24025307) = 32 * 0.25974693 = +8.3119 for the 1400 player.
    deltas = elo.record(["x", "y"], [1, 1])
    assert deltas["x"] == pytest.approx(8.3119, abs=1e-4) and deltas["y"] == pytest.approx(-8.3119, abs=1e-4)


def test_four_player_game_from_equal_ratings() -> None:
    elo: EloTable[int] = EloTable()
    # Each pair moves by K/(4-1) * 0.5 = 16/3 = 5.333.  First beats 3: +16.  Second beats 2, loses to 1: +5.333.
    # Third: -5.333.  Last loses 3: -16.
    deltas = elo.record([1, 2, 3, 4], [0, 1, 2, 3])
    assert deltas[1] == pytest.approx(16.0)
    assert deltas[2] == pytest.approx(16 / 3)
    assert deltas[3] == pytest.approx(-16 / 3)
    assert deltas[4] == pytest.approx(-16.0)
    assert sum(deltas.values()) == pytest.approx(0.0)


def test_four_player_game_with_ties_uses_ratings_from_before_the_game() -> None:
    elo: EloTable[int] = EloTable()
    # Ranks [0, 2, 1, 2]: seat 0 beats 3 (+16); seat 2 beats seats 1 and 3, loses to 0 (+5.333); seats 1 and 3
    # lose to 0 and 2 and tie each other: 2 * -5.333 + 0 = -10.667 each.
    deltas = elo.record([10, 11, 12, 13], [0, 2, 1, 2])
    assert [deltas[p] for p in (10, 11, 12, 13)] == pytest.approx([16.0, -32 / 3, 16 / 3, -32 / 3])
    # Seat order within the game does not matter: the same game listed in another seat order.
    other: EloTable[int] = EloTable()
    assert other.record([13, 12, 11, 10], [2, 1, 2, 0]) == pytest.approx(deltas)


def test_order_of_games_matters() -> None:
    # a beats b (1516 / 1484), then b beats a: b expected 1/(1 + 10**(32/400)) = 1/2.202264 = 0.454078, gains
    # 32 * 0.545922 = 17.4695: b = 1501.4695, a = 1498.5305.  The other order ends the other way round: incremental Elo is
    # order-dependent (ratings.fit is not).
    first: EloTable[str] = EloTable()
    first.record(["a", "b"], [0, 1])
    first.record(["a", "b"], [1, 0])
    second: EloTable[str] = EloTable()
    second.record(["a", "b"], [1, 0])
    second.record(["a", "b"], [0, 1])
    assert first.rating("a") == pytest.approx(1498.5305, abs=1e-4)
    assert first.rating("b") == pytest.approx(1501.4695, abs=1e-4)
    assert second.rating("a") == pytest.approx(first.rating("b"))


def test_k_factor_and_initial_rating() -> None:
    elo: EloTable[str] = EloTable(initial=1000, k=20)
    assert elo.rating("new") == 1000 and elo.games("new") == 0
    assert elo.record(["a", "b", "c"], [0, 1, 2])["a"] == pytest.approx(10.0)  # 2 pairs * 20/2 * 0.5


def test_table_counts_pairwise_results_best_first() -> None:
    elo: EloTable[str] = EloTable()
    elo.record(["a", "b", "c", "d"], [0, 1, 1, 3])
    elo.record(["c", "d"], [0, 1])
    rows = elo.table()
    assert [row.player for row in rows] == ["a", "c", "b", "d"]
    assert rows[0] == EloRow("a", pytest.approx(1516.0), 1, 3, 0, 0)  # type: ignore[arg-type]
    c = rows[1]
    assert (c.games, c.wins, c.draws, c.losses) == (2, 2, 1, 1)
    assert rows[3].to_json() == {
        "player": "d",
        "rating": rows[3].rating,
        "games": 2,
        "wins": 0,
        "draws": 0,
        "losses": 4,
    }


@pytest.mark.parametrize(
    ("players", "ranks", "message"),
    [
        (["a", "a"], [0, 1], "cannot sit twice"),
        (["a", "b", "a"], [0, 1, 2], "cannot sit twice"),
        (["a", "b"], [0], "2 players but 1 ranks"),
        (["a"], [0], "at least 2 players"),
    ],
)
def test_refusals(players: list[str], ranks: list[int], message: str) -> None:
    elo: EloTable[str] = EloTable()
    with pytest.raises(ValueError, match=message):
        elo.record(players, ranks)
    assert elo.table() == []


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="K factor"):
        EloTable(k=0)
