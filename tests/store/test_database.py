"""The database engine (``store/database.py``) on PostgreSQL: a pooled connection that the server cut is found at
checkout without a round trip, and replaced with every connection pooled before it; a request never gets it."""

from __future__ import annotations

import time

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
