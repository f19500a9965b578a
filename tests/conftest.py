"""Fixtures of the API tests: a fresh database per test (SQLite file or PostgreSQL database), the app and its client.

``database_url`` runs a test on both databases; a test that needs only one narrows it with
``pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)`` (``tests.apikit.SQLITE_ONLY``).
PostgreSQL and Redis are services of the machine (``tests/databases.py``): unreachable, a test is skipped
locally and fails in CI. The schema always comes from the migrations, so a missing migration fails here too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from runtime.settings import Settings
from service.app import create_app
from store import migrate
from tests.databases import postgres_database, unavailable

REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[str]:
    """The URL of a fresh, empty database with the service's tables."""
    if request.param == "sqlite":
        url = f"sqlite:///{os.path.join(tmp_path, 'api.db')}"
        migrate.upgrade(url)
        yield url
    elif request.param == "postgresql":
        for url in postgres_database():
            migrate.upgrade(url)
            yield url
    else:
        raise ValueError(f"unknown database kind {request.param!r}")


@pytest.fixture
def redis_url() -> str:
    """Redis on this machine, flushed of nothing (the service's channels are per game and need no cleanup)."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.RedisError as error:
        unavailable(f"Redis is unreachable at {REDIS_URL}: {error}")
    finally:
        client.close()
    return REDIS_URL


TEST_LIMITS = {"limit_accounts": "100000/minute", "limit_bots": "100000/hour", "limit_moves": "100000/second"}
"""The test apps' rate limits: counted as in production, but far above what a test makes (a test creates up to
hundreds of accounts from one address); ``tests/service/test_rate_limits.py`` tests the real defaults."""


def make_app(database_url: str, redis_url: str | None = None) -> Flask:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, **TEST_LIMITS))
    app.config["TESTING"] = True
    return app


def dispose(app: Flask) -> None:
    engine = app.extensions.get("db_engine")
    if engine is not None:
        engine.dispose()


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    app = make_app(database_url)
    yield app
    dispose(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
