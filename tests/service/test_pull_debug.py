"""A pull bot's debug text: ``POST /api/v1/games/{id}/actions`` takes an optional ``debug`` string, kept with the
move as the game log keeps a push bot's (control characters removed, NUL and lone surrogates included, its first
1 KiB of UTF-8); ``null`` or no key is none; anything but a string is a 422 that names the field. The game record
of the finished game carries it. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from store.models import ActionRecord
from tests.apikit import API, Player, get_actions, started_game


def post(
    client: FlaskClient, game_id: int, player: Player, body: Any, content_type: str = "application/json"
) -> Any:
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post(
        f"{API}/games/{game_id}/actions", data=data, content_type=content_type, headers=player.headers
    )


def stored_debug(app: Flask, game_id: int) -> list[str | None]:
    with app.extensions["db_sessions"]() as session:
        return list(
            session.scalars(
                select(ActionRecord.debug).where(ActionRecord.game_id == game_id).order_by(ActionRecord.ply)
            )
        )


def play_one(client: FlaskClient, game_id: int, players: list[Player], ply: int, extra: dict[str, Any]) -> Any:
    """Submit the first action offered at ``ply`` with ``extra`` keys in the body."""
    for player in players:
        offered = get_actions(client, game_id, player)
        if offered["your_decision"]:
            assert offered["ply"] == ply
            return post(
                client, game_id, player, {"action": offered["actions"][0]["id"], "expected_ply": ply, **extra}
            )
    raise AssertionError(f"nobody is asked at ply {ply}")


def test_the_debug_text_is_kept_clean_and_short(app: Flask, client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {"pawns": 3}, seats=2, seed=4)
    sent: list[dict[str, Any]] = [
        {"debug": "searched 812 nodes\nbest\tplay:4\x07 done"},
        {"debug": "é" * 700},  # 1,400 bytes of UTF-8
        {"debug": None},
        {},
        {"debug": ""},
    ]
    for ply, extra in enumerate(sent):
        response = play_one(client, game_id, players, ply, extra)
        assert response.status_code == 200, response.get_data(as_text=True)
    # NUL and a lone surrogate, which no database stores, are cleaned away too (the body as a bot may send it)
    raw = '{"action": "%s", "expected_ply": 5, "debug": "a\\u0000b\\ud800c"}'
    asked = next(player for player in players if get_actions(client, game_id, player)["your_decision"])
    response = post(client, game_id, asked, raw % get_actions(client, game_id, asked)["actions"][0]["id"])
    assert response.status_code == 200, response.get_data(as_text=True)
    stored = stored_debug(app, game_id)
    assert stored[0] == "searched 812 nodes best play:4 done"
    assert stored[1] == "é" * 512  # 1 KiB, cut between letters
    assert stored[2:5] == [None, None, None]
    assert stored[5] == "ab?c"


def test_the_schema_path_and_bad_debug_texts(app: Flask, client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {"pawns": 1}, seats=2, seed=4)
    asked = next(player for player in players if get_actions(client, game_id, player)["your_decision"])
    action = get_actions(client, game_id, asked)["actions"][0]["id"]
    for body, field in (
        ({"action": action, "expected_ply": 0, "debug": 5}, "debug"),
        ({"action": action, "expected_ply": 0, "debug": ["x"]}, "debug"),
        ({"action": action, "expected_ply": 0, "debug": "x", "extra": 1}, "extra"),
        ({"action": action, "debug": "x", "extra": 1}, "expected_ply"),
    ):
        response = post(client, game_id, asked, body)
        assert response.status_code == 422, body
        assert field in response.get_json()["message"], response.get_json()
    assert stored_debug(app, game_id) == []
    # a body the fast path leaves to the schema (a ply written 0.0) keeps the text the same way
    response = post(client, game_id, asked, {"action": action, "expected_ply": 0.0, "debug": "via\nthe schema"})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert stored_debug(app, game_id) == ["via the schema"]
