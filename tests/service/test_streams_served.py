"""Streams through ``sorry-arena serve`` as it runs (gunicorn's gevent worker), on SQLite and PostgreSQL: 40 open
streams of five accounts and 8 without a token hold no thread, so health still answers at once; each account's
ninth is a 429, and so is the address's ninth without a token; a move reaches every stream of its game."""

from __future__ import annotations

import http.client
import sys
from pathlib import Path

import requests

from tests.servers import tail
from tests.service.test_waiting_attacks import HEALTH_S, Server, health_times, server

SLOTS = 8
"""The default cap of an account's long polls (and streams), and of an address's streams without a token."""


def account(found: Server, name: str) -> str:
    response = requests.post(found.url("/api/v1/players"), json={"name": name}, timeout=30)
    assert response.status_code == 201, response.text
    return str(response.json()["token"])


def open_stream(
    found: Server, path: str, token: str | None
) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    connection = http.client.HTTPConnection("127.0.0.1", found.port, timeout=60)
    connection.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
    return connection, connection.getresponse()


def next_event(response: http.client.HTTPResponse) -> str:
    """The type of the next event of a stream (comments and retry lines skipped)."""
    kind = ""
    while True:
        raw = response.readline()
        assert raw, "the stream closed"
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line == "" and kind:
            return kind


def test_forty_streams_hold_no_thread_and_each_gets_its_games_moves(database_url: str, tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "cli.main", "serve"]
    with server(argv, {"DATABASE_URL": database_url}, tmp_path / "serve.log") as found:
        players = [account(found, f"p{number}") for number in range(5)]
        headers = [{"Authorization": f"Bearer {token}"} for token in players]
        game = requests.post(
            found.url("/api/v1/games"),
            json={"game": "card", "settings": {}, "seats": 2},
            headers=headers[0],
            timeout=30,
        ).json()
        for seat in (0, 1):
            taken = requests.post(
                found.url(f"/api/v1/games/{game['id']}/seats"),
                json={"seat": seat},
                headers=headers[seat],
                timeout=30,
            )
            assert taken.status_code == 201, taken.text
        events = requests.get(found.url(f"/api/v1/games/{game['id']}/events"), timeout=30).json()["events"]
        path = f"/api/v1/games/{game['id']}/events/stream?since={events[-1]['seq']}"  # the moves to come
        opened = []
        for number, token in enumerate(players):
            for _ in range(SLOTS):
                connection, response = open_stream(
                    found, path if number < 2 else "/api/v1/decisions/stream", token
                )
                assert response.status == 200, tail(found.log)
                opened.append((connection, response, number))
        for _ in range(SLOTS):  # spectators without a token, all from this address
            connection, response = open_stream(found, path, None)
            assert response.status == 200, tail(found.log)
            opened.append((connection, response, -1))
        try:
            times = health_times(found, probes=4)
            assert max(times) < HEALTH_S, (times, tail(found.log))
            extra, refused = open_stream(found, path, players[0])
            assert refused.status == 429 and refused.getheader("Retry-After") == "1"
            extra.close()
            extra, refused = open_stream(found, path, None)
            assert refused.status == 429 and b"streams without a token" in refused.read()
            extra.close()
            offered = requests.get(
                found.url(f"/api/v1/games/{game['id']}/actions"), headers=headers[0], timeout=30
            ).json()
            mover = 0 if offered["your_decision"] else 1
            if mover == 1:
                offered = requests.get(
                    found.url(f"/api/v1/games/{game['id']}/actions"), headers=headers[1], timeout=30
                ).json()
            moved = requests.post(
                found.url(f"/api/v1/games/{game['id']}/actions"),
                json={"action": offered["actions"][0]["id"], "expected_ply": offered["ply"]},
                headers=headers[mover],
                timeout=30,
            )
            assert moved.status_code == 200, moved.text
            for _, response, number in opened:
                if number < 2:  # the game's streams, of both seats and without a token
                    assert next_event(response) == "event", tail(found.log)
        finally:
            for connection, _, _ in opened:
                connection.close()
