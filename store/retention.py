"""Retention (``SORRY_ARENA_KEEP_MOVES_DAYS``): the finished games older than that keep their row, seats, result,
ratings and tallies, and their record in ``archived_games`` (one line of compact JSON, the record endpoint's
answer, replayable with ``sorry-arena replay``, compressed with zlib); their action rows are deleted. The
maintenance runs it (``tournament/dispatch/recovery.py``), a batch of games per transaction.

The games are judged in id order (the order they began), from the archive's cursor (its highest ``game_id``, a
primary-key lookup) on, at most :data:`BATCH` a transaction, so that no pass holds a lock long nor scans the
table. Of each game begun before the cutoff (now less the days kept):

- finished before the cutoff and counted in the tallies (``store/bottallies.py``): archived (its record read
  first, as ``store/gamerecords.py`` gives it; its action rows and their fault details deleted, through the game
  log's ``forget_moves``, in the transaction that writes the archive row);
- finished since, or not counted yet (the fold, which the maintenance runs first, counts it within seconds): the
  pass stops there and takes it up at a later pass;
- still played, or cancelled, or its record still secret (a paired match's twin on its deal not over): kept whole
  for good (an archive row without a record, so that the cursor moves past it).

A game begun after the cutoff ends the pass. The readers of an archived game's moves find them in its record
(``store/archivedmoves.py``); what no record keeps, the listing of a bot's faults (``store/botfaults.py``), no
longer shows the archived games' moves (the tallies keep their counts).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from engine.records import dumps
from store import archivedmoves, gamelog, gamerecords
from store.gamelog import as_utc
from store.models import ActionRecord, ArchivedGame, Game, now

BATCH = 50
"""Games judged per transaction at most (a board game's record is some 20 KB, its action rows a few hundred):
each transaction of the pass deletes at most some 20,000 rows, so SQLite's write lock is held a moment."""
ARCHIVE_LOCK = 0x5A11A8
"""The PostgreSQL advisory lock one pass holds at a time (on SQLite the database's write lock does it)."""


def cutoff(days: int, at: datetime | None = None) -> datetime:
    """The moment before which a finished game is archived."""
    return (at or now()) - timedelta(days=days)


def archive(session: Session, days: int, batch: int = BATCH, at: datetime | None = None) -> int:
    """Judge up to ``batch`` games after the archive's cursor and commit; how many were judged (0: none is due,
    or another pass runs now)."""
    if not _locked(session):
        session.rollback()
        return 0
    before = cutoff(days, at)
    after = session.scalar(select(func.max(ArchivedGame.game_id))) or 0
    window = session.execute(
        select(Game.id, Game.status, Game.tallied, Game.created_at, Game.updated_at)
        .where(Game.id > after)
        .order_by(Game.id)
        .limit(batch)
    ).all()
    verdicts: list[dict[str, Any]] = []
    for game_id, status, tallied, created_at, updated_at in window:
        if as_utc(created_at) >= before:
            break
        if status != "over":
            verdicts.append(_kept(game_id))  # still played (or cancelled) long after it began: kept whole
            continue
        if as_utc(updated_at) >= before or not tallied:
            break  # finished since the cutoff, or not counted yet: a later pass
        try:
            record = gamerecords.game_record(session, game_id)
        except gamerecords.NotFinished:
            verdicts.append(_kept(game_id))
            continue
        if record is None:
            continue
        line = archivedmoves.packed(dumps(record))
        verdicts.append({"game_id": game_id, "record": line, "details": _details(session, game_id)})
    if not verdicts:
        session.rollback()
        return 0
    # read before the first write: SQLite's write lock is held only to write the archive rows and delete the moves
    stamp = now()
    try:
        session.execute(insert(ArchivedGame), [{**verdict, "archived_at": stamp} for verdict in verdicts])
        gamelog.forget_moves(
            session, [verdict["game_id"] for verdict in verdicts if verdict["record"] is not None]
        )
        session.commit()
    except IntegrityError:  # another process's pass judged them first (SQLite)
        session.rollback()
        return 0
    return len(verdicts)


def archive_all(
    session: Session, days: int, seconds: float = 1.0, batch: int = BATCH, at: datetime | None = None
) -> int:
    """Archive batches until none is due or ``seconds`` are spent; how many games were judged."""
    judged, started = 0, time.monotonic()
    while time.monotonic() - started < seconds:
        done = archive(session, days, batch, at)
        judged += done
        if done == 0:
            break
    return judged


def _kept(game_id: int) -> dict[str, Any]:
    return {"game_id": game_id, "record": None, "details": None}


def _details(session: Session, game_id: int) -> dict[str, str] | None:
    """The game's fault details by ply (what its record does not carry), ``None`` when it has none."""
    rows = session.execute(
        select(ActionRecord.ply, ActionRecord.fault_detail).where(
            ActionRecord.game_id == game_id, ActionRecord.fault_detail.is_not(None)
        )
    )
    details = {str(ply): str(detail) for ply, detail in rows}
    return details or None


def _locked(session: Session) -> bool:
    """Take the pass's lock for the transaction (PostgreSQL); ``False`` if another pass holds it."""
    if session.get_bind().dialect.name != "postgresql":
        return True
    return bool(session.scalar(text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": ARCHIVE_LOCK}))
