"""Helpers of the API tests: players, games, seats, and whole games played through the HTTP API.

Everything goes through the Flask test client, as a bot would: nothing here touches the service's modules.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask.testing import FlaskClient

import engine

API = "/api/v1"
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

POINTS_BOARD = ("board", {"variant": "points"})
SHORT_CARD = ("card", {"pawns": 2})


@dataclass
class Player:
    id: int
    name: str
    token: str
    headers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.headers = {"Authorization": f"Bearer {self.token}"}


def new_player(client: FlaskClient, name: str = "ada") -> Player:
    response = client.post(f"{API}/players", json={"name": name})
    assert response.status_code == 201, response.get_data(as_text=True)
    body = response.get_json()
    return Player(body["id"], body["name"], body["token"])


def create_game(
    client: FlaskClient,
    creator: Player,
    game: str = "card",
    settings: dict[str, Any] | None = None,
    seats: int = 2,
    seed: int | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"game": game, "settings": settings or {}, "seats": seats}
    if seed is not None:
        body["seed"] = seed
    response = client.post(f"{API}/games", json=body, headers=creator.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def take_seat(client: FlaskClient, game_id: int, player: Player, seat: int | None = None) -> dict[str, Any]:
    response = client.post(f"{API}/games/{game_id}/seats", json={"seat": seat}, headers=player.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def started_game(
    client: FlaskClient,
    game: str = "card",
    settings: dict[str, Any] | None = None,
    seats: int = 2,
    seed: int | None = None,
) -> tuple[int, list[Player]]:
    """A game whose seats are all taken (so it is active), and its players by seat."""
    players = [new_player(client, f"player{seat}") for seat in range(seats)]
    game_id = create_game(client, players[0], game, settings, seats, seed)["id"]
    for seat, player in enumerate(players):
        assert take_seat(client, game_id, player, seat)["seat"] == seat
    return game_id, players


def get_game(client: FlaskClient, game_id: int, player: Player | None = None) -> dict[str, Any]:
    response = client.get(f"{API}/games/{game_id}", headers=player.headers if player else {})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def get_actions(client: FlaskClient, game_id: int, player: Player, **query: Any) -> dict[str, Any]:
    response = client.get(f"{API}/games/{game_id}/actions", query_string=query, headers=player.headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def get_decisions(client: FlaskClient, player: Player, **query: Any) -> dict[str, Any]:
    """The player's decisions inbox (``GET /decisions``)."""
    response = client.get(f"{API}/decisions", query_string=query, headers=player.headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def get_events(client: FlaskClient, game_id: int, player: Player | None = None) -> dict[str, Any]:
    response = client.get(f"{API}/games/{game_id}/events", headers=player.headers if player else {})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def submit(client: FlaskClient, game_id: int, player: Player, action: str, expected_ply: int) -> Any:
    return client.post(
        f"{API}/games/{game_id}/actions",
        json={"action": action, "expected_ply": expected_ply},
        headers=player.headers,
    )


def asked_seat(client: FlaskClient, game_id: int) -> int | None:
    """The seat asked now, from the public view (``None`` once the game is over)."""
    decision = get_game(client, game_id)["view"]["decision"]
    return None if decision is None else decision["seat"]


def play_to_end(
    client: FlaskClient,
    game_id: int,
    players: list[Player],
    rng: random.Random,
    before_each_ply: Callable[[int], None] | None = None,
    max_plies: int = 5_000,
) -> list[str]:
    """Play random legal actions through the API until the game is over; the action ids applied, in order.

    ``before_each_ply(ply)`` is called before each action, to look at the game as it stands.
    """
    played: list[str] = []
    while (seat := asked_seat(client, game_id)) is not None:
        assert len(played) < max_plies, f"game {game_id} did not end within {max_plies} plies"
        if before_each_ply is not None:
            before_each_ply(len(played))
        offered = get_actions(client, game_id, players[seat])
        assert offered["your_decision"] and offered["actions"], offered
        assert offered["ply"] == len(played)
        action = rng.choice(offered["actions"])["id"]
        response = submit(client, game_id, players[seat], action, len(played))
        assert response.status_code == 200, response.get_data(as_text=True)
        assert response.get_json()["ply"] == len(played) + 1
        played.append(action)
    return played


def as_json(data: Any) -> Any:
    """``data`` as it comes back from a JSON response (tuples become lists, int keys strings)."""
    return json.loads(json.dumps(data))


def engine_events(game: str, settings: dict[str, Any], seed: int, actions: list[str]) -> list[dict[str, Any]]:
    """Every event of a game, in order, rebuilt by the engine from its record."""
    state = engine.new_game(game, settings, seed)
    events = engine.opening_events(state)
    for action in actions:
        events += engine.apply(state, action)
    return as_json(events)  # type: ignore[no-any-return]


def states_by_ply(game: str, settings: dict[str, Any], seed: int, actions: list[str]) -> list[Any]:
    """The engine state before each action and after the last one (index = ply)."""
    states = []
    state = engine.new_game(game, settings, seed)
    states.append(engine.from_json(engine.to_json(state)))
    for action in actions:
        engine.apply(state, action)
        states.append(engine.from_json(engine.to_json(state)))
    return states
