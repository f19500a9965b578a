"""``sorry-arena tournament`` against a live service (the app served by werkzeug on loopback, SQLite, embedded
queue) and ``sorry-arena worker``'s checks of its arguments: bad input is a usage error with a message, an
unreachable service or a refused request a clear message and exit status 1, never a traceback. The command as the
user runs it (a subprocess): ``--api`` and ``--token`` before or after the action, ``--api`` with the API's path,
a wrong ``--api`` path, and the service's refusals as sentences."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import make_server

from cli.main import main
from tests.apikit import SQLITE_ONLY, Player, new_player
from tests.arenakit import arena_app, push_bots, random_choice, register, wait_for
from tests.botservers import closed_port
from tests.conftest import dispose


@dataclass
class Service:
    app: Flask
    url: str
    owner: Player
    bot_ids: list[int]


@pytest.fixture
def service(database_url: str) -> Iterator[Service]:
    app = arena_app(database_url)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    client = app.test_client()
    owner = new_player(client, "owner")
    try:
        with push_bots(random_choice, random_choice) as bots:
            ids = [register(client, owner, name, bot.url)["id"] for name, bot in zip("AB", bots, strict=True)]
            yield Service(app, f"http://127.0.0.1:{server.server_port}", owner, ids)
            app.extensions["queue"].wait(timeout=60)
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()
        dispose(app)


def tournament(service: Service, *args: str) -> int:
    return main(["tournament", "--api", service.url, "--token", service.owner.token, *args])


def flat(text: str) -> str:
    """The text with its line breaks and runs of spaces as single spaces (rich wraps a title to its table)."""
    return " ".join(text.split())


def rows(table: str) -> list[list[str]]:
    """The body rows of a table rich drew, as lists of cells."""
    return [
        [cell.strip() for cell in line.strip("│").split("│")] for line in table.splitlines() if line[:1] == "│"
    ]


@SQLITE_ONLY
def test_create_watch_status_and_standings(
    service: Service, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    bots = ",".join(map(str, service.bot_ids))
    assert tournament(service, "create", "--game", "card", "--bots", bots, "--seed", "3", "--watch") == 0
    out = capsys.readouterr().out
    assert out.startswith("tournament 1 (tournament): scheduled, 0/2 games\n")  # as created; it starts next
    assert "2/2" in out  # the progress bar's last state
    assert "tournament (card, standard): standings" in flat(out)
    table = rows(out)
    assert sorted(row[1] for row in table) == ["A", "B"]
    assert [row[0] for row in table] == ["1", "2"]
    assert all(row[4] == "2" and row[7] == "0" for row in table)  # 2 games each, no forfeit

    assert tournament(service, "status", "1") == 0
    assert capsys.readouterr().out == "tournament 1 (tournament): done, 2/2 games\n"

    assert tournament(service, "standings", "1") == 0
    assert rows(capsys.readouterr().out) == table

    def refit() -> str:  # the pool's refit is a job off the game path, asked for at the tournament's last result
        assert tournament(service, "standings", "--game", "card") == 0
        out = capsys.readouterr().out
        return out if "2 rated games" in out else ""

    pool = wait_for("the pool's table", refit, timeout=60)
    assert "Elo, card (standard), 2 seats, 2 rated games" in flat(pool)
    elo = {row[1]: (int(row[2]), row[3]) for row in rows(pool)}
    assert set(elo) == {"A", "B"} and all(games == "2" for _, games in elo.values())
    assert sum(rating for rating, _ in elo.values()) in (2999, 3000, 3001)  # Elo moves points, it makes none

    assert tournament(service, "standings", "--game", "board") == 0
    board = capsys.readouterr().out
    assert "Elo, board (standard), 2 seats, 0 rated games" in flat(board) and rows(board) == []
    assert tournament(service, "standings", "--game", "card", "--table-size", "4") == 0
    four = capsys.readouterr().out
    assert "Elo, card (standard), 4 seats, 0 rated games" in flat(four) and rows(four) == []


@SQLITE_ONLY
@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["create", "--game", "card", "--bots", "1"], "a tournament needs at least 2 bots"),
        (["create", "--game", "card", "--bots", "a,b"], "expected bot ids separated by commas, got 'a,b'"),
        (["create", "--game", "card", "--bots", "1,2", "--table-size", "9"], "a table size from 2 to 4, got 9"),
        (["create", "--game", "card", "--bots", "1,2", "--settings", "not json"], "expected a JSON object"),
        (["create", "--game", "card", "--bots", "1,2", "--settings", "[1]"], "expected a JSON object"),
        (["create", "--game", "chess", "--bots", "1,2"], "invalid choice: 'chess'"),
        (["create", "--bots", "1,2"], "the following arguments are required: --game"),
        (["status", "0"], "a tournament id from 1 to"),
        (["status", "x"], "expected a whole number, got 'x'"),
        (["standings"], "standings needs a tournament id or --game"),
        (["standings", "--game", "card", "--table-size", "5"], "a table size from 2 to 4, got 5"),
    ],
)
def test_bad_flags_are_usage_errors(
    service: Service, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        tournament(service, *flags)
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and "usage:" in captured.err
    assert "Traceback" not in captured.err + captured.out


@SQLITE_ONLY
def test_service_errors_are_shown_with_the_services_message(
    service: Service, capsys: pytest.CaptureFixture[str]
) -> None:
    assert tournament(service, "create", "--game", "card", "--bots", f"{service.bot_ids[0]},999") == 1
    err = capsys.readouterr().err
    assert err.strip() == "sorry-arena tournament: HTTP 422: bot_ids: no bot 999"

    assert tournament(service, "status", "42") == 1
    assert capsys.readouterr().err.strip() == "sorry-arena tournament: HTTP 404: no tournament 42"

    bots = ",".join(map(str, service.bot_ids))
    assert main(["tournament", "--api", service.url, "create", "--game", "card", "--bots", bots]) == 1  # no token
    assert "HTTP 401" in capsys.readouterr().err


def test_an_unreachable_service_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    assert main(["tournament", "--api", url, "--token", "t", "status", "1"]) == 1
    captured = capsys.readouterr()
    assert (
        captured.err.strip()
        == f"sorry-arena tournament: cannot reach the service at {url}/api/v1: ConnectionError"
    )
    assert captured.out == ""
    with pytest.raises(SystemExit) as exited:
        main(["tournament", "--api", "not a url", "status", "1"])
    assert exited.value.code == 2
    assert (
        "expected the service's root URL, e.g. http://127.0.0.1:8000, got 'not a url'" in capsys.readouterr().err
    )


def test_a_worker_needs_a_redis_url(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["worker", "--database-url", "sqlite:///unused.db"])
    assert exited.value.code == 2
    assert "a worker needs --redis-url or REDIS_URL" in capsys.readouterr().err


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379/0", "127.0.0.1:6379", "postgresql://x"])
def test_a_worker_refuses_a_redis_url_of_another_scheme(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: str
) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["worker", "--database-url", "sqlite:///unused.db", "--redis-url", url])
    assert exited.value.code == 2
    assert f"--redis-url must start with redis://, rediss:// or unix://, got {url!r}" in capsys.readouterr().err


def test_a_worker_refuses_a_bad_database_url(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["worker", "--database-url", "nosuchdb://x", "--redis-url", "redis://127.0.0.1:6379/9"])
    assert exited.value.code == 2
    assert "unknown database kind" in capsys.readouterr().err


def test_a_worker_refuses_a_bad_redis_url_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REDIS_URL", "localhost:6379")
    with pytest.raises(SystemExit) as exited:
        main(["worker", "--database-url", "sqlite:///unused.db"])
    assert exited.value.code == 2
    assert "--redis-url must start with redis://" in capsys.readouterr().err


class NotTheService(BaseHTTPRequestHandler):
    """Some other web server: 200 and a page of HTML, whatever is asked."""

    def answer(self) -> None:
        body = b"<html><body>It works!</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.mark.parametrize(
    "flags", [["status", "1"], ["standings", "1"], ["create", "--game", "card", "--bots", "1,2"]]
)
def test_a_server_that_is_not_the_service_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    with ThreadingHTTPServer(("127.0.0.1", 0), NotTheService) as server:
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}"
            assert main(["tournament", "--api", url, "--token", "t", *flags]) == 1
        finally:
            server.shutdown()
            thread.join(5)
    err = capsys.readouterr().err
    assert err.startswith(f"sorry-arena tournament: the service at {url}/api/v1 did not answer JSON")


def test_a_worker_says_when_redis_is_unreachable_or_a_setting_is_bad(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tournament.dispatch import context

    monkeypatch.setattr(context, "_context", None)
    monkeypatch.setenv("DATABASE_URL", "")  # the worker writes its flags here: restored after the test
    monkeypatch.setenv("REDIS_URL", "")
    database = f"sqlite:///{tmp_path / 'w.db'}"
    assert main(["worker", "--burst", "--database-url", database, "--redis-url", "redis://127.0.0.1:1/0"]) == 1
    assert "sorry-arena worker: Redis at redis://127.0.0.1:1/0: " in capsys.readouterr().err
    monkeypatch.setattr(context, "_context", None)
    monkeypatch.setenv("SORRY_ARENA_LEASE_SECONDS", "soon")  # refused before Redis (nothing listens on port 1)
    assert main(["worker", "--burst", "--database-url", database, "--redis-url", "redis://127.0.0.1:1/0"]) == 2
    assert "SORRY_ARENA_LEASE_SECONDS must be a number of seconds, not 'soon'" in capsys.readouterr().err


# --- as the user runs it ------------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def command(*args: str) -> subprocess.CompletedProcess[str]:
    """``sorry-arena ARGS`` in a process of its own, without the user's SORRY_ARENA_* settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SORRY_ARENA_")}
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@SQLITE_ONLY
@pytest.mark.parametrize("where", ["before", "after", "both"])
def test_api_and_token_go_before_or_after_the_action(service: Service, where: str) -> None:
    token, bots = service.owner.token, ",".join(map(str, service.bot_ids))
    given = ["--api", service.url, "--token", token]
    create = ["create", "--game", "card", "--bots", bots, "--name", f"t-{where}"]
    if where == "before":
        args = ["tournament", *given, *create]
    elif where == "after":
        args = ["tournament", *create, *given]
    else:  # after the action wins, as on any command line: the wrong token before it is never used
        args = ["tournament", "--api", service.url, "--token", "sa_wrong", *create, "--token", token]
    result = command(*args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"tournament 1 (t-{where}): ")
    assert token not in result.stdout + result.stderr
    status = command("tournament", "status", "1", "--api", service.url)
    assert (status.returncode, status.stdout.split(":")[0]) == (0, f"tournament 1 (t-{where})")


@SQLITE_ONLY
@pytest.mark.parametrize("suffix", ["/api/v1", "/api/v1/", "/"])
def test_api_given_with_the_apis_path_is_the_service_root(service: Service, suffix: str) -> None:
    result = command("tournament", "--api", service.url + suffix, "standings", "--game", "card")
    assert result.returncode == 0, result.stderr
    assert "Elo, card (standard), 2 seats, 0 rated games" in " ".join(result.stdout.split())


@SQLITE_ONLY
@pytest.mark.parametrize("path", ["/arena", "/api/v2", "/docs"])
def test_a_wrong_api_path_says_where_the_api_should_be(service: Service, path: str) -> None:
    result = command("tournament", "--api", service.url + path, "status", "1")
    assert result.returncode == 1
    assert result.stderr == (
        f"sorry-arena tournament: no sorry-arena API at {service.url}{path} "
        "(expected the service's root, e.g. http://127.0.0.1:8000)\n"
    )


@SQLITE_ONLY
def test_a_missing_tournament_is_the_services_message_not_a_wrong_url(service: Service) -> None:
    result = command("tournament", "--api", service.url, "status", "42")
    assert (result.returncode, result.stderr) == (1, "sorry-arena tournament: HTTP 404: no tournament 42\n")


@SQLITE_ONLY
@pytest.mark.parametrize(
    ("flags", "lines"),
    [
        (["--start-at", "tomorrow"], ["start_at: Not a valid datetime."]),
        (["--start-at", "2030-01-01T10:00:00"], ["start_at: Not a valid aware datetime."]),
        (["--repeat-every", "60"], ["repeat_times: repeat_every and repeat_times go together"]),
        (["--name", "n" * 65], ["name: Length must be between 1 and 64."]),
    ],
)
def test_the_services_validation_errors_are_lines_not_a_dict(
    service: Service, flags: list[str], lines: list[str]
) -> None:
    bots = ",".join(map(str, service.bot_ids))
    token = service.owner.token
    result = command(
        "tournament", "--api", service.url, "--token", token, "create", "--game", "card", "--bots", bots, *flags
    )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "sorry-arena tournament: HTTP 422: the request was refused:",
        *(f"  {line}" for line in lines),
    ]
    assert "{" not in result.stderr and "[" not in result.stderr


@SQLITE_ONLY
def test_a_refusal_without_field_errors_is_the_services_message(service: Service) -> None:
    result = command(
        "tournament", "--api", service.url, "--token", "sa_nobody", "create", "--game", "card", "--bots", "1,2"
    )
    assert (result.returncode, result.stderr) == (1, "sorry-arena tournament: HTTP 401: unknown token\n")
