"""Ladders' matchmaking: a round makes games for the ladder's idle bots, each appended to its tournament's schedule.

A ladder (``store/models/ladders.py``) is a tournament whose games are not laid out in advance. A *round*
(:func:`make_games`) makes games while the ladder is open, has fewer than ``max_in_play`` games made and not settled,
and has an idle bot: it takes the idle bot with the fewest games (a newcomer first, then whoever is behind; among
equals the one idle longest; idle: in the ladder, not paused, in no game, under its hourly budget), reads the bots nearest its rating along
``ix_ladder_entries_rating`` (a few above, a few below, and a few at a random rating so that no pair is starved),
how often the anchor met each of them (at three or four seats, each pair of them), and lets ``tournament.plans.ladderpick`` pick the table and its seat order. Then, in
one transaction, it numbers the game (the tournament's row locked: one game made at a time per ladder), counts the
games in play again, claims each bot (``busy`` 0 to 1, a conditional ``UPDATE`` whose row count says whether the bot
was still idle: two rounds at once never seat a bot twice), and appends the scheduled game with its seed derived as
any tournament game's (``schedule.game_seed``, its number as its round), its :class:`LadderGame`, a
:class:`LadderSeat` per seat, the pairs' counts, each bot's seat counts and the moment it is under its budget again.
The queue's fair dispatch (``tournament/dispatch/feed.py``) feeds the games like any tournament's.

Every statement reads a few rows along an index (the idle bots along partial indexes, by the time they fell idle;
the games in play along ``ix_ladder_games_unsettled``; a bot's seats of the last hour along ``ix_ladder_seats_made``;
the anchor's pairs by their key): none reads more rows as the ladder or its history grows (``benchmarks/ladder.py``
measures a game made at 100 to 10,000 bots, after none and after 100,000 games).

A closed ladder makes no game; its tournament is marked done once its last game in play is settled
(:func:`finish_closed`). The games of a closed ladder not started are cancelled by the closing; a cancelled game
writes no result, so :func:`sweep` settles it here, freeing its bots.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    DateTime,
    Integer,
    bindparam,
    case,
    func,
    insert,
    or_,
    select,
    text,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from store.fastlane import param
from store.models import Tournament, TournamentGame
from store.models import now as clock
from store.models.ladders import Ladder, LadderEntry, LadderGame, LadderPair, LadderSeat
from tournament.plans.ladderpick import Candidate, pick_table
from tournament.plans.runs import utc
from tournament.plans.schedule import game_seed

NEAR = 16
"""Candidates read on each side of the anchor's rating (about 32 in all)."""
EXPLORE = 4
"""Candidates read at a random rating, beside the near ones."""
ROUND_LIMIT = 64
"""The most games one round makes (a ladder's ``max_in_play`` is at most 64)."""
HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class LadderSettings:
    """What matchmaking needs of a ladder and its tournament, read in one statement."""

    id: int
    tournament_id: int
    status: str
    budget_per_hour: int
    max_in_play: int
    table_size: int
    seed: int
    seed_salt: str | None
    tournament_status: str


_SETTINGS = (
    select(
        Ladder.id,
        Ladder.tournament_id,
        Ladder.status,
        Ladder.budget_per_hour,
        Ladder.max_in_play,
        Tournament.table_size,
        Tournament.seed,
        Tournament.seed_salt,
        Tournament.status,
    )
    .join(Tournament, Tournament.id == Ladder.tournament_id)
    .where(Ladder.id == param("ladder_id"))
)
UNSETTLED = text("NOT ladder_games.settled")
"""A game not settled, spelled as the predicate of the partial index ``ix_ladder_games_unsettled`` (both planners read
along a partial index only for a query whose condition is written as the index's)."""
IDLE = text("ladder_entries.busy = 0 AND NOT ladder_entries.paused AND ladder_entries.left_at IS NULL")
"""An entry in no game, not paused, not left: the predicate of ``ix_ladder_entries_fewest``."""
_IN_PLAY = (
    select(func.count()).select_from(LadderGame).where(LadderGame.ladder_id == param("ladder_id"), UNSETTLED)
)
"""The ladder's games made and not settled, along ``ix_ladder_games_unsettled``."""
_ELIGIBLE = (
    LadderEntry.busy == 0,
    LadderEntry.paused.is_(False),
    LadderEntry.left_at.is_(None),
)
_COLUMNS = (
    LadderEntry.bot_id,
    LadderEntry.mu,
    LadderEntry.sigma,
    LadderEntry.games,
    LadderEntry.seat_counts,
    LadderEntry.free_at,
)


_ANCHOR = (
    select(*_COLUMNS)
    .where(LadderEntry.ladder_id == param("ladder_id"), IDLE, LadderEntry.free_at <= param("now"))
    .order_by(LadderEntry.games, LadderEntry.free_at)
    .limit(1)
)
"""The idle bot under its budget with the fewest games (a newcomer first), idle longest among equals, along
``ix_ladder_entries_fewest``."""


def _near(above: bool, mu: str, limit: str) -> Any:
    """Idle entries whose rating is at or above (``above``), else below, parameter ``mu``, nearest first, parameter
    ``limit`` of them, along ``ix_ladder_entries_rating``."""
    where = LadderEntry.mu >= param(mu) if above else LadderEntry.mu < param(mu)
    order = LadderEntry.mu.asc() if above else LadderEntry.mu.desc()
    return select(
        select(*_COLUMNS)
        .where(LadderEntry.ladder_id == param("ladder_id"), where, IDLE, LadderEntry.free_at <= param("now"))
        .order_by(order)
        .limit(param(limit, Integer()))
        .subquery()
    )


_NEAR = union_all(_near(True, "mu", "near"), _near(False, "mu", "near"), _near(True, "somewhere", "explore"))
"""The idle bots nearest a rating on each side, and a few at a random rating: one statement."""
_LOWEST = (
    select(LadderEntry.mu).where(LadderEntry.ladder_id == param("ladder_id")).order_by(LadderEntry.mu).limit(1)
)
_HIGHEST = (
    select(LadderEntry.mu)
    .where(LadderEntry.ladder_id == param("ladder_id"))
    .order_by(LadderEntry.mu.desc())
    .limit(1)
)
"""The ladder's lowest and highest rating (read once a round): the two ends of ``ix_ladder_entries_rating``."""
_NUMBER = (
    update(Tournament)
    .where(Tournament.id == param("tournament_id"))
    .values(games_total=Tournament.games_total + 1)
    .returning(Tournament.games_total)
)
"""The game's number, the tournament's row locked until the commit: one game made at a time per ladder."""
_STILL_OPEN = select(Ladder.status, _IN_PLAY.scalar_subquery()).where(Ladder.id == param("ladder_id"))
"""The ladder's status and its games in play, read again (one statement) once the tournament's row is locked: a
closing (``service/ladders.py``) locks that row too, so a game is made either before it (and the closing cancels it)
or not at all; and a game made meanwhile by another round is counted."""
_CLAIM = (
    update(LadderEntry)
    .where(LadderEntry.ladder_id == param("ladder"), LadderEntry.bot_id.in_(bindparam("bots", expanding=True)))
    .where(*_ELIGIBLE)
    .values(busy=1)
)
"""The table's bots claimed, each only if still idle: the row count says whether all were (else roll back)."""
_GAME = (
    insert(TournamentGame)
    .values(
        tournament_id=param("tournament_id"),
        number=param("number"),
        round=param("round"),
        bot_ids=param("bot_ids"),
        seed=param("seed"),
        status="pending",
        fed=False,
        attempts=0,
    )
    .returning(TournamentGame.id)
)
_LADDER_GAME = insert(LadderGame).values(
    tournament_game_id=param("scheduled_id"),
    ladder_id=param("ladder_id"),
    made_at=param("now"),
    bot_ids=param("bot_ids"),
    settled=False,
)
_SEAT = insert(LadderSeat).values(
    tournament_game_id=param("scheduled_id"),
    seat=param("seat"),
    ladder_id=param("ladder_id"),
    bot_id=param("bot_id"),
    made_at=param("now"),
)
_PAIRS_MET = select(LadderPair.low, LadderPair.high, LadderPair.games).where(
    LadderPair.ladder_id == param("ladder_id"),
    LadderPair.low.in_(bindparam("bots", expanding=True)),
    LadderPair.high.in_(bindparam("bots_too", expanding=True)),
)
"""The pairs among the candidates that met, along the key ``(ladder_id, low, high)`` (SQLite seeks each pair)."""
_ANCHOR_PAIRS = union_all(
    select(LadderPair.low, LadderPair.high, LadderPair.games).where(
        LadderPair.ladder_id == param("ladder_id"),
        LadderPair.low == param("anchor"),
        LadderPair.high.in_(bindparam("bots", expanding=True)),
    ),
    select(LadderPair.low, LadderPair.high, LadderPair.games).where(
        LadderPair.ladder_id == param("ladder_id"),
        LadderPair.low.in_(bindparam("bots", expanding=True)),
        LadderPair.high == param("anchor"),
    ),
)
"""The anchor's pairs with the candidates that met, each an exact probe of the key ``(ladder_id, low, high)``."""
_PAIRS_MET_BY_LOW = select(LadderPair.low, LadderPair.high, LadderPair.games).where(
    LadderPair.ladder_id == param("ladder_id"),
    LadderPair.low.in_(bindparam("bots", expanding=True)),
    (LadderPair.high + 0).in_(bindparam("bots_too", expanding=True)),
)
"""The same along the key's ``low`` only, ``high`` compared as an expression (a filter), for PostgreSQL: version 15
costs two lists on one key as the product of their descents (37 x 37) and read every pair of the ladder instead
(19 ms at 100,000 pairs, against 0.6 ms)."""


@functools.cache
def pairs_met(dialect: str) -> Any:
    """The statement that counts one more game of a pair (parameters ``ladder``, ``pair_low``, ``pair_high``): its
    row inserted at 1 or its count raised, one statement (``INSERT ... ON CONFLICT``, which both databases have),
    built once per dialect."""
    made = (postgresql if dialect == "postgresql" else sqlite).insert(LadderPair)
    made = made.values(ladder_id=param("ladder"), low=param("pair_low"), high=param("pair_high"), games=1)
    return made.on_conflict_do_update(
        index_elements=["ladder_id", "low", "high"], set_={"games": LadderPair.__table__.c.games + 1}
    )


@functools.cache
def budget_edges(seats: int) -> Any:
    """The statement that reads, for each of ``seats`` bots (parameters ``b0``...), its ``budget``-th latest seat in
    the last hour (``skip``: budget - 1; ``since``: an hour ago), along ``ix_ladder_seats_made``: the bot is under
    its budget again an hour after it. Built and compiled once per table size."""
    return union_all(
        *(
            select(
                select(LadderSeat.bot_id, LadderSeat.made_at)
                .where(
                    LadderSeat.ladder_id == param("ladder_id"),
                    LadderSeat.bot_id == param(f"b{seat}"),
                    LadderSeat.made_at > param("since"),
                )
                .order_by(LadderSeat.made_at.desc())
                .limit(1)
                .offset(param("skip", Integer()))
                .subquery()
            )
            for seat in range(seats)
        )
    )


_ENTRY_MADE = (
    update(LadderEntry)
    .where(LadderEntry.ladder_id == param("ladder"), LadderEntry.bot_id == param("bot"))
    .values(seat_counts=param("seat_counts"), free_at=param("free_at"))
)
_UNSETTLED_OVER = (
    select(LadderGame.tournament_game_id)
    .join(TournamentGame, TournamentGame.id == LadderGame.tournament_game_id)
    .where(
        LadderGame.ladder_id == param("ladder_id"),
        UNSETTLED,
        TournamentGame.status.in_(("done", "cancelled")),
    )
)
"""The ladder's games over (cancelled, as a closing does to the games not started) and not settled."""
_SETTLE = (
    update(LadderGame)
    .where(LadderGame.tournament_game_id == param("scheduled_id"), LadderGame.settled.is_(False))
    .values(settled=True)
    .returning(LadderGame.ladder_id, LadderGame.bot_ids)
)
_NOW = param("now", DateTime(timezone=True))
_FREE = (
    update(LadderEntry)
    .where(LadderEntry.ladder_id == param("ladder"), LadderEntry.bot_id == param("bot"))
    .values(busy=0, free_at=case((LadderEntry.free_at > _NOW, LadderEntry.free_at), else_=_NOW))
)
"""A bot of a settled game idle again, since now unless over its budget until later."""
_DONE = (
    update(Tournament)
    .where(Tournament.id == param("tournament_id"), Tournament.status == "running")
    .values(status="done", finished_at=param("now"))
)
_LOCK = select(Tournament.id).where(Tournament.id == param("tournament_id")).with_for_update(key_share=True)
"""The ladder's tournament row locked (``FOR NO KEY UPDATE``, as making a game and closing the ladder lock it)."""
_LADDER_OF = select(Ladder.id).where(Ladder.tournament_id == param("tournament_id"))
_IDLE_NOW = (
    select(LadderEntry.bot_id)
    .where(LadderEntry.ladder_id == Ladder.id, IDLE, LadderEntry.free_at <= param("now"))
    .limit(1)
    .exists()
)
_OPEN = (
    select(Ladder.id)
    .join(Tournament, Tournament.id == Ladder.tournament_id)
    .where(Tournament.status == "running", or_(Ladder.status != "open", _IDLE_NOW))
    .order_by(Ladder.id)
)
"""The ladders a round has work for: the open ones with a bot idle and under its budget now (a probe of
``ix_ladder_entries_fewest`` each), and the closed ones not done yet."""


def settings_of(session: Session, ladder_id: int) -> LadderSettings | None:
    """The ladder's settings and its tournament's (``None``: no such ladder)."""
    row = session.connection().execute(_SETTINGS, {"ladder_id": ladder_id}).first()
    return None if row is None else LadderSettings(*row)


def ladder_of(session: Session, tournament_id: int) -> int | None:
    """The ladder whose games the tournament holds (``None``: it is no ladder's)."""
    found = session.connection().execute(_LADDER_OF, {"tournament_id": tournament_id}).scalar()
    return None if found is None else int(found)


def open_ladders(session: Session, now: datetime) -> list[int]:
    """The ladders whose rounds may have work at ``now``: the open ones with a bot idle and under its budget (the
    clock's round is one statement for a ladder whose bots all play), and the closed ones whose tournament is not
    done yet (their last games in play to settle, its cancelled games' bots to free)."""
    return [int(ladder_id) for ladder_id in session.connection().execute(_OPEN, {"now": now}).scalars()]


def in_play(session: Session, ladder_id: int) -> int:
    """The ladder's games made and not settled."""
    return int(session.connection().execute(_IN_PLAY, {"ladder_id": ladder_id}).scalar_one())


def candidate(row: Any, moment: datetime) -> Candidate:
    bot_id, mu, sigma, games, seat_counts, free_at = row
    waited = max(0.0, (moment - utc(free_at)).total_seconds())
    return Candidate(int(bot_id), float(mu), float(sigma), int(games), tuple(seat_counts), waited)


def anchor_of(session: Session, ladder_id: int, moment: datetime) -> Candidate | None:
    """The bot a game is made for next: the idle one with the fewest games, so that a newcomer (or a new version,
    whose games start again at 0) is placed first and catches up, idle longest among equals (``None``: none idle
    and under its budget)."""
    row = session.connection().execute(_ANCHOR, {"ladder_id": ladder_id, "now": moment}).first()
    return candidate(row, moment) if row is not None else None


def span_of(session: Session, ladder_id: int) -> tuple[float, float] | None:
    """The ladder's lowest and highest rating (``None``: no entry)."""
    connection = session.connection()
    low = connection.execute(_LOWEST, {"ladder_id": ladder_id}).scalar()
    high = connection.execute(_HIGHEST, {"ladder_id": ladder_id}).scalar()
    return None if low is None or high is None else (float(low), float(high))


def candidates_near(
    session: Session,
    ladder_id: int,
    anchor: Candidate,
    moment: datetime,
    span: tuple[float, float] | None,
    rng: random.Random,
) -> list[Candidate]:
    """The idle bots nearest the anchor's rating (:data:`NEAR` on each side) and :data:`EXPLORE` at a random rating
    within the ladder's ``span``, each once, the anchor left out: one statement."""
    somewhere = rng.uniform(*span) if span is not None else anchor.mu
    values = {
        "ladder_id": ladder_id,
        "now": moment,
        "mu": anchor.mu,
        "near": NEAR,
        "somewhere": somewhere,
        "explore": EXPLORE,
    }
    found: dict[int, Candidate] = {}
    for row in session.connection().execute(_NEAR, values):
        if row[0] != anchor.bot_id and row[0] not in found:
            found[int(row[0])] = candidate(row, moment)
    return list(found.values())


def together(
    session: Session, ladder_id: int, anchor: int, bot_ids: list[int], table_size: int
) -> dict[tuple[int, int], int]:
    """How many games pairs of ``bot_ids`` were made to play together (``(low, high)``; a pair never met is not
    there): at two seats the anchor's pairs (the only ones ``pick_table`` weighs then), one index probe each; at
    more, every pair among them."""
    if len(bot_ids) < 2:
        return {}
    connection = session.connection()
    if table_size == 2:
        values = {"ladder_id": ladder_id, "anchor": anchor, "bots": bot_ids}
        return {(low, high): games for low, high, games in connection.execute(_ANCHOR_PAIRS, values)}
    values = {"ladder_id": ladder_id, "bots": bot_ids, "bots_too": bot_ids}
    statement = _PAIRS_MET if connection.dialect.name == "sqlite" else _PAIRS_MET_BY_LOW
    return {(low, high): games for low, high, games in connection.execute(statement, values)}


def make_games(
    session: Session,
    ladder_id: int,
    now: datetime,
    limit: int = ROUND_LIMIT,
    rng: random.Random | None = None,
) -> list[int]:
    """One matchmaking round of the ladder: games made (each committed on its own) while it is open, under its
    ``max_in_play`` and has idle bots enough for a table, ``limit`` at most; the scheduled games made. A closed
    ladder makes none: its games over are settled (:func:`sweep`) and its tournament marked done once none is in
    play (:func:`finish_closed`). Call it under ``tournament.play.writes.writing`` on SQLite."""
    rng = rng or random.Random()
    made: list[int] = []
    sweep(session, ladder_id, now)
    ladder = settings_of(session, ladder_id)
    if ladder is None or ladder.tournament_status != "running":
        session.rollback()
        return made
    if ladder.status != "open":
        finish_closed(session, ladder, now)
        return made
    playing = in_play(session, ladder_id)  # counted again, exactly, as each game is made (:func:`make_game`)
    span = span_of(session, ladder_id)
    tried: set[int] = set()
    while len(made) < limit and playing < ladder.max_in_play:
        anchor = anchor_of(session, ladder_id, now)
        if anchor is None or anchor.bot_id in tried:
            break  # nobody idle, or the one idle longest finds no table: the next round tries again
        tried.add(anchor.bot_id)
        near = candidates_near(session, ladder_id, anchor, now, span, rng)
        bots = sorted({anchor.bot_id, *(found.bot_id for found in near)})
        met = together(session, ladder_id, anchor.bot_id, bots, ladder.table_size)
        seats = pick_table(anchor, near, met, ladder.table_size, rng)
        if seats is None:
            break
        by_id = {found.bot_id: found for found in (anchor, *near)}
        scheduled_id = make_game(session, ladder, [by_id[bot_id] for bot_id in seats], now)
        if scheduled_id is None:  # a bot was taken meanwhile (another round, a pause), or the ladder is full
            playing = in_play(session, ladder_id)
            session.rollback()
            continue
        made.append(scheduled_id)
        playing += 1
        tried.discard(anchor.bot_id)
    session.rollback()
    return made


def make_game(session: Session, ladder: LadderSettings, seats: list[Candidate], now: datetime) -> int | None:
    """Make one game of ``seats`` (in seat order) and commit it: the scheduled game's id; ``None``, rolled back, if
    the ladder has its ``max_in_play`` now or a bot is no longer idle. The reads before it took no lock (on
    PostgreSQL, read committed, each statement reads what is committed when it runs; SQLite's reads outside a write
    take none): its first write locks the ladder's tournament row, and what it counts and claims after that holds."""
    connection = session.connection()
    number = int(connection.execute(_NUMBER, {"tournament_id": ladder.tournament_id}).scalar_one()) - 1
    status, playing = connection.execute(_STILL_OPEN, {"ladder_id": ladder.id}).one()
    if status != "open" or playing >= ladder.max_in_play:  # closed or full meanwhile: read with the row locked
        session.rollback()
        return None
    bot_ids = [bot.bot_id for bot in seats]
    claimed = connection.execute(_CLAIM, {"ladder": ladder.id, "bots": sorted(bot_ids)}).rowcount
    if claimed != len(bot_ids):
        session.rollback()
        return None
    now = max(now, clock())  # made after its bots' last results: the moment it is made, not the round's start
    seed = game_seed(ladder.seed, number + 1, bot_ids, ladder.seed_salt)
    game = {"tournament_id": ladder.tournament_id, "number": number, "round": number + 1, "bot_ids": bot_ids}
    scheduled_id = int(connection.execute(_GAME, {**game, "seed": seed}).scalar_one())
    values = {"scheduled_id": scheduled_id, "ladder_id": ladder.id, "now": now}
    connection.execute(_LADDER_GAME, {**values, "bot_ids": bot_ids})
    connection.execute(_SEAT, [{**values, "seat": seat, "bot_id": bot_id} for seat, bot_id in enumerate(bot_ids)])
    pairs = [{"ladder": ladder.id, "pair_low": low, "pair_high": high} for low, high in pairs_of(bot_ids)]
    connection.execute(pairs_met(connection.dialect.name), pairs)
    free_at = under_budget_at(session, ladder, bot_ids, now)
    rows = []
    for seat, bot in enumerate(seats):
        counts = list(bot.seat_counts) + [0] * (ladder.table_size - len(bot.seat_counts))
        counts[seat] += 1
        rows.append(
            {"ladder": ladder.id, "bot": bot.bot_id, "seat_counts": counts, "free_at": free_at[bot.bot_id]}
        )
    connection.execute(_ENTRY_MADE, rows)
    session.commit()
    return scheduled_id


def pairs_of(bot_ids: list[int]) -> list[tuple[int, int]]:
    """Each pair of a table's bots, ``(low, high)``, in one order (rows locked in one order)."""
    ordered = sorted(set(bot_ids))
    return [(low, high) for index, low in enumerate(ordered) for high in ordered[index + 1 :]]


def under_budget_at(
    session: Session, ladder: LadderSettings, bot_ids: list[int], now: datetime
) -> dict[int, datetime]:
    """When each bot may begin a game again, its seat just made counted: now if it began fewer than its budget in
    the last hour, else an hour after the oldest of its last ``budget`` seats (one statement)."""
    values: dict[str, Any] = {"ladder_id": ladder.id, "since": now - HOUR, "skip": ladder.budget_per_hour - 1}
    values.update({f"b{seat}": bot_id for seat, bot_id in enumerate(bot_ids)})
    edges = dict(session.connection().execute(budget_edges(len(bot_ids)), values).all())
    return {bot_id: now if bot_id not in edges else max(now, utc(edges[bot_id]) + HOUR) for bot_id in bot_ids}


def sweep(session: Session, ladder_id: int, now: datetime) -> int:
    """Settle the ladder's games over without a result counted here (cancelled: a closing cancels the games not
    started), freeing their bots; commits; how many. A finished game is settled in its result's transaction
    (``tournament/standings/ladderstate.py``): the sweep finds it only if that failed."""
    over = list(session.connection().execute(_UNSETTLED_OVER, {"ladder_id": ladder_id}).scalars())
    settled = 0
    for scheduled_id in over:
        settled += settle(session, scheduled_id, now) is not None
    session.commit()
    return settled


def settle(session: Session, scheduled_id: int, now: datetime) -> tuple[int, list[int]] | None:
    """Mark the ladder game settled and free its bots, in the session's transaction: its ladder and its bots;
    ``None`` if it is no ladder's game or was settled already (exactly once, whoever tries)."""
    row = session.connection().execute(_SETTLE, {"scheduled_id": scheduled_id}).first()
    if row is None:
        return None
    ladder_id, bot_ids = int(row[0]), [int(bot_id) for bot_id in row[1]]
    free(session, ladder_id, bot_ids, now)
    return ladder_id, bot_ids


def free(session: Session, ladder_id: int, bot_ids: list[int], now: datetime) -> None:
    """The bots of a settled game idle again (``busy`` 0, idle since ``now`` unless over their budget until later:
    ``free_at``), in the session's transaction, their rows in one order."""
    connection = session.connection()
    for bot_id in sorted(set(bot_ids)):
        connection.execute(_FREE, {"ladder": ladder_id, "bot": bot_id, "now": now})


def finish_closed(session: Session, ladder: LadderSettings, now: datetime) -> bool:
    """Mark a closed ladder's tournament done once none of its games is in play (commits); whether it is. The
    tournament's row is locked before the games are counted, as a game is made under that lock: a game made by a
    round that read the ladder open just before its closing is committed, and counted, before this count."""
    session.connection().execute(_LOCK, {"tournament_id": ladder.tournament_id})
    if in_play(session, ladder.id):
        session.rollback()
        return False
    session.connection().execute(_DONE, {"tournament_id": ladder.tournament_id, "now": now})
    session.commit()
    return True
