"""Calling a push bot over HTTP: signed requests, hard deadlines, capped replies, faults instead of exceptions.

One :class:`BotConnection` per bot per game (STYLE.md: one ``requests.Session`` per match, explicit timeouts,
capped response size, no redirects). Its :meth:`BotConnection.call` never raises for anything the bot does; it
returns a :class:`BotReply` whose ``fault`` is one of :data:`FAULTS` (docs/bot-protocol.md, "Faults"):

- ``timeout``: no complete reply within the timeout (default 1 s), measured from the start of the call to the
  last byte of the body -- a bot that trickles its headers or streams an endless body is cut off at the deadline;
- ``connection``: the name does not resolve, the connection is refused or reset, TLS fails, the reply is not HTTP;
- ``status``: a status other than 2xx or 3xx; ``redirect``: a 3xx (never followed);
- ``too_large``: a body over ``max_body`` bytes (64 KiB), read no further;
- ``unparsable``: a non-empty body that is not a JSON object (an empty body is no body, and no fault);
- ``refused``: the URL is malformed or leads to a refused address (:mod:`service.netguard`).

An illegal action is a fault too, but the caller judges legality.

The URL is resolved and checked once, when the connection is made (a DNS look-up can block for seconds, past any
deadline): a refusal, or a name that did not resolve then, is the fault of every call; the constructor does not
raise for either. Every call goes to the address checked (the URL's host is replaced by the IP literal; the Host
header, TLS SNI and the certificate check keep the original name), so a second DNS answer cannot redirect the
service after the check.

Deadlines: requests' own timeouts bound each socket operation, not a whole reply, so one daemon thread (the
:class:`_Watchdog`) shuts down the socket of any call still running at its deadline, which wakes the blocked read.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from service import netguard, signing

log = logging.getLogger(__name__)

FAULTS = ("timeout", "connection", "status", "unparsable", "too_large", "redirect", "refused")
DEFAULT_TIMEOUT_S = 1.0
DEFAULT_MAX_BODY = 64 * 1024
_ERROR_SNIPPET = 120
"""How many characters of a non-2xx body to quote in the fault's detail (a bot's own error message helps its
author)."""


@dataclass(frozen=True, slots=True)
class BotReply:
    """What one call to a bot gave: its JSON body, or the fault and a short human-readable detail."""

    body: dict[str, Any] | None
    fault: str | None
    """``None``, or one of :data:`FAULTS`."""
    detail: str
    latency_ms: float
    """From the start of the call to the last byte of the reply (or to the fault)."""

    @property
    def ok(self) -> bool:
        return self.fault is None


class _Call:
    """One call in flight: its deadline and, once known, the connection it uses."""

    __slots__ = ("connection", "deadline", "expired")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.connection: HTTPConnection | None = None
        self.expired = False


def _cut(connection: HTTPConnection | None) -> None:
    sock = None if connection is None else connection.sock
    if sock is not None:
        # socket.socket's own shutdown, not SSLSocket's (which drops its TLS state first): the blocked reader sees
        # end-of-file at once.
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Watchdog:
    """A daemon thread that cuts the connection of every call still running at its deadline.

    It looks every ``TICK`` seconds rather than being woken per call: a wake-up per call would cost a thread
    switch, and the GIL, on every move. A deadline is thus enforced within ``TICK`` (requests' own socket
    timeouts end ordinary slow calls on time; this catches a bot that trickles bytes)."""

    TICK = 0.05

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """Start afresh: also in a forked child (an RQ worker's job), which has the lock but not the thread."""
        self._lock = threading.Condition()
        self._calls: set[_Call] = set()
        self._thread: threading.Thread | None = None

    def watch(self, call: _Call) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="botcall-watchdog", daemon=True)
                self._thread.start()
            self._calls.add(call)

    def unwatch(self, call: _Call) -> None:
        with self._lock:
            self._calls.discard(call)

    def attach(self, call: _Call, connection: HTTPConnection) -> None:
        """Record the connection a call uses; cut it at once if the call is already past its deadline."""
        with self._lock:
            call.connection = connection
            if call.expired:
                _cut(connection)

    def _run(self) -> None:
        with self._lock:
            while True:
                now = time.monotonic()
                for call in [call for call in self._calls if call.deadline <= now]:
                    self._calls.discard(call)
                    call.expired = True
                    _cut(call.connection)
                self._lock.wait(self.TICK)


_watchdog = _Watchdog()
os.register_at_fork(after_in_child=_watchdog._reset)
_current = threading.local()
"""The :class:`_Call` of this thread, for the connection classes below to attach themselves to."""


class _WatchedMixin:
    """Tell the watchdog which connection the current call uses, before connecting and before each request."""

    def connect(self) -> None:
        self._attach()
        super().connect()  # type: ignore[misc]
        self._attach()  # the socket exists now: cut it at once if the deadline passed while connecting

    def request(self, *args: Any, **kwargs: Any) -> None:
        self._attach()
        super().request(*args, **kwargs)  # type: ignore[misc]

    def _attach(self) -> None:
        call: _Call | None = getattr(_current, "call", None)
        if call is not None:
            assert isinstance(self, HTTPConnection)
            _watchdog.attach(call, self)


class _WatchedHTTPConnection(_WatchedMixin, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_WatchedMixin, HTTPSConnection):
    pass


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


class _PinnedAdapter(HTTPAdapter):
    """One connection to one bot, with watched connections and, for https, the certificate and SNI checked
    against the URL's host name although the URL names the resolved IP address."""

    def __init__(self, hostname: str) -> None:
        self._hostname = hostname  # before super().__init__, which builds the pool manager
        super().__init__(pool_connections=1, pool_maxsize=1, max_retries=0)

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
        # urllib3 drops these TLS keywords for plain http pools.
        pool_kwargs.update(server_hostname=self._hostname, assert_hostname=self._hostname)
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class _Session(requests.Session):
    """A session that sees no redirect: requests would otherwise read a 3xx's whole body, uncapped, to prepare
    the redirect it does not follow."""

    def get_redirect_target(self, resp: requests.Response) -> None:
        return None


class _Fault(Exception):
    def __init__(self, fault: str, detail: str) -> None:
        super().__init__(detail)
        self.fault = fault
        self.detail = detail


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class BotConnection:
    """Calls to one push bot for one game (or match): one HTTP session, one resolved address, one secret.

    ``allow`` is the allowlist (:func:`service.netguard.parse_allowlist`). ``ca_bundle`` replaces the system's
    certificate authorities for https (a private CA, or a test's). One call at a time: a connection is not shared
    between threads.
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
    ) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        if max_body < 0:
            raise ValueError(f"max_body must not be negative, got {max_body!r}")
        self.url = url
        self.timeout = float(timeout)
        self.max_body = max_body
        self._secret = secret
        self._allow = tuple(allow)
        self._ca_bundle = ca_bundle
        self.target: netguard.Target | None = None
        self.refusal: str | None = None
        """Why the URL is refused (every call is then a ``refused`` fault), or ``None``."""
        self._unresolved = ""
        self._session: requests.Session | None = None
        self._resolve()

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
        session = _Session()
        session.trust_env = False  # no proxies or .netrc from the environment (and 1.1-1.4x faster)
        session.proxies = {}
        session.headers.update(
            {"User-Agent": "sorry-arena", "Accept": "application/json", "Accept-Encoding": "identity"}
        )
        if self._ca_bundle is not None:
            session.verify = self._ca_bundle
        adapter = _PinnedAdapter(self.target.host)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        self._session = session

    def call(self, route: str, payload: dict[str, Any]) -> BotReply:
        """POST ``payload`` as JSON to ``{base}/{route}``, signed; the reply's JSON object, or a fault."""
        started = time.perf_counter()
        if self.refusal is not None:
            return BotReply(None, "refused", self.refusal, 0.0)
        if self.target is None or self._session is None:
            return BotReply(None, "connection", self._unresolved, 0.0)
        body = json.dumps(payload, separators=(",", ":"), allow_nan=False).encode("utf-8")
        headers = {
            "Content-Type": "application/json",
            "Host": self.target.host_header,
            **signing.headers(self._secret, body),
        }
        call = _Call(time.monotonic() + self.timeout)
        _watchdog.watch(call)
        _current.call = call
        try:
            data = self._exchange(self._session, self.target.url_for(route), body, headers, call)
        except _Fault as fault:
            return BotReply(None, fault.fault, fault.detail, self._since(started))
        except Exception as exc:  # whatever a bot sends must not crash the game: classify what we can
            classified = self._classify(exc, call)
            if classified.detail.startswith("unexpected"):
                log.warning("unexpected error calling %s: %r", self.url, exc, exc_info=exc)
            return BotReply(None, classified.fault, classified.detail, self._since(started))
        finally:
            _current.call = None
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
        if self._session is not None:
            self._session.close()

    def __enter__(self) -> BotConnection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _exchange(
        self, session: requests.Session, url: str, body: bytes, headers: dict[str, str], call: _Call
    ) -> bytes:
        """Send the request and read the body (at most ``max_body`` bytes); raise :class:`_Fault` for a bad
        status or size."""
        response = session.post(
            url,
            data=body,
            headers=headers,
            timeout=(self.timeout, self.timeout),
            allow_redirects=False,
            stream=True,
        )
        try:
            status = response.status_code
            if 300 <= status < 400:
                raise _Fault("redirect", f"HTTP {status} redirect (redirects are not followed)")
            if not 200 <= status < 300:
                raise _Fault("status", f"HTTP {status}" + self._error_text(response, call))
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > self.max_body:
                raise _Fault("too_large", f"the reply is over {self.max_body} bytes")
            return self._read(response, self.max_body, call, strict=True)
        except BaseException:
            response.close()  # drop the connection: the rest of its body is unread
            raise

    def _read(self, response: requests.Response, limit: int, call: _Call, *, strict: bool) -> bytes:
        """At most ``limit`` bytes of the body; over it, a ``too_large`` fault if ``strict``, else the first
        ``limit``. The raw stream (no decompression) keeps the cap a cap."""
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = response.raw.read(min(65536, limit + 1 - size), decode_content=False)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                if strict:
                    raise _Fault("too_large", f"the reply is over {limit} bytes")
                return b"".join(chunks)[:limit]
            if call.expired:
                raise _Fault("timeout", self._timeout_detail())

    def _error_text(self, response: requests.Response, call: _Call) -> str:
        """``": <the start of the body>"`` of an error reply, if it comes in time; else ``""``."""
        try:
            snippet = self._read(response, _ERROR_SNIPPET, call, strict=False)
        except Exception:  # the status is the fault; its text is a courtesy
            return ""
        text = "".join(ch if ch.isprintable() else " " for ch in snippet.decode("utf-8", "replace")).strip()
        return f": {text}" if text else ""

    def _classify(self, exc: BaseException, call: _Call) -> _Fault:
        if call.expired or isinstance(exc, requests.Timeout | urllib3.exceptions.TimeoutError | TimeoutError):
            return _Fault("timeout", self._timeout_detail())
        if isinstance(exc, requests.exceptions.SSLError):
            return _Fault("connection", "TLS failed (certificate or handshake)")
        chain: list[BaseException] = [exc]  # the exception and its causes, as requests wraps urllib3 wraps OSError
        while len(chain) < 10 and (chain[-1].__cause__ or chain[-1].__context__) is not None:
            chain.append(chain[-1].__cause__ or chain[-1].__context__)  # type: ignore[arg-type]
        if any(isinstance(item, ConnectionRefusedError) for item in chain):
            return _Fault("connection", "connection refused")
        if any(isinstance(item, http.client.HTTPException | urllib3.exceptions.ProtocolError) for item in chain):
            return _Fault("connection", "the connection failed or the reply is not valid HTTP")
        if isinstance(exc, requests.RequestException | urllib3.exceptions.HTTPError | OSError):
            return _Fault("connection", "the connection failed")
        return _Fault("connection", f"unexpected error: {type(exc).__name__}")

    def _timeout_detail(self) -> str:
        return f"timed out after {self.timeout * 1000:.0f} ms"

    @staticmethod
    def _since(started: float) -> float:
        return round((time.perf_counter() - started) * 1000, 3)
