"""Push mode: serve your bot's ``choose`` function over HTTP for the sorry-arena service (standard library only).

The service POSTs JSON to ``{your URL}/info``, ``/start``, ``/move`` and ``/end`` (docs/bot-protocol.md); this
module answers them, so that a bot is one function::

    from clients.push import serve

    def choose(request: dict) -> str:
        return request["actions"][0]["id"]

    serve(choose, port=8001, secret="the secret you registered the bot with").serve_forever()

Any base path works (``http://host:8001``, ``http://host:8001/bot``, ...): the route is the last path segment.
With a secret set, requests without a valid signature (the method, path and body signed, recent, never seen
before: ``signature.Verifier``) get 401, each logged at the default level with the reason (a wrong secret, a stale
timestamp, a replayed request id, an unknown protocol version, no signature); while a secret is rotated, ``previous_secrets`` are accepted too
(``serve(choose, secret=NEW, previous_secrets=[OLD])``: docs/bots.md, "Rotating the secret"). ``info`` echoes the service's nonce with the bot's
name, games and the protocol versions it speaks (:data:`PROTOCOLS`: the service signs in the newest both know); ``start`` and ``end`` answer ``{}``; ``move`` answers ``{"action": choose(request)}`` (with ``"debug"``: the text ``choose`` may set as
``request["debug"]``, shown to the bot's owner with the move), and an
exception in ``choose`` answers 500 with a short message (the service records a fault and plays a fallback move).
"""

from __future__ import annotations

import json
import logging
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from clients import signature

Choose = Callable[[dict[str, Any]], str]
MAX_REQUEST_BYTES = 1 << 20
"""Requests are a view and a list of actions: a few KiB. Anything larger is refused unread."""

log = logging.getLogger(__name__)


PROTOCOLS = (2,)
"""The push protocol versions this client speaks (``info`` says so): 2, whose signature ``signature.py`` checks.
The clients before 0.2 spoke 1 (deprecated) and did not say."""
DEBUG_CHARS = 1024
"""The longest debug text sent (the service keeps at most 1 KiB of it, control characters removed)."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the service reuses one connection for a whole game
    disable_nagle_algorithm = True  # without it every reply waits ~40 ms for a delayed ACK
    wbufsize = 1 << 16  # a reply's headers and body leave in one write (flushed by _answer)
    timeout = 120  # drop a keep-alive connection idle this long (seconds)
    server: PushServer
    _received = 0.0
    """When the request being answered came (monotonic seconds)."""

    def do_POST(self) -> None:
        self._received = time.monotonic()
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            self._answer(411, {"error": "a Content-Length is required"}, close=True)
            return
        if int(length) > MAX_REQUEST_BYTES:
            self._answer(413, {"error": f"requests are limited to {MAX_REQUEST_BYTES} bytes"}, close=True)
            return
        body = self.rfile.read(int(length))
        verifier = self.server.verifier
        refused = (
            None if verifier is None else verifier.refusal("POST", self.path, dict(self.headers.items()), body)
        )
        if refused is not None:
            log.warning("refused a request to %s from %s: %s", self.path[:100], self.address_string(), refused)
            self._answer(401, {"error": "bad, missing, stale or replayed signature"})
            return
        route = self.path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        if route not in ("info", "start", "move", "end"):
            self._answer(404, {"error": f"unknown route {route!r}: expected info, start, move or end"})
            return
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            self._answer(400, {"error": "the body must be a JSON object"})
            return
        if route == "info":
            games = list(self.server.games)
            self._answer(
                200,
                {
                    "nonce": request.get("nonce"),
                    "name": self.server.name,
                    "games": games,
                    "protocols": [*PROTOCOLS],
                },
            )
        elif route == "move":
            self._move(request)
        else:
            self._answer(200, {})

    def _move(self, request: dict[str, Any]) -> None:
        try:
            action = self.server.choose(request)
        except Exception as exc:
            log.exception("choose() failed on game %s ply %s", request.get("game_id"), request.get("ply"))
            self._answer(500, {"error": f"choose() raised {type(exc).__name__}: {exc}"[:200]})
            return
        if not isinstance(action, str):
            self._answer(500, {"error": f"choose() returned {type(action).__name__}, not an action id"})
            return
        took_ms = (time.monotonic() - self._received) * 1000
        deadline_ms = request.get("deadline_ms")
        if isinstance(deadline_ms, int | float) and took_ms > deadline_ms:
            log.warning(
                "game %s ply %s: your answer came after the deadline: %.0f ms > %.0f ms "
                "(the service played a fallback move for you)",
                request.get("game_id"),
                request.get("ply"),
                took_ms,
                deadline_ms,
            )
        answer = {"action": action}
        debug = request.get("debug")  # choose() may leave a debug text for its owner in the request
        if isinstance(debug, str) and debug:
            answer["debug"] = debug[:DEBUG_CHARS]
        self._answer(200, answer)

    def _answer(self, status: int, payload: dict[str, Any], close: bool = False) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        try:
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except ConnectionError:  # the service hung up (a deadline passed): nobody is left to answer
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)


class PushServer(ThreadingHTTPServer):
    """An HTTP server for one bot. ``secret`` and ``previous_secrets`` may be set (or changed) while it runs."""

    daemon_threads = True

    def __init__(
        self,
        choose: Choose,
        host: str,
        port: int,
        secret: str | None,
        name: str,
        games: Iterable[str],
        previous_secrets: Iterable[str] = (),
    ) -> None:
        previous = tuple(previous_secrets)
        if previous and not secret:
            raise ValueError("previous secrets are accepted beside a secret: give the new secret too")
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), _Handler)
        self.choose = choose
        self.verifier: signature.Verifier | None = None
        self.secret = secret
        self.previous_secrets = previous
        self.name = name
        self.games = tuple(games)
        self._thread: threading.Thread | None = None
        self._serving = threading.Event()

    @property
    def secret(self) -> str | None:
        return self.verifier.secret if self.verifier is not None else None

    @secret.setter
    def secret(self, secret: str | None) -> None:
        """A new secret checks the requests from now on, beside the previous secrets (``None``: none is checked)."""
        if not secret:
            self.verifier = None
        elif self.verifier is None:
            self.verifier = signature.Verifier(secret)
        else:  # the same verifier: the request ids it has seen stay refused
            self.verifier.secret = secret

    @property
    def previous_secrets(self) -> tuple[str, ...]:
        """The old secrets still accepted (a rotation under way); empty once it is over."""
        return self.verifier.previous if self.verifier is not None else ()

    @previous_secrets.setter
    def previous_secrets(self, previous: Iterable[str]) -> None:
        previous = tuple(previous)
        if self.verifier is None:
            if previous:
                raise ValueError("previous secrets are accepted beside a secret: set the new secret first")
            return
        self.verifier.previous = previous

    @property
    def url(self) -> str:
        """``http://host:port`` as bound (the port is the real one when 0 asked for a free port)."""
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection the service closed (it hung up at a deadline, or stopped) is no error of the bot: one debug
        line, not a traceback; anything else is reported as usual."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            log.debug("%s closed the connection", client_address)
            return
        super().handle_error(request, client_address)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        self._serving.set()
        super().serve_forever(poll_interval)

    def start_background(self) -> PushServer:
        """Serve from a daemon thread (tests, demos); returns at once."""
        self._thread = threading.Thread(
            target=self.serve_forever, args=(0.05,), name=f"push-bot-{self.name}", daemon=True
        )
        self._thread.start()
        self._serving.wait()
        return self

    def shutdown(self) -> None:
        """Stop serving (if it was) and close the listening socket."""
        if self._serving.is_set():
            super().shutdown()
            self._serving.clear()
        self.server_close()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()


def serve(
    choose: Choose,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    secret: str | None = None,
    name: str = "bot",
    games: Iterable[str] = ("board", "card"),
    previous_secrets: Iterable[str] = (),
) -> PushServer:
    """A push server for ``choose``, bound (``port=0``: any free port) but not yet serving: call
    ``.serve_forever()`` or ``.start_background()``. ``previous_secrets``: old secrets accepted beside ``secret``
    while it is rotated (``ValueError`` without ``secret``)."""
    return PushServer(choose, host, port, secret, name, games, previous_secrets)
