"""A push starter answers the service's signed requests and refuses (401) every other one: a wrong secret, a stale
timestamp, a replay, a request signed for another path, a request without the headers; a signed body that is not
JSON is a 400. Over real HTTP, the requests signed as the service signs them (``botlink.signing``)."""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from botlink import signing
from tests.arenakit import SECRET
from tests.starters.starterkit import NAMES, started

INFO = json.dumps({"type": "info", "nonce": "8f14e45fceea167a"}, separators=(",", ":")).encode()
MOVE = json.dumps(
    {
        "type": "move",
        "game_id": 1,
        "seat": 0,
        "ply": 3,
        "decision": "move",
        "view": {},
        "deadline_ms": 1000,
        "actions": [{"id": "5:red0+5", "kind": "forward"}, {"id": "5:red1+5", "kind": "forward"}],
    },
    separators=(",", ":"),
).encode()


def post(url: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, object]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        connection.request("POST", path, body, {"Content-Type": "application/json", **headers})
        response = connection.getresponse()
        text = response.read()
    finally:
        connection.close()
    try:
        return response.status, json.loads(text)
    except ValueError:
        return response.status, text


@pytest.mark.parametrize("name", NAMES)
def test_a_push_starter_answers_signed_requests_once(name: str, starter: list[str], tmp_path: Path) -> None:
    with started(starter, tmp_path, "--push", "--port", "0", ready="serving at", SORRY_ARENA_SECRET=SECRET) as bot:
        signed = signing.headers(SECRET, "POST", "/bot/info", INFO)
        assert post(bot.url, "/bot/info", INFO, signed) == (
            200,
            {"nonce": "8f14e45fceea167a", "name": f"{name}-starter", "games": ["board", "card"], "protocols": [2]},
        )
        assert post(bot.url, "/bot/info", INFO, signed)[0] == 401  # the same request again: a replay

        moved = post(bot.url, "/bot/move", MOVE, signing.headers(SECRET, "POST", "/bot/move", MOVE))
        assert moved == (200, {"action": "5:red0+5"})  # the first legal action
        started_game = b'{"type":"start","game_id":1}'
        assert (
            post(bot.url, "/start", started_game, signing.headers(SECRET, "POST", "/start", started_game))[0]
            == 200
        )

        refused = {
            "wrong secret": signing.headers("another secret", "POST", "/bot/move", MOVE),
            "stale": signing.headers(SECRET, "POST", "/bot/move", MOVE, now=time.time() - 301),
            "from the future": signing.headers(SECRET, "POST", "/bot/move", MOVE, now=time.time() + 301),
            "signed for another path": signing.headers(SECRET, "POST", "/bot/start", MOVE),
            "not signed": {},
            "bad request id": signing.headers(SECRET, "POST", "/bot/move", MOVE, request_id="X" * 32),
        }
        for what, headers in refused.items():
            assert post(bot.url, "/bot/move", MOVE, headers)[0] == 401, what

        garbage = b"this is not JSON"
        assert post(bot.url, "/bot/move", garbage, signing.headers(SECRET, "POST", "/bot/move", garbage))[0] == 400
    assert bot.process.poll() is not None  # stopped with its block
