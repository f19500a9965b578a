"""Fixtures of the API tests: a fresh database per test (SQLite file or PostgreSQL database), the app and its client.

``database_url`` runs a test on both databases; a test that needs only one narrows it with
``pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)`` (``tests.apikit.SQLITE_ONLY``).
PostgreSQL and Redis are services of the machine: when one is unreachable the test is skipped with a message,
except in CI (``CI=true``), where it fails, so that CI never passes by skipping.
"""

from __future__ import annotations

import importlib
import os
import uuid
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from service.app import create_app
from service.config import Settings

ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
REDIS_URL = "redis://127.0.0.1:6379/0"


def unavailable(message: str) -> None:
    """Skip locally, fail in CI: a missing service must never make CI green."""
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def create_tables(url: str) -> None:
    """The schema through the migrations when they exist (``service.migrate.upgrade``), else from the models."""
    try:
        migrate = importlib.import_module("service.migrate")
    except ImportError:  # the migrations are not there yet
        migrate = None
    if migrate is not None and hasattr(migrate, "upgrade"):
        migrate.upgrade(url)
        return
    from service.db import make_engine
    from service.models import Base

    engine = make_engine(url)
    try:
        Base.metadata.create_all(engine)
    finally:
        engine.dispose()


def _postgres_database() -> Iterator[str]:
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"sorry_arena_test_{uuid.uuid4().hex[:12]}"
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    except OperationalError as error:
        admin.dispose()
        unavailable(f"PostgreSQL is unreachable at {ADMIN_URL}: {error.orig}")
    try:
        yield POSTGRES_URL.format(name=name)
    finally:
        with admin.connect() as connection:
            connection.execute(
                text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name"),
                {"name": name},
            )
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[str]:
    """The URL of a fresh, empty database with the service's tables."""
    if request.param == "sqlite":
        url = f"sqlite:///{os.path.join(tmp_path, 'api.db')}"
        create_tables(url)
        yield url
    elif request.param == "postgresql":
        for url in _postgres_database():
            create_tables(url)
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


def make_app(database_url: str, redis_url: str | None = None) -> Flask:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url))
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
