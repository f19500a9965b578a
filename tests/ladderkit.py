"""Helpers of the ladder tests and of ``benchmarks/ladder.py``: a ladder made by inserting its rows (its tournament,
its ladder row, an entry per bot, as the service's ``POST /api/v1/ladders`` and joins make them), bots inserted in
bulk (pull bots, without a call to them), a ladder closed as the service closes one, and reads of its state."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

import engine
from ratings import wenglin
from store.models import Bot, Player, Tournament, TournamentGame, new_seed_salt, now
from store.models.ladders import Ladder, LadderEntry, LadderGame


def new_ladder(
    session: Session,
    owner_id: int,
    game: str,
    settings: dict[str, Any] | None,
    table_size: int,
    budget: int,
    max_in_play: int,
    bot_ids: list[int],
    *,
    name: str = "ladder",
    move_timeout_ms: int = 20_000,
    rated: bool = True,
    seed: int = 7,
    variant: str = "standard",
) -> Ladder:
    """A new open ladder of ``bot_ids`` (each a newcomer: mu, sigma of Weng-Lin's start), committed."""
    normalized = engine.normalize_settings(game, {**(settings or {}), "players": table_size})
    tournament = Tournament(
        owner_id=owner_id,
        name=name,
        game=game,
        settings=normalized,
        variant=variant,
        bot_ids=[],
        table_size=table_size,
        rounds=0,
        seed=seed,
        seed_salt=new_seed_salt(),
        official=False,
        move_timeout_ms=move_timeout_ms,
        rated=rated,
        run=1,
        status="running",
        games_total=0,
        created_at=now(),
    )
    session.add(tournament)
    session.flush()
    ladder = Ladder(
        tournament_id=tournament.id,
        budget_per_hour=budget,
        max_in_play=max_in_play,
        status="open",
        created_at=now(),
    )
    session.add(ladder)
    session.flush()
    join(session, ladder.id, table_size, bot_ids)
    session.commit()
    return ladder


def join(
    session: Session, ladder_id: int, table_size: int, bot_ids: list[int], at: datetime | None = None
) -> None:
    """Entries for ``bot_ids`` (newcomers), in the session's transaction."""
    if not bot_ids:
        return
    moment = at or now()
    session.execute(
        insert(LadderEntry),
        [
            {
                "ladder_id": ladder_id,
                "bot_id": bot_id,
                "joined_at": moment,
                "mu": wenglin.MU,
                "sigma": wenglin.SIGMA,
                "games": 0,
                "seat_counts": [0] * table_size,
                "busy": 0,
                "free_at": moment,
                "fault_streak": 0,
                "paused": False,
            }
            for bot_id in bot_ids
        ],
    )


def bulk_bots(session: Session, owner_id: int, count: int, prefix: str = "b") -> list[int]:
    """``count`` pull bots of ``owner_id`` (each with its own player, as a registration makes), inserted in bulk and
    committed; their ids in order."""
    tag = secrets.token_hex(4)
    players = session.scalars(
        insert(Player).returning(Player.id, sort_by_parameter_order=True),
        [{"name": f"{prefix}{n}", "token_hash": f"{tag}-{n}", "created_at": now()} for n in range(count)],
    ).all()
    bots = session.scalars(
        insert(Bot).returning(Bot.id, sort_by_parameter_order=True),
        [
            {
                "owner_id": owner_id,
                "player_id": player_id,
                "name": f"{prefix}{n}",
                "url": None,
                "games": ["board", "card"],
                "secret": "s" * 40,
                "created_at": now(),
            }
            for n, player_id in enumerate(players)
        ],
    ).all()
    session.commit()
    return list(bots)


def close(session: Session, ladder_id: int) -> None:
    """Close the ladder as the service does: no game made from now on, its games not started cancelled (those
    playing finish), committed."""
    tournament_id = session.scalar(select(Ladder.tournament_id).where(Ladder.id == ladder_id))
    # its tournament's row locked first, as the service's closing and matchmaking lock it
    session.execute(select(Tournament.id).where(Tournament.id == tournament_id).with_for_update(key_share=True))
    session.execute(update(Ladder).where(Ladder.id == ladder_id).values(status="closed", closed_at=now()))
    session.execute(
        update(TournamentGame)
        .where(
            TournamentGame.tournament_id == tournament_id,
            TournamentGame.status == "pending",
            TournamentGame.game_id.is_(None),
        )
        .values(status="cancelled", lease_until=None)
    )
    session.commit()


def entries(session: Session, ladder_id: int) -> dict[int, LadderEntry]:
    """The ladder's entries by bot, read afresh."""
    session.expire_all()
    found = session.scalars(select(LadderEntry).where(LadderEntry.ladder_id == ladder_id)).all()
    return {entry.bot_id: entry for entry in found}


def ladder_games(session: Session, ladder_id: int) -> list[LadderGame]:
    """The ladder's games made, in order, read afresh."""
    session.expire_all()
    return list(
        session.scalars(
            select(LadderGame).where(LadderGame.ladder_id == ladder_id).order_by(LadderGame.tournament_game_id)
        )
    )
