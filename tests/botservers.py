"""Local HTTP servers that play push bots, well-behaved and not, for the tests of ``botlink.calls``.

``BotServer(behaviour)`` serves every POST with ``behaviour(handler, request)`` in a thread of its own, on
127.0.0.1 (HTTP/1.1, with Nagle off: a stdlib server with Nagle on delays each reply ~40 ms), and records what it received. Each misbehaviour a bot may
show is one factory below: :func:`slow`, :func:`status`, :func:`garbage`, :func:`big`, :func:`endless`,
:func:`trickle_headers`, :func:`redirect`, :func:`not_http`. Every loop is bounded in time and stops when the
server does (the network rules of this workplace).
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_STREAM_S = 10.0
"""No test server streams or trickles longer than this, whatever the client does."""


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    client_port: int

    def json(self) -> Any:
        return json.loads(self.body)


Behaviour = Callable[["Handler", Received], None]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: BotServer

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        received = Received(self.path, dict(self.headers.items()), body, self.client_address[1])
        self.server.received.append(received)
        try:
            self.server.behaviour(self, received)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


class BotServer(ThreadingHTTPServer):
    """A bot on 127.0.0.1 (a free port) serving ``behaviour``; a context manager that starts and stops it."""

    daemon_threads = True

    def __init__(self, behaviour: Behaviour, ssl_context: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.behaviour = behaviour
        self.received: list[Received] = []
        self.stopping = threading.Event()
        self.scheme = "http"
        if ssl_context is not None:
            self.socket = ssl_context.wrap_socket(self.socket, server_side=True)
            self.scheme = "https"
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def url(self, host: str = "127.0.0.1", path: str = "/bot") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gives up mid-reply (as the tests make it) is no news

    def __enter__(self) -> BotServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()
        self._thread.join(5)


def reply(payload: Any = None, status_code: int = 200) -> Behaviour:
    """Answer ``payload`` as JSON (default: the first legal action of a move, or the nonce of an info)."""

    def behave(handler: Handler, request: Received) -> None:
        answer = payload
        if answer is None:
            data = request.json()
            if data.get("type") == "info":
                answer = {"nonce": data["nonce"], "name": "test", "games": ["board", "card"]}
            elif data.get("actions"):
                answer = {"action": data["actions"][0]["id"]}
            else:
                answer = {}
        handler.send(status_code, json.dumps(answer).encode())

    return behave


def slow(seconds: float, then: Behaviour | None = None) -> Behaviour:
    def behave(handler: Handler, request: Received) -> None:
        if not handler.server.stopping.wait(seconds):
            (then or reply())(handler, request)

    return behave


def status(code: int, body: bytes = b'{"error": "boom"}') -> Behaviour:
    return lambda handler, request: handler.send(code, body)


def raw(body: bytes, headers: dict[str, str] | None = None) -> Behaviour:
    """Answer 200 with exactly ``body``."""
    return lambda handler, request: handler.send(200, body, headers)


def garbage() -> Behaviour:
    return raw(b"<html>this is not JSON</html>", {"Content-Type": "text/html"})


def big(size: int) -> Behaviour:
    """A valid JSON object of exactly ``size`` bytes."""
    padding = size - len(b'{"action":"a","pad":""}')
    return raw(b'{"action":"a","pad":"' + b"x" * padding + b'"}')


def endless(chunk: int = 4096, code: int = 200, headers: dict[str, str] | None = None) -> Behaviour:
    """A chunked body that never ends (until the client leaves, the server stops, or MAX_STREAM_S), after status
    ``code`` and ``headers``."""

    def behave(handler: Handler, request: Received) -> None:
        handler.send_response(code)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            handler.send_header(name, value)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        opening = b'{"action": "a", "pad": "'
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(opening), opening))
        piece = b"%x\r\n%s\r\n" % (chunk, b"x" * chunk)
        until = time.monotonic() + MAX_STREAM_S
        while not handler.server.stopping.is_set() and time.monotonic() < until:
            handler.wfile.write(piece)
            time.sleep(0.001)
        handler.close_connection = True

    return behave


def trickle_headers(interval: float = 0.05) -> Behaviour:
    """A status line, then one header byte every ``interval``: each read succeeds, the reply never completes."""

    def behave(handler: Handler, request: Received) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        until = time.monotonic() + MAX_STREAM_S
        while not handler.server.stopping.wait(interval) and time.monotonic() < until:
            handler.wfile.write(b"a")
        handler.close_connection = True

    return behave


def redirect(location: str, code: int = 302) -> Behaviour:
    return lambda handler, request: handler.send(code, b"", {"Location": location})


def not_http() -> Behaviour:
    def behave(handler: Handler, request: Received) -> None:
        handler.wfile.write(b"SORRY! this is no HTTP\r\n\r\n")
        handler.close_connection = True

    return behave


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (it was free a moment ago)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
