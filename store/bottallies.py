"""Running tallies of finished games, so that a bot's page and a tournament's read a few rows instead of every move:
a bot's faults by kind, answer times by bucket, games, and tournament games and wins by seat; a tournament's faults
by bot and kind.

A finished game (``over``; a cancelled one never counts) is folded into the tallies once: :func:`fold` takes a batch
of the finished games not yet ``tallied`` (a partial index holds only the games not tallied), marks them and adds
what they hold, in one transaction. The workers' upkeep and the embedded service's maintenance call it. :func:`read`
gives a player's tallies as of now, :func:`read_tournament` a tournament's faults: the stored counts plus what the
finished games still waiting for the fold hold, counted from their moves in the same statement (so the figures never
lag, and no game is counted twice or missed while a fold commits). The fold and the reads count with the same
statements (:func:`_counting`) and rules (:func:`_counted`). :func:`fault_rates` gives bots' faults per 100 moves
from the stored tallies alone (the pool standings' column beside the forfeit rate).

What is counted, the rules of the page it serves (``service/web/bot_stats.py``):

- a fault: a move of the player's seat that the fallback played (``actions.fault``), a ``forfeit`` (a turn played
  for a seat that had already forfeited) excepted;
- an answer time: a move's ``latency_ms``, forfeited turns excepted, in a bucket named by its upper bound in
  microseconds, the time rounded up to three significant digits (so a percentile read from the buckets is at most
  1% above the exact one);
- games: the finished games the player sat in; by seat, its tournament games (those with a result) and its wins
  there (alone at the best rank, the ranks with forfeits applied);
- a tournament's faults: those of its games with a result (a game over while its tournament was cancelled, before
  its result, counts for its bots only).

A void game (``results.void_reason``: a seat forfeited for a reason on the service's side) counts as a game without
ranks: its faults (a refused signature is one its bot's owner must see) and answer times count, for its bots and its
tournament, but it adds no tournament game or win by seat.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Float,
    Integer,
    Select,
    String,
    Text,
    and_,
    case,
    cast,
    delete,
    func,
    literal,
    null,
    select,
    text,
    union_all,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from store import gamelog
from store.fastlane import param
from store.models import ActionRecord, Bot, BotTally, Game, Result, Seat, TournamentFaultTally, TournamentGame

FAULT = "fault"
LATENCY = "latency"
GAMES = "games"
SEAT_GAMES = "seat_games"
SEAT_WINS = "seat_wins"

FOLD_BATCH = 500
"""Games folded per transaction (their moves read first: SQLite's write lock is held only to mark and add)."""
FOLD_LOCK = 0x5A11A7
"""The PostgreSQL advisory lock one fold holds at a time (on SQLite the database's write lock does it)."""

UNTALLIED = and_(Game.status == "over", text("NOT games.tallied"))
"""A finished game not tallied yet, found along the partial index ``ix_games_untallied`` (``status, id`` of the games
not tallied): its predicate spelled as the index's, ``NOT tallied``, since neither database sees that the index holds
the games asked for otherwise (``tallied IS false`` on PostgreSQL, ``tallied = 0`` on SQLite: they scan every game
finished instead)."""

Key = tuple[int, str, str]
"""(player id, measure, key) of a player's tally."""
TournamentKey = tuple[int, int, str]
"""(tournament id, player id, kind) of a tournament's count of faults."""


def bucket(latency_ms: float) -> int:
    """The bucket of an answer time: its upper bound in microseconds, the time rounded up to three significant
    digits (``12.345`` ms: ``12400``)."""
    micros = max(1, math.ceil(round(latency_ms * 1000, 6)))  # 0.1 ms: 100 µs, not 101
    scale = 10 ** max(0, len(str(micros)) - 3)
    return int(-(-micros // scale) * scale)


@dataclass
class Counted:
    """What some finished games add: to their players' tallies (``bots``) and to their tournaments' faults by bot
    and kind (``tournaments``, the games with a result only)."""

    bots: Counter[Key] = field(default_factory=Counter)
    tournaments: Counter[TournamentKey] = field(default_factory=Counter)


_NO_LATENCY = cast(null(), Float)
_NO_RANKS = cast(null(), Text)
_NO_TOURNAMENT = cast(null(), Integer)
"""The empty columns of a counting row (typed, for PostgreSQL's ``UNION``)."""
SEATED = "seated"
"""Not a measure: a row of :func:`_counting` that counts the games of one seat with one result (or none)."""


def _counting(
    games: ColumnElement[bool], player_id: int | None, *, games_first: bool = False
) -> list[Select[Any]]:
    """The statements that count what the games matching ``games`` hold for their players (``player_id``'s seats
    only, if given), a row each: ``(player, measure, key, count, latency, ranks, tournament)``. Faults are grouped by
    kind and tournament (a game with a result), answer times by value, seats by seat and result (``SEATED``: the
    ranks as JSON text, none outside tournaments). :func:`_counted` makes tallies of the rows.

    ``games_first``: the player's seats are not looked up by their index (``player_id + 0``), so that SQLite, which
    keeps no statistics, starts from the few games waiting rather than from every seat of the player."""
    player = Seat.player_id + 0 if games_first else Seat.player_id
    seats = (
        and_(Seat.game_id == Game.id, games)
        if player_id is None
        else and_(Seat.game_id == Game.id, games, player == player_id)
    )
    moves = and_(ActionRecord.game_id == Seat.game_id, ActionRecord.seat == Seat.seat)
    ranks = case((Result.void_reason.is_(None), cast(Result.ranks, Text)), else_=_NO_RANKS)  # a void game: none

    def played() -> Select[Any]:
        return (
            select()
            .select_from(Seat)
            .join(Game, seats)
            .outerjoin(TournamentGame, TournamentGame.game_id == Game.id)
            .outerjoin(Result, Result.tournament_game_id == TournamentGame.id)
        )

    faults = (
        played()
        .add_columns(
            Seat.player_id,
            literal(FAULT),
            ActionRecord.fault,
            func.count(),
            _NO_LATENCY,
            _NO_RANKS,
            Result.tournament_id,
        )
        .join(ActionRecord, moves)
        .where(ActionRecord.fault.is_not(None), ActionRecord.fault != "forfeit")
        .group_by(Seat.player_id, ActionRecord.fault, Result.tournament_id)
    )
    latencies = (
        played()
        .add_columns(
            Seat.player_id,
            literal(LATENCY),
            literal(""),
            func.count(),
            ActionRecord.latency_ms,
            _NO_RANKS,
            _NO_TOURNAMENT,
        )
        .join(ActionRecord, moves)
        .where(ActionRecord.latency_ms.is_not(None), ActionRecord.fault.is_distinct_from("forfeit"))
        .group_by(Seat.player_id, ActionRecord.latency_ms)
    )
    seated = (
        played()
        .add_columns(
            Seat.player_id,
            literal(SEATED),
            cast(Seat.seat, String),
            func.count(),
            _NO_LATENCY,
            ranks,
            _NO_TOURNAMENT,
        )
        .group_by(Seat.player_id, Seat.seat, ranks)
    )
    return [faults, latencies, seated]


def _counted(rows: Iterable[Any]) -> Counted:
    """The tallies the rows of :func:`_counting` (and stored tallies' rows, passed through) make."""
    found = Counted()
    for player, measure, key, count, latency, ranks, tournament in rows:
        if measure == LATENCY and latency is not None:
            found.bots[(player, LATENCY, str(bucket(latency)))] += count
        elif measure == SEATED:
            found.bots[(player, GAMES, "")] += count
            if ranks is None:
                continue
            seat, order = int(key), json.loads(ranks)
            found.bots[(player, SEAT_GAMES, key)] += count
            best = min(order)
            if order[seat] == best and order.count(best) == 1:
                found.bots[(player, SEAT_WINS, key)] += count
        else:
            found.bots[(player, measure, key)] += count
            if measure == FAULT and tournament is not None:
                found.tournaments[(tournament, player, key)] += count
    return found


def tally(session: Session, game_ids: Sequence[int]) -> Counted:
    """What the finished games ``game_ids`` add to the tallies."""
    return _counted(session.execute(union_all(*_counting(Game.id.in_(game_ids), None))))


def _waiting() -> Select[int]:
    """The finished games not tallied yet whose result, if they are a tournament's, is written (a tournament game
    is over a moment before its result: it waits for it, unless its tournament was cancelled meanwhile)."""
    pending = select(TournamentGame.id).where(
        TournamentGame.game_id == Game.id, TournamentGame.status.not_in(("done", "cancelled"))
    )
    return select(Game.id).where(UNTALLIED, ~pending.exists())


def _locked(session: Session) -> bool:
    """Take the fold's lock for the transaction (PostgreSQL); ``False`` if another fold holds it."""
    if session.get_bind().dialect.name != "postgresql":
        return True
    return bool(session.scalar(text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": FOLD_LOCK}))


def _add(session: Session, model: Any, columns: list[str], counts: Counter[Any]) -> None:
    """Add ``counts`` (by the key ``columns``) to the table's rows, in the keys' order (two writers never take each
    other's rows in opposite orders): on PostgreSQL one statement whose rows are ``unnest``-ed from an array per
    column, on SQLite an ``executemany`` (each a few microseconds a row)."""
    if not counts:
        return
    table = model.__table__
    keys = sorted(counts)
    if session.get_bind().dialect.name == "postgresql":
        arrays = {column: [key[index] for key in keys] for index, column in enumerate(columns)}
        arrays["count"] = [counts[key] for key in keys]
        types = {
            column: table.c[column].type.compile(session.get_bind().dialect) for column in [*columns, "count"]
        }
        listed = ", ".join(f"CAST(:{column} AS {types[column]}[])" for column in arrays)
        names = ", ".join(arrays)
        session.execute(
            text(
                f"INSERT INTO {table.name} ({names}) SELECT * FROM unnest({listed}) "
                f"ON CONFLICT ({', '.join(columns)}) DO UPDATE SET count = {table.name}.count + excluded.count"
            ),
            arrays,
        )
        return
    if keys:
        session.connection().execute(
            _upsert(model, tuple(columns)),
            [{**dict(zip(columns, key, strict=True)), "count": counts[key]} for key in keys],
        )


@functools.cache
def _upsert(model: Any, columns: tuple[str, ...]) -> Any:
    """SQLite's statement that adds a count to the row of ``columns`` (made, and compiled, once per table)."""
    table = model.__table__
    insert = sqlite.insert(table).values({column: param(column) for column in (*columns, "count")})
    return insert.on_conflict_do_update(
        index_elements=columns, set_={"count": table.c.count + insert.excluded.count}
    )


def fold(session: Session, limit: int = FOLD_BATCH) -> int:
    """Fold up to ``limit`` finished games not yet tallied into their players' tallies and commit; how many were
    folded (0: none waits, or another fold runs now). Each game is marked ``tallied`` by the same transaction that
    adds it, so none is counted twice or lost, whoever folds."""
    if not _locked(session):
        session.rollback()
        return 0
    waiting = list(session.scalars(_waiting().order_by(Game.id).limit(limit)))
    if not waiting:
        session.rollback()
        return 0
    # read before the first write: SQLite's write lock is held only to mark and add
    found = tally(session, waiting)
    marked = gamelog.mark_tallied(session, waiting)
    if len(marked) < len(waiting):  # another process's fold took some meanwhile (SQLite): count only this one's
        found = tally(session, marked)
    _add(session, BotTally, ["player_id", "measure", "key"], found.bots)
    _add(session, TournamentFaultTally, ["tournament_id", "player_id", "fault"], found.tournaments)
    session.commit()
    return len(marked)


def reset(session: Session) -> None:
    """Empty the tallies and mark every game as not counted, committed: the next folds count everything again
    (the pages meanwhile count every finished game from its moves)."""
    session.execute(delete(BotTally))
    session.execute(delete(TournamentFaultTally))
    gamelog.unmark_tallied(session)
    session.commit()


def fold_all(session: Session, seconds: float = 1.0) -> int:
    """Fold batches until none waits or ``seconds`` are spent; how many games were folded."""
    folded, started = 0, time.monotonic()
    while time.monotonic() - started < seconds:
        done = fold(session)
        folded += done
        if done == 0:
            break
    return folded


@dataclass
class Tallies:
    """A player's tallies (:func:`read`)."""

    games: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    """By kind, the most frequent first."""
    latency: dict[int, int] = field(default_factory=dict)
    """Answers by bucket (upper bound in microseconds), in ascending order."""
    seat_games: dict[int, int] = field(default_factory=dict)
    seat_wins: dict[int, int] = field(default_factory=dict)

    def percentile(self, percentile: float) -> float | None:
        """The nearest-rank ``percentile`` of the answer times, in ms, to three significant digits rounded up
        (``None`` without any)."""
        total = sum(self.latency.values())
        if total == 0:
            return None
        rank, seen = max(1, math.ceil(percentile / 100 * total)), 0
        for upper, count in self.latency.items():
            seen += count
            if seen >= rank:
                return upper / 1000
        raise AssertionError("the ranks add up to the total")


def read(session: Session, player_id: int) -> Tallies:
    """The player's tallies as of now: stored, plus what its finished games the fold has not reached yet hold,
    counted from their moves in the same statement (one moment: a game is in one or the other)."""
    stored = select(
        literal(player_id), BotTally.measure, BotTally.key, BotTally.count, _NO_LATENCY, _NO_RANKS, _NO_TOURNAMENT
    ).where(BotTally.player_id == player_id)
    sqlite = session.get_bind().dialect.name == "sqlite"
    found = _counted(session.execute(union_all(stored, *_counting(UNTALLIED, player_id, games_first=sqlite)))).bots
    tallies = Tallies()
    for (_, measure, key), count in found.items():
        if measure == GAMES:
            tallies.games += count
        elif measure == FAULT:
            tallies.faults[key] = count
        elif measure == LATENCY:
            tallies.latency[int(key)] = count
        elif measure == SEAT_GAMES:
            tallies.seat_games[int(key)] = count
        elif measure == SEAT_WINS:
            tallies.seat_wins[int(key)] = count
    tallies.faults = dict(sorted(tallies.faults.items(), key=lambda item: (-item[1], item[0])))
    tallies.latency = dict(sorted(tallies.latency.items()))
    return tallies


def fault_rates(session: Session, bot_ids: Collection[int]) -> dict[int, float]:
    """Faults per 100 moves of each of these bots (by bot id, not its account) over its finished games as the fold
    has tallied them: its faults (every kind) over its moves with an answer time (``latency``: every move of its
    seats but the forfeited turns). One statement over the stored tallies, a few rows per bot (a game not folded yet
    counts from the next fold, seconds later); a bot without a move counted is left out."""
    if not bot_ids:
        return {}
    counted = session.execute(
        select(Bot.id, BotTally.measure, func.sum(BotTally.count))
        .join(Bot, Bot.player_id == BotTally.player_id)
        .where(Bot.id.in_(set(bot_ids)), BotTally.measure.in_((FAULT, LATENCY)))
        .group_by(Bot.id, BotTally.measure)
    ).all()
    faults = {bot: int(count) for bot, measure, count in counted if measure == FAULT}
    moves = {bot: int(count) for bot, measure, count in counted if measure == LATENCY and count}
    return {bot: 100.0 * faults.get(bot, 0) / count for bot, count in moves.items()}


def read_tournament(session: Session, tournament_id: int) -> dict[int, dict[str, int]]:
    """The faults of the tournament's finished games (those with a result) by player and kind, as of now: stored,
    plus those of its games the fold has not reached yet, counted from their moves in the same statement."""
    stored = select(
        TournamentFaultTally.player_id,
        literal(FAULT),
        TournamentFaultTally.fault,
        TournamentFaultTally.count,
        _NO_LATENCY,
        _NO_RANKS,
        TournamentFaultTally.tournament_id,
    ).where(TournamentFaultTally.tournament_id == tournament_id)
    its_games = Game.id.in_(select(TournamentGame.game_id).where(TournamentGame.tournament_id == tournament_id))
    faults = _counting(and_(UNTALLIED, its_games), None)[0]
    found: dict[int, dict[str, int]] = {}
    for (_, player, fault), count in sorted(
        _counted(session.execute(union_all(stored, faults))).tournaments.items()
    ):
        found.setdefault(player, {})[fault] = count
    return found
