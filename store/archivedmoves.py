"""The moves of an archived game (``store/retention.py``), read from its record where its action rows were.

The readers of a game's moves (the events, the viewer's steps and positions, the replay of a finished game) read
the action rows as before; only when they find none where the finished game has moves do they call
:func:`instead`, which reads them from the game's archived record (``archived_games``): the same plies, seats,
actions, latencies, faults, debug texts and fault details, so an archived game reads as it did.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from store.models import ArchivedGame, Game


def packed(line: str) -> bytes:
    """A record's JSON line as the archive stores it: compressed with zlib."""
    return zlib.compress(line.encode(), 6)


def unpacked(stored: bytes) -> dict[str, Any]:
    """The record the archive stored (:func:`packed`)."""
    record: dict[str, Any] = json.loads(zlib.decompress(stored))
    return record


@dataclass(frozen=True)
class Move:
    """One move of a game, as an action row holds it (its time aside)."""

    ply: int
    seat: int
    action: str
    latency_ms: float | None
    fault: str | None
    fault_detail: str | None
    debug: str | None


def moves(session: Session, game_id: int, start: int = 0, stop: int | None = None) -> list[Move]:
    """The archived moves of plies ``start`` to ``stop`` (excluded; default the last) of the game; none when it is
    not archived."""
    row = session.execute(
        select(ArchivedGame.record, ArchivedGame.details).where(
            ArchivedGame.game_id == game_id, ArchivedGame.record.is_not(None)
        )
    ).one_or_none()
    if row is None:
        return []
    record, details = row
    details = details or {}
    end = stop if stop is not None else float("inf")
    return [
        Move(
            move["ply"],
            move["seat"],
            move["action"],
            move.get("latency_ms"),
            move.get("fault"),
            details.get(str(move["ply"])),
            move.get("debug"),
        )
        for move in unpacked(record)["actions"]
        if start <= move["ply"] < end
    ]


def instead(
    session: Session, game: Game, rows: Sequence[Any], start: int, stop: int | None = None
) -> list[Move] | None:
    """The archived moves of plies ``start`` to ``stop`` when ``rows`` (the action rows read for them) are none
    although the finished game has moves there; else ``None`` (read the rows)."""
    if rows or game.status != "over" or game.ply <= start or (stop is not None and stop <= start):
        return None
    return moves(session, game.id, start, stop)
