"""The deprecated protocol v1 signature (``botlink.signing.sign_v1``/``verify_v1``) against its test vector (also in
docs/bot-protocol.md) and against the old client's own check (``tests/oldbot.py``), and the negotiation
(``botlink.protocols``): the newest common version, the retry in v1 of a bot that refuses a v2 signature, the
window and the owner's texts, which never quote a bot's reply; the version header of every request, on a real
loopback bot server."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from botlink import protocols, signing
from botlink.calls import BotReply
from botlink.keepalive import Kept
from botlink.netguard import parse_allowlist
from clients import signature
from tests import oldbot
from tests.botservers import BotServer, reply

SECRET = "s3cret"
TIMESTAMP = 1700000000
BODY = b'{"type":"info","nonce":"8f14e45fceea167a"}'
EXPECTED_V1 = "v1=c9f42ed399e15cd485e50ff6dd39d87ceb352223af27d54f65ff14495baf29ac"
"""HMAC-SHA256("s3cret", b"1700000000." + BODY), as
`printf '%s.%s' 1700000000 '<body>' | openssl dgst -sha256 -hmac s3cret` computes it."""
LOOPBACK = parse_allowlist("loopback")
DOC = Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.md"


def test_the_v1_test_vector() -> None:
    assert signing.sign_v1(SECRET, TIMESTAMP, BODY) == EXPECTED_V1


def test_the_protocol_document_shows_the_v1_test_vector() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert EXPECTED_V1 in text
    assert BODY.decode() in text


def test_v1_headers_verify_on_both_sides_and_say_their_version() -> None:
    headers = signing.headers(SECRET, "POST", "/bot/info", BODY, now=TIMESTAMP + 0.5, protocol=1)
    assert headers == {
        signing.TIMESTAMP_HEADER: str(TIMESTAMP),
        signing.SIGNATURE_HEADER: EXPECTED_V1,
        signing.PROTOCOL_HEADER: "1",
    }
    assert signing.verify_v1(SECRET, headers, BODY, now=TIMESTAMP)
    assert not signing.verify(SECRET, "POST", "/bot/info", headers, BODY, now=TIMESTAMP), "v1 is not v2"
    # the reference client (0.2) refuses v1: a bot on it is never signed v1, whoever answers 401 on its way
    assert not signature.verify(SECRET, "POST", "/bot/info", headers, BODY, now=TIMESTAMP)
    v2 = signing.headers(SECRET, "POST", "/bot/info", BODY, now=TIMESTAMP)
    assert v2[signing.PROTOCOL_HEADER] == "2"
    assert not signing.verify_v1(SECRET, v2, BODY, now=TIMESTAMP), "v2 is not v1"


def test_v1_refuses_tampering_stale_and_malformed() -> None:
    good = {signing.TIMESTAMP_HEADER: str(TIMESTAMP), signing.SIGNATURE_HEADER: EXPECTED_V1}
    assert signing.verify_v1(SECRET, {key.lower(): value for key, value in good.items()}, BODY, now=TIMESTAMP)
    assert not signing.verify_v1(SECRET, good, BODY + b" ", now=TIMESTAMP)
    assert not signing.verify_v1("other", good, BODY, now=TIMESTAMP)
    assert not signing.verify_v1(SECRET, good, BODY, now=TIMESTAMP + 301)
    assert not signing.verify_v1(
        SECRET, {**good, signing.TIMESTAMP_HEADER: str(TIMESTAMP + 1)}, BODY, now=TIMESTAMP
    )
    assert not signing.verify_v1(SECRET, {**good, signing.TIMESTAMP_HEADER: "17e8"}, BODY, now=TIMESTAMP)
    assert not signing.verify_v1(SECRET, {**good, signing.SIGNATURE_HEADER: "v2" + EXPECTED_V1[2:]}, BODY)
    assert not signing.verify_v1(SECRET, {signing.TIMESTAMP_HEADER: str(TIMESTAMP)}, BODY, now=TIMESTAMP)


def test_the_old_client_accepts_what_the_service_signs_in_v1() -> None:
    headers = signing.headers(SECRET, "POST", "/bot/move", BODY, protocol=1)
    stamp, signature = headers[signing.TIMESTAMP_HEADER], headers[signing.SIGNATURE_HEADER]
    assert oldbot.verify_v1(SECRET, stamp, signature, BODY)
    v2 = signing.headers(SECRET, "POST", "/bot/move", BODY)
    assert not oldbot.verify_v1(SECRET, v2[signing.TIMESTAMP_HEADER], v2[signing.SIGNATURE_HEADER], BODY)


def answer(nonce: str, **extra: object) -> BotReply:
    return BotReply({"nonce": nonce, **extra}, None, "", 1.0)


REFUSED = BotReply(None, "rejected", "HTTP 401: bad or missing signature", 1.0, 401)


def asker(*replies: BotReply) -> tuple[list[int], object]:
    asked: list[int] = []
    queue = list(replies)

    def ask(version: int) -> BotReply:
        asked.append(version)
        return queue.pop(0)

    return asked, ask


def test_a_bot_that_refuses_v2_is_asked_again_in_v1_and_recorded_so() -> None:
    asked, ask = asker(REFUSED, answer("n"))
    assert protocols.prove(ask, "n") == protocols.Proof(1)  # type: ignore[arg-type]
    assert asked == [2, 1]


def test_a_current_bot_is_asked_once_and_the_newest_common_version_kept() -> None:
    asked, ask = asker(answer("n", protocols=[2, 7]))
    assert protocols.prove(ask, "n") == protocols.Proof(2)  # type: ignore[arg-type]
    assert asked == [2]
    asked, ask = asker(answer("n"))  # a 0.1 client of this branch: v2, no list
    assert protocols.prove(ask, "n").protocol == 2  # type: ignore[arg-type]
    asked, ask = asker(answer("n", protocols=[9]))
    proof = protocols.prove(ask, "n")  # type: ignore[arg-type]
    assert proof.protocol is None and proof.fault == "protocol"


def test_a_signature_refused_in_both_versions_is_said_so_without_quoting_the_bot() -> None:
    asked, ask = asker(REFUSED, REFUSED)
    proof = protocols.prove(ask, "n")  # type: ignore[arg-type]
    assert proof.protocol is None and proof.signature_rejected and asked == [2, 1]
    assert "bad or missing" not in protocols.SIGNATURE_REJECTED
    asked, ask = asker(BotReply(None, "status", "HTTP 500", 1.0, 500))
    proof = protocols.prove(ask, "n")  # type: ignore[arg-type]
    assert proof.protocol is None and not proof.signature_rejected and asked == [2], "only a refusal is retried"
    asked, ask = asker(answer("other"))
    assert protocols.prove(ask, "n").fault == "nonce"  # type: ignore[arg-type]


def test_the_window_of_v1() -> None:
    assert protocols.old_until(90) == date(2027, 2, 27)
    assert protocols.accepted(1, 90, date(2027, 2, 26))
    assert not protocols.accepted(1, 90, date(2027, 2, 27))
    assert not protocols.accepted(1, 0, protocols.INTRODUCED)
    assert protocols.accepted(2, 0, date(2100, 1, 1))
    assert protocols.warning(2, 90) is None and protocols.warning(None, 90) is None
    told = protocols.warning(1, 90, date(2026, 12, 1))
    assert told is not None and "2027-02-27" in told and "0.2" in told
    assert protocols.warning(1, 0, protocols.INTRODUCED) == protocols.refusal(0)
    assert "2026-11-29" in protocols.refusal(0)
    assert protocols.newest_common([1, 2]) == 2 and protocols.newest_common([1]) == 1
    assert protocols.newest_common("2") is None and protocols.newest_common([True, "2", 3]) is None


def test_every_request_says_its_version_and_a_kept_connection_takes_the_bots() -> None:
    kept = Kept()
    with BotServer(reply({"action": "a"})) as server:
        connection = kept.take(server.url(), SECRET, LOOPBACK, 1.0, protocol=1)
        assert connection.move({"type": "move"}).ok
        assert connection.call("info", {"type": "info", "nonce": "n"}, protocol=2).ok  # one call in another
        kept.give_back(connection)
        again = kept.take(server.url(), SECRET, LOOPBACK, 1.0, protocol=2)  # its bot upgraded meanwhile
        assert again is connection and again.protocol == 2
        assert again.move({"type": "move"}).ok
        kept.close()
    v1, asked, v2 = server.received
    assert v1.headers[signing.PROTOCOL_HEADER] == "1" and signing.REQUEST_ID_HEADER not in v1.headers
    assert signing.verify_v1(SECRET, v1.headers, v1.body)
    for request in (asked, v2):
        assert request.headers[signing.PROTOCOL_HEADER] == "2"
        assert signing.verify(SECRET, "POST", request.path, request.headers, request.body)
