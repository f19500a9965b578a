"""``benchmarks/bot_page.py``, small, on SQLite and PostgreSQL: a round times the bot's and the tournament's pages
from the moves and from the tallies, and the bot's faults API with and without the index of faulted moves, which
it leaves in place. Speed is measured, never asserted."""

from __future__ import annotations

from sqlalchemy import inspect

from benchmarks.bot_page import Arena
from store.database import make_engine


def test_a_round_times_every_page_and_leaves_the_index_in_place(database_url: str) -> None:
    arena = Arena(database_url, 24, 4, 10)
    try:
        row = arena.measure()
    finally:
        arena.close()
    assert row["size"] == 24 and row["load_before"] >= 0 and row["load_after"] >= 0
    for kind in ("moves", "tallied"):
        assert row[f"bot_{kind}_ms"] > 0 and row[f"tournament_{kind}_ms"] > 0
    assert row["faults_indexed_ms"] > 0 and row["faults_moves_ms"] > 0 and row["fold_us"] > 0
    engine = make_engine(database_url)
    try:
        assert "ix_actions_faulted" in {index["name"] for index in inspect(engine).get_indexes("actions")}
    finally:
        engine.dispose()
