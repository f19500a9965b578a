"""Check that a request to your bot really comes from the sorry-arena service, once (standard library only).

The service signs each request with the secret it showed you when you registered the bot::

    X-Sorry-Arena-Timestamp: 1700000000                   (unix seconds)
    X-Sorry-Arena-Request-Id: 0123456789abcdef0123456789abcdef
    X-Sorry-Arena-Signature: v2=<hex HMAC-SHA256 of b"1700000000\\n<request id>\\nPOST\\n/bot/move\\n" + the raw body>

Recompute the signature over the method, the path as received and the exact body bytes, compare in constant time,
refuse a timestamp more than five minutes from your clock and a request id you have seen in those five minutes: so
a request cannot be replayed, nor sent to another route. :class:`Verifier` does all of it; ``push.py`` uses one.

This is protocol version 2, the reference client's since 0.2 (each request says its version in
``X-Sorry-Arena-Protocol``, and ``push.py``'s ``info`` answers ``"protocols": [2]``). The clients before 0.2 checked
version 1 (``v1=<hex HMAC-SHA256 of b"1700000000." + the raw body>``, no request id, method or path), deprecated: the
service still signs v1 for a bot that refuses v2 until the end of its window (docs/bot-protocol.md, "Protocol
versions"). To upgrade such a bot, install this client (0.2 or later) and restart the bot with the same secret: its
next health check, before its next game, records protocol 2, and its owner's warning goes.

While a secret is rotated (docs/bots.md, "Rotating the secret") the bot accepts its new secret and the old ones:
``Verifier(new, previous=[old])`` checks a signature against each (a request id is still good once, whichever
secret signed it).
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections.abc import Iterable, Mapping

TIMESTAMP_HEADER = "X-Sorry-Arena-Timestamp"
REQUEST_ID_HEADER = "X-Sorry-Arena-Request-Id"
SIGNATURE_HEADER = "X-Sorry-Arena-Signature"
MAX_CLOCK_SKEW_S = 300
HEADERS = (TIMESTAMP_HEADER, REQUEST_ID_HEADER, SIGNATURE_HEADER)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None:  # a plain dict: compare the names without case, as HTTP does
        value = next((found for key, found in headers.items() if key.lower() == name.lower()), None)
    return value


PROTOCOL_HEADER = "X-Sorry-Arena-Protocol"
PROTOCOL = "2"
"""The protocol version whose signature is checked here."""


def refusal(
    secret: str, method: str, path: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None
) -> str | None:
    """Why the headers do not sign this method, path and body with ``secret`` recently, in words for the bot's log
    (``None``: they do; the request id is not checked for replays here: :class:`Verifier` does)."""
    protocol = _header(headers, PROTOCOL_HEADER)
    timestamp = _header(headers, TIMESTAMP_HEADER)
    request_id = _header(headers, REQUEST_ID_HEADER)
    signature = _header(headers, SIGNATURE_HEADER)
    if protocol is not None and protocol != PROTOCOL:
        return f"unknown protocol version {protocol[:20]!r} (this client checks version {PROTOCOL})"
    if not timestamp or not request_id or not signature or not signature.isascii():
        missing = [
            name for name, value in zip(HEADERS, (timestamp, request_id, signature), strict=True) if not value
        ]
        return f"not signed: no {', '.join(missing)} header" if missing else "a signature that is not ASCII"
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 12):
        return f"a timestamp that is not unix seconds: {timestamp[:20]!r}"
    if not (len(request_id) == 32 and all(character in "0123456789abcdef" for character in request_id)):
        return "a request id that is not 32 hex digits"
    if "\n" in path:
        return "a path with a line break"
    skew = (time.time() if now is None else now) - int(timestamp)
    if abs(skew) > MAX_CLOCK_SKEW_S:
        return (
            f"stale timestamp: {abs(skew):.0f} s {'behind' if skew > 0 else 'ahead of'} this machine's clock "
            f"(at most {MAX_CLOCK_SKEW_S} s: check both clocks)"
        )
    signed = f"{timestamp}\n{request_id}\n{method}\n{path}\n".encode() + body
    expected = "v2=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), signature.encode()):
        return "wrong secret: the signature does not match (start the bot with the secret it was registered with)"
    return None


def verify(
    secret: str, method: str, path: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None
) -> bool:
    """True if the headers sign this method, path and body with ``secret`` and the timestamp is recent (the request
    id is not checked for replays here: :class:`Verifier` does)."""
    return refusal(secret, method, path, headers, body, now=now) is None


class Verifier:
    """Checks signatures and refuses replays: a request id is accepted once while its timestamp is recent (an id
    older than the clock skew is forgotten, since its timestamp is refused from then on anyway).

    ``secret`` is the bot's secret; ``previous`` the secrets it still accepts during a rotation (the service signs
    with the old one until its owner has registered the new one, and the games begun before with the old one until
    they end). Both may be changed while requests are checked; the request ids seen are kept."""

    def __init__(self, secret: str, previous: Iterable[str] = ()) -> None:
        self.secret = secret
        self.previous = tuple(previous)
        self._seen: dict[str, int] = {}
        """Request ids accepted, with their timestamps."""
        self._prune_at = 1024
        """The size at which the ids too old to matter are dropped (then twice the size left)."""
        self._lock = threading.Lock()

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every secret accepted: the bot's own first, then the previous ones."""
        return (self.secret, *self.previous)

    def check(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None
    ) -> bool:
        """Whether the request is signed with one of the secrets, recently, and its id not seen before."""
        return self.refusal(method, path, headers, body, now=now) is None

    def refusal(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None
    ) -> str | None:
        """Why the request is refused, in words (``None``: it is accepted, and its id is seen from now on): as
        :func:`refusal` says for the bot's own secret, or ``replayed request id``."""
        clock = time.time() if now is None else now
        reasons = [refusal(secret, method, path, headers, body, now=clock) for secret in self.secrets]
        if all(reasons):
            return reasons[0]
        request_id = str(_header(headers, REQUEST_ID_HEADER))
        with self._lock:
            if len(self._seen) >= self._prune_at:
                self._seen = {
                    seen: stamp for seen, stamp in self._seen.items() if clock - stamp <= MAX_CLOCK_SKEW_S
                }
                self._prune_at = max(1024, 2 * len(self._seen))
            if request_id in self._seen:
                return "replayed request id: a request with this id was accepted already"
            self._seen[request_id] = int(str(_header(headers, TIMESTAMP_HEADER)))
        return None
