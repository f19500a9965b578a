"""Load a game, call the engine, save: everything the game views do beyond parsing and rendering.

Submissions are optimistic: the new state is computed from the game's snapshot at the ply the action answers, then
saved by the game log's guarded write (``store/gamelog.py``, the one writer of a game, which the tournament workers
use too): an UPDATE that only matches if the game is still at that ply (and active), in the same transaction as
the action's row (unique per game and ply; its events are derived from the action log: ``store/eventlog.py``). Of
two concurrent submissions for one ply exactly one is
saved; the other gets a 409.

A move's requests (a bot's poll and its submission) take the database's fast lane (``store/fastlane.py``) and this
process's caches (``service/caches.py``): the token's player, the started game's seats and the snapshot at the ply
answered come from memory when this process has seen them, so an accepted move costs one write: on PostgreSQL one
statement in autocommit (the conditional UPDATE and the action's INSERT in a data-modifying CTE), on SQLite the
UPDATE, the INSERT and its share of a commit (the process's writer saves the moves that arrive together in one
transaction). The action is applied to a private copy of the cached state, and the answer is
rendered from the new state before it is shared. What is current (the game's ply and status) is always the
database's: read, or checked by the conditional UPDATE. Everything else (creating games, seats, listings, events)
uses the ORM session; every write of a game goes through ``store.gamelog``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, NoReturn

from flask import current_app
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.exceptions import HTTPException

import engine
from engine import i18n
from engine.records import FAULTS_TO_FORFEIT, PERSON_FAULTS_TO_FORFEIT
from service import db, latemoves
from service.caches import Caches, GameInfo, Snapshot
from service.errors import fail
from store import archivedmoves, eventlog, gamelog
from store.eventlog import LoggedEvent
from store.fastlane import Lane, param
from store.gamelog import as_utc
from store.models import ActionRecord, Bot, Game, Seat, Tournament, TournamentGame

MAX_ID = 2**31 - 1
ENDED = ("over", "cancelled")
"""Statuses of a game that takes no more moves."""


def create_game(
    session: Session, player_id: int, kind: str, settings: dict[str, Any], seats: int, seed: int | None
) -> Game:
    settings = dict(settings)
    if settings.setdefault("players", seats) != seats:
        fail(422, f"settings.players ({settings['players']}) and seats ({seats}) disagree")
    if seed is None:
        seed = secrets.randbits(62)
    try:
        created = gamelog.create(session, kind, settings, seed, seats, player_id)
    except engine.SettingsError as error:
        session.rollback()
        fail(422, f"settings: {error}")
    session.commit()
    game = session.get(Game, created.id)
    assert game is not None
    return game


def check_id(game_id: int) -> None:
    if not 0 < game_id <= MAX_ID:  # ids are 32-bit: a larger one names no game (and must not reach the database)
        fail(404, f"no game {game_id}")


def get_game(session: Session, game_id: int) -> Game:
    check_id(game_id)
    game = session.get(Game, game_id)
    if game is None:
        fail(404, f"no game {game_id}")
    return game


def seats_of(session: Session, game: Game) -> dict[int, Seat]:
    return {seat.seat: seat for seat in session.scalars(select(Seat).where(Seat.game_id == game.id))}


def take_seat(session: Session, game: Game, player_id: int, wanted: int | None) -> int:
    if game.status != "open":
        fail(409, f"game {game.id} has no open seat: it is {game.status}")
    taken = seats_of(session, game)
    if any(seat.player_id == player_id for seat in taken.values()):
        fail(409, f"you already hold a seat in game {game.id}")
    free = [seat for seat in range(game.seats) if seat not in taken]
    if not free:  # the last seat went between this request's two reads
        fail(409, f"game {game.id} has no open seat")
    if wanted is not None:
        if not 0 <= wanted < game.seats:
            fail(422, f"seat must be from 0 to {game.seats - 1}")
        if wanted not in free:
            fail(409, f"seat {wanted} of game {game.id} is taken")
        chosen = wanted
    else:
        chosen = free[0]
    game_id = game.id
    try:
        gamelog.take_seat(session, game_id, chosen, player_id, last=len(free) == 1)
        session.commit()
    except IntegrityError:
        session.rollback()
        fail(409, f"seat {chosen} of game {game_id} was just taken; try again")
    if len(free) == 1:  # wake the players' decisions inboxes: they have a new game
        current_app.extensions["notifier"].publish_players(
            [seat.player_id for seat in taken.values()] + [player_id], game_id
        )
    return chosen


# --- the fast lane: what every move reads and writes -------------------------------------------------------------

_SEATING = (
    select(
        Game.game,
        Game.seats,
        Game.status,
        Seat.seat,
        Seat.player_id,
        Tournament.move_timeout_ms,
        Bot.url.is_not(None),
        Bot.id.is_not(None),
    )
    .select_from(Game)
    .outerjoin(Seat, Seat.game_id == Game.id)
    .outerjoin(TournamentGame, TournamentGame.game_id == Game.id)
    .outerjoin(Tournament, Tournament.id == TournamentGame.tournament_id)
    .outerjoin(Bot, Bot.player_id == Seat.player_id)
    .where(Game.id == param("game_id"))
)
"""A game's seats, whether a push bot (or any bot) holds each and, for a tournament game, its move timeout (read
once per game and process: a tournament game is created started and linked to its tournament in one transaction, and neither
changes afterwards)."""
PUSHED = (
    "this seat is played by a push bot: the service calls it at its URL, and moves for it come from there only"
)
_POSITION = select(Game.ply, Game.status).where(Game.id == param("game_id"))
_OWN_LAST = (
    select(ActionRecord.fault)
    .where(ActionRecord.game_id == param("game_id"), ActionRecord.seat == param("seat"))
    .order_by(ActionRecord.ply.desc())
    .limit(FAULTS_TO_FORFEIT)
)
"""A seat's last moves' faults, newest first: all faults, the seat has forfeited (the worker plays its turns)."""
FORFEITED = (
    "you forfeited game {game_id} ({faults} faults in a row): the fallback plays your turns, no move of yours"
)
_ACTIVE_SEATS = (
    select(Game.id, Game.ply, Game.game, Seat.seat)
    .select_from(Seat)
    .join(Game, Game.id == Seat.game_id)
    .where(Seat.player_id == param("player_id"), Game.status == "active")
    .order_by(Game.id)
)


@dataclass
class Submitted:
    """An accepted action, and what the submitting seat sees right after it (rendered before anyone else could
    see the new state)."""

    ply: int
    status: str
    view: dict[str, Any]
    decision: engine.Decision | None
    actions: list[dict[str, Any]]
    """The seat's legal actions when it must decide again at once, else empty."""
    deadline: str | None
    """When the decision now must be answered (``GameInfo.deadline``), ``None``: no time limit."""


@dataclass
class Pending:
    """A decision the caller must make now in one of its games."""

    game_id: int
    game: str
    seat: int
    kind: str
    snapshot: Snapshot
    deadline: str | None
    """When the decision must be answered (``GameInfo.deadline``), ``None``: no time limit."""


class Moves:
    """What a move's requests do, with the request's fast lane and this process's caches."""

    def __init__(self, lane: Lane, caches: Caches, notifier: Any) -> None:
        self.lane = lane
        self.caches = caches
        self.notifier = notifier

    def seating(self, game_id: int) -> tuple[GameInfo, bool]:
        """The game's kind and seats, and whether it has started (then its seats are final, and cached)."""
        check_id(game_id)
        info = self.caches.games.get(game_id)
        if info is not None:
            return info, True
        rows = self.lane.execute(_SEATING, {"game_id": game_id}).fetchall()
        if not rows:
            fail(404, f"no game {game_id}")
        kind, seats, status, move_timeout_ms = rows[0][0], rows[0][1], rows[0][2], rows[0][5]
        players = {row[3]: row[4] for row in rows if row[3] is not None}
        pushed = frozenset(row[3] for row in rows if row[6] and move_timeout_ms is not None)
        bots = frozenset(row[3] for row in rows if row[7] and move_timeout_ms is not None)
        info = GameInfo.of(game_id, kind, seats, players, move_timeout_ms, pushed, bots)
        started = status != "open"
        if started:
            self.caches.games.put(game_id, info)
        return info, started

    def seat_in(self, game_id: int, player_id: int | None) -> tuple[GameInfo, int | None, bool]:
        """The game, the player's seat in it (``None``: none, or a spectator) and whether it has started."""
        info, started = self.seating(game_id)
        return info, None if player_id is None else info.seat_of.get(player_id), started

    def position(self, game_id: int) -> tuple[int, str]:
        """The game's current ply and status."""
        row = self.lane.execute(_POSITION, {"game_id": game_id}).fetchone()
        if row is None:
            fail(404, f"no game {game_id}")
        return row[0], row[1]

    def read_snapshot(self, game_id: int) -> tuple[Snapshot, str]:
        """The game's current snapshot (cached) and status, read from the database."""
        row = self.lane.execute(gamelog.POSITION, {"game_id": game_id}).fetchone()
        if row is None:
            fail(404, f"no game {game_id}")
        stored = gamelog.Position.of(row)
        found = self.caches.snapshots.get((game_id, stored.ply))
        if found is None:
            found = Snapshot.parse(stored.ply, stored.state, stored.saved_at)
        elif found.saved_at is None:  # cached by a reader that did not know it
            found = Snapshot(stored.ply, found.state, found.text, stored.saved_at)
        else:
            return found, stored.status
        self.caches.snapshots.put((game_id, stored.ply), found)
        return found, stored.status

    def current(self, game_id: int) -> tuple[Snapshot, str]:
        """The game as it is now (its ply and status read from the database; the state from the cache if there)."""
        ply, status = self.position(game_id)
        found = self.caches.snapshots.get((game_id, ply))
        if found is not None and found.saved_at is not None:
            return found, status
        return self.read_snapshot(game_id)

    def submit(
        self,
        player_id: int,
        game_id: int,
        action_id: str,
        expected_ply: int,
        language: str,
        debug: str | None = None,
    ) -> Submitted:
        """Play ``action_id`` for the player's seat at ``expected_ply``; ``debug``: the bot's debug text, kept with
        the move (cleaned and capped by the game log)."""
        info, seat, started = self.seat_in(game_id, player_id)
        if seat is None:
            fail(403, f"you hold no seat in game {game_id}")
        if not started:
            fail(409, f"game {game_id} has not started: seats are still open")
        if seat in info.pushed:
            fail(409, PUSHED)
        arrived = latemoves.now()
        try:
            for attempt in range(2):
                done = self._attempt(info, seat, action_id, expected_ply, language, debug, fresh=attempt > 0)
                if done is not None:
                    return done
            fail(409, f"stale ply: another action was accepted for ply {expected_ply}")
        except HTTPException as refused:
            if refused.code == 409 and info.move_timeout_ms is not None:
                self.lane.rollback()
                late_ms = latemoves.note(info, seat, expected_ply, arrived)
                if late_ms is not None:
                    message = getattr(refused, "data", {}).get("message", "stale ply")
                    fail(409, f"{message}: your move came late by {late_ms} ms (the fallback was played)")
            raise

    def _attempt(
        self,
        info: GameInfo,
        seat: int,
        action_id: str,
        expected_ply: int,
        language: str,
        debug: str | None,
        fresh: bool,
    ) -> Submitted | None:
        """One try: the saved move, or ``None`` when a unique key said no (try again from the database; a second
        ``None`` is a 409)."""
        game_id, lane = info.id, self.lane
        snapshot = None if fresh else self.caches.snapshots.get((game_id, expected_ply))
        checked = snapshot is None  # read now: its ply and status are current
        if snapshot is None:
            snapshot, status = self.read_snapshot(game_id)
            lane.rollback()  # end the read: the write starts with the UPDATE (SQLite never upgrades a stale read)
            if status in ENDED:
                fail(409, f"game {game_id} is {status}")
            if snapshot.ply != expected_ply:
                fail(409, f"stale ply: the game is at ply {snapshot.ply}, the action answered ply {expected_ply}")
        asked = engine.decision(snapshot.state)
        if asked is None:  # over at that ply: over for good
            fail(409, f"game {game_id} is over")
        if asked.seat != seat:
            self.refuse(
                game_id,
                expected_ply,
                checked,
                f"not your turn: seat {asked.seat} must decide now, you are seat {seat}",
            )
        if not any(action.id == action_id for action in engine.legal_actions(snapshot.state, seat)):
            self.refuse(
                game_id,
                expected_ply,
                checked,
                f"illegal action {action_id!r} for seat {seat} at ply {expected_ply}",
            )
        if info.move_timeout_ms is not None:
            self.refuse_forfeited(info, seat)
        state = snapshot.copy()
        engine.apply(state, action_id, seat, events=False)
        move = gamelog.Move(expected_ply, seat, action_id, debug=debug)
        write = gamelog.advance(game_id, [move], state, engine.result(state))
        try:
            saved = lane.write(game_id, write.condition, *write.then)
        except lane.integrity_error:
            self.caches.snapshots.discard((game_id, expected_ply))
            return None
        if not saved:
            _, status = self.position(game_id)
            lane.rollback()
            if status in ENDED:
                fail(409, f"game {game_id} is {status}")
            fail(409, f"stale ply: another action was accepted for ply {expected_ply}")
        # render for the caller while the new state is still this request's own, then share it
        asked = engine.decision(state)
        mine = asked is not None and asked.seat == seat
        after = Snapshot(write.new_ply, state, write.state, write.saved_at)
        done = Submitted(
            write.new_ply,
            "over" if asked is None else "active",
            engine.view(state, seat),
            asked,
            localized_actions(state, seat, info.game, language) if mine else [],
            None if asked is None else info.deadline(after, asked.seat),
        )
        self.caches.snapshots.put((game_id, write.new_ply), after)
        self.notifier.publish(game_id, write.new_ply)
        return done

    def refuse_forfeited(self, info: GameInfo, seat: int) -> None:
        """A 409 when ``seat`` has forfeited the tournament game ``info`` (its last moves all faults: three in a
        row for a bot, two for a challenge's person): the worker plays its turns with the fallback, so a move of its
        own, arriving while the game rests at its turn, must not be stored (the game's record would not replay)."""
        needed = FAULTS_TO_FORFEIT if seat in info.bots else PERSON_FAULTS_TO_FORFEIT
        faults = [row[0] for row in self.lane.execute(_OWN_LAST, {"game_id": info.id, "seat": seat}).fetchall()]
        self.lane.rollback()  # end the read: the write starts with the UPDATE
        if len(faults) >= needed and all(fault is not None for fault in faults[:needed]):
            fail(409, FORFEITED.format(game_id=info.id, faults=needed))

    def refuse(self, game_id: int, expected_ply: int, checked: bool, message: str) -> NoReturn:
        """Refuse with ``message``, unless the cached snapshot was of a past ply: then the game is over or has
        moved on, and the answer says so."""
        if not checked:
            ply, status = self.position(game_id)
            self.lane.rollback()
            if status in ENDED:
                fail(409, f"game {game_id} is {status}")
            if ply != expected_ply:
                fail(409, f"stale ply: the game is at ply {ply}, the action answered ply {expected_ply}")
        fail(409, message)

    def pending(self, player_id: int) -> tuple[list[Pending], list[int]]:
        """Every active game where ``player_id`` must decide now (by game id), and the ids of all its active
        games."""
        rows = self.lane.execute(_ACTIVE_SEATS, {"player_id": player_id}).fetchall()
        snapshots = self.caches.snapshots
        found = []
        for game_id, ply, kind, seat in rows:
            snapshot = snapshots.get((game_id, ply))
            if snapshot is None or snapshot.saved_at is None:
                snapshot, status = self.read_snapshot(game_id)  # it may have moved on since: this is newer still
                if status != "active":
                    continue
            asked = engine.decision(snapshot.state)
            if asked is not None and asked.seat == seat:
                info, _ = self.seating(game_id)  # cached: the game has started
                found.append(Pending(game_id, kind, seat, asked.kind, snapshot, info.deadline(snapshot, seat)))
        self.lane.rollback()
        return found, [row[0] for row in rows]


def moves() -> Moves:
    """The request's :class:`Moves`."""
    extensions = current_app.extensions
    return Moves(db.lane(), extensions["caches"], extensions["notifier"])


def load(game: Game) -> Any:
    """The engine state of an ORM ``game``, to read only (views, legal actions), shared by this process."""
    caches: Caches = current_app.extensions["caches"]
    return caches.snapshot(game.id, game.ply, game.state, as_utc(game.updated_at)).state


def visible_events(session: Session, game: Game, seat: int | None, since: int, limit: int) -> list[LoggedEvent]:
    """The first ``limit`` events after seq ``since`` that ``seat`` may see: the public ones and its own private
    ones (a spectator, ``None``: the public ones)."""
    shown = []
    for event in eventlog.events(session, game)[max(since + 1, 0) :]:
        if event.to_seat is None or event.to_seat == seat:
            shown.append(event)
            if len(shown) == limit:
                break
    return shown


def replay(session: Session, game: Game) -> dict[str, Any]:
    """The full record of a finished game: enough to replay it with ``engine.replay``."""
    actions = list(
        session.scalars(
            select(ActionRecord.action).where(ActionRecord.game_id == game.id).order_by(ActionRecord.ply)
        )
    )
    archived = archivedmoves.instead(session, game, actions, 0)
    if archived is not None:  # an archived game: its moves from its record
        actions = [move.action for move in archived]
    return {"game": game.game, "settings": game.settings, "seed": game.seed, "actions": actions}


def localized_actions(state: Any, seat: int, game: str, language: str) -> list[dict[str, Any]]:
    return [
        {**action.to_json(), "text": i18n.describe_action(game, action.description, language)}
        for action in engine.legal_actions(state, seat)
    ]


def localized_event(record: LoggedEvent, game: str, language: str) -> dict[str, Any]:
    payload = dict(record.payload)
    return {
        "seq": record.seq,
        "ply": record.ply,
        "private": record.to_seat is not None,
        "event": payload,
        "text": i18n.describe_event(game, payload, language),
    }
