"""An older release on a newer schema: a database at a revision this release does not know is refused, in one line
and with exit status 2, by every command that opens the database and by ``create_app`` (store/migrate.py,
cli/database.py); here the database is stamped with a revision no migration has. On SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import create_engine, text

from cli.main import main
from runtime.settings import Settings
from service.app import create_app
from store import migrate
from tests.conftest import dispose, make_app

FUTURE = "9999"
REFUSAL = f"this database is at revision {FUTURE}, newer than this release's {migrate.head()}: upgrade the program"


@pytest.fixture(name="newer")
def newer_database(database_url: str) -> str:
    return newer(database_url)


def newer(database_url: str) -> str:
    """A database of the service's tables, stamped with a revision this release does not know."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = :future"), {"future": FUTURE})
    finally:
        engine.dispose()
    return database_url


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command in-process: it exits 2 (by return or by ``SystemExit``); its standard error."""
    try:
        status = main(argv)
    except SystemExit as exit:
        status = int(exit.code or 0)
    assert status == 2, argv
    return capsys.readouterr().err


def test_db_upgrade_refuses_in_one_line_without_a_traceback(newer: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cli.main", "db", "upgrade", "--database-url", newer],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr == f"sorry-arena db upgrade: {REFUSAL}\n"
    assert migrate.current(newer) == FUTURE, "nothing changed"


def test_every_command_that_opens_the_database_refuses_it(
    newer: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for argv, name in [
        (["db", "downgrade", "0012"], "db downgrade"),
        (["serve"], "serve"),
        (["serve", "--no-migrate"], "serve"),
        (["worker", "--redis-url", "redis://127.0.0.1:9/0", "--burst"], "worker"),
        (["export", "--tournament", "1"], "export"),
    ]:
        err = refused([*argv, "--database-url", newer], capsys)
        assert err == f"sorry-arena {name}: {REFUSAL}\n", argv
    monkeypatch.setenv("DATABASE_URL", newer)
    assert refused(["demo"], capsys) == f"sorry-arena demo: {REFUSAL}\n"
    assert migrate.current(newer) == FUTURE


def test_create_app_refuses_it(newer: str) -> None:
    with pytest.raises(migrate.NewerDatabase, match=REFUSAL):
        create_app(Settings(database_url=newer))


def test_readiness_says_so_when_a_newer_release_migrated_it_meanwhile(database_url: str) -> None:
    app = make_app(database_url)
    try:
        newer(database_url)  # a newer release's upgrade, while this one serves
        answer = app.test_client().get("/api/v1/ready")
        assert answer.status_code == 503
        assert answer.get_json()["checks"]["migrations"] == REFUSAL
    finally:
        dispose(app)


def test_a_known_revision_passes(database_url: str) -> None:
    assert migrate.refuse_newer(database_url) == migrate.head()
