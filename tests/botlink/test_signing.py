"""botlink.signing and the bot authors' clients/signature.py: one test vector (also in docs/bot-protocol.md,
checked there too), tampering, wrong secrets, stale timestamps and malformed headers, on both sides."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from botlink import signing
from clients import signature

SECRET = "s3cret"
TIMESTAMP = 1700000000
BODY = b'{"type":"info","nonce":"8f14e45fceea167a"}'
EXPECTED = "v1=c9f42ed399e15cd485e50ff6dd39d87ceb352223af27d54f65ff14495baf29ac"
"""HMAC-SHA256("s3cret", b"1700000000." + BODY), as `openssl dgst -sha256 -hmac s3cret` computes it."""
DOC = Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.md"

Verifier = Callable[[str, str | None, str | None, bytes, float], bool]


def verify_service_side(secret: str, timestamp: str | None, sig: str | None, body: bytes, now: float) -> bool:
    return signing.verify(secret, (timestamp, sig), body, now=now)


def verify_bot_side(secret: str, timestamp: str | None, sig: str | None, body: bytes, now: float) -> bool:
    return signature.verify(secret, timestamp, sig, body, now=now)


BOTH = pytest.mark.parametrize("verify", [verify_service_side, verify_bot_side], ids=["service", "clients"])


def test_the_test_vector() -> None:
    assert signing.sign(SECRET, TIMESTAMP, BODY) == EXPECTED


def test_the_protocol_document_shows_the_test_vector() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert EXPECTED in text and BODY.decode() in text and str(TIMESTAMP) in text


def test_headers_carry_the_timestamp_and_its_signature() -> None:
    headers = signing.headers(SECRET, BODY, now=TIMESTAMP + 0.9)
    assert headers == {"X-Sorry-Arena-Timestamp": str(TIMESTAMP), "X-Sorry-Arena-Signature": EXPECTED}
    assert signing.verify(SECRET, headers, BODY, now=TIMESTAMP)


def test_header_names_are_case_insensitive() -> None:
    headers = {"x-sorry-arena-timestamp": str(TIMESTAMP), "X-SORRY-ARENA-SIGNATURE": EXPECTED}
    assert signing.verify(SECRET, headers, BODY, now=TIMESTAMP)


def test_missing_headers_fail() -> None:
    assert not signing.verify(SECRET, {}, BODY, now=TIMESTAMP)
    assert not signing.verify(SECRET, {"X-Sorry-Arena-Signature": EXPECTED}, BODY, now=TIMESTAMP)


def test_a_fresh_signature_verifies_with_the_current_clock() -> None:
    headers = signing.headers(SECRET, BODY)
    assert signing.verify(SECRET, headers, BODY)
    values = (headers[signing.TIMESTAMP_HEADER], headers[signing.SIGNATURE_HEADER])
    assert signature.verify(SECRET, *values, BODY)


@BOTH
def test_the_vector_verifies(verify: Verifier) -> None:
    assert verify(SECRET, str(TIMESTAMP), EXPECTED, BODY, TIMESTAMP)


@BOTH
@pytest.mark.parametrize("body", [BODY + b" ", BODY.replace(b"8f", b"9f"), b"", BODY[:-1]])
def test_a_tampered_body_fails(verify: Verifier, body: bytes) -> None:
    assert not verify(SECRET, str(TIMESTAMP), EXPECTED, body, TIMESTAMP)


@BOTH
@pytest.mark.parametrize("secret", ["s3cre", "S3cret", "s3cret ", ""])
def test_a_wrong_secret_fails(verify: Verifier, secret: str) -> None:
    assert not verify(secret, str(TIMESTAMP), EXPECTED, BODY, TIMESTAMP)


@BOTH
def test_the_timestamp_is_signed(verify: Verifier) -> None:
    assert not verify(SECRET, str(TIMESTAMP + 1), EXPECTED, BODY, TIMESTAMP)


@BOTH
@pytest.mark.parametrize("skew", [-300, 0, 300])
def test_a_clock_within_300_seconds_passes(verify: Verifier, skew: int) -> None:
    assert verify(SECRET, str(TIMESTAMP), EXPECTED, BODY, TIMESTAMP + skew)


@BOTH
@pytest.mark.parametrize("skew", [-301, 301, 86_400, -TIMESTAMP])
def test_an_old_or_future_timestamp_fails(verify: Verifier, skew: int) -> None:
    assert not verify(SECRET, str(TIMESTAMP), EXPECTED, BODY, TIMESTAMP + skew)


@BOTH
@pytest.mark.parametrize(
    ("timestamp", "sig"),
    [
        (None, EXPECTED),
        (str(TIMESTAMP), None),
        ("", EXPECTED),
        ("1700000000.0", EXPECTED),
        ("-1700000000", EXPECTED),
        ("1e9", EXPECTED),
        ("１７００００００００", EXPECTED),  # full-width digits: isdigit() but not ASCII
        ("9" * 5000, EXPECTED),
        (str(TIMESTAMP), EXPECTED[3:]),  # no scheme
        (str(TIMESTAMP), "v2=" + EXPECTED[3:]),
        (str(TIMESTAMP), "v1="),
        (str(TIMESTAMP), EXPECTED.upper()),
        (str(TIMESTAMP), EXPECTED[:-1]),
        (str(TIMESTAMP), EXPECTED + "00"),
        (str(TIMESTAMP), EXPECTED[:-1] + "é"),  # non-ASCII must not make compare_digest raise
        (str(TIMESTAMP), "garbage"),
    ],
)
def test_malformed_headers_fail_without_raising(verify: Verifier, timestamp: str | None, sig: str | None) -> None:
    assert not verify(SECRET, timestamp, sig, BODY, TIMESTAMP)


def test_a_non_ascii_secret_is_utf8() -> None:
    signed = signing.sign("clé", TIMESTAMP, BODY)
    assert signature.verify("clé", str(TIMESTAMP), signed, BODY, now=TIMESTAMP)
    assert not signature.verify("cle", str(TIMESTAMP), signed, BODY, now=TIMESTAMP)
