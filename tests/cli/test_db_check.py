"""``sorry-arena db check`` as the user runs it (a subprocess), on SQLite and PostgreSQL: a database just migrated
by ``sorry-arena db upgrade`` matches the models; each difference of one that does not is a sentence (never
alembic's tuples or SQLAlchemy's reprs), and the last line says what to do."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.databases import postgres_database

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a fresh database without any table."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
    else:
        yield from postgres_database("sorry_arena_db_check")


def db(*args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")}
    return subprocess.run(
        [sys.executable, "-m", "cli.main", "db", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def execute(url: str, *statements: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            for statement in statements:
                connection.execute(text(statement))
    finally:
        engine.dispose()


def assert_sentences(output: str) -> None:
    """No Python in what the user reads."""
    for python in ("Table(", "Column(", "Index(", "MetaData", "('", "[(", "<", "Traceback"):
        assert python not in output, output


def test_a_freshly_migrated_database_matches_the_models(empty_database: str) -> None:
    upgrade = db("upgrade", "--database-url", empty_database)
    assert upgrade.returncode == 0, upgrade.stderr
    check = db("check", "--database-url", empty_database)
    assert (check.returncode, check.stderr) == (0, ""), check.stdout
    assert check.stdout.endswith(": the schema matches the models\n")


def test_a_database_never_migrated_is_told_to_upgrade(empty_database: str) -> None:
    check = db("check", "--database-url", empty_database)
    assert check.returncode == 1
    assert "table players is missing from the database" in check.stdout.splitlines()
    assert "index ix_games_status on games(status) is missing from the database" in check.stdout.splitlines()
    assert check.stderr.endswith(
        ": the schema differs from the models (never migrated: sorry-arena db upgrade creates the tables)\n"
    )
    assert_sentences(check.stdout + check.stderr)


def test_each_difference_is_a_sentence(empty_database: str) -> None:
    assert db("upgrade", "--database-url", empty_database).returncode == 0
    execute(
        empty_database,
        "ALTER TABLE players ADD COLUMN nickname VARCHAR(20)",
        "CREATE TABLE stray (id INTEGER PRIMARY KEY)",
        "CREATE INDEX ix_bots_name ON bots (name)",
        "DROP INDEX ix_tournaments_status",
    )
    expected = {
        "column players.nickname is in the database but not in the models",
        "table stray is in the database but not in the models",
        "index ix_bots_name on bots(name) is in the database but not in the models",
        "index ix_tournaments_status on tournaments(status) is missing from the database",
    }
    if empty_database.startswith("postgresql"):  # SQLite cannot alter a column in place
        execute(
            empty_database,
            "ALTER TABLE bots ALTER COLUMN name TYPE VARCHAR(80)",
            "ALTER TABLE bots ALTER COLUMN games DROP NOT NULL",
        )
        expected |= {
            "column bots.name: the type is VARCHAR(80) in the database, VARCHAR(64) in the models",
            "column bots.games: the nullability is NULL in the database, NOT NULL in the models",
        }
    check = db("check", "--database-url", empty_database)
    assert check.returncode == 1
    assert set(check.stdout.splitlines()) == expected
    assert check.stderr.endswith(": the schema differs from the models\n")
    assert_sentences(check.stdout + check.stderr)
