"""A tournament's runs (``tournament/plans/runs.py``), on the database alone, SQLite and PostgreSQL: which runs are due by
the clock, and each start happening once whoever asks and however many ask at once (the start job, the clocks of
the workers, the maintenance), repeats at their planned times.

The races are made real: the first caller is held inside its transaction, after its claim, while the second tries;
the second must wait for the first's commit (PostgreSQL: the row's lock or the unique index; SQLite: the write lock)
and then find the run started. PostgreSQL is a service of the machine: unreachable, its tests fail in CI.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from store.database import make_engine
from store.models import Player, Tournament, TournamentGame, now
from tournament.dispatch import context, starts
from tournament.plans import runs
from tournament.play.game import RunnerSettings
from tournament.play.heartbeat import Heartbeat

T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
BOTS = [11, 12, 13]
GAMES = 6
"""Three bots at tables of two, one round: three pairs in both seatings."""


# --- which runs are due ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("every", "times", "after", "due"),
    [
        (None, None, -0.001, 0),  # before the start: nothing
        (None, None, 0, 1),  # a tournament without repeats: its one run, from its start time on
        (None, None, 10**6, 1),
        (60, 3, -1, 0),
        (60, 3, 0, 1),
        (60, 3, 59.999, 1),  # run 2 is due 60 s after the start, not a moment sooner
        (60, 3, 60, 2),
        (60, 3, 119, 2),
        (60, 3, 120, 3),
        (60, 3, 10**6, 3),  # never more than repeat_times
        (1, 2, 1, 2),
        (86400, 10_000, 86400 * 41.5, 42),
    ],
)
def test_due_runs_by_the_clock(every: int | None, times: int | None, after: float, due: int) -> None:
    assert runs.due_runs(T0, every, times, T0 + timedelta(seconds=after)) == due


def test_times_are_compared_in_utc() -> None:
    assert runs.utc(datetime(2030, 1, 1, 12, 0)) == T0  # SQLite gives back naive datetimes, written in UTC
    assert runs.utc(datetime(2030, 1, 1, 14, 0, tzinfo=timezone(timedelta(hours=2)))) == T0


# --- the database ------------------------------------------------------------------------------------------------


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    yield sessionmaker(engine, expire_on_commit=False)
    engine.dispose()


def add_tournament(
    sessions: sessionmaker[Session],
    *,
    start: datetime | None = None,
    every: int | None = None,
    times: int | None = None,
    status: str = "scheduled",
) -> int:
    with sessions() as session:
        owner = Player(name="owner", token_hash=uuid.uuid4().hex)
        session.add(owner)
        session.flush()
        tournament = Tournament(
            owner_id=owner.id, name="weekly", game="card", settings={"players": 2}, variant="standard",
            bot_ids=BOTS, table_size=2, rounds=1, seed=7, move_timeout_ms=1000, rated=True, start_at=start,
            repeat_every=every, repeat_times=times, run=1, status=status, games_total=GAMES, created_at=now(),
        )  # fmt: skip
        session.add(tournament)
        session.commit()
        return tournament.id


def load(session: Session, tournament_id: int) -> Tournament:
    tournament = session.get(Tournament, tournament_id)
    assert tournament is not None
    return tournament


def games_of(sessions: sessionmaker[Session], tournament_id: int) -> list[int]:
    with sessions() as session:
        return list(
            session.scalars(
                select(TournamentGame.number)
                .where(TournamentGame.tournament_id == tournament_id)
                .order_by(TournamentGame.number)
            )
        )


def later_runs(sessions: sessionmaker[Session], parent_id: int) -> Counter[int]:
    with sessions() as session:
        return Counter(session.scalars(select(Tournament.run).where(Tournament.parent_id == parent_id)))


class Held:
    """Holds the caller running in the thread named ``first`` inside its transaction, just after its claim (where
    ``runs`` lays out the games), until :meth:`release`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.claimed = threading.Event()
        self.go = threading.Event()
        lay_out = runs.lay_out

        def held(tournament: Tournament, *pairings: Any) -> list[TournamentGame]:
            if threading.current_thread().name == "first":
                self.claimed.set()
                assert self.go.wait(30), "never released"
            return lay_out(tournament, *pairings)

        monkeypatch.setattr(runs, "lay_out", held)

    def release(self) -> None:
        self.go.set()


def race(first: Any, second: Any, held: Held) -> tuple[Any, Any]:
    """Run ``first()`` until its claim, then ``second()``, which must wait for the first's commit; both results."""
    results: dict[str, Any] = {}
    errors: list[BaseException] = []

    def run(name: str, call: Any) -> None:
        try:
            results[name] = call()
        except BaseException as error:  # reported in the test's thread
            errors.append(error)

    one = threading.Thread(target=run, args=("first", first), name="first")
    two = threading.Thread(target=run, args=("second", second), name="second")
    one.start()
    assert held.claimed.wait(30), f"the first caller never claimed the run: {errors}"
    two.start()
    two.join(0.5)
    waited = two.is_alive()
    held.release()
    one.join(30)
    two.join(30)
    assert not errors, errors
    assert waited, "the second caller did not wait for the first's transaction"
    return results["first"], results["second"]


def test_two_starters_of_a_scheduled_run_one_lays_it_out(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament_id = add_tournament(sessions)
    held = Held(monkeypatch)

    def starter() -> bool:
        with sessions() as session:
            return runs.start(session, load(session, tournament_id))

    assert race(starter, starter, held) == (True, False)
    assert games_of(sessions, tournament_id) == list(range(GAMES))
    with sessions() as session:
        assert load(session, tournament_id).status == "running"
        assert runs.start(session, load(session, tournament_id)) is False  # and any later starter


def test_many_starters_at_once_one_wins(sessions: sessionmaker[Session]) -> None:
    tournament_id = add_tournament(sessions)
    barrier = threading.Barrier(4)
    won: list[bool] = []

    def starter() -> None:
        with sessions() as session:
            tournament = load(session, tournament_id)
            barrier.wait(10)
            won.append(runs.start(session, tournament))

    threads = [threading.Thread(target=starter) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(won) == [False, False, False, True]
    assert games_of(sessions, tournament_id) == list(range(GAMES))


def test_two_creators_of_a_later_run_one_creates_it(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    parent_id = add_tournament(sessions, every=60, times=3, status="running")
    held = Held(monkeypatch)

    def creator() -> int | None:
        with sessions() as session:
            child = runs.create(session, load(session, parent_id), 2)
            return None if child is None else child.id

    created, other = race(creator, creator, held)
    assert created is not None and other is None
    assert later_runs(sessions, parent_id) == Counter({2: 1})
    assert games_of(sessions, created) == list(range(GAMES))
    with sessions() as session:
        child = load(session, created)
        parent = load(session, parent_id)
        assert (child.status, child.run, child.name) == ("running", 2, "weekly #2")
        assert child.seed == runs.run_seed(parent.seed, 2) != parent.seed


class Recorded:
    """A queue that records the jobs enqueued."""

    def __init__(self) -> None:
        self.jobs: list[tuple[str, tuple[Any, ...], str | None]] = []
        self.lock = threading.Lock()

    def enqueue(self, dotted: str, *args: Any, job_id: str | None = None, at_front: bool = False) -> bool:
        with self.lock:
            self.jobs.append((dotted, args, job_id))
        return True


def job_context(sessions: sessionmaker[Session], queue: Recorded, lease: float = 3) -> context.Context:
    runner = RunnerSettings("test", lease_seconds=lease)
    heartbeat = Heartbeat(sessions, runner.worker, lease)
    # a window larger than any tournament here: every game of a run started is fed at once (tests/tournament/
    # test_feed.py tests the windows)
    return context.Context(sessions, None, queue, runner, heartbeat, feed_window=10_000)  # type: ignore[arg-type]


def test_a_start_job_and_a_workers_clock_at_once_enqueue_each_game_once(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    start = now() - timedelta(seconds=10)
    tournament_id = add_tournament(sessions, start=start)
    queue = Recorded()
    ctx = job_context(sessions, queue)
    held = Held(monkeypatch)
    job, clock = race(
        lambda: starts.start_runs(ctx, tournament_id, now()), lambda: starts.start_overdue(ctx), held
    )
    assert (job, clock) == ([tournament_id], [])
    enqueued = Counter(job_id for _, _, job_id in queue.jobs)
    assert len(enqueued) == GAMES and set(enqueued.values()) == {1}
    assert starts.start_overdue(ctx) == []


def test_repeats_keep_their_planned_times_after_a_late_start(sessions: sessionmaker[Session]) -> None:
    """Runs every 10 s from 25 s ago, 4 in all: due at -25, -15, -5 and +5 s. No clock ran until now (the
    first run starts 25 s late): the clock starts the three runs due at once, and the fourth at its planned time,
    +5 s, not 10 s after the late ones."""
    start = now() - timedelta(seconds=25)
    parent_id = add_tournament(sessions, start=start, every=10, times=4)
    queue = Recorded()
    ctx = job_context(sessions, queue)
    started = starts.start_overdue(ctx)
    assert started[0] == parent_id and len(started) == 3
    assert later_runs(sessions, parent_id) == Counter({2: 1, 3: 1})
    assert starts.start_overdue(ctx) == []  # the next tick of a clock (or another worker's) starts nothing more
    due4 = start + timedelta(seconds=30)
    assert starts.start_overdue(ctx, due4 - timedelta(seconds=0.1)) == []
    fourth = starts.start_overdue(ctx, due4)
    assert len(fourth) == 1
    assert later_runs(sessions, parent_id) == Counter({2: 1, 3: 1, 4: 1})
    assert starts.start_overdue(ctx, due4 + timedelta(days=1)) == []  # no fifth run
    with sessions() as session:
        assert runs.overdue(session, now() + timedelta(days=1)) == []
    assert len(queue.jobs) == 4 * GAMES == len({job_id for _, _, job_id in queue.jobs})


def test_overdue_lists_the_runs_due(sessions: sessionmaker[Session]) -> None:
    moment = now()
    waiting = add_tournament(sessions, start=moment - timedelta(seconds=5))
    future = add_tournament(sessions, start=moment + timedelta(seconds=60))
    no_start_at = add_tournament(sessions)  # created just now: due now
    started = add_tournament(sessions, start=moment - timedelta(seconds=5), status="running")
    repeating = add_tournament(sessions, start=moment - timedelta(seconds=65), every=60, times=2, status="done")
    complete = add_tournament(sessions, start=moment - timedelta(seconds=65), every=60, times=2, status="done")
    with sessions() as session:
        runs.create(session, load(session, complete), 2)
        assert runs.overdue(session, moment - timedelta(seconds=3)) == [waiting, repeating]
        assert runs.overdue(session, moment + timedelta(seconds=1)) == [waiting, no_start_at, repeating]
        assert future not in runs.overdue(session, moment + timedelta(seconds=59))
        assert started not in runs.overdue(session, moment + timedelta(days=1))
