"""The machine's database services for tests: fresh PostgreSQL databases, and what to do when one is down.

PostgreSQL and Redis are services of the machine: when one is unreachable a test is skipped with a message,
except in CI (``CI=true``), where it fails, so that CI never passes by skipping.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def unavailable(message: str) -> None:
    """Skip locally, fail in CI: a missing service must never make CI green."""
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def postgres_database(prefix: str = "sorry_arena_test") -> Iterator[str]:
    """The URL of a uniquely named, empty PostgreSQL database, dropped afterwards (its connections ended)."""
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
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
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
