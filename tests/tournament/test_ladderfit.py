"""A ladder's standings (``tournament/standings/ladderfit.py``): the fit of its rated results per bot version, a new
version linked to its previous one by a prior, groups of bots that never met fitted apart; and on a ladder played by
the embedded queue, the fit asked for after results, counting every rated result once the asks due have run."""

from __future__ import annotations

import random

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from ratings.pool import standings
from store.models import Result
from store.models.ladders import Ladder
from tests.apikit import Player
from tests.arenakit import push_bots, random_choice, register, wait_for
from tests.ladderkit import close, new_ladder
from tournament.standings import ladderfit
from tournament.standings.ladderfit import PRIOR_GAMES, table_of

ROUND_JOB = "tournament.jobs.ladder_round"


def played(
    strengths: dict[int, float], games: int, seed: int = 1
) -> list[tuple[list[int], list[int], list[int], list[int]]]:
    """2-seat results between versions of ``strengths`` (Elo), bot id = version id, drawn from Bradley-Terry."""
    rng = random.Random(seed)
    versions = sorted(strengths)
    results = []
    for _ in range(games):
        a, b = rng.sample(versions, 2)
        a_wins = rng.random() < 1 / (1 + 10 ** ((strengths[b] - strengths[a]) / 400))
        results.append(([a, b], [a, b], [0, 1] if a_wins else [1, 0], []))
    return results


def test_the_table_is_the_pools_fit_of_the_versions_results() -> None:
    results = played({1: 0.0, 2: 100.0, 3: 200.0, 4: 300.0}, 400)
    table = table_of(results)
    expected = standings([(versions, ranks) for _, versions, ranks, _ in results])
    assert table["through"] == 400 and table["groups"] == 1
    assert [(row["version_id"], row["rating"], row["low"], row["high"]) for row in table["rows"]] == [
        (row.player, row.rating, row.low, row.high) for row in expected
    ]
    assert [row["version_id"] for row in table["rows"]] == [4, 3, 2, 1]
    assert sum(row["games"] for row in table["rows"]) == 800


def test_a_new_version_starts_near_its_previous_rating_and_counts_only_its_own_games() -> None:
    # bot 10 played as version 1 (strong) then version 5 (two games only); bots 2, 3 as themselves
    results = [([10, 2], [1, 2], [0, 1], []) for _ in range(30)] + [
        ([10, 3], [1, 3], [0, 1], []) for _ in range(30)
    ]
    results += [([2, 3], [2, 3], [0, 1], []) for _ in range(15)] + [
        ([2, 3], [2, 3], [1, 0], []) for _ in range(15)
    ]
    results += [([10, 2], [1, 2], [1, 0], []) for _ in range(3)] + [
        ([10, 3], [1, 3], [1, 0], []) for _ in range(3)
    ]
    results += [([10, 2], [5, 2], [0, 1], []), ([10, 3], [5, 3], [1, 0], [])]
    rows = {row["version_id"]: row for row in table_of(results)["rows"]}
    assert rows[5]["bot_id"] == 10 and rows[5]["previous_version_id"] == 1 and rows[5]["games"] == 2
    assert rows[1]["previous_version_id"] is None and rows[1]["games"] == 66
    # without the prior, one win and one loss against equals would put it at their level; with it, near version 1
    assert rows[5]["rating"] > rows[2]["rating"] + 100
    assert rows[5]["high"] - rows[5]["low"] > rows[1]["high"] - rows[1]["low"]
    assert PRIOR_GAMES == 4


def test_bots_that_never_met_are_fitted_apart() -> None:
    results = played({1: 0.0, 2: 200.0}, 60) + played({7: 0.0, 8: 400.0}, 60, seed=2)
    table = table_of(results)
    assert table["groups"] == 2
    for group in (1, 2):
        ratings = [row["rating"] for row in table["rows"] if row["group"] == group]
        assert sum(ratings) / len(ratings) == pytest.approx(1500.0, abs=0.01)


def test_a_ladder_played_by_the_embedded_queue_is_fitted_on_every_rated_result(
    arena: Flask, client: FlaskClient, owner: Player
) -> None:
    sessions = arena.extensions["db_sessions"]
    queue = arena.extensions["queue"]
    with push_bots(*[random_choice] * 4) as servers:
        bot_ids = [register(client, owner, f"r{n}", server.url)["id"] for n, server in enumerate(servers)]
        with sessions() as session:
            ladder = new_ladder(session, owner.id, "card", None, 2, 3600, 2, bot_ids)
            ladder_id, tournament_id = ladder.id, ladder.tournament_id
        queue.enqueue(ROUND_JOB, ladder_id)

        def results() -> int:
            with sessions() as session:
                return int(
                    session.scalar(
                        select(func.count(Result.id)).where(
                            Result.tournament_id == tournament_id, Result.void_reason.is_(None)
                        )
                    )
                    or 0
                )

        wait_for("12 ladder results", lambda: results() >= 12)
        with sessions() as session:
            close(session, ladder_id)  # no more games made: the results come to an end

        def fitted() -> Ladder | None:
            ladderfit.ask_due(sessions, queue)  # the workers' clock and the embedded maintenance do this
            queue.wait(timeout=60)
            with sessions() as session:
                found = session.get(Ladder, ladder_id)
                assert found is not None
                return found if found.fitted == found.rated == results() else None

        ladder = wait_for("the ladder's fit of every rated result", fitted)
    assert ladder.standings is not None
    rows = ladder.standings["rows"]
    assert {row["bot_id"] for row in rows} == set(bot_ids)
    assert sum(row["games"] for row in rows) == 2 * ladder.fitted
    assert all(row["low"] < row["rating"] < row["high"] for row in rows)
