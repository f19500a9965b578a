"""botlink.signing and the bot authors' clients/signature.py: one test vector (also in docs/bot-protocol.md,
checked there too), tampering with the body, the method, the path, the timestamp or the request id, wrong secrets,
stale timestamps, malformed headers, on both sides; and the bot side's refusal of a replayed request."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from botlink import signing
from clients import signature

SECRET = "s3cret"
TIMESTAMP = 1700000000
REQUEST_ID = "0123456789abcdef0123456789abcdef"
PATH = "/bot/info"
BODY = b'{"type":"info","nonce":"8f14e45fceea167a"}'
EXPECTED = "v2=e40190da32b910d7be912846796a2f13cc7c1cc0c9248f4fab0da0df738297b7"
"""HMAC-SHA256("s3cret", b"1700000000\\n" + REQUEST_ID + b"\\nPOST\\n/bot/info\\n" + BODY), as
`printf '%s\\n%s\\n%s\\n%s\\n%s' 1700000000 <id> POST /bot/info '<body>' | openssl dgst -sha256 -hmac s3cret`
computes it."""
DOC = Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.md"

Verify = Callable[[str, str, str, dict[str, str], bytes, float], bool]


def signed(
    timestamp: str | None = str(TIMESTAMP), request_id: str | None = REQUEST_ID, sig: str | None = EXPECTED
):
    values = {
        signing.TIMESTAMP_HEADER: timestamp,
        signing.REQUEST_ID_HEADER: request_id,
        signing.SIGNATURE_HEADER: sig,
    }
    return {name: value for name, value in values.items() if value is not None}


def verify_service_side(
    secret: str, method: str, path: str, headers: dict[str, str], body: bytes, now: float
) -> bool:
    return signing.verify(secret, method, path, headers, body, now=now)


def verify_bot_side(secret: str, method: str, path: str, headers: dict[str, str], body: bytes, now: float) -> bool:
    return signature.verify(secret, method, path, headers, body, now=now)


BOTH = pytest.mark.parametrize("verify", [verify_service_side, verify_bot_side], ids=["service", "clients"])


def test_the_test_vector() -> None:
    assert signing.sign(SECRET, TIMESTAMP, REQUEST_ID, "POST", PATH, BODY) == EXPECTED


def test_the_protocol_document_shows_the_test_vector() -> None:
    text = DOC.read_text(encoding="utf-8")
    for shown in (EXPECTED, BODY.decode(), str(TIMESTAMP), REQUEST_ID, PATH):
        assert shown in text, shown


def test_headers_carry_the_timestamp_a_fresh_request_id_and_the_signature() -> None:
    headers = signing.headers(SECRET, "POST", PATH, BODY, now=TIMESTAMP + 0.9, request_id=REQUEST_ID)
    assert headers == {**signed(), signing.PROTOCOL_HEADER: "2"}
    assert signing.verify(SECRET, "POST", PATH, headers, BODY, now=TIMESTAMP)
    ids = {signing.headers(SECRET, "POST", PATH, BODY)[signing.REQUEST_ID_HEADER] for _ in range(50)}
    assert len(ids) == 50 and all(len(found) == 32 for found in ids)


def _request_id_in_child(results: Any) -> None:
    results.put(signing.headers(SECRET, "POST", PATH, BODY)[signing.REQUEST_ID_HEADER])


def test_request_ids_are_hex_and_new_in_a_forked_process() -> None:
    """Every id is 32 lowercase hex digits; a forked worker draws its own random half, so its ids are not its
    parent's, whatever either has counted."""
    parent = [signing.headers(SECRET, "POST", PATH, BODY)[signing.REQUEST_ID_HEADER] for _ in range(3)]
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_request_id_in_child, args=(results,))
    child.start()
    forked = results.get(timeout=10)
    child.join(10)
    for found in [*parent, forked]:
        assert len(found) == 32 and set(found) <= set("0123456789abcdef")
    assert len({found[:16] for found in parent}) == 1 and forked[:16] != parent[0][:16]
    assert signature.verify(SECRET, "POST", PATH, signing.headers(SECRET, "POST", PATH, BODY), BODY)


def test_header_names_are_case_insensitive() -> None:
    headers = {name.upper(): value for name, value in signed().items()}
    assert signing.verify(SECRET, "POST", PATH, headers, BODY, now=TIMESTAMP)
    assert signature.verify(SECRET, "POST", PATH, headers, BODY, now=TIMESTAMP)


def test_a_fresh_signature_verifies_with_the_current_clock() -> None:
    headers = signing.headers(SECRET, "POST", PATH, BODY)
    assert signing.verify(SECRET, "POST", PATH, headers, BODY)
    assert signature.verify(SECRET, "POST", PATH, headers, BODY)


@BOTH
def test_the_vector_verifies(verify: Verify) -> None:
    assert verify(SECRET, "POST", PATH, signed(), BODY, TIMESTAMP)


@BOTH
@pytest.mark.parametrize("body", [BODY + b" ", BODY.replace(b"8f", b"9f"), b"", BODY[:-1]])
def test_a_tampered_body_fails(verify: Verify, body: bytes) -> None:
    assert not verify(SECRET, "POST", PATH, signed(), body, TIMESTAMP)


@BOTH
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/bot/move"),
        ("POST", "/bot/start"),
        ("POST", "/other/info"),
        ("POST", "/bot/info/"),
        ("GET", PATH),
    ],
)
def test_a_request_sent_to_another_route_or_with_another_method_fails(
    verify: Verify, method: str, path: str
) -> None:
    assert not verify(SECRET, method, path, signed(), BODY, TIMESTAMP)


@BOTH
@pytest.mark.parametrize("secret", ["s3cre", "S3cret", "s3cret ", ""])
def test_a_wrong_secret_fails(verify: Verify, secret: str) -> None:
    assert not verify(secret, "POST", PATH, signed(), BODY, TIMESTAMP)


@BOTH
def test_the_timestamp_and_the_request_id_are_signed(verify: Verify) -> None:
    assert not verify(SECRET, "POST", PATH, signed(timestamp=str(TIMESTAMP + 1)), BODY, TIMESTAMP)
    assert not verify(SECRET, "POST", PATH, signed(request_id="f" * 32), BODY, TIMESTAMP)


@BOTH
@pytest.mark.parametrize("skew", [-300, 0, 300])
def test_a_clock_within_300_seconds_passes(verify: Verify, skew: int) -> None:
    assert verify(SECRET, "POST", PATH, signed(), BODY, TIMESTAMP + skew)


@BOTH
@pytest.mark.parametrize("skew", [-301, 301, 86_400, -TIMESTAMP])
def test_an_old_or_future_timestamp_fails(verify: Verify, skew: int) -> None:
    assert not verify(SECRET, "POST", PATH, signed(), BODY, TIMESTAMP + skew)


@BOTH
@pytest.mark.parametrize(
    ("timestamp", "request_id", "sig"),
    [
        (None, REQUEST_ID, EXPECTED),
        (str(TIMESTAMP), None, EXPECTED),
        (str(TIMESTAMP), REQUEST_ID, None),
        ("", REQUEST_ID, EXPECTED),
        ("1700000000.0", REQUEST_ID, EXPECTED),
        ("-1700000000", REQUEST_ID, EXPECTED),
        ("1e9", REQUEST_ID, EXPECTED),
        ("１７００００００００", REQUEST_ID, EXPECTED),  # full-width digits: isdigit() but not ASCII
        ("9" * 5000, REQUEST_ID, EXPECTED),
        (str(TIMESTAMP), REQUEST_ID.upper(), EXPECTED),
        (str(TIMESTAMP), REQUEST_ID[:-1], EXPECTED),
        (str(TIMESTAMP), REQUEST_ID + "\n", EXPECTED),
        (str(TIMESTAMP), "é" * 32, EXPECTED),
        (str(TIMESTAMP), REQUEST_ID, EXPECTED[3:]),  # no scheme
        (str(TIMESTAMP), REQUEST_ID, "v1=" + EXPECTED[3:]),
        (str(TIMESTAMP), REQUEST_ID, "v2="),
        (str(TIMESTAMP), REQUEST_ID, EXPECTED.upper()),
        (str(TIMESTAMP), REQUEST_ID, EXPECTED[:-1]),
        (str(TIMESTAMP), REQUEST_ID, EXPECTED + "00"),
        (str(TIMESTAMP), REQUEST_ID, EXPECTED[:-1] + "é"),  # non-ASCII must not make compare_digest raise
        (str(TIMESTAMP), REQUEST_ID, "garbage"),
    ],
)
def test_malformed_headers_fail_without_raising(
    verify: Verify, timestamp: str | None, request_id: str | None, sig: str | None
) -> None:
    assert not verify(SECRET, "POST", PATH, signed(timestamp, request_id, sig), BODY, TIMESTAMP)


@BOTH
def test_a_path_with_a_line_feed_fails(verify: Verify) -> None:
    headers = signing.headers(SECRET, "POST", "/bot\n/info", BODY, now=TIMESTAMP)
    assert not verify(SECRET, "POST", "/bot\n/info", headers, BODY, TIMESTAMP)


def test_a_non_ascii_secret_is_utf8() -> None:
    headers = signing.headers("clé", "POST", PATH, BODY, now=TIMESTAMP)
    assert signature.verify("clé", "POST", PATH, headers, BODY, now=TIMESTAMP)
    assert not signature.verify("cle", "POST", PATH, headers, BODY, now=TIMESTAMP)


def test_the_bot_side_refuses_a_replayed_request() -> None:
    verifier = signature.Verifier(SECRET)
    assert verifier.check("POST", PATH, signed(), BODY, now=TIMESTAMP)
    assert not verifier.check("POST", PATH, signed(), BODY, now=TIMESTAMP + 1), "the same request id again"
    other = signing.headers(SECRET, "POST", PATH, BODY, now=TIMESTAMP)
    assert verifier.check("POST", PATH, other, BODY, now=TIMESTAMP + 1), (
        "a new id for the same body: a new request"
    )
    assert not verifier.check("POST", PATH, signed(), BODY, now=TIMESTAMP + 301), (
        "stale, and forgotten: still refused"
    )


def test_the_replay_memory_forgets_only_ids_whose_timestamps_went_stale() -> None:
    verifier = signature.Verifier(SECRET)
    for second in range(3000):  # past the first pruning, one request a second
        headers = signing.headers(SECRET, "POST", PATH, BODY, now=TIMESTAMP + second)
        assert verifier.check("POST", PATH, headers, BODY, now=TIMESTAMP + second)
        if second == 2900:
            kept = headers
    assert len(verifier._seen) <= 2 * 1024
    assert not verifier.check("POST", PATH, kept, BODY, now=TIMESTAMP + 2999), "recent ids are remembered"
