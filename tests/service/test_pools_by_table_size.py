"""A pool per table size, on SQLite and PostgreSQL: the same two bots play a rated 2-seat and a rated 4-seat card
tournament (real push bots, real workers); ``GET /api/v1/standings`` gives one table per ``table_size``, each fitted
on its own games only, the standings page one table per table size that has games (headed "2 seats", "4 seats"),
and the bot's page and ``GET /bots/{id}`` its rating per table size. Nothing refits a pool on the game path: the
tables come from the refit job, which the tests wait for."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from ratings import pool
from service.versions import latest_versions
from store.models import RatingPool, Result
from tests.apikit import API, new_player
from tests.arenakit import arena_app, create_tournament, push_bots, random_choice, register, wait_done, wait_pool
from tests.conftest import dispose
from tests.service.web.webkit import elements, page


@pytest.fixture
def mixed(database_url: str) -> Iterator[tuple[Flask, list[int], dict[int, dict[str, Any]]]]:
    """An app whose card pool has a rated 2-seat tournament of bots a and b and a rated 4-seat one of a, b, c and d;
    the bots' ids and the tournaments (by table size), once both pools' tables count every result."""
    app = arena_app(database_url)
    client = app.test_client()
    owner = new_player(client, "owner")
    with push_bots(*[random_choice] * 4) as servers:
        bots = [
            register(client, owner, name, server.url)["id"] for name, server in zip("abcd", servers, strict=True)
        ]
        two = create_tournament(client, owner, bots[:2], game="card", settings={"pawns": 1}, rounds=3)
        four = create_tournament(
            client, owner, bots, game="card", settings={"players": 4, "pawns": 1}, table_size=4, rounds=1, seed=8
        )
        done = {2: wait_done(client, two["id"]), 4: wait_done(client, four["id"])}
    for size, tournament in done.items():
        wait_pool(client, tournament["progress"]["total"], table_size=size)
    yield app, bots, done
    dispose(app)


def standings(client: FlaskClient, table_size: int | None) -> dict[str, Any]:
    asked = {"game": "card", "variant": "standard"} | ({} if table_size is None else {"table_size": table_size})
    answer = client.get(f"{API}/standings", query_string=asked)
    assert answer.status_code == 200, answer.get_json()
    body: dict[str, Any] = answer.get_json()
    return body


def test_each_table_size_is_a_pool_fitted_on_its_own_games(
    mixed: tuple[Flask, list[int], dict[int, dict[str, Any]]],
) -> None:
    app, bots, _ = mixed
    client = app.test_client()
    two, four = standings(client, 2), standings(client, 4)
    assert (two["table_size"], four["table_size"]) == (2, 4)
    assert standings(client, None) == two  # 2 seats unless asked, as a tournament's default
    assert sorted(row["bot_id"] for row in two["standings"]) == bots[:2]
    assert sorted(row["bot_id"] for row in four["standings"]) == bots
    assert standings(client, 3) == {
        "game": "card",
        "variant": "standard",
        "table_size": 3,
        "games": 0,
        "updated_at": None,
        "groups": 0,
        "forfeits_rated": True,
        "notes": ["forfeited games are rated as losses"],
        "standings": [],
    }
    with app.extensions["db_sessions"]() as session:
        assert sorted(session.scalars(select(RatingPool.table_size))) == [2, 4]
        results = session.execute(select(Result.version_ids, Result.ranks).order_by(Result.id)).all()
        for size, shown in ((2, two), (4, four)):
            # the table of this size's results alone: no game of the other size moved it
            games = [(list(versions), list(ranks)) for versions, ranks in results if len(versions) == size]
            assert len(games) == shown["games"]
            alone = {row.player: row.rating for row in pool.standings(games)}
            stored = session.scalars(select(RatingPool).where(*RatingPool.key("card", "standard", size))).one()
            fitted = {int(row["version_id"]): float(row["rating"]) for row in stored.table}
            assert fitted == pytest.approx(alone, abs=1e-6)
            assert [row["rating"] for row in shown["standings"]] == [
                row["rating"] for row in latest_versions(stored.table)
            ]


@pytest.mark.parametrize("table_size", ["1", "5", "two", ""])
def test_a_bad_table_size_is_a_422(database_url: str, table_size: str) -> None:
    app = arena_app(database_url)
    try:
        answer = app.test_client().get(
            f"{API}/standings", query_string={"game": "card", "variant": "standard", "table_size": table_size}
        )
        assert answer.status_code == 422, answer.get_data(as_text=True)
        assert "table_size" in answer.get_json()["errors"]["query"]
    finally:
        dispose(app)


def test_the_pages_show_a_table_and_a_rating_per_table_size(
    mixed: tuple[Flask, list[int], dict[int, dict[str, Any]]],
) -> None:
    app, bots, _ = mixed
    client = app.test_client()
    html = page(client, "/standings/card/standard")
    sections = elements(html, "section", "pool-size")
    assert [section["data-table-size"] for section in sections] == ["2", "4"]  # none for 3 seats: no game
    assert re.search(r'id="seats-2"[^>]*>\s*<h2>2 seats</h2>', html)
    assert re.search(r'id="seats-4"[^>]*>\s*<h2>4 seats</h2>', html)
    two_part, four_part = html.split('id="seats-4"')
    for part, body in ((two_part, standings(client, 2)), (four_part, standings(client, 4))):
        rows = elements(part, "tr", data_bot_id="*", data_rating="*")
        assert [(int(row["data-bot-id"]), row["data-rating"]) for row in rows] == [
            (row["bot_id"], f"{row['rating']:.1f}") for row in body["standings"]
        ]
    expected = {
        size: next(row for row in standings(client, size)["standings"] if row["bot_id"] == bots[0])
        for size in (2, 4)
    }
    bot_html = page(client, f"/bots/{bots[0]}")
    lines = elements(bot_html, "section", "bot-pool")
    assert [(line["data-table-size"], line["data-rating"]) for line in lines] == [
        (str(size), f"{expected[size]['rating']:.1f}") for size in (2, 4)
    ]
    assert "standard · 2 seats</a>" in bot_html and "standard · 4 seats</a>" in bot_html
    spans = elements(bot_html, "span", "pool-rating")
    assert [(span["data-table-size"], span["data-rating"]) for span in spans] == [
        (str(size), f"{expected[size]['rating']:.1f}") for size in (2, 4)
    ]
    detail = client.get(f"{API}/bots/{bots[0]}").get_json()
    ratings = detail["versions"][-1]["ratings"]
    assert [(row["game"], row["variant"], row["table_size"]) for row in ratings] == [
        ("card", "standard", 2),
        ("card", "standard", 4),
    ]
    assert [row["rating"] for row in ratings] == [expected[2]["rating"], expected[4]["rating"]]
    assert [row["games"] for row in ratings] == [expected[2]["games"], expected[4]["games"]]
    index = page(client, "/")
    assert re.search(r'data-pool="card/standard"[\s\S]*?seats\)', index)
