"""A ladder on the production path: PostgreSQL, Redis and two ``sorry-arena worker`` processes, whose clocks and
results run the ladder's rounds at once: never a bot in two games at once, nor more games at once than
``max_in_play``, every result rated once, and the closed ladder done."""

from __future__ import annotations

from flask import Flask
from sqlalchemy import select

from store.models import Result, Tournament
from tests.apikit import new_player
from tests.arenakit import push_bots, random_choice, register, wait_for
from tests.ladderkit import close, entries, ladder_games, new_ladder
from tests.tournament.test_ladders import most_at_once, results_of, spans
from tests.tournament.test_rq import Workers, arena, pg_url, rq_redis, workers  # noqa: F401 (fixtures)


def test_two_workers_play_a_ladder(arena: Flask, workers: Workers) -> None:  # noqa: F811
    client = arena.test_client()
    owner = new_player(client, "owner")
    sessions = arena.extensions["db_sessions"]
    with push_bots(*[random_choice] * 6) as servers:
        bot_ids = [register(client, owner, f"q{n}", server.url)["id"] for n, server in enumerate(servers)]
        with sessions() as session:
            ladder = new_ladder(session, owner.id, "card", None, 2, 3600, 3, bot_ids)
            ladder_id, tournament_id = ladder.id, ladder.tournament_id
        workers.start("--name", "east")
        workers.start("--name", "west")
        assert arena.extensions["queue"].queue_ladder_round(ladder_id)
        with sessions() as session:
            wait_for("20 ladder results", lambda: results_of(session, tournament_id) >= 20)
            close(session, ladder_id)

        def done() -> bool:
            with sessions() as session:
                return bool(
                    session.scalar(select(Tournament.status).where(Tournament.id == tournament_id)) == "done"
                )

        wait_for("the closed ladder's tournament done (by the workers' clocks)", done)
    with sessions() as session:
        made = ladder_games(session, ladder_id)
        assert made and all(game.settled for game in made)
        found = entries(session, ladder_id)
        assert all(entry.busy == 0 for entry in found.values())
        rated = session.scalars(
            select(Result).where(Result.tournament_id == tournament_id, Result.void_reason.is_(None))
        ).all()
        assert len(rated) >= 20 and sum(entry.games for entry in found.values()) == 2 * len(rated)
        played = spans(session, ladder_id)
        assert most_at_once([(start, end) for start, end, _ in played]) <= 3
        for bot_id in bot_ids:
            assert most_at_once([(start, end) for start, end, bots in played if bot_id in bots]) == 1
