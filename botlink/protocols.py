"""The versions of the push protocol, how the service finds the one a bot speaks, and the deprecation of version 1
(docs/bot-protocol.md, "Protocol versions").

Version 2 (this release) signs the timestamp, a request id, the method, the path and the body (``botlink/signing.py``);
version 1 (the previous release's client) signed the timestamp and the body only. Every request says its version
(``X-Sorry-Arena-Protocol``), and a bot's ``info`` reply lists the versions it speaks (``"protocols": [2]``); the
service signs in the newest version both know. A bot whose ``info`` lists none (a client older than 0.2) is found by
trying (:func:`prove`): its nonce is asked signed v2, and if the bot refuses the signature (401 or 403), signed v1
again; the version it proves itself in is recorded on the bot and its calls are signed in it from then on.

Version 1 is accepted for a window counted from :data:`INTRODUCED`, the day this release brought the negotiation
(``SORRY_ARENA_OLD_PROTOCOL_DAYS``, default 90, :func:`old_until`); after it a bot that proves itself only in v1 is
refused at registration and fails its health checks, with :func:`refusal`'s message. The texts an owner reads are
here, once: they never quote what the bot answered (its reply to an arbitrary URL is not ours to echo).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from botlink.calls import BotReply

log = logging.getLogger(__name__)

CURRENT = 2
"""The newest version, the service's own (and the reference client's since 0.2)."""
OLD = 1
"""The deprecated version of the clients before 0.2."""
SPOKEN = (OLD, CURRENT)
"""Every version the service signs in."""
INTRODUCED = date(2026, 11, 29)
"""The day this release introduced the negotiation: version 1's window is counted from it."""
DEFAULT_OLD_PROTOCOL_DAYS = 90


def old_until(days: int) -> date:
    """The first day version 1 is refused (``days`` after :data:`INTRODUCED`)."""
    return INTRODUCED + timedelta(days=days)


def today() -> date:
    return datetime.now(UTC).date()


def accepted(protocol: int, days: int, on: date | None = None) -> bool:
    """Whether a bot speaking ``protocol`` may play ``on`` that day (default: today, UTC)."""
    return protocol >= CURRENT or (on or today()) < old_until(days)


def newest_common(listed: Any) -> int | None:
    """The newest version of an ``info`` reply's ``protocols`` that the service speaks; ``None`` when the reply
    lists none it knows (a malformed list counts as none)."""
    if not isinstance(listed, list):
        return None
    known = [item for item in listed if type(item) is int and item in SPOKEN]
    return max(known, default=None)


def warning(protocol: int | None, days: int, on: date | None = None) -> str | None:
    """What the owner of a bot speaking ``protocol`` is told (``None``: nothing, it speaks the current one)."""
    if protocol is None or protocol >= CURRENT:
        return None
    if accepted(protocol, days, on):
        return (
            f"this bot speaks protocol v{protocol} (a client older than 0.2), deprecated: it plays until "
            f"{old_until(days - 1).isoformat()} included, and is refused from {old_until(days).isoformat()}; "
            "upgrade the bot's client to 0.2 or later (protocol v2, docs/bots.md): its next health check records "
            "the new protocol"
        )
    return refusal(days)


def refusal(days: int) -> str:
    """Why a bot that proves itself only in version 1 is refused after the window."""
    return (
        f"the bot speaks protocol v1 only (a client older than 0.2), refused since {old_until(days).isoformat()}: "
        "upgrade the bot's client to 0.2 or later (protocol v2, docs/bots.md)"
    )


SIGNATURE_REJECTED = (
    "the bot rejected our signature (HTTP 401 or 403, signed in protocol v2 and in v1): check that it runs with "
    "the bot's secret, the one registered; the reference client since 0.2 speaks protocol v2, older ones v1 (docs/bots.md)"
)
"""Why a proof failed when the bot refused the signature in every version (a wrong secret, most likely)."""


@dataclass(frozen=True)
class Proof:
    """What asking a bot for its nonce found: the version it proved itself in (``None``: it did not), else the
    last fault and its detail (for the operator's log: the detail may quote the bot), and whether the bot refused
    the signature of every version."""

    protocol: int | None
    fault: str | None = None
    detail: str = ""
    signature_rejected: bool = False
    info: dict[str, Any] | None = field(default=None, compare=False)
    """The bot's ``info`` reply, when it proved itself."""


def _proved(reply: BotReply, nonce: str) -> bool:
    return reply.fault is None and reply.body is not None and reply.body.get("nonce") == nonce


def _refused_signature(reply: BotReply) -> bool:
    return reply.fault == "rejected"  # a 401 or 403 (botlink.calls.REJECTED_STATUSES)


def prove(ask: Callable[[int], BotReply], nonce: str) -> Proof:
    """Ask the bot for ``nonce`` through ``ask(version)`` (its ``info`` route with the nonce, signed in that
    version): first in v2; a bot that refuses the signature is asked again in v1. The version recorded is the one
    it answered in, or, when it answered v2 and its reply lists its versions, the newest both speak."""
    reply = ask(CURRENT)
    tried = CURRENT
    if _refused_signature(reply):
        reply = ask(OLD)
        tried = OLD
        if _refused_signature(reply):
            return Proof(None, reply.fault, reply.detail, signature_rejected=True)
    if not _proved(reply, nonce):
        return Proof(None, reply.fault or "nonce", reply.detail or "the reply did not hold the nonce it was sent")
    assert reply.body is not None
    listed = reply.body.get("protocols")
    if listed is None or tried == OLD:
        return Proof(tried, info=reply.body)
    common = newest_common(listed)
    if common is None:
        return Proof(None, "protocol", "the bot lists no protocol version this service speaks")
    return Proof(common, info=reply.body)


_warned: set[int] = set()
_warned_lock = threading.Lock()


def warn_once(bot_id: int, protocol: int | None, days: int) -> None:
    """Log, once per bot in this process, that the bot speaks a deprecated version (and until when)."""
    if protocol is None or protocol >= CURRENT:
        return
    with _warned_lock:
        if bot_id in _warned:
            return
        _warned.add(bot_id)
    log.warning("bot %s: %s", bot_id, warning(protocol, days))
