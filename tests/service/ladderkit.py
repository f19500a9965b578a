"""Helpers of the ladder API tests: an app whose job queue records the matchmaking rounds asked for instead of
running them (so that no game is made behind a test's back: the rows a test reads are the ones it wrote), pull bots
and ladders made through the API, and a session on the app's database to write rows straight."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests.apikit import API, Player
from tests.arenakit import arena_app
from tests.conftest import dispose

OPERATOR_TOKEN = "op-" + "z" * 40
OPERATOR = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}


class RecordingQueue:
    """Stands for the app's job queue: the ladders asked a matchmaking round for, in order; the tournaments'
    start and cancellation jobs are dropped (their tournaments stay as made)."""

    scheduling = True

    def __init__(self) -> None:
        self.rounds: list[int] = []

    def queue_ladder_round(self, ladder_id: int) -> bool:
        self.rounds.append(ladder_id)
        return True

    def queue_start(self, tournament_id: int) -> bool:
        return True

    def queue_cancelled(self, tournament_id: int) -> bool:
        return True


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url, operator_token=OPERATOR_TOKEN, quota_ladders=2)
    app.extensions["queue"] = RecordingQueue()
    yield app
    dispose(app)


@pytest.fixture
def client(arena: Flask) -> FlaskClient:
    return arena.test_client()


@contextmanager
def database(app: Flask) -> Iterator[Session]:
    """A session on the app's database, committed at the end."""
    with app.extensions["db_sessions"]() as session:
        yield session
        session.commit()


def pull_bot(client: FlaskClient, owner: Player, name: str, **fields: Any) -> dict[str, Any]:
    body = {"name": name, "url": None, "games": ["card"], **fields}
    response = client.post(f"{API}/bots", json=body, headers=owner.headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def open_ladder(client: FlaskClient, headers: dict[str, str], **fields: Any) -> dict[str, Any]:
    response = client.post(f"{API}/ladders", json={"game": "card", **fields}, headers=headers)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()  # type: ignore[no-any-return]


def join(client: FlaskClient, headers: dict[str, str], ladder_id: int, bot_id: int) -> Any:
    return client.post(f"{API}/ladders/{ladder_id}/bots", json={"bot_id": bot_id}, headers=headers)
