"""Fixtures of the client tests: from tests/arenakit.py (shared with tests/tournament/) an app that may call
loopback bots and runs its jobs on its own threads (the embedded queue), its client, and a player who owns the
bots; and ``service``, such an app served on loopback for pull clients; on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.arenakit import arena, arena_app, client, owner  # noqa: F401 (fixtures)
from tests.conftest import dispose
from tests.liveserver import serving


@dataclass
class Service:
    app: Flask
    client: FlaskClient
    url: str


def served(database_url: str, **settings: Any) -> Iterator[Service]:
    """An arena app (``settings`` beside the tests' own) served on loopback, its queue drained at the end."""
    app = arena_app(database_url, **settings)
    try:
        with serving(app) as url:
            yield Service(app, app.test_client(), url)
            app.extensions["queue"].wait(timeout=60)
    finally:
        dispose(app)


@pytest.fixture
def service(database_url: str) -> Iterator[Service]:
    yield from served(database_url)
