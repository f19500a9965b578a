"""Check that a request to your bot really comes from the sorry-arena service (standard library only).

The service signs each request with the secret it showed you when you registered the bot::

    X-Sorry-Arena-Timestamp: 1700000000                   (unix seconds)
    X-Sorry-Arena-Signature: v1=<hex HMAC-SHA256 of b"1700000000." + the raw request body>

Recompute the signature over the exact bytes you received, compare in constant time, and refuse a timestamp more
than five minutes from your clock, so that an old request cannot be replayed. ``push.py`` does this for you.
"""

from __future__ import annotations

import hashlib
import hmac
import time

TIMESTAMP_HEADER = "X-Sorry-Arena-Timestamp"
SIGNATURE_HEADER = "X-Sorry-Arena-Signature"
MAX_CLOCK_SKEW_S = 300


def verify(
    secret: str, timestamp: str | None, signature: str | None, body: bytes, *, now: float | None = None
) -> bool:
    """True if ``signature`` is this ``body``'s signature at ``timestamp`` and the timestamp is recent."""
    if not timestamp or not signature or not signature.isascii():
        return False
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 12):
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > MAX_CLOCK_SKEW_S:
        return False
    signed = timestamp.encode() + b"." + body
    expected = "v1=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), signature.encode())
