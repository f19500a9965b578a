"""Ladders' matchmaking rounds, run by whoever looks after the queue: the job a ladder's change enqueues, every
worker's clock, the embedded service's maintenance.

A round (``tournament.plans.ladders.make_games``) makes games for the idle bots of one ladder; the games made are
fed to the queue by the fair dispatch like any tournament's (``tournament.dispatch.feed``). A ladder's result runs
its round itself (``tournament.standings.ladderstate.after_result``); the clock and the maintenance run one for
every ladder each second, for what no result brings: a bot whose hourly budget freed, one that joined or was resumed
(the service also enqueues ``tournament.jobs.ladder_round`` then, so that it starts at once), the games a closing
cancelled (their bots freed), a closed ladder's tournament marked done once its last game is settled.
"""

from __future__ import annotations

import logging

from sqlalchemy.exc import SQLAlchemyError

from store.database import first_line
from store.models import now
from tournament.dispatch import context
from tournament.plans import ladders
from tournament.play.writes import writing

log = logging.getLogger(__name__)


def run_round(ctx: context.Context, ladder_id: int) -> list[int]:
    """One matchmaking round of the ladder: the scheduled games it made."""
    with ctx.sessions() as session, writing(session):
        return ladders.make_games(session, ladder_id, now())


def run_rounds(ctx: context.Context) -> list[int]:
    """A round for every ladder still running (open, or closed with games to settle); the games made. A ladder whose
    round fails (its database answers no more) is logged and left to the next tick; the others go on."""
    with ctx.sessions() as session:
        ladder_ids = ladders.open_ladders(session)
    made: list[int] = []
    for ladder_id in ladder_ids:
        try:
            made += run_round(ctx, ladder_id)
        except SQLAlchemyError as error:
            log.warning("ladder %s: no round now (the next tick tries again): %s", ladder_id, first_line(error))
    return made
