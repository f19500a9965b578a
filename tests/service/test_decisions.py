"""The decisions inbox (``GET /api/v1/decisions?wait=``): every game where the caller must decide now, with the ply,
the decision, its view and its legal actions; long polls that wake on a move or a game's start, in one app and
through Redis across two apps; and whole games played through it alone (on SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

import pytest

import engine
from runtime.wakeups import player_channel
from tests.apikit import (
    API,
    as_json,
    create_game,
    get_actions,
    get_decisions,
    get_events,
    get_game,
    new_player,
    started_game,
    submit,
    take_seat,
)
from tests.conftest import dispose, make_app
from tests.service.longpolls import WAIT_S, WOKEN_S, until_watched


def state_of(client: Any, game_id: int, seed: int, game: str = "card") -> Any:
    """The engine state of a game, rebuilt from its settings, seed and (once over, public) action log."""
    settings = get_game(client, game_id)["settings"]
    return engine.new_game(game, settings, seed)


def test_the_inbox_lists_every_game_where_the_caller_must_decide(client):
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    seeds = [11, 12, 13, 14]
    states = {}
    for seed in seeds:
        game_id = create_game(client, ada, "card", {"pawns": 2}, seats=2, seed=seed)["id"]
        take_seat(client, game_id, ada, 0)
        take_seat(client, game_id, bob, 1)
        states[game_id] = state_of(client, game_id, seed)
    waiting = create_game(client, ada, "card", {}, seats=2)["id"]  # open: nobody decides there yet
    take_seat(client, waiting, ada, 0)
    for seat, player in enumerate((ada, bob)):
        inbox = get_decisions(client, player)
        expected = sorted(game_id for game_id, state in states.items() if engine.decision(state).seat == seat)
        assert [d["game_id"] for d in inbox["decisions"]] == expected
        assert inbox["games"] == len(seeds) and inbox["more"] is False
        for decision in inbox["decisions"]:
            state = states[decision["game_id"]]
            asked = engine.decision(state)
            assert decision["ply"] == 0 and decision["seat"] == seat and decision["game"] == "card"
            assert decision["decision"] == {"seat": asked.seat, "kind": asked.kind}
            assert decision["deadline"] is None
            assert decision["view"] == as_json(engine.view(state, seat))  # its own seat's view, hand included
            legal = engine.legal_actions(state, seat)
            assert decision["actions"] == as_json([action.to_json() for action in legal])
        with_texts = get_decisions(client, player, texts="true")
        assert [d["game_id"] for d in with_texts["decisions"]] == expected
        for decision in with_texts["decisions"]:
            offered = get_actions(client, decision["game_id"], player)["actions"]
            assert decision["actions"] == offered  # the same as GET actions, texts included
    eve = new_player(client, "eve")
    assert get_decisions(client, eve) == {"decisions": [], "more": False, "games": 0}


def test_the_inbox_needs_a_token_and_checks_its_query(client):
    assert client.get(f"{API}/decisions").status_code == 401
    ada = new_player(client)
    for query in ("wait=31", "wait=-1", "wait=x", "limit=0", "limit=501"):
        response = client.get(f"{API}/decisions?{query}", headers=ada.headers)
        assert response.status_code == 422, query
        assert set(response.get_json()) >= {"code", "status", "message"}


def test_the_inbox_keeps_to_its_limit_and_gives_an_etag(client):
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    seeds = [
        seed for seed in range(100) if engine.decision(engine.new_game("board", {"players": 2}, seed)).seat == 0
    ]
    for seed in seeds[:3]:  # games where ada (seat 0) decides first
        game_id = create_game(client, ada, "board", {}, seats=2, seed=seed)["id"]
        take_seat(client, game_id, ada, 0)
        take_seat(client, game_id, bob, 1)
    everything = get_decisions(client, ada)
    assert len(everything["decisions"]) == 3 and everything["more"] is False
    first = get_decisions(client, ada, limit=2)
    assert first["decisions"] == everything["decisions"][:2] and first["more"] is True
    response = client.get(f"{API}/decisions", headers=ada.headers)
    tag = response.headers["ETag"]
    again = client.get(f"{API}/decisions", headers={**ada.headers, "If-None-Match": tag})
    assert again.status_code == 304 and again.get_data() == b""
    decision = everything["decisions"][0]
    assert submit(client, decision["game_id"], ada, decision["actions"][0]["id"], 0).status_code == 200
    moved = client.get(f"{API}/decisions", headers={**ada.headers, "If-None-Match": tag})
    assert moved.status_code == 200 and moved.headers["ETag"] != tag


def test_whole_games_are_played_through_the_inbox_alone(client):
    """Two players, three games at once: each loops inbox then moves, as a bot playing many games would."""
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    players = (ada, bob)
    games = {}
    for seed in (21, 22, 23):
        game_id = create_game(client, ada, "card", {"pawns": 1}, seats=2, seed=seed)["id"]
        take_seat(client, game_id, ada, 0)
        take_seat(client, game_id, bob, 1)
        games[game_id] = seed
    rng = random.Random(5)
    played: dict[int, list[str]] = {game_id: [] for game_id in games}
    for _ in range(5_000):
        moved = False
        for player in players:
            for decision in get_decisions(client, player)["decisions"]:
                game_id, ply, actions = decision["game_id"], decision["ply"], decision["actions"]
                while True:  # answer, and again while the answer says so (no GET in between)
                    action = rng.choice(actions)["id"]
                    response = submit(client, game_id, player, action, ply)
                    assert response.status_code == 200, response.get_data(as_text=True)
                    played[game_id].append(action)
                    body = response.get_json()
                    assert body["ply"] == ply + 1
                    if not body["your_decision"]:
                        break
                    ply, actions = body["ply"], body["actions"]
                moved = True
        if not moved:
            break
    assert all(get_game(client, game_id)["status"] == "over" for game_id in games)
    assert get_decisions(client, ada) == {"decisions": [], "more": False, "games": 0}
    for game_id, seed in games.items():
        record = get_events(client, game_id)["replay"]
        assert record["actions"] == played[game_id] and record["seed"] == seed
        assert engine.is_over(engine.replay("card", record["settings"], seed, record["actions"]))


def long_poll(app: Any, player: Any, wait: float) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        started = time.monotonic()
        try:
            outcome["response"] = app.test_client().get(f"{API}/decisions?wait={wait}", headers=player.headers)
        except BaseException as error:
            outcome["error"] = error
        outcome["answered_at"] = time.monotonic()
        outcome["elapsed"] = outcome["answered_at"] - started

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def wakes_on_a_move(waiting_app: Any, moving_app: Any) -> dict[str, Any]:
    """Seat 1 long-polls its inbox on ``waiting_app`` while seat 0 (asked first) moves through ``moving_app``."""
    client = moving_app.test_client()
    seed = next(s for s in range(100) if hands_over("board", s))
    game_id, (ada, bob) = started_game(client, "board", {}, seats=2, seed=seed)
    assert get_decisions(client, bob)["decisions"] == []
    thread, outcome = long_poll(waiting_app, bob, WAIT_S)
    until_watched(waiting_app, player_channel(bob.id))
    assert thread.is_alive(), "the long poll returned before the game moved"
    state = state_of(client, game_id, seed, "board")
    action = engine.legal_actions(state, 0)[0].id
    moved_at = time.monotonic()
    assert submit(client, game_id, ada, action, 0).status_code == 200
    thread.join(timeout=WAIT_S + 30)
    assert not thread.is_alive(), "the long poll outlived its wait"
    outcome["after_move"] = outcome["answered_at"] - moved_at
    assert "error" not in outcome, outcome
    body = outcome["response"].get_json()
    assert [(d["game_id"], d["ply"], d["seat"]) for d in body["decisions"]] == [(game_id, 1, 1)]
    return outcome


def hands_over(game: str, seed: int) -> bool:
    """Whether seat 0 decides first and its first legal action hands the decision to seat 1."""
    state = engine.new_game(game, {"players": 2}, seed)
    if engine.decision(state).seat != 0:
        return False
    engine.apply(state, engine.legal_actions(state, 0)[0].id, 0)
    return engine.decision(state).seat == 1


def test_the_inbox_long_poll_wakes_when_a_game_moves_to_the_caller(app):
    outcome = wakes_on_a_move(app, app)
    assert 0 <= outcome["after_move"] < WOKEN_S, outcome  # it waited for the move, and not for the whole wait


def test_the_inbox_long_poll_wakes_when_a_game_of_the_caller_starts(app):
    client = app.test_client()
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    seed = next(s for s in range(100) if hands_over("board", s))  # seat 0 (ada) decides first
    game_id = create_game(client, ada, "board", {}, seats=2, seed=seed)["id"]
    take_seat(client, game_id, bob, 1)
    thread, outcome = long_poll(app, ada, WAIT_S)  # seat 0 starts: ada decides once the game starts
    until_watched(app, player_channel(ada.id))
    assert thread.is_alive(), "the long poll returned before the game started"
    seated_at = time.monotonic()
    take_seat(client, game_id, ada, 0)
    thread.join(timeout=WAIT_S + 30)
    assert not thread.is_alive(), "the long poll outlived its wait"
    assert "error" not in outcome, outcome
    assert 0 <= outcome["answered_at"] - seated_at < WOKEN_S, outcome
    assert [d["game_id"] for d in outcome["response"].get_json()["decisions"]] == [game_id]


def test_an_inbox_long_poll_without_a_decision_returns_after_its_wait(client):
    ada = new_player(client)
    started = time.monotonic()
    assert get_decisions(client, ada, wait=0.4)["decisions"] == []
    assert 0.35 <= time.monotonic() - started < WOKEN_S  # its own wait, not the longest one


def test_an_inbox_long_poll_on_one_app_wakes_on_a_move_through_another_via_redis(database_url, redis_url):
    app_a = make_app(database_url, redis_url)
    app_b = make_app(database_url, redis_url)
    try:
        outcome = wakes_on_a_move(app_a, app_b)
    finally:
        dispose(app_a)
        dispose(app_b)
    assert 0 <= outcome["after_move"] < WOKEN_S, outcome


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_inbox_shows_no_other_seat_anything(client):
    game_id, (ada, bob) = started_game(client, "card", {"pawns": 2}, seats=2, seed=31)
    state = state_of(client, game_id, 31)
    for seat, player in enumerate((ada, bob)):
        for decision in get_decisions(client, player)["decisions"]:
            assert decision["view"]["hand"] == engine.view(state, seat)["hand"]
            other = engine.view(state, 1 - seat)["hand"]
            assert json.dumps(other) != json.dumps(decision["view"]["hand"])
