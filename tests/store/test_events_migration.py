"""Migration 0009 (store/migrations/versions/0009_events_derived.py) on a database with games: upgrading drops the
events table, and a downgrade makes it again filled with every game's events as the engine replays its actions,
numbered and placed as the code of 0008 wrote them (the events derived now, row for row). On SQLite and
PostgreSQL."""

from __future__ import annotations

from alembic import command
from sqlalchemy import MetaData, Table, inspect, select

import engine
from store import eventlog, migrate
from store.database import make_engine, sessions
from tests.store.test_eventlog import SETTINGS, advance, new_game


def test_a_downgrade_writes_back_the_derived_events_and_an_upgrade_drops_them(database_url: str) -> None:
    database = make_engine(database_url)
    try:
        derived = {}
        with sessions(database)() as session:
            for seed, plies in ((3, 0), (4, 9)):
                game = new_game(session, seed)
                if plies:
                    advance(session, game, engine.new_game("card", SETTINGS, seed), 0, plies, [])
                derived[game.id] = [
                    (logged.seq, logged.ply, logged.to_seat, logged.payload)
                    for logged in eventlog.EventLog().events(session, game)
                ]
        assert "events" not in inspect(database).get_table_names()
        command.downgrade(migrate.alembic_config(database_url), "0008")
        events = Table("events", MetaData(), autoload_with=database)
        with database.connect() as connection:
            for game_id, expected in derived.items():
                rows = connection.execute(
                    select(events.c.seq, events.c.ply, events.c.to_seat, events.c.payload)
                    .where(events.c.game_id == game_id)
                    .order_by(events.c.seq)
                ).all()
                assert [tuple(row) for row in rows] == expected and len(expected) > 4
        database.dispose()
        assert migrate.upgrade(database_url) == migrate.head()
        assert "events" not in inspect(database).get_table_names()
    finally:
        database.dispose()
