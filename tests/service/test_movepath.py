"""The move path (``service/api/movepath.py``): a plain submission is answered before Flask's dispatch, exactly
as the documented view answers it; every other request reaches the view, body included; on SQLite and
PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import gameplay
from service.api import games
from tests.apikit import API, SHORT_CARD, Player, get_actions, started_game, submit


@pytest.fixture
def views(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The game ids of the submissions the Flask view answered."""
    called: list[int] = []
    view = games.Actions.post

    def counted(self: games.Actions, game_id: int) -> Any:
        called.append(game_id)
        return view(self, game_id)

    monkeypatch.setattr(games.Actions, "post", counted)
    return called


def first_move(client: FlaskClient, seed: int) -> tuple[int, Player, str]:
    """A new card game (seeded), the player asked first and its first legal action."""
    game_id, players = started_game(client, *SHORT_CARD, seed=seed)
    for player in players:
        asked = get_actions(client, game_id, player)
        if asked["your_decision"]:
            return game_id, player, asked["actions"][0]["id"]
    raise AssertionError("no seat is asked")


def test_a_plain_submission_skips_the_view_and_answers_as_the_view_does(
    client: FlaskClient, views: list[int]
) -> None:
    fast_game, fast_player, fast_action = first_move(client, seed=11)
    slow_game, slow_player, slow_action = first_move(client, seed=11)  # the same game again
    assert fast_action == slow_action

    fast = submit(client, fast_game, fast_player, fast_action, 0)
    assert fast.status_code == 200 and views == []
    # a query string sends the same submission to the view
    slow = client.post(
        f"{API}/games/{slow_game}/actions?why=view",
        json={"action": slow_action, "expected_ply": 0},
        headers=slow_player.headers,
    )
    assert slow.status_code == 200 and views == [slow_game]

    assert {**fast.get_json(), "game_id": None} == {**slow.get_json(), "game_id": None}
    assert fast.get_json()["ply"] == 1
    assert fast.headers["Content-Type"] == slow.headers["Content-Type"] == "application/json"
    assert int(fast.headers["Content-Length"]) == len(fast.get_data())


def test_a_body_the_schema_must_judge_reaches_the_view_whole(client: FlaskClient, views: list[int]) -> None:
    game_id, player, action = first_move(client, seed=5)
    extra = client.post(
        f"{API}/games/{game_id}/actions",
        json={"action": action, "expected_ply": 0, "colour": "red"},
        headers=player.headers,
    )
    assert extra.status_code == 422 and "colour" in extra.get_json()["message"]
    wrong_type = client.post(
        f"{API}/games/{game_id}/actions", json={"action": action, "expected_ply": "zero"}, headers=player.headers
    )
    assert wrong_type.status_code == 422 and "expected_ply" in wrong_type.get_json()["message"]
    # spaces and key order are JSON's own: still plain, and played
    body = json.dumps({"expected_ply": 0, "action": action}, indent=2)
    spaced = client.post(
        f"{API}/games/{game_id}/actions",
        data=body,
        headers={**player.headers, "Content-Type": "application/json; charset=utf-8"},
    )
    assert spaced.status_code == 200, spaced.get_data(as_text=True)
    assert views == [game_id, game_id]


def test_the_move_path_answers_errors_in_the_one_shape(client: FlaskClient, views: list[int]) -> None:
    game_id, player, action = first_move(client, seed=3)
    body = {"action": action, "expected_ply": 0}
    cases = [
        (client.post(f"{API}/games/{game_id}/actions", json=body), 401, "this needs a player's token"),
        (
            client.post(
                f"{API}/games/{game_id}/actions", json=body, headers={"Authorization": "Bearer sa_nobody"}
            ),
            401,
            "unknown token",
        ),
        (client.post(f"{API}/games/{2**31}/actions", json=body, headers=player.headers), 404, f"no game {2**31}"),
        (submit(client, game_id, player, action, 7), 409, "stale ply"),
        (submit(client, game_id, player, "play:nothing", 0), 409, "illegal action 'play:nothing'"),
    ]
    for response, code, message in cases:
        answer = response.get_json()
        assert response.status_code == code and answer["code"] == code, answer
        assert message in answer["message"] and set(answer) == {"code", "status", "message"}
    assert views == []
    assert submit(client, game_id, player, action, 0).status_code == 200  # nothing was played meanwhile


def test_an_unexpected_error_is_a_logged_500_that_tells_nothing(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    game_id, player, action = first_move(client, seed=9)

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("the secret internals")

    monkeypatch.setattr(gameplay.Moves, "submit", broken)
    response = submit(client, game_id, player, action, 0)
    assert response.status_code == 500
    assert response.get_json() == {"code": 500, "status": "Internal Server Error", "message": "internal error"}
    assert "the secret internals" in caplog.text  # in the log, not in the answer
    monkeypatch.undo()
    assert submit(client, game_id, player, action, 0).status_code == 200  # the request's connection was given back
