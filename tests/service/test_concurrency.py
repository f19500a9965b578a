"""Concurrent submissions against the real database (SQLite and PostgreSQL): of several submissions for one ply
exactly one is accepted (200) and recorded, every other one gets a 409; of several takers of a game's last seat
exactly one gets it. Threads each use their own Flask test client, released together by a barrier."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import create_engine, select

from store.models import ActionRecord, Seat
from tests.apikit import API, Player, create_game, get_actions, get_game, new_player, started_game, take_seat

REPETITIONS = 30


def race(app: Any, requests: list[Callable[[Any], Any]]) -> list[Any]:
    """Run each request in its own thread with its own client, all released at once; their responses."""
    barrier = threading.Barrier(len(requests))
    responses: list[Any] = [None] * len(requests)
    failures: list[BaseException] = []

    def run(index: int) -> None:
        client = app.test_client()
        try:
            barrier.wait(timeout=10)
            responses[index] = requests[index](client)
        except BaseException as error:  # reported by the test, not lost in the thread
            failures.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    assert all(not thread.is_alive() for thread in threads)
    return responses


def post_action(game_id: int, player: Player, action: str, ply: int) -> Callable[[Any], Any]:
    def post(client: Any) -> Any:
        body = {"action": action, "expected_ply": ply}
        return client.post(f"{API}/games/{game_id}/actions", json=body, headers=player.headers)

    return post


def post_seat(game_id: int, player: Player, body: dict[str, Any]) -> Callable[[Any], Any]:
    def post(client: Any) -> Any:
        return client.post(f"{API}/games/{game_id}/seats", json=body, headers=player.headers)

    return post


def recorded_actions(database_url: str, game_id: int) -> list[tuple[int, str]]:
    db = create_engine(database_url)
    try:
        with db.connect() as connection:
            query = select(ActionRecord.ply, ActionRecord.action).where(ActionRecord.game_id == game_id)
            return [tuple(row) for row in connection.execute(query.order_by(ActionRecord.ply))]  # type: ignore[misc]
    finally:
        db.dispose()


def test_of_concurrent_submissions_for_a_ply_exactly_one_is_accepted(app, client, database_url):
    game_id, players = started_game(client, "board", {"variant": "points"}, seats=2, seed=99)
    rng = random.Random(99)
    accepted: list[tuple[int, str]] = []
    for ply in range(REPETITIONS):
        seat = get_game(client, game_id)["view"]["decision"]["seat"]
        offered = [a["id"] for a in get_actions(client, game_id, players[seat])["actions"]]
        racers = 2 if ply % 3 else 4
        chosen = [rng.choice(offered) for _ in range(racers)]

        responses = race(app, [post_action(game_id, players[seat], action, ply) for action in chosen])
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200] + [409] * (racers - 1), (ply, [r.get_data(as_text=True) for r in responses])
        for response in responses:
            if response.status_code == 409:
                assert "stale ply" in response.get_json()["message"], response.get_json()
        winner = next(chosen[i] for i, r in enumerate(responses) if r.status_code == 200)
        accepted.append((ply, winner))
        assert get_game(client, game_id)["ply"] == ply + 1
        if get_game(client, game_id)["status"] == "over":
            break
    assert recorded_actions(database_url, game_id) == accepted


def test_of_concurrent_takers_of_the_last_seat_exactly_one_gets_it(app, client, database_url):
    for round_number in range(10):
        first = new_player(client, f"first{round_number}")
        racers = [new_player(client, f"racer{round_number}-{i}") for i in range(3)]
        game_id = create_game(client, first, "card", {}, seats=2)["id"]
        take_seat(client, game_id, first, 0)
        # half of the rounds ask for the seat by number, half for any seat
        body = {"seat": 1} if round_number % 2 else {}
        responses = race(app, [post_seat(game_id, player, body) for player in racers])
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [201, 409, 409], [r.get_data(as_text=True) for r in responses]
        winner = next(r.get_json() for r in responses if r.status_code == 201)
        assert winner == {"game_id": game_id, "seat": 1, "status": "active"}
        game = get_game(client, game_id)
        assert game["status"] == "active" and [p["seat"] for p in game["players"]] == [0, 1]
        db = create_engine(database_url)
        try:
            with db.connect() as connection:
                seats = connection.execute(select(Seat.seat).where(Seat.game_id == game_id)).scalars().all()
        finally:
            db.dispose()
        assert sorted(seats) == [0, 1]


def test_of_concurrent_moves_by_two_seats_only_the_asked_one_counts(app, client, database_url):
    game_id, players = started_game(client, "card", {}, seats=2, seed=5)
    for ply in range(10):
        seat = get_game(client, game_id)["view"]["decision"]["seat"]
        if seat is None:
            break
        action = get_actions(client, game_id, players[seat])["actions"][0]["id"]
        responses = race(app, [post_action(game_id, players[s], action, ply) for s in (seat, 1 - seat)])
        assert responses[0].status_code == 200, responses[0].get_data(as_text=True)
        assert responses[1].status_code == 409
        message = responses[1].get_json()["message"]
        assert "not your turn" in message or "stale ply" in message, message
    assert len(recorded_actions(database_url, game_id)) == get_game(client, game_id)["ply"]
