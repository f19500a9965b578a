"""Alembic migrations (``store.migrate``) and the ``sorry-arena db`` / ``serve`` commands.

Migrating a fresh SQLite file and a fresh PostgreSQL database must give exactly the schema of ``store.models``
(alembic's ``compare_metadata`` finds no difference). PostgreSQL is a service of the machine: unreachable, the
test is skipped locally and fails in CI (``CI=true``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect

from cli.main import build_parser, main
from cli.serve import options_from
from runtime.settings import Settings
from service.app import create_app
from store import migrate
from store.models import Base
from tests.databases import postgres_database

MODEL_TABLES = set(Base.metadata.tables)


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a fresh database without any table."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
    else:
        yield from postgres_database("sorry_arena_migrations")


def tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_the_migrations_form_one_line_ending_at_head() -> None:
    scripts = ScriptDirectory.from_config(migrate.alembic_config("sqlite://"))
    assert len(scripts.get_heads()) == 1, "two heads: merge them (alembic merge) or renumber one"
    assert migrate.head() == "0023"
    assert [script.revision for script in scripts.walk_revisions()][-1] == "0001"


def test_upgrade_gives_exactly_the_models_schema(empty_database: str) -> None:
    assert migrate.current(empty_database) is None
    assert migrate.upgrade(empty_database) == migrate.head()
    assert tables(empty_database) == MODEL_TABLES | {"alembic_version"}
    assert migrate.check(empty_database) == [], (
        "a model changed without a migration: sorry-arena db revision -m ..."
    )
    assert migrate.upgrade(empty_database) == migrate.head(), "upgrading twice is a no-op"


def test_downgrade_to_base_and_back(empty_database: str) -> None:
    migrate.upgrade(empty_database)
    command.downgrade(migrate.alembic_config(empty_database), "base")
    assert tables(empty_database) == {"alembic_version"}
    assert migrate.current(empty_database) is None
    migrate.upgrade(empty_database)
    assert migrate.check(empty_database) == []


def test_the_app_never_creates_tables(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'untouched.db'}"
    app = create_app(Settings(database_url=url))
    response = app.test_client().post("/api/v1/players", json={"name": "ada"})
    app.extensions["db_engine"].dispose()
    assert response.status_code == 500, "no table: `sorry-arena db upgrade` creates them, not the app"
    assert tables(url) == set()


def test_driverless_postgresql_urls_use_psycopg() -> None:
    settings = Settings.from_env({"DATABASE_URL": "postgres://u:p@db:5432/arena"})
    assert settings.database_url == "postgresql+psycopg://u:p@db:5432/arena"
    assert Settings.from_env({}).database_url == "sqlite:///sorry-arena.db"


# --- sorry-arena db ---------------------------------------------------------------------------------------------


def test_db_upgrade_current_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["db", "current", "--database-url", url]) == 0
    assert "never migrated" in capsys.readouterr().out
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert f"at revision {migrate.head()}" in capsys.readouterr().out
    assert main(["db", "current", "--database-url", url]) == 0
    assert capsys.readouterr().out.strip() == migrate.head()
    assert main(["db", "check", "--database-url", url]) == 0
    assert "matches" in capsys.readouterr().out


def test_db_check_fails_on_a_database_behind_the_models(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    assert main(["db", "check", "--database-url", url]) == 1
    assert "differs" in capsys.readouterr().err


def test_db_upgrade_defaults_to_database_url_then_a_sqlite_file_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["db", "upgrade"]) == 0
    assert (tmp_path / "sorry-arena.db").is_file()
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'from-env.db'}")
    assert main(["db", "upgrade"]) == 0
    assert (tmp_path / "from-env.db").is_file()
    capsys.readouterr()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("nonsense", "not a database URL"),
        ("oracle+nope://x/y", "unknown database kind"),
        ("mysql://x/y", "not installed"),
    ],
)
def test_db_upgrade_rejects_a_bad_url_as_a_usage_error(
    url: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["db", "upgrade", "--database-url", url])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert "usage: sorry-arena db upgrade" in err and message in err


def test_a_bad_database_url_environment_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", "nonsense")
    with pytest.raises(SystemExit) as exit:
        main(["db", "upgrade"])
    assert exit.value.code == 2
    assert "not a database URL: 'nonsense'" in capsys.readouterr().err


def test_an_unreachable_database_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "db",
            "upgrade",
            "--database-url",
            f"sqlite:///{tmp_path}/no/such/dir.db",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "unable to open database file" in result.stderr
    assert "Traceback" not in result.stderr


# --- sorry-arena serve ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--port", "0"], "expected a port from 1 to 65535"),
        (["--port", "70000"], "expected a port from 1 to 65535"),
        (["--port", "http"], "expected a whole number"),
        (["--workers", "0"], "expected a number of workers from 1 to 64"),
        (["--threads", "0"], "expected a number of threads from 1 to 1000"),
        (["--workers", "2"], "--workers above 1 needs --redis-url"),
        (["--host", ""], "--host must not be empty"),
        (["--redis-url", "http://cache:6379"], "--redis-url must start with redis://"),
        (["--database-url", "nonsense"], "not a database URL"),
    ],
)
def test_serve_rejects_bad_flags_as_usage_errors(
    flags: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    with pytest.raises(SystemExit) as exit:
        main(["serve", "--no-migrate", *flags])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert "usage: sorry-arena serve" in err and message in err


def test_serve_runs_gevent_workers_without_a_control_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    parser = build_parser()
    args = parser.parse_args(["serve", "--port", "9001"])
    options = options_from(args, args.parser)
    assert options["bind"] == ["127.0.0.1:9001"]
    assert options["worker_class"] == "gevent", "waiting requests hold no thread"
    assert options["control_socket_disable"] is True
    assert (options["workers"], options["worker_connections"]) == (1, 1000), "one worker without Redis"
    args = parser.parse_args(["serve", "--worker-class", "gthread", "--threads", "4"])
    options = options_from(args, args.parser)
    assert (options["worker_class"], options["threads"]) == ("gthread", 4)
    args = parser.parse_args(["serve", "--host", "::1", "--redis-url", "redis://127.0.0.1:6379/0"])
    options = options_from(args, args.parser)
    assert options["bind"] == ["[::1]:8000"]
    assert options["workers"] == 2, "two workers with Redis"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_migrates_then_answers(tmp_path: Path) -> None:
    """One real gunicorn run: it migrates first, serves the API, and leaves no control socket behind."""
    port = free_port()
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    env.pop("XDG_RUNTIME_DIR", None)
    env.pop("REDIS_URL", None)
    database = tmp_path / "served.db"
    server = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--threads", "2"]
        + ["--database-url", f"sqlite:///{database}"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=2) as response:
                    assert response.status == 200
                    assert json.loads(response.read())["ok"] is True
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the server did not answer: {server.communicate(timeout=5)}")
                time.sleep(0.1)
        assert tables(f"sqlite:///{database}") == MODEL_TABLES | {"alembic_version"}
    finally:
        server.terminate()
        _, err = server.communicate(timeout=120)
    assert f"at revision {migrate.head()}" in err
    assert "Traceback" not in err
    assert not (home / ".gunicorn").exists(), "gunicorn's control socket must be disabled"


def test_an_autogenerated_migration_writes_times_as_the_type_they_store(tmp_path: Path) -> None:
    from alembic.autogenerate import produce_migrations, render_python_code
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine

    from store.migrate import render_item
    from store.models import Base

    engine = create_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"render_item": render_item})
        code = render_python_code(produce_migrations(context, Base.metadata).upgrade_ops, render_item=render_item)
    engine.dispose()
    assert "sa.DateTime(timezone=True)" in code
    assert "UTCDateTime" not in code
