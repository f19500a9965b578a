"""Long polling (``GET /games/{id}/actions?wait=SECONDS``): a waiter wakes when the game moves to its decision,
through the in-memory notifier within one app and through Redis across two apps (two processes' worth of state:
two ``create_app`` with their own Settings, sharing one database and one Redis)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

import engine
from runtime.wakeups import game_channel
from tests.apikit import API, get_actions, get_game, started_game, submit
from tests.conftest import dispose, make_app
from tests.service.longpolls import WAIT_S, WOKEN_S, until_watched

GAME, SETTINGS = "board", {"variant": "points"}


def seed_where_the_turn_passes() -> tuple[int, int, str, int]:
    """A seed whose first action (the first legal one) passes the decision to the other seat of a 2-seat game."""
    for seed in range(100):
        state = engine.new_game(GAME, {**SETTINGS, "players": 2}, seed)
        first = engine.decision(state).seat
        action = engine.legal_actions(state, first)[0].id
        engine.apply(state, action, first)
        if (asked := engine.decision(state)) is not None and asked.seat != first:
            return seed, first, action, 1 - first
    raise AssertionError("no seed passes the turn on the first action")


def poll_in_thread(client: Any, url: str, headers: dict[str, str]) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        started = time.monotonic()
        try:
            outcome["response"] = client.get(url, headers=headers)
        except BaseException as error:
            outcome["error"] = error
        outcome["answered_at"] = time.monotonic()
        outcome["elapsed"] = outcome["answered_at"] - started

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def wake_test(waiting_app: Any, moving_app: Any) -> dict[str, Any]:
    """Seat ``waiter`` long-polls on ``waiting_app``; the other seat moves through ``moving_app`` once it waits."""
    seed, mover, action, waiter = seed_where_the_turn_passes()
    client = moving_app.test_client()
    game_id, players = started_game(client, GAME, SETTINGS, seats=2, seed=seed)
    assert get_actions(client, game_id, players[waiter])["your_decision"] is False
    url = f"{API}/games/{game_id}/actions?wait={WAIT_S}"
    thread, outcome = poll_in_thread(waiting_app.test_client(), url, players[waiter].headers)
    until_watched(waiting_app, game_channel(game_id))
    assert thread.is_alive(), "the long poll returned before the game moved"
    moved_at = time.monotonic()
    assert submit(client, game_id, players[mover], action, 0).status_code == 200
    thread.join(timeout=WAIT_S + 30)
    assert not thread.is_alive(), "the long poll outlived its wait"
    outcome["after_move"] = outcome["answered_at"] - moved_at
    assert "error" not in outcome, outcome
    response = outcome["response"]
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["your_decision"] is True and body["ply"] == 1 and body["actions"], body
    assert body["decision"]["seat"] == waiter
    return outcome


def test_a_long_poll_wakes_when_the_game_moves_to_the_caller(app):
    outcome = wake_test(app, app)
    assert 0 <= outcome["after_move"] < WOKEN_S, outcome  # it waited for the move, and not for the whole wait


def test_a_long_poll_without_a_move_returns_after_its_wait(client):
    seed, mover, _, waiter = seed_where_the_turn_passes()
    game_id, players = started_game(client, GAME, SETTINGS, seats=2, seed=seed)
    started = time.monotonic()
    body = get_actions(client, game_id, players[waiter], wait=0.4)
    elapsed = time.monotonic() - started
    assert 0.35 <= elapsed < WOKEN_S, elapsed  # its own wait, not the longest one
    assert body["your_decision"] is False and body["actions"] == [] and body["ply"] == 0
    # the seat asked gets its answer at once, however long it offers to wait
    started = time.monotonic()
    body = get_actions(client, game_id, players[mover], wait=WAIT_S)
    assert time.monotonic() - started < WOKEN_S
    assert body["your_decision"] is True and body["actions"]


def test_a_long_poll_answers_at_once_when_the_game_is_over(client):
    game_id, players = started_game(client, "card", {"pawns": 1}, seats=2, seed=3)
    while (seat := get_game(client, game_id)["view"]["decision"]) is not None:
        offered = get_actions(client, game_id, players[seat["seat"]])
        assert (
            submit(client, game_id, players[seat["seat"]], offered["actions"][0]["id"], offered["ply"]).status_code
            == 200
        )
    started = time.monotonic()
    body = get_actions(client, game_id, players[0], wait=WAIT_S)
    assert time.monotonic() - started < WOKEN_S
    assert body["status"] == "over" and body["decision"] is None and body["actions"] == []


def test_a_long_poll_on_one_app_wakes_on_a_move_through_another_via_redis(database_url, redis_url):
    app_a = make_app(database_url, redis_url)
    app_b = make_app(database_url, redis_url)
    try:
        outcome = wake_test(app_a, app_b)
    finally:
        dispose(app_a)
        dispose(app_b)
    # without Redis app A would not hear of app B's move before its wait was up
    assert 0 <= outcome["after_move"] < WOKEN_S, outcome


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_two_apps_share_one_sqlite_file(database_url, redis_url):
    """The apps of the Redis test really are two: each has its own engine and notifier, one file between them."""
    app_a = make_app(database_url, redis_url)
    app_b = make_app(database_url, redis_url)
    try:
        assert app_a.extensions["db_engine"] is not app_b.extensions["db_engine"]
        assert app_a.extensions["notifier"] is not app_b.extensions["notifier"]
        player = app_a.test_client().post(f"{API}/players", json={"name": "ada"}).get_json()
        headers = {"Authorization": f"Bearer {player['token']}"}
        made = app_b.test_client().post(f"{API}/games", json={"game": "card", "seats": 2}, headers=headers)
        assert made.status_code == 201
        assert app_a.test_client().get(f"{API}/games/{made.get_json()['id']}").status_code == 200
    finally:
        dispose(app_a)
        dispose(app_b)
