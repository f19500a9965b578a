"""Oversized request bodies (hostile input; ``service/bodylimit.py``): any body over 64 KiB is a 413 in the
one error shape, its message naming the limit, on every endpoint (those that read their body, the move path that
reads it itself, those that ignore it), whether its size is declared (``Content-Length``) or not (chunked), through
the test client and through a real gunicorn server (as ``sorry-arena serve`` runs it). A body of exactly the limit
passes, and a chunked body under it is served as any other (a chunked move is played)."""

from __future__ import annotations

import http.client
import io
import json
import os
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from benchmarks.api import create_schema, gunicorn
from runtime.settings import MAX_BODY_BYTES
from tests.apikit import API, SQLITE_ONLY, get_actions, new_player, started_game

MESSAGE = "request body too large: the limit is 65536 bytes (64 KiB)"
OVER = MAX_BODY_BYTES + 1
ENDPOINTS = [  # (method, path): one that reads its body, the move path, and some that ignore theirs
    ("POST", f"{API}/players"),
    ("POST", f"{API}/games/1/actions"),
    ("GET", f"{API}/health"),
    ("DELETE", f"{API}/bots/1"),
    ("POST", f"{API}/tournaments"),
]


def assert_too_large(status: int, body: bytes) -> None:
    assert status == 413, body[:300]
    assert json.loads(body) == {"code": 413, "status": "Request Entity Too Large", "message": MESSAGE}


def padded(document: dict[str, Any], size: int) -> bytes:
    """``document`` as JSON padded with spaces to exactly ``size`` bytes."""
    text = json.dumps(document).encode()
    return text + b" " * (size - len(text))


def chunked(client: FlaskClient, method: str, path: str, body: bytes, **headers: str) -> TestResponse:
    """A request whose body has no Content-Length, as a server passes on a chunked one (decoded, terminated)."""
    return client.open(
        path,
        method=method,
        input_stream=io.BytesIO(body),
        headers={"Transfer-Encoding": "chunked", "Content-Type": "application/json", **headers},
        environ_overrides={"wsgi.input_terminated": True},
    )


# --- the test client ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
@SQLITE_ONLY
def test_a_declared_body_over_the_limit_is_a_413_everywhere(client: FlaskClient, method: str, path: str) -> None:
    player = new_player(client)
    response = client.open(path, method=method, data=b"{" + b" " * (OVER - 1), headers=player.headers)
    assert_too_large(response.status_code, response.data)


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
@SQLITE_ONLY
def test_a_chunked_body_over_the_limit_is_a_413_everywhere(client: FlaskClient, method: str, path: str) -> None:
    player = new_player(client)
    response = chunked(client, method, path, b"x" * (OVER + 10_000), Authorization=f"Bearer {player.token}")
    assert_too_large(response.status_code, response.data)


@SQLITE_ONLY
def test_a_body_of_exactly_the_limit_passes(client: FlaskClient) -> None:
    body = padded({"name": "ada"}, MAX_BODY_BYTES)
    response = client.post(f"{API}/players", data=body, content_type="application/json")
    assert response.status_code == 201, response.get_data(as_text=True)
    response = chunked(client, "POST", f"{API}/players", body)
    assert response.status_code == 201, response.get_data(as_text=True)
    response = chunked(client, "POST", f"{API}/players", body + b" ")
    assert_too_large(response.status_code, response.data)


@SQLITE_ONLY
def test_a_chunked_move_is_played(client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", seats=2, seed=8)
    for player in players:
        actions = get_actions(client, game_id, player)
        if actions["your_decision"]:
            body = json.dumps({"action": actions["actions"][0]["id"], "expected_ply": actions["ply"]}).encode()
            response = chunked(
                client, "POST", f"{API}/games/{game_id}/actions", body, Authorization=f"Bearer {player.token}"
            )
            assert response.status_code == 200, response.get_data(as_text=True)
            assert response.get_json()["ply"] == actions["ply"] + 1
            return
    raise AssertionError("no one is asked")


# --- a real gunicorn server -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """The service under gunicorn (one gthread worker) on a fresh SQLite file: its host and port."""
    url = f"sqlite:///{os.path.join(tmp_path_factory.mktemp('gunicorn'), 'bodies.db')}"
    create_schema(url)
    with gunicorn(url, None, 1, 4) as base:
        address = urlsplit(base)
        assert address.hostname and address.port
        yield address.hostname, address.port


def http_request(
    server: tuple[str, int], method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(*server, timeout=30)
    try:
        headers = {"Content-Type": "application/json", **(headers or {})}
        connection.request(method, path, body=body, headers=headers, encode_chunked=not isinstance(body, bytes))
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def pieces(data: bytes, size: int = 4096) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def send_raw(server: tuple[str, int], head: bytes, chunks: list[bytes]) -> tuple[int, bytes, float]:
    """Send a request's head and these body chunks, never ending the body; the answer and its delay."""
    with socket.create_connection(server, timeout=30) as sock:
        started = time.monotonic()
        sock.sendall(head)
        for chunk in chunks:
            sock.sendall(chunk)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.read(), time.monotonic() - started


def test_gunicorn_answers_a_declared_oversize_at_once(server: tuple[str, int]) -> None:
    """A Content-Length of 1 GB with no body sent: the 413 comes without waiting for it."""
    head = b"POST /api/v1/players HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n"
    status, body, seconds = send_raw(server, head, [])
    assert_too_large(status, body)
    assert seconds < 10


def test_gunicorn_refuses_an_endless_chunked_body(server: tuple[str, int]) -> None:
    """A chunked body that never ends: the 413 comes once the limit is passed, without waiting for its end."""
    head = b"POST /api/v1/players HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunk = b"x" * 4096
    status, body, _ = send_raw(server, head, [b"%x\r\n%s\r\n" % (len(chunk), chunk)] * 20)  # 80 KiB, unfinished
    assert_too_large(status, body)


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_gunicorn_refuses_oversized_bodies_declared_or_chunked(
    server: tuple[str, int], method: str, path: str
) -> None:
    data = b"{" + b" " * OVER
    assert_too_large(*http_request(server, method, path, data))
    assert_too_large(*http_request(server, method, path, pieces(data)))


def test_gunicorn_serves_chunked_bodies_under_the_limit(server: tuple[str, int]) -> None:
    status, body = http_request(server, "POST", f"{API}/players", pieces(padded({"name": "ada"}, MAX_BODY_BYTES)))
    assert status == 201, body
    tokens = [json.loads(body)["token"]]
    status, body = http_request(server, "POST", f"{API}/players", pieces(json.dumps({"name": "bob"}).encode()))
    assert status == 201, body
    tokens.append(json.loads(body)["token"])
    auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
    status, body = http_request(
        server, "POST", f"{API}/games", json.dumps({"game": "card", "settings": {}, "seats": 2}).encode(), auth[0]
    )
    assert status == 201, body
    game_id = json.loads(body)["id"]
    for seat in (0, 1):
        status, body = http_request(
            server, "POST", f"{API}/games/{game_id}/seats", pieces(json.dumps({"seat": seat}).encode()), auth[seat]
        )
        assert status == 201, body
    for headers in auth:
        status, body = http_request(server, "GET", f"{API}/games/{game_id}/actions", None, headers)
        actions = json.loads(body)
        if actions["your_decision"]:
            move = json.dumps({"action": actions["actions"][0]["id"], "expected_ply": actions["ply"]}).encode()
            status, body = http_request(server, "POST", f"{API}/games/{game_id}/actions", pieces(move, 7), headers)
            assert status == 200, body
            assert json.loads(body)["ply"] == actions["ply"] + 1
            return
    raise AssertionError("no one is asked")
