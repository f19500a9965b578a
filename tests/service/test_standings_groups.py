"""A pool whose bots never all met, and one with forfeits, in ``GET /api/v1/standings`` and on the page
``/standings/card/standard``, on SQLite and PostgreSQL: two real rated tournaments of bots that never met (four bots,
and three of which one plays only illegal moves) show two groups, the larger first, each with its own anchor (mean 1500),
headed "Group 1 of 2 (4 bots)" and said not comparable; each row shows its forfeit rate and faults per 100 moves;
forfeited games are rated as losses by default and the page says so, and ``SORRY_ARENA_RATE_FORFEITS=off`` leaves
them out of the fit (the next refit, or a restart's upkeep, replaces the table fitted under the other setting) and
the page says that.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from ratings import pool
from service.poolrows import APART, NOT_RATED, RATED
from store.bottallies import fold_all
from store.models import RatingPool, Result
from tests.apikit import API, new_player
from tests.arenakit import (
    arena_app,
    create_tournament,
    illegal_choice,
    push_bots,
    random_choice,
    register,
    wait_done,
    wait_pool,
)
from tests.conftest import dispose
from tests.service.web.webkit import elements, page
from tournament.standings import tables, upkeep

CARD = {"players": 2, "pawns": 2}
SLACK_MS = 20_000  # the prompt bots' deadline: a loaded machine must not add a timeout fault the test counts


@pytest.fixture
def apart(database_url: str) -> Iterator[tuple[Flask, dict[str, int]]]:
    """An app and two rated tournaments it played, of bots that never met: a, b, c, d; and e, f and x, which plays
    only illegal moves (it forfeits every game that lasts three of its turns)."""
    app = arena_app(database_url)
    client = app.test_client()
    owner = new_player(client, "owner")
    behaviours = [random_choice] * 6 + [illegal_choice]
    with push_bots(*behaviours) as servers:
        bots = {
            name: register(client, owner, name, server.url)["id"]
            for name, server in zip("abcdefx", servers, strict=True)
        }
        for names in ("abcd", "efx"):
            created = create_tournament(
                client,
                owner,
                [bots[name] for name in names],
                game="card",
                settings=CARD,
                rounds=1,
                move_timeout_ms=SLACK_MS,
            )
            wait_done(client, created["id"])
    app.extensions["queue"].wait(timeout=60)
    with app.extensions["db_sessions"]() as session:
        fold_all(session, seconds=30)
        rated = session.scalar(select(func.count()).select_from(Result))
    wait_pool(client, rated)  # the refit is a job off the game path: it may come after the tournament is done
    yield app, bots
    dispose(app)


def api_standings(client: FlaskClient) -> dict[str, Any]:
    """The 2-seat card pool's table (the tournaments' table size)."""
    answer = client.get(f"{API}/standings", query_string={"game": "card", "variant": "standard", "table_size": 2})
    assert answer.status_code == 200
    body: dict[str, Any] = answer.get_json()
    return body


def rows_by_name(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in body["standings"]}


def test_two_groups_shown_apart_with_their_own_anchors_and_the_forfeits_beside(
    apart: tuple[Flask, dict[str, int]],
) -> None:
    app, bots = apart
    client = app.test_client()
    body = api_standings(client)
    assert body["groups"] == 2 and body["forfeits_rated"] is True
    assert body["notes"] == [RATED, APART.format(groups=2)]
    rows = rows_by_name(body)
    assert [row["name"] in "abcd" for row in body["standings"]] == [True] * 4 + [False] * 3  # the larger first
    assert {name: row["group"] for name, row in rows.items()} == {
        **dict.fromkeys("abcd", 1),
        **dict.fromkeys("efx", 2),
    }
    for number in (1, 2):
        ratings = [row["rating"] for row in body["standings"] if row["group"] == number]
        assert sum(ratings) / len(ratings) == pytest.approx(1500.0, abs=0.01)
    # the forfeits: x forfeited all its games, and its faults are every move it made
    with app.extensions["db_sessions"]() as session:
        results = session.scalars(select(Result)).all()
    played = {bot: sum(bot in result.bot_ids for result in results) for bot in bots.values()}
    forfeited = {
        bot: sum(result.bot_ids[seat] == bot for result in results for seat in result.forfeited)
        for bot in bots.values()
    }
    assert forfeited[bots["x"]] > 0  # (a game may end before its third fault in a row)
    for name, row in rows.items():
        assert row["forfeits"] == forfeited[bots[name]]
        assert row["forfeit_rate"] == pytest.approx(forfeited[bots[name]] / played[bots[name]], abs=1e-4)
    assert rows["x"]["forfeit_rate"] > 0 and rows["x"]["faults_per_100_moves"] == 100.0
    assert all(rows[name]["faults_per_100_moves"] == 0.0 for name in "abcdef")
    # the page: each group headed, the words, the rates
    html = page(client, "/standings/card/standard")
    assert len(elements(html, "tr", cls="group-heading")) == 2
    assert 0 < html.index("Group 1 of 2 (4 bots)") < html.index("Group 2 of 2 (3 bots)")
    assert "ratings are not comparable across groups" in html
    assert "Forfeited games are rated as losses" in html
    shown = {row["data-bot"]: row for row in elements(html, "tr", data_bot="*", data_rating="*")}
    assert {name: shown[name]["data-group"] for name in "abcdefx"} == {
        name: str(row["group"]) for name, row in rows.items()
    }
    assert shown["x"]["data-forfeit-rate"] == f"{rows['x']['forfeit_rate']:.4f}"
    assert shown["x"]["data-faults-per-100"] == "100.00"
    assert shown["a"]["data-faults-per-100"] == "0.00"


def test_forfeits_left_out_of_the_fit_when_the_setting_says_so(
    apart: tuple[Flask, dict[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, bots = apart
    client = app.test_client()
    rated = rows_by_name(api_standings(client))
    sessions = app.extensions["db_sessions"]
    with sessions() as session:
        assert upkeep.pools_behind(session) == []
    monkeypatch.setenv("SORRY_ARENA_RATE_FORFEITS", "off")
    with sessions() as session:
        assert upkeep.pools_behind(session) == [("card", "standard", 2)]  # a restart's upkeep refits it
        assert tables.refresh_pool(session, "card", "standard", 2) is True  # no new result: replaced all the same
        assert upkeep.pools_behind(session) == []
        stored = session.scalars(select(RatingPool)).one()
        assert stored.forfeits_rated is False
        results = session.scalars(select(Result)).all()
    body = api_standings(client)
    assert body["forfeits_rated"] is False and body["notes"] == [NOT_RATED, APART.format(groups=2)]
    rows = rows_by_name(body)
    clean = [(result.version_ids, result.ranks) for result in results if not result.forfeited]
    expected = {row.player: row for row in pool.standings(clean)}
    assert set(rows) == {name for name, bot in bots.items() if _version(results, bot) in expected}
    for name, row in rows.items():
        fitted = expected[_version(results, bots[name])]
        assert (row["rating"], row["low"], row["high"], row["games"]) == (
            fitted.rating,
            fitted.low,
            fitted.high,
            fitted.games,
        )
        assert row["forfeits"] == rated[name]["forfeits"] and row["forfeit_rate"] == rated[name]["forfeit_rate"]
    assert sum(row["games"] for row in rows.values()) == 2 * len(clean) < 2 * len(results)
    html = page(client, "/standings/card/standard")
    assert "Forfeited games are not rated" in html and "rated as losses" not in html
    # the default again: the next refit rates them
    monkeypatch.delenv("SORRY_ARENA_RATE_FORFEITS")
    with sessions() as session:
        tables.refresh_pool(session, "card", "standard", 2)
    assert api_standings(client)["forfeits_rated"] is True
    assert rows_by_name(api_standings(client)) == rated


def _version(results: list[Result], bot: int) -> int:
    """The version of ``bot`` seated in the results (each bot has one here)."""
    return next(
        version
        for result in results
        for seated, version in zip(result.bot_ids, result.version_ids, strict=True)
        if seated == bot
    )
