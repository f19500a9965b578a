"""Fixtures of the reliability tests: a private PostgreSQL and Redis for the session (``servers.py``), and per test
a fresh database, an empty Redis, the app, the workers and the bot processes (``harness.py``).

These tests stop and restart their servers, so they never use the machine's own. A private server that cannot
start skips the tests locally and fails them in CI (``CI=true``), like any missing service (tests/databases.py).
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.arenakit import arena_app
from tests.conftest import dispose
from tests.databases import unavailable
from tests.reliability.harness import Arena, Bots, Workers
from tests.reliability.servers import PrivatePostgres, PrivateRedis, ServerError


@pytest.fixture(scope="session")
def private_postgres() -> Iterator[PrivatePostgres]:
    try:
        server = PrivatePostgres()
    except (ServerError, OSError, subprocess.SubprocessError) as error:
        unavailable(f"cannot set up a private PostgreSQL: {error}")
    try:
        server.start()
        server.migrate_template()
    except (ServerError, OSError, subprocess.SubprocessError) as error:
        server.close()
        unavailable(f"cannot start a private PostgreSQL: {error}")
    yield server
    server.close()


@pytest.fixture(scope="session")
def private_redis() -> Iterator[PrivateRedis]:
    server = PrivateRedis()
    try:
        server.start()
    except (ServerError, OSError, subprocess.SubprocessError) as error:
        server.close()
        unavailable(f"cannot start a private redis-server: {error}")
    yield server
    # the apps' Redis listeners (daemon threads, runtime/wakeups.py) outlive their tests: with the server gone they
    # would log a reconnection every few seconds while this xdist worker waits for the others
    logging.getLogger("runtime.wakeups").setLevel(logging.CRITICAL)
    server.close()


def make_arena(postgres: PrivatePostgres, redis: PrivateRedis, logs: Path) -> Iterator[Arena]:
    if redis.process is None or redis.process.poll() is not None:
        redis.start()  # a test that failed mid-restart left it down
    redis.flush()
    database_url = postgres.new_database()
    app = arena_app(database_url, redis.url)
    arena = Arena(app, Workers(database_url, redis.url, logs), Bots())
    try:
        yield arena
    finally:
        arena.workers.stop()
        arena.bots.stop()
        dispose(app)


@pytest.fixture
def arena(private_postgres: PrivatePostgres, private_redis: PrivateRedis, tmp_path: Path) -> Iterator[Arena]:
    """A fresh tournament world for one test (no workers or bots started yet)."""
    yield from make_arena(private_postgres, private_redis, tmp_path)
