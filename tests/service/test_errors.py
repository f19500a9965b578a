"""Errors of the game API: one JSON shape ``{code, status, message[, errors]}``; 401, 403, 404, 409 and 422 as
the issue says, a message naming the problem, and never a 500 for bad input (on SQLite and PostgreSQL)."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

import pytest
from flask import Flask

import engine
from service import errors
from tests.apikit import API, SHORT_CARD, create_game, get_game, new_player, started_game, submit, take_seat
from tests.store.test_database import deadlocked


def assert_error(response: Any, code: int, *fragments: str) -> dict[str, Any]:
    """The response is an error of the one shape, with ``code`` and a message containing every fragment."""
    assert response.status_code == code, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert set(body) - {"errors"} == {"code", "status", "message"}, body
    assert body["code"] == code and body["status"] == HTTPStatus(code).phrase
    assert isinstance(body["message"], str) and body["message"]
    for fragment in fragments:
        assert fragment in body["message"], body["message"]
    return body  # type: ignore[no-any-return]


@pytest.fixture
def game(client):
    """An active 2-seat card game, its players by seat, and the seat asked first."""
    game_id, players = started_game(client, *SHORT_CARD, seed=21)
    state = engine.new_game("card", get_game(client, game_id)["settings"], 21)
    return game_id, players, state


def test_a_missing_or_bad_token_is_a_401(client, game):
    game_id, _, _ = game
    for headers in ({}, {"Authorization": "Bearer sa_not-a-token"}, {"Authorization": "Basic abc"}):
        assert_error(client.post(f"{API}/games", json={"game": "card", "seats": 2}, headers=headers), 401)
        assert_error(client.get(f"{API}/games/{game_id}/actions", headers=headers), 401)
        assert_error(client.get(f"{API}/games/{game_id}/hands/0", headers=headers), 401)
        assert_error(client.post(f"{API}/games/{game_id}/seats", json={}, headers=headers), 401)
    assert_error(
        client.get(f"{API}/games/{game_id}", headers={"Authorization": "Bearer nope"}), 401, "unknown token"
    )
    assert_error(client.get(f"{API}/games/{game_id}", headers={"Authorization": "Bearer "}), 401, "Bearer")


def test_an_unknown_resource_is_a_404(client, game):
    game_id, players, _ = game
    headers = players[0].headers
    assert_error(client.get(f"{API}/games/9999", headers=headers), 404, "9999")
    assert_error(client.get(f"{API}/games/9999/actions", headers=headers), 404)
    assert_error(client.get(f"{API}/games/9999/events"), 404)
    assert_error(client.post(f"{API}/games/9999/seats", json={}, headers=headers), 404)
    assert_error(
        client.post(f"{API}/games/9999/actions", json={"action": "pass", "expected_ply": 0}, headers=headers), 404
    )
    assert_error(client.get(f"{API}/games/{game_id}/hands/7", headers=headers), 404, "seat 7")
    assert_error(client.get(f"{API}/nothing-here"), 404)
    assert_error(client.delete(f"{API}/games/{game_id}", headers=headers), 405)


def test_not_your_turn_is_a_409_naming_it(client, game):
    game_id, players, state = game
    other = 1 - engine.decision(state).seat
    body = assert_error(submit(client, game_id, players[other], "pass", 0), 409, "not your turn")
    assert get_game(client, game_id)["ply"] == 0, body


def test_a_stale_ply_is_a_409_naming_it(client, game):
    game_id, players, state = game
    seat = engine.decision(state).seat
    action = engine.legal_actions(state, seat)[0].id
    assert_error(submit(client, game_id, players[seat], action, 1), 409, "stale ply")
    assert submit(client, game_id, players[seat], action, 0).status_code == 200
    # the same submission again answers a ply that is gone
    assert_error(submit(client, game_id, players[seat], action, 0), 409, "stale ply")


def test_an_illegal_action_is_a_409_naming_it(client, game):
    game_id, players, state = game
    seat = engine.decision(state).seat
    assert_error(submit(client, game_id, players[seat], "play:99", 0), 409, "illegal action", "play:99")
    assert_error(submit(client, game_id, players[seat], "x" * 200, 0), 409, "illegal action")
    assert get_game(client, game_id)["ply"] == 0


def test_acting_without_a_seat_is_a_403_and_before_the_start_a_409(client, game):
    game_id, _, _ = game
    eve = new_player(client, "eve")
    assert_error(submit(client, game_id, eve, "pass", 0), 403, "no seat")
    assert_error(client.get(f"{API}/games/{game_id}/actions", headers=eve.headers), 403, "no seat")
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    open_game = create_game(client, ada, "card", {}, seats=2)["id"]
    take_seat(client, open_game, ada)
    assert_error(submit(client, open_game, ada, "pass", 0), 409, "not started")
    take_seat(client, open_game, bob)
    assert_error(client.post(f"{API}/games/{open_game}/seats", json={}, headers=eve.headers), 409, "no open seat")


def test_seat_conflicts_are_409s_and_bad_seats_422s(client):
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    game_id = create_game(client, ada, "card", {}, seats=3)["id"]
    take_seat(client, game_id, ada, 1)
    assert_error(client.post(f"{API}/games/{game_id}/seats", json={"seat": 1}, headers=bob.headers), 409, "taken")
    assert_error(client.post(f"{API}/games/{game_id}/seats", json={}, headers=ada.headers), 409, "already")
    assert_error(client.post(f"{API}/games/{game_id}/seats", json={"seat": 3}, headers=bob.headers), 422, "seat")
    assert_error(client.post(f"{API}/games/{game_id}/seats", json={"seat": -1}, headers=bob.headers), 422)


BAD_GAMES = [
    ({"game": "chess", "seats": 2}, "game"),
    ({"game": "card"}, "seats"),
    ({"game": "card", "seats": 5}, "seats"),
    ({"game": "card", "seats": "two"}, "seats"),
    ({"game": "board", "seats": 2, "settings": {"variant": "solo"}}, "variant"),
    ({"game": "board", "seats": 3, "settings": {"variant": "team"}}, "4 players"),
    ({"game": "board", "seats": 2, "settings": {"players": 3}}, "disagree"),
    ({"game": "card", "seats": 2, "settings": {"deck": {"7": "x"}}}, "deck"),
    ({"game": "card", "seats": 2, "settings": {"pawns": 10**30}}, "pawns"),
    ({"game": "card", "seats": 2, "settings": [1]}, "settings"),
    ({"game": "card", "seats": 2, "seed": -1}, "seed"),
    ({"game": "card", "seats": 2, "seed": 2**63}, "seed"),
    ({"game": "card", "seats": 2, "colour": "red"}, "colour"),
]


def test_a_bad_game_is_a_422_naming_the_field(client):
    ada = new_player(client)
    for body, fragment in BAD_GAMES:
        assert_error(client.post(f"{API}/games", json=body, headers=ada.headers), 422, fragment)
    assert client.get(f"{API}/games").get_json() == []


def test_malformed_bodies_are_422s(client, game):
    game_id, players, _ = game
    headers = players[0].headers
    url = f"{API}/games/{game_id}/actions"
    assert_error(client.post(url, data="{not json", headers={**headers, "Content-Type": "application/json"}), 422)
    assert_error(client.post(url, json=["pass", 0], headers=headers), 422)
    assert_error(client.post(url, json={"action": "pass"}, headers=headers), 422, "expected_ply")
    assert_error(client.post(url, json={"action": "", "expected_ply": 0}, headers=headers), 422, "action")
    assert_error(client.post(url, json={"action": "pass", "expected_ply": -1}, headers=headers), 422)
    assert_error(client.post(url, json={"action": 7, "expected_ply": 0}, headers=headers), 422, "action")
    assert_error(client.post(url, json={"action": "a" * 201, "expected_ply": 0}, headers=headers), 422)
    body = assert_error(client.post(f"{API}/players", json={}), 422, "name")
    assert body["errors"]  # each invalid field's messages
    assert_error(client.post(f"{API}/players", json={"name": ""}), 422, "name")
    assert_error(client.post(f"{API}/players", json={"name": "n" * 65}), 422, "name")
    assert_error(client.post(f"{API}/players", data="x" * 70_000, content_type="application/json"), 413)


def test_malformed_queries_are_422s(client, game):
    game_id, players, _ = game
    for query in ("page=0", "page=abc", "page_size=0", "page_size=1000", "status=lost", "game=chess", "player=0"):
        assert_error(client.get(f"{API}/games?{query}"), 422)
    for query in ("wait=31", "wait=-1", "wait=abc", "wait=nan", "wait=inf"):
        assert_error(client.get(f"{API}/games/{game_id}/actions?{query}", headers=players[0].headers), 422, "wait")
    for query in ("since=-2", "since=x", "limit=0", "limit=1001"):
        assert_error(client.get(f"{API}/games/{game_id}/events?{query}"), 422)


# Numbers beyond the database's integer columns (PostgreSQL INTEGER: 2**31 - 1; SQLite: 2**63 - 1) are bad input
# like any other: a 404 for an id that cannot exist, a 422 (or an empty answer) for a query parameter, never a 500.
HUGE = [2**31, 2**63, 10**20]


def server_errors(client, requests):
    """The (method, url, status) of every request answered with a 5xx."""
    failed = []
    for method, url, kwargs in requests:
        response = client.open(url, method=method, **kwargs)
        if response.status_code >= 500:
            failed.append((method, url, response.status_code))
    return failed


def test_a_huge_game_id_is_a_404_not_a_500(client, game):
    _, players, _ = game
    headers = players[0].headers
    requests = []
    for number in HUGE:
        requests += [
            ("GET", f"{API}/games/{number}", {}),
            ("GET", f"{API}/games/{number}/events", {}),
            ("GET", f"{API}/games/{number}/actions", {"headers": headers}),
            ("GET", f"{API}/games/{number}/hands/0", {"headers": headers}),
            ("POST", f"{API}/games/{number}/seats", {"json": {}, "headers": headers}),
            (
                "POST",
                f"{API}/games/{number}/actions",
                {"json": {"action": "p", "expected_ply": 0}, "headers": headers},
            ),
        ]
    assert server_errors(client, requests) == []
    for method, url, kwargs in requests:
        assert_error(client.open(url, method=method, **kwargs), 404)


def test_huge_query_numbers_are_not_a_500(client, game):
    game_id, _, _ = game
    urls = [
        url
        for number in HUGE
        for url in (
            f"{API}/games?player={number}",
            f"{API}/games?page={number}",
            f"{API}/games?before={number}",
            f"{API}/games/{game_id}/events?since={number}",
        )
    ]
    assert server_errors(client, [("GET", url, {}) for url in urls]) == []
    for url in urls:
        response = client.get(url)
        if response.status_code == 200:  # an empty page is a fine answer too
            assert response.get_json() in ([], {"game_id": game_id, "events": [], "replay": None})
        else:
            assert_error(response, 422)


def test_a_huge_expected_ply_or_hand_seat_is_not_a_500(client, game):
    game_id, players, _ = game
    for ply in (2**31, 2**63):
        late = submit(client, game_id, players[0], "pass", ply)
        if late.status_code == 409:
            assert_error(late, 409, "stale ply")
        else:  # or refused as out of range, as a malformed body
            assert_error(late, 422, "expected_ply")
    assert_error(client.get(f"{API}/games/{game_id}/hands/{2**64}", headers=players[0].headers), 404)


def test_a_name_with_a_nul_character_is_not_a_500(client):
    # PostgreSQL text cannot hold NUL: the service must refuse it (422) or store it, never fail
    response = client.post(f"{API}/players", json={"name": "a\u0000b"})
    assert response.status_code in (201, 422), response.get_data(as_text=True)
    if response.status_code == 422:
        assert_error(response, 422, "name")


def test_errors_show_no_traceback(client, game):
    game_id, players, _ = game
    for response in (
        client.post(
            f"{API}/games/{game_id}/actions",
            data=b"\xff\xfe",
            headers={**players[0].headers, "Content-Type": "application/json"},
        ),
        client.get(f"{API}/games/{game_id}/actions?wait=1e999", headers=players[0].headers),
        client.get(f"{API}/games?page_size=-5"),
    ):
        text = response.get_data(as_text=True)
        assert response.status_code == 422, text
        assert "Traceback" not in text and 'File "' not in text


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_deadlock_is_a_503_that_asks_for_the_request_again_and_a_bug_a_500(
    app: Flask, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A transaction PostgreSQL gave up to another's is no fault of the request: a 503 with ``Retry-After``, logged
    in one line naming the error; any other exception stays a 500 that tells nothing, logged with its traceback."""
    deadlock = deadlocked(database_url)
    with app.test_request_context(), caplog.at_level(logging.WARNING, logger=errors.log.name):
        busy = errors.unexpected_error(deadlock)
        bug = errors.unexpected_error(ValueError("a bug"))
    body = assert_error(busy, 503, "the database could not complete this request", "send it again")
    assert busy.headers["Retry-After"] == str(errors.DATABASE_RETRY_AFTER_S)
    assert "deadlock" not in body["message"]  # the database's own words stay in the log
    assert_error(bug, 500, "internal error")
    warning, error = [record for record in caplog.records if record.name == errors.log.name]
    assert warning.levelno == logging.WARNING and warning.exc_info is None
    assert "deadlock detected" in warning.getMessage() and "\n" not in warning.getMessage()
    assert error.levelno == logging.ERROR and error.exc_info is not None
