"""What the game viewer lists and shows per step, from the stored action log and the events derived from it.

Step 0 is the opening (the deal, the first player); step ``n`` is the game after its ``n``-th action, whose events
carry ``ply = n`` (``store/eventlog.py``). A live game shows only public events (``to_seat`` null), and describes
each move by its public event, never by its action id (a secret tiebreaker choice is in the id). A finished game
shows every event, each seat's private ones included; a public event that only repeats a private one without its
detail (a draw's "1 card", the deal's "5 cards each", a tiebreaker's "choose the cards") is left out there. A move's
fault detail and its bot's debug text are everyone's once the game is over, and while it runs those of the seats the
viewer's token owns (``owned``: ``service/web/owner.py``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import i18n
from store import archivedmoves, eventlog
from store.eventlog import LoggedEvent
from store.models import ActionRecord, Game

MOVE_EVENTS = ("move", "action")
"""The event types that describe the action itself (board: ``move``; card game: ``action``)."""


@dataclass
class Step:
    ply: int
    """The step this action leads to (its ply + 1)."""
    seat: int
    text: str
    latency_ms: float | None
    fault: str | None
    action: str | None
    """The action id: finished games only."""
    detail: str | None = None
    """The fault in words: finished games, and while a game runs the seats the viewer's token owns (as
    ``GET /api/v1/bots/{id}/faults`` shows them to the bot's owner)."""
    debug: str | None = None
    """The bot's debug text of the move: shown as ``detail``."""


@dataclass
class StepEvents:
    texts: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    """Board pawns the step's move moved."""


def _ply(event: LoggedEvent) -> int:
    return event.ply


def _events(session: Session, game: Game, finished: bool, first: int, last: int) -> list[LoggedEvent]:
    """The events of steps ``first`` to ``last``, in order; the public ones only unless the game is finished."""
    events = eventlog.events(session, game)  # in ply order: numbered as they happened
    chosen = events[bisect_left(events, first, key=_ply) : bisect_right(events, last, key=_ply)]
    return chosen if finished else [event for event in chosen if event.to_seat is None]


def shown(records: Iterable[LoggedEvent], finished: bool) -> list[dict[str, Any]]:
    """The payloads a step shows, in order: a finished game drops the public twins of private events."""
    records = list(records)
    if not finished:
        return [record.payload for record in records if record.to_seat is None]
    private = {
        (record.payload.get("type"), record.payload.get("seat"))
        for record in records
        if record.to_seat is not None
    }
    private_types = {kind for kind, _ in private}
    return [
        record.payload
        for record in records
        if record.to_seat is not None
        or (
            (record.payload.get("type"), record.payload.get("seat")) not in private
            and not (record.payload.get("type") == "deal" and "deal" in private_types)
        )
    ]


def _move_event(payloads: Iterable[dict[str, Any]], seat: int) -> dict[str, Any] | None:
    return next(
        (event for event in payloads if event.get("type") in MOVE_EVENTS and event.get("seat") == seat), None
    )


def steps(
    session: Session,
    game: Game,
    finished: bool,
    language: str,
    after: int = 0,
    last: int | None = None,
    owned: Collection[int] = (),
) -> list[Step]:
    """The moves of steps ``after + 1`` to ``last`` (default: the latest), each with its text, the bot's latency
    and its fault; with the fault's detail and the bot's debug text too in a finished game, and in a running one
    for the ``owned`` seats."""
    query = select(
        ActionRecord.ply,
        ActionRecord.seat,
        ActionRecord.action,
        ActionRecord.latency_ms,
        ActionRecord.fault,
        ActionRecord.fault_detail,
        ActionRecord.debug,
    ).where(ActionRecord.game_id == game.id, ActionRecord.ply >= after)
    if last is not None:
        query = query.where(ActionRecord.ply < last)
    actions: Sequence[Any] = session.execute(query.order_by(ActionRecord.ply)).all()
    archived = archivedmoves.instead(session, game, actions, after, last)
    if archived is not None:  # an archived game: its moves from its record
        actions = [
            (move.ply, move.seat, move.action, move.latency_ms, move.fault, move.fault_detail, move.debug)
            for move in archived
        ]
    if not actions:
        return []
    by_ply: dict[int, list[LoggedEvent]] = defaultdict(list)
    for record in _events(session, game, finished, after + 1, actions[-1][0] + 1):
        if record.payload.get("type") in MOVE_EVENTS:
            by_ply[record.ply].append(record)
    out = []
    for ply, seat, action, latency, fault, detail, debug in actions:
        event = _move_event(shown(by_ply.get(ply + 1, []), finished), seat)
        if event is not None:
            description = i18n.describe_action(game.game, event, language)
        else:
            description = action if finished else "—"
        shown_only: tuple[str | None, str | None, str | None] = (None, None, None)
        if finished:
            shown_only = (action, detail, debug)
        elif seat in owned:  # never the action id while the game runs: a tiebreaker's secret choice is in it
            shown_only = (None, detail, debug)
        out.append(Step(ply + 1, seat, description, latency, fault, *shown_only))
    return out


def step_events(session: Session, game: Game, ply: int, finished: bool, language: str) -> StepEvents:
    """The sentences of what happened at step ``ply``, and the pawns its move moved."""
    payloads = shown(_events(session, game, finished, ply, ply), finished)
    moved = [
        str(part["pawn"])
        for event in payloads
        if event.get("type") == "move"
        for part in event.get("moves") or []
        if "pawn" in part
    ]
    return StepEvents([i18n.describe_event(game.game, event, language) for event in payloads], moved)
