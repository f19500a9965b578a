"""What a bot's page shows, each read bounded: counts and groups aggregated by the database, a latency percentile
as one ordered row, the recent games as a short list. Only finished games count (a running game's faults and
latencies are its bot owner's until it is over: ``store/botfaults.py``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Select, and_, func, select
from sqlalchemy.orm import Session

from store.models import ActionRecord, Bot, BotVersion, Game, Player, RatingPool, Result, Seat
from store.models.tournaments import RatingElo

RECENT_GAMES = 10
PERCENTILES = (50, 95, 99)


@dataclass
class SeatRecord:
    seat: int
    games: int = 0
    wins: int = 0


@dataclass
class RecentGame:
    id: int
    game: str
    status: str
    seat: int
    rank: int | None
    created_at: datetime


@dataclass
class BotStats:
    bot: Bot
    owner: str
    pools: list[tuple[str, str]]
    """The (game, variant) pools the bot has rated games in."""
    games: int
    """Its finished games (rated or not)."""
    seats: list[SeatRecord]
    faults: dict[str, int]
    """Faults of finished games by kind, most frequent first."""
    latency: dict[int, float | None]
    """p50, p95, p99 of its answer times in finished games (ms; ``None`` without any)."""
    recent: list[RecentGame] = field(default_factory=list)


def _moves_of(bot: Bot) -> Select[int, int]:
    """The ``(game_id, ply)`` of the bot's moves in finished games."""
    return (
        select(ActionRecord.game_id, ActionRecord.ply)
        .join(Seat, and_(Seat.game_id == ActionRecord.game_id, Seat.seat == ActionRecord.seat))
        .join(Game, Game.id == ActionRecord.game_id)
        .where(Seat.player_id == bot.player_id, Game.status == "over")
    )


def faults_by_kind(session: Session, bot: Bot) -> dict[str, int]:
    moves = _moves_of(bot).subquery()
    rows = session.execute(
        select(ActionRecord.fault, func.count())
        .join(moves, and_(moves.c.game_id == ActionRecord.game_id, moves.c.ply == ActionRecord.ply))
        .where(ActionRecord.fault.is_not(None), ActionRecord.fault != "forfeit")
        .group_by(ActionRecord.fault)
        .order_by(func.count().desc(), ActionRecord.fault)
    ).all()
    return {str(fault): count for fault, count in rows}


def latency_percentiles(session: Session, bot: Bot) -> dict[int, float | None]:
    """The nearest-rank percentiles of the bot's measured answer times: one count, then one row per percentile."""
    moves = _moves_of(bot).subquery()
    timed = (
        select(ActionRecord.latency_ms)
        .join(moves, and_(moves.c.game_id == ActionRecord.game_id, moves.c.ply == ActionRecord.ply))
        .where(ActionRecord.latency_ms.is_not(None), ActionRecord.fault.is_distinct_from("forfeit"))
    )
    count = session.scalar(select(func.count()).select_from(timed.subquery())) or 0
    out: dict[int, float | None] = {}
    for percentile in PERCENTILES:
        if count == 0:
            out[percentile] = None
            continue
        rank = max(1, math.ceil(percentile / 100 * count))
        out[percentile] = session.scalar(timed.order_by(ActionRecord.latency_ms).offset(rank - 1).limit(1))
    return out


def seat_records(session: Session, bot: Bot) -> list[SeatRecord]:
    """Games and wins per seat of the bot's finished tournament games (a win: alone at the best rank, the ranks
    with forfeits applied), from one streamed row (seat, ranks) per game."""
    rows = session.execute(
        select(Seat.seat, Result.ranks)
        .join(Result, Result.game_id == Seat.game_id)
        .where(Seat.player_id == bot.player_id)
        .execution_options(yield_per=1000)
    )
    records: dict[int, SeatRecord] = {}
    for seat, ranks in rows:
        record = records.setdefault(seat, SeatRecord(seat))
        record.games += 1
        best = min(ranks)
        record.wins += ranks[seat] == best and ranks.count(best) == 1
    return [records[seat] for seat in sorted(records)]


def pools_of(session: Session, bot: Bot) -> list[tuple[str, str]]:
    rows = session.execute(
        select(Result.game, Result.variant)
        .join(Seat, Seat.game_id == Result.game_id)
        .where(Seat.player_id == bot.player_id, Result.rated.is_(True))
        .distinct()
        .order_by(Result.game, Result.variant)
    ).all()
    return [(game, variant) for game, variant in rows]


def recent_games(session: Session, bot: Bot) -> list[RecentGame]:
    rows = session.execute(
        select(Game.id, Game.game, Game.status, Seat.seat, Game.result, Game.created_at)
        .join(Seat, Seat.game_id == Game.id)
        .where(Seat.player_id == bot.player_id)
        .order_by(Game.id.desc())
        .limit(RECENT_GAMES)
    ).all()
    return [
        RecentGame(game_id, kind, status, seat, (result or {}).get("ranks", [None] * (seat + 1))[seat], created)
        for game_id, kind, status, seat, result, created in rows
    ]


def bot_stats(session: Session, bot: Bot) -> BotStats:
    owner = session.scalar(select(Player.name).where(Player.id == bot.owner_id)) or ""
    games = session.scalar(
        select(func.count())
        .select_from(Seat)
        .join(Game, Game.id == Seat.game_id)
        .where(Seat.player_id == bot.player_id, Game.status == "over")
    )
    return BotStats(
        bot=bot,
        owner=owner,
        pools=pools_of(session, bot),
        games=games or 0,
        seats=seat_records(session, bot),
        faults=faults_by_kind(session, bot),
        latency=latency_percentiles(session, bot),
        recent=recent_games(session, bot),
    )


def pool_faults(session: Session, game: str, variant: str) -> dict[int, int]:
    """Faults per bot id over the results its pool counts, from the pool's running state (``rating_elo.faults``,
    kept with each result by ``tournament/poolstate.py``): a row per bot version, whatever the pool's history."""
    rows = session.execute(
        select(BotVersion.bot_id, func.sum(RatingElo.faults))
        .select_from(RatingElo)
        .join(RatingPool, RatingPool.id == RatingElo.pool_id)
        .join(BotVersion, BotVersion.id == RatingElo.version_id)
        .where(RatingPool.game == game, RatingPool.variant == variant)
        .group_by(BotVersion.bot_id)
    ).all()
    return {bot_id: int(count) for bot_id, count in rows if count}


def tournament_faults(session: Session, tournament_id: int) -> dict[int, dict[str, int]]:
    """Faults per bot id and kind over a tournament's finished games (those with a result: a running game's faults
    are its bots' owners' until it is over), in one grouped count; bots without faults are left out."""
    rows = session.execute(
        select(Bot.id, ActionRecord.fault, func.count())
        .select_from(Result)
        .join(ActionRecord, ActionRecord.game_id == Result.game_id)
        .join(Seat, and_(Seat.game_id == ActionRecord.game_id, Seat.seat == ActionRecord.seat))
        .join(Bot, Bot.player_id == Seat.player_id)
        .where(
            Result.tournament_id == tournament_id,
            ActionRecord.fault.is_not(None),
            ActionRecord.fault != "forfeit",
        )
        .group_by(Bot.id, ActionRecord.fault)
    ).all()
    found: dict[int, dict[str, int]] = {}
    for bot_id, fault, count in rows:
        found.setdefault(bot_id, {})[str(fault)] = count
    return found


def seat_bots(session: Session, game_id: int) -> dict[int, int]:
    """The bot id of each seat of a game held by a bot."""
    rows = session.execute(
        select(Seat.seat, Bot.id).join(Bot, Bot.player_id == Seat.player_id).where(Seat.game_id == game_id)
    ).all()
    return {seat: bot_id for seat, bot_id in rows}
