"""The reference client's push side (clients/): the server's routes, signatures and errors, keep-alive speed, the
service's own BotConnection against it, the example bots (greedy must clearly beat random, playing the engine
in-process with requests built as the service builds them), the command line, and the import rule."""

from __future__ import annotations

import ast
import http.client
import json
import logging
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

import engine
from botlink import signing
from botlink.calls import BotConnection
from botlink.netguard import parse_allowlist
from clients.__main__ import load_bot, main
from clients.examples import greedy_bot, random_bot
from clients.push import PushServer, serve

ROOT = Path(__file__).resolve().parents[2]
SECRET = "push-secret"


def move_request(state: Any, game_id: int, last_latency_ms: float | None = None) -> dict[str, Any]:
    """The move payload exactly as the service sends it (docs/bot-protocol.md)."""
    asked = engine.decision(state)
    assert asked is not None
    return {
        "type": "move",
        "game_id": game_id,
        "seat": asked.seat,
        "ply": state.ply,
        "decision": asked.kind,
        "view": engine.view(state, asked.seat),
        "actions": [action.to_json() for action in engine.legal_actions(state, asked.seat)],
        "deadline_ms": 1000,
        "last_latency_ms": last_latency_ms,
    }


def first_action(request: dict[str, Any]) -> str:
    return str(request["actions"][0]["id"])


@pytest.fixture
def server() -> Iterator[PushServer]:
    with serve(first_action, secret=SECRET, name="first").start_background() as running:
        yield running


def post(
    server: PushServer, path: str, payload: Any, secret: str | None = SECRET, **kwargs: Any
) -> requests.Response:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers.update(signing.headers(secret, "POST", path, body, **kwargs))
    with requests.Session() as session:
        session.trust_env = False
        return session.post(server.url + path, data=body, headers=headers, timeout=5)


MOVE = move_request(engine.new_game("board", {"players": 2}, 1), 17)


def test_info_echoes_the_nonce_with_name_and_games(server: PushServer) -> None:
    response = post(server, "/bot/info", {"type": "info", "nonce": "5eed"})
    assert response.status_code == 200
    assert response.json() == {"nonce": "5eed", "name": "first", "games": ["board", "card"], "protocols": [2]}


@pytest.mark.parametrize("path", ["/move", "/bot/move", "/a/b/c/move", "/bot/move/", "/bot/move?x=1"])
def test_any_base_path_works(server: PushServer, path: str) -> None:
    response = post(server, path, MOVE)
    assert (response.status_code, response.json()) == (200, {"action": "1:start:yellow"})


@pytest.mark.parametrize("route", ["start", "end"])
def test_start_and_end_answer_an_empty_object(server: PushServer, route: str) -> None:
    response = post(server, f"/bot/{route}", {"type": route, "game_id": 17, "seat": 1})
    assert (response.status_code, response.json()) == (200, {})


def test_unknown_routes_are_404(server: PushServer) -> None:
    response = post(server, "/bot/moves", MOVE)
    assert response.status_code == 404 and "unknown route 'moves'" in response.json()["error"]


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b"\xff"])
def test_a_body_that_is_no_json_object_is_400(server: PushServer, body: bytes) -> None:
    assert post(server, "/bot/move", body).status_code == 400


@pytest.mark.parametrize(
    ("secret", "skew"),
    [(None, 0), ("wrong", 0), (SECRET, -302), (SECRET, 302)],
    ids=["unsigned", "wrong-secret", "old", "future"],
)
def test_bad_signatures_are_401(server: PushServer, secret: str | None, skew: float) -> None:
    kwargs = {"now": time.time() + skew} if secret is not None else {}
    response = post(server, "/bot/move", MOVE, secret=secret, **kwargs)
    assert (response.status_code, response.json()) == (401, {"error": "bad, missing, stale or replayed signature"})


def test_a_replayed_request_or_one_sent_to_another_route_is_401(server: PushServer) -> None:
    body = json.dumps(MOVE).encode()
    headers = {"Content-Type": "application/json", **signing.headers(SECRET, "POST", "/bot/move", body)}
    with requests.Session() as session:
        session.trust_env = False
        assert session.post(server.url + "/bot/move", data=body, headers=headers, timeout=5).status_code == 200
        assert session.post(server.url + "/bot/move", data=body, headers=headers, timeout=5).status_code == 401
        fresh = {**headers, **signing.headers(SECRET, "POST", "/bot/start", body)}
        assert session.post(server.url + "/bot/end", data=body, headers=fresh, timeout=5).status_code == 401
        assert session.post(server.url + "/bot/start", data=body, headers=fresh, timeout=5).status_code == 200


def test_each_refused_signature_is_logged_with_its_reason_at_the_default_level(
    server: PushServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A wrong secret, a stale timestamp, a replayed request id, an unknown protocol version, no signature: one
    WARNING line each (the level a bot runs at without ``-v``), naming the reason, so a wrong secret is told from a
    wrong URL in the bot's own log."""
    caplog.set_level(logging.WARNING, logger="clients.push")
    body = json.dumps(MOVE).encode()
    replayed = {"Content-Type": "application/json", **signing.headers(SECRET, "POST", "/bot/move", body)}
    cases = [
        ({"secret": "not-the-secret"}, "wrong secret"),
        ({"now": time.time() - 3600}, "s behind this machine's clock (at most 300 s"),
        ({"protocol": 1}, "unknown protocol version '1'"),
        ({"secret": None}, "not signed: no X-Sorry-Arena-Timestamp, X-Sorry-Arena-Request-Id, X-Sorry-Arena-Sig"),
    ]
    for kwargs, reason in cases:
        caplog.clear()
        assert post(server, "/bot/move", MOVE, **kwargs).status_code == 401
        lines = [r for r in caplog.records if r.name == "clients.push" and r.levelno == logging.WARNING]
        assert len(lines) == 1 and "refused a request to /bot/move from 127.0.0.1" in lines[0].getMessage()
        assert reason in lines[0].getMessage(), (reason, lines[0].getMessage())
    caplog.clear()
    with requests.Session() as session:
        session.trust_env = False
        assert session.post(server.url + "/bot/move", data=body, headers=replayed, timeout=5).status_code == 200
        assert caplog.records == []  # an accepted request logs nothing at this level
        assert session.post(server.url + "/bot/move", data=body, headers=replayed, timeout=5).status_code == 401
    assert "replayed request id" in caplog.records[0].getMessage()


def test_without_a_secret_nothing_is_checked_and_a_secret_can_be_set_later() -> None:
    with serve(first_action).start_background() as server:
        assert post(server, "/bot/move", MOVE, secret=None).status_code == 200
        server.secret = SECRET  # a demo registers the bot first, then learns its secret
        assert post(server, "/bot/move", MOVE, secret=None).status_code == 401
        assert post(server, "/bot/move", MOVE).status_code == 200


def test_an_exception_in_choose_is_500_with_a_short_message(caplog: pytest.LogCaptureFixture) -> None:
    def broken(request: dict[str, Any]) -> str:
        return str(request["no such key" * 50])

    with serve(broken).start_background() as server:
        response = post(server, "/bot/move", MOVE, secret=None)
    assert response.status_code == 500
    assert response.json()["error"].startswith("choose() raised KeyError: 'no such key")
    assert len(response.json()["error"]) <= 200
    assert "choose() failed on game 17" in caplog.text


def test_choose_must_return_a_string() -> None:
    with serve(lambda request: 3).start_background() as server:  # type: ignore[arg-type,return-value]
        response = post(server, "/bot/move", MOVE, secret=None)
    assert (response.status_code, response.json()) == (500, {"error": "choose() returned int, not an action id"})


def test_a_request_without_content_length_or_too_large_is_refused(server: PushServer) -> None:
    host, port = server.server_address[:2]
    for headers, status in (({}, 411), ({"Content-Length": str(2 << 20)}, 413)):
        connection = http.client.HTTPConnection(str(host), int(port), timeout=5)
        connection.putrequest("POST", "/bot/move")
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        assert connection.getresponse().status == status
        connection.close()


def test_the_server_can_listen_on_ipv6_loopback() -> None:
    try:
        server = serve(first_action, host="::1")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with server.start_background():
        assert server.url.startswith("http://[::1]:")
        assert post(server, "/bot/move", MOVE, secret=None).json() == {"action": "1:start:yellow"}


def test_shutdown_without_serving_does_not_hang() -> None:
    server = serve(first_action)
    server.shutdown()


# The service's side against the reference server


def fastest_call(call: Callable[[], object], calls: int = 50) -> float:
    """The shortest time ``call`` took, in seconds, of ``calls`` calls (after a warm-up call): a loaded machine
    slows some calls, not every one, so the fastest shows what the code costs."""
    call()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def test_the_service_client_plays_against_the_reference_server() -> None:
    allow = parse_allowlist("loopback")
    with serve(greedy_bot.choose, secret=SECRET, name="greedy").start_background() as server:
        with BotConnection(server.url + "/bot", SECRET, allow) as connection:
            info = connection.call("info", {"type": "info", "nonce": "abc123"})
            assert info.body == {"nonce": "abc123", "name": "greedy", "games": ["board", "card"], "protocols": [2]}
            reply = connection.move(MOVE)
            assert (reply.fault, reply.body) == (None, {"action": "1:start:yellow"})
            assert connection.call("end", {"type": "end", "game_id": 17}).ok
        with BotConnection(server.url + "/bot", "a wrong secret", allow) as connection:
            reply = connection.move(MOVE)
            assert (reply.fault, reply.detail) == (
                "rejected",
                'HTTP 401 (the signature refused): {"error": "bad, missing, stale or replayed signature"}',
            )


def test_a_move_round_trip_takes_a_few_milliseconds() -> None:
    # without TCP_NODELAY each reply would wait ~40 ms (Nagle); a Session keeps one connection alive.
    server = serve(first_action, secret=SECRET).start_background()
    with server, BotConnection(server.url, SECRET, parse_allowlist("loopback")) as connection:
        seconds = fastest_call(lambda: connection.move(MOVE))
    assert seconds < 0.02, f"the fastest move round trip took {seconds * 1000:.1f} ms"


# The example bots


def test_the_random_bot_is_legal_and_reproducible() -> None:
    state = engine.new_game("card", {"players": 3}, 5)
    request = move_request(state, 9)
    legal = {action["id"] for action in request["actions"]}
    choices = {random_bot.choose(request) for _ in range(3)}
    assert len(choices) == 1 and choices <= legal
    seen = {random_bot.choose({**request, "ply": ply}) for ply in range(50)}
    assert len(seen) > 1  # a new ply, a new draw


def play_match(game: str, games: int) -> float:
    """Greedy's share of wins against random over ``games`` two-player games, seats alternating."""
    bots = (greedy_bot.choose, random_bot.choose)
    wins = 0
    for number in range(games):
        greedy_seat = number % 2
        state = engine.new_game(game, {"players": 2}, 10_000 + number)
        while not engine.is_over(state):
            request = move_request(state, number)
            choose = bots[0] if request["seat"] == greedy_seat else bots[1]
            action = choose(request)
            assert action in {candidate["id"] for candidate in request["actions"]}
            engine.apply(state, action, request["seat"])
        result = engine.result(state)
        assert result is not None
        wins += result.ranks[greedy_seat] == 1 and result.ranks[1 - greedy_seat] != 1
    return wins / games


@pytest.mark.parametrize("game", ["board", "card"])
def test_greedy_clearly_beats_random(game: str) -> None:
    share = play_match(game, 200)
    assert share > 0.65, f"greedy won {share:.1%} of {game} games"


def test_greedy_plays_every_board_variant_legally() -> None:
    for settings in ({"players": 4, "variant": "team"}, {"players": 3, "variant": "points"}, {"edition": "1972"}):
        state = engine.new_game("board", settings, 3)
        while not engine.is_over(state):
            request = move_request(state, 1)
            engine.apply(state, greedy_bot.choose(request), request["seat"])


def test_greedy_plays_every_card_decision_legally() -> None:
    for settings in ({"players": 4}, {"players": 3, "longer_game": True}):
        state = engine.new_game("card", settings, 4)
        while not engine.is_over(state):
            request = move_request(state, 1)
            engine.apply(state, greedy_bot.choose(request), request["seat"])


# The command line


def test_load_bot_knows_the_examples_and_files(tmp_path: Path) -> None:
    assert load_bot("greedy") == ("greedy", greedy_bot.choose)
    bot = tmp_path / "mine.py"
    bot.write_text("def choose(request):\n    return request['actions'][-1]['id']\n")
    name, choose = load_bot(str(bot))
    assert name == "mine" and choose({"actions": [{"id": "a"}, {"id": "b"}]}) == "b"
    (tmp_path / "empty.py").write_text("x = 1\n")
    for spec, message in [
        ("clever", "--bot must be greedy, random, search or a path to a .py file"),
        (str(tmp_path / "missing.py"), "no such bot file"),
        (str(tmp_path / "empty.py"), "defines no choose(request) function"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            load_bot(spec)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--push"], "the following arguments are required: --bot"),
        (["--bot", "greedy"], "one of the arguments --push --pull is required"),
        (["--bot", "clever", "--push"], "--bot must be greedy, random, search or a path"),
        (["--bot", "greedy", "--push", "--port", "70000"], "--port must be from 0 to 65535"),
        (["--bot", "greedy", "--push", "--games", "chess"], "--games must list board and/or card"),
        (["--bot", "greedy", "--push", "--pull"], "argument --pull: not allowed with argument --push"),
    ],
)
def test_usage_errors_are_clear(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


def test_python_m_clients_serves_until_interrupted() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "clients", "--bot", "random", "--push", "--port", "0", "--secret", SECRET],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert banner.startswith("random (board, card) serving at http://127.0.0.1:"), banner
        url = banner.split()[5]
        with BotConnection(url + "/bot", SECRET, parse_allowlist("loopback"), timeout=5) as connection:
            assert connection.call("info", {"type": "info", "nonce": "n1"}).body == {
                "nonce": "n1",
                "name": "random",
                "games": ["board", "card"],
                "protocols": [2],
            }
            assert connection.move(MOVE).body == {"action": "1:start:yellow"}
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "stopped" in out


# The import rule: a bot author copies clients/ away, so it needs only the standard library and requests.


def test_clients_import_only_the_standard_library_and_requests() -> None:
    """A bot author copies clients/ away; only the search example needs more: the engine, its simulator."""
    outside = set()
    for path in sorted((ROOT / "clients").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("clients", "requests"):
                    outside.add(f"{path.relative_to(ROOT)}: {name}")
    assert sorted(outside) == ["clients/examples/search_bot.py: engine.search"]


def test_a_late_answer_is_one_line_in_the_log_and_no_traceback(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    """The service hangs up at the deadline; the bot's answer comes later: the bot's author reads one line saying
    so (not a BrokenPipe traceback), and the server goes on answering."""
    answered = threading.Event()

    def slow(request: dict[str, Any]) -> str:
        time.sleep(0.4)
        answered.set()
        return str(request["actions"][0]["id"])

    request = {**MOVE, "deadline_ms": 100}
    with serve(slow, secret=SECRET, name="slow").start_background() as server, caplog.at_level(logging.DEBUG):
        with BotConnection(f"{server.url}/bot", SECRET, parse_allowlist("loopback"), timeout=0.1) as connection:
            assert connection.move(request).fault == "timeout"
        assert answered.wait(10)
        time.sleep(0.2)  # the handler writes to the closed connection after choose returns
        with BotConnection(f"{server.url}/bot", SECRET, parse_allowlist("loopback"), timeout=5) as connection:
            assert connection.move(MOVE).fault is None, "the server answers on"
    late = [record.getMessage() for record in caplog.records if "after the deadline" in record.getMessage()]
    assert len(late) == 1 and " > 100 ms" in late[0], late
    assert "Traceback" not in capfd.readouterr().err
