"""The fast lane's reads (``store/fastlane.py``): on PostgreSQL a request's lane reads in autocommit, holding no
transaction open between its statements, and its connection goes back to the pool in transactions again, so that
a session that takes it next still rolls back what it did not commit."""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import func, insert, select

from store.database import make_engine, sessions
from store.fastlane import Lane, Statements, param
from store.models import Player

_COUNT = select(func.count()).select_from(Player).where(Player.name == param("name"))


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_lane_reads_in_autocommit_and_gives_its_connection_back_in_transactions(database_url):
    database = make_engine(database_url)
    try:
        lane = Lane(Statements(database))
        assert lane.scalar(_COUNT, {"name": "ada"}) == 0
        driver = lane.connection().driver_connection
        assert driver.autocommit is True
        assert driver.info.transaction_status == psycopg.pq.TransactionStatus.IDLE, "no transaction left open"
        lane.release()
        assert database.pool.checkedin() == 1
        with sessions(database)() as session:
            assert session.connection().connection.driver_connection is driver, "the pool's one connection"
            assert driver.autocommit is False
            session.execute(insert(Player).values(name="ada", token_hash="a" * 64))
            session.rollback()
        assert lane.scalar(_COUNT, {"name": "ada"}) == 0, "the session's rollback undid its insert"
        lane.release()
    finally:
        database.dispose()
