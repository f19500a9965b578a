"""A game's events, derived from its action log: nothing stores them.

A game is a function of its kind, settings, seed and action list (docs/rules.md Part C), so its events are too:
the opening's (``engine.opening_events``: the deal, each hand privately, its size publicly), then each stored
action's, as ``engine.apply`` returns them. They are numbered and placed as :mod:`store.gamelog` says (the rules of
a game's writes): ``seq`` counts ``0, 1, 2, ...`` in the order they happened; an event of the action that answered
ply ``p`` has ``ply = p + 1``, the opening's ``0``; ``to_seat`` is the event's ``to`` (the only seat that may see
it), ``None`` for a public event. Who may see what is the readers' rule (``service/gameplay.py``); this module
gives every event.

Each database (each SQLAlchemy engine) has one :class:`EventLog` per process (:func:`of`): a size-bounded cache of
games replayed so far, each kept at its last action read with its engine state, so that reading a game's events
again reads only the actions saved since (``ply >=`` the cached ply: none, or the few of a long poll's wake-up).
The cache can never be stale: actions are append-only, exactly one per ply (``actions``' primary key), so the
events up to a ply never change once written. An archived game's moves (retention deleted its action rows) are read
from its record (``store/archivedmoves.py``): the same moves.

The engine's determinism is thereby part of what is stored: a change of the rules that gave an old game other
events, or refused one of its actions (:class:`CorruptLog`), would change what that game shows. The golden corpus
(``tests/engine/test_golden.py``) holds the engine to the events and results it gave.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.orm import Session

import engine
from store import archivedmoves
from store.models import ActionRecord, Game

GAMES = 4096
"""Games whose replay a process keeps per database at most."""
EVENTS = 100_000
"""Events a process keeps per database at most (over all its games): about 55 MB (some 540 bytes an event, its
game's engine state included), the events of some 600 card games or 110 long board games."""


@dataclass(frozen=True)
class LoggedEvent:
    """One event of a game, numbered and placed in its log."""

    seq: int
    ply: int
    """The number of actions applied before it (0: the opening)."""
    to_seat: int | None
    """``None``: public; else the only seat that may see it."""
    payload: engine.Event
    """The event as the engine gave it (shared by every reader: read only)."""


class CorruptLog(Exception):
    """The stored actions are not a game the engine can replay (a gap in the plies, or an illegal action)."""


class _Replay:
    """One game replayed up to ``ply`` actions: its engine state then, and every event so far."""

    __slots__ = ("counted", "events", "kind", "lock", "ply", "seed", "state")

    def __init__(self, game: Game) -> None:
        self.kind, self.seed = game.game, game.seed
        self.state = engine.new_game(game.game, game.settings, game.seed)
        opening = engine.opening_events(self.state)
        self.events = [LoggedEvent(seq, 0, event.get("to"), event) for seq, event in enumerate(opening)]
        self.ply = 0
        self.lock = threading.Lock()
        self.counted = 0
        """Its events counted in the log's total (:meth:`EventLog._count`)."""

    def extend(self, rows: Sequence[Any], game_id: int) -> None:
        """Apply ``rows`` ((ply, seat, action) of the actions from the cached ply on), in ply order."""
        for ply, seat, action in rows:
            if ply != self.ply:
                raise CorruptLog(f"game {game_id}: action of ply {ply} stored where ply {self.ply} was next")
            try:
                made = engine.apply(self.state, action, seat)
            except engine.IllegalActionError as error:
                raise CorruptLog(
                    f"game {game_id}: the stored action of ply {ply} does not replay: {error}"
                ) from error
            first = len(self.events)
            self.events += (
                LoggedEvent(first + i, ply + 1, event.get("to"), event) for i, event in enumerate(made)
            )
            self.ply += 1


class EventLog:
    """The events of one database's games, replayed and cached by this process (:func:`of`)."""

    def __init__(self, games: int = GAMES, events: int = EVENTS) -> None:
        self._replays: OrderedDict[int, _Replay] = OrderedDict()
        self._lock = threading.Lock()
        self._games, self._events = games, events
        self._held = 0
        """Events held by the cached replays."""

    def events(self, session: Session, game: Game) -> list[LoggedEvent]:
        """Every event of ``game`` saved by the time of the session's read of its actions, in ``seq`` order
        (``result[seq]`` is the event numbered ``seq``)."""
        replay = self._replay(game)
        with replay.lock:
            rows: Sequence[Any] = session.execute(
                select(ActionRecord.ply, ActionRecord.seat, ActionRecord.action)
                .where(ActionRecord.game_id == game.id, ActionRecord.ply >= replay.ply)
                .order_by(ActionRecord.ply)
            ).all()
            archived = archivedmoves.instead(session, game, rows, replay.ply)
            if archived is not None:  # an archived game: its moves from its record
                rows = [(move.ply, move.seat, move.action) for move in archived]
            replay.extend(rows, game.id)
            events = replay.events[:]
        if len(events) != replay.counted:
            self._count(game.id, replay)
        return events

    def _replay(self, game: Game) -> _Replay:
        with self._lock:
            replay = self._replays.get(game.id)
            if replay is not None and (replay.kind, replay.seed) == (game.game, game.seed):
                self._replays.move_to_end(game.id)
                return replay
        made = _Replay(game)  # outside the lock: another thread may make the same one, and one of them is kept
        with self._lock:
            replay = self._replays.get(game.id)
            if replay is not None and (replay.kind, replay.seed) == (game.game, game.seed):
                return replay
            if replay is not None:
                self._held -= replay.counted
            self._replays[game.id] = made
        self._count(game.id, made)
        return made

    def _count(self, game_id: int, replay: _Replay) -> None:
        """Count the events ``replay`` holds now (unless it was forgotten meanwhile), and keep to the bounds."""
        with self._lock:
            if self._replays.get(game_id) is replay:
                held = len(replay.events)
                self._held += held - replay.counted
                replay.counted = held
                self._evict()

    def _evict(self) -> None:
        """Forget the least recently read games beyond the bounds (the latest one always stays); under the lock."""
        while len(self._replays) > 1 and (len(self._replays) > self._games or self._held > self._events):
            _, gone = self._replays.popitem(last=False)
            self._held -= gone.counted


_LOGS: weakref.WeakKeyDictionary[Engine, EventLog] = weakref.WeakKeyDictionary()
_LOGS_LOCK = threading.Lock()


def of(session: Session) -> EventLog:
    """This process's event log of the session's database (made on first use, forgotten with its engine)."""
    bind = session.get_bind()
    database = bind.engine if isinstance(bind, Connection) else bind
    with _LOGS_LOCK:
        log = _LOGS.get(database)
        if log is None:
            log = _LOGS[database] = EventLog()
        return log


def events(session: Session, game: Game) -> list[LoggedEvent]:
    """Every event of ``game`` saved so far, in ``seq`` order (:meth:`EventLog.events` of the session's
    database)."""
    return of(session).events(session, game)
