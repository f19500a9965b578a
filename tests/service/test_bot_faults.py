"""A bot's faults reach its owner: ``GET /api/v1/bots/{id}/faults`` lists each faulted move's kind, detail (its
first 120 characters), latency and the bot's debug text; while the game runs only to the bot's owner (neither the
opponent's owner nor a spectator sees anything of it), once it is over to everyone, and the game viewer then shows
the detail and the debug text with the move. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

import engine
from engine.records import final_result
from service import db
from store import gamelog
from tests.apikit import API, Player, new_player
from tests.arenakit import arena_app, register
from tests.conftest import dispose

DETAIL = "status 500: " + "Traceback: KeyError 'bumps' " * 10
DEBUG = "searched 812 nodes\nbest: play:4\x07 (" + "é" * 600 + ")"


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url)
    yield app
    dispose(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def running_game(app: Flask, players: list[int]) -> int:
    """A card game between the bots' accounts ``players``, active, its first move a status fault of seat 0 (with
    a detail and a debug text) and its second a good move of seat 1 with a debug text of its own."""
    with app.app_context():
        session = db.session()
        game = gamelog.create(session, "card", {"pawns": 2, "players": 2}, 11, 2, players[0], players)
        state = gamelog.decode_state(game.state)
        made = []
        for ply, (fault, detail, debug) in enumerate([("status", DETAIL, DEBUG), (None, None, "mine")]):
            decision = engine.decision(state)
            assert decision is not None
            action = engine.fallback_action(state)
            engine.apply(state, action, decision.seat)
            made.append(gamelog.Move(ply, decision.seat, action, 12.5, fault, detail, debug))
        assert gamelog.save(session, gamelog.advance(game.id, made, state))
        session.commit()
        return game.id


def finish(app: Flask, game_id: int) -> None:
    """Play the game to its end with good moves (the fallback, chosen: no fault) and store its result, so that its
    record replays (a record that would not is never served)."""
    with app.app_context():
        session = db.session()
        stored = gamelog.position(session, game_id)
        assert stored is not None
        state, made = gamelog.decode_state(stored.state), []
        while (decision := engine.decision(state)) is not None:
            action = engine.fallback_action(state)
            engine.apply(state, action, decision.seat, events=False)
            made.append(gamelog.Move(stored.ply + len(made), decision.seat, action, 3.0))
        assert gamelog.save(session, gamelog.advance(game_id, made, state, engine.result(state)))
        assert gamelog.finish(session, game_id, stored.ply + len(made), final_result(engine.result(state), 2, []))
        session.commit()


def faults(client: FlaskClient, bot_id: int, player: Player | None, **query: Any) -> list[dict[str, Any]]:
    headers = player.headers if player else {}
    response = client.get(f"{API}/bots/{bot_id}/faults", query_string=query, headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    found: list[dict[str, Any]] = response.get_json()["faults"]
    return found


def test_the_owner_alone_sees_the_faults_of_a_running_game_and_everyone_once_it_is_over(
    app: Flask, client: FlaskClient
) -> None:
    mine, theirs = new_player(client, "author"), new_player(client, "rival")
    bot = register(client, mine, "faulty", None)
    other = register(client, theirs, "steady", None)
    game_id = running_game(app, [bot["player_id"], other["player_id"]])

    seen = faults(client, bot["id"], mine)
    assert len(seen) == 1
    fault = seen[0]
    assert (fault["game_id"], fault["game_status"], fault["ply"], fault["seat"]) == (game_id, "active", 0, 0)
    assert fault["fault"] == "status" and fault["latency_ms"] == 12.5
    assert fault["detail"] == DETAIL[:120]  # the first 120 characters
    assert fault["debug"].startswith("searched 812 nodes best: play:4 (éé")  # a newline a space, \x07 gone
    assert len(fault["debug"].encode()) <= 1024 and fault["debug"].endswith("é")  # cut at 1 KiB, not mid-letter
    assert faults(client, bot["id"], mine, game_id=game_id) == seen
    assert faults(client, bot["id"], mine, game_id=game_id + 1) == []

    # while it runs: nothing to the opponent's owner, a spectator, or the game viewer
    for someone in (theirs, None):
        assert faults(client, bot["id"], someone) == []
        response = client.get(f"{API}/bots/{bot['id']}/faults", headers=someone.headers if someone else {})
        assert "status 500" not in response.get_data(as_text=True)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "status 500" not in page and "searched 812" not in page and "mine" not in page.split("<table")[-1]
    for path in (f"/games/{game_id}/at/1", f"/games/{game_id}/steps?after=0"):
        fragment = client.get(path).get_data(as_text=True)
        assert "status 500" not in fragment and "searched 812" not in fragment

    finish(app, game_id)
    for someone in (theirs, None, mine):
        assert [(f["fault"], f["detail"], f["game_status"]) for f in faults(client, bot["id"], someone)] == [
            ("status", DETAIL[:120], "over")
        ]
    assert faults(client, other["id"], None) == []  # a good move is no fault
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert str(escape(DETAIL[:40])) in page and "searched 812 nodes" in page and ">mine</pre>" in page
    record = client.get(f"{API}/games/{game_id}/record").get_json()
    assert record["actions"][0]["debug"].startswith("searched 812") and record["actions"][1]["debug"] == "mine"
    assert "fault_detail" not in record["actions"][0]


def test_the_faults_are_paged_and_bad_queries_are_refused(app: Flask, client: FlaskClient) -> None:
    mine = new_player(client, "author")
    bot = register(client, mine, "faulty", None)
    other = register(client, mine, "steady", None)
    running_game(app, [bot["player_id"], other["player_id"]])
    response = client.get(f"{API}/bots/{bot['id']}/faults?page_size=1&page=1", headers=mine.headers)
    assert response.status_code == 200 and len(response.get_json()["faults"]) == 1
    assert '"total": 1' in response.headers["X-Pagination"]
    for query in ("page=0", "page_size=101", "game_id=0", "game_id=x"):
        response = client.get(f"{API}/bots/{bot['id']}/faults?{query}", headers=mine.headers)
        assert response.status_code in (400, 422), query
        assert response.get_json()["message"]
    assert client.get(f"{API}/bots/999/faults").status_code == 404
