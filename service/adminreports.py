"""What the operator reads (``/api/v1/admin`` and the ``/admin`` pages): accounts with their usage, the queue,
the bots excluded or paused, the audit log. Each listing reads a page of rows, then the figures of that page's
accounts in a few grouped statements."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, case, func, or_, select
from sqlalchemy.orm import Session

from store.models import AdminAction, Bot, BotTally, Player, Result, Tournament, TournamentGame, now
from store.models.base import as_utc

QUEUED = ("pending", "running")
"""The statuses of a scheduled game not played yet."""
SINCE = func.coalesce(Tournament.start_at, Tournament.created_at)
"""When a run's games began to wait: its start time, else its creation (a later run is made when it starts)."""


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def accounts_query(name: str | None, disabled: bool | None) -> Select[Player]:
    """The accounts that are no bot's, oldest first; ``name``: whose name holds it (any case)."""
    statement = select(Player).where(~select(Bot.id).where(Bot.player_id == Player.id).exists())
    if name:
        statement = statement.where(func.lower(Player.name).like(f"%{escape_like(name.lower())}%", escape="\\"))
    if disabled is not None:
        statement = statement.where(Player.disabled.is_(disabled))
    return statement.order_by(Player.id)


def count(session: Session, statement: Select[Any]) -> int:
    return int(session.scalar(select(func.count()).select_from(statement.order_by(None).subquery())) or 0)


def usage(session: Session, players: list[Player]) -> list[dict[str, Any]]:
    """Each account with its usage: its active bots, the games of its tournaments queued (not played yet) and
    played (with a result), its bots' faults (finished games, from the tallies), and whether it is disabled."""
    ids = [player.id for player in players]
    if not ids:
        return []
    bots: dict[int, int] = defaultdict(int)
    accounts: dict[int, int] = {}
    for owner_id, player_id, active in session.execute(
        select(Bot.owner_id, Bot.player_id, Bot.active).where(Bot.owner_id.in_(ids))
    ):
        bots[owner_id] += int(bool(active))
        accounts[player_id] = owner_id
    queued = dict(
        session.execute(
            select(Tournament.owner_id, func.count(TournamentGame.id))
            .join(TournamentGame, TournamentGame.tournament_id == Tournament.id)
            .where(Tournament.owner_id.in_(ids), TournamentGame.status.in_(QUEUED))
            .group_by(Tournament.owner_id)
        ).all()
    )
    played = dict(
        session.execute(
            select(Tournament.owner_id, func.count(Result.id))
            .join(Result, Result.tournament_id == Tournament.id)
            .where(Tournament.owner_id.in_(ids))
            .group_by(Tournament.owner_id)
        ).all()
    )
    faults: dict[int, int] = defaultdict(int)
    if accounts:
        for player_id, counted in session.execute(
            select(BotTally.player_id, func.sum(BotTally.count))
            .where(BotTally.player_id.in_(list(accounts)), BotTally.measure == "fault")
            .group_by(BotTally.player_id)
        ):
            faults[accounts[player_id]] += int(counted or 0)
    return [
        {
            "id": player.id,
            "name": player.name,
            "created_at": player.created_at,
            "disabled": player.disabled,
            "operator": player.operator,
            "bots": bots[player.id],
            "games_queued": int(queued.get(player.id, 0)),
            "games_played": int(played.get(player.id, 0)),
            "faults": faults[player.id],
        }
        for player in players
    ]


def queue(session: Session, moment: datetime | None = None) -> dict[str, Any]:
    """The games not played yet, per account: fed (given a job, waiting for a slot), unfed (waiting their turn in
    the database) and running; and the oldest game waiting (since its run began: its start time, else its
    creation)."""
    moment = moment or now()
    rows = session.execute(
        select(
            Tournament.owner_id,
            Player.name,
            func.sum(case((and_(TournamentGame.status == "pending", TournamentGame.fed), 1), else_=0)),
            func.sum(case((and_(TournamentGame.status == "pending", ~TournamentGame.fed), 1), else_=0)),
            func.sum(case((TournamentGame.status == "running", 1), else_=0)),
        )
        .join(TournamentGame, TournamentGame.tournament_id == Tournament.id)
        .join(Player, Player.id == Tournament.owner_id)
        .where(TournamentGame.status.in_(QUEUED))
        .group_by(Tournament.owner_id, Player.name)
        .order_by(Tournament.owner_id)
    ).all()
    accounts = [
        {
            "account_id": owner,
            "name": name,
            "fed": int(fed or 0),
            "unfed": int(unfed or 0),
            "running": int(run or 0),
        }
        for owner, name, fed, unfed, run in rows
    ]
    oldest = session.execute(
        select(TournamentGame.id, Tournament.id, Tournament.owner_id, SINCE)
        .join(Tournament, Tournament.id == TournamentGame.tournament_id)
        .where(TournamentGame.status == "pending", Tournament.status == "running")
        .order_by(SINCE, TournamentGame.id)
        .limit(1)
    ).first()
    waiting = None
    if oldest is not None:
        since = as_utc(oldest[3])
        waiting = {
            "scheduled_game_id": oldest[0],
            "tournament_id": oldest[1],
            "account_id": oldest[2],
            "since": since,
            "age_seconds": max(0.0, (moment - since).total_seconds()),
        }
    return {
        "accounts": accounts,
        "fed": sum(row["fed"] for row in accounts),
        "unfed": sum(row["unfed"] for row in accounts),
        "running": sum(row["running"] for row in accounts),
        "oldest_waiting": waiting,
    }


def flagged_bots(session: Session, stalling: set[int] | frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """The active bots excluded by their health checks, failing them now, paused, or whose account is disabled."""
    rows = session.execute(
        select(Bot, Player.disabled)
        .join(Player, Player.id == Bot.player_id)
        .where(
            Bot.active.is_(True),
            or_(Bot.excluded, Bot.failed_checks > 0, Bot.paused, Player.disabled, Bot.id.in_(list(stalling))),
        )
        .order_by(Bot.id)
    ).all()
    return [
        {
            "id": bot.id,
            "name": bot.name,
            "owner_id": bot.owner_id,
            "excluded": bot.excluded,
            "failed_checks": bot.failed_checks,
            "paused": bot.paused,
            "account_disabled": bool(disabled),
            "checked_at": bot.checked_at,
        }
        for bot, disabled in rows
    ]


def audit_query() -> Select[AdminAction]:
    """The audit log, newest first."""
    return select(AdminAction).order_by(AdminAction.id.desc())


def audit_row(action: AdminAction) -> dict[str, Any]:
    return {
        "id": action.id,
        "at": action.at,
        "actor_id": action.actor_id,
        "action": action.action,
        "target_kind": action.target_kind,
        "target_id": action.target_id,
        "detail": action.detail,
    }
