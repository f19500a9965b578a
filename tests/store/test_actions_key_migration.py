"""Migration 0010 (store/migrations/versions/0010_actions_keyed_by_ply.py) on a database with games: the actions
keep every column but ``id`` under the primary key ``(game_id, ply)``; a downgrade numbers them again (ids unique,
the unique ``(game_id, ply)`` back) and keeps every row; upgrading again gives the same rows. On SQLite and
PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Engine, MetaData, Table, insert, inspect, select
from sqlalchemy.exc import IntegrityError

import engine
from store import migrate
from store.database import make_engine, sessions
from tests.store.test_eventlog import SETTINGS, advance, new_game

KEPT = ("game_id", "ply", "seat", "action", "latency_ms", "fault", "fault_detail", "debug")


def actions(database: Engine) -> tuple[Table, list[tuple[Any, ...]]]:
    table = Table("actions", MetaData(), autoload_with=database)
    with database.connect() as connection:
        rows = connection.execute(
            select(*(table.c[name] for name in KEPT)).order_by(table.c.game_id, table.c.ply)
        ).all()
    return table, [tuple(row) for row in rows]


def test_the_actions_keep_their_rows_under_either_key(database_url: str) -> None:
    database = make_engine(database_url)
    try:
        with sessions(database)() as session:
            for seed in (8, 9):
                advance(session, new_game(session, seed), engine.new_game("card", SETTINGS, seed), 0, 6, [])
        table, rows = actions(database)
        assert "id" not in table.c and len(rows) == 12
        assert inspect(database).get_pk_constraint("actions")["constrained_columns"] == ["game_id", "ply"]
        database.dispose()
        command.downgrade(migrate.alembic_config(database_url), "0009")
        old, kept = actions(database)
        assert kept == rows
        with database.connect() as connection:
            ids = connection.execute(select(old.c.id)).scalars().all()
            assert sorted(ids) == sorted(set(ids)) and len(ids) == 12
            first = {**dict(zip(KEPT, rows[0], strict=True)), "created_at": datetime.now(UTC)}
            connection.execute(insert(old).values({**first, "ply": 99}))  # a new ply: numbered
            with pytest.raises(IntegrityError):  # (game_id, ply) is still unique
                connection.execute(insert(old).values(first))
        database.dispose()
        assert migrate.upgrade(database_url) == migrate.head()
        assert actions(database)[1] == rows
    finally:
        database.dispose()
