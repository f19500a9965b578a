"""The inbox path (``service/api/inboxpath.py``): a plain ``GET /decisions`` is answered before Flask's dispatch,
exactly as the documented view answers it (status, headers, body, a 304, the errors); every other query reaches the
view; on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask, has_request_context
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service import gameplay
from service.api import decisions
from tests.apikit import API, SHORT_CARD, Player, started_game

VIEW_ONLY = "limit=50"
"""A query the view reads as a plain one (the default limit), which the inbox path leaves to the view."""


@pytest.fixture
def views(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The reads answered by the view's function (``decisions.inbox``): :func:`counting`'s notes."""
    called: list[dict[str, Any]] = []
    monkeypatch.setattr(decisions, "inbox", counting(decisions.inbox, called))
    return called


def counting(inbox: Any, called: list[dict[str, Any]]) -> Any:
    """``inbox``, noting each call's query (its query string as ``path``) in ``called``, and whether Flask's
    dispatch made it."""

    def counted(player_id: int, wait: float, limit: int, texts: bool, environ: dict[str, Any]) -> Any:
        called.append(
            {
                "wait": wait,
                "limit": limit,
                "texts": texts,
                "path": environ.get("QUERY_STRING"),
                "flask": has_request_context(),  # the view's call (Flask's dispatch), not the inbox path's
            }
        )
        return inbox(player_id, wait, limit, texts, environ)

    return counted


def read(client: FlaskClient, player: Player | None, query: str = "", **headers: str) -> TestResponse:
    auth = player.headers if player is not None else {}
    return client.get(f"{API}/decisions" + (f"?{query}" if query else ""), headers={**auth, **headers})


def same(fast: TestResponse, slow: TestResponse) -> None:
    """The two answers are one: status, every header, body."""
    assert fast.status_code == slow.status_code
    assert sorted(fast.headers.items()) == sorted(slow.headers.items())
    assert fast.get_data() == slow.get_data()


def test_a_plain_read_skips_the_view_and_answers_as_the_view_does(client: FlaskClient) -> None:
    calls: list[dict[str, Any]] = []
    inbox = decisions.inbox
    _, players = started_game(client, *SHORT_CARD, seed=11)
    _, more = started_game(client, *SHORT_CARD, seed=12)
    asked = next(player for player in players if read(client, player).get_json()["decisions"])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decisions, "inbox", counting(inbox, calls))
        for query, headers in [
            ("", {}),
            ("wait=0", {}),
            ("wait=0.25", {"Accept-Language": "de"}),
        ]:
            fast = read(client, asked, query, **headers)
            slow = read(client, asked, VIEW_ONLY, **headers)
            assert fast.status_code == 200 and fast.get_json()["decisions"], fast.get_json()
            same(fast, slow)
            assert fast.headers["ETag"] and fast.headers["Vary"] == "Authorization, Accept-Language"
            # the 304 of a client whose ETag still matches
            tag = fast.headers["ETag"]
            same(
                read(client, asked, query, **{"If-None-Match": tag}),
                read(client, asked, VIEW_ONLY, **{"If-None-Match": tag}),
            )
            assert read(client, asked, query, **{"If-None-Match": tag}).status_code == 304
    # the view's reads came through Flask with its query string; the others did not
    assert {call["path"] for call in calls if not call["flask"]} == {"", "wait=0", "wait=0.25"}
    assert {call["path"] for call in calls if call["flask"]} == {VIEW_ONLY}
    assert all(call["limit"] == 50 and call["texts"] is False for call in calls)
    assert [call["wait"] for call in calls if call["path"] == "wait=0.25"] == [0.25] * 3
    # a player with no decision now: an empty inbox, the same both ways
    idle = next(player for player in more if not read(client, player).get_json()["decisions"])
    same(read(client, idle, "wait=0"), read(client, idle, VIEW_ONLY))


def test_other_queries_reach_the_view_and_its_schema(client: FlaskClient, views: list[dict[str, Any]]) -> None:
    _, players = started_game(client, *SHORT_CARD, seed=5)
    player = players[0]
    for query in ("wait=31", "wait=-1", "wait=nan", "wait=abc", "wait=30.0000001"):
        answer = read(client, player, query)
        assert answer.status_code == 422 and "wait" in answer.get_json()["message"], (query, answer.get_json())
    assert views == []  # refused by the schema, before the view's function
    for query in ("wait=0&wait=1", "wait=1e-1", "texts=true", "limit=1", "wait=0&limit=1", "wait=00.5", "wait=30"):
        assert read(client, player, query).status_code == 200, query
    # Flask's reads, in order; a plain wait (00.5, 30) is the inbox path's
    assert [call["wait"] for call in views if not call["flask"]] == [0.5, 30.0]
    assert [call["path"] for call in views if call["flask"]] == [
        "wait=0&wait=1",
        "wait=1e-1",
        "texts=true",
        "limit=1",
        "wait=0&limit=1",
    ]


def test_the_inbox_path_answers_errors_as_the_view_does(client: FlaskClient) -> None:
    _, players = started_game(client, *SHORT_CARD, seed=3)
    cases = [
        (None, {}, 401, "this needs a player's token"),
        (None, {"Authorization": "Bearer sa_nobody"}, 401, "unknown token"),
        (None, {"Authorization": "Basic abc"}, 401, "must be 'Bearer <token>'"),
    ]
    for player, headers, code, message in cases:
        fast, slow = read(client, player, "wait=0", **headers), read(client, player, VIEW_ONLY, **headers)
        same(fast, slow)
        answer = fast.get_json()
        assert fast.status_code == code and answer["code"] == code and message in answer["message"], answer
        assert set(answer) == {"code", "status", "message"}
    assert read(client, players[0], "wait=0").status_code == 200


def test_an_unexpected_error_is_a_logged_500_that_tells_nothing(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _, players = started_game(client, *SHORT_CARD, seed=9)

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("the secret internals")

    monkeypatch.setattr(gameplay.Moves, "pending", broken)
    response = read(client, players[0], "wait=0")
    assert response.status_code == 500
    assert response.get_json() == {"code": 500, "status": "Internal Server Error", "message": "internal error"}
    assert "the secret internals" in caplog.text  # in the log, not in the answer
    monkeypatch.undo()
    assert read(client, players[0], "wait=0").status_code == 200  # the request's connection was given back
