"""``sorry-arena ladder`` against a live service (tests/cli/test_tournament.py's ``service``: SQLite, the embedded
queue, two random push bots): a ladder created, joined, shown, paused, resumed, left, listed and closed; ``watch``
printing until Ctrl-C (exit status 0) and ending by itself on a closed ladder; the service's refusals as sentences;
and bad flags as usage errors (in-process)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer

import pytest

from cli.main import main
from tests.apikit import API, SQLITE_ONLY, new_player
from tests.arenakit import wait_for
from tests.cli import test_tournament
from tests.cli.test_tournament import ROOT, NotTheService, Service, rows
from tests.cli.usagekit import usage_error

service = test_tournament.service  # the live service fixture


def ladder(service: Service, *args: str) -> int:
    return main(["ladder", "--api", service.url, "--token", service.owner.token, *args])


def by_name(table: str) -> dict[str, list[str]]:
    """The standings rows ``show`` printed, by bot name (the cells: #, bot, rating, interval, games, today,
    budget left, state)."""
    return {row[1]: row for row in rows(table)}


@SQLITE_ONLY
def test_a_ladder_from_create_to_close(
    service: Service, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    a, b = service.bot_ids
    flags = ["--game", "card", "--name", "nightly", "--budget-per-hour", "12", "--max-in-play", "2"]
    assert ladder(service, "create", *flags) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "ladder 1 (nightly): open; card (standard), 2 seats, 1000 ms per move, rated; 12 games per bot per hour, "
        "at most 2 in play; "
    ), out

    assert ladder(service, "join", "1", str(a)) == 0
    assert ladder(service, "join", "1", str(b)) == 0
    assert capsys.readouterr().out == f"bot {a} joined ladder 1\nbot {b} joined ladder 1\n"
    assert ladder(service, "join", "1", str(a)) == 1  # already in
    assert capsys.readouterr().err.startswith("sorry-arena ladder: HTTP 409: ")

    assert ladder(service, "show", "1") == 0
    out = capsys.readouterr().out
    assert "nightly (card, standard): standings" in " ".join(out.split())
    table = by_name(out)
    assert set(table) == {"A", "B"} and sorted(row[0] for row in table.values()) == ["1", "2"]
    for row in table.values():
        low, high = (int(value) for value in row[3].split(" to "))
        assert low < int(row[2]) < high  # the rating inside its interval
        assert "provisional" in row[7]  # a handful of games settles no rating
        assert 0 <= int(row[6]) <= 12  # the budget left of its hour
    assert "provisional: the 95% interval is wider than ±50" in out

    assert ladder(service, "pause", "1", str(a)) == 0
    assert capsys.readouterr().out == f"bot {a} paused in ladder 1\n"
    assert ladder(service, "show", "1") == 0
    assert "paused: paused by its owner" in by_name(capsys.readouterr().out)["A"][7]
    assert ladder(service, "resume", "1", str(a)) == 0
    assert capsys.readouterr().out == f"bot {a} resumed in ladder 1\n"
    assert ladder(service, "show", "1") == 0
    assert "paused" not in by_name(capsys.readouterr().out)["A"][7]

    assert ladder(service, "leave", "1", str(b)) == 0
    assert capsys.readouterr().out.startswith(f"bot {b} left ladder 1")
    assert ladder(service, "show", "1") == 0
    table = by_name(capsys.readouterr().out)
    assert table["A"][0] == "1" and table["B"][0] == ""  # listed after the bots in, unnumbered
    assert table["B"][7].startswith("left (last game: ")

    assert ladder(service, "list") == 0
    out = capsys.readouterr().out
    assert [(row[0], row[1], row[4]) for row in rows(out)] == [("1", "nightly", "open")]
    assert out.endswith("page 1 of 1; 1 ladder\n")
    assert ladder(service, "list", "--status", "closed") == 0
    assert rows(capsys.readouterr().out) == []

    assert ladder(service, "close", "1") == 0
    assert capsys.readouterr().out.startswith("ladder 1 (nightly): closed; ")
    assert ladder(service, "list", "--status", "closed") == 0
    assert [row[0] for row in rows(capsys.readouterr().out)] == ["1"]
    assert ladder(service, "join", "1", str(b)) == 1  # a closed ladder takes no bot
    assert capsys.readouterr().err.startswith("sorry-arena ladder: HTTP 409: ")

    assert ladder(service, "watch", "1", "--once") == 0
    out = capsys.readouterr().out
    assert "ladder 1 (nightly): closed" in out and set(by_name(out)) == {"A", "B"}


@SQLITE_ONLY
def test_the_services_refusals_are_sentences(service: Service, capsys: pytest.CaptureFixture[str]) -> None:
    assert ladder(service, "show", "42") == 1
    err = capsys.readouterr().err
    assert err.startswith("sorry-arena ladder: HTTP 404: ") and "42" in err
    assert ladder(service, "create", "--game", "card", "--name", "n" * 65) == 1
    assert capsys.readouterr().err.splitlines()[:2] == [
        "sorry-arena ladder: HTTP 422: the request was refused:",
        "  name: Length must be between 1 and 64.",
    ]
    assert ladder(service, "create", "--game", "card") == 0
    capsys.readouterr()
    other = new_player(service.app.test_client(), "other")
    stranger = ["ladder", "--api", service.url, "--token", other.token]
    assert main([*stranger, "close", "1"]) == 1  # not its ladder
    assert capsys.readouterr().err.startswith("sorry-arena ladder: HTTP 403: ")
    assert main(["ladder", "--api", service.url, "create", "--game", "card"]) == 1  # no token
    assert "HTTP 401" in capsys.readouterr().err


@SQLITE_ONLY
def test_watch_prints_until_ctrl_c_and_ends_by_itself_on_a_closed_ladder(service: Service) -> None:
    client = service.app.test_client()
    created = client.post(
        f"{API}/ladders", json={"name": "watched", "game": "card"}, headers=service.owner.headers
    )
    assert created.status_code == 201, created.get_json()
    ladder_id = str(created.get_json()["id"])
    argv = [sys.executable, "-m", "cli.main", "ladder", "watch", ladder_id, "--every", "1", "--api", service.url]
    watching = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert watching.stdout is not None
        seen: list[str] = []
        reader = threading.Thread(target=lambda: seen.extend(iter(watching.stdout.readline, "")), daemon=True)
        reader.start()
        wait_for("two prints", lambda: sum(line.startswith("ladder ") for line in seen) >= 2, timeout=60)
        watching.send_signal(signal.SIGINT)
        _, err = watching.communicate(timeout=30)
    finally:
        if watching.poll() is None:
            watching.kill()
    assert watching.returncode == 0, err
    assert "Traceback" not in err
    assert f"ladder {ladder_id} (watched): open" in "".join(seen)

    closed = client.post(f"{API}/ladders/{ladder_id}/close", headers=service.owner.headers)
    assert closed.status_code == 200, closed.get_json()
    ended = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert ended.returncode == 0, ended.stderr
    assert ended.stdout.rstrip().endswith("the ladder is closed and its games are over")


@pytest.mark.parametrize("flags", [["list"], ["show", "1"], ["join", "1", "2"], ["close", "1"]])
def test_a_server_that_is_not_the_service_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    with ThreadingHTTPServer(("127.0.0.1", 0), NotTheService) as server:
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}"
            assert main(["ladder", "--api", url, "--token", "t", *flags]) == 1
        finally:
            server.shutdown()
            thread.join(5)
    err = capsys.readouterr().err
    assert err.startswith(f"sorry-arena ladder: the service at {url}/api/v1 did not answer JSON")


USAGE: list[tuple[list[str], str]] = [
    ([], "the following arguments are required: ACTION"),
    (["create"], "the following arguments are required: --game"),
    (["create", "--game", "chess"], "invalid choice: 'chess'"),
    (["create", "--game", "card", "--table-size", "5"], "a table size from 2 to 4, got 5"),
    (["create", "--game", "card", "--budget-per-hour", "0"], "a number of games from 1 to 3600, got 0"),
    (["create", "--game", "card", "--budget-per-hour", "many"], "expected a whole number, got 'many'"),
    (["create", "--game", "card", "--max-in-play", "65"], "a number of games from 1 to 64, got 65"),
    (["create", "--game", "card", "--move-timeout-ms", "5"], "milliseconds from 10 to 60000, got 5"),
    (["create", "--game", "card", "--settings", "[1]"], "expected a JSON object"),
    (["list", "--status", "paused"], "invalid choice: 'paused'"),
    (["list", "--page", "0"], "a page number from 1 to"),
    (["show"], "the following arguments are required: id"),
    (["show", "x"], "expected a whole number, got 'x'"),
    (["show", "0"], "a ladder id from 1 to"),
    (["join", "1"], "the following arguments are required: bot_id"),
    (["leave", "1", "0"], "a bot id from 1 to"),
    (["pause", "1", "-3"], "a bot id from 1 to"),
    (["resume"], "the following arguments are required: id, bot_id"),
    (["close", "1", "2"], "unrecognized arguments: 2"),
    (["watch", "1", "--every", "0"], "seconds from 1 to 3600, got 0"),
    (["watch", "1", "--once", "--every", "soon"], "expected a whole number, got 'soon'"),
    (["promote", "1"], "invalid choice: 'promote'"),
]


@pytest.mark.parametrize(("flags", "message"), USAGE)
def test_bad_flags_are_usage_errors(capsys: pytest.CaptureFixture[str], flags: list[str], message: str) -> None:
    said = usage_error(capsys, "ladder", *flags)
    assert message in said, said


def test_a_token_given_with_a_bad_flag_is_not_repeated(capsys: pytest.CaptureFixture[str]) -> None:
    token = "sa_secret-token-of-the-owner-0123456789"
    said = usage_error(capsys, "ladder", "--token", token, "show", "1", token)
    assert token not in said and "unrecognized arguments: ***" in said


def test_each_action_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["ladder", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("    ") and line[4:5].strip()]
    assert listed == ["create", "list", "show", "join", "leave", "pause", "resume", "close", "watch"]
