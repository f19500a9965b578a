"""``benchmarks/games_page.py``, small, on SQLite and PostgreSQL: the fill makes the games it says, the keyset's
deep page is the old last page, and a round times every kind of read. Speed is measured, never asserted."""

from __future__ import annotations

from sqlalchemy import func, select

from benchmarks.games_page import KINDS, Arena
from store.models import Game, Seat


def test_a_small_arena_fills_checks_and_times_every_kind(database_url: str) -> None:
    arena = Arena(database_url, 180)
    try:
        with arena.sessions() as session:
            assert session.scalar(select(func.count()).select_from(Game)) == 180
            assert session.scalar(select(func.count()).select_from(Seat)) == 360
        arena.check()
        row = arena.round(1, 2)
    finally:
        arena.close()
    assert all(row[kind] > 0 for kind in KINDS)
    assert row["load_before"] >= 0 and row["load_after"] >= 0
