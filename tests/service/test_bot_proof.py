"""Registering a push bot is no port scanner (``service/api/bots.py``, ``prove``): whatever answers, or does not, at
the URL (a closed port, a listener that never replies, an unknown host, a 404, a 500 with a telling body, a body
that is not JSON, a wrong nonce) the answer is one and the same 422 (``NOT_PROVED``), which quotes nothing of the
target, and it comes no sooner than the proof's deadline, so that its timing tells nothing either. The same holds
for ``PATCH /bots/{id}`` with a new url or a new secret. One failure is named, without quoting the target either
and at the same deadline: a 401 or 403 to both protocol versions' signatures (``SIGNATURE_REJECTED``: the owner's
secret, most likely). A URL refused before any call (malformed, a refused address) still says why: that is the
URL's own business. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from botlink import signing
from service.api.bots import NOT_PROVED, PROOF_TIMEOUT_S, SIGNATURE_REJECTED
from tests.apikit import API, Player, new_player
from tests.arenakit import SECRET, arena_app, push_bots, random_choice, register
from tests.botservers import BotServer, Handler, Received, closed_port, garbage, raw, slow, status
from tests.conftest import dispose

BANNER = b"SSH-2.0-OpenSSH_9.6 internal-db-7.corp"
"""What a scanned service might say: none of it may come back."""


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url)
    yield app
    dispose(app)


def wrong_nonce(handler: Handler, request: Received) -> None:
    handler.send(200, json.dumps({"nonce": "0" * 32, "name": "x", "games": ["card"]}).encode())


FAILURES = {
    "404": status(404, BANNER),
    "500": status(500, BANNER),
    "not JSON": garbage(),
    "a JSON array": raw(b'["' + BANNER + b'"]'),
    "wrong nonce": wrong_nonce,
    "no reply": slow(PROOF_TIMEOUT_S + 3),
}


def attempt(arena: Flask, owner: Player, url: str, answers: dict[str, tuple[int, str, float]], name: str) -> None:
    client = arena.test_client()
    started = time.monotonic()
    response = client.post(
        f"{API}/bots",
        json={"name": "scan", "url": url, "games": ["card"], "secret": SECRET},
        headers=owner.headers,
    )
    answers[name] = (response.status_code, response.get_json()["message"], time.monotonic() - started)


def test_every_failed_proof_gets_the_same_answer_at_the_deadline(arena: Flask) -> None:
    owner = new_player(arena.test_client(), "owner")
    servers = {name: BotServer(behaviour).__enter__() for name, behaviour in FAILURES.items()}
    urls = {name: server.url() for name, server in servers.items()}
    urls["closed port"] = f"http://127.0.0.1:{closed_port()}/bot"
    urls["unknown host"] = "http://no-such-host.invalid/bot"
    answers: dict[str, tuple[int, str, float]] = {}
    try:
        threads = [  # at once: each waits out the deadline
            threading.Thread(target=attempt, args=(arena, owner, url, answers, name)) for name, url in urls.items()
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        for server in servers.values():
            server.__exit__(None, None, None)
    assert set(answers) == set(urls)
    for name, (code, message, seconds) in answers.items():
        assert (code, message) == (422, NOT_PROVED), name
        assert seconds >= PROOF_TIMEOUT_S - 0.05, (name, seconds)
    assert "SSH" not in NOT_PROVED and "HTTP" not in NOT_PROVED and "refused" not in NOT_PROVED
    assert all(server.received for server in servers.values())  # each was asked (and answered as it does)
    assert arena.test_client().get(f"{API}/bots").get_json()["bots"] == []


def test_a_changed_url_or_secret_is_proved_with_the_same_answer(arena: Flask) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    with push_bots(random_choice) as (good,), BotServer(status(500, BANNER)) as bad:
        bot = register(client, owner, "mine", good.url, games=("card",))
        moved = client.patch(f"{API}/bots/{bot['id']}", json={"url": bad.url()}, headers=owner.headers)
        assert (moved.status_code, moved.get_json()["message"]) == (422, NOT_PROVED)
        # the good bot checks signatures with the secret it was given: a new one fails its proof
        rotated = client.patch(f"{API}/bots/{bot['id']}", json={"secret": "n" * 40}, headers=owner.headers)
        assert (rotated.status_code, rotated.get_json()["message"]) == (422, SIGNATURE_REJECTED)
        shown = client.get(f"{API}/bots/{bot['id']}", headers=owner.headers).get_json()
        assert shown["url"] == good.url  # nothing changed


@pytest.mark.parametrize("code", [401, 403])
def test_a_refused_signature_is_named_at_the_deadline_quoting_nothing(arena: Flask, code: int) -> None:
    owner = new_player(arena.test_client(), "owner")
    answers: dict[str, tuple[int, str, float]] = {}
    with BotServer(status(code, BANNER)) as server:
        attempt(arena, owner, server.url(), answers, "refused")
    message, seconds = answers["refused"][1], answers["refused"][2]
    assert answers["refused"][0] == 422 and message == SIGNATURE_REJECTED
    assert "SSH" not in message and "corp" not in message
    assert seconds >= PROOF_TIMEOUT_S - 0.05, seconds
    asked = [received.headers.get(signing.PROTOCOL_HEADER) for received in server.received]
    assert asked == ["2", "1"], "asked in v2, then again in v1"
    assert signing.REQUEST_ID_HEADER not in server.received[1].headers  # a v1 request has none


@pytest.mark.parametrize(
    ("url", "says"),
    [("ftp://127.0.0.1/bot", "url: "), ("not a url", "url: "), ("http://10.1.2.3/bot", "url: ")],
)
def test_a_url_refused_before_any_call_says_why(arena: Flask, url: str, says: str) -> None:
    client = arena.test_client()
    owner = new_player(client, "owner")
    response = client.post(
        f"{API}/bots", json={"name": "x", "url": url, "games": ["card"], "secret": SECRET}, headers=owner.headers
    )
    body: dict[str, Any] = response.get_json()
    assert response.status_code == 422 and body["message"].startswith(says)
    assert body["message"] != NOT_PROVED
