"""Helpers of the challenge tests (API and browser): bots to challenge, a challenge made through the API, its game
waited for, a pull bot answering on a thread, and a person's moves through the games API."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask.testing import FlaskClient

from clients.pull import PullClient
from tests.apikit import API, Player, get_actions, submit
from tests.arenakit import SECRET, Running, push_bots, random_choice


@contextmanager
def opponents(client: FlaskClient, owner: Player, base_url: str | None = None) -> Iterator[list[dict[str, Any]]]:
    """A push bot and a pull bot of ``owner`` (both games, open to others), the pull bot answering from a thread
    through the API at ``base_url`` (the test's served app)."""
    with push_bots(random_choice) as servers:
        push = open_bot(client, owner, "pushy", servers[0].url)
        pull = open_bot(client, owner, "pully", None)
        running = None
        if base_url is not None:
            running = Running(PullClient(random_choice, base_url, pull["token"], wait=2.0, name="pully"))
        try:
            yield [push, pull]
        finally:
            if running is not None:
                running.finish()


def open_bot(client: FlaskClient, owner: Player, name: str, url: str | None) -> dict[str, Any]:
    """A bot of ``owner`` for both games, open to others (``open_to_others``)."""
    body = {"name": name, "url": url, "games": ["board", "card"], "secret": SECRET, "open_to_others": True}
    response = client.post(f"{API}/bots", json=body, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    made: dict[str, Any] = response.get_json()
    return made


def challenge(client: FlaskClient, person: Player, **body: Any) -> dict[str, Any]:
    response = client.post(f"{API}/challenges", json=body, headers=person.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    created: dict[str, Any] = response.get_json()
    return created


def wait_game(client: FlaskClient, challenge_id: int, timeout: float = 60) -> dict[str, Any]:
    """The challenge once its game is made."""
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get(f"{API}/challenges/{challenge_id}").get_json()
        if body["game_id"] is not None:
            return body
        assert time.monotonic() < deadline, f"challenge {challenge_id} has no game after {timeout} s: {body}"
        time.sleep(0.05)


def wait_status(client: FlaskClient, challenge_id: int, status: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get(f"{API}/challenges/{challenge_id}").get_json()
        if body["status"] == status:
            return body
        assert time.monotonic() < deadline, f"challenge {challenge_id} not {status} after {timeout} s: {body}"
        time.sleep(0.05)


def play_person(client: FlaskClient, game_id: int, person: Player, seed: int = 0, max_moves: int = 3000) -> int:
    """Play the person's seat with random legal actions through the games API until the game ends; the moves
    made."""
    rng = random.Random(seed)
    moves = 0
    while True:
        offered = get_actions(client, game_id, person, wait=5)
        if offered["status"] != "active":
            return moves
        if not offered["your_decision"]:
            continue
        response = submit(client, game_id, person, rng.choice(offered["actions"])["id"], offered["ply"])
        assert response.status_code in (200, 409), response.get_data(as_text=True)
        moves += response.status_code == 200
        assert moves < max_moves, f"game {game_id} did not end within {max_moves} of the person's moves"
