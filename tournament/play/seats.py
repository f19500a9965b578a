"""Who sits in each seat of a scheduled game: its bot (or a challenge's person), a push bot's connection, its faults.

A push bot's connection, signed in the bot's protocol version (``botlink/protocols.py``), is taken from the process's kept connections (:data:`KEPT`, ``botlink/keepalive.py``) when
the game starts and given back when it ends, so that the bot's next game on this worker reuses it. A push bot whose
health check is due is asked its info route before the game is created (:func:`check_health`). The game's ``start``
requests go to every push bot at once and are waited for (:func:`notify_bots`); its ``end`` requests go out without
waiting, while the game's slot goes to the next game (:func:`send_ends`).

A challenge's game (``store/challenges.py``) has a person's seat: their own account sits there, without a bot, and
the runner waits on it as on a pull bot's seat, while the person moves through the games API: the challenge's
``move_timeout_ms`` is the person's time per move (the bots' is that, up to the tournaments' limit:
:func:`store.challenges.bot_move_timeout_ms`), and the person forfeits at the second timeout in a row
(``engine.records.PERSON_FAULTS_TO_FORFEIT``), a bot at the third.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from sqlalchemy.orm import Session

from botlink import keepalive, protocols
from botlink.calls import BotConnection
from engine.gameloop import FaultCount
from engine.records import FORFEIT, PERSON_FAULTS_TO_FORFEIT
from runtime import metrics
from store.challenges import HUMAN, bot_move_timeout_ms
from store.models import now
from tournament.play import scheduled
from tournament.play.scheduled import ScheduledGame, SeatBot, TournamentSettings
from tournament.play.stalls import Stalls
from tournament.play.writes import writing

log = logging.getLogger(__name__)

REJECTED = "rejected"
"""The fault of a call whose signature the bot refused (``botlink.calls``)."""


@dataclass
class SeatState(FaultCount):
    """A seat's bot, its connection (a push bot's) and its faults (``count``: the third in a row forfeits a bot,
    the second a person); the account that holds the seat and its name (a bot's, or a challenge's person, who has
    no ``bot``)."""

    bot: SeatBot | None
    connection: BotConnection | None
    player_id: int
    name: str
    last_latency_ms: float | None = None
    excluded_at_start: bool = False
    """Excluded by its health checks when the game began: it forfeits from the start (``tournament/play/voids.py``)."""
    refused_signature: bool = False
    """A call of this game came back ``rejected`` (HTTP 401 or 403: the bot refused the service's signature)."""
    took_part: bool = False
    """A call of this game came back otherwise (a move, or a fault of another kind), or the seat moved."""
    info_passed: bool = False
    """Its health check after it refused the game's calls passed: the bot takes the service's signature, and the
    refusals were its own doing (``tournament/play/voids.py``)."""

    last_fault: str | None = None
    """The kind of its latest fault in this game (``None``: none), which a ladder's pause names."""

    def count(self, fault: str | None) -> None:
        """Count a move's fault (:meth:`FaultCount.count`), and note whether the seat refused the signature or took
        part otherwise (a ``forfeit``, played without asking, is neither), and the fault's kind."""
        super().count(fault)
        self.noted(fault)
        if fault is not None and fault != FORFEIT:
            self.last_fault = fault

    def noted(self, fault: str | None) -> None:
        """Note how one call of this game came back (a move's, or the ``start`` request's)."""
        if fault == REJECTED:
            self.refused_signature = True
        elif fault != FORFEIT:
            self.took_part = True

    def move_timeout_ms(self, tournament: TournamentSettings) -> int:
        """The seat's time per move: the tournament's, a bot's up to the tournaments' limit (a challenge's person
        may have more)."""
        if self.bot is None:
            return tournament.move_timeout_ms
        return bot_move_timeout_ms(tournament.move_timeout_ms)

    def answered(self, stalls: Stalls, fault: str | None) -> None:
        """Tell ``stalls`` how the seat's bot answered (a person's answers are no bot's stalling)."""
        if self.bot is not None:
            stalls.answered(self.bot.id, fault)


KEPT = keepalive.Kept()
"""This process's connections to push bots, kept from one game of a bot to the next."""
NOTIFIER_THREADS = ThreadPoolExecutor(4, thread_name_prefix="sorry-arena-notify")
FAREWELL_THREADS = ThreadPoolExecutor(8, thread_name_prefix="sorry-arena-end")
"""The ``end`` requests: sent once the result is saved, while the game's slot goes to the next game (a pool of its
own, so that a bot slow to take its ``end`` never delays another game's ``start``)."""


def seat_state(
    tournament: TournamentSettings,
    bot_id: int,
    bots: dict[int, SeatBot],
    person: tuple[int, str] | None,
    allow: Sequence[Any],
) -> SeatState:
    """The seat of ``bot_id`` (one of ``bots``): the bot, with a connection if it is a push bot (``allow``: the
    networks its URL may resolve to despite being private); or, at a challenge's :data:`HUMAN` seat, the tournament
    owner's own account (``person``: its id and name), played like a pull bot's seat."""
    if bot_id == HUMAN:
        assert person is not None
        return SeatState(None, None, *person, to_forfeit=PERSON_FAULTS_TO_FORFEIT)
    bot = bots[bot_id]
    connection = None
    if bot.url is not None and not bot.withheld:  # a withheld bot forfeits uncalled: no connection
        timeout = bot_move_timeout_ms(tournament.move_timeout_ms) / 1000
        connection = KEPT.take(bot.url, bot.secret, allow, timeout, bot.protocol or protocols.CURRENT)
    return SeatState(bot, connection, bot.player_id, bot.name)


def seat_states(session: Session, found: ScheduledGame, allow: Sequence[Any]) -> list[SeatState]:
    """The seats of a game, in seat order (:func:`seat_state`): its bots read in one statement."""
    tournament = found.tournament
    bots = scheduled.seat_bots(session, [bot_id for bot_id in found.bot_ids if bot_id != HUMAN])
    person = None
    if HUMAN in found.bot_ids:
        person = (tournament.owner_id, scheduled.name_of(session, tournament.owner_id))
    return [seat_state(tournament, bot_id, bots, person, allow) for bot_id in found.bot_ids]


def give_back(seats: Sequence[SeatState]) -> None:
    """Give every push bot's connection still held back to :data:`KEPT` (the game ended or stopped)."""
    for player in seats:
        if player.connection is not None:
            KEPT.give_back(player.connection)


def check_health(
    session: Session,
    bot: SeatBot,
    connection: BotConnection,
    interval: float,
    old_protocol_days: int = protocols.DEFAULT_OLD_PROTOCOL_DAYS,
) -> bool:
    """Ask the bot's info route for a nonce when its last check is older than ``interval`` seconds (or its
    protocol version is not known yet), and count the pass or failure (``scheduled.note_check``: the third failure
    in a row excludes the bot, the second pass includes it again). The nonce is asked as a registration asks it
    (``protocols.prove``: v2, then v1 if the bot refuses the signature); the version found is recorded and signs
    the game's calls, and a bot that proves itself in v1 only after its window (``old_protocol_days``) fails the
    check. Whether the bot is excluded now."""
    checked = bot.checked_at
    age = None if checked is None else (now() - checked.replace(tzinfo=checked.tzinfo or UTC)).total_seconds()
    if bot.protocol is not None and age is not None and age < interval:
        protocols.warn_once(bot.id, bot.protocol, old_protocol_days)
        return bot.excluded
    return health_check(session, bot, connection, old_protocol_days)[1]


def health_check(
    session: Session,
    bot: SeatBot,
    connection: BotConnection,
    old_protocol_days: int = protocols.DEFAULT_OLD_PROTOCOL_DAYS,
) -> tuple[bool, bool]:
    """Ask the bot's info route for a nonce now and count the pass or failure (:func:`check_health`): whether it
    passed, and whether the bot is excluded now."""
    nonce = secrets.token_hex(16)
    payload = {"type": "info", "nonce": nonce}
    proof = protocols.prove(lambda version: connection.call("info", payload, protocol=version), nonce)
    passed = proof.protocol is not None and protocols.accepted(proof.protocol, old_protocol_days)
    reason = None if passed else failure(proof, old_protocol_days)
    with writing(session):
        excluded = scheduled.note_check(session, bot.id, passed, now(), reason)
        if proof.protocol is not None and proof.protocol != bot.protocol:
            scheduled.note_protocol(session, bot.id, proof.protocol)
        session.commit()
    if proof.protocol is not None:
        connection.protocol = proof.protocol
        protocols.warn_once(bot.id, proof.protocol, old_protocol_days)
    if reason is not None:
        log.info("bot %s failed its health check: %s", bot.id, reason)
    if excluded != bot.excluded:
        change = "excluded" if excluded else "included"
        metrics.child(metrics.HEALTH_CHANGES, change).inc()
        if excluded:
            log.warning(
                "bot %s excluded: its health checks failed (last: %s); its games are void until it passes two",
                bot.id,
                reason,
            )
        else:
            log.info("bot %s included again: its health checks pass", bot.id)
    return passed, excluded


def failure(proof: protocols.Proof, old_protocol_days: int) -> str:
    """Why a health check failed, in words the bot's owner can act on (never the bot's reply: only its kind of
    fault)."""
    if proof.protocol is not None:
        return protocols.refusal(old_protocol_days)
    if proof.signature_rejected:
        return protocols.SIGNATURE_REJECTED
    if proof.fault == "nonce":
        return "the bot's info route did not send back the nonce it was sent"
    return f"the bot's info route failed: {proof.fault} (docs/bot-protocol.md, Faults)"


def notify_bots(seats: Sequence[SeatState], route: str, request: Callable[[int], dict[str, Any]]) -> None:
    """Send every push bot its seat's ``request`` (``start``), all at once, and wait for their answers (which do
    not matter, nor do their faults, but whether the bot refused the signature: :meth:`SeatState.noted`)."""
    calls = [
        (player, NOTIFIER_THREADS.submit(player.connection.call, route, request(seat)))
        for seat, player in enumerate(seats)
        if player.connection is not None
    ]
    for player, call in calls:
        player.noted(call.result().fault)


def farewell(connection: BotConnection, payload: dict[str, Any]) -> None:
    try:
        connection.call("end", payload)
    finally:
        KEPT.give_back(connection)


def send_ends(seats: Sequence[SeatState], request: Callable[[int], dict[str, Any]]) -> None:
    """Send every push bot its seat's ``end`` ``request`` without waiting: each connection is handed over, and
    kept for the bot's next game after its call (:data:`KEPT`)."""
    for seat, player in enumerate(seats):
        if player.connection is not None:
            FAREWELL_THREADS.submit(farewell, player.connection, request(seat))
            player.connection = None
