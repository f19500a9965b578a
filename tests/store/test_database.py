"""The database engine (``store/database.py``): on PostgreSQL, a pooled connection that the server cut is found at
checkout without a round trip, and replaced with every connection pooled before it; a request never gets it. On
both, the pool's report of a reset that failed because the database went away is one line, without a traceback."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, text

from store.database import make_engine
from tests.databases import ADMIN_URL


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_connections_the_server_cut_are_replaced_at_checkout(database_url):
    database = make_engine(database_url)
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        held = [database.connect() for _ in range(2)]
        cut = [connection.execute(text("SELECT pg_backend_pid()")).scalar_one() for connection in held]
        for connection in held:
            connection.close()  # back to the pool, idle
        assert database.pool.checkedin() == 2
        with admin.connect() as connection:
            for pid in cut:
                assert connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar_one()
            deadline = time.monotonic() + 30  # the backends end soon after the signal, a loaded machine later
            while connection.execute(
                text("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(:pids)"), {"pids": cut}
            ).scalar_one():
                assert time.monotonic() < deadline, "the terminated backends never ended"
                time.sleep(0.05)
        for _ in range(3):
            with database.connect() as connection:
                pid = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
            assert pid not in cut
        raw = database.raw_connection()  # the fast lane's way, on a DB-API cursor
        try:
            cursor = raw.cursor()
            cursor.execute("SELECT pg_backend_pid()")
            assert cursor.fetchone()[0] not in cut
        finally:
            raw.close()
    finally:
        admin.dispose()
        database.dispose()


@pytest.mark.parametrize(
    "error",
    [
        sqlite3.OperationalError("disk I/O error"),
        psycopg.OperationalError(
            "sending query failed: cannot exit pipeline mode while busy\nPQsendQuery not allowed"
        ),
        psycopg.InterfaceError("the connection is closed"),
    ],
)
def test_a_reset_failed_because_the_database_went_away_is_one_line(
    error: Exception, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """The pool's report of a connection it could not roll back as it came back (the database restarted meanwhile)
    is a one-line warning naming the error, not an error with a traceback (an operator reads it as a bug)."""
    database = make_engine(f"sqlite:///{tmp_path / 'quiet.db'}")
    try:
        with caplog.at_level(logging.WARNING, logger=database.pool.logger.name):
            try:
                raise error
            except Exception:
                database.pool.logger.error("Exception during reset or similar", exc_info=True)
    finally:
        database.dispose()
    (record,) = [record for record in caplog.records if record.name == database.pool.logger.name]
    assert record.levelname == "WARNING" and record.exc_info is None
    first_line = str(error).splitlines()[0]
    assert record.getMessage() == f"Exception during reset or similar: {first_line} (the database went away)"
    assert "Traceback" not in caplog.text


def test_any_other_error_of_the_pool_keeps_its_traceback(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    database = make_engine(f"sqlite:///{tmp_path / 'loud.db'}")
    try:
        with caplog.at_level(logging.WARNING, logger=database.pool.logger.name):
            try:
                raise ValueError("a bug")
            except ValueError:
                database.pool.logger.error("Exception during reset or similar", exc_info=True)
    finally:
        database.dispose()
    (record,) = [record for record in caplog.records if record.name == database.pool.logger.name]
    assert record.levelname == "ERROR" and record.exc_info is not None
    assert "Traceback" in caplog.text and "ValueError: a bug" in caplog.text
