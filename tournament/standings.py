"""Keep the stored standings current: a tournament's fitted table, and the fitted table of its rating pool.

The worker that writes a result recomputes both from the stored results: the tournament's at every 5% of its games
and at its last result; the pool's (``ratings.pool``: every rated game of the pool fitted at once, so it does not
depend on the order results arrived) after every result while the pool is small, and at most once every
``POOL_REFIT_SECONDS`` per pool beyond ``SMALL_POOL`` games, but always at a tournament's last result, after a
cancellation and at recovery, so no result stays out of it for long. Each refit starts the solver from the stored
ratings. A table is saved only if it covers more results than what is stored (two workers finishing at once cannot
leave the older table behind). Recomputing from the results, not updating in place, keeps the tables exactly equal
to a recomputation from the stored results. The pages and the API only read the stored tables.
A pool leaves out the results of cancelled tournaments: a table read after a cancellation replaces any read before
it (``RatingPool.cancelled``), although it counts fewer games. A pool rates bot versions: each row is one version
of a bot (``version_id``, its ``version`` number and its ``bot_id``), fitted on the games that version played.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ratings import pool
from ratings.elo import INITIAL_RATING
from ratings.summary import head_to_head, summarize
from store.models import Bot, BotVersion, RatingPool, Result, Tournament, now
from tournament import matches

SMALL_POOL = 2_000
"""A pool of up to this many games is refit after every result (a fit of 2,000 games takes about 20 ms)."""
POOL_REFIT_SECONDS = 10.0
"""A larger pool is refit at most once per this many seconds (100,000 games and 100 bots: about 2 s)."""


def names(session: Session, bot_ids: set[int]) -> dict[int, str]:
    return {bot_id: name for bot_id, name in session.execute(select(Bot.id, Bot.name).where(Bot.id.in_(bot_ids)))}


def cancelled_in_pool(session: Session, game: str, variant: str) -> int:
    """How many of the pool's rated tournaments were cancelled."""
    return int(
        session.scalar(
            select(func.count(Tournament.id)).where(
                Tournament.game == game,
                Tournament.variant == variant,
                Tournament.rated.is_(True),
                Tournament.status == "cancelled",
            )
        )
        or 0
    )


def pool_table(
    session: Session, game: str, variant: str, start: dict[int, float] | None = None
) -> tuple[int, int, list[dict[str, Any]]]:
    """(last result id, games, rows) of the pool's fitted table over its rated results, those of cancelled
    tournaments left out; ``start``: ratings to start the fit from (the table does not depend on them)."""
    rows = session.execute(
        select(Result.id, Result.version_ids, Result.ranks)
        .join(Tournament, Tournament.id == Result.tournament_id)
        .where(
            Result.game == game,
            Result.variant == variant,
            Result.rated.is_(True),
            Tournament.status != "cancelled",
        )
        .order_by(Result.id)
    ).all()
    table = pool.standings([(version_ids, ranks) for _, version_ids, ranks in rows], start)
    versions = {
        version_id: (bot_id, number, name)
        for version_id, bot_id, number, name in session.execute(
            select(BotVersion.id, BotVersion.bot_id, BotVersion.number, Bot.name)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .where(BotVersion.id.in_({row.player for row in table}))
        )
    }
    return (
        rows[-1][0] if rows else 0,
        len(rows),
        [version_row(row.to_json(), row.player, *versions.get(row.player, (0, 0, "?"))) for row in table],
    )


def version_row(fitted: dict[str, Any], version_id: int, bot_id: int, number: int, name: str) -> dict[str, Any]:
    """A stored row of a pool: the fit of one bot version (``ratings.pool`` keys it by the version's id)."""
    return {**fitted, "bot_id": bot_id, "version": number, "version_id": version_id, "name": name}


def refresh_pool(session: Session, game: str, variant: str, *, force: bool = True) -> bool:
    """Refit the pool's table and store it if it is later than the stored one; ``force=False``: not if the pool
    has more than ``SMALL_POOL`` games and was refit less than ``POOL_REFIT_SECONDS`` ago. Whether it refit."""
    current = session.execute(
        select(RatingPool.games, RatingPool.updated_at, RatingPool.table).where(
            RatingPool.game == game, RatingPool.variant == variant
        )
    ).first()
    earlier = pool.rows_of(current.table) if current is not None else None
    if (
        not force
        and current is not None
        and earlier is not None  # a table stored before the pools were fitted is replaced at once
        and current.games > SMALL_POOL
        and now() - current.updated_at < timedelta(seconds=POOL_REFIT_SECONDS)
    ):
        return False
    start = (  # by bot version, the key of the fit (a table stored before versions has none: a cold start)
        {int(row["version_id"]): float(row["rating"]) for row in current.table if "version_id" in row}
        if earlier and current is not None
        else None
    )
    # The cancelled tournaments are counted first, then the results read: a cancellation committed in between
    # leaves its results out of this read while counting it not, so this table cannot pass for a later one.
    cancelled = cancelled_in_pool(session, game, variant)
    through, games, table = pool_table(session, game, variant, start)
    values = {"through": through, "games": games, "cancelled": cancelled, "table": table, "updated_at": now()}
    # Only a later table replaces the stored one: one that knows of more cancelled tournaments, or as many and
    # counts more results. The count, not the last id, tells: results are never deleted, so a later read holds every
    # result an earlier one did (but those of tournaments cancelled since), while ids are not committed in order (a
    # worker that read ids 1-4 and 6 while 5 was uncommitted has the same last id as one that read 1-6).
    stored = session.execute(
        update(RatingPool)
        .where(
            RatingPool.game == game,
            RatingPool.variant == variant,
            or_(
                RatingPool.cancelled < cancelled,
                and_(RatingPool.cancelled == cancelled, RatingPool.games < games),
            ),
        )
        .values(**values)
    )
    if not stored.rowcount:  # type: ignore[attr-defined]
        try:
            session.execute(insert(RatingPool).values(game=game, variant=variant, **values))
        except IntegrityError:  # the pool exists and already covers these results
            session.rollback()
            return True
    session.commit()
    return True


def tournament_table(session: Session, tournament: Tournament) -> dict[str, Any]:
    """The fitted table of the tournament's stored results, with their 95% intervals."""
    results = list(
        session.scalars(select(Result).where(Result.tournament_id == tournament.id).order_by(Result.id))
    )
    games = [(result.bot_ids, result.ranks) for result in results]
    forfeits = [set(result.forfeited) for result in results]
    rows = summarize(games, forfeited=forfeits)
    named = names(session, set(tournament.bot_ids))
    return {
        "through": len(results),
        "standings": [
            {
                **row.to_json(),
                "bot_id": row.player,
                "name": named.get(row.player, "?"),
                **{bound: getattr(row, bound) + INITIAL_RATING for bound in ("elo", "low", "high")},
            }
            for row in rows
        ],
        "head_to_head": [
            {"bot_id": a, "opponent_id": b, "score": score, "games": count}
            for (a, b), (score, count) in sorted(head_to_head(games).items())
        ],
    }


def refresh_tournament(session: Session, tournament_id: int) -> bool:
    """Refit the tournament's table at every 5% of its games and at its last result (a fit with its intervals
    costs about 10 ms per 1,000 games). Whether every result of the tournament is in (or it is gone)."""
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        return True
    done = session.scalar(select(func.count(Result.id)).where(Result.tournament_id == tournament_id)) or 0
    step = max(1, tournament.games_total // 20)
    last = done >= tournament.games_total
    if not last and done % step:
        return False
    table = tournament_table(session, tournament)  # not from ``done``: a result may have come in since
    session.execute(
        update(Tournament)
        .where(Tournament.id == tournament_id, Tournament.standings_through < table["through"])
        .values(standings=table, standings_through=table["through"])
    )
    session.commit()
    return last


def refresh(session: Session, tournament_id: int, game: str, variant: str, rated: bool) -> None:
    complete = refresh_tournament(session, tournament_id)
    matches.refresh(session, tournament_id)  # a match's test after each completed pair (none for a tournament)
    if rated:
        refresh_pool(session, game, variant, force=complete)  # a tournament's last result always refits
