"""What the service writes for a ladder (``/api/v1/ladders``): its creation, a bot joining, leaving, paused and
resumed, and its closing; each in one place, with who may do it.

A ladder is a tournament that never completes, with a ``ladders`` row beside it (``store/models/ladders.py``): the
workers make its games as its bots fall idle (``tournament.jobs.ladder_round``, which the API enqueues by its dotted
name after each change that may let a game start) and rate them as they end. Here:

- a bot joins on its owner's word; the ladder's owner may add another account's bot only if that bot is open to
  others (``open_to_others``), as in tournaments; the operator may add any bot. A bot that left joins again with the
  rating it had;
- a bot leaves on its owner's, the ladder's owner's or the operator's word: no game is made for it any more, the
  one it plays finishes, and its row stays (greyed) with its rating;
- a bot is paused by its owner, the ladder's owner or the operator (the reason says who), and resumed by its owner
  or the operator, which also clears its streak of games with faults (the workers pause a bot after
  ``SORRY_ARENA_LADDER_PAUSE_AFTER`` of them);
- the ladder's owner or the operator closes it: no game is made any more, its games not begun are cancelled (their
  bots freed), those being played finish, and its tournament is done once none is left (the workers mark it so at
  the last one's end).
"""

from __future__ import annotations

import logging
import secrets
from collections import Counter
from typing import Any

from sqlalchemy import case, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ratings import wenglin
from runtime import metrics
from runtime.settings import Settings
from service.errors import fail
from store.accountlocks import lock_account
from store.models import Bot, Ladder, LadderEntry, LadderGame, Tournament, TournamentGame, new_seed_salt, now

log = logging.getLogger(__name__)

QUOTA = "SORRY_ARENA_QUOTA_LADDERS"
BY_OWNER = "paused by its owner"
BY_LADDER_OWNER = "paused by the ladder's owner"
BY_OPERATOR = "paused by the operator"


def found(session: Session, ladder_id: int, lock: bool = False) -> Ladder:
    """The ladder (its row locked until the commit with ``lock``: two closings, or a closing and a matchmaking round,
    one after the other), or a 404 that names the id."""
    query = select(Ladder).where(Ladder.id == ladder_id)
    ladder = session.scalar(query.with_for_update() if lock else query) if 0 < ladder_id <= 2**31 - 1 else None
    if ladder is None:
        fail(404, f"no ladder {ladder_id}")
    return ladder


def found_bot(session: Session, bot_id: int) -> Bot:
    """The bot, or a 404 that names the id (a deleted bot is no bot here)."""
    bot = session.get(Bot, bot_id) if 0 < bot_id <= 2**31 - 1 else None
    if bot is None or not bot.active:
        fail(404, f"no bot {bot_id}")
    return bot


def found_entry(session: Session, ladder: Ladder, bot: Bot) -> LadderEntry:
    """The bot's entry in the ladder (it may have left), or a 404."""
    entry = session.get(LadderEntry, (ladder.id, bot.id))
    if entry is None:
        fail(404, f"bot {bot.id} ({bot.name}) is not in ladder {ladder.id}")
    return entry


def owner_of(session: Session, ladder: Ladder) -> int:
    """The account that owns the ladder (its tournament's)."""
    return int(session.get_one(Tournament, ladder.tournament_id).owner_id)


def still_open(ladder: Ladder) -> None:
    """A 409 if the ladder is closed."""
    if ladder.status != "open":
        fail(409, f"ladder {ladder.id} is closed: no bot joins, leaves, pauses or resumes there any more")


def check_quota(session: Session, settings: Settings, owner_id: int) -> None:
    """Refuse (429) a new ladder of an account that has ``SORRY_ARENA_QUOTA_LADDERS`` open ladders. Takes the
    account's lock first, held until the caller commits the new ladder, so that requests at once are counted one
    after another."""
    lock_account(session, owner_id)
    open_ladders = session.scalar(
        select(func.count())
        .select_from(Ladder)
        .join(Tournament, Tournament.id == Ladder.tournament_id)
        .where(Tournament.owner_id == owner_id, Ladder.status == "open")
    )
    if (open_ladders or 0) >= settings.quota_ladders:
        metrics.child(metrics.QUOTA_REFUSALS, QUOTA).inc()
        log.info("account %s: a new ladder refused by the quota %s", owner_id, QUOTA)
        fail(
            429,
            f"quota {QUOTA}: an account has at most {settings.quota_ladders} open ladders, and yours has "
            f"{open_ladders}; close one (POST /api/v1/ladders/{{id}}/close)",
        )


def create(session: Session, owner_id: int, official: bool, fields: dict[str, Any]) -> Ladder:
    """A new open ladder, committed: its tournament (running, no game laid out: matchmaking appends them) and its
    row. ``fields``: name, game, settings (normalized), variant, table_size, move_timeout_ms, rated,
    budget_per_hour and max_in_play, checked by the caller (quota included)."""
    moment = now()
    tournament = Tournament(
        owner_id=owner_id,
        name=fields["name"],
        game=fields["game"],
        settings=fields["settings"],
        variant=fields["variant"],
        bot_ids=[],
        table_size=fields["table_size"],
        rounds=0,
        seed=secrets.randbits(62),
        seed_salt=new_seed_salt(),
        official=official,
        move_timeout_ms=fields["move_timeout_ms"],
        rated=fields["rated"],
        run=1,
        status="running",
        games_total=0,
        created_at=moment,
    )
    session.add(tournament)
    session.flush()
    ladder = Ladder(
        tournament_id=tournament.id,
        budget_per_hour=fields["budget_per_hour"],
        max_in_play=fields["max_in_play"],
        status="open",
        created_at=moment,
    )
    session.add(ladder)
    session.commit()
    log.info("ladder %s (tournament %s) opened by account %s", ladder.id, tournament.id, owner_id)
    return ladder


def join(session: Session, ladder: Ladder, bot: Bot, caller_id: int, operator: bool) -> LadderEntry:
    """Enter ``bot`` into the ladder, committed (see the module docstring for who may): a new entry at the
    newcomer's rating, or the entry of a bot that left, back with its rating. A 409 if it is in already."""
    still_open(ladder)
    tournament = session.get_one(Tournament, ladder.tournament_id)
    if not operator and bot.owner_id != caller_id:
        if tournament.owner_id != caller_id:
            fail(
                403,
                f"bot {bot.id} ({bot.name}) is another account's: its owner enters it into ladders (or the ladder's "
                "owner, if the bot is open to others)",
            )
        if not bot.open_to_others:
            fail(
                403,
                f"bot {bot.id} ({bot.name}) is another account's, and its owner has not opened it to others' "
                "tournaments and ladders (open_to_others)",
            )
    if bot.paused:
        fail(422, f"bot {bot.id} ({bot.name}) is paused by the operator")
    if tournament.game not in bot.games:
        fail(422, f"bot {bot.id} ({bot.name}) does not play the {tournament.game} game")
    entry = session.get(LadderEntry, (ladder.id, bot.id))
    if entry is not None and entry.left_at is None:
        fail(409, f"bot {bot.id} ({bot.name}) is in ladder {ladder.id} already")
    if entry is not None:
        entry.left_at = None
    else:
        entry = LadderEntry(
            ladder_id=ladder.id,
            bot_id=bot.id,
            joined_at=now(),
            mu=wenglin.MU,
            sigma=wenglin.SIGMA,
            games=0,
            seat_counts=[0] * tournament.table_size,
            busy=0,
            free_at=now(),
            fault_streak=0,
        )
        session.add(entry)
    try:
        session.commit()
    except IntegrityError:  # the same bot joined by another request at the same moment
        session.rollback()
        fail(409, f"bot {bot.id} ({bot.name}) is in ladder {ladder.id} already")
    return entry


def leave(session: Session, ladder: Ladder, bot: Bot, caller_id: int, operator: bool) -> LadderEntry:
    """Take ``bot`` out of the ladder, committed: no game is made for it any more, its game in play finishes, its
    row stays with its rating. Its owner, the ladder's owner or the operator."""
    entry = found_entry(session, ladder, bot)
    if not operator and caller_id not in (bot.owner_id, owner_of(session, ladder)):
        fail(403, f"bot {bot.id} ({bot.name}) is not yours, nor is ladder {ladder.id}: you cannot take it out")
    still_open(ladder)
    if entry.left_at is not None:
        fail(409, f"bot {bot.id} ({bot.name}) left ladder {ladder.id} already")
    entry.left_at = now()
    session.commit()
    return entry


def pause(session: Session, ladder: Ladder, bot: Bot, caller_id: int, operator: bool) -> LadderEntry:
    """Pause ``bot`` in the ladder, committed: no game is made for it until it is resumed (the one it plays
    finishes). Its owner, the ladder's owner or the operator; pausing a paused bot changes nothing."""
    entry = found_entry(session, ladder, bot)
    if operator:
        reason = BY_OPERATOR
    elif caller_id == bot.owner_id:
        reason = BY_OWNER
    elif caller_id == owner_of(session, ladder):
        reason = BY_LADDER_OWNER
    else:
        fail(403, f"bot {bot.id} ({bot.name}) is not yours, nor is ladder {ladder.id}: you cannot pause it")
    active(ladder, bot, entry)
    if not entry.paused:
        entry.paused, entry.pause_reason, entry.paused_at = True, reason, now()
        session.commit()
    return entry


def resume(session: Session, ladder: Ladder, bot: Bot, caller_id: int, operator: bool) -> LadderEntry:
    """Resume ``bot`` in the ladder, committed: its pause, its reason and its streak of games with faults cleared.
    Its owner or the operator; resuming a bot not paused changes nothing."""
    entry = found_entry(session, ladder, bot)
    if not operator and caller_id != bot.owner_id:
        fail(403, f"bot {bot.id} ({bot.name}) is not yours: its owner or the operator resumes it")
    active(ladder, bot, entry)
    if entry.paused:
        entry.paused, entry.pause_reason, entry.paused_at, entry.fault_streak = False, None, None, 0
        session.commit()
    return entry


def active(ladder: Ladder, bot: Bot, entry: LadderEntry) -> None:
    """A 409 if the ladder is closed or the bot left it."""
    still_open(ladder)
    if entry.left_at is not None:
        fail(409, f"bot {bot.id} ({bot.name}) left ladder {ladder.id}: it joins again to play")


def close(session: Session, ladder: Ladder, caller_id: int, operator: bool) -> int:
    """Close the ladder, committed (its owner or the operator; a 409 if it is closed already): no game is made any
    more; its games not begun are cancelled and their bots freed; those being played finish. Its tournament is done
    at once if no game is left in play (else the workers mark it done at the last one's end). Returns how many games
    were cancelled. ``ladder`` must have been read locked (:func:`found` with ``lock``)."""
    tournament = session.get_one(Tournament, ladder.tournament_id)
    if not operator and caller_id != tournament.owner_id:
        fail(403, f"ladder {ladder.id} is not yours (only its owner or the operator may close it)")
    if ladder.status != "open":
        fail(409, f"ladder {ladder.id} is closed already")
    moment = now()
    ladder.status, ladder.closed_at = "closed", moment
    # A game not begun has no game row: a worker taking its lease now either went first (the game is running and
    # finishes) or finds it cancelled.
    cancelled = session.scalars(
        update(TournamentGame)
        .where(
            TournamentGame.tournament_id == tournament.id,
            TournamentGame.status == "pending",
            TournamentGame.game_id.is_(None),
        )
        .values(status="cancelled", worker=None, lease_until=None)
        .returning(TournamentGame.id)
    ).all()
    if cancelled:
        settled = session.scalars(
            update(LadderGame)
            .where(LadderGame.tournament_game_id.in_(cancelled), LadderGame.settled.is_(False))
            .values(settled=True)
            .returning(LadderGame.bot_ids)
        ).all()
        freed = Counter(bot_id for bot_ids in settled for bot_id in bot_ids)
        for bot_id, games in freed.items():
            session.execute(
                update(LadderEntry)
                .where(LadderEntry.ladder_id == ladder.id, LadderEntry.bot_id == bot_id)
                .values(busy=case((LadderEntry.busy > games, LadderEntry.busy - games), else_=0))
            )
    in_play = session.scalar(
        select(func.count())
        .select_from(LadderGame)
        .where(LadderGame.ladder_id == ladder.id, LadderGame.settled.is_(False))
    )
    if not in_play:
        tournament.status, tournament.finished_at = "done", moment
    session.commit()
    log.info("ladder %s closed: %d game(s) not begun cancelled, %d in play", ladder.id, len(cancelled), in_play)
    return len(cancelled)
