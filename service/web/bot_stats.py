"""What a bot's page shows, each read bounded whatever the bot's history: its games, wins by seat, faults by kind
and answer-time percentiles from its running tallies (``store/bottallies.py``: a few rows, plus the finished games
not folded into them yet), its pools from their running states, the recent games as a short list. Only finished
games count (a running game's faults and latencies are its bot owner's until it is over: ``store/botfaults.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from store import bottallies
from store.models import Bot, BotVersion, Game, Player, RatingPool, Seat
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
    void_reason: str | None = None
    """Why the game is void (rated for nobody), or ``None``."""


@dataclass
class BotStats:
    bot: Bot
    owner: str
    pools: list[tuple[str, str, int]]
    """The (game, variant, table size) pools the bot has rated games in."""
    games: int
    """Its finished games (rated or not)."""
    seats: list[SeatRecord]
    faults: dict[str, int]
    """Faults of finished games by kind, most frequent first."""
    latency: dict[int, float | None]
    """p50, p95, p99 of its answer times in finished games (ms to three significant digits, rounded up; ``None``
    without any)."""
    recent: list[RecentGame] = field(default_factory=list)


def pools_of(session: Session, bot: Bot) -> list[tuple[str, str, int]]:
    """The pools whose running state counts a result of one of the bot's versions (a row per version and pool)."""
    rows = session.execute(
        select(RatingPool.game, RatingPool.variant, RatingPool.table_size)
        .join(RatingElo, RatingElo.pool_id == RatingPool.id)
        .join(BotVersion, BotVersion.id == RatingElo.version_id)
        .where(BotVersion.bot_id == bot.id)
        .distinct()
        .order_by(RatingPool.game, RatingPool.variant, RatingPool.table_size)
    ).all()
    return [(game, variant, size) for game, variant, size in rows]


def recent_games(session: Session, bot: Bot) -> list[RecentGame]:
    rows = session.execute(
        select(Game.id, Game.game, Game.status, Seat.seat, Game.result, Game.created_at)
        .join(Seat, Seat.game_id == Game.id)
        .where(Seat.player_id == bot.player_id)
        .order_by(Seat.id.desc())  # the games it joined last, read backwards along the index of its seats
        .limit(RECENT_GAMES)
    ).all()
    return [
        RecentGame(
            game_id,
            kind,
            status,
            seat,
            (result or {}).get("ranks", [None] * (seat + 1))[seat],
            created,
            (result or {}).get("void_reason"),
        )
        for game_id, kind, status, seat, result, created in rows
    ]


def bot_stats(session: Session, bot: Bot) -> BotStats:
    owner = session.scalar(select(Player.name).where(Player.id == bot.owner_id)) or ""
    tallies = bottallies.read(session, bot.player_id)
    return BotStats(
        bot=bot,
        owner=owner,
        pools=pools_of(session, bot),
        games=tallies.games,
        seats=[
            SeatRecord(seat, games, tallies.seat_wins.get(seat, 0))
            for seat, games in sorted(tallies.seat_games.items())
        ],
        faults=tallies.faults,
        latency={percentile: tallies.percentile(percentile) for percentile in PERCENTILES},
        recent=recent_games(session, bot),
    )


def pool_faults(session: Session, game: str, variant: str, table_size: int) -> dict[int, int]:
    """Faults per bot id over the results its pool counts, from the pool's running state (``rating_elo.faults``,
    kept with each result by ``tournament/standings/poolstate.py``): a row per bot version, whatever the pool's history."""
    rows = session.execute(
        select(BotVersion.bot_id, func.sum(RatingElo.faults))
        .select_from(RatingElo)
        .join(RatingPool, RatingPool.id == RatingElo.pool_id)
        .join(BotVersion, BotVersion.id == RatingElo.version_id)
        .where(*RatingPool.key(game, variant, table_size))
        .group_by(BotVersion.bot_id)
    ).all()
    return {bot_id: int(count) for bot_id, count in rows if count}


def tournament_faults(session: Session, tournament_id: int) -> dict[int, dict[str, int]]:
    """Faults per bot id and kind over a tournament's finished games (those with a result: a running game's faults
    are its bots' owners' until it is over), from its running tallies (``store/bottallies.py``); bots without faults
    are left out."""
    by_player = bottallies.read_tournament(session, tournament_id)
    if not by_player:
        return {}
    bots = dict(session.execute(select(Bot.player_id, Bot.id).where(Bot.player_id.in_(by_player))).all())
    return {bots[player]: faults for player, faults in by_player.items() if player in bots}


def seat_bots(session: Session, game_id: int) -> dict[int, int]:
    """The bot id of each seat of a game held by a bot."""
    rows = session.execute(
        select(Seat.seat, Bot.id).join(Bot, Bot.player_id == Seat.player_id).where(Seat.game_id == game_id)
    ).all()
    return {seat: bot_id for seat, bot_id in rows}
