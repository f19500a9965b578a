"""A pull move that came after its deadline: the worker has played the seeded fallback at that ply (a ``timeout``
fault), and the move is refused with a 409. How late it came is noted on that fault's detail (``... (late by
1234 ms)``, once, through the game's one writer: ``store.gamelog.note_late``), so that the bot's owner reads it
with the fault, and said in the 409's message, so that the bot's own log shows it."""

from __future__ import annotations

from datetime import UTC, datetime

from service import db
from service.caches import GameInfo
from store import gamelog


def note(info: GameInfo, seat: int, ply: int, arrived: datetime) -> int | None:
    """How many whole milliseconds after its deadline ``seat``'s move for ``ply`` of the tournament game ``info``
    ``arrived``, noted on the timeout fault the worker recorded there; ``None`` when the move at ``ply`` is no
    timeout fault of that seat's (the game moved on some other way, or the lateness was noted already)."""
    session = db.session()
    try:
        fault = gamelog.timed_out(session, info.id, ply, seat)
        deadline = None if fault is None else info.deadline_at(fault.position_saved_at, seat)
        if fault is None or deadline is None:
            return None
        late_ms = max(0, int((arrived - deadline).total_seconds() * 1000))
        noted = gamelog.note_late(session, info.id, ply, fault, late_ms)
        session.commit()
        return late_ms if noted else None
    finally:
        session.rollback()


def now() -> datetime:
    """The moment a move arrived (UTC), to measure it against its deadline."""
    return datetime.now(UTC)
