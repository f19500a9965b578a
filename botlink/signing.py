"""Signatures on the service's requests to push bots (docs/bot-protocol.md, "Signatures").

Every request to a bot carries two headers::

    X-Sorry-Arena-Timestamp: 1700000000
    X-Sorry-Arena-Signature: v1=<hex HMAC-SHA256(secret, b"1700000000" + b"." + raw body bytes)>

The timestamp is signed with the body so that a captured request cannot be replayed later than the tolerance
(300 s); the bot compares in constant time. ``clients/signature.py`` is the bot side, written independently so
that a bot author can copy it away; the two must agree on the test vector in the protocol document.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping

TIMESTAMP_HEADER = "X-Sorry-Arena-Timestamp"
SIGNATURE_HEADER = "X-Sorry-Arena-Signature"
SCHEME = "v1"
TOLERANCE_S = 300
"""How far (seconds, either way) a request's timestamp may be from the verifier's clock."""
_MAX_TIMESTAMP_DIGITS = 12
"""Unix seconds have 10 digits until the year 2286; a longer header is junk, not a time."""


def _mac(secret: str, timestamp: str, body: bytes) -> str:
    message = timestamp.encode("ascii") + b"." + body
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The signature header's value for ``body`` sent at ``timestamp`` (unix seconds): ``"v1=<hex>"``."""
    return f"{SCHEME}={_mac(secret, str(int(timestamp)), body)}"


def headers(secret: str, body: bytes, now: float | None = None) -> dict[str, str]:
    """The two signature headers for ``body``, timestamped ``now`` (default: the current time)."""
    timestamp = int(time.time() if now is None else now)
    return {TIMESTAMP_HEADER: str(timestamp), SIGNATURE_HEADER: sign(secret, timestamp, body)}


def _header(values: Mapping[str, str], name: str) -> str | None:
    """``values[name]``, with header names compared case-insensitively as HTTP does."""
    if name in values:
        return values[name]
    wanted = name.lower()
    return next((value for key, value in values.items() if key.lower() == wanted), None)


def verify(
    secret: str,
    headers_or_values: Mapping[str, str] | tuple[str | None, str | None],
    body: bytes,
    now: float | None = None,
    tolerance: float = TOLERANCE_S,
) -> bool:
    """Whether ``body`` was signed with ``secret`` at a time within ``tolerance`` seconds of ``now``.

    ``headers_or_values`` is the request's headers (any mapping; names are case-insensitive) or the pair
    ``(timestamp, signature)`` of header values. A missing, malformed or stale header is ``False``, never an
    exception.
    """
    if isinstance(headers_or_values, tuple):
        timestamp, signature = headers_or_values
    else:
        timestamp = _header(headers_or_values, TIMESTAMP_HEADER)
        signature = _header(headers_or_values, SIGNATURE_HEADER)
    if timestamp is None or signature is None:
        return False
    timestamp = timestamp.strip()
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= _MAX_TIMESTAMP_DIGITS):
        return False
    clock = time.time() if now is None else now
    if abs(clock - int(timestamp)) > tolerance:
        return False
    scheme, _, digest = signature.strip().partition("=")
    if scheme != SCHEME or not digest.isascii():
        return False
    return hmac.compare_digest(_mac(secret, timestamp, body).encode("ascii"), digest.encode("ascii"))
