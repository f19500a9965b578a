"""Migration 0007 on a database with data (store/migrations/versions/0007_bot_versions.py): every existing bot gets
its version 1 (its url, its registration time), every existing result the version 1 of each of its bots, and
active bots that shared a name are told apart (the oldest keeps it, the others get ``-<id>``; a deleted bot keeps
its name); downgrading drops it all again. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import MetaData, Table, create_engine, insert, inspect, select
from sqlalchemy.engine import Engine

from store import migrate
from tests.databases import postgres_database

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def at_0006(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a database migrated to 0006."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'old.db'}"
        migrate.upgrade(url, "0006")
        yield url
    else:
        for url in postgres_database("sorry_arena_versions"):
            migrate.upgrade(url, "0006")
            yield url


def table(engine: Engine, name: str) -> Table:
    return Table(name, MetaData(), autoload_with=engine)


def fill(engine: Engine) -> None:
    """Players, bots (three active ones called greedy, a deleted one too; two with a name of the longest), a
    tournament with a result."""
    rows: dict[str, list[dict[str, Any]]] = {
        "players": [
            {"id": n, "name": f"p{n}", "token_hash": f"{n:064d}", "created_at": WHEN} for n in range(1, 8)
        ],
        "bots": [
            {
                "id": bot_id,
                "owner_id": 1,
                "player_id": bot_id + 1,
                "name": name,
                "url": url,
                "games": ["card"],
                "secret": "s" * 40,
                "active": active,
                "failed_checks": 0,
                "passed_checks": 0,
                "excluded": False,
                "checked_at": None,
                "open_to_others": False,
                "created_at": WHEN,
            }
            for bot_id, name, url, active in [
                (1, "greedy", "http://127.0.0.1:8001/bot", True),
                (2, "greedy", None, True),
                (3, "greedy", None, False),
                (4, "greedy", None, True),
                (5, "x" * 64, None, True),
                (6, "x" * 64, None, True),
            ]
        ],
        "games": [
            {
                "id": 1,
                "game": "card",
                "settings": {"players": 2},
                "seed": 1,
                "seats": 2,
                "status": "over",
                "ply": 0,
                "state": "{}",
                "result": None,
                "created_by": 1,
                "created_at": WHEN,
                "updated_at": WHEN,
            }
        ],
        "tournaments": [
            {
                "id": 1,
                "owner_id": 1,
                "name": "t",
                "game": "card",
                "settings": {"players": 2},
                "variant": "standard",
                "bot_ids": [1, 2],
                "table_size": 2,
                "rounds": 1,
                "seed": 1,
                "seed_salt": None,
                "official": False,
                "move_timeout_ms": 1000,
                "rated": True,
                "start_at": None,
                "repeat_every": None,
                "repeat_times": None,
                "parent_id": None,
                "run": 1,
                "status": "done",
                "games_total": 1,
                "standings": None,
                "standings_through": 1,
                "created_at": WHEN,
                "finished_at": WHEN,
            }
        ],
        "tournament_games": [
            {
                "id": 1,
                "tournament_id": 1,
                "number": 0,
                "round": 0,
                "bot_ids": [2, 1],
                "seed": 1,
                "game_id": 1,
                "status": "done",
                "fed": True,
                "attempts": 1,
                "worker": None,
                "lease_until": None,
            }
        ],
        "results": [
            {
                "id": 1,
                "tournament_game_id": 1,
                "tournament_id": 1,
                "game_id": 1,
                "game": "card",
                "variant": "standard",
                "rated": True,
                "bot_ids": [2, 1],
                "ranks": [0, 1],
                "reason": "win",
                "forfeited": [],
                "faults": [0, 0],
                "moves": 10,
                "finished_at": WHEN,
            }
        ],
    }
    with engine.begin() as connection:
        for name, values in rows.items():
            connection.execute(insert(table(engine, name)), values)


def test_existing_bots_and_results_get_their_first_version_and_names_are_told_apart(at_0006: str) -> None:
    engine = create_engine(at_0006)
    try:
        fill(engine)
        assert migrate.upgrade(at_0006, "0007") == "0007"
        with engine.connect() as connection:
            versions = table(engine, "bot_versions")
            found = connection.execute(
                select(versions.c.bot_id, versions.c.number, versions.c.url, versions.c.note, versions.c.id)
            ).all()
            assert sorted(row[:4] for row in found) == [
                (1, 1, "http://127.0.0.1:8001/bot", None),
                (2, 1, None, None),
                (3, 1, None, None),
                (4, 1, None, None),
                (5, 1, None, None),
                (6, 1, None, None),
            ]
            first = {row[0]: row[4] for row in found}
            results = table(engine, "results")
            assert connection.execute(select(results.c.version_ids)).scalar_one() == [first[2], first[1]]
            bots = table(engine, "bots")
            names = dict(connection.execute(select(bots.c.id, bots.c.name)).all())
            assert names == {
                1: "greedy",
                2: "greedy-2",
                3: "greedy",
                4: "greedy-4",
                5: "x" * 64,
                6: "x" * 62 + "-6",
            }
        assert migrate.upgrade(at_0006) == migrate.head()  # the later migrations on top of these rows
        assert migrate.check(at_0006) == []
        command.downgrade(migrate.alembic_config(at_0006), "0006")
        assert "bot_versions" not in inspect(engine).get_table_names()
        assert "version_ids" not in {column["name"] for column in inspect(engine).get_columns("results")}
    finally:
        engine.dispose()
