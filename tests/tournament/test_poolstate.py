"""A rating pool's running state (tournament/poolstate.py) on SQLite and PostgreSQL: what the game path counts result
by result is exactly what a recount from the stored results gives (tallies, each version's incremental Elo, the
chart's points), two workers counting results of one pool at once count each once, a cancelled tournament's
results leave the chart at the next refit, a pool flagged for a rebuild (as migration 0008 leaves every pool) is
left to the rebuild by the game path, and the page's lines (service/web/pools.py) draw at most MAX_POINTS points per
line that lie on the incremental Elo and end at the version's rating."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from benchmarks.standings import seed_pool, write_results
from ratings.history import MAX_POINTS, replay
from ratings.tallies import config_key
from service.web import pools
from store.database import make_engine, sessions
from store.models import RatingPool, Result, Tournament
from store.models.tournaments import RatingElo, RatingPoint, RatingTally
from tournament import poolstate, standings


@pytest.fixture
def store(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    yield sessions(engine)
    engine.dispose()


def state(session: Session) -> dict[str, Any]:
    """The pool's running state, comparable."""
    pool = session.scalars(select(RatingPool)).one()
    return {
        "counted": pool.counted,
        "tallies": sorted(
            session.execute(select(RatingTally.tournament_id, RatingTally.config, RatingTally.count))
        ),
        "elo": sorted(
            session.execute(
                select(RatingElo.version_id, RatingElo.rating, RatingElo.games, RatingElo.first, RatingElo.last)
            )
        ),
        "points": sorted(
            session.execute(
                select(
                    RatingPoint.version_id,
                    RatingPoint.number,
                    RatingPoint.counted,
                    RatingPoint.rating,
                    RatingPoint.level,
                )
            )
        ),
    }


def stored_games(session: Session) -> list[tuple[list[int], list[int]]]:
    return [
        (list(versions), list(ranks))
        for versions, ranks in session.execute(select(Result.version_ids, Result.ranks).order_by(Result.id))
    ]


def test_the_game_path_counts_what_a_recount_gives(store: sessionmaker[Session]) -> None:
    with store() as session:
        tournament_id, spare = seed_pool(session, 0, 6, spare=40)
        write_results(session, tournament_id, spare, counted=True)
        counted = state(session)
        assert counted["counted"] == 40 and len(counted["points"]) == 40 * 4
        games = stored_games(session)
        assert counted["tallies"] == sorted(
            (tournament_id, key, count) for key, count in Counter(config_key(*game) for game in games).items()
        )
        replayed = [point for seats in replay(games) for point in seats]
        assert sorted((version, number, rating) for version, number, _, rating, _ in counted["points"]) == sorted(
            replayed
        )
        poolstate.rebuild(session, "card", "standard")
        session.commit()
        assert state(session) == counted


def test_two_workers_counting_results_of_one_pool_at_once_count_each_once(store: sessionmaker[Session]) -> None:
    with store() as session:
        tournament_id, spare = seed_pool(session, 0, 5, spare=60)
    failures: list[BaseException] = []

    def worker(scheduled: list[int]) -> None:
        try:
            with store() as session:
                write_results(session, tournament_id, scheduled, counted=True)
        except BaseException as error:  # reported by the test below
            failures.append(error)

    threads = [threading.Thread(target=worker, args=(spare[index::2],)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures and not any(thread.is_alive() for thread in threads)
    with store() as session:
        counted = state(session)
        assert counted["counted"] == 60 and sum(count for _, _, count in counted["tallies"]) == 60
        played = Counter(version for versions, _ in stored_games(session) for version in versions)
        assert {version: games for version, _, games, _, _ in counted["elo"]} == dict(played)
        assert sorted(last for *_, last in counted["elo"])[-1] == 60
        poolstate.rebuild(session, "card", "standard")  # the order they were counted in may differ from the ids'
        session.commit()
        rebuilt = state(session)
        assert rebuilt["tallies"] == counted["tallies"] and rebuilt["counted"] == 60
        assert [row[:1] + row[2:3] for row in rebuilt["elo"]] == [row[:1] + row[2:3] for row in counted["elo"]]


def test_a_cancelled_tournament_leaves_the_chart_at_the_next_refit(store: sessionmaker[Session]) -> None:
    with store() as session:
        kept, kept_spare = seed_pool(session, 0, 4, spare=12, seed=1)
        gone, gone_spare = seed_pool(session, 0, 4, spare=8, seed=2)
        write_results(session, kept, kept_spare[:6], counted=True)
        write_results(session, gone, gone_spare, counted=True)
        write_results(session, kept, kept_spare[6:], counted=True)
        standings.refresh_pool(session, "card", "standard")
        assert session.scalar(select(RatingPool.games)) == 20
        session.execute(update(Tournament).where(Tournament.id == gone).values(status="cancelled"))
        session.commit()
        standings.refresh_pool(session, "card", "standard")
        pool = session.scalars(select(RatingPool)).one()
        assert (pool.games, pool.counted, pool.cancelled, pool.rebuild) == (12, 12, 1, False)
        kept_games = [
            (list(versions), list(ranks))
            for versions, ranks in session.execute(
                select(Result.version_ids, Result.ranks).where(Result.tournament_id == kept).order_by(Result.id)
            )
        ]
        assert sorted((v, n, r) for v, n, _, r, _ in state(session)["points"]) == sorted(
            point for seats in replay(kept_games) for point in seats
        )


def test_a_pool_awaiting_a_rebuild_is_left_to_it(store: sessionmaker[Session]) -> None:
    with store() as session:
        tournament_id, spare = seed_pool(session, 30, 5, spare=5)  # 30 results the state never counted
        poolstate.pool_id(session, "card", "standard")
        session.execute(update(RatingPool).values(rebuild=True))  # as migration 0008 leaves a pool
        session.commit()
        write_results(session, tournament_id, spare, counted=True)
        assert state(session)["counted"] == 0 and state(session)["points"] == []
        standings.refresh_pool(session, "card", "standard")
        pool = session.scalars(select(RatingPool)).one()
        assert (pool.rebuild, pool.counted, pool.games) == (False, 35, 35)
        assert len(state(session)["points"]) == 35 * 4


def test_a_line_draws_a_few_hundred_points_on_the_incremental_elo(store: sessionmaker[Session]) -> None:
    with store() as session:
        seed_pool(session, 3_000, 5)
        poolstate.rebuild(session, "card", "standard")
        session.commit()
        pool = session.scalars(select(RatingPool)).one()
        elo = {version: (rating, games, first) for version, rating, games, first, _ in state(session)["elo"]}
        lines = pools.lines(session, pool, set(elo))
        full = {(counted, version): rating for version, _, counted, rating, _ in state(session)["points"]}
    assert set(lines) == set(elo)
    for version, line in lines.items():
        rating, games, first = elo[version]
        assert games > 2_000
        assert len(line) <= MAX_POINTS + 2
        assert line[0] == (first, 1500.0) and line[-1] == (3_000, rating)
        assert all(full[(counted, version)] == value for counted, value in line[1:-1])
        assert [x for x, _ in line] == sorted(x for x, _ in line)


def test_a_result_of_a_tournament_cancelled_meanwhile_is_not_counted(store: sessionmaker[Session]) -> None:
    """A cancellation that raced with a game's end leaves a result of a cancelled tournament: the pool's state, as
    its table, leaves it out, so the two agree and no refit is asked for again and again."""
    with store() as session:
        kept, kept_spare = seed_pool(session, 0, 4, spare=3, seed=1)
        gone, gone_spare = seed_pool(session, 0, 4, spare=2, seed=2)
        write_results(session, kept, kept_spare, counted=True)
        session.execute(update(Tournament).where(Tournament.id == gone).values(status="cancelled"))
        session.commit()
        write_results(session, gone, gone_spare, counted=True)
        assert state(session)["counted"] == 3 and len(state(session)["points"]) == 3 * 4
        standings.refresh_pool(session, "card", "standard")
        pool = session.scalars(select(RatingPool)).one()
        assert (pool.games, pool.counted, pool.rebuild) == (3, 3, False)
