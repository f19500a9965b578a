"""Calling a push bot over HTTP: signed requests, hard deadlines, capped replies, faults instead of exceptions.

One :class:`BotConnection` per bot per game (one session per match, explicit timeouts, capped response size, no
redirects; the session is a urllib3 pool, see "Transport" below). Its
:meth:`BotConnection.call` never raises for anything the bot does; it returns a :class:`BotReply` whose ``fault``
is one of :data:`FAULTS` (docs/bot-protocol.md, "Faults"):

- ``timeout``: no complete reply within the timeout (default 1 s), measured from the start of the call to the
  last byte of the body -- a bot that trickles its headers or streams an endless body is cut off at the deadline;
- ``connection``: the name does not resolve, the connection is refused or reset, TLS fails, the reply is not HTTP;
- ``rejected``: a 401 or 403, the bot refusing the service's signature (a secret or protocol mismatch: the
  service's side, not play; a game a seat forfeits so is void, ``tournament/play/voids.py``);
- ``status``: any other status but 2xx or 3xx; ``redirect``: a 3xx (never followed);
- ``too_large``: a body over ``max_body`` bytes (64 KiB), read no further;
- ``unparsable``: a non-empty body that is not a JSON object (an empty body is no body, and no fault);
- ``refused``: the URL is malformed or leads to a refused address (:mod:`botlink.netguard`).

An illegal action is a fault too, but the caller judges legality.

The URL is resolved and checked once, when the connection is made (a DNS look-up can block for seconds, past any
deadline): a refusal, or a name that did not resolve then, is the fault of every call; the constructor does not
raise for either. Every call goes to the address checked (the URL's host is replaced by the IP literal; the Host
header, TLS SNI and the certificate check keep the original name), so a second DNS answer cannot redirect the
service after the check.

Transport: urllib3's public :class:`urllib3.connection.HTTPConnection` (``HTTPSConnection`` for https), one kept-alive
connection per :class:`BotConnection`, rather than a ``requests.Session``, which costs the caller ~1.5x the CPU per
round trip (benchmarks/botcall.py). No pool: a connection serves one call at a time, and a pool's check of a kept
connection (a ``poll``) is not needed, since a request that finds the kept connection closed by the bot meanwhile
is sent again at once on a new one. No redirects, no decompression, no proxies or settings from the environment;
https trusts the system's certificate authorities unless given a ``ca_bundle``. One retry rule: a refused
connection, or one reset or closed before the whole reply came (a bot that restarts, or was killed mid-call or
mid-answer), is tried again, after 50 ms doubling to 250 ms, until the call's deadline; only then is it a
``connection`` fault.

Deadlines: each attempt's socket timeout (connecting, every write and every read) is the time left until the
call's deadline, so a silent bot is cut there; a bot that trickles its reply (every read gets a byte in time) is cut
by one daemon thread (the :class:`_Watchdog`), which shuts down the socket (the connection's public ``sock``) of any
call still running at its deadline, waking the blocked read. The deadline is checked after every read of the body
too. ``benchmarks/internals.py botcall`` measured this against the connection classes rewired for one write per
request and no socket timeout that it replaces (docs/performance.md: no gain worth their upkeep).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import socket
import ssl
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import HTTPError, NewConnectionError, ProtocolError, SSLError
from urllib3.response import BaseHTTPResponse
from urllib3.util.ssl_match_hostname import CertificateError

from botlink import netguard, signing

log = logging.getLogger(__name__)

FAULTS = ("timeout", "connection", "status", "unparsable", "too_large", "redirect", "refused", "rejected")
REJECTED_STATUSES = (401, 403)
"""The statuses of a bot that refuses the service's signature: a ``rejected`` fault, not a ``status`` one."""
DEFAULT_TIMEOUT_S = 1.0
DEFAULT_MAX_BODY = 64 * 1024
_ERROR_SNIPPET = 120
"""How many characters of a non-2xx body to quote in the fault's detail (a bot's own error message helps its
author)."""
_HEADERS = {
    "User-Agent": "sorry-arena",
    "Accept": "application/json",
    "Accept-Encoding": "identity",
    "Connection": "keep-alive",
    "Content-Type": "application/json",
}
"""The headers of every request, besides Host and the signature."""


@dataclass(frozen=True, slots=True)
class BotReply:
    """What one call to a bot gave: its JSON body, or the fault and a short human-readable detail."""

    body: dict[str, Any] | None
    fault: str | None
    """``None``, or one of :data:`FAULTS`."""
    detail: str
    latency_ms: float
    """From the start of the call to the last byte of the reply (or to the fault)."""
    status: int | None = None
    """The HTTP status of a ``status`` or ``rejected`` fault (``rejected``: a 401 or 403, the bot refusing the
    signature)."""

    @property
    def ok(self) -> bool:
        return self.fault is None


RESTART_FIRST_PAUSE = 0.05
RESTART_LONGEST_PAUSE = 0.25
"""Pauses between the attempts of a call to a bot that restarts (refused, or dropped before it answered; seconds)."""


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes, as urllib3 wraps OSError."""
    chain: list[BaseException] = [exc]
    while len(chain) < 10 and (chain[-1].__cause__ or chain[-1].__context__) is not None:
        chain.append(chain[-1].__cause__ or chain[-1].__context__)  # type: ignore[arg-type]
    return chain


_DROPPED = (ConnectionRefusedError, ConnectionResetError, BrokenPipeError, http.client.IncompleteRead)
"""What a bot that restarts looks like: the connection refused (nothing was sent), reset, or closed before the
whole reply came (the process died mid-call, or between its reply's headers and its body)."""


def _restarting(exc: BaseException) -> bool:
    """Whether the bot looks like it restarts (:data:`_DROPPED`). Trying again is safe: the service, not the bot,
    applies the move, so a request asked twice changes nothing."""
    return not isinstance(exc, _Fault) and any(isinstance(item, _DROPPED) for item in _chain(exc))


class _Call:
    """One call in flight: its deadline and the connection it uses."""

    __slots__ = ("connection", "deadline", "expired", "kept")

    def __init__(self, deadline: float, connection: HTTPConnection) -> None:
        self.deadline = deadline
        self.connection = connection
        self.expired = False
        self.kept = False
        """Whether the attempt under way went on a connection kept from an earlier call (not a new one)."""


def _cut(connection: HTTPConnection) -> None:
    sock = connection.sock
    if sock is not None:
        # socket.socket's own shutdown, not SSLSocket's (which drops its TLS state first): the blocked reader sees
        # end-of-file at once.
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Watchdog:
    """A daemon thread that cuts the connection of every call still running at its deadline: the deadline of a
    bot that trickles its reply, whose every read comes within the socket's timeout.

    It wakes at the earliest deadline of the calls it watches, or after ``TICK`` seconds, whichever comes first,
    rather than being woken per call (a wake-up per call would cost a thread switch, and the interpreter's lock, on
    every move); only a call whose deadline comes before its next wake-up (a timeout under ``TICK``) wakes it."""

    TICK = 0.05

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """Start afresh: also in a forked child (an RQ worker's job), which has the lock but not the thread."""
        self._lock = threading.Condition()
        self._calls: set[_Call] = set()
        self._thread: threading.Thread | None = None
        self._wakes_at = 0.0

    def watch(self, call: _Call) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="botcall-watchdog", daemon=True)
                self._thread.start()
            self._calls.add(call)
            if call.deadline < self._wakes_at:
                self._lock.notify()

    def unwatch(self, call: _Call) -> None:
        with self._lock:
            self._calls.discard(call)

    def _run(self) -> None:
        with self._lock:
            while True:
                now = time.monotonic()
                for call in [call for call in self._calls if call.deadline <= now]:
                    self._calls.discard(call)
                    call.expired = True
                    _cut(call.connection)
                self._wakes_at = min([now + self.TICK, *(call.deadline for call in self._calls)])
                self._lock.wait(self._wakes_at - now)


_watchdog = _Watchdog()
os.register_at_fork(after_in_child=_watchdog._reset)


class _Fault(Exception):
    def __init__(self, fault: str, detail: str, status: int | None = None) -> None:
        super().__init__(detail)
        self.fault = fault
        self.detail = detail
        self.status = status


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class BotConnection:
    """Calls to one push bot for one game (or match): one kept-alive connection, one resolved address, one secret.

    ``allow`` is the allowlist (:func:`botlink.netguard.parse_allowlist`). ``ca_bundle`` replaces the system's
    certificate authorities for https (a private CA, or a test's). ``protocol`` is the version its requests are
    signed in (``botlink/protocols.py``: 2, or the deprecated 1 of a bot on the previous release's client); it may
    be changed between calls. One call at a time: a connection is not shared between threads.
    """

    def __init__(
        self,
        url: str,
        secret: str,
        allow: Iterable[netguard.Network] = (),
        timeout: float = DEFAULT_TIMEOUT_S,
        max_body: int = DEFAULT_MAX_BODY,
        *,
        ca_bundle: str | None = None,
        protocol: int = 2,
    ) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        if max_body < 0:
            raise ValueError(f"max_body must not be negative, got {max_body!r}")
        self.url = url
        self.timeout = float(timeout)
        self.max_body = max_body
        self.protocol = protocol
        """The protocol version the calls are signed in (unless a call says otherwise)."""
        self.made_at = time.monotonic()
        """When the connection was made and its URL resolved (``botlink.keepalive`` keeps it for so long)."""
        self._secret = secret
        self._allow = tuple(allow)
        self._ca_bundle = ca_bundle
        self.target: netguard.Target | None = None
        self.refusal: str | None = None
        """Why the URL is refused (every call is then a ``refused`` fault), or ``None``."""
        self._unresolved = ""
        self._connection: HTTPConnection | None = None
        self._headers: dict[str, str] = {}
        self._resolve()

    @property
    def secret(self) -> str:
        return self._secret

    @property
    def allow(self) -> tuple[netguard.Network, ...]:
        return self._allow

    def _resolve(self) -> None:
        """Resolve and check the URL, once: a look-up can block for seconds, far past any move's deadline."""
        try:
            self.target = netguard.resolve(self.url, self._allow)
        except netguard.UnresolvableHost as exc:
            self._unresolved = str(exc)
            return
        except ValueError as exc:  # a malformed URL or a refused address
            self.refusal = str(exc)
            return
        target = self.target
        ip = str(target.ip)  # an IPv6 address without brackets (and with its %scope, if any), as sockets want it
        if target.scheme == "https":
            # Connect to the IP address; send the URL's host name as SNI and check the certificate against it.
            # Without a ca_bundle, urllib3 trusts the system's certificate authorities (its default store).
            self._connection = HTTPSConnection(
                ip,
                target.port,
                timeout=self.timeout,
                server_hostname=target.host,
                assert_hostname=target.host,
                cert_reqs="CERT_REQUIRED",
                ca_certs=self._ca_bundle,
            )
        else:
            self._connection = HTTPConnection(ip, target.port, timeout=self.timeout)
        self._headers = {**_HEADERS, "Host": target.host_header}

    def call(self, route: str, payload: dict[str, Any], protocol: int | None = None) -> BotReply:
        """POST ``payload`` as JSON to ``{base}/{route}``, signed in ``protocol`` (default: the connection's
        :attr:`protocol`); the reply's JSON object, or a fault."""
        protocol = self.protocol if protocol is None else protocol
        started = time.perf_counter()
        if self.refusal is not None:
            return BotReply(None, "refused", self.refusal, 0.0)
        connection = self._connection
        if self.target is None or connection is None:
            return BotReply(None, "connection", self._unresolved, 0.0)
        body = json.dumps(payload, separators=(",", ":"), allow_nan=False).encode("utf-8")
        path = f"{self.target.path}/{route}"
        call = _Call(time.monotonic() + self.timeout, connection)
        _watchdog.watch(call)
        try:
            pause = RESTART_FIRST_PAUSE
            at_once = True
            while True:
                try:
                    # each attempt its own id
                    signed = signing.headers(self._secret, "POST", path, body, protocol=protocol)
                    headers = {**self._headers, **signed}
                    data = self._exchange(connection, path, body, headers, call)
                    break
                except Exception as exc:
                    if at_once and call.kept and not call.expired and _restarting(exc):
                        at_once = False  # a kept connection the bot closed meanwhile: at once on a new one
                        continue
                    left = call.deadline - time.monotonic()
                    if call.expired or not _restarting(exc) or left <= pause:  # no time left to try again
                        raise
                    time.sleep(pause)
                    pause = min(pause * 2, RESTART_LONGEST_PAUSE)
        except _Fault as fault:
            return BotReply(None, fault.fault, fault.detail, self._since(started), fault.status)
        except Exception as exc:  # whatever a bot sends must not crash the game: classify what we can
            classified = self._classify(exc, call)
            if classified.detail.startswith("unexpected"):
                log.warning("unexpected error calling %s: %r", self.url, exc, exc_info=exc)
            return BotReply(None, classified.fault, classified.detail, self._since(started))
        finally:
            _watchdog.unwatch(call)
        latency = self._since(started)
        if call.expired:  # a reply cut at the deadline can look complete (headers or body ended by the cut)
            return BotReply(None, "timeout", self._timeout_detail(), latency)
        if not data.strip():
            return BotReply(None, None, "", latency)
        try:
            parsed = json.loads(data, parse_constant=_reject_constant)
        except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
            return BotReply(None, "unparsable", "the reply is not valid JSON", latency)
        if not isinstance(parsed, dict):
            return BotReply(
                None, "unparsable", f"the reply is a JSON {type(parsed).__name__}, not an object", latency
            )
        return BotReply(parsed, None, "", latency)

    def move(self, payload: dict[str, Any]) -> BotReply:
        """:meth:`call` ``move``, where a reply without a string ``"action"`` is ``unparsable`` too."""
        reply = self.call("move", payload)
        if reply.fault is None and not (reply.body is not None and isinstance(reply.body.get("action"), str)):
            return BotReply(reply.body, "unparsable", 'the reply has no string "action"', reply.latency_ms)
        return reply

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()

    def __enter__(self) -> BotConnection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _exchange(
        self, connection: HTTPConnection, path: str, body: bytes, headers: dict[str, str], call: _Call
    ) -> bytes:
        """Send the request and read the body (at most ``max_body`` bytes), within the time left; raise
        :class:`_Fault` for a bad status or size. A connection whose reply is not read to its end is closed (the
        next request opens a new one)."""
        call.kept = connection.sock is not None
        connection.timeout = max(call.deadline - time.monotonic(), 0.001)  # every socket operation's, this attempt
        try:
            connection.request(
                "POST", path, body=body, headers=headers, preload_content=False, decode_content=False
            )
            response = connection.getresponse()
            status = response.status
            if 300 <= status < 400:
                raise _Fault("redirect", f"HTTP {status} redirect (redirects are not followed)")
            if status in REJECTED_STATUSES:
                raise _Fault(
                    "rejected", f"HTTP {status} (the signature refused)" + self._error_text(response, call), status
                )
            if not 200 <= status < 300:
                raise _Fault("status", f"HTTP {status}" + self._error_text(response, call), status)
            declared = response.headers.get("Content-Length", "")
            length = int(declared) if declared.isdigit() else None
            if length is not None and length > self.max_body:
                raise _Fault("too_large", f"the reply is over {self.max_body} bytes")
            data = self._read(response, self.max_body, call, strict=True, length=length)
            response.close()  # read to its end: the connection stays open for the next call
        except BaseException:
            connection.close()  # the rest of the reply is unread, or the connection failed
            raise
        return data

    def _read(
        self, response: BaseHTTPResponse, limit: int, call: _Call, *, strict: bool, length: int | None = None
    ) -> bytes:
        """At most ``limit`` bytes of the body; over it, a ``too_large`` fault if ``strict``, else the first
        ``limit``. The raw stream (no decompression) keeps the cap a cap. ``length``, the declared
        Content-Length (at most ``limit``), ends the body without one more read to see its end."""
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = response.read(min(65536, limit + 1 - size), decode_content=False)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                if strict:
                    raise _Fault("too_large", f"the reply is over {limit} bytes")
                return b"".join(chunks)[:limit]
            if size == length:
                return b"".join(chunks)
            if call.expired:
                raise _Fault("timeout", self._timeout_detail())

    def _error_text(self, response: BaseHTTPResponse, call: _Call) -> str:
        """``": <the start of the body>"`` of an error reply, if it comes in time; else ``""``."""
        try:
            snippet = self._read(response, _ERROR_SNIPPET, call, strict=False)
        except Exception:  # the status is the fault; its text is a courtesy
            return ""
        text = "".join(ch if ch.isprintable() else " " for ch in snippet.decode("utf-8", "replace")).strip()
        return f": {text}" if text else ""

    def _classify(self, exc: BaseException, call: _Call) -> _Fault:
        # urllib3's NewConnectionError (refused, unreachable) is a ConnectTimeoutError for history's sake: not a
        # timeout here.
        timed_out = isinstance(exc, urllib3.exceptions.TimeoutError | TimeoutError)
        if call.expired or (timed_out and not isinstance(exc, NewConnectionError)):
            return _Fault("timeout", self._timeout_detail())
        chain = _chain(exc)
        if any(isinstance(item, SSLError | ssl.SSLError | CertificateError) for item in chain):
            return _Fault("connection", "TLS failed (certificate or handshake)")
        if any(isinstance(item, ConnectionRefusedError) for item in chain):
            return _Fault("connection", "connection refused (tried again until the deadline)")
        if any(isinstance(item, ConnectionResetError | BrokenPipeError) for item in chain):
            return _Fault("connection", "the connection was reset before a reply (tried again until the deadline)")
        if any(isinstance(item, http.client.IncompleteRead) for item in chain):
            return _Fault("connection", "the reply was cut short (tried again until the deadline)")
        if any(isinstance(item, http.client.HTTPException | ProtocolError) for item in chain):
            return _Fault("connection", "the connection failed or the reply is not valid HTTP")
        if isinstance(exc, HTTPError | OSError):
            return _Fault("connection", "the connection failed")
        return _Fault("connection", f"unexpected error: {type(exc).__name__}")

    def _timeout_detail(self) -> str:
        return f"timed out after {self.timeout * 1000:.0f} ms"

    @staticmethod
    def _since(started: float) -> float:
        return round((time.perf_counter() - started) * 1000, 3)
