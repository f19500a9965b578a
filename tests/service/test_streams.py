"""Server-Sent Events of a served app, on SQLite and PostgreSQL: a game's event stream receives the events of the
moves made meanwhile, exactly as the events API shows them to the seat (a seat's stream never carries another
seat's private event, so no other hand; a spectator's only public ones) and ends when the game ends; the decisions
stream sends each decision once as it comes; a stream holds one of the account's long-poll slots; bad requests
are refused with a reason."""

from __future__ import annotations

import http.client
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from runtime.settings import Settings
from service.app import create_app
from store.models import EventRecord
from tests.apikit import API, Player, get_actions, get_decisions, new_player, play_to_end, started_game, submit
from tests.conftest import TEST_LIMITS, dispose
from tests.liveserver import serving

READ_TIMEOUT = 60.0


class Stream:
    """A Server-Sent Events response read event by event."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.response = response
        self.status = response.status

    def next(self) -> tuple[str, Any, str | None] | None:
        """The next event (type, data, id), ``None`` once the server closed the stream."""
        event, data, event_id = "message", [], None
        while True:
            line = self.response.readline()
            if not line:
                return None
            text = line.decode().rstrip("\n")
            if text == "":
                if data:
                    return event, json.loads("\n".join(data)), event_id
                continue
            if text.startswith(":") or text.startswith("retry:"):
                continue
            field, _, value = text.partition(": ")
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
            elif field == "id":
                event_id = value

    def until_end(self) -> list[tuple[str, Any, str | None]]:
        """Every event until the server closes the stream."""
        found = []
        while (item := self.next()) is not None:
            found.append(item)
        return found


@contextmanager
def stream(base: str, path: str, player: Player | None, **headers: str) -> Iterator[Stream]:
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=READ_TIMEOUT)
    if player is not None:
        headers["Authorization"] = f"Bearer {player.token}"
    connection.request("GET", path, headers=headers)
    try:
        yield Stream(connection.getresponse())
    finally:
        connection.close()


def seen_by(app: Flask, game_id: int, seat: int | None) -> list[int]:
    """The seqs of the events that ``seat`` may see (``None``: the public ones), from the database."""
    with app.extensions["db_sessions"]() as session:
        rows = session.execute(
            select(EventRecord.seq, EventRecord.to_seat)
            .where(EventRecord.game_id == game_id)
            .order_by(EventRecord.seq)
        ).all()
    return [seq for seq, to in rows if to is None or to == seat]


def api_events(client: FlaskClient, game_id: int, player: Player | None, since: int = 0) -> list[dict[str, Any]]:
    headers = player.headers if player else {}
    response = client.get(
        f"{API}/games/{game_id}/events", query_string={"since": since, "limit": 1000}, headers=headers
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    events: list[dict[str, Any]] = response.get_json()["events"]
    return events


def test_a_stream_receives_the_events_of_moves_made_meanwhile(app: Flask, client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {"pawns": 2}, 2, seed=3)
    since = api_events(client, game_id, players[0])[-1]["seq"]
    rng = random.Random(3)
    with (
        serving(app) as base,
        stream(base, f"{API}/games/{game_id}/events/stream?since={since}", players[0]) as sse,
    ):
        assert sse.status == 200 and sse.response.getheader("Content-Type", "").startswith("text/event-stream")
        for _ in range(6):
            seat = client.get(f"{API}/games/{game_id}").get_json()["view"]["decision"]["seat"]
            offered = get_actions(client, game_id, players[seat])
            response = submit(client, game_id, players[seat], rng.choice(offered["actions"])["id"], offered["ply"])
            assert response.status_code == 200
        expected = api_events(client, game_id, players[0], since)
        assert len(expected) >= 6
        got = [sse.next() for _ in expected]
    assert [item[0] for item in got if item] == ["event"] * len(expected)
    assert [item[1] for item in got if item] == expected  # the same events, texts and privacy as the events API
    assert [item[2] for item in got if item] == [str(event["seq"]) for event in expected]


def test_a_seats_stream_never_carries_another_seats_hand_and_ends_with_the_game(
    app: Flask, client: FlaskClient
) -> None:
    game_id, players = started_game(client, "card", {"pawns": 1}, 3, seed=5)
    spectator = new_player(client, "spectator")
    with (
        serving(app) as base,
        stream(base, f"{API}/games/{game_id}/events/stream", players[1]) as seat_stream,
        stream(base, f"{API}/games/{game_id}/events/stream", spectator) as public_stream,
    ):
        first = seat_stream.next()
        assert first is not None and first[1]["seq"] == 1  # streaming before any move
        play_to_end(client, game_id, players, random.Random(5))
        seat_events = [first, *seat_stream.until_end()]
        public_events = public_stream.until_end()
    assert seat_events[-1] == ("end", {"game_id": game_id, "status": "over"}, None)
    assert public_events[-1] == ("end", {"game_id": game_id, "status": "over"}, None)
    seat_seqs = [data["seq"] for kind, data, _ in seat_events[:-1]]
    assert seat_seqs == seen_by(app, game_id, 1)  # every event of its own and public ones, nothing of the others
    assert [data for _, data, _ in seat_events[:-1]] == api_events(client, game_id, players[1])
    privates = [data for _, data, _ in seat_events[:-1] if data["private"]]
    assert privates and all(data["event"].get("seat", 1) == 1 for data in privates)
    hands = [data["event"] for _, data, _ in seat_events if data.get("event", {}).get("type") == "deal"]
    assert all(event.get("seat") in (None, 1) for event in hands)
    public_seqs = [data["seq"] for _, data, _ in public_events[:-1]]
    assert public_seqs == seen_by(app, game_id, None) and not any(
        data["private"] for _, data, _ in public_events[:-1]
    )
    assert set(public_seqs) < set(seat_seqs)


def test_a_reconnecting_stream_goes_on_after_its_last_event_id(app: Flask, client: FlaskClient) -> None:
    game_id, players = started_game(client, "board", {"players": 2, "turn_cap": 6}, 2, seed=8)
    play_to_end(client, game_id, players, random.Random(8))
    everything = api_events(client, game_id, players[0])
    middle = everything[len(everything) // 2]["seq"]
    with serving(app) as base:
        path = f"{API}/games/{game_id}/events/stream"
        with stream(base, path, players[0], **{"Last-Event-ID": str(middle)}) as sse:
            rest = sse.until_end()
        with stream(base, path, players[0], **{"Last-Event-ID": "seven"}) as bad:
            assert bad.status == 422 and "Last-Event-ID" in json.loads(bad.response.read())["message"]
    assert [data for _, data, _ in rest[:-1]] == [event for event in everything if event["seq"] > middle]
    assert rest[-1][0] == "end"


def test_the_decisions_stream_sends_each_decision_once_as_it_comes(app: Flask, client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {"pawns": 2}, 2, seed=4)
    rng = random.Random(4)
    with serving(app) as base, stream(base, f"{API}/decisions/stream?texts=true", players[0]) as sse:
        sent = []
        for _ in range(4):  # four decisions of seat 0, each sent when it comes
            while (asked := client.get(f"{API}/games/{game_id}").get_json()["view"]["decision"]["seat"]) != 0:
                offered = get_actions(client, game_id, players[asked])
                submit(client, game_id, players[asked], rng.choice(offered["actions"])["id"], offered["ply"])
            item = sse.next()
            assert item is not None and item[0] == "decision"
            listed = get_decisions(client, players[0], texts="true")["decisions"]
            assert item[1] == listed[0] and item[2] == f"{game_id}:{listed[0]['ply']}"
            assert all("text" in action for action in item[1]["actions"])
            sent.append(item[1]["ply"])
            response = submit(client, game_id, players[0], rng.choice(item[1]["actions"])["id"], item[1]["ply"])
            assert response.status_code == 200
    assert sent == sorted(set(sent))  # each decision once, in order


def test_a_stream_takes_one_of_the_accounts_long_poll_slots(database_url: str) -> None:
    app = create_app(Settings(database_url=database_url, max_waiting_per_account=2, **TEST_LIMITS))
    app.config["TESTING"] = True
    client = app.test_client()
    try:
        game_id, players = started_game(client, "card", {"pawns": 1}, 2, seed=6)
        path = f"{API}/games/{game_id}/events/stream"
        with (
            serving(app) as base,
            stream(base, path, players[0]) as first,
            stream(base, f"{API}/decisions/stream", players[0]) as second,
        ):
            assert first.status == second.status == 200
            with stream(base, path, players[0]) as third:
                assert third.status == 429 and third.response.getheader("Retry-After") == "1"
                assert "long polls" in json.loads(third.response.read())["message"]
            response = client.get(f"{API}/decisions", query_string={"wait": 1}, headers=players[0].headers)
            assert response.status_code in (200, 429)  # answered at once if seat 0 must decide, else no slot
            with stream(base, path, players[1]) as other:
                assert other.status == 200  # another account's slots are its own
            play_to_end(client, game_id, players, random.Random(6))
            assert first.until_end()[-1][0] == "end"  # the game ended: the stream ended, its slot given back
            with stream(base, f"{API}/decisions/stream", players[0]) as again:
                assert again.status == 200
    finally:
        dispose(app)


def test_streams_need_a_token_and_a_game(app: Flask, client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {"pawns": 1}, 2, seed=2)
    with serving(app) as base:
        for path, player, code, words in [
            (f"{API}/games/{game_id}/events/stream", None, 401, "token"),
            (f"{API}/decisions/stream", None, 401, "token"),
            (f"{API}/games/999999/events/stream", players[0], 404, "no game 999999"),
            (f"{API}/games/{game_id}/events/stream?since=-1", players[0], 422, "since"),
            (f"{API}/decisions/stream?texts=maybe", players[0], 422, "texts"),
        ]:
            with stream(base, path, player) as refused:
                assert refused.status == code, path
                assert words in json.loads(refused.response.read())["message"], path
