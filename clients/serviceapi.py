"""The sorry-arena REST API as the pull client speaks it (standard library only): one keep-alive HTTP/1.1
connection with the bot's token (:class:`Api`), the service's clock learnt from its answers (:class:`ServiceClock`),
and the errors that stop a run (:class:`PullError`, :class:`Unauthorized`) or pause it (:class:`Retry`).

The service's URL is its base URL (``http://127.0.0.1:8000``, or with a path prefix behind a proxy); a trailing
``/api/v1`` (or ``/api/v1/``) is dropped, as ``sorry-arena tournament`` does, since the client adds it."""

from __future__ import annotations

import http.client
import json
import math
import threading
import time
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

API = "/api/v1"
MAX_REPLY_BYTES = 8 << 20


class PullError(Exception):
    """A fatal error: the client cannot go on (wrong URL, wrong token)."""


class Unauthorized(PullError):
    """The service refused the token (401)."""


class Retry(Exception):
    """A passing failure (network error, 5xx, 429): try again after a pause."""


class ServiceClock:
    """The service's clock as the client can know it: the client's own clock, corrected only as far as the
    service's ``Date`` headers prove it wrong.

    A ``Date`` header counts whole seconds and was stamped between the request's sending and the answer's arrival,
    so each answer bounds the offset (service clock - client clock): ``date - received <= offset < date + 1 -
    sent``. The bounds of the answers so far are intersected (and start again from the latest answer when they
    contradict it: a clock was set). The offset used is 0 while the bounds allow it (clocks kept by NTP: the
    deadline is then as exact as they are), else the bound nearest 0: within a second at first, closer as answers
    come in."""

    def __init__(self) -> None:
        self.low = -math.inf
        self.high = math.inf
        self._lock = threading.Lock()

    def observe(self, date: str | None, sent: float, received: float) -> None:
        """Learn from one answer's ``Date`` header (``sent``, ``received``: the client's ``time.time()``)."""
        if not date:
            return
        try:
            stamped = parsedate_to_datetime(date).timestamp()
        except (TypeError, ValueError, OverflowError):
            return
        low, high = stamped - received, stamped + 1 - sent
        with self._lock:  # the connections of a run's threads share the clock
            if low > self.high or high < self.low:
                self.low, self.high = low, high
            else:
                self.low, self.high = max(self.low, low), min(self.high, high)

    def offset(self) -> float:
        """Seconds to add to the client's clock to read the service's."""
        with self._lock:
            return min(max(0.0, self.low), self.high)

    def now(self) -> float:
        """The service's time now (seconds since the epoch)."""
        return time.time() + self.offset()


class Api:
    """One keep-alive HTTP/1.1 connection to the service, with the bot's token."""

    def __init__(self, url: str, token: str, timeout: float = 45.0, clock: ServiceClock | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the service URL must be http(s)://host[:port][/path], not {url!r}")
        if parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError(f"the service URL must have no query, fragment or user, not {url!r}")
        _ = parts.port  # raises ValueError for a port that is not a number from 0 to 65535
        self.url = base_url(url)
        self.scheme, self.netloc = parts.scheme, parts.netloc
        self.prefix = base_url(parts.path)
        self.token = token
        self.timeout = timeout
        self.clock = clock or ServiceClock()
        """The service's clock, learnt from its answers' ``Date`` headers (shared by the connections of a run)."""
        self._connection: http.client.HTTPConnection | None = None

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
            self._connection = kind(self.netloc, timeout=timeout)
        elif self._connection.sock is not None:
            self._connection.sock.settimeout(timeout)
        self._connection.timeout = timeout
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def call(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> tuple[int, Any]:
        """The status and JSON body (``None`` if not JSON) of one request. A connection that the server closed
        while idle is reopened once at once; other network errors raise :class:`Retry`."""
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            reused = self._connection is not None and self._connection.sock is not None
            connection = self._connect(timeout or self.timeout)
            try:
                sent = time.time()
                connection.request(method, self.prefix + path, body=data, headers=headers)
                response = connection.getresponse()
                self.clock.observe(response.getheader("Date"), sent, time.time())
                raw = response.read(MAX_REPLY_BYTES + 1)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as error:
                self.close()
                if reused and attempt == 0:
                    continue  # the server closed the idle keep-alive connection: a fresh one, at once
                raise Retry(f"cannot reach the service at {self.url}: {describe(error)}") from None
            except (OSError, http.client.HTTPException) as error:
                self.close()
                raise Retry(f"cannot reach the service at {self.url}: {describe(error)}") from None
            if response.will_close:
                self.close()
            try:
                reply = json.loads(raw) if len(raw) <= MAX_REPLY_BYTES else None
            except ValueError:
                reply = None
            return response.status, reply
        raise AssertionError("unreachable")


def base_url(url: str) -> str:
    """``url`` without a trailing ``/``, ``/api/v1`` or ``/api/v1/`` (the client adds ``/api/v1`` itself)."""
    return url.rstrip("/").removesuffix(API).rstrip("/")


def describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def message_of(reply: Any) -> str:
    """The service's error message (errors share one shape: ``{"code", "status", "message"}``)."""
    if isinstance(reply, dict) and isinstance(reply.get("message"), str):
        return str(reply["message"])
    return "no message"
