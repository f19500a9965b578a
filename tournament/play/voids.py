"""Void games: a game that a seat forfeited for a reason on the service's side is not rated.

A forfeit is the bot's own doing when it times out, errs (a 5xx or any other status), answers junk or an illegal
move: that stays a rated forfeit. It is the service's side when the seat never played because of the service, and
then the game is **void**: it ends and keeps its record, its result row carries the reason
(``results.void_reason``) and is not rated, and no consumer counts it (the pool's running state and fit, the
tournament's table, a match's test, the bots' tallies of results: docs/ratings.md, "Void games"). The reasons:

- :data:`EXCLUDED`: a push bot excluded by its health checks when the game began (``seats.check_health``), which
  forfeits from the start without being asked;
- :data:`REJECTED`: a push bot that refused the service's signature (``rejected``, HTTP 401 or 403: a wrong secret
  or a protocol it does not speak) on every call of the game, from its ``start`` request on, and forfeited so, and
  whose health check, asked at once (:func:`confirm`, counted as any check), fails too. A bot that took any call of
  the game otherwise (a move, or any other fault) and then refused the signature, or whose info route takes the
  signature the game's calls were refused with, forfeits rated: refusing cannot undo a game the bot sees going
  badly, nor one whose opponents (named in ``start``) it would rather not meet.

A bot paused by its owner, or whose account the operator disabled, also forfeits from the start: that is its
owner's (or the operator's) doing, and stays rated. The service's outages do not forfeit push bots: a game whose
database fails waits and goes on from its last save (``tournament/dispatch/playing.py``), and one whose worker died
or stopped is taken over from its last save (``tournament/dispatch/recovery.py``). A pull bot, though, cannot move
while the API is down and its worker still plays: its timeouts then are not told apart from a slow bot's, and rated.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from store.models import VOID_REASONS
from tournament.play.seats import SeatState, health_check

EXCLUDED, REJECTED = VOID_REASONS


def cause(player: SeatState) -> str | None:
    """Why the seat's forfeit voids the game, or ``None`` (it did not forfeit, or forfeited by its own doing)."""
    if not player.forfeited:
        return None
    if player.excluded_at_start:
        return EXCLUDED
    if player.refused_signature and player.faults and not (player.took_part or player.info_passed):
        return REJECTED  # forfeited by its refused moves (its every fault a refusal), having taken no call
    return None


def reason(seats: Sequence[SeatState]) -> str | None:
    """The game's void reason: its first seat's whose forfeit voids it (:func:`cause`), or ``None``: it is rated."""
    for player in seats:
        found = cause(player)
        if found is not None:
            return found
    return None


def resumed(seats: Sequence[SeatState]) -> None:
    """After a resumed game's faults were recounted from its saved moves: a seat forfeited from the start without a
    call (every saved move of it a ``forfeit``), and whose bot is not withheld, was excluded at the start."""
    for player in seats:
        if player.forfeited and not (player.refused_signature or player.took_part):
            player.excluded_at_start = player.bot is not None and not player.bot.withheld


def confirm(session: Session, seats: Sequence[SeatState], old_protocol_days: int) -> None:
    """At the game's end: ask the health check of every push bot whose refusals of the signature would void the
    game (:func:`cause`), at once and counted as any check. One that passes took the signature after all: its
    forfeit is its own doing, and rated."""
    for player in seats:
        if cause(player) == REJECTED and player.bot is not None and player.connection is not None:
            player.info_passed = health_check(session, player.bot, player.connection, old_protocol_days)[0]
