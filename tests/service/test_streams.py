"""Server-Sent Events of a served app, on SQLite and PostgreSQL: a game's event stream receives the events of the
moves made meanwhile, exactly as the events API shows them to the seat (a seat's stream never carries another
seat's private event, so no other hand; a spectator's only public ones) and ends when the game ends; the decisions
stream sends each decision once as it comes; a stream holds one of the account's long-poll slots; bad requests
are refused with a reason. Streams without a token: tests/service/test_streams_anonymous.py."""

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

import engine
from runtime.settings import Settings
from service.app import create_app
from store.models import ActionRecord, Game
from tests.apikit import API, Player, get_actions, get_decisions, new_player, play_to_end, started_game, submit
from tests.conftest import TEST_LIMITS, dispose
from tests.liveserver import serving

READ_TIMEOUT = 60.0


class Stream:
    """A Server-Sent Events response read event by event."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.response = response
        self.status = response.status
        self.raw: list[str] = []
        """Every line read, comments included."""

    def next(self) -> tuple[str, Any, str | None] | None:
        """The next event (type, data, id), ``None`` once the server closed the stream."""
        event, data, event_id = "message", [], None
        while True:
            line = self.response.readline()
            if not line:
                return None
            text = line.decode().rstrip("\n")
            self.raw.append(text)
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
def stream(
    base: str, path: str, player: Player | None, source: str | None = None, **headers: str
) -> Iterator[Stream]:
    """A stream of ``path`` asked with ``player``'s token (``None``: none), from the loopback address ``source``
    (such as ``127.0.0.2``; default: the system's choice)."""
    address = urlsplit(base)
    connection = http.client.HTTPConnection(
        address.hostname or "", address.port, timeout=READ_TIMEOUT, source_address=(source, 0) if source else None
    )
    if player is not None:
        headers["Authorization"] = f"Bearer {player.token}"
    connection.request("GET", path, headers=headers)
    try:
        yield Stream(connection.getresponse())
    finally:
        connection.close()


def logged_events(app: Flask, game_id: int) -> list[tuple[int | None, dict[str, Any]]]:
    """Every event of the game so far, in order, as (the only seat that may see it or ``None``, the event): its
    stored actions replayed by the engine from its settings and seed, whatever stores the events."""
    with app.extensions["db_sessions"]() as session:
        game = session.get(Game, game_id)
        assert game is not None
        actions = session.scalars(
            select(ActionRecord.action).where(ActionRecord.game_id == game_id).order_by(ActionRecord.ply)
        ).all()
    state = engine.new_game(game.game, game.settings, game.seed)
    events = list(engine.opening_events(state))
    for action in actions:
        events += engine.apply(state, action)
    return [(event.get("to"), event) for event in events]


def seen_by(app: Flask, game_id: int, seat: int | None) -> list[int]:
    """The seqs of the events that ``seat`` may see (``None``: the public ones), numbered from 0 in order."""
    return [seq for seq, (to, _) in enumerate(logged_events(app, game_id)) if to is None or to == seat]


def api_events(client: FlaskClient, game_id: int, player: Player | None, since: int = -1) -> list[dict[str, Any]]:
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
        assert first is not None and first[1]["seq"] == seen_by(app, game_id, 1)[0]  # from its first event on
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


def test_the_decisions_stream_needs_a_token_and_a_games_stream_a_game(app: Flask, client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {"pawns": 1}, 2, seed=2)
    with serving(app) as base:
        for path, player, code, words in [
            (f"{API}/decisions/stream", None, 401, "token"),
            (f"{API}/games/999999/events/stream", None, 404, "no game 999999"),
            (f"{API}/games/999999/events/stream", players[0], 404, "no game 999999"),
            (f"{API}/games/{game_id}/events/stream?since=-2", players[0], 422, "since"),
            (f"{API}/decisions/stream?texts=maybe", players[0], 422, "texts"),
        ]:
            with stream(base, path, player) as refused:
                assert refused.status == code, path
                assert words in json.loads(refused.response.read())["message"], path
