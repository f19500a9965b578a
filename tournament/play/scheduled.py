"""A scheduled game as its worker reads it: the game and what its runner needs of its tournament, its seats' bots,
each bot's health check, and the game it plays once started, each in one statement compiled once
(``store.fastlane``), not through the ORM.

Whether the tournament is a ladder's rides along the game's read (an ``EXISTS`` on the ladders' unique tournament
index), at no statement more. A worker reads them once per game, before it takes the game's lease (``tournament.play.leases``): none of it changes
while the game waits to be played (a tournament's settings and a game's seats are fixed at creation), but a bot's
address, secret and health, which are read afresh for every game.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, String, bindparam, case, exists, or_, select, update
from sqlalchemy.orm import Session

from store.fastlane import param
from store.models import Bot, Player, Tournament, TournamentGame
from store.models.ladders import Ladder

SEATS = 4
"""The most seats at a table (both games take 2 to 4 players)."""
CHECKS_TO_EXCLUDE = 3
CHECKS_TO_INCLUDE = 2


@dataclass(frozen=True)
class TournamentSettings:
    """What a game's runner needs of its tournament."""

    id: int
    owner_id: int
    game: str
    variant: str
    settings: dict[str, Any]
    table_size: int
    rated: bool
    move_timeout_ms: int
    games_total: int
    ladder: bool = False
    """Its games are a ladder's (``tournament/plans/ladders.py``): each result is counted in the ladder, and the
    tournament has no table of its own and is never complete while the ladder is open."""


@dataclass(frozen=True)
class ScheduledGame:
    """A scheduled game, as read before its lease: its status and game may change once the lease is taken."""

    id: int
    status: str
    bot_ids: list[int]
    """The bot of each seat (:data:`store.challenges.HUMAN` at a challenge's person)."""
    seed: int
    game_id: int | None
    tournament: TournamentSettings


@dataclass(frozen=True)
class SeatBot:
    """A seat's bot as its game is played: its account, its name, its push address (``None``: a pull bot), its
    signing secret and its health."""

    id: int
    player_id: int
    name: str
    url: str | None
    secret: str
    excluded: bool
    checked_at: datetime | None
    protocol: int | None = None
    """The protocol version its requests are signed in (``botlink/protocols.py``); ``None``: not known yet."""
    withheld: bool = False
    """Paused by the operator, or its account disabled: it forfeits every new game from its start, uncalled."""


_READ = (
    select(
        TournamentGame.status,
        TournamentGame.bot_ids,
        TournamentGame.seed,
        TournamentGame.game_id,
        Tournament.id,
        Tournament.owner_id,
        Tournament.game,
        Tournament.variant,
        Tournament.settings,
        Tournament.table_size,
        Tournament.rated,
        Tournament.move_timeout_ms,
        Tournament.games_total,
        exists().where(Ladder.tournament_id == Tournament.id),
    )
    .join(Tournament, Tournament.id == TournamentGame.tournament_id)
    .where(TournamentGame.id == param("scheduled_id"))
)
_BOTS = (
    select(
        Bot.id,
        Bot.player_id,
        Bot.name,
        Bot.url,
        Bot.secret,
        Bot.excluded,
        Bot.checked_at,
        Bot.protocol,
        or_(Bot.paused, Player.disabled),
    )
    .join(Player, Player.id == Bot.player_id)
    .where(Bot.id.in_(bindparam("bots", expanding=True)))
)
_GAME = update(TournamentGame).where(TournamentGame.id == param("scheduled_id")).values(game_id=param("game_id"))
_PROTOCOL = update(Bot).where(Bot.id == param("bot_id")).values(protocol=param("protocol"))
_NAME = select(Player.name).where(Player.id == param("player_id"))
_PASSED = Bot.passed_checks + 1
_FAILED = Bot.failed_checks + 1
_PASS = param("passed", Boolean())
_CHECKED = (
    update(Bot)
    .where(Bot.id == param("bot_id"))
    .values(
        passed_checks=case((_PASS, _PASSED), else_=0),
        failed_checks=case((_PASS, 0), else_=_FAILED),
        excluded=case(
            (_PASS & (_PASSED >= CHECKS_TO_INCLUDE), False),
            (~_PASS & (_FAILED >= CHECKS_TO_EXCLUDE), True),
            else_=Bot.excluded,
        ),
        checked_at=param("moment"),
        check_failure=param("failure", String()),
    )
    .returning(Bot.excluded)
)
"""A health check counted: passes and failures in a row, in one statement (two workers checking a bot at once
each count theirs), the bot excluded at the third failure in a row and included again at the second pass."""


def read(session: Session, scheduled_id: int) -> ScheduledGame | None:
    """The scheduled game and its tournament's settings (``None``: no such game), in the session's transaction."""
    row = session.connection().execute(_READ, {"scheduled_id": scheduled_id}).first()
    if row is None:
        return None
    status, bot_ids, seed, game_id, *tournament = row
    return ScheduledGame(scheduled_id, status, list(bot_ids), seed, game_id, TournamentSettings(*tournament))


def seat_bots(session: Session, bot_ids: list[int]) -> dict[int, SeatBot]:
    """The bots of ``bot_ids`` (up to :data:`SEATS` of them; none: ``{}``), by id, in one statement."""
    if not bot_ids:
        return {}
    return {row[0]: SeatBot(*row) for row in session.connection().execute(_BOTS, {"bots": bot_ids})}


def set_game(session: Session, scheduled_id: int, game_id: int) -> None:
    """Note the game a scheduled game plays, in the session's transaction (its lease's, in which the game was
    created)."""
    session.connection().execute(_GAME, {"scheduled_id": scheduled_id, "game_id": game_id})


def name_of(session: Session, player_id: int) -> str:
    """An account's name (a challenge's person, who sits without a bot)."""
    row = session.connection().execute(_NAME, {"player_id": player_id}).first()
    assert row is not None
    return str(row[0])


def note_protocol(session: Session, bot_id: int, protocol: int) -> None:
    """Record the protocol version a health check found the bot speaking, in the session's transaction."""
    session.connection().execute(_PROTOCOL, {"bot_id": bot_id, "protocol": protocol})


def note_check(session: Session, bot_id: int, passed: bool, moment: datetime, failure: str | None = None) -> bool:
    """Count a health check of the bot at ``moment`` (``failure``: why it failed, for its owner; ``None`` for a
    pass), in the session's transaction; whether it is excluded now."""
    values = {"bot_id": bot_id, "passed": passed, "moment": moment, "failure": None if passed else failure}
    row = session.connection().execute(_CHECKED, values).first()
    return bool(row is not None and row[0])
