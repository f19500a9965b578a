"""Sealed text: what the service keeps for a client but must not be readable from the database alone (an
idempotency key's response holds a new bot's token and secret, shown once), sealed with a key derived from what
only the client holds (its bearer token, which the database keeps hashed) and opened only with it.

The construction is the standard library's: HMAC-SHA256 as the pseudo-random function of a counter-mode key stream
(a random 16-byte nonce per seal) and as the tag over the nonce and the ciphertext (encrypt-then-MAC), each from its
own key derived from the sealing key. A tag that does not match opens nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

NONCE = 16
TAG = 32


def derive(secret: str, context: str) -> bytes:
    """The sealing key of ``context`` (an idempotency key, say) under ``secret`` (the client's bearer token)."""
    return hmac.new(secret.encode(), b"sorry-arena sealing\0" + context.encode(), hashlib.sha256).digest()


def _stream(key: bytes, nonce: bytes, size: int) -> bytes:
    blocks = (size + 31) // 32
    return b"".join(hmac.new(key, nonce + n.to_bytes(8, "big"), hashlib.sha256).digest() for n in range(blocks))


def _xor(data: bytes, stream: bytes) -> bytes:
    size = len(data)
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream[:size], "big")).to_bytes(size, "big")


def _keys(key: bytes) -> tuple[bytes, bytes]:
    return hmac.new(key, b"encrypt", hashlib.sha256).digest(), hmac.new(
        key, b"authenticate", hashlib.sha256
    ).digest()


def seal(key: bytes, text: str) -> str:
    """``text`` sealed with ``key``, as ASCII."""
    encrypting, authenticating = _keys(key)
    plain = text.encode()
    nonce = os.urandom(NONCE)
    cipher = _xor(plain, _stream(encrypting, nonce, len(plain)))
    tag = hmac.new(authenticating, nonce + cipher, hashlib.sha256).digest()
    return base64.b64encode(nonce + cipher + tag).decode("ascii")


def unseal(key: bytes, sealed: str) -> str | None:
    """The text ``sealed`` with ``key``; ``None`` when ``key`` is not the one (or the text was altered)."""
    try:
        raw = base64.b64decode(sealed.encode("ascii"), validate=True)
    except ValueError:
        return None
    if len(raw) < NONCE + TAG:
        return None
    nonce, cipher, tag = raw[:NONCE], raw[NONCE:-TAG], raw[-TAG:]
    encrypting, authenticating = _keys(key)
    if not hmac.compare_digest(tag, hmac.new(authenticating, nonce + cipher, hashlib.sha256).digest()):
        return None
    return _xor(cipher, _stream(encrypting, nonce, len(cipher))).decode()
