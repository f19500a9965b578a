"""The service's side of the fast lane of a move (``service/caches.py``): per-process caches that never serve a stale
game, even when two apps (two processes' worth of state) share one database (each app's events, derived from the
action log, extended by the moves the other saved); an open game not cached until it starts; concurrent moves of many
games all saved through the API; and the private copy of a cached state (SQLite and PostgreSQL). The group-commit
writer and the fast lane's statements are tested on their own in ``tests/store/test_groupcommit.py`` and
``tests/store/test_fastlane.py``."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
from sqlalchemy import create_engine, select

import engine
from service import caches as caches_module
from store.models import ActionRecord
from tests.apikit import (
    API,
    as_json,
    create_game,
    engine_events,
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


def recorded(database_url: str, game_id: int) -> list[str]:
    """The game's action log, in order, straight from the database."""
    database = create_engine(database_url)
    try:
        with database.connect() as connection:
            return list(
                connection.execute(
                    select(ActionRecord.action).where(ActionRecord.game_id == game_id).order_by(ActionRecord.ply)
                ).scalars()
            )
    finally:
        database.dispose()


def public(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in events if event["to"] is None]


def test_two_apps_on_one_database_never_serve_a_stale_game(database_url):
    """Moves alternate between two apps; each app's caches fill from its own requests, yet every answer is the
    database's current game, a stale ply is refused by either app, and the logs are whole and in order."""
    app_a, app_b = make_app(database_url), make_app(database_url)
    try:
        a, b = app_a.test_client(), app_b.test_client()
        game_id, players = started_game(a, "card", {"pawns": 2}, seats=2, seed=41)
        rng = random.Random(41)
        settings = get_game(a, game_id)["settings"]
        played: list[str] = []
        clients = [a, b]
        for ply in range(60):
            here, there = clients[ply % 2], clients[(ply + 1) % 2]
            decision = get_game(here, game_id)["view"]["decision"]
            if decision is None:
                break
            player = players[decision["seat"]]
            offered = get_actions(there, game_id, player)  # the other app learns of the game at this ply
            assert offered["ply"] == ply and offered["your_decision"], offered
            assert get_decisions(there, player)["decisions"][0]["ply"] == ply
            action = rng.choice(offered["actions"])["id"]
            response = submit(here, game_id, player, action, ply)
            assert response.status_code == 200, response.get_data(as_text=True)
            played.append(action)
            # the app that did not take the move knows nothing of it but what the database says
            stale = submit(there, game_id, player, action, ply)
            over = response.get_json()["status"] == "over"
            assert stale.status_code == 409
            assert ("is over" if over else "stale ply") in stale.get_json()["message"]
            assert get_actions(there, game_id, player)["ply"] == ply + 1
            assert get_game(there, game_id, player)["ply"] == ply + 1
            expected = public(engine_events("card", settings, 41, played))
            for either in clients:  # each app's derived events, extended by the move just saved by one of them
                assert [item["event"] for item in get_events(either, game_id)["events"]] == expected
        assert recorded(database_url, game_id) == played
        assert get_events(b, game_id, players[0])["events"] == get_events(a, game_id, players[0])["events"]
    finally:
        dispose(app_a)
        dispose(app_b)


def test_moves_of_many_games_at_once_are_all_saved(app, client, database_url):
    """Threads move in different games at the same time (on SQLite the writer saves several moves per transaction;
    on PostgreSQL each is a transaction of its own): every move is saved once."""
    games = [started_game(client, "board", {"variant": "points"}, seats=2, seed=50 + n) for n in range(6)]
    failures: list[Any] = []
    plays: dict[int, list[str]] = {}

    def play(game_id: int, players: list[Any], seed: int) -> None:
        own = app.test_client()
        rng = random.Random(seed)
        plays[game_id] = []
        try:
            for ply in range(25):
                decision = get_game(own, game_id)["view"]["decision"]
                if decision is None:
                    return
                offered = get_actions(own, game_id, players[decision["seat"]])
                action = rng.choice(offered["actions"])["id"]
                response = submit(own, game_id, players[decision["seat"]], action, ply)
                if response.status_code != 200:
                    failures.append(response.get_data(as_text=True))
                    return
                plays[game_id].append(action)
        except BaseException as error:
            failures.append(error)

    threads = [
        threading.Thread(target=play, args=(game_id, players, n)) for n, (game_id, players) in enumerate(games)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures
    for game_id, _ in games:
        actions = recorded(database_url, game_id)
        assert actions == plays[game_id] and len(actions) == get_game(client, game_id)["ply"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_open_game_is_not_cached_until_it_starts(app, client):
    """Seats change while a game is open: a player seated after an earlier look is still found."""
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    game_id = create_game(client, ada, "card", {}, seats=2)["id"]
    take_seat(client, game_id, ada, 0)
    assert client.get(f"{API}/games/{game_id}/actions", headers=bob.headers).status_code == 403
    take_seat(client, game_id, bob, 1)
    assert get_actions(client, game_id, bob)["seat"] == 1


@pytest.mark.parametrize("game", ["board", "card"])
def test_a_private_copy_is_the_state_and_shares_nothing_with_it(game):
    rng = random.Random(7)
    for seed in range(6):
        state = engine.new_game(game, {"players": 3 if game == "card" else 4}, seed)
        for _ in range(rng.randrange(0, 120)):
            asked = engine.decision(state)
            if asked is None:
                break
            seat = asked.seat
            engine.apply(state, rng.choice(engine.legal_actions(state, seat)).id, seat)
        before = engine.to_json(state)
        copy = caches_module.Snapshot(state.ply, state, "").copy()
        assert engine.to_json(copy) == before
        assert engine.view(copy, 0) == engine.view(state, 0)
        asked = engine.decision(copy)
        if asked is None:
            continue
        seat = asked.seat
        reference = engine.from_json(as_json(before))
        action = rng.choice(engine.legal_actions(copy, seat)).id
        assert engine.apply(copy, action, seat) == engine.apply(reference, action, seat)
        assert engine.to_json(state) == before  # the original did not move
        assert engine.to_json(copy) == engine.to_json(reference)
