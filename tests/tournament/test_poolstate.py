"""A rating pool's running state (tournament/standings/poolstate.py) on SQLite and PostgreSQL: what the game path counts result
by result is exactly what a recount from the stored results gives (tallies, each version's incremental Elo, the
chart's points, each result's place), two workers counting results of one pool at once count each once, a cancelled
tournament's results leave the chart at the next refit, which keeps the state as of the last result before the
first of theirs and counts the later ones again (the same state as a recount of everything, in a time that follows
the later results), a pool flagged for a rebuild (as migrations 0008 and 0011 leave every pool) is left to the
rebuild by the game path, and the page's lines (service/web/pools.py) draw at most MAX_POINTS points per line that
lie on the incremental Elo and end at the version's rating."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, select, update
from sqlalchemy.orm import Session, sessionmaker

from benchmarks.standings import seed_pool, write_results
from ratings.history import MAX_POINTS, replay
from ratings.tallies import config_key
from service.web import pools
from store import migrate
from store.database import make_engine, sessions
from store.models import RatingPool, Result, Tournament
from store.models.tournaments import RatingElo, RatingPoint, RatingTally
from tournament.standings import poolstate, tables


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
                select(
                    RatingElo.version_id,
                    RatingElo.rating,
                    RatingElo.games,
                    RatingElo.first,
                    RatingElo.last,
                    RatingElo.faults,
                )
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
        "places": sorted(session.execute(select(Result.id, Result.counted))),
        "span": session.execute(select(RatingPool.first_at, RatingPool.last_at)).one(),
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
        poolstate.rebuild(session, "card", "standard", 4)
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
        assert {version: games for version, _, games, *_ in counted["elo"]} == dict(played)
        assert sorted(last for *_, last, _ in counted["elo"])[-1] == 60
        faults: Counter[int] = Counter()
        for versions, seat_faults in session.execute(select(Result.version_ids, Result.faults)):
            faults.update(dict(zip(versions, seat_faults, strict=True)))
        assert {version: count for version, *_, count in counted["elo"]} == {v: faults[v] for v in played}
        poolstate.rebuild(
            session, "card", "standard", 4
        )  # the order they were counted in may differ from the ids'
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
        tables.refresh_pool(session, "card", "standard", 4)
        assert session.scalar(select(RatingPool.games)) == 20
        session.execute(update(Tournament).where(Tournament.id == gone).values(status="cancelled"))
        session.commit()
        tables.refresh_pool(session, "card", "standard", 4)
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
        poolstate.pool_id(session, "card", "standard", 4)
        session.execute(update(RatingPool).values(rebuild=True))  # as migration 0008 leaves a pool
        session.commit()
        write_results(session, tournament_id, spare, counted=True)
        assert state(session)["counted"] == 0 and state(session)["points"] == []
        tables.refresh_pool(session, "card", "standard", 4)
        pool = session.scalars(select(RatingPool)).one()
        assert (pool.rebuild, pool.counted, pool.games) == (False, 35, 35)
        assert len(state(session)["points"]) == 35 * 4


def test_a_line_draws_a_few_hundred_points_on_the_incremental_elo(store: sessionmaker[Session]) -> None:
    with store() as session:
        seed_pool(session, 3_000, 5)
        poolstate.rebuild(session, "card", "standard", 4)
        session.commit()
        pool = session.scalars(select(RatingPool)).one()
        elo = {version: (rating, games, first) for version, rating, games, first, *_ in state(session)["elo"]}
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
        tables.refresh_pool(session, "card", "standard", 4)
        pool = session.scalars(select(RatingPool)).one()
        assert (pool.games, pool.counted, pool.rebuild) == (3, 3, False)


def cancel(session: Session, *tournaments: int) -> None:
    session.execute(update(Tournament).where(Tournament.id.in_(tournaments)).values(status="cancelled"))
    session.commit()


def point_ids(session: Session, up_to: int) -> list[int]:
    return sorted(session.scalars(select(RatingPoint.id).where(RatingPoint.counted <= up_to)))


@pytest.mark.parametrize(
    ("gone", "keep"),
    [(["second"], 4), (["fourth"], 30), (["first"], 0), (["first", "fourth"], 0), (["second", "third"], 4)],
)
def test_a_cancellation_keeps_the_state_before_it_and_counts_the_later_results_again(
    store: sessionmaker[Session], gone: list[str], keep: int
) -> None:
    """Tournaments kept and cancelled, their results counted interleaved (places 1-4 the first's, 5-9 the second's,
    10-15 the first's, 16-22 the third's, 23-27 the second's, 28-30 the third's, 31-34 the fourth's): the recount
    after the cancellation leaves the points before the first cancelled result as they were (the same rows: ``keep``
    places) and ends where a recount of every result ends."""
    with store() as session:
        made = {
            name: seed_pool(session, 0, versions, spare=spare, seed=number)
            for number, (name, versions, spare) in enumerate(
                [
                    ("first", 5, 10),
                    ("second", 5, 10),
                    ("third", 6, 10),
                    ("fourth", 4, 4),
                ]  # the third: a version more
            )
        }
        for name, start, end in [
            ("first", 0, 4),
            ("second", 0, 5),
            ("first", 4, 10),
            ("third", 0, 7),
            ("second", 5, 10),
            ("third", 7, 10),
            ("fourth", 0, 4),
        ]:
            tournament, spare = made[name]
            write_results(session, tournament, spare[start:end], counted=True)
        kept_points = point_ids(session, keep)
        assert len(kept_points) == keep * 4
        cancelled = [made[name][0] for name in gone]
        cancel(session, *cancelled)
        counted = poolstate.recount(session, "card", "standard", 4)
        session.commit()
        recounted = state(session)
        assert counted == recounted["counted"] == 34 - sum(10 if name != "fourth" else 4 for name in gone)
        assert point_ids(session, keep) == kept_points  # the rows before the first cancelled result stand
        places = session.scalars(select(Result.counted).where(Result.tournament_id.in_(cancelled))).all()
        assert places and all(place is None for place in places)
        poolstate.rebuild(session, "card", "standard", 4)
        session.commit()
        assert state(session) == recounted


def test_a_cancellation_with_nothing_counted_changes_nothing(store: sessionmaker[Session]) -> None:
    with store() as session:
        kept, kept_spare = seed_pool(session, 0, 4, spare=6, seed=1)
        idle, _ = seed_pool(session, 0, 4, spare=3, seed=2)  # no result of its own
        write_results(session, kept, kept_spare, counted=True)
        before = state(session)
        cancel(session, idle)
        assert poolstate.recount(session, "card", "standard", 4) == 6
        session.commit()
        assert state(session) == before


def test_sqlite_draws_a_line_from_the_line_index(tmp_path: Path) -> None:
    """The chart reads the points of a line by ``ix_rating_points_line`` (the points drawn), not by
    ``ix_rating_points_place``, which has the same leading columns and would read every point of the line: SQLite's
    planner, which has no statistics, takes the one that gives a query's ORDER BY."""
    url = f"sqlite:///{tmp_path / 'pool.db'}"
    migrate.upgrade(url)
    engine = make_engine(url)
    asked: list[tuple[str, Any]] = []

    def note(connection: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        if statement.lstrip().startswith("SELECT") and "FROM rating_points" in statement:
            asked.append((statement, parameters))

    try:
        with sessions(engine)() as session:
            seed_pool(session, 600, 5)
            poolstate.rebuild(session, "card", "standard", 4)
            session.commit()
            pool = session.scalars(select(RatingPool)).one()
            versions = {version for version, *_ in state(session)["elo"]}
            event.listen(engine, "before_cursor_execute", note)
            assert pools.lines(session, pool, versions)
            event.remove(engine, "before_cursor_execute", note)
            assert asked
            for statement, parameters in asked:
                plan = " ".join(
                    str(row[-1])
                    for row in session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
                )
                assert "ix_rating_points_line" in plan, (plan, statement, parameters)
    finally:
        engine.dispose()
