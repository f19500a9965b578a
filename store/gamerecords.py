"""Game records (``engine/records.py``) of stored games: one finished game, or a tournament's finished games as a
stream.

Finished only: a game still played would show its seed, so every card to come. A tournament game counts as
finished once its result is written (``results``: its ranks with forfeits applied, after ``gamelog.finish``) and
the twin that shares its deal, if any, is over too (``store/deals.py``); any other game once it is ``over``. A seat is named by its bot in a tournament game (the scheduled game's
``bot_ids``), by its player otherwise (a challenge's person's seat too: ``store/challenges.py``). A tournament is
read in batches of games (each batch's games, seats and actions in a few statements, the transaction ended before
its records are handed out), so that a tournament of any size takes the memory of one batch and no connection is
held while the caller writes.

Every record is checked against the engine before it is handed out (``engine.records.check``, the check of
``sorry-arena replay`` and ``sorry-arena view``), so an export never holds a record that fails its replay: a stored
game whose record fails (its data damaged, or written by a bug since fixed) is left out of a tournament's stream with
a warning line naming the game and its problems, and its own record is refused (:class:`Unsound`).

An archived game (``store/retention.py``: its action rows deleted) is answered with the record it was archived
with, the same bytes as before.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine.records import check, make_record
from store import archivedmoves, deals
from store.challenges import HUMAN
from store.gamelog import as_utc
from store.models import ActionRecord, ArchivedGame, Bot, Game, Player, Result, Seat, TournamentGame

log = logging.getLogger(__name__)
BATCH = 50
"""Games read per batch of a tournament's records."""


class NotFinished(Exception):
    """The game is still being played: its record (and seed) is not shown yet."""


class Unsound(Exception):
    """The game's stored record fails its check against the engine (``engine.records.check``): it is not exported."""


_GAME_COLUMNS = (Game.id, Game.game, Game.settings, Game.seed, Game.status, Game.result, Game.created_at)
"""What a record needs of a game row (never its state: the largest column)."""


def game_record(session: Session, game_id: int) -> dict[str, Any] | None:
    """The record of a finished game; ``None`` when there is no such game. Raises :class:`NotFinished` while it
    is played (a tournament game: until its result is written), :class:`Unsound` when it fails its check."""
    row = session.execute(
        select(*_GAME_COLUMNS, Game.updated_at, TournamentGame.tournament_id, TournamentGame.bot_ids)
        .outerjoin(TournamentGame, TournamentGame.game_id == Game.id)
        .where(Game.id == game_id)
    ).one_or_none()
    if row is None:
        return None
    *game, updated_at, tournament_id, bot_ids = row
    if tournament_id is None:
        if row.status != "over":
            raise NotFinished(f"game {game_id} is still being played")
        return sound(_records(session, [(tuple(game), updated_at)], None, {})[0])
    finished_at = session.scalar(select(Result.finished_at).where(Result.game_id == game_id))
    if finished_at is None:
        raise NotFinished(f"game {game_id} of tournament {tournament_id} is still being played")
    if deals.twin_in_play(session, game_id):
        raise NotFinished(
            f"game {game_id} shares its deal with a game of tournament {tournament_id} still to be played"
        )
    bots = _bots(session, bot_ids)
    return sound(_records(session, [(tuple(game), finished_at)], (tournament_id, {game_id: bot_ids}), bots)[0])


def sound(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` when it passes ``engine.records.check``; else :class:`Unsound`, logged with its problems."""
    problems = check(record)
    if problems:
        log.warning(
            "game %s: its stored record fails its replay, not exported: %s",
            record.get("game_id"),
            "; ".join(problems),
        )
        raise Unsound(f"game {record.get('game_id')}: its stored record fails its replay check ({problems[0]})")
    return record


def tournament_records(session: Session, tournament_id: int, batch: int = BATCH) -> Iterator[dict[str, Any]]:
    """The records of a tournament's finished games that pass their check (:func:`sound`), in play order, read
    ``batch`` games at a time; the session's transaction is ended before each batch is yielded."""
    bots: dict[int, Any] = {}
    after = -1
    while True:
        rows = session.execute(
            select(*_GAME_COLUMNS, Result.finished_at, TournamentGame.number, TournamentGame.bot_ids)
            .join(TournamentGame, TournamentGame.game_id == Game.id)
            .join(Result, Result.tournament_game_id == TournamentGame.id)
            .where(
                TournamentGame.tournament_id == tournament_id,
                TournamentGame.number > after,
                ~deals.twin_not_over(),
            )
            .order_by(TournamentGame.number)
            .limit(batch)
        ).all()
        if not rows:
            session.commit()
            return
        seatings = {row.id: row.bot_ids for row in rows}
        missing = {bot_id for ids in seatings.values() for bot_id in ids} - set(bots)
        bots.update(_bots(session, missing))
        games = [(tuple(row[: len(_GAME_COLUMNS)]), row.finished_at) for row in rows]
        records = _records(session, games, (tournament_id, seatings), bots)
        session.commit()  # read-only: ends the transaction, and gives the connection back while the caller writes
        for record in records:
            try:
                yield sound(record)
            except Unsound:  # logged: the stream goes on without it
                continue
        after = rows[-1].number


def _bots(session: Session, bot_ids: Sequence[int] | set[int]) -> dict[int, Any]:
    if not bot_ids:
        return {}
    rows = session.execute(select(Bot.id, Bot.name, Bot.player_id).where(Bot.id.in_(list(bot_ids))))
    return {row.id: row for row in rows}


def _records(
    session: Session,
    games: list[tuple[tuple[Any, ...], datetime]],
    tournament: tuple[int, dict[int, list[int]]] | None,
    bots: dict[int, Any],
) -> list[dict[str, Any]]:
    """The records of ``games`` ((game row, finish time) pairs) in their order, with their actions and seats (an
    archived game's: the record it was archived with)."""
    archived = {
        game_id: archivedmoves.unpacked(bytes(record or b""))
        for game_id, record in session.execute(
            select(ArchivedGame.game_id, ArchivedGame.record).where(
                ArchivedGame.game_id.in_([game[0] for game, _ in games]), ArchivedGame.record.is_not(None)
            )
        )
    }
    ids = [game[0] for game, _ in games if game[0] not in archived]
    actions: dict[int, list[dict[str, Any]]] = defaultdict(list)
    moves = session.execute(
        select(
            ActionRecord.game_id,
            ActionRecord.ply,
            ActionRecord.seat,
            ActionRecord.action,
            ActionRecord.latency_ms,
            ActionRecord.fault,
            ActionRecord.debug,
        )
        .where(ActionRecord.game_id.in_(ids))
        .order_by(ActionRecord.game_id, ActionRecord.ply)
        .execution_options(yield_per=2000)
    )
    for game_id, ply, seat, action, latency_ms, fault, debug in moves:
        move = {"ply": ply, "seat": seat, "action": action, "latency_ms": latency_ms, "fault": fault}
        if debug is not None:  # the bot's debug text of the move: only when it sent one
            move["debug"] = debug
        actions[game_id].append(move)
    seats: dict[int, list[dict[str, Any]]] = defaultdict(list)
    people = [game_id for game_id, bot_ids in (tournament[1] if tournament else {}).items() if HUMAN in bot_ids]
    if tournament is None or people:  # the seats' accounts: every seat of a game, a challenge's person's seat
        players = session.execute(
            select(Seat.game_id, Seat.seat, Seat.player_id, Player.name)
            .join(Player, Player.id == Seat.player_id)
            .where(Seat.game_id.in_(ids if tournament is None else people))
            .order_by(Seat.game_id, Seat.seat)
        )
        for game_id, seat, player_id, name in players:
            seats[game_id].append({"seat": seat, "name": name, "player_id": player_id})
    if tournament is not None:
        for game_id, bot_ids in tournament[1].items():
            held = seats[game_id]
            seats[game_id] = [
                {"seat": seat, "name": bots[bot_id].name, "bot_id": bot_id, "player_id": bots[bot_id].player_id}
                if bot_id != HUMAN
                else held[seat]
                for seat, bot_id in enumerate(bot_ids)
            ]
    return [
        archived[game_id]
        if game_id in archived
        else make_record(
            kind,
            settings,
            seed,
            seats[game_id],
            actions[game_id],
            result,
            game_id=game_id,
            tournament_id=None if tournament is None else tournament[0],
            started_at=as_utc(created_at),
            finished_at=as_utc(finished_at),
        )
        for (game_id, kind, settings, seed, _status, result, created_at), finished_at in games
    ]
