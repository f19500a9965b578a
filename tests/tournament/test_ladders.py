"""Ladders played by the embedded queue's threads with push bots: games are made as bots fall idle, never a bot in
two games at once nor more than ``max_in_play`` games at once, every result rated once in the ladder (and in the
general pool), a faulty bot paused after its streak with its reason, and a closed ladder's tournament done once its
last game is over."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from store.models import Result, Tournament
from store.models.ladders import Ladder, LadderGame, LadderPoint
from tests.apikit import Player
from tests.arenakit import push_bots, random_choice, register, wait_for
from tests.ladderkit import close, entries, ladder_games, new_ladder
from tournament.plans.runs import utc

ROUND_JOB = "tournament.jobs.ladder_round"


def nonsense(request: dict[str, Any]) -> str:
    return "no-such-action"


def results_of(session: Session, tournament_id: int) -> int:
    return int(session.scalar(select(func.count(Result.id)).where(Result.tournament_id == tournament_id)) or 0)


def spans(session: Session, ladder_id: int) -> list[tuple[datetime, datetime, list[int]]]:
    """Each finished ladder game: when it was made, when its result was written, its bots."""
    rows = session.execute(
        select(LadderGame.made_at, Result.finished_at, LadderGame.bot_ids)
        .join(Result, Result.tournament_game_id == LadderGame.tournament_game_id)
        .where(LadderGame.ladder_id == ladder_id)
    ).all()
    return [(utc(made), utc(finished), list(bots)) for made, finished, bots in rows]


def most_at_once(intervals: list[tuple[datetime, datetime]]) -> int:
    events = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    most = current = 0
    for _, step in events:
        current += step
        most = max(most, current)
    return most


def test_a_ladder_plays_rates_and_closes(arena: Flask, client: FlaskClient, owner: Player) -> None:
    sessions = arena.extensions["db_sessions"]
    with push_bots(*[random_choice] * 5) as servers:
        bot_ids = [register(client, owner, f"r{n}", server.url)["id"] for n, server in enumerate(servers)]
        with sessions() as session:
            ladder = new_ladder(session, owner.id, "card", None, 2, 3600, 2, bot_ids)
            ladder_id, tournament_id = ladder.id, ladder.tournament_id
        assert arena.extensions["queue"].queue_ladder_round(ladder_id)  # as the service does after a creation
        with sessions() as session:
            wait_for("16 ladder results", lambda: results_of(session, tournament_id) >= 16)
            close(session, ladder_id)
        arena.extensions["queue"].enqueue(ROUND_JOB, ladder_id)  # as the service does after a closing

        def done() -> bool:
            with sessions() as session:
                return bool(
                    session.scalar(select(Tournament.status).where(Tournament.id == tournament_id)) == "done"
                )

        wait_for("the closed ladder's tournament done", done)
    with sessions() as session:
        made = ladder_games(session, ladder_id)
        assert made and all(game.settled for game in made)
        found = entries(session, ladder_id)
        assert all(entry.busy == 0 for entry in found.values())
        results = session.scalars(select(Result).where(Result.tournament_id == tournament_id)).all()
        rated = [result for result in results if result.void_reason is None]
        assert len(rated) >= 16 and all(result.rated for result in rated)  # in the general pool too
        assert sum(entry.games for entry in found.values()) == 2 * len(rated)  # each result rated once
        points = session.scalar(
            select(func.count()).select_from(LadderPoint).where(LadderPoint.ladder_id == ladder_id)
        )
        assert points == 2 * len(rated)
        assert all(entry.games > 0 and entry.version_id is not None for entry in found.values())
        played = spans(session, ladder_id)
        assert most_at_once([(start, end) for start, end, _ in played]) <= 2  # max_in_play
        for bot_id in bot_ids:  # never a bot in two games at once
            assert most_at_once([(start, end) for start, end, bots in played if bot_id in bots]) == 1
        seats = [sum(entry.seat_counts) for entry in found.values()]
        assert sum(seats) == 2 * len(made)
        status = session.scalar(select(Ladder.status).where(Ladder.id == ladder_id))
        assert status == "closed"


def test_a_faulty_bot_is_paused_after_its_streak(arena: Flask, client: FlaskClient, owner: Player) -> None:
    sessions = arena.extensions["db_sessions"]
    with push_bots(random_choice, random_choice, nonsense) as servers:
        bot_ids = [register(client, owner, f"f{n}", server.url)["id"] for n, server in enumerate(servers)]
        faulty = bot_ids[2]
        with sessions() as session:
            ladder = new_ladder(session, owner.id, "card", None, 2, 3600, 1, bot_ids)
            ladder_id, tournament_id = ladder.id, ladder.tournament_id
        arena.extensions["queue"].enqueue(ROUND_JOB, ladder_id)

        def paused() -> Any:
            with sessions() as session:
                entry = entries(session, ladder_id)[faulty]
                return entry.pause_reason if entry.paused else None

        reason = wait_for("the faulty bot paused", paused)
        assert reason == "paused automatically: faults in 3 games in a row (the last: an illegal move)"
        with sessions() as session:
            at_pause = results_of(session, tournament_id)
            wait_for("4 more results", lambda: results_of(session, tournament_id) >= at_pause + 4)
            close(session, ladder_id)
        arena.extensions["queue"].enqueue(ROUND_JOB, ladder_id)
        arena.extensions["queue"].wait(timeout=120)
    with sessions() as session:
        made = ladder_games(session, ladder_id)
        with_faulty = [game.tournament_game_id for game in made if faulty in game.bot_ids]
        assert len(with_faulty) == 3  # none made after the pause (max_in_play 1: one game at a time)
        assert entries(session, ladder_id)[faulty].fault_streak == 3
