"""Leases and the heartbeat that keeps them (``tournament/play/leases.py``, ``tournament/play/heartbeat.py``), on SQLite and
PostgreSQL: a held game's lease moves on its own, so no other worker can take it while its holder lives; a game
taken over anyway (its holder stalled) stops its runner at the next step; a stopping worker gives its games back.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from store.database import make_engine, sessions
from store.models import Player, TournamentGame, now
from tests.arenakit import tournament_row
from tournament.play import leases
from tournament.play.heartbeat import Heartbeat, Stopping

LEASE = 0.4
"""Seconds: short, so that a lease that is not renewed runs out within the test."""


@pytest.fixture
def made(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    yield sessions(engine)
    engine.dispose()


def scheduled_game(made: sessionmaker[Session]) -> int:
    with made() as session:
        owner = Player(name="owner", token_hash="0" * 64)
        session.add(owner)
        session.flush()
        tournament = tournament_row(session, owner.id, settings={"players": 2})
        game = TournamentGame(
            tournament_id=tournament.id, number=0, round=0, bot_ids=[1, 2], seed=1, status="pending"
        )
        session.add(game)
        session.commit()
        return game.id


def take(session: Session, scheduled_id: int, worker: str, seconds: float) -> bool:
    """Whether ``worker`` takes the game's lease (committed, as a runner commits it with the game it starts)."""
    taken = leases.lease(session, scheduled_id, worker, seconds)
    session.commit()
    return taken is not None


def holder(made: sessionmaker[Session], scheduled_id: int) -> tuple[str | None, int]:
    with made() as session:
        row = session.execute(
            select(TournamentGame.worker, TournamentGame.attempts).where(TournamentGame.id == scheduled_id)
        ).one()
    return row[0], row[1]


def lease_until(made: sessionmaker[Session], scheduled_id: int) -> datetime:
    with made() as session:
        found = session.scalar(select(TournamentGame.lease_until).where(TournamentGame.id == scheduled_id))
    assert found is not None
    return found


def test_a_held_lease_outlives_its_length_and_no_other_worker_takes_it(made: sessionmaker[Session]) -> None:
    """The heartbeat's own thread renews the lease, apart from any save; no other worker takes the game meanwhile;
    released, the lease runs out and another worker takes it. Told by the lease's end in the database, not by the
    clock of this test: however loaded the machine, a renewal moves it."""
    renewed_lease = 4.0  # beats every second; a lease far longer than a loaded machine's pause between statements
    game = scheduled_game(made)
    with made() as session:
        assert take(session, game, "first", renewed_lease)
    taken_until = lease_until(made, game)
    heartbeat = Heartbeat(made, "first", renewed_lease)
    holding = heartbeat.hold(game)
    for _ in range(2):  # two renewals by the heartbeat, each moving the lease's end on
        seen = lease_until(made, game)
        deadline = time.monotonic() + 60
        while lease_until(made, game) <= seen:
            assert time.monotonic() < deadline, "the heartbeat never renewed the lease"
            time.sleep(0.05)
        with made() as session:
            assert not take(session, game, "second", renewed_lease)
    assert lease_until(made, game) > taken_until
    holding.check()  # still this worker's: nothing to stop
    assert holder(made, game) == ("first", 1)
    heartbeat.release(holding)
    deadline = time.monotonic() + 60
    while True:  # no longer renewed: the lease runs out and another worker may take the game
        with made() as session:
            if take(session, game, "second", LEASE):
                break
        assert time.monotonic() < deadline, "the released lease never ran out"
        time.sleep(0.2)
    assert holder(made, game) == ("second", 2)


def test_a_game_taken_over_stops_its_runner_at_the_next_step(made: sessionmaker[Session]) -> None:
    """The holder stalled past its lease and another worker took the game: the next beat marks it lost."""
    game = scheduled_game(made)
    with made() as session:
        assert take(session, game, "stalled", LEASE)
        session.execute(update(TournamentGame).where(TournamentGame.id == game).values(worker="other"))
        session.commit()
    heartbeat = Heartbeat(made, "stalled", LEASE)
    holding = heartbeat.hold(game)
    heartbeat.beat()
    assert holding.lost.is_set()
    with pytest.raises(leases.LeaseLost):
        holding.check()
    heartbeat.release(holding)
    assert holder(made, game)[0] == "other"


def test_a_stopping_worker_gives_its_game_back_at_once(made: sessionmaker[Session]) -> None:
    game = scheduled_game(made)
    with made() as session:
        assert take(session, game, "leaving", 60)
    heartbeat = Heartbeat(made, "leaving", 60)
    holding = heartbeat.hold(game)
    heartbeat.stop_all()
    with pytest.raises(Stopping):
        holding.check()
    with made() as session:
        assert not leases.release(session, game, "someone else")
        assert leases.release(session, game, "leaving")
        assert leases.unplayed(session, now()) == [(game, 1)]  # back in the queue's hands, without a wait
        assert take(session, game, "next", 60)
    heartbeat.release(holding)
    assert holder(made, game) == ("next", 2)


def test_a_game_leased_as_the_worker_stops_is_given_back_at_its_first_step(made: sessionmaker[Session]) -> None:
    """Its runner took the lease while the process was told to stop: it does not play the game to its end."""
    game = scheduled_game(made)
    heartbeat = Heartbeat(made, "leaving", 60)
    heartbeat.stop_all()
    with made() as session:
        assert take(session, game, "leaving", 60)
    holding = heartbeat.hold(game)
    with pytest.raises(Stopping):
        holding.check()
    heartbeat.release(holding)


def test_a_worker_takes_back_its_own_game_without_a_new_attempt(made: sessionmaker[Session]) -> None:
    """After its database came back, a worker resumes a game it still holds: the same attempt, the same job."""
    game = scheduled_game(made)
    with made() as session:
        assert take(session, game, "me", 60)
        assert take(session, game, "me", 60)
        assert not take(session, game, "another", 60)
    assert holder(made, game) == ("me", 1)
