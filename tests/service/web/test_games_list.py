"""The page of games (``/games``) on SQLite and PostgreSQL pages by keyset: ``?before=<game id>``, newest first,
an "older" link while older games exist and none past the last, a link back to the newest, no page count; and the
statements that read a page never count the table, the older page reading from its cursor on."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event

from service.web import listings
from tests.apikit import create_game, new_player
from tests.service.web.webkit import elements, page


def listed(html: str) -> list[int]:
    return [int(row["data-game"]) for row in elements(html, "tr", **{"data-game": "*"})]


def test_games_page_by_keyset_with_an_older_link_while_there_is_more(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(listings, "PAGE_SIZE", 3)
    creator = new_player(client)
    ids = [create_game(client, creator)["id"] for _ in range(7)]
    newest_first = ids[::-1]
    seen: list[int] = []
    path = "/games"
    pages = 0
    while path:
        html = page(client, path)
        pages += 1
        shown = listed(html)
        assert shown == newest_first[len(seen) : len(seen) + 3]
        seen += shown
        older = elements(html, "a", rel="next")
        newest = elements(html, "a", rel="first")
        assert bool(newest) == (path != "/games")
        if newest:
            assert newest[0]["href"] == "/games"
        path = older[0]["href"] if older else ""
        if path:
            assert path == f"/games?before={shown[-1]}"
    assert seen == newest_first and pages == 3
    assert listed(page(client, "/games?before=1")) == []
    assert listed(page(client, f"/games?before={10**10 - 1}")) == newest_first[:3]
    assert "Page 1 of" not in page(client, "/games")


def test_a_games_page_reads_no_count(app: Flask, client: FlaskClient) -> None:
    creator = new_player(client)
    for _ in range(3):
        create_game(client, creator)
    engine = app.extensions["db_engine"]
    statements: list[str] = []

    def seen(conn: object, cursor: object, statement: str, *args: object) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        page(client, "/games?before=3")
        page(client, "/games")
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    reads = [statement for statement in statements if re.search(r"\bFROM games\b", statement)]
    assert reads
    assert not [statement for statement in reads if re.search(r"count\(", statement, re.IGNORECASE)]
    assert any(re.search(r"WHERE games\.id < ", statement) for statement in reads)
