"""botlink.calls against real local HTTP servers (tests/botservers.py): every fault kind, deadlines that hold
against endless or trickled replies, signed requests, the resolved address pinned, keep-alive, https names."""

from __future__ import annotations

import multiprocessing
import shutil
import socket
import ssl
import struct
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import urllib3.util.connection

from botlink import calls, signing
from botlink.calls import FAULTS, BotConnection, BotReply
from botlink.netguard import parse_allowlist
from tests import botservers
from tests.botservers import BotServer

LOOPBACK = parse_allowlist("loopback")
SECRET = "test-secret"
MOVE = {
    "type": "move",
    "game_id": 17,
    "seat": 1,
    "ply": 42,
    "decision": "move",
    "view": {"game": "board"},
    "actions": [{"id": "1:start:yellow"}, {"id": "5:yellow0+5"}],
    "deadline_ms": 1000,
    "last_latency_ms": None,
}
SLACK_S = 1.5
"""How much later than its timeout a call may return on a busy two-core machine (beside 8 busy loops, say): well
below what the misbehaving bots would hold a call without the deadline (3 s and more, MAX_STREAM_S for streams)."""


def connect(server: BotServer, timeout: float = 0.5, **kwargs: object) -> BotConnection:
    return BotConnection(server.url(), SECRET, LOOPBACK, timeout=timeout, **kwargs)  # type: ignore[arg-type]


def timed_move(connection: BotConnection) -> tuple[BotReply, float]:
    started = time.monotonic()
    reply = connection.move(MOVE)
    return reply, time.monotonic() - started


def test_a_good_bot_answers_its_move() -> None:
    with BotServer(botservers.reply()) as server, connect(server) as connection:
        reply = connection.move(MOVE)
    assert reply == BotReply({"action": "1:start:yellow"}, None, "", reply.latency_ms)
    assert reply.ok and 0 < reply.latency_ms < 500
    assert server.received[0].path == "/bot/move"
    assert server.received[0].json() == MOVE


def test_requests_are_signed_json_with_the_original_host() -> None:
    with BotServer(botservers.reply()) as server, connect(server) as connection:
        connection.call("info", {"type": "info", "nonce": "ab12"})
        connection.move(MOVE)
    for request in server.received:
        assert request.headers["Content-Type"] == "application/json"
        assert request.headers["Host"] == f"127.0.0.1:{server.port}"
        assert signing.verify(SECRET, "POST", request.path, request.headers, request.body)
        assert not signing.verify("another secret", "POST", request.path, request.headers, request.body)
        assert not signing.verify(SECRET, "POST", request.path, request.headers, request.body + b" ")
        assert not signing.verify(SECRET, "POST", "/bot/end", request.headers, request.body), "bound to its route"
    assert len({request.headers[signing.REQUEST_ID_HEADER] for request in server.received}) == 2
    assert server.received[0].json() == {"type": "info", "nonce": "ab12"}


def test_requests_name_the_service_and_ask_for_no_compression() -> None:
    with BotServer(botservers.reply()) as server, connect(server) as connection:
        connection.move(MOVE)
    headers = server.received[0].headers
    assert headers["User-Agent"] == "sorry-arena"
    assert headers["Accept-Encoding"] == "identity"
    assert int(headers["Content-Length"]) == len(server.received[0].body)


def test_info_echoes_the_nonce_and_start_or_end_may_answer_nothing() -> None:
    with BotServer(botservers.reply()) as server, connect(server) as connection:
        assert connection.call("info", {"type": "info", "nonce": "ff00"}).body == {
            "nonce": "ff00",
            "name": "test",
            "games": ["board", "card"],
        }
    with BotServer(botservers.raw(b"")) as server, connect(server) as connection:
        reply = connection.call("start", {"type": "start", "game_id": 1})
        assert (reply.body, reply.fault, reply.detail) == (None, None, "")


def test_each_attempt_has_the_time_left_as_its_socket_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Connecting, sending and reading of an attempt are each bounded by the time left until the call's deadline
    (a silent bot is cut there even without the watchdog), on a new connection and a kept one."""
    connects: list[float] = []
    timeouts: list[float] = []
    create_connection = urllib3.util.connection.create_connection
    readinto = socket.SocketIO.readinto

    def connecting(address: Any, timeout: Any = None, *args: Any, **kwargs: Any) -> socket.socket:
        connects.append(timeout)
        return create_connection(address, timeout, *args, **kwargs)

    def reading(self: socket.SocketIO, buffer: Any) -> int | None:
        sock: socket.socket = self._sock  # type: ignore[attr-defined]
        if sock.getpeername()[1] == server.port:  # the client's reads (the bot's server runs in this process)
            timeouts.append(sock.gettimeout())
        return readinto(self, buffer)

    server = BotServer(botservers.reply())
    monkeypatch.setattr(urllib3.util.connection, "create_connection", connecting)
    monkeypatch.setattr(socket.SocketIO, "readinto", reading)
    with server, connect(server, timeout=0.5) as connection:
        for _ in range(2):
            assert connection.move(MOVE).ok
    assert len(connects) == 1 and 0 < connects[0] <= 0.5
    assert len(timeouts) >= 2 and all(timeout is not None and 0 < timeout <= 0.5 for timeout in timeouts)


def test_a_kept_connection_is_reused_without_a_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    """urllib3 asks with a ``poll`` whether a kept connection was closed before reusing it (a system call, and the
    interpreter's lock given up, per call): a bot's kept connection is reused without it."""
    polls: list[object] = []
    wait_for_read = urllib3.connection.wait_for_read  # type: ignore[attr-defined]

    def polling(sock: socket.socket, timeout: float | None = None) -> bool:
        polls.append(sock)
        return bool(wait_for_read(sock, timeout))

    monkeypatch.setattr(urllib3.connection, "wait_for_read", polling)
    with BotServer(botservers.reply()) as server, connect(server) as connection:
        for _ in range(3):
            assert connection.move(MOVE).ok
    assert polls == []
    assert len(server.received) == 3 and len({request.client_port for request in server.received}) == 1


def test_a_kept_connection_the_bot_closed_is_asked_again_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that closes each connection after its reply (without saying so): the next call finds the kept
    connection dropped and is sent again at once on a new one, not after the pause of a bot that restarts (made
    longer than the deadline here, so that a paused call would be a fault)."""
    monkeypatch.setattr(calls, "RESTART_FIRST_PAUSE", 30.0)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)
    closed = threading.Event()
    accepted: list[int] = []

    def answer_once_per_connection() -> None:
        for _ in range(2):
            connection, address = listener.accept()
            accepted.append(address[1])
            with connection:
                data = b""
                while not data.endswith(b"}"):  # the request's JSON body ends the request
                    data += connection.recv(65536)
                reply = b'{"action": "1:start:red"}'
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(reply), reply))
            closed.set()

    bot = threading.Thread(target=answer_once_per_connection, daemon=True)
    bot.start()
    port = listener.getsockname()[1]
    with BotConnection(f"http://127.0.0.1:{port}/bot", SECRET, LOOPBACK, timeout=10) as connection:
        assert connection.move(MOVE).ok
        assert closed.wait(10)
        reply = connection.move(MOVE)
    bot.join(10)
    listener.close()
    assert (reply.fault, reply.body) == (None, {"action": "1:start:red"})
    assert len(accepted) == 2


def test_a_deadline_shorter_than_the_watchdogs_tick_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watchdog wakes at the earliest deadline it watches, not only every tick: with a 30 s tick a silent
    bot is still cut at the call's 0.3 s deadline."""
    monkeypatch.setattr(calls._Watchdog, "TICK", 30.0)
    with BotServer(botservers.slow(3.0)) as server, connect(server, timeout=0.3) as connection:
        for _ in range(2):  # the second call finds the watchdog asleep for its long tick
            reply, elapsed = timed_move(connection)
            assert reply.fault == "timeout" and elapsed < 0.3 + SLACK_S


def test_one_connection_is_kept_alive_across_calls() -> None:
    with BotServer(botservers.reply()) as server, connect(server) as connection:
        for _ in range(5):
            assert connection.move(MOVE).ok
    assert len({request.client_port for request in server.received}) == 1


def test_a_slow_bot_times_out_near_the_deadline() -> None:
    with BotServer(botservers.slow(3.0)) as server, connect(server, timeout=0.3) as connection:
        reply, elapsed = timed_move(connection)
    assert (reply.fault, reply.detail, reply.body) == ("timeout", "timed out after 300 ms", None)
    assert 0.3 <= elapsed < 0.3 + SLACK_S
    assert 300 <= reply.latency_ms < 1000 * (0.3 + SLACK_S)


def test_latency_is_measured() -> None:
    with BotServer(botservers.slow(0.15)) as server, connect(server, timeout=1.0) as connection:
        reply = connection.move(MOVE)
    assert reply.ok
    assert 150 <= reply.latency_ms < 900


def test_the_default_timeout_is_one_second() -> None:
    with BotServer(botservers.slow(5.0)) as server:
        connection = BotConnection(server.url(), SECRET, LOOPBACK)
        reply, elapsed = timed_move(connection)
        connection.close()
    assert reply.fault == "timeout" and reply.detail == "timed out after 1000 ms"
    assert 1.0 <= elapsed < 1.0 + SLACK_S


@pytest.mark.parametrize("code", [400, 404, 500, 503])
def test_a_non_2xx_status_is_a_fault_quoting_the_start_of_the_body(code: int) -> None:
    server = BotServer(botservers.status(code, b'{"error": "choose() raised KeyError"}'))
    with server, connect(server) as connection:
        reply = connection.move(MOVE)
    assert (reply.fault, reply.body) == ("status", None)
    assert reply.detail == f'HTTP {code}: {{"error": "choose() raised KeyError"}}'


@pytest.mark.parametrize("code", [401, 403])
def test_a_refused_signature_is_a_rejected_fault(code: int) -> None:
    """401 and 403: the bot refused the service's signature (a secret or protocol mismatch), not a bot error."""
    server = BotServer(botservers.status(code, b'{"error": "bad, missing, stale or replayed signature"}'))
    with server, connect(server) as connection:
        reply = connection.move(MOVE)
    assert (reply.fault, reply.body) == ("rejected", None)
    assert (
        reply.detail
        == f'HTTP {code} (the signature refused): {{"error": "bad, missing, stale or replayed signature"}}'
    )


def test_the_quoted_error_text_is_short_and_printable() -> None:
    with BotServer(botservers.status(500, b"\x1b[31m" + b"e" * 10_000)) as server, connect(server) as connection:
        reply = connection.move(MOVE)
    assert reply.fault == "status"
    assert len(reply.detail) < 140 and reply.detail.isprintable()


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b"<html>this is not JSON</html>", "the reply is not valid JSON"),
        (b'{"action": "a"', "the reply is not valid JSON"),
        (b"\xff\xfe\x00garbage", "the reply is not valid JSON"),
        (b'{"action": NaN}', "the reply is not valid JSON"),
        (b"[" * 60_000, "the reply is not valid JSON"),
        (b"1" * 5_000, "the reply is not valid JSON"),
        (b'["1:start:yellow"]', "the reply is a JSON list, not an object"),
        (b'"1:start:yellow"', "the reply is a JSON str, not an object"),
    ],
)
def test_an_unparsable_body_is_a_fault(body: bytes, detail: str) -> None:
    with BotServer(botservers.raw(body)) as server, connect(server) as connection:
        reply = connection.call("move", MOVE)
    assert (reply.fault, reply.detail, reply.body) == ("unparsable", detail, None)


@pytest.mark.parametrize("body", [b"", b"{}", b'{"action": 5}', b'{"move": "1:start:yellow"}'])
def test_a_move_reply_needs_a_string_action(body: bytes) -> None:
    with BotServer(botservers.raw(body)) as server, connect(server) as connection:
        reply = connection.move(MOVE)
    assert (reply.fault, reply.detail) == ("unparsable", 'the reply has no string "action"')


def test_a_body_of_exactly_the_cap_is_fine_and_one_byte_more_is_too_large() -> None:
    with BotServer(botservers.big(65536)) as server, connect(server) as connection:
        assert connection.move(MOVE).ok
    with BotServer(botservers.big(65537)) as server, connect(server) as connection:
        reply = connection.move(MOVE)
    assert (reply.fault, reply.detail) == ("too_large", "the reply is over 65536 bytes")


def test_a_large_chunked_body_is_too_large_without_a_content_length() -> None:
    # endless() announces no length: the cap is found by reading, and the read stops right after it.
    with BotServer(botservers.endless()) as server, connect(server, timeout=2.0, max_body=1000) as connection:
        reply, elapsed = timed_move(connection)
    assert reply.fault == "too_large"
    assert elapsed < 1.0


def test_an_endless_body_stops_at_the_deadline() -> None:
    server = BotServer(botservers.endless())
    with server, connect(server, timeout=0.3, max_body=10**12) as connection:
        reply, elapsed = timed_move(connection)
    assert reply.fault == "timeout"
    assert elapsed < 0.3 + SLACK_S


def test_an_endless_body_within_the_cap_is_cut_by_size_first() -> None:
    """The deadline is far (5 s: 64 KiB of the stream arrive in milliseconds, or seconds on a loaded machine): the
    size cap cuts the call, long before the deadline and the stream's end would."""
    with BotServer(botservers.endless()) as server, connect(server, timeout=5.0) as connection:
        reply, elapsed = timed_move(connection)
    assert reply.fault == "too_large"
    assert elapsed < 5.0


def test_headers_trickled_byte_by_byte_stop_at_the_deadline() -> None:
    # Every socket read succeeds within requests' per-read timeout; only the watchdog ends the call.
    with BotServer(botservers.trickle_headers(0.05)) as server, connect(server, timeout=0.3) as connection:
        reply, elapsed = timed_move(connection)
    assert reply.fault == "timeout"
    assert elapsed < 0.3 + SLACK_S


def test_a_redirect_is_a_fault_and_never_followed() -> None:
    with BotServer(botservers.reply()) as target:
        with BotServer(botservers.redirect(target.url(path="/bot/move"))) as server, connect(server) as connection:
            reply = connection.move(MOVE)
        assert target.received == []
    assert (reply.fault, reply.body) == ("redirect", None)
    assert reply.detail == "HTTP 302 redirect (redirects are not followed)"


@pytest.mark.parametrize("code", [301, 307, 308])
def test_every_redirect_status_is_a_fault(code: int) -> None:
    with BotServer(botservers.redirect("http://127.0.0.1:1/", code)) as server, connect(server) as connection:
        assert connection.move(MOVE).fault == "redirect"


def test_a_port_closed_until_the_deadline_is_a_connection_fault() -> None:
    """A refused connection is tried again until the deadline (nothing was sent), then it is a fault."""
    url = f"http://127.0.0.1:{botservers.closed_port()}/bot"
    with BotConnection(url, SECRET, LOOPBACK, timeout=0.5) as connection:
        reply, elapsed = timed_move(connection)
    assert (reply.fault, reply.body) == ("connection", None)
    assert reply.detail == "connection refused (tried again until the deadline)"
    assert elapsed >= 0.25  # it kept trying until less than a pause was left


def listen_later(port: int, delay: float, reply: bytes) -> threading.Thread:
    """After ``delay`` seconds, listen on ``port`` and answer one HTTP request with ``reply`` (a bot restarting)."""

    def serve() -> None:
        time.sleep(delay)
        with socket.create_server(("127.0.0.1", port)) as server:
            server.settimeout(10)
            connection, _ = server.accept()
            with connection:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += connection.recv(65536)
                head, _, body = data.partition(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                while len(body) < length:
                    body += connection.recv(65536)
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                    % (len(reply), reply)
                )

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_a_bot_that_comes_back_before_the_deadline_answers_the_same_call() -> None:
    """A bot restarting: refused for 0.3 s, then listening: the call succeeds, its latency counts the wait."""
    port = botservers.closed_port()
    server = listen_later(port, 0.3, b'{"action": "1:start:red"}')
    with BotConnection(f"http://127.0.0.1:{port}/bot", SECRET, LOOPBACK, timeout=10) as connection:
        reply = connection.move(MOVE)
    server.join(10)
    assert (reply.fault, reply.body) == (None, {"action": "1:start:red"})
    assert reply.latency_ms >= 250


def test_a_reply_that_is_not_http_is_a_connection_fault() -> None:
    with BotServer(botservers.not_http()) as server, connect(server) as connection:
        reply = connection.move(MOVE)
    assert reply.fault == "connection"


def test_a_redirect_body_is_never_read() -> None:
    # A 3xx that streams an endless body: the fault comes at once, not at the deadline or the cap.
    behaviour = botservers.endless(code=302, headers={"Location": "http://127.0.0.1:1/"})
    with BotServer(behaviour) as server, connect(server, timeout=2.0, max_body=10**12) as connection:
        reply, elapsed = timed_move(connection)
    assert (reply.fault, reply.detail) == ("redirect", "HTTP 302 redirect (redirects are not followed)")
    assert elapsed < 1.0


def test_a_connection_recovers_after_faults() -> None:
    answers = iter([botservers.status(500), botservers.slow(2.0), botservers.garbage(), botservers.reply()])

    def next_answer(handler: botservers.Handler, request: botservers.Received) -> None:
        next(answers)(handler, request)

    with BotServer(next_answer) as server, connect(server, timeout=0.3) as connection:
        faults = [connection.move(MOVE).fault for _ in range(4)]
    assert faults == ["status", "timeout", "unparsable", None]


def test_a_connection_recovers_after_faults_that_drop_it() -> None:
    # Each of these leaves a reply unread: the connection is dropped, and the next call opens a new one.
    behaviours = [
        botservers.redirect("http://127.0.0.1:1/"),
        botservers.big(65537),
        botservers.endless(),
        botservers.not_http(),
        botservers.reply(),
        botservers.reply(),
    ]
    answers = iter(behaviours)

    def next_answer(handler: botservers.Handler, request: botservers.Received) -> None:
        next(answers)(handler, request)

    with BotServer(next_answer) as server, connect(server) as connection:
        faults = [connection.move(MOVE).fault for _ in behaviours]
    assert faults == ["redirect", "too_large", "too_large", "connection", None, None]
    ports = [request.client_port for request in server.received]
    assert ports[-1] == ports[-2]  # kept alive again once the bot behaves


def test_loopback_is_refused_without_the_allowlist() -> None:
    with BotServer(botservers.reply()) as server:
        for host in ("127.0.0.1", "localhost"):
            connection = BotConnection(server.url(host=host), SECRET)
            reply = connection.move(MOVE)
            assert reply.fault == "refused"
            assert reply.detail == "the bot URL's host resolves to a loopback address, which is not allowed"
            assert connection.refusal == reply.detail and connection.target is None
            assert connection.move(MOVE).fault == "refused"  # every call
        assert server.received == []


@pytest.mark.parametrize(
    "url",
    [
        "ftp://127.0.0.1/bot",
        "http://user:pw@127.0.0.1:80/bot",
        "http://127.0.0.1:99999/bot",
        "not a url",
        "http:///",
    ],
)
def test_a_malformed_url_is_refused_on_every_call(url: str) -> None:
    connection = BotConnection(url, SECRET, LOOPBACK)
    assert connection.call("info", {"type": "info", "nonce": "00"}).fault == "refused"
    assert connection.refusal


def test_localhost_connects_to_the_address_resolved_once(monkeypatch: pytest.MonkeyPatch) -> None:
    with BotServer(botservers.reply()) as server:
        connection = BotConnection(server.url(host="localhost"), SECRET, LOOPBACK, timeout=0.5)
        assert connection.target is not None and str(connection.target.ip) in ("127.0.0.1", "::1")

        lookups: list[object] = []
        real_getaddrinfo = socket.getaddrinfo

        def recorded(host: str, *args: Any, **kwargs: Any) -> Any:
            lookups.append(host)
            return real_getaddrinfo(host, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", recorded)
        if connection.target.ip.version == 6:
            pytest.skip("localhost resolves to ::1 first here; the server listens on 127.0.0.1")
        reply = connection.move(MOVE)
        connection.close()
    assert reply.ok
    assert lookups == ["127.0.0.1"]  # the connection's own look-up of the IP literal, never of "localhost"
    assert server.received[0].headers["Host"] == f"localhost:{server.port}"


def test_an_unresolvable_name_is_a_connection_fault_of_every_call() -> None:
    connection = BotConnection("http://no-such-bot.invalid/bot", SECRET, LOOPBACK, timeout=0.5)
    for _ in range(2):
        reply = connection.move(MOVE)
        assert (reply.fault, reply.detail) == ("connection", "the bot URL's host name does not resolve")
    assert connection.refusal is None and connection.target is None


def test_calls_from_several_threads_each_keep_their_own_deadline() -> None:
    # One watchdog serves every connection of the process: a slow bot must not cut a fast one.
    results: dict[str, BotReply] = {}
    with BotServer(botservers.slow(3.0)) as slow_server, BotServer(botservers.slow(0.2)) as fast_server:

        def run(name: str, server: BotServer, timeout: float) -> None:
            with connect(server, timeout=timeout) as connection:
                results[name] = connection.move(MOVE)

        threads = [
            threading.Thread(target=run, args=("slow", slow_server, 0.3)),
            threading.Thread(target=run, args=("fast", fast_server, 1.0)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(5)
    assert results["slow"].fault == "timeout"
    assert results["fast"].ok


def _timed_call_in_child(url: str, results: Any) -> None:
    with BotConnection(url, SECRET, LOOPBACK, timeout=0.3) as connection:
        reply, elapsed = timed_move(connection)
    results.put((reply.fault, elapsed))


def test_deadlines_hold_in_a_forked_child() -> None:
    # RQ's default worker forks a child per job: the watchdog thread does not survive a fork and must restart.
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    with BotServer(botservers.trickle_headers(0.05)) as server:
        with connect(server, timeout=0.3) as connection:  # the parent's watchdog thread is running
            assert connection.move(MOVE).fault == "timeout"
        child = context.Process(target=_timed_call_in_child, args=(server.url(), results))
        child.start()
        fault, elapsed = results.get(timeout=10)
        child.join(10)
    assert fault == "timeout" and elapsed < 0.3 + SLACK_S


def test_fault_kinds_are_the_documented_ones() -> None:
    assert FAULTS == (
        "timeout",
        "connection",
        "status",
        "unparsable",
        "too_large",
        "redirect",
        "refused",
        "rejected",
    )
    text = (Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.md").read_text()
    for fault in FAULTS:
        assert f"`{fault}`" in text


# https: the URL names the bot's host; the connection goes to the resolved IP; SNI and the certificate check use the
# name. A certificate for another name must fail.


def make_certificate(directory: Path, name: str) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={name}"]
        + ["-addext", f"subjectAltName=DNS:{name}", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


def tls_server(cert: Path, key: Path) -> BotServer:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return BotServer(botservers.reply(), ssl_context=context)


def test_https_checks_the_certificate_against_the_url_host(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path, "localhost")
    with tls_server(cert, key) as server:
        connection = BotConnection(server.url(host="localhost"), SECRET, LOOPBACK, ca_bundle=str(cert))
        if connection.target is None or connection.target.ip.version == 6:
            pytest.skip("localhost does not resolve to 127.0.0.1 first here")
        assert connection.target.url_for("move").startswith("https://127.0.0.1:")
        reply = connection.move(MOVE)
        connection.close()
    assert reply.ok, reply.detail


def test_https_with_a_certificate_for_another_name_is_a_connection_fault(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path, "other.example")
    server = tls_server(cert, key)
    with server, BotConnection(server.url(host="localhost"), SECRET, LOOPBACK, ca_bundle=str(cert)) as connection:
        reply = connection.move(MOVE)
    assert (reply.fault, reply.detail) == ("connection", "TLS failed (certificate or handshake)")


def test_a_bot_killed_mid_call_and_back_before_the_deadline_answers_the_same_call() -> None:
    """A bot process killed while it thinks (the connection reset before any reply), then listening again: the call
    is asked again and succeeds, as for a refused connection."""
    port = botservers.closed_port()
    listener = socket.create_server(("127.0.0.1", port))

    def die_then_come_back() -> None:
        connection, _ = listener.accept()
        connection.recv(65536)
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        connection.close()  # a reset, no byte of a reply
        listener.close()  # refused for a while, then back
        listen_later(port, 0.2, b'{"action": "1:start:red"}').join(20)

    bot = threading.Thread(target=die_then_come_back, daemon=True)
    bot.start()
    with BotConnection(f"http://127.0.0.1:{port}/bot", SECRET, LOOPBACK, timeout=10) as connection:
        reply = connection.move(MOVE)
    bot.join(20)
    assert (reply.fault, reply.body) == (None, {"action": "1:start:red"})


def test_a_bot_killed_between_its_replys_headers_and_body_is_asked_again() -> None:
    """A bot process killed mid-answer (its headers sent, the connection closed before the body): the reply is cut
    short, and the call is asked again as for a refused connection, so a bot back before the deadline costs no
    fault."""
    port = botservers.closed_port()
    listener = socket.create_server(("127.0.0.1", port))

    def die_mid_answer_then_come_back() -> None:
        connection, _ = listener.accept()
        connection.recv(65536)
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 25\r\n\r\n")
        connection.shutdown(socket.SHUT_WR)  # a clean close, as the kernel does for a killed process
        connection.close()
        listener.close()
        listen_later(port, 0.2, b'{"action": "1:start:red"}').join(20)

    bot = threading.Thread(target=die_mid_answer_then_come_back, daemon=True)
    bot.start()
    with BotConnection(f"http://127.0.0.1:{port}/bot", SECRET, LOOPBACK, timeout=10) as connection:
        reply = connection.move(MOVE)
    bot.join(20)
    assert (reply.fault, reply.body) == (None, {"action": "1:start:red"})


def test_a_bot_that_cuts_every_reply_short_is_a_connection_fault_at_the_deadline() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    calls: list[int] = []

    def cut_all() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            calls.append(1)
            connection.recv(65536)
            connection.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 25\r\n\r\n{"act')
            connection.shutdown(socket.SHUT_WR)
            connection.close()

    cutter = threading.Thread(target=cut_all, daemon=True)
    cutter.start()
    port = listener.getsockname()[1]
    with BotConnection(f"http://127.0.0.1:{port}/bot", SECRET, LOOPBACK, timeout=0.6) as connection:
        reply = connection.move(MOVE)
    stop.set()
    cutter.join(10)
    listener.close()
    assert (reply.fault, reply.detail) == (
        "connection",
        "the reply was cut short (tried again until the deadline)",
    )
    assert len(calls) >= 2


def test_a_bot_that_resets_every_call_is_a_connection_fault_at_the_deadline() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def reset_all() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()

    resetter = threading.Thread(target=reset_all, daemon=True)
    resetter.start()
    port = listener.getsockname()[1]
    with BotConnection(f"http://127.0.0.1:{port}/bot", SECRET, LOOPBACK, timeout=0.6) as connection:
        reply = connection.move(MOVE)
    stop.set()
    resetter.join(10)
    listener.close()
    assert reply.fault == "connection"
    assert "tried again until the deadline" in reply.detail
