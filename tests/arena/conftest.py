"""Fixtures of the bot and tournament tests: an app that may call loopback bots and runs its jobs on its own
threads (the embedded queue), its client, and a player who owns the bots; on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.apikit import Player, new_player
from tests.arenakit import arena_app
from tests.conftest import dispose


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    app = arena_app(database_url)
    yield app
    app.extensions["queue"].wait(timeout=60)
    dispose(app)


@pytest.fixture
def client(arena: Flask) -> FlaskClient:
    return arena.test_client()


@pytest.fixture
def owner(client: FlaskClient) -> Player:
    return new_player(client, "owner")
