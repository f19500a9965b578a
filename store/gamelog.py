"""The one writer of a game: create it, take its seats, advance it by plies, finish it, mark it tallied, forget
the action rows of an archived one.

Both ways a move reaches the database go through here: a pull bot's ``POST /games/{id}/actions`` (the service's
fast lane, one move per write, saved by the process's group commit) and a tournament worker's batch of push-bot
moves (the worker's session, up to a batch per write). Each write of moves is one :class:`Advance`: a conditional
UPDATE of the game row (the guard: the game is still at the ply the first move answered, and still active) and,
only if that changed the row, the action rows (unique per game and ply), in one transaction. Of two writers at one
ply exactly one wins; the other learns it from the guard (``False``) or from the unique key. On PostgreSQL the fast
lane runs a one-move advance as one statement that keeps these rules (:data:`ADVANCE_RECORDING`: the UPDATE in a
data-modifying CTE, the action row inserted from what it returned, so only if the guard held), and a worker's batch
likewise (:data:`ADVANCE_RECORDING_ROWS`: the rows' values as arrays, one parameter per column): one round trip,
where the UPDATE and the driver's executemany of the rows took three.

The rules every write keeps, written once here:

- the state is stored as the engine's JSON in compact form (:func:`encode_state`);
- no event is stored: a game's events are its actions' (``store/eventlog.py`` derives them by replaying the action
  log), numbered ``0, 1, 2, ...`` per game in the order they happened (the opening's first); an event of the move
  that answered ply ``p`` carries ``ply = p + 1`` (the opening's carry 0);
- ``games.updated_at`` moves with every change of the ply (a tournament decision's deadline counts from it);
- a game is ``open`` until its last seat is taken, ``active`` while it is played, ``over`` once finished, or
  ``cancelled`` when its tournament was cancelled before it finished (no result); only an active game advances.

Reads that the writes depend on (the current position) use :data:`POSITION`, so that the ply, the state and the
save time are of one moment on every database.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import ARRAY, Insert, Update, bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import UpdateBase

import engine
from store import fastlane
from store.fastlane import param
from store.models import ActionRecord, Game, Seat, base, now
from store.models.games import DEBUG_BYTES, FAULT_DETAIL_CHARS

encode_state = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
"""The stored text of an engine state (``engine.to_json``): JSON without the spaces of ``json.dumps``."""


def decode_state(text: str) -> Any:
    """The engine state stored as ``text``."""
    return engine.from_json(json.loads(text))


# --- the statements, defined once: the fast lane compiles them, a session executes them -------------------------

_GUARD = (Game.id == param("game_id"), Game.ply == param("ply"), Game.status == "active")
"""The condition of every write of moves: the game is where the first move found it, and still being played."""

ADVANCE = update(Game).where(*_GUARD).values(ply=param("new_ply"), state=param("state"), updated_at=param("now"))
ADVANCE_TO_END = (
    update(Game)
    .where(*_GUARD)
    .values(
        ply=param("new_ply"), state=param("state"), status="over", result=param("result"), updated_at=param("now")
    )
)
"""The advance whose last move ends the game by the rules (the engine's result)."""
_ACTION_VALUES = {
    "game_id": "game_id",
    "ply": "ply",
    "seat": "seat",
    "action": "action",
    "latency_ms": "latency_ms",
    "fault": "fault",
    "fault_detail": "fault_detail",
    "debug": "debug",
    "created_at": "now",
}
"""Each column of an action row, and the parameter that gives its value."""
RECORD_ACTION = insert(ActionRecord).values({column: param(name) for column, name in _ACTION_VALUES.items()})


def _recording(guarded: Update) -> Insert:
    """``guarded`` and one :data:`RECORD_ACTION` row as one statement (PostgreSQL's data-modifying CTE): the action
    row is selected from the rows the UPDATE changed, so it is inserted only if the guard held, and the statement's
    row count says whether it did; a unique key that refuses the row undoes the UPDATE with it."""
    moved = guarded.returning(Game.id).cte("moved")
    columns = ActionRecord.__table__.c
    row = select(*(param(name, columns[column].type) for column, name in _ACTION_VALUES.items()))
    return insert(ActionRecord).from_select(list(_ACTION_VALUES), row.select_from(moved))


ADVANCE_RECORDING = _recording(ADVANCE)
"""A one-move :data:`ADVANCE` and its action row, in one round trip (where the database has data-modifying CTEs)."""
ADVANCE_TO_END_RECORDING = _recording(ADVANCE_TO_END)
_ROW_VALUES = ("ply", "seat", "action", "latency_ms", "fault", "fault_detail", "debug")
"""The parameters of an action row that differ from row to row of a batch (the game and the time are the write's)."""


def _recording_rows(guarded: Update) -> Insert:
    """``guarded`` and a batch of :data:`RECORD_ACTION` rows as one statement (PostgreSQL): the rows' values as
    arrays (``rows_ply``, ``rows_seat``...: one parameter each, whatever the batch's size), unnested in step and
    selected from the rows the UPDATE changed, so inserted only if the guard held; the statement's row count is the
    rows inserted (kept by SQLAlchemy for an INSERT when asked: ``preserve_rowcount``)."""
    moved = guarded.returning(Game.id).cte("moved")
    columns = ActionRecord.__table__.c
    row = select(
        *(
            func.unnest(bindparam(f"rows_{name}", type_=ARRAY(columns[column].type)))
            if name in _ROW_VALUES
            else param(name, columns[column].type)
            for column, name in _ACTION_VALUES.items()
        )
    ).select_from(moved)
    recording = insert(ActionRecord).from_select(list(_ACTION_VALUES), row)
    return recording.execution_options(preserve_rowcount=True)


ADVANCE_RECORDING_ROWS = _recording_rows(ADVANCE)
"""A batch's :data:`ADVANCE` and its action rows in one round trip (a worker's save on PostgreSQL)."""
_RECORDING_ROWS = {id(ADVANCE): ADVANCE_RECORDING_ROWS, id(ADVANCE_TO_END): _recording_rows(ADVANCE_TO_END)}
fastlane.one_statement(ADVANCE, RECORD_ACTION, ADVANCE_RECORDING)
fastlane.one_statement(ADVANCE_TO_END, RECORD_ACTION, ADVANCE_TO_END_RECORDING)
POSITION = select(Game.ply, Game.status, Game.state, Game.updated_at).where(Game.id == param("game_id"))
"""A game's ply, status, state text and save time, in one statement (:meth:`Position.of`)."""
_START = update(Game).where(Game.id == param("game_id"), Game.status == "open").values(status="active")
# (A parameter of an UPDATE's condition is not named after a column it leaves unchanged: SQLAlchemy would take it
# for a new value of that column.)
_FINISH = (
    update(Game)
    .where(Game.id == param("game_id"), Game.ply == param("at_ply"))
    .values(status="over", result=param("result"))
)
_LATENCY = (
    update(ActionRecord)
    .where(ActionRecord.game_id == param("of_game"), ActionRecord.ply == param("at_ply"))
    .values(latency_ms=param("latency_ms"))
)
_FAULTS = (
    select(ActionRecord.seat, ActionRecord.fault)
    .where(ActionRecord.game_id == param("game_id"))
    .order_by(ActionRecord.ply)
)


# --- what is written --------------------------------------------------------------------------------------------


@dataclass
class Move:
    """One applied action (its events are derived from it: ``store/eventlog.py``)."""

    ply: int
    """The ply the action answered."""
    seat: int
    action: str
    latency_ms: float | None = None
    """How long the bot took to answer (tournament games)."""
    fault: str | None = None
    """Why the action is the game's seeded fallback rather than the bot's (``None``: the bot's own)."""
    fault_detail: str | None = None
    """The fault in words (kept to :data:`FAULT_DETAIL_CHARS` characters by :func:`advance`)."""
    debug: str | None = None
    """The bot's debug text for the move (kept clean and short by :func:`advance`: :func:`clean_debug`)."""


@dataclass(frozen=True)
class Position:
    """A game as stored: its ply and status, its state's text, when it was saved."""

    ply: int
    status: str
    state: str
    saved_at: datetime

    @classmethod
    def of(cls, row: Sequence[Any]) -> Position:
        """From a row of :data:`POSITION` (a DB-API cursor's or a SQLAlchemy result's)."""
        ply, status, text, saved_at = row
        return cls(ply, status, text, as_utc(saved_at))


@dataclass(frozen=True)
class Advance:
    """One write of moves: the guarded UPDATE (``condition``), and the rows that follow it if it held."""

    game_id: int
    new_ply: int
    state: str
    """The stored text of the state after the moves."""
    saved_at: datetime
    condition: tuple[UpdateBase, dict[str, Any]]
    then: tuple[tuple[UpdateBase, list[dict[str, Any]]], ...]


def advance(
    game_id: int,
    moves: Sequence[Move],
    state: Any,
    result: engine.Result | None = None,
    ending: engine.Json | None = None,
) -> Advance:
    """The write that appends ``moves`` (consecutive, from the game's current ply) and the state after them;
    ``result`` is the engine's when the last move ended the game. ``ending``, a result to store instead (a
    tournament's: the engine's ranks with forfeits applied), ends the game with the same write, whether or not the
    rules ended it (as :func:`finish` does)."""
    if not moves:
        raise ValueError("an advance needs at least one move")
    ply = moves[0].ply
    if [move.ply for move in moves] != list(range(ply, ply + len(moves))):
        raise ValueError(f"moves must answer consecutive plies from {ply}: {[move.ply for move in moves]}")
    moment = now()
    new_ply = ply + len(moves)
    text = encode_state(engine.to_json(state))
    changes: dict[str, Any] = {"game_id": game_id, "ply": ply, "new_ply": new_ply, "state": text, "now": moment}
    if ending is not None:
        changes["result"] = ending
    elif result is not None:
        changes["result"] = result.to_json()
    actions = [
        {
            "game_id": game_id,
            "ply": move.ply,
            "seat": move.seat,
            "action": move.action,
            "latency_ms": move.latency_ms,
            "fault": move.fault,
            "fault_detail": clean_detail(move.fault_detail) if move.fault else None,
            "debug": clean_debug(move.debug),
            "now": moment,
        }
        for move in moves
    ]
    return Advance(
        game_id,
        new_ply,
        text,
        moment,
        (ADVANCE_TO_END if "result" in changes else ADVANCE, changes),
        ((RECORD_ACTION, actions),),
    )


_CONTROL = dict.fromkeys(
    [*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)
"""Control characters (line and tab breaks too) and the bidirectional overrides: removed from what a bot wrote."""


def clean_detail(detail: str | None) -> str | None:
    """A fault's detail as stored: control characters as spaces, its first :data:`FAULT_DETAIL_CHARS`
    characters; ``None`` for none."""
    if not detail:
        return None
    return " ".join(detail.translate(dict.fromkeys(_CONTROL, " ")).split())[:FAULT_DETAIL_CHARS] or None


def clean_debug(text: Any) -> str | None:
    """A bot's debug text as stored: a string, its control characters removed (a newline or tab becomes a space),
    truncated to :data:`DEBUG_BYTES` bytes of UTF-8 (never inside a character); ``None`` for none or a non-string.
    """
    if not isinstance(text, str) or not text:
        return None
    spaced = text.translate({ord("\n"): " ", ord("\t"): " ", ord("\r"): " "}).translate(_CONTROL)
    kept = spaced.encode("utf-8", "replace")[:DEBUG_BYTES].decode("utf-8", "ignore")
    return kept or None


# --- writing through a session (the workers, and the service's ORM requests) -------------------------------------


def save(session: Session, write: Advance) -> bool:
    """Run ``write`` in the session's transaction (the caller commits); ``False``, with nothing written, when the
    guard did not hold (the game moved on, or is not active). Core statements on the session's connection: on
    PostgreSQL the guarded UPDATE and the batch's action rows as one statement (:data:`ADVANCE_RECORDING_ROWS`),
    elsewhere the UPDATE, then the rows in one call to the driver."""
    connection = session.connection()
    statement, values = write.condition
    batch = _RECORDING_ROWS.get(id(statement)) if connection.dialect.name == "postgresql" else None
    if batch is not None and len(write.then) == 1 and write.then[0][0] is RECORD_ACTION:
        rows = write.then[0][1]
        columns = {f"rows_{name}": [row[name] for row in rows] for name in _ROW_VALUES}
        return bool(connection.execute(batch, {**values, **columns}).rowcount == len(rows))
    if connection.execute(statement, values).rowcount != 1:
        return False
    for statement, rows in write.then:
        if rows:
            connection.execute(statement, rows)
    return True


_CREATE = (
    insert(Game)
    .values(
        game=param("kind"),
        settings=param("settings"),
        seed=param("seed"),
        seats=param("seats"),
        status=param("status"),
        ply=0,
        state=param("state"),
        created_by=param("created_by"),
        created_at=param("now"),
        updated_at=param("now"),
        tallied=False,
    )
    .returning(Game.id)
)
_SEAT = insert(Seat).values(
    game_id=param("game_id"), seat=param("seat"), player_id=param("player_id"), taken_at=param("now")
)


@dataclass(frozen=True)
class Created:
    """A game just created (:func:`create`): its id, its status, its state's stored text, its creation time, and
    the engine's state it was made from (its creator's to play on, as stored)."""

    id: int
    status: str
    state: str
    created_at: datetime
    engine_state: Any = field(compare=False, repr=False, default=None)


def create(
    session: Session,
    kind: str,
    settings: engine.Json,
    seed: int,
    seats: int,
    created_by: int,
    players: Sequence[int] = (),
) -> Created:
    """A new game, in the session's transaction (the caller commits): ``open`` with every seat free, or, given
    ``players`` (one player per seat, in seat order), started, every seat taken in one statement. Raises
    ``engine.SettingsError`` for settings that describe no game."""
    state = engine.new_game(kind, settings, seed)
    moment = now()
    created = Created(0, "active" if players else "open", encode_state(engine.to_json(state)), moment, state)
    values = {
        "kind": kind,
        "settings": engine.normalize_settings(kind, settings),
        "seed": seed,
        "seats": seats,
        "status": created.status,
        "state": created.state,
        "created_by": created_by,
        "now": moment,
    }
    row = session.connection().execute(_CREATE, values).first()
    assert row is not None
    created = replace(created, id=int(row[0]))
    if players:
        session.connection().execute(
            _SEAT,
            [
                {"game_id": created.id, "seat": seat, "player_id": player, "now": moment}
                for seat, player in enumerate(players)
            ],
        )
    return created


def take_seat(session: Session, game_id: int, seat: int, player_id: int, last: bool) -> None:
    """Seat ``player_id`` (flushed: the unique ``(game, seat)`` and ``(game, player)`` decide between concurrent
    takers, as an IntegrityError); the ``last`` free seat starts the game."""
    session.add(Seat(game_id=game_id, seat=seat, player_id=player_id))
    session.flush()
    if last:
        session.connection().execute(_START, {"game_id": game_id})


def finish(session: Session, game_id: int, ply: int, result: engine.Json) -> bool:
    """Mark the game over at ``ply`` with ``result`` (a tournament's: the engine's ranks with forfeits applied),
    whether its last move already ended it by the rules or forfeits end it; ``False`` if it is not at ``ply``."""
    finished = session.connection().execute(_FINISH, {"game_id": game_id, "at_ply": ply, "result": result})
    return finished.rowcount == 1


def cancel(session: Session, game_ids: Sequence[int]) -> int:
    """End games that will not finish (their tournament was cancelled) without a result, in the caller's
    transaction: ``cancelled``, so that no move lands in them any more (every write is guarded by ``active``) and no
    pull bot is asked to move in them. Games already over stay so. Returns how many were ended."""
    if not game_ids:
        return 0
    ended = session.execute(
        update(Game)
        .where(Game.id.in_(game_ids), Game.status.in_(("open", "active")))
        .values(status="cancelled", updated_at=now())
    )
    return int(ended.rowcount)  # type: ignore[attr-defined]


def mark_tallied(session: Session, game_ids: Sequence[int]) -> list[int]:
    """Mark the finished games ``game_ids`` as counted in the running tallies (``store/bottallies.py``), in the
    caller's transaction; the ids this call marked (a game another fold marked first is not among them)."""
    marked = session.execute(
        update(Game).where(Game.id.in_(game_ids), Game.tallied.is_(False)).values(tallied=True).returning(Game.id)
    )
    return list(marked.scalars())


def forget_moves(session: Session, game_ids: Sequence[int]) -> int:
    """Delete the action rows of the finished games ``game_ids``, whose records the caller archives in the same
    transaction (``store/archive.py``); how many rows went."""
    gone = session.execute(
        delete(ActionRecord).where(
            ActionRecord.game_id.in_(select(Game.id).where(Game.id.in_(game_ids), Game.status == "over"))
        )
    )
    return int(getattr(gone, "rowcount", 0) or 0)


def unmark_tallied(session: Session) -> None:
    """Mark every game as not counted in the running tallies, for a count from scratch (``bottallies.reset``)."""
    session.execute(update(Game).where(Game.tallied.is_(True)).values(tallied=False))


def record_latency(session: Session, game_id: int, ply: int, latency_ms: float) -> None:
    """Note how long a pull bot took for the move that answered ``ply`` (saved by the games API, timed by the
    worker that waited for it)."""
    session.connection().execute(_LATENCY, {"of_game": game_id, "at_ply": ply, "latency_ms": latency_ms})


_TIMEOUT_AT = select(ActionRecord.fault_detail).where(
    ActionRecord.game_id == param("game_id"),
    ActionRecord.ply == param("ply"),
    ActionRecord.seat == param("seat"),
    ActionRecord.fault == "timeout",
)
_SAVED_AT = select(ActionRecord.created_at).where(
    ActionRecord.game_id == param("game_id"), ActionRecord.ply == param("ply")
)
_CREATED_AT = select(Game.created_at).where(Game.id == param("game_id"))
_LATE = (
    update(ActionRecord)
    .where(
        ActionRecord.game_id == param("of_game"),
        ActionRecord.ply == param("at_ply"),
        ActionRecord.fault == "timeout",
        ActionRecord.fault_detail == param("detail_was"),
    )
    .values(fault_detail=param("detail"))
)
LATE_BY = "late by"
"""The words a timeout fault's detail gains when the seat's own move for that ply came after all
(:func:`note_late`)."""


@dataclass(frozen=True)
class TimedOut:
    """A seat's timeout fault at a ply, and when the position it was to answer was saved (its deadline counts from
    then)."""

    detail: str
    position_saved_at: datetime


def timed_out(session: Session, game_id: int, ply: int, seat: int) -> TimedOut | None:
    """The timeout fault of ``seat`` at ``ply`` not yet noted late (``None``: the move at ``ply`` is no such fault,
    or it was noted already)."""
    connection = session.connection()
    detail = connection.execute(_TIMEOUT_AT, {"game_id": game_id, "ply": ply, "seat": seat}).scalar()
    if detail is None or LATE_BY in detail:
        return None
    if ply == 0:
        saved = connection.execute(_CREATED_AT, {"game_id": game_id}).scalar()
    else:
        saved = connection.execute(_SAVED_AT, {"game_id": game_id, "ply": ply - 1}).scalar()
    return None if saved is None else TimedOut(detail, as_utc(saved))


def note_late(session: Session, game_id: int, ply: int, fault: TimedOut, late_ms: int) -> bool:
    """Add to the timeout fault at ``ply`` (read by :func:`timed_out`) that the seat's move came ``late_ms`` after
    its deadline, once (``False``: another request noted it first); in the session's transaction."""
    detail = f"{fault.detail} ({LATE_BY} {late_ms} ms)"[:FAULT_DETAIL_CHARS]
    values = {"of_game": game_id, "at_ply": ply, "detail_was": fault.detail, "detail": detail}
    return bool(session.connection().execute(_LATE, values).rowcount)


def position(session: Session, game_id: int) -> Position | None:
    """The game as stored now (``None``: no such game)."""
    row = session.connection().execute(POSITION, {"game_id": game_id}).fetchone()
    return None if row is None else Position.of(row)


def faults(session: Session, game_id: int) -> list[tuple[int, str | None]]:
    """(seat, fault) of every saved action in ply order: a resumed game recounts consecutive faults from it."""
    rows = session.connection().execute(_FAULTS, {"game_id": game_id})
    return [(seat, fault) for seat, fault in rows]


def as_utc(value: Any) -> datetime:
    """A stored time as an aware UTC datetime: a DB-API cursor gives SQLite's text (naive UTC, as SQLAlchemy
    stores it), the ORM a naive datetime on SQLite, PostgreSQL an aware one in the session's time zone."""
    return base.as_utc(datetime.fromisoformat(value) if isinstance(value, str) else value)
