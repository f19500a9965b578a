"""A push bot's seat in a tournament game is the worker's to play (``service/gameplay.py``, ``Moves.submit``): the
bot's own token submitting a move there through the games API is a 409 that says why (before, the move was taken
and the worker, finding a position it had not made, dropped the game). A pull bot in the same game plays through
the API as ever, and the tournament ends with no fault. On SQLite and PostgreSQL, with a real tournament.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from service.gameplay import PUSHED
from tests.apikit import API, Player
from tests.arenakit import arena, client, create_tournament, owner, push_bots, random_choice, register, wait_done

__all__ = ["arena", "client", "owner"]  # the fixtures


def pull_loop(client: FlaskClient, token: str, stop: threading.Event) -> None:
    """A pull bot answering every decision of its inbox with its first legal action."""
    headers = {"Authorization": f"Bearer {token}"}
    while not stop.is_set():
        inbox = client.get(f"{API}/decisions", query_string={"wait": 1}, headers=headers).get_json()
        for pending in inbox["decisions"]:
            client.post(
                f"{API}/games/{pending['game_id']}/actions",
                json={"action": pending["actions"][0]["id"], "expected_ply": pending["ply"]},
                headers=headers,
            )


def active_game_of(client: FlaskClient, player_id: int, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        games = client.get(f"{API}/games", query_string={"player": player_id, "status": "active"}).get_json()
        if games:
            return games[0]  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, "no tournament game started"
        time.sleep(0.05)


def test_a_push_bots_token_cannot_move_in_its_tournament_games(arena: Flask, owner: Player) -> None:
    client = arena.test_client()
    with push_bots(random_choice) as (server,):
        push = register(client, owner, "pusher", server.url, games=("card",))
        pull = register(client, owner, "puller", None, games=("card",))
        as_push = {"Authorization": f"Bearer {push['token']}"}
        created = create_tournament(client, owner, [push["id"], pull["id"]], game="card", move_timeout_ms=60_000)
        game = active_game_of(client, push["player_id"])  # the pull bot is not playing yet: the game waits for it
        seat = next(entry["seat"] for entry in game["players"] if entry["player_id"] == push["player_id"])
        asked = client.get(f"{API}/games/{game['id']}/actions", headers=as_push).get_json()
        assert asked["seat"] == seat
        tries = [asked["actions"][0]["id"] if asked["actions"] else "any", "any"]
        for action in tries:
            response = client.post(
                f"{API}/games/{game['id']}/actions",
                json={"action": action, "expected_ply": asked["ply"]},
                headers=as_push,
            )
            assert response.status_code == 409, response.get_data(as_text=True)
            assert response.get_json()["message"] == PUSHED
        stop = threading.Event()
        thread = threading.Thread(target=pull_loop, args=(arena.test_client(), pull["token"], stop), daemon=True)
        thread.start()
        try:
            done = wait_done(client, created["id"])
        finally:
            stop.set()
            thread.join(10)
    assert done["progress"]["done"] == 2
    for result in done["results"]:
        assert result["forfeited"] == [] and sum(result["faults"]) == 0, result
