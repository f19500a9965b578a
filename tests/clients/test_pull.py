"""The reference client's pull side (clients/pull.py) against a real service: the app served by werkzeug on
loopback (SQLite and PostgreSQL, embedded queue). A game played to its end by two pull clients, each request
checked against the engine; the request's keys equal the push protocol's, from one real tournament that mixes both
modes; a 409 when the game moved on; a wrong token; choose() raising or answering an id not offered; network
errors, 5xx and a URL that is not the service; the command line (``--pull`` flags, ``python clients/bot.py``)."""

from __future__ import annotations

import itertools
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import engine
from clients import pull
from clients.__main__ import main
from clients.examples import random_bot
from clients.pull import PullClient, PullError, Unauthorized
from tests.apikit import API, SQLITE_ONLY, as_json, get_game, new_player, started_game
from tests.arenakit import (
    Running,
    create_tournament,
    played,
    push_bots,
    register,
    replays_to_saved_state,
    wait_done,
)
from tests.botservers import closed_port
from tests.clients.conftest import Service

ROOT = Path(__file__).resolve().parents[2]
Choose = Callable[[dict[str, Any]], str]


def recording(choose: Choose, seen: list[dict[str, Any]]) -> Choose:
    def record(request: dict[str, Any]) -> str:
        seen.append(request)
        return choose(request)

    return record


def random_choice(request: dict[str, Any]) -> str:
    return random_bot.choose(request)


# A game played to its end


class Counting(PullClient):
    """Counts the decisions answered from the inbox (the others came with a move's reply)."""

    from_inbox = 0

    def play(self, decision: dict[str, Any]) -> None:
        self.from_inbox += 1
        super().play(decision)


def test_two_pull_clients_play_a_game_to_the_end(service: Service) -> None:
    game_id, players = started_game(service.client, "board", {"players": 2}, seats=2, seed=11)
    seen: list[list[dict[str, Any]]] = [[], []]
    clients = [
        Counting(recording(random_choice, seen[seat]), service.url, player.token, wait=2)
        for seat, player in enumerate(players)
    ]
    runs = [Running(client, until_idle=True) for client in clients]
    stats = [run.join(120) for run in runs]
    game = get_game(service.client, game_id)
    assert game["status"] == "over"
    assert [s.games for s in stats] == [1, 1]
    assert sum(s.moves for s in stats) == game["ply"]
    assert all(s.conflicts == s.skipped == s.retries == 0 for s in stats)
    # every request was exactly what the engine says the seat sees and may do at that ply
    record = service.client.get(f"{API}/games/{game_id}/events").get_json()["replay"]
    states = {}
    state = engine.new_game("board", record["settings"], record["seed"])
    for ply, action in enumerate(record["actions"]):
        states[ply] = engine.from_json(engine.to_json(state))
        engine.apply(state, action)
    by_ply = sorted((request["ply"], seat, request) for seat in (0, 1) for request in seen[seat])
    assert [ply for ply, _, _ in by_ply] == list(range(game["ply"]))
    last_seen: dict[int, int] = {}
    for ply, seat, request in by_ply:
        asked = engine.decision(states[ply])
        assert asked is not None and asked.seat == seat == request["seat"]
        assert request["game_id"] == game_id and request["decision"] == asked.kind
        assert request["view"] == as_json(engine.view(states[ply], seat))
        assert request["actions"] == as_json(
            [action.to_json() for action in engine.legal_actions(states[ply], seat)]
        )
        assert request["deadline_ms"] == pull.DEFAULT_DEADLINE_MS and request["tournament_id"] is None
        assert (request["last_latency_ms"] is None) == (seat not in last_seen)
        last_seen[seat] = ply
    # a seat that decides again (a 2 drawn) answers from the move's reply, without asking its inbox
    again = sum(1 for (p1, s1, _), (p2, s2, _) in itertools.pairwise(by_ply) if s1 == s2 and p2 == p1 + 1)
    assert again > 0
    assert sum(s.moves for s in stats) == sum(client.from_inbox for client in clients) + again


def test_the_request_has_the_push_requests_keys(service: Service) -> None:
    """One real tournament, a push bot against a pull bot: choose() gets the same keys either way."""
    owner = new_player(service.client, "owner")
    pushed: list[dict[str, Any]] = []
    pulled: list[dict[str, Any]] = []
    with push_bots(recording(random_choice, pushed)) as servers:
        pusher = register(service.client, owner, "pusher", servers[0].url)
        puller = register(service.client, owner, "puller", None)
        running = Running(
            PullClient(recording(random_choice, pulled), service.url, puller["token"], wait=1, deadline_ms=5000),
            max_games=2,
        )
        created = create_tournament(service.client, owner, [pusher["id"], puller["id"]], move_timeout_ms=5000)
        done = wait_done(service.client, created["id"])
        stats = running.join()  # once it has seen both games end (not when this test sees the tournament done)
    assert done["progress"] == {"done": 2, "total": 2}
    assert pushed and pulled and stats.moves == len(pulled) and stats.games == 2
    push_keys = {key for request in pushed for key in request}
    assert all(set(request) == push_keys for request in pushed + pulled)
    assert push_keys == {
        "type",
        "game_id",
        "tournament_id",
        "seat",
        "ply",
        "decision",
        "view",
        "actions",
        "deadline_ms",
        "last_latency_ms",
    }
    for key in ("type", "game_id", "seat", "ply", "decision", "view", "actions", "deadline_ms"):
        assert {type(request[key]) for request in pulled} == {type(request[key]) for request in pushed}, key
    assert {request["tournament_id"] for request in pushed} == {created["id"]}
    assert {request["tournament_id"] for request in pulled} == {None}  # unknown in pull mode
    for result in done["results"]:
        assert result["forfeited"] == [] and result["faults"] == [0, 0]


# Errors


@SQLITE_ONLY
def test_a_409_is_logged_and_the_inbox_polled_again(service: Service, caplog: pytest.LogCaptureFixture) -> None:
    game_id, players = started_game(service.client, "board", {"players": 2}, seats=2, seed=5)
    beaten: list[int] = []

    def too_late(request: dict[str, Any]) -> str:
        action = random_choice(request)
        if not beaten:  # someone else (another process with the same token) answers this ply first
            beaten.append(request["ply"])
            response = service.client.post(
                f"{API}/games/{game_id}/actions",
                json={"action": action, "expected_ply": request["ply"]},
                headers=players[request["seat"]].headers,
            )
            assert response.status_code == 200
        return action

    caplog.set_level(logging.INFO, logger="clients.pull")
    first = Running(PullClient(too_late, service.url, players[0].token, wait=2), until_idle=True)
    second = Running(PullClient(random_choice, service.url, players[1].token, wait=2), until_idle=True)
    stats = first.join(120)
    second.join(120)
    assert get_game(service.client, game_id)["status"] == "over"
    assert stats.conflicts == 1 and stats.games == 1
    assert f"game {game_id} ply {beaten[0]}" in caplog.text and "stale ply" in caplog.text
    assert "(polling again)" in caplog.text


@SQLITE_ONLY
def test_a_wrong_token_is_a_clear_fatal_error(service: Service, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(Unauthorized, match=r"refused the token .*401 unknown token"):
        PullClient(random_choice, service.url, "sa_wrong", wait=0).run()
    assert main(["--bot", "random", "--pull", "--url", service.url, "--token", "sa_wrong"]) == 1
    err = capsys.readouterr().err
    assert "error: the service refused the token" in err and "Traceback" not in err


@SQLITE_ONLY
def test_choose_raising_or_answering_no_offered_id_posts_nothing(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    """In a tournament the service then plays the fallback at the deadline and records a timeout fault; the
    client does not spin on the decision it left unanswered meanwhile."""
    owner = new_player(service.client, "owner")
    failed: dict[int, str] = {}

    def faulty(request: dict[str, Any]) -> str:
        if request["game_id"] not in failed:  # the first decision of each game fails, one way or the other
            failed[request["game_id"]] = "raise" if not failed else "illegal"
            if failed[request["game_id"]] == "raise":
                raise RuntimeError("a bug in the bot")
            return "no-such-action"
        return random_choice(request)

    with push_bots(random_choice) as servers:
        pusher = register(service.client, owner, "pusher", servers[0].url)
        puller = register(service.client, owner, "puller", None)
        client = Spinning(faulty, service.url, puller["token"], wait=1)
        running = Running(client, max_games=2)
        created = create_tournament(service.client, owner, [pusher["id"], puller["id"]], move_timeout_ms=600)
        done = wait_done(service.client, created["id"])
        stats = running.join()  # once it has seen both games end (not when this test sees the tournament done)
    assert sorted(failed.values()) == ["illegal", "raise"]
    assert stats.skipped == 2 and stats.games == 2
    assert "choose() raised on game" in caplog.text and "RuntimeError: a bug in the bot" in caplog.text
    assert "choose() returned 'no-such-action'" in caplog.text
    for result in done["results"]:
        seat = result["bot_ids"].index(puller["id"])
        assert result["forfeited"] == [] and result["faults"][seat] >= 1
        faults = [move.fault for move in played(service.app, result["game_id"]) if move.seat == seat]
        assert faults[0] == "timeout"  # the deadline passed: the seeded fallback was played
        assert replays_to_saved_state(service.app, result["game_id"])
    # while a skipped decision waited for its deadline, the client paused between polls instead of spinning (a
    # thread done with another decision wakes the poll at once: one more answer each)
    assert client.idle_answers <= 2 * (1.0 / pull.IDLE_PAUSE_S + 2) + client.played  # spinning: hundreds


class Spinning(PullClient):
    """Counts the inbox answers that list only decisions the client already answered or skipped."""

    idle_answers = 0
    played = 0

    def play(self, decision: dict[str, Any]) -> None:
        self.played += 1
        super().play(decision)

    def poll(self) -> dict[str, Any]:
        inbox = super().poll()
        listed = inbox["decisions"]
        if listed and all(self._answered.get(d["game_id"], -1) >= d["ply"] for d in listed):
            self.idle_answers += 1
        return inbox


def test_network_errors_are_retried_after_growing_pauses(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(pull, "RETRY_FIRST_S", 0.05)
    url = f"http://127.0.0.1:{closed_port()}"
    client = PullClient(random_choice, url, "sa_token", wait=1)
    running = Running(client)
    until(lambda: client.stats.retries >= 3, "three retries")
    stats = running.finish()
    assert stats.retries >= 3 and stats.moves == 0
    # this client's lines only (another test's client may still be logging from its thread)
    lines = [r.getMessage() for r in caplog.records if r.name == "clients.pull" and url in r.getMessage()]
    assert lines[0].startswith(f"cannot reach the service at {url}: ConnectionRefusedError")
    assert lines[0].endswith("retrying in 0.05 s") and lines[1].endswith("retrying in 0.1 s")
    assert lines[2].endswith("retrying in 0.2 s")


def until(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Return once ``condition()`` holds (checked every 10 ms); fail if it does not within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} in {timeout} s"
        time.sleep(0.01)


class Scripted(BaseHTTPRequestHandler):
    """Answers each request with the next (status, body) of the server's script."""

    protocol_version = "HTTP/1.1"
    server: ScriptedServer

    def do_GET(self) -> None:
        self.server.paths.append(self.path)
        self.server.times.append(time.monotonic())
        status, body = self.server.script.pop(0) if self.server.script else (500, b"{}")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class ScriptedServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: list[tuple[int, bytes]]) -> None:
        super().__init__(("127.0.0.1", 0), Scripted)
        self.script = script
        self.paths: list[str] = []
        self.times: list[float] = []
        """When each request came (monotonic clock)."""


@contextmanager
def scripted(*script: tuple[int, bytes]) -> Iterator[ScriptedServer]:
    server = ScriptedServer(list(script))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


def test_5xx_and_429_are_retried_then_a_401_stops(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(pull, "RETRY_FIRST_S", 0.01)
    error = b'{"code": 503, "status": "Service Unavailable", "message": "database is down"}'
    with (
        scripted(
            (503, error), (429, b'{"message": "slow down"}'), (401, b'{"message": "unknown token"}')
        ) as server,
        pytest.raises(Unauthorized, match="401 unknown token"),
    ):
        PullClient(random_choice, f"http://127.0.0.1:{server.server_port}/", "sa_x", wait=3).run()
    # the first poll asks for no wait (to learn at once what the token is), until one answers
    assert server.paths == ["/api/v1/decisions?wait=0&limit=50"] * 3
    assert "GET /decisions: the service answered 503 (database is down); retrying in 0.01 s" in caplog.text
    assert "GET /decisions: the service answered 429 (slow down); retrying in 0.02 s" in caplog.text


def test_without_a_long_poll_the_client_pauses_between_empty_answers() -> None:
    empty = (200, b'{"decisions": [], "more": false, "games": 0}')
    with scripted(*[empty] * 100) as server:
        running = Running(PullClient(random_choice, f"http://127.0.0.1:{server.server_port}", "sa_x", wait=0))
        until(lambda: len(server.times) >= 5, "four polls")
        running.finish()
    # one poll per IDLE_PAUSE_S (0.25 s) at most: each asks after the answer before it and a pause (spinning, the
    # polls would come a millisecond apart); the first answer shows no game, so the client asked whose token it is
    assert server.paths[1] == "/api/v1/players/me"
    polls = [moment for moment, path in zip(server.times, server.paths, strict=True) if "/decisions" in path]
    gaps = [later - earlier for earlier, later in itertools.pairwise(polls)]
    assert min(gaps) >= 0.9 * pull.IDLE_PAUSE_S, gaps


def test_a_url_that_is_not_the_service_is_a_clear_fatal_error() -> None:
    with scripted((404, b"<html>Not Found</html>")) as server, pytest.raises(PullError, match="is the URL the"):
        PullClient(random_choice, f"http://127.0.0.1:{server.server_port}/arena", "sa_x", wait=0).run()
    assert server.paths == ["/arena/api/v1/decisions?wait=0&limit=50"]  # a base path is kept


# The command line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bot", "greedy"], "one of the arguments --push --pull is required"),
        (["--bot", "greedy", "--push", "--pull"], "argument --pull: not allowed with argument --push"),
        (["--bot", "greedy", "--pull"], "--pull needs the bot's token: --token or $SORRY_ARENA_TOKEN"),
        (["--bot", "greedy", "--pull", "--token", "t", "--url", "ftp://x"], "expected the service's http(s)://"),
        (["--bot", "greedy", "--pull", "--token", "t", "--url", "http://x:99999"], "expected the service's"),
        (["--bot", "greedy", "--pull", "--token", "t", "--url", "http://x/?a=1"], "without query"),
        (["--bot", "greedy", "--pull", "--token", "t", "--wait", "31"], "--wait: expected seconds from 0 to 30"),
        (["--bot", "greedy", "--pull", "--token", "t", "--wait", "soon"], "--wait: expected seconds, got 'soon'"),
        (["--bot", "greedy", "--pull", "--token", "t", "--deadline-ms", "0"], "expected milliseconds from 1"),
        (["--bot", "greedy", "--pull", "--token", "t", "--max-games", "0"], "expected a number of games from 1"),
        (["--bot", "greedy", "--pull", "--token", "t", "--port", "8001"], "--port is for --push, not --pull"),
        (["--bot", "greedy", "--pull", "--token", "t", "--secret", "s"], "--secret is for --push, not --pull"),
        (["--bot", "greedy", "--push", "--url", "http://x"], "--url is for --pull, not --push"),
        (["--bot", "greedy", "--push", "--token", "t"], "--token is for --pull, not --push"),
        (["--bot", "greedy", "--push", "--until-idle"], "--until-idle is for --pull, not --push"),
        (["--bot", "greedy", "--push", "--port", "70000"], "--port must be from 0 to 65535"),
    ],
)
def test_usage_errors_are_clear(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SORRY_ARENA_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


def test_the_template_is_short_and_has_one_function_to_fill_in() -> None:
    source = (ROOT / "clients" / "bot.py").read_text()
    assert len(source.splitlines()) < 60
    assert source.count("\ndef ") == 1 and "\ndef choose(request: dict[str, Any]) -> str:" in source


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@SQLITE_ONLY
def test_the_template_plays_a_game_from_the_command_line_in_pull_mode(service: Service) -> None:
    """``python clients/bot.py --pull`` against ``python -m clients --bot clients/bot.py --pull``."""
    game_id, players = started_game(service.client, "card", {"pawns": 1}, seats=2, seed=3)
    processes = [
        run_cli(
            ["clients/bot.py", "--pull", "--url", service.url, "--wait", "2", "--until-idle"],
            {"SORRY_ARENA_TOKEN": players[0].token},
        ),
        run_cli(
            [
                "-m",
                "clients",
                "--bot",
                "clients/bot.py",
                "--pull",
                "--until-idle",
                "--wait",
                "2",
                "--token",
                players[1].token,
            ],
            {"SORRY_ARENA_API": service.url},
        ),
    ]
    outputs = []
    try:
        for process in processes:
            outputs.append(process.communicate(timeout=120))
    finally:
        for process in processes:
            process.kill()
    assert [process.returncode for process in processes] == [0, 0], outputs
    assert get_game(service.client, game_id)["status"] == "over"
    for (out, err), warned in zip(outputs, (False, True), strict=True):
        assert out.startswith(f"bot playing at {service.url} (pull mode)"), out
        assert "1 games," in out and "0 too late, 0 skipped" in out
        assert ("--token on the command line is visible" in err) == warned


def test_the_template_serves_in_push_mode() -> None:
    """Ctrl-C once the banner is out: ``stopped``, status 0 (at any moment: tests/clients/test_ctrl_c.py)."""
    process = run_cli(["clients/bot.py", "--push", "--port", "0", "--secret", "s"], {})
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert banner.startswith("bot (board, card) serving at http://127.0.0.1:"), banner
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert (process.returncode, out, err) == (0, "stopped\n", "")
