"""The database engine (``store/database.py``): on PostgreSQL, a pooled connection that the server cut is found at
checkout without a round trip, and replaced with every connection pooled before it; a request never gets it. On
both, the pool's report of a reset that failed because the database went away is one line, without a traceback.
A deadlock, a locked, read-only or full database are failures of the database of their kind (asked again, a 503),
a broken constraint a bug; a connection that found its database read-only is dropped."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from store.database import failed_not_faulty, first_line, make_engine, outage
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


def deadlocked(database_url: str) -> DBAPIError:
    """The error PostgreSQL gives one of two transactions that each wait for a row the other has locked: a real
    deadlock (the other transaction then goes on)."""
    database = make_engine(database_url)
    lock = text("SELECT id FROM deadlock_rows WHERE id = :id FOR UPDATE")
    both_hold_one = threading.Barrier(2)
    caught: list[DBAPIError] = []

    def take(first: int, second: int) -> None:
        try:
            with database.begin() as connection:
                connection.execute(lock, {"id": first})
                both_hold_one.wait(timeout=60)
                connection.execute(lock, {"id": second})
        except DBAPIError as error:
            caught.append(error)

    try:
        with database.begin() as connection:
            connection.execute(text("CREATE TABLE deadlock_rows (id integer PRIMARY KEY)"))
            connection.execute(text("INSERT INTO deadlock_rows VALUES (1), (2)"))
        threads = [threading.Thread(target=take, args=rows) for rows in ((1, 2), (2, 1))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        database.dispose()
    (error,) = caught
    return error


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_deadlock_is_a_failure_of_the_database_not_a_bug(database_url: str) -> None:
    error = deadlocked(database_url)
    assert isinstance(error.orig, psycopg.errors.DeadlockDetected)
    assert failed_not_faulty(error)


def test_a_locked_database_is_a_failure_of_the_database_and_a_broken_constraint_or_a_missing_table_a_bug(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'locked.db'}"
    holder = make_engine(url)
    impatient = create_engine(url, connect_args={"timeout": 0})  # fails at once where the service's would wait
    try:
        with holder.begin() as connection:
            connection.execute(text("CREATE TABLE rows (id integer PRIMARY KEY)"))
            connection.execute(text("INSERT INTO rows VALUES (1)"))
        with holder.begin() as connection:
            connection.execute(text("INSERT INTO rows VALUES (2)"))  # holds the write lock until the block ends
            with pytest.raises(DBAPIError) as locked, impatient.begin() as other:
                other.execute(text("INSERT INTO rows VALUES (3)"))
        assert "database is locked" in str(locked.value) and failed_not_faulty(locked.value)
        with pytest.raises(DBAPIError) as broken, impatient.begin() as other:
            other.execute(text("INSERT INTO rows VALUES (1)"))
        assert isinstance(broken.value.orig, sqlite3.IntegrityError) and not failed_not_faulty(broken.value)
        with pytest.raises(DBAPIError) as unmigrated, impatient.begin() as other:
            other.execute(text("SELECT * FROM players"))  # SQLite's OperationalError too, but no failure of it
        assert "no such table" in str(unmigrated.value) and not failed_not_faulty(unmigrated.value)
    finally:
        holder.dispose()
        impatient.dispose()


def test_a_database_error_is_logged_by_its_first_line_or_its_name() -> None:
    assert (
        first_line(psycopg.OperationalError("deadlock detected\nDETAIL:  Process 7 waits")) == "deadlock detected"
    )
    assert first_line(psycopg.InterfaceError("")) == "InterfaceError"


def test_a_read_only_or_full_sqlite_is_a_failure_of_the_database_of_its_kind(tmp_path: Path) -> None:
    """SQLite's own errors: ``SQLITE_READONLY`` (here ``PRAGMA query_only``, as a read-only file or mount gives it)
    and ``SQLITE_FULL`` (here ``PRAGMA max_page_count``, as a full disk gives it). A connection that found its
    database read-only is dropped: the next one sees whether it is writable again."""
    database = make_engine(f"sqlite:///{tmp_path / 'sick.db'}")
    try:
        with database.begin() as connection:
            connection.execute(text("CREATE TABLE rows (x text)"))
        with pytest.raises(DBAPIError) as read_only, database.begin() as connection:
            connection.execute(text("PRAGMA query_only = 1"))
            connection.execute(text("INSERT INTO rows VALUES ('a')"))
        assert outage(read_only.value) == "read-only" and failed_not_faulty(read_only.value)
        assert read_only.value.connection_invalidated
        with database.begin() as connection:  # a new connection, without the pragma
            connection.execute(text("INSERT INTO rows VALUES ('a')"))
        with pytest.raises(DBAPIError) as full, database.connect() as connection:
            connection.execute(text("PRAGMA max_page_count = 1"))  # at most the pages it has
            for _ in range(1000):
                connection.execute(text("INSERT INTO rows VALUES (:x)"), {"x": "x" * 100})
                connection.commit()
        assert outage(full.value) == "full" and not full.value.connection_invalidated
    finally:
        database.dispose()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_read_only_or_full_postgresql_is_a_failure_of_the_database_of_its_kind(database_url: str) -> None:
    """PostgreSQL's read-only transaction (SQLSTATE 25006: psycopg's ``ReadOnlySqlTransaction``, an
    ``InternalError``), its connection dropped with the pool's older ones; a full disk (53100, ``DiskFull``)."""
    database = make_engine(database_url)
    try:
        with database.connect() as connection:
            before = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
            connection.rollback()
            with pytest.raises(DBAPIError) as read_only:
                connection.execute(text("SET TRANSACTION READ ONLY"))
                connection.execute(text("CREATE TABLE rows (x text)"))
        assert isinstance(read_only.value.orig, psycopg.errors.ReadOnlySqlTransaction)
        assert outage(read_only.value) == "read-only" and read_only.value.connection_invalidated
        with database.connect() as connection:
            assert connection.execute(text("SELECT pg_backend_pid()")).scalar_one() != before
    finally:
        database.dispose()
    disk_full = psycopg.errors.DiskFull("could not extend file: No space left on device")
    assert outage(disk_full) == "full" and outage(DBAPIError("INSERT ...", {}, disk_full)) == "full"
    assert outage(psycopg.errors.DeadlockDetected("deadlock detected")) == "busy"
    assert outage(psycopg.errors.AdminShutdown("terminating connection")) == "unavailable"
    assert outage(psycopg.errors.UniqueViolation("duplicate key")) is None
