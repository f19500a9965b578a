"""Migration 0020 (store/migrations/versions/0020_pools_per_table_size.py) on SQLite and PostgreSQL, on a database with
rated results of two table sizes in one card pool and of one in a board pool: its downgrade merges the card pools
into one row flagged for a rebuild (state cleared) and leaves the board pool be; the upgrade splits the card pool by
table size again, each flagged for a rebuild, and keeps the board pool as it was; the upkeep after the upgrade
(``tournament.standings.upkeep``) rebuilds and refits them to the tables they had before."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from sqlalchemy import Engine, create_engine, func, inspect, select, text

from benchmarks.standings import seed_pool
from store import migrate
from store.database import sessions
from store.models import RatingPool, Result
from store.models.tournaments import RatingElo
from tournament.standings import poolstate, tables, upkeep

POOLS = (("card", 2), ("card", 4), ("board", 2))


def pools(engine: Engine) -> dict[tuple[str, int], dict[str, Any]]:
    with sessions(engine)() as session:
        return {
            (pool.game, pool.table_size): {
                "games": pool.games,
                "counted": pool.counted,
                "rebuild": pool.rebuild,
                "ratings": {int(row["version_id"]): float(row["rating"]) for row in pool.table},
            }
            for pool in session.scalars(select(RatingPool))
        }


def test_mixed_pools_merge_at_downgrade_and_split_at_upgrade(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        with sessions(engine)() as session:
            seed_pool(session, 30, 4, seats=2, seed=1)
            seed_pool(session, 20, 5, seats=4, seed=2)
            seed_pool(session, 10, 3, game="board", seats=2, seed=3)
            session.commit()
            for game, size in POOLS:
                poolstate.rebuild(session, game, "standard", size)
                session.commit()
                tables.refresh_pool(session, game, "standard", size)
        before = pools(engine)
        assert {key: (pool["games"], pool["counted"]) for key, pool in before.items()} == {
            ("card", 2): (30, 30),
            ("card", 4): (20, 20),
            ("board", 2): (10, 10),
        }
        assert before[("card", 2)]["ratings"].keys() != before[("card", 4)]["ratings"].keys()

        command.downgrade(migrate.alembic_config(database_url), "0019")
        assert "table_size" not in {column["name"] for column in inspect(engine).get_columns("rating_pools")}
        with engine.connect() as connection:
            merged = connection.execute(
                text("SELECT id, game, rebuild, counted, games FROM rating_pools ORDER BY game")
            ).all()
            assert [(game, bool(rebuild), counted, games) for _, game, rebuild, counted, games in merged] == [
                ("board", True, 10, 10),  # flagged by 0021's downgrade (its tallies lose their forfeit marks)
                ("card", True, 0, 0),
            ]
            card = merged[1][0]
            assert connection.scalar(text(f"SELECT count(*) FROM rating_elo WHERE pool_id = {card}")) == 0
            assert connection.scalar(text(f"SELECT count(*) FROM rating_points WHERE pool_id = {card}")) == 0
            placed = "SELECT count(*) FROM results WHERE game = :game AND counted IS NOT NULL"
            assert connection.scalar(text(placed), {"game": "card"}) == 0
            assert connection.scalar(text(placed), {"game": "board"}) == 10

        assert migrate.upgrade(database_url) == migrate.head()
        split = pools(engine)
        assert sorted(split) == sorted(POOLS)
        # one table size: kept as it was, flagged for the recount that marks its forfeits (0021)
        assert split[("board", 2)] == {**before[("board", 2)], "rebuild": True}
        for key in (("card", 2), ("card", 4)):
            assert (split[key]["rebuild"], split[key]["counted"], split[key]["ratings"]) == (True, 0, {})
        with sessions(engine)() as session:
            assert upkeep.pools_behind(session) == [
                ("board", "standard", 2),
                ("card", "standard", 2),
                ("card", "standard", 4),
            ]
        said = upkeep.refit_behind(sessions(engine))
        assert said == [
            "the board standard 2-seat pool's table refit: 10 rated game(s)",
            "the card standard 2-seat pool's table refit: 30 rated game(s)",
            "the card standard 4-seat pool's table refit: 20 rated game(s)",
        ]
        after = pools(engine)
        for key, pool in before.items():
            assert (after[key]["games"], after[key]["counted"], after[key]["rebuild"]) == (
                pool["games"],
                pool["counted"],
                False,
            )
            assert after[key]["ratings"] == pytest.approx(pool["ratings"], abs=1e-6)
        with sessions(engine)() as session:
            card = {
                size: session.scalar(
                    select(func.sum(RatingElo.games))
                    .join(RatingPool, RatingPool.id == RatingElo.pool_id)
                    .where(*RatingPool.key("card", "standard", size))
                )
                for size in (2, 4)
            }
            assert card == {2: 30 * 2, 4: 20 * 4}  # each pool's state counts its own seats only
            assert session.scalar(select(func.count(Result.id)).where(Result.counted.is_(None))) == 0
    finally:
        engine.dispose()
