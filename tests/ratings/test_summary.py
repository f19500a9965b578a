"""The per-tournament standings and head-to-head tables on small hand-checked tournaments (ratings/summary.py)."""

from __future__ import annotations

import json

import pytest

from ratings.fit import fit
from ratings.summary import Row, head_to_head, head_to_head_matrix, places, summarize

# Four games of a small tournament, ranks 0-based (lower is better, equal ranks tie).
GAMES: list[tuple[list[str], list[int]]] = [
    (["ann", "bob", "cat"], [0, 1, 2]),  # ann wins alone
    (["bob", "cat", "ann"], [0, 0, 2]),  # bob and cat share first place
    (["cat", "ann"], [1, 0]),  # ann wins alone
    (["ann", "bob", "cat"], [2, 1, 2]),  # bob wins alone; ann and cat tie for last (places 2.5 each)
]


@pytest.mark.parametrize(
    ("ranks", "expected"),
    [
        ([0, 1, 2, 3], [1.0, 2.0, 3.0, 4.0]),
        ([0, 2, 1, 2], [1.0, 3.5, 2.0, 3.5]),
        ([1, 3, 2, 3], [1.0, 3.5, 2.0, 3.5]),  # the engine's 1-based competition ranks read the same
        ([0, 0], [1.5, 1.5]),
        ([3, 0, 0, 0], [4.0, 2.0, 2.0, 2.0]),
    ],
)
def test_places(ranks: list[int], expected: list[float]) -> None:
    assert places(ranks) == expected


def test_standings_count_games_wins_shared_wins_and_mean_place() -> None:
    rows = {row.player: row for row in summarize(GAMES, intervals=False)}
    # ann: places 1, 3, 1, 2.5 -> mean 7.5 / 4 = 1.875; wins games 1 and 3.
    assert (rows["ann"].games, rows["ann"].wins, rows["ann"].shared_wins) == (4, 2, 0)
    assert rows["ann"].mean_rank == pytest.approx(1.875)
    # bob: places 2, 1.5, 1 -> 4.5 / 3 = 1.5; wins game 4, shares game 2.
    assert (rows["bob"].games, rows["bob"].wins, rows["bob"].shared_wins) == (3, 1, 1)
    assert rows["bob"].mean_rank == pytest.approx(1.5)
    # cat: places 3, 1.5, 2, 2.5 -> 9 / 4 = 2.25; shares game 2.
    assert (rows["cat"].games, rows["cat"].wins, rows["cat"].shared_wins) == (4, 0, 1)
    assert rows["cat"].mean_rank == pytest.approx(2.25)
    assert all(row.forfeits == 0 for row in rows.values())


def test_rows_carry_the_fit_and_are_sorted_by_it() -> None:
    rows = summarize(GAMES)
    ratings = fit(GAMES)
    assert [row.elo for row in rows] == sorted((r.elo for r in ratings.values()), reverse=True)
    for row in rows:
        rating = ratings[row.player]
        assert (row.elo, row.low, row.high) == (rating.elo, rating.low, rating.high)
    # Pairwise scores (see test_head_to_head): bob 4.5 of 6, ann 3.5 of 7, cat 2 of 7.
    assert [row.player for row in rows] == ["bob", "ann", "cat"]


def test_forfeits_are_counted_per_seat() -> None:
    forfeited = [set(), {2}, set(), {0, 2}]  # game 2: ann (seat 2); game 4: ann and cat
    rows = {row.player: row for row in summarize(GAMES, forfeited=forfeited, intervals=False)}
    assert {player: row.forfeits for player, row in rows.items()} == {"ann": 2, "bob": 0, "cat": 1}


def test_forfeits_must_match_the_games() -> None:
    with pytest.raises(ValueError, match="forfeited lists 1 games, but there are 4 games"):
        summarize(GAMES, forfeited=[set()], intervals=False)
    with pytest.raises(ValueError, match="game 2 has 2 seats but forfeited lists seats"):
        summarize(GAMES, forfeited=[(), (), (2,), ()], intervals=False)


def test_rows_are_json_friendly() -> None:
    row = summarize([(["x", "y"], [0, 1])], intervals=False)[0]
    assert isinstance(row, Row)
    data = row.to_json()
    assert json.loads(json.dumps(data)) == data
    assert data == {
        "player": "x",
        "games": 1,
        "wins": 1,
        "shared_wins": 0,
        "mean_rank": 1.0,
        "forfeits": 0,
        "elo": row.elo,
        "low": row.elo,
        "high": row.elo,
    }


def test_head_to_head() -> None:
    table = head_to_head(GAMES)
    # ann vs bob: game 1 win, game 2 loss, game 4 loss -> 1 of 3.  ann vs cat: win, loss, win, tie -> 2.5 of 4.
    # bob vs cat: win, tie, win -> 2.5 of 3.
    assert table == {
        ("ann", "bob"): (1.0, 3),
        ("bob", "ann"): (2.0, 3),
        ("ann", "cat"): (2.5, 4),
        ("cat", "ann"): (1.5, 4),
        ("bob", "cat"): (2.5, 3),
        ("cat", "bob"): (0.5, 3),
    }
    assert all(score + table[(b, a)][0] == count for (a, b), (score, count) in table.items())


def test_head_to_head_matrix_in_standings_order() -> None:
    games = GAMES + [(["dan", "eve"], [0, 1])]
    order = [row.player for row in summarize(games, intervals=False)]
    matrix = head_to_head_matrix(games, order)
    assert len(matrix) == len(order) == 5
    index = {player: i for i, player in enumerate(order)}
    assert matrix[index["bob"]][index["ann"]] == (2.0, 3)
    assert matrix[index["ann"]][index["ann"]] is None
    assert matrix[index["ann"]][index["dan"]] is None  # never met
    assert json.loads(json.dumps(matrix))[index["dan"]][index["eve"]] == [1.0, 1]


def test_no_games_no_rows() -> None:
    assert summarize([]) == []
    assert head_to_head([]) == {}


def test_bad_games_are_refused() -> None:
    with pytest.raises(ValueError, match="cannot sit twice"):
        summarize([(["a", "a"], [0, 1])])
    with pytest.raises(ValueError, match="cannot sit twice"):
        head_to_head([(["a", "a"], [0, 1])])
