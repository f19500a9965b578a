"""``store/botfaults.py``: a bot's faults are its faulted moves but forfeits, newest first, found game by game in
the partial index ``ix_actions_faulted`` (not by reading every move of the bot's games). On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from store import botfaults
from store.database import make_engine, sessions
from store.models import ActionRecord, Game, Seat
from tests.databases import index_plan
from tests.store.test_bottallies import seed


@pytest.fixture
def store(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    yield sessions(engine)
    engine.dispose()


def expected(session: Session, player_id: int, owner: bool) -> list[tuple[int, int]]:
    """The ``(game, ply)`` of the player's faults, newest first, from every move (what the index must give)."""
    rows = session.execute(
        select(ActionRecord.game_id, ActionRecord.ply, ActionRecord.fault, Game.status)
        .join(Seat, (Seat.game_id == ActionRecord.game_id) & (Seat.seat == ActionRecord.seat))
        .join(Game, Game.id == ActionRecord.game_id)
        .where(Seat.player_id == player_id)
    )
    found = [
        (game_id, ply)
        for game_id, ply, fault, status in rows
        if fault not in (None, "forfeit") and (owner or status == "over")
    ]
    return sorted(found, reverse=True)


def test_the_faults_listed_are_the_faulted_moves_but_forfeits(store: sessionmaker[Session]) -> None:
    with store() as session:
        seed(session, results=12, spare=4)
        players = session.scalars(select(Seat.player_id).distinct()).all()
        assert session.scalar(select(ActionRecord.ply).where(ActionRecord.fault == "forfeit").limit(1)) is not None
        for player_id in players:
            for owner in (True, False):
                wanted = expected(session, player_id, owner)
                assert botfaults.count(session, player_id, owner) == len(wanted)
                listed = botfaults.page(session, player_id, owner, 0, len(wanted) + 5)
                assert [(fault.game_id, fault.ply) for fault in listed] == wanted
                assert all(fault.fault not in (None, "forfeit") for fault in listed)
        assert any(expected(session, player_id, True) for player_id in players)  # the seed has faults to list


def test_both_planners_search_the_partial_index_of_faulted_moves(store: sessionmaker[Session]) -> None:
    """Spelled as the index's predicate (``botfaults.FAULTED``, its ``'forfeit'`` a literal), the faults' query can
    use ``ix_actions_faulted`` on both databases."""
    with store() as session:
        seed(session, results=6, spare=2)
        plan = index_plan(session, botfaults._faults(1, True, None))
        assert "ix_actions_faulted" in plan, plan
