"""A tournament's runs: which are due at a moment, and starting each exactly once, whoever asks.

A tournament is its own first run, due at its start time (``start_at``, else its creation). With ``repeat_every``
and ``repeat_times``, run ``k + 1`` (for ``k = 1 .. repeat_times - 1``) is due ``k * repeat_every`` seconds after
that, and is a tournament of its own (``parent_id``, ``run``, a seed derived from the first run's, and a secret
salt of its own, so that a finished run's published salt tells nothing of another run's games). The clock, not a
count of the runs made so far, says which runs are due: a run started late does not move the later ones, and a caller
that comes late finds the run made and starts nothing ahead of its time.

A later run seats the first run's bots that may still be entered by its owner (:func:`seated`): a bot of another
account whose owner has closed it to others (``open_to_others`` off) since is left out of the runs made after, as
it would be refused from a new tournament; the run's games are those of the bots left. With fewer bots left than a
table seats, the run is made done, with no games (it keeps its place: the runs after it are due as planned).

Several callers may start the same run at once (the start job, the clock of every worker, the maintenance); each
start happens at most once:

- a scheduled run is claimed by a conditional ``UPDATE`` (``scheduled`` -> ``running``) in the same transaction as
  the insertion of its games: the caller whose ``UPDATE`` changed the row lays the games out; the other's matches
  nothing once the first commits (PostgreSQL makes it wait on the row's lock, SQLite on its write lock);
- a later run is inserted already running, with its games, in one transaction: the unique ``(parent_id, run)``
  fails every insert of it but the first, and the caller that gets the ``IntegrityError`` leaves it to the winner.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from store.challenges import is_challenge
from store.fastlane import param
from store.models import Bot, Tournament, TournamentGame, new_seed_salt, now
from tournament.plans import matches
from tournament.plans.schedule import Pairing, game_seed, schedule


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC (SQLite gives back naive datetimes: they were written in UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def first_start(tournament: Tournament) -> datetime:
    """When the tournament's first run is due."""
    return utc(tournament.start_at or tournament.created_at)


def due_runs(start: datetime, every: int | None, times: int | None, moment: datetime) -> int:
    """How many runs are due at ``moment``: none before ``start``, then the first and one more each ``every``
    seconds, ``times`` at most (one without repeats)."""
    if moment < start:
        return 0
    if not every or not times:
        return 1
    return int(min(times, 1 + (moment - start) // timedelta(seconds=every)))


def run_seed(seed: int, run: int) -> int:
    """The seed of a tournament's ``run``-th run (the first keeps the tournament's own)."""
    if run == 1:
        return seed
    digest = hashlib.blake2b(f"{seed}:run:{run}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 2


_GAME = insert(TournamentGame).values(
    tournament_id=param("tournament_id"),
    number=param("number"),
    round=param("round"),
    bot_ids=param("bot_ids"),
    seed=param("seed"),
    status="pending",
    fed=False,
    attempts=0,
)


def lay_out(tournament: Tournament, pairings: Sequence[Pairing] | None = None) -> list[dict[str, Any]]:
    """The rows of a run's scheduled games (:data:`_GAME`'s values): ``pairings`` (a match's pairs, a challenge's
    game), else the run's round robin."""
    if pairings is None:
        pairings = schedule(
            tournament.bot_ids, tournament.table_size, tournament.rounds, tournament.seed, tournament.seed_salt
        )
    return [
        {
            "tournament_id": tournament.id,
            "number": pairing.index,
            "round": pairing.round,
            "bot_ids": list(pairing.seats),
            "seed": pairing.seed,
        }
        for pairing in pairings
    ]


def challenge_pairings(tournament: Tournament) -> list[Pairing]:
    """A challenge's one game (``store/challenges.py``), its seats as the challenge lists them; none for a
    tournament of bots only."""
    if not is_challenge(tournament.bot_ids):
        return []
    seats = tuple(tournament.bot_ids)
    return [
        Pairing(index=0, seats=seats, round=1, seed=game_seed(tournament.seed, 1, seats, tournament.seed_salt))
    ]


def start(session: Session, tournament: Tournament) -> bool:
    """Move a scheduled run to running and lay out its games, in one transaction; ``True`` for the one caller that
    did, ``False`` for every other (the run had already started, or another caller started it meanwhile)."""
    claimed = session.execute(
        update(Tournament)
        .where(Tournament.id == tournament.id, Tournament.status == "scheduled")
        .values(status="running")
    )
    if not claimed.rowcount:  # type: ignore[attr-defined]
        session.rollback()
        return False
    # a match's games come in pairs; a challenge is one game: all in one statement
    games = lay_out(tournament, matches.pairings(session, tournament) or challenge_pairings(tournament) or None)
    if games:
        session.connection().execute(_GAME, games)
    session.commit()
    return True


def seated(session: Session, parent: Tournament) -> list[int]:
    """The bots of ``parent`` (a first run) that its later runs seat, in its order: every one in an official
    tournament; else all but the bots of other accounts closed to others."""
    if parent.official:
        return list(parent.bot_ids)
    closed = select(Bot.id).where(
        Bot.id.in_(parent.bot_ids), Bot.owner_id != parent.owner_id, Bot.open_to_others.is_(False)
    )
    left_out = set(session.scalars(closed))
    return [bot_id for bot_id in parent.bot_ids if bot_id not in left_out]


def create(session: Session, parent: Tournament, run: int) -> Tournament | None:
    """Create run ``run`` of the first run ``parent``, running, with its games, in one transaction (done, with no
    games, if too few of its bots may still be seated: :func:`seated`); ``None`` if it exists already (another
    caller created it, perhaps a moment ago: the unique ``(parent_id, run)``)."""
    bot_ids = seated(session, parent)
    playable = len(bot_ids) >= parent.table_size
    suffix = f" #{run}"
    child = Tournament(
        owner_id=parent.owner_id,
        name=parent.name[: 64 - len(suffix)] + suffix,
        game=parent.game,
        settings=parent.settings,
        variant=parent.variant,
        bot_ids=bot_ids,
        table_size=parent.table_size,
        rounds=parent.rounds,
        seed=run_seed(parent.seed, run),
        seed_salt=new_seed_salt(),
        official=parent.official,
        move_timeout_ms=parent.move_timeout_ms,
        rated=parent.rated,
        parent_id=parent.id,
        run=run,
        status="running" if playable else "done",
        games_total=0,
        created_at=now(),
        finished_at=None if playable else now(),
    )
    session.add(child)
    try:
        session.flush()  # the insert, which waits for a concurrent insert of the same run to commit, then fails
    except IntegrityError:
        session.rollback()
        if run not in made_runs(session, parent.id):
            raise  # some other constraint failed
        return None
    games = lay_out(child) if playable else []
    child.games_total = len(games)
    if games:
        session.connection().execute(_GAME, games)
    session.commit()
    return child


def made_runs(session: Session, parent_id: int) -> set[int]:
    """The run numbers of the later runs of ``parent_id`` that exist."""
    return set(session.scalars(select(Tournament.run).where(Tournament.parent_id == parent_id)))


def start_due(session: Session, tournament: Tournament, moment: datetime) -> list[int]:
    """Start ``tournament`` if it is still scheduled (its first run: the caller decides it is time), then create each
    later run due at ``moment`` that does not exist; the ids of the runs this call started, in run order."""
    started = [tournament.id] if tournament.status == "scheduled" and start(session, tournament) else []
    if tournament.parent_id is not None or not tournament.repeat_every or tournament.status == "cancelled":
        return started  # a cancelled tournament starts no later run (its repeats were cut to the runs made, too)
    due = due_runs(first_start(tournament), tournament.repeat_every, tournament.repeat_times, moment)
    made = made_runs(session, tournament.id)
    for run in range(2, due + 1):
        if run not in made:
            child = create(session, tournament, run)
            if child is not None:
                started.append(child.id)
    return started


_SCHEDULED = select(Tournament.id).where(
    Tournament.status == "scheduled",
    func.coalesce(Tournament.start_at, Tournament.created_at) <= param("moment"),
)
_LATER = aliased(Tournament)
_REPEATING = (
    select(
        Tournament.id,
        Tournament.start_at,
        Tournament.created_at,
        Tournament.repeat_every,
        Tournament.repeat_times,
    )
    .outerjoin(_LATER, _LATER.parent_id == Tournament.id)
    .where(
        Tournament.parent_id.is_(None),
        Tournament.repeat_every.is_not(None),
        Tournament.repeat_times > 1,
        Tournament.status != "cancelled",
    )
    .group_by(Tournament.id)
    .having(func.count(_LATER.id) + 1 < Tournament.repeat_times)  # runs are still to come
)


def overdue(session: Session, moment: datetime) -> list[int]:
    """The tournaments with a run due at ``moment`` that has not started: those still scheduled whose start time has
    passed, and the repeating first runs that miss a later run due by then. In id order. (Two statements compiled
    once: every worker's clock asks every second.)"""
    found = {row[0] for row in session.connection().execute(_SCHEDULED, {"moment": moment}).all()}
    for tournament_id, start_at, created_at, every, times in session.connection().execute(_REPEATING).all():
        due = due_runs(utc(start_at or created_at), every, times, moment)
        if due >= 2 and not set(range(2, due + 1)) <= made_runs(session, tournament_id):
            found.add(tournament_id)
    return sorted(found)
