"""Signatures on the service's requests to push bots (docs/bot-protocol.md, "Signatures").

Every request to a bot carries three headers::

    X-Sorry-Arena-Timestamp: 1700000000
    X-Sorry-Arena-Request-Id: 0123456789abcdef0123456789abcdef
    X-Sorry-Arena-Signature: v2=<hex HMAC-SHA256(secret, message)>

where the message is the timestamp, the request id, the method and the path (the request target exactly as sent,
``/bot/move``), each followed by a line feed, then the raw body bytes. The signature binds a body to its route (a
captured ``start`` cannot be replayed as a ``move``, nor a request to one bot's path on another), and to a moment
and a request id: a bot refuses a timestamp more than 300 s from its clock and an id it has already seen within
that window, so a captured request cannot be replayed at all. Each attempt of a call is signed afresh, with an id of
its own. The bot compares in constant time. ``clients/signature.py`` is the bot side, written independently so that
a bot author can copy it away; the two must agree on the test vector in the protocol document.

Every request also says the protocol version it is signed in (``X-Sorry-Arena-Protocol: 2``). The previous
release's scheme, ``v1``, is kept for the bots on its client while its deprecation window lasts
(``botlink/protocols.py``): two headers, the timestamp and ``v1=<hex HMAC-SHA256(secret, b"<timestamp>." + raw
body)>``, with no request id, method or path (so a captured v1 request can be replayed within the 300 s).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import os
import secrets
import time
from collections.abc import Mapping

TIMESTAMP_HEADER = "X-Sorry-Arena-Timestamp"
REQUEST_ID_HEADER = "X-Sorry-Arena-Request-Id"
SIGNATURE_HEADER = "X-Sorry-Arena-Signature"
PROTOCOL_HEADER = "X-Sorry-Arena-Protocol"
SCHEME = "v2"
SCHEME_V1 = "v1"
"""The previous release's scheme (protocol 1), deprecated: :func:`sign_v1`."""
TOLERANCE_S = 300
"""How far (seconds, either way) a request's timestamp may be from the verifier's clock."""
_MAX_TIMESTAMP_DIGITS = 12
"""Unix seconds have 10 digits until the year 2286; a longer header is junk, not a time."""
_REQUEST_ID_CHARACTERS = frozenset("0123456789abcdef")


_count = itertools.count()
_process_half = secrets.token_hex(8)


def _draw_process_half() -> None:
    global _process_half
    _process_half = secrets.token_hex(8)


os.register_at_fork(after_in_child=_draw_process_half)  # a forked worker's ids are its own


def fresh_request_id() -> str:
    """A request id no other request has: 16 hex digits drawn at random once per process, then this process's
    count of ids in 16 more. No system call per id (a random id per request costs one, which gives up the
    interpreter's lock); the id need only be new, since the signature, not the id, is what cannot be guessed."""
    return f"{_process_half}{next(_count):016x}"


def message(timestamp: str, request_id: str, method: str, path: str, body: bytes) -> bytes:
    """What is signed: ``timestamp``, ``request_id``, ``method`` and ``path``, each ended by a line feed, then the
    body (a path holds no line feed, so no two requests share a message)."""
    return f"{timestamp}\n{request_id}\n{method}\n{path}\n".encode() + body


def _mac(secret: str, signed: bytes) -> str:
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def sign(secret: str, timestamp: int, request_id: str, method: str, path: str, body: bytes) -> str:
    """The signature header's value: ``"v2=<hex>"``."""
    return f"{SCHEME}={_mac(secret, message(str(int(timestamp)), request_id, method, path, body))}"


def sign_v1(secret: str, timestamp: int, body: bytes) -> str:
    """The deprecated protocol 1 signature header's value: ``"v1=<hex HMAC-SHA256(secret, b"<timestamp>." +
    body)>"``."""
    return f"{SCHEME_V1}={_mac(secret, str(int(timestamp)).encode('ascii') + b'.' + body)}"


def headers(
    secret: str,
    method: str,
    path: str,
    body: bytes,
    now: float | None = None,
    request_id: str | None = None,
    protocol: int = 2,
) -> dict[str, str]:
    """The signature headers of a request in ``protocol`` (2, or the deprecated 1), timestamped ``now`` (default:
    the current time), with the protocol header. Protocol 2 has a fresh request id (:func:`fresh_request_id`)
    unless one is given; protocol 1 has none (its signature covers the timestamp and the body only)."""
    timestamp = int(time.time() if now is None else now)
    if protocol == 1:
        return {
            TIMESTAMP_HEADER: str(timestamp),
            SIGNATURE_HEADER: sign_v1(secret, timestamp, body),
            PROTOCOL_HEADER: "1",
        }
    request_id = request_id or fresh_request_id()
    return {
        TIMESTAMP_HEADER: str(timestamp),
        REQUEST_ID_HEADER: request_id,
        SIGNATURE_HEADER: sign(secret, timestamp, request_id, method, path, body),
        PROTOCOL_HEADER: "2",
    }


def _header(values: Mapping[str, str], name: str) -> str | None:
    """``values[name]``, with header names compared case-insensitively as HTTP does."""
    if name in values:
        return values[name]
    wanted = name.lower()
    return next((value for key, value in values.items() if key.lower() == wanted), None)


def verify(
    secret: str,
    method: str,
    path: str,
    request_headers: Mapping[str, str],
    body: bytes,
    now: float | None = None,
    tolerance: float = TOLERANCE_S,
) -> bool:
    """Whether this request (``method``, ``path``, ``body``) was signed with ``secret`` at a time within
    ``tolerance`` seconds of ``now``. Header names are case-insensitive. A missing, malformed or stale header is
    ``False``, never an exception. (Refusing a request id seen before is the bot's: ``clients/signature.py``.)"""
    timestamp = _header(request_headers, TIMESTAMP_HEADER)
    request_id = _header(request_headers, REQUEST_ID_HEADER)
    signature = _header(request_headers, SIGNATURE_HEADER)
    if timestamp is None or request_id is None or signature is None:
        return False
    timestamp = timestamp.strip()
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= _MAX_TIMESTAMP_DIGITS):
        return False
    if not (len(request_id) == 32 and set(request_id) <= _REQUEST_ID_CHARACTERS):
        return False
    clock = time.time() if now is None else now
    if abs(clock - int(timestamp)) > tolerance:
        return False
    scheme, _, digest = signature.strip().partition("=")
    if scheme != SCHEME or not digest.isascii() or "\n" in path:
        return False
    expected = _mac(secret, message(timestamp, request_id, method, path, body))
    return hmac.compare_digest(expected.encode("ascii"), digest.encode("ascii"))


def verify_v1(
    secret: str,
    request_headers: Mapping[str, str],
    body: bytes,
    now: float | None = None,
    tolerance: float = TOLERANCE_S,
) -> bool:
    """Whether ``body`` was signed in the deprecated protocol 1 with ``secret`` at a time within ``tolerance``
    seconds of ``now``, as the previous release's client checked it. A missing, malformed or stale header is
    ``False``, never an exception."""
    timestamp = _header(request_headers, TIMESTAMP_HEADER)
    signature = _header(request_headers, SIGNATURE_HEADER)
    if timestamp is None or signature is None:
        return False
    timestamp = timestamp.strip()
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= _MAX_TIMESTAMP_DIGITS):
        return False
    clock = time.time() if now is None else now
    if abs(clock - int(timestamp)) > tolerance:
        return False
    scheme, _, digest = signature.strip().partition("=")
    if scheme != SCHEME_V1 or not digest.isascii():
        return False
    expected = _mac(secret, timestamp.encode("ascii") + b"." + body)
    return hmac.compare_digest(expected.encode("ascii"), digest.encode("ascii"))
