"""``sorry-arena simulate`` with push bots by URL: the reference client serving the random bot as a process of its
own, played over HTTP with signed requests; a bot that answers every move with a 500, faulted and forfeited as
the service would; what a URL bot is sent (the service's ``start``, ``move`` and ``end``); a wrong secret; a bot
on a client before 0.2 (protocol v1 only, ``tests/oldbot.py``), signed in v1 with a note."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.botservers import BotServer, Handler, Received, reply
from tests.cli.simulatekit import PATIENCE_S, ROOT, replays, report, simulate, usage_error
from tests.oldbot import old_bot

SECRET = "s" * 40


@pytest.fixture
def random_bot() -> Iterator[str]:
    """``python -m clients --bot random --push`` on a free port: its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "clients", "--bot", "random", "--push", "--port", "0", "--secret", SECRET],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines: list[str] = []
        assert process.stdout is not None
        reader = threading.Thread(target=lambda: lines.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(PATIENCE_S)
        assert lines and "serving at http://" in lines[0], (lines, process.poll())
        yield lines[0].split("serving at ", 1)[1].split()[0] + "/bot"
    finally:
        process.terminate()
        process.communicate(timeout=PATIENCE_S)


def test_a_url_bot_plays_over_http(tmp_path: Path, random_bot: str) -> None:
    result = report(
        tmp_path,
        *("--bots", f"{random_bot},greedy", "--games", "4", "--players", "2", "--move-timeout-ms", "60000"),
        *("--replays", "games.jsonl"),
        env={"SORRY_ARENA_SECRET": SECRET},
    )
    row = result["wins_by_bot"][random_bot]
    assert row["kind"] == "url" and row["games"] == 4 and row["faults"] == 0
    assert row["latency_ms"]["answers"] > 0 and row["latency_ms"]["mean"] > 0
    records = replays(tmp_path / "games.jsonl")
    assert len(records) == 4
    assert all(random_bot in [seat["name"] for seat in record["seats"]] for record in records)


def test_the_table_shows_a_url_bot(tmp_path: Path, random_bot: str) -> None:
    completed = simulate(
        tmp_path, "--bots", f"{random_bot},greedy", "--games", "2", "--players", "2", "--secret", SECRET
    )
    assert completed.returncode == 0, completed.stderr
    assert random_bot in completed.stdout and "file and URL bots" in completed.stdout
    assert "URL bots over HTTP" in completed.stdout


def test_a_wrong_secret_is_a_usage_error(tmp_path: Path, random_bot: str) -> None:
    err = usage_error(simulate(tmp_path, "--bots", f"{random_bot},greedy", "--secret", "t" * 40))
    assert "HTTP 401" in err and "--secret or $SORRY_ARENA_SECRET" in err, err


def test_an_old_client_bot_is_played_in_protocol_v1(tmp_path: Path) -> None:
    with old_bot(SECRET) as url:
        completed = simulate(
            tmp_path, "--bots", f"{url},greedy", "--games", "2", "--players", "2", "--secret", SECRET
        )
        assert completed.returncode == 0, completed.stderr
        assert "deprecated protocol v1" in completed.stderr
        result = report(
            tmp_path,
            *("--bots", f"{url},greedy", "--games", "2", "--players", "2", "--move-timeout-ms", "60000"),
            env={"SORRY_ARENA_SECRET": SECRET},
        )
    row = result["wins_by_bot"][url]
    assert row["games"] == 2 and row["faults"] == 0


def failing_moves(handler: Handler, request: Received) -> None:
    """Answer ``info``, ``start`` and ``end`` as a bot should, and every ``move`` with a 500."""
    if request.path.endswith("/move"):
        handler.send(500, b'{"error": "choose() raised ZeroDivisionError"}')
    else:
        reply()(handler, request)


def test_a_url_bot_that_fails_is_faulted_and_forfeited_and_told_the_game(tmp_path: Path) -> None:
    with BotServer(failing_moves) as server:
        url = server.url()
        result = report(
            tmp_path, "--bots", f"{url},greedy", "--games", "2", "--players", "2", "--replays", "games.jsonl"
        )
        received = [(item.path.rsplit("/", 1)[-1], item.json()) for item in server.received]
    row = result["wins_by_bot"][url]
    assert (row["faults"], row["forfeits"], row["wins"]) == (6, 2, 0)
    assert row["first_fault"].startswith("status in game 1 at ply ") and "HTTP 500" in row["first_fault"]
    routes = [route for route, _ in received]
    assert routes == ["info"] + ["start", "move", "move", "move", "end"] * 2, routes
    start = received[1][1]
    assert start["type"] == "start" and start["game_id"] == 1 and start["players"][start["seat"]] == url
    assert start["game"] == "board" and start["settings"]["players"] == 2 and start["tournament_id"] is None
    move = received[2][1]
    assert move["type"] == "move" and move["deadline_ms"] == 1000 and move["tournament_id"] is None
    end = received[5][1]
    assert end["forfeited"] is True and end["result"]["forfeited"] == [end["seat"]]
    for record in replays(tmp_path / "games.jsonl"):
        seat = next(seat["seat"] for seat in record["seats"] if seat["name"] == url)
        assert [action["fault"] for action in record["actions"] if action["seat"] == seat] == ["status"] * 3


def test_a_bot_that_plays_another_game_is_a_usage_error(tmp_path: Path) -> None:
    def card_only(handler: Handler, request: Received) -> None:
        answer = {"nonce": request.json().get("nonce"), "name": "cards", "games": ["card"]}
        handler.send(200, json.dumps(answer).encode())

    with BotServer(card_only) as server:
        err = usage_error(simulate(tmp_path, "--bots", f"{server.url()},greedy", "--game", "board"))
    assert "plays card, not the board game" in err, err
