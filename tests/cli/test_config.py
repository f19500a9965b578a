"""``sorry-arena config`` prints the effective settings and where each came from, secrets masked, and checks the
database and Redis; ``serve``, ``worker`` and ``config`` stop on a bad or unknown setting with one line naming it
and exit status 2, no traceback (each run as the operator runs it, in a process of its own)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.config import masked_url
from tests.databases import Templates
from tests.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "t0ken-" + "x" * 40
"""An operator token in the environment: never printed."""


def sorry_arena(*argv: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    full = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *argv],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def postgres_url(templates: Templates) -> Iterator[str]:
    yield from templates.postgresql()


def with_password(url: str, password: str) -> str:
    """A PostgreSQL ``url`` with ``password`` for its user (the test server's trust auth asks for none)."""
    scheme, _, rest = url.partition("://")
    user, _, host = rest.rpartition("@")
    return f"{scheme}://{(user or 'postgres').partition(':')[0]}:{password}@{host}"


def test_a_url_s_password_is_masked() -> None:
    assert masked_url("redis://:pw@cache:6379/0") == "redis://:********@cache:6379/0"
    assert masked_url("rediss://user:pw@cache/1") == "rediss://user:********@cache/1"
    assert masked_url("redis://cache:6379/0") == "redis://cache:6379/0"


def test_config_prints_every_setting_masked_and_checks_both_servers(redis_url: str, postgres_url: str) -> None:
    env = {
        "DATABASE_URL": with_password(postgres_url, "hunter2-db"),
        "REDIS_URL": redis_url,
        "SORRY_ARENA_OPERATOR_TOKEN": TOKEN,
        "SORRY_ARENA_MAX_WAIT": "12",
    }
    done = sorry_arena("config", env=env)
    output = done.stdout + done.stderr
    assert "hunter2" not in output and TOKEN not in output, output
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip()}
    assert lines["SORRY_ARENA_MAX_WAIT"].split()[1:] == ["12", "(environment)"], output
    assert lines["SORRY_ARENA_LEASE_SECONDS"].split()[1:] == ["10", "(default)"], output
    assert lines["SORRY_ARENA_OPERATOR_TOKEN"].split()[1:] == ["********", "(environment)"], output
    assert ":********@" in lines["DATABASE_URL"], output
    assert lines["database:"] == "database: ok", output
    assert lines["migrations:"] == "migrations: ok", output
    assert lines["redis:"] == "redis: ok", output
    assert done.returncode == 0, output


def test_config_exits_1_naming_a_redis_that_does_not_answer(tmp_path: Path) -> None:
    database = tmp_path / "arena.db"
    database.touch()
    done = sorry_arena(
        "config", env={"DATABASE_URL": f"sqlite:///{database}", "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"}
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "redis: cannot connect" in done.stdout and "database: ok" in done.stdout
    assert done.stderr.strip() == "sorry-arena config: redis not answering"


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        (
            "SORRY_ARENA_MAX_WIAT",
            "10",
            "unknown setting SORRY_ARENA_MAX_WIAT (did you mean SORRY_ARENA_MAX_WAIT?)",
        ),
        ("SORRY_ARENA_BOT_ALLOW", "bots", "SORRY_ARENA_BOT_ALLOW: allowlist entry 'bots' is not an address"),
        ("SORRY_ARENA_LEASE_SECONDS", "0.01", "SORRY_ARENA_LEASE_SECONDS must be from 2 to 600 seconds"),
        ("SORRY_ARENA_MAX_WAIT", "100000", "SORRY_ARENA_MAX_WAIT must be from 1 to 300 seconds"),
    ],
)
@pytest.mark.parametrize(
    "argv",
    [
        ["config", "--no-check"],
        ["serve", "--port", "0"],  # never listens: the setting stops it first
        ["worker", "--redis-url", "redis://127.0.0.1:1/0"],
    ],
    ids=["config", "serve", "worker"],
)
def test_a_bad_setting_stops_each_command_with_one_line(
    argv: list[str], variable: str, value: str, expected: str, tmp_path: Path
) -> None:
    if argv[0] == "serve":
        argv = ["serve", "--port", str(free_port())]
    done = sorry_arena(*argv, env={"DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}", variable: value})
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"sorry-arena {argv[0]}: {expected}"), done.stderr
    assert not (tmp_path / "a.db").exists()  # stopped before anything opened the database
