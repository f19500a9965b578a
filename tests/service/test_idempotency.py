"""The ``Idempotency-Key`` header of the create requests (service/idempotency.py, store/idempotency.py), on SQLite
and PostgreSQL: a retry is answered as the first request and creates nothing; the key with another request is a
422; two requests with one key at once create once (the second a 409 while the first is in progress); a failure
gives the key back; keys are per account, malformed ones a 400, and expire after 24 hours (the maintenance deletes
them); the header is in the OpenAPI document of every create."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select, update

from service import gameplay
from store import idempotency
from store.models import Bot, Game, IdempotencyKey, now
from tests.apikit import API, Player, new_player
from tournament.dispatch import recovery

GAME = {"game": "card", "settings": {"pawns": 2}, "seats": 2, "seed": 5}
CREATES = [
    ("post", "/api/v1/bots"),
    ("post", "/api/v1/challenges"),
    ("post", "/api/v1/games"),
    ("post", "/api/v1/games/{game_id}/seats"),
    ("post", "/api/v1/gauntlets"),
    ("post", "/api/v1/ladders"),
    ("post", "/api/v1/matches"),
    ("post", "/api/v1/tournaments"),
]


def keyed(client: FlaskClient, player: Player, path: str, body: dict[str, Any], key: str | None) -> Any:
    headers = {**player.headers, **({"Idempotency-Key": key} if key is not None else {})}
    return client.post(f"{API}{path}", json=body, headers=headers)


def count(app: Flask, model: Any) -> int:
    with app.extensions["db_sessions"]() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def test_a_retry_with_the_same_key_gets_the_first_answer_and_creates_nothing(
    app: Flask, client: FlaskClient
) -> None:
    ada = new_player(client, "ada")
    first = keyed(client, ada, "/games", GAME, "game-1")
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    # the same request (its JSON in another order and spacing is the same request) sent again
    again = client.post(
        f"{API}/games",
        data='{"seed": 5, "seats": 2,  "settings": {"pawns": 2}, "game": "card"}',
        content_type="application/json",
        headers={**ada.headers, "Idempotency-Key": "game-1"},
    )
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert count(app, Game) == 1
    bot = {"name": "once", "url": None, "games": ["card"]}
    registered = keyed(client, ada, "/bots", bot, "bot-1")
    assert registered.status_code == 201
    replayed = keyed(client, ada, "/bots", bot, "bot-1")
    assert replayed.headers["Idempotent-Replayed"] == "true" and replayed.get_json() == registered.get_json()
    assert count(app, Bot) == 1
    # the bot's token and secret, shown once, are in the response kept with the key: sealed, unreadable from the
    # database alone (its key derives from the owner's token, which the database keeps hashed)
    with app.extensions["db_sessions"]() as session:
        kept = session.scalar(select(IdempotencyKey.body).where(IdempotencyKey.key == "bot-1"))
    assert kept is not None
    for shown_once in (registered.get_json()["token"], registered.get_json()["secret"], '"name"'):
        assert shown_once not in kept
    game_id = first.get_json()["id"]
    seated = keyed(client, ada, f"/games/{game_id}/seats", {}, "seat-1")
    assert seated.status_code == 201
    assert keyed(client, ada, f"/games/{game_id}/seats", {}, "seat-1").get_json() == seated.get_json()
    # without the key, the same retry is what it always was: a second game
    assert keyed(client, ada, "/games", GAME, None).status_code == 201
    assert count(app, Game) == 2


def test_the_key_with_another_request_is_a_422_that_says_so(app: Flask, client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    assert keyed(client, ada, "/games", GAME, "k").status_code == 201
    for path, body in (("/games", {**GAME, "seed": 6}), ("/bots", {"name": "b", "url": None, "games": ["card"]})):
        refused = keyed(client, ada, path, body, "k")
        assert refused.status_code == 422
        assert "Idempotency-Key was used with a different request" in refused.get_json()["message"]
    assert count(app, Game) == 1 and count(app, Bot) == 0


def test_keys_are_per_account(app: Flask, client: FlaskClient) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    mine = keyed(client, ada, "/games", GAME, "same")
    theirs = keyed(client, bob, "/games", GAME, "same")
    assert mine.status_code == theirs.status_code == 201 and "Idempotent-Replayed" not in theirs.headers
    assert mine.get_json()["id"] != theirs.get_json()["id"]


def test_a_failed_request_gives_its_key_back(app: Flask, client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    bad = keyed(client, ada, "/games", {**GAME, "settings": {"pawns": 99}}, "retry-me")
    assert bad.status_code == 422
    good = keyed(client, ada, "/games", GAME, "retry-me")
    assert good.status_code == 201 and "Idempotent-Replayed" not in good.headers


MALFORMED = ["", "x" * 256, "caf\u00e9", "tab\there", " leading", "trailing ", "bell\x07"]


def test_a_malformed_key_is_a_400_that_says_what_a_key_is(app: Flask, client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    for key in MALFORMED:
        refused = client.post(
            f"{API}/games", json=GAME, headers={**ada.headers, "Idempotency-Key": key.encode().decode("latin-1")}
        )
        assert refused.status_code == 400, (key, refused.get_data(as_text=True))
        assert "1 to 255 printable ASCII characters" in refused.get_json()["message"]
    assert count(app, Game) == 0
    assert keyed(client, ada, "/games", GAME, "x" * 255).status_code == 201  # the longest key
    assert keyed(client, ada, "/games", GAME, "a key: with spaces & {punctuation}~").status_code == 201


def test_two_requests_with_one_key_at_once_create_once(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first request is held inside its view until the second has been answered: a 409 with Retry-After
    (never a second game); once the first is answered, the key gives its answer."""
    ada = new_player(client, "ada")
    inside, answered = threading.Event(), threading.Event()
    create = gameplay.create_game

    def held(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        assert answered.wait(60)
        return create(*args, **kwargs)

    monkeypatch.setattr(gameplay, "create_game", held)
    outcome: list[Any] = []
    first = threading.Thread(target=lambda: outcome.append(keyed(app.test_client(), ada, "/games", GAME, "once")))
    first.start()
    try:
        assert inside.wait(60)
        second = keyed(client, ada, "/games", GAME, "once")
    finally:
        answered.set()
        first.join(60)
    assert second.status_code == 409 and second.headers["Retry-After"] == "1"
    assert "in progress" in second.get_json()["message"]
    assert len(outcome) == 1 and outcome[0].status_code == 201
    third = keyed(client, ada, "/games", GAME, "once")
    assert third.headers["Idempotent-Replayed"] == "true" and third.get_json() == outcome[0].get_json()
    assert count(app, Game) == 1


class Sessions:
    """What ``recovery.expire_keys`` needs of a worker's context."""

    def __init__(self, app: Flask) -> None:
        self.sessions = app.extensions["db_sessions"]


def test_keys_expire_after_a_day_and_the_maintenance_deletes_them(app: Flask, client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    assert keyed(client, ada, "/games", GAME, "old").status_code == 201
    assert keyed(client, ada, "/games", GAME, "new").status_code == 201
    with app.extensions["db_sessions"]() as session:
        session.execute(
            update(IdempotencyKey)
            .where(IdempotencyKey.key == "old")
            .values(created_at=now() - idempotency.TTL - timedelta(minutes=1))
        )
        session.commit()
    # an expired key is free again: another request with it creates
    fresh = keyed(client, ada, "/games", {**GAME, "seed": 9}, "old")
    assert fresh.status_code == 201 and "Idempotent-Replayed" not in fresh.headers
    with app.extensions["db_sessions"]() as session:
        session.execute(update(IdempotencyKey).values(created_at=now() - idempotency.TTL - timedelta(minutes=1)))
        session.execute(update(IdempotencyKey).where(IdempotencyKey.key == "new").values(created_at=now()))
        session.commit()
    assert recovery.expire_keys(Sessions(app), interval=0) == 1  # type: ignore[arg-type]
    assert recovery.expire_keys(Sessions(app), interval=3600) is None  # not due again so soon  # type: ignore[arg-type]
    with app.extensions["db_sessions"]() as session:
        assert session.scalars(select(IdempotencyKey.key)).all() == ["new"]


def test_the_openapi_document_shows_the_header_on_every_create(app: Flask) -> None:
    spec = app.extensions["api"].spec.to_dict()
    for method, path in CREATES:
        operation = spec["paths"][path][method]
        names = [parameter.get("name") for parameter in operation.get("parameters", [])]
        assert "Idempotency-Key" in names, (method, path)
        assert "400" in operation["responses"]
    keyed_paths = {
        (method, path)
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if isinstance(operation, dict)
        and any(parameter.get("name") == "Idempotency-Key" for parameter in operation.get("parameters", []))
    }
    assert keyed_paths == set(CREATES)
