"""Sealed text (service/sealing.py): opened with its key only; another key, or an altered text, opens nothing."""

from __future__ import annotations

import base64

from service import sealing


def test_sealed_text_opens_with_its_key_only() -> None:
    key = sealing.derive("the-token", "the-idempotency-key")
    text = '{"token": "shown once", "name": "caf\u00e9"}' * 40
    sealed = sealing.seal(key, text)
    assert "shown once" not in sealed and sealing.unseal(key, sealed) == text
    assert sealing.seal(key, text) != sealed  # a nonce per seal
    assert sealing.unseal(sealing.derive("another-token", "the-idempotency-key"), sealed) is None
    assert sealing.unseal(sealing.derive("the-token", "another-key"), sealed) is None
    raw = bytearray(base64.b64decode(sealed))
    raw[20] ^= 1
    assert sealing.unseal(key, base64.b64encode(bytes(raw)).decode()) is None
    assert sealing.unseal(key, "not base64!") is None and sealing.unseal(key, "") is None
    assert sealing.unseal(key, sealing.seal(key, "")) == ""
