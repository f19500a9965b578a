"""Keep the stored standings current: a tournament's fitted table, and the fitted table of its rating pool.

The worker that writes a result refits the tournament's table from its results at every 5% of its games (but no
sooner than 10 results after the last refit) and at its last result. A pool is a game, a variant and a table size
(the Elo scale depends on the seats: ``RatingPool``). The pool's table (``ratings.pool``: every rated game of the pool fitted at once, so it does not depend
on the order results arrived) is fitted from the pool's tallies (``tournament/standings/poolstate.py`` counts each result's
configuration in the result's own transaction): a fit reads a few rows per distinct configuration, not every result.
Whatever the pool's size, it is refit off the game path, by a job (``tournament/standings/poolfit.py``) asked for at
once at a tournament's last result and otherwise at most once every ``POOL_REFIT_SECONDS`` per pool, by the worker
that writes a result or by the workers' clock, which asks for every pool whose table counts fewer results than its
state, so no result stays out of it for long: a result costs the worker that writes it the same in any pool. Each refit starts
the solver from the stored ratings. A table is saved only if it covers more results than what is stored (two
workers finishing at once cannot leave the older table behind), or if the stored one is none this release can show. The pages and the API only read the stored tables.
A pool leaves out the results of cancelled tournaments: a table read after a cancellation replaces any read before
it (``RatingPool.cancelled``), although it counts fewer games. A pool rates bot versions: each row is one version
of a bot (``version_id``, its ``version`` number and its ``bot_id``), fitted on the games that version played.
A pool's table is fitted group by group when its bots never all met (each row's ``group``, ``ratings.pool``), with
each version's forfeit rate; whether games with a forfeit are rated is the fitting process's
``SORRY_ARENA_RATE_FORFEITS`` (``runtime.settings.rate_forfeits``), stored with the table (``forfeits_rated``): a
table fitted under the other setting is replaced at the next refit, whatever it counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ratings import pool
from ratings.elo import INITIAL_RATING
from ratings.summary import head_to_head, summarize
from ratings.tallies import parse_games
from runtime.jobqueue import FIT_JOB, LocalQueue, RQQueue
from runtime.settings import rate_forfeits
from store.fastlane import param
from store.models import Bot, BotVersion, Ladder, RatingPool, Result, Tournament, now
from store.models.tournaments import RatingTally
from tournament.plans import matches
from tournament.standings import poolstate

REFIT_EVERY = 10
"""A tournament's table is refit after no fewer new results than this (and at its last): a small tournament's
every 5% would be every game or two."""
POOL_REFIT_SECONDS = 10.0
"""A pool is refit at most once per this many seconds (but at once at a tournament's last result), off the game
path (100,000 results: about 1 s)."""


def names(session: Session, bot_ids: set[int]) -> dict[int, str]:
    return {bot_id: name for bot_id, name in session.execute(select(Bot.id, Bot.name).where(Bot.id.in_(bot_ids)))}


def cancelled_in_pool(session: Session, game: str, variant: str, table_size: int) -> int:
    """How many of the pool's rated tournaments were cancelled."""
    return int(
        session.scalar(
            select(func.count(Tournament.id)).where(
                *poolstate.tournaments_of(game, variant, table_size),
                Tournament.rated.is_(True),
                Tournament.status == "cancelled",
            )
        )
        or 0
    )


def pool_table(
    session: Session,
    game: str,
    variant: str,
    table_size: int,
    start: dict[int, float] | None = None,
    *,
    forfeits_rated: bool = True,
) -> tuple[int, int, list[dict[str, Any]]]:
    """(last result id, games, rows) of the pool's fitted table over its rated results, those of cancelled
    tournaments left out, from the pool's tallies; ``start``: ratings to start the fit from (the table does not
    depend on them); ``forfeits_rated``: whether the games with a forfeit are rated (``ratings.pool``)."""
    counted = [
        (config, int(count))
        for config, count in session.execute(
            select(RatingTally.config, func.sum(RatingTally.count))
            .join(Tournament, Tournament.id == RatingTally.tournament_id)
            .where(*_counted_tournaments(game, variant, table_size))
            .group_by(RatingTally.config)
            .order_by(RatingTally.config)
        )
    ]
    through = session.scalar(
        select(func.max(Result.id))
        .join(Tournament, Tournament.id == Result.tournament_id)
        .where(*_counted_tournaments(game, variant, table_size))
    )
    games, forfeited = parse_games([config for config, _ in counted])
    table = pool.standings(games, start, [count for _, count in counted], forfeited, rate_forfeits=forfeits_rated)
    versions = {
        version_id: (bot_id, number, name)
        for version_id, bot_id, number, name in session.execute(
            select(BotVersion.id, BotVersion.bot_id, BotVersion.number, Bot.name)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .where(BotVersion.id.in_({row.player for row in table}))
        )
    }
    return (
        int(through or 0),
        sum(count for _, count in counted),
        [version_row(row.to_json(), row.player, *versions.get(row.player, (0, 0, "?"))) for row in table],
    )


def _counted_tournaments(game: str, variant: str, table_size: int) -> tuple[Any, ...]:
    """The tournaments whose results a pool counts: rated, of its game, variant and table size, not cancelled."""
    return (
        *poolstate.tournaments_of(game, variant, table_size),
        Tournament.rated.is_(True),
        Tournament.status != "cancelled",
    )


def version_row(fitted: dict[str, Any], version_id: int, bot_id: int, number: int, name: str) -> dict[str, Any]:
    """A stored row of a pool: the fit of one bot version (``ratings.pool`` keys it by the version's id)."""
    return {**fitted, "bot_id": bot_id, "version": number, "version_id": version_id, "name": name}


def refresh_pool(
    session: Session,
    game: str,
    variant: str,
    table_size: int,
    *,
    force: bool = False,
    forfeits_rated: bool | None = None,
) -> bool:
    """Refit the pool's table from its tallies and store it if it is later than the stored one, or if the stored one
    is none this release can show (an older release's, which may count as many results) or was fitted under the
    other ``forfeits_rated`` (default: this process's ``SORRY_ARENA_RATE_FORFEITS``), or ``force`` (the upkeep
    after an upgrade, ``tournament/standings/upkeep.py``), first recounting the pool's running state if it
    awaits a rebuild or a tournament was cancelled since the stored table (its results leave the chart too:
    ``poolstate.recount``). ``True``."""
    rated = rate_forfeits() if forfeits_rated is None else forfeits_rated
    # The cancelled tournaments are counted first, then the tallies read: a cancellation committed in between
    # leaves its results out of this read while counting it not, so this table cannot pass for a later one.
    cancelled = cancelled_in_pool(session, game, variant, table_size)
    current = session.execute(
        select(RatingPool.table, RatingPool.cancelled, RatingPool.rebuild, RatingPool.forfeits_rated).where(
            *RatingPool.key(game, variant, table_size)
        )
    ).first()
    if current is not None and (current.rebuild or current.cancelled < cancelled):
        poolstate.recount(session, game, variant, table_size)
        session.commit()
    earlier = pool.rows_of(current.table) if current is not None else None
    if current is not None and (earlier is None or current.forfeits_rated != rated):
        force = True  # a table no page can show, or that rates forfeits otherwise: any fitted now is better
    start = (  # by bot version, the key of the fit (a table stored before versions has none: a cold start)
        {int(row["version_id"]): float(row["rating"]) for row in current.table if "version_id" in row}
        if earlier and current is not None
        else None
    )
    through, games, table = pool_table(session, game, variant, table_size, start, forfeits_rated=rated)
    values = {
        "through": through,
        "games": games,
        "cancelled": cancelled,
        "table": table,
        "updated_at": now(),
        "forfeits_rated": rated,
    }
    # Only a later table replaces the stored one: one that knows of more cancelled tournaments, or as many and
    # counts more results. The count, not the last id, tells: a result is tallied in its own transaction and never
    # untallied (a rebuild recounts the same results at once), so a later read holds every result an earlier one did
    # (but those of tournaments cancelled since), while ids are not committed in order (a worker that read ids 1-4
    # and 6 while 5 was uncommitted has the same last id as one that read 1-6).
    later = or_(
        RatingPool.cancelled < cancelled,
        and_(RatingPool.cancelled == cancelled, RatingPool.games < games),
    )
    stored = session.execute(
        update(RatingPool)
        .where(*RatingPool.key(game, variant, table_size), *(() if force else (later,)))
        .values(**values)
    )
    if not stored.rowcount:  # type: ignore[attr-defined]
        try:
            session.execute(insert(RatingPool).values(game=game, variant=variant, table_size=table_size, **values))
        except IntegrityError:  # the pool exists and already covers these results
            session.rollback()
            return True
    session.commit()
    return True


_RESULTS = (
    select(Result.bot_ids, Result.ranks, Result.forfeited, Result.void_reason)
    .where(Result.tournament_id == param("tournament_id"))
    .order_by(Result.id)
)


def tournament_table(session: Session, tournament_id: int, bot_ids: Sequence[int]) -> dict[str, Any]:
    """The fitted table of the tournament's stored results, with their 95% intervals (``bot_ids``: its bots); its
    void games (``tournament/play/voids.py``) are left out of the fit, but counted in ``through`` (every result).
    Bots that never met, directly or through others (a cancelled run's may not have), are fitted group by group as a
    pool's are (``ratings.pool.groups_of``: each row's ``group``, the largest first, and ``groups``)."""
    results = session.connection().execute(_RESULTS, {"tournament_id": tournament_id}).all()
    played = [(seats, ranks, forfeited) for seats, ranks, forfeited, void in results if void is None]
    games = [(seats, ranks) for seats, ranks, _ in played]
    forfeits = [set(forfeited) for _, _, forfeited in played]
    groups = pool.groups_of(games)  # one for a round robin; a cancelled run's bots may not all have met
    rows = [
        (number, row)
        for number, indices in enumerate(groups, start=1)
        for row in summarize([games[index] for index in indices], forfeited=[forfeits[index] for index in indices])
    ]
    named = names(session, set(bot_ids))
    return {
        "through": len(results),
        "groups": len(groups),
        "standings": [
            {
                **row.to_json(),
                "bot_id": row.player,
                "name": named.get(row.player, "?"),
                "group": number,
                **{bound: getattr(row, bound) + INITIAL_RATING for bound in ("elo", "low", "high")},
            }
            for number, row in rows
        ],
        "head_to_head": [
            {"bot_id": a, "opponent_id": b, "score": score, "games": count}
            for (a, b), (score, count) in sorted(head_to_head(games).items())
        ],
    }


_RESULTS_IN = select(
    Tournament.games_total,
    select(func.count(Result.id)).where(Result.tournament_id == Tournament.id).scalar_subquery(),
    Tournament.bot_ids,
    Tournament.status,
).where(Tournament.id == param("tournament_id"))
"""A tournament's games, its results written so far, its bots and status, in one statement."""
_STANDINGS = (
    update(Tournament)
    .where(Tournament.id == param("tournament_id"), Tournament.standings_through < param("through"))
    .values(standings=param("table"), standings_through=param("through"))
)
"""A table stored, unless the one stored counts as many results already."""


def refresh_tournament(session: Session, tournament_id: int) -> bool:
    """Refit the tournament's table at every 5% of its games (but no sooner than :data:`REFIT_EVERY` results after
    the last refit), at its last result and once it is cancelled (its games not played never bring the last: the
    job after a cancellation refits it on every result it has, ``tournament.jobs.cancelled``); a fit with its
    intervals costs about 10 ms per 1,000 games, and the reads and write around it a few milliseconds more. Whether
    every result of the tournament is in (or it is gone)."""
    found = session.connection().execute(_RESULTS_IN, {"tournament_id": tournament_id}).first()
    if found is None:
        return True
    games_total, done, bot_ids, status = int(found[0]), int(found[1]), list(found[2]), found[3]
    step = max(REFIT_EVERY, games_total // 20)
    last = done >= games_total
    if not last and done % step and status != "cancelled":
        return False
    table = tournament_table(session, tournament_id, bot_ids)  # not from ``done``: a result may have come in since
    values = {"tournament_id": tournament_id, "through": table["through"], "table": table}
    session.connection().execute(_STANDINGS, values)
    session.commit()
    return last


def refresh(
    session: Session,
    queue: RQQueue | LocalQueue,
    tournament_id: int,
    game: str,
    variant: str,
    table_size: int,
    rated: bool,
    void: bool = False,
) -> bool:
    """After a result: the tournament's table (:func:`refresh_tournament`), a match's test, a rated pool's refit
    asked for (``queue`` takes the refit job). ``rated``: the tournament is; ``void``: this result is (it changes no
    pool, but a rated tournament's last result asks for the refit at once all the same, as the results before it
    may have been asked for within the interval and left to the workers' clock).
    Whether every result of the tournament was in when its results were counted: only then may it be complete
    (``results.complete``); a result written after that count is its own writer's to complete."""
    complete = refresh_tournament(session, tournament_id)
    if rated:  # a match's tournament is never rated (``service/api/matches.py``): no match to test
        if complete or not void:
            ask_refit(session, queue, game, variant, table_size, 0.0 if complete else POOL_REFIT_SECONDS)
    else:
        matches.refresh(session, tournament_id)  # a match's test after each completed pair
    return complete


def claim_request(
    session: Session, table: type[RatingPool] | type[Ladder], row: tuple[Any, ...], interval: float
) -> bool:
    """Claim the asking for a refit of one row of ``table`` (a pool's or a ladder's) unless it was asked for less
    than ``interval`` seconds ago: its ``fit_requested_at`` set by one conditional ``UPDATE`` (of two workers asking
    at once, one claims it). Commits; whether this call claimed it."""
    moment = now()
    claimed = session.execute(
        update(table)
        .where(
            *row,
            or_(table.fit_requested_at.is_(None), table.fit_requested_at <= moment - timedelta(seconds=interval)),
        )
        .values(fit_requested_at=moment)
    )
    session.commit()
    return bool(claimed.rowcount)  # type: ignore[attr-defined]


def ask_refit(
    session: Session, queue: RQQueue | LocalQueue, game: str, variant: str, table_size: int, interval: float
) -> bool:
    """Queue the pool's refit job unless it was asked for less than ``interval`` seconds ago (the pool's
    ``fit_requested_at``, claimed by one conditional update: of two workers asking at once, one queues it)."""
    if not claim_request(session, RatingPool, RatingPool.key(game, variant, table_size), interval):
        return False
    job = f"pool-fit-{game}-{variant}-{table_size}"
    queue.enqueue(FIT_JOB, game, variant, table_size, job_id=job, at_front=True)
    return True
