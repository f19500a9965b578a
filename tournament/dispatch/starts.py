"""Runs started when they are due, their first games fed to the queue.

A tournament that starts now is started by its start job (``tournament.jobs.start_tournament``); the runs due later
(a start time, repeats) by the clock of every worker (:func:`start_overdue`, ``tournament.dispatch.clock``) and by
the maintenance, at their planned times, each once however many workers try (``tournament.plans.runs``).
"""

from __future__ import annotations

import logging
from datetime import datetime

from store.models import Tournament, now
from tournament.dispatch import context
from tournament.dispatch.feed import feed_games
from tournament.plans import runs

log = logging.getLogger(__name__)


def start_runs(ctx: context.Context, tournament_id: int, moment: datetime) -> list[int]:
    """Start the tournament's runs due at ``moment`` that have not started (``runs.start_due``: each once, whoever
    else tries), then feed the queue (their first games, in their account's turn); the runs started."""
    with ctx.sessions() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            return []
        started = runs.start_due(session, tournament, moment)
    if started:
        feed_games(ctx)
    return started


def start_overdue(ctx: context.Context, moment: datetime | None = None) -> list[int]:
    """Start every run due by ``moment`` (now) that has not started: a tournament whose start time came, a repeat at
    its planned time (each timed from the first run's start, never from a late run), and one whose start job was
    lost. Every worker's clock calls this every second; starting is idempotent (``runs``), so the workers that
    race for a run start it once. Returns the runs started."""
    moment = moment or now()
    with ctx.sessions() as session:
        overdue = runs.overdue(session, moment)
    started = []
    for tournament_id in overdue:
        found = start_runs(ctx, tournament_id, moment)
        if found:
            log.info("tournament %s: started runs %s", tournament_id, ", ".join(map(str, found)))
        started += found
    return started
