"""Migration 0012 on a database with data (store/migrations/versions/0012_bot_tallies.py): the games finished before
it are not tallied yet, the pages count them from their moves meanwhile, and the upkeep's fold adds them once;
downgrading drops the tallies and the column."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, insert, inspect, select

from store import bottallies, migrate
from store.database import sessions
from store.models import Game
from tests.store.test_bot_versions_migration import WHEN, at_0006, fill, table  # noqa: F401 (a fixture)


def test_games_finished_before_0012_are_counted_then_folded_once(at_0006: str) -> None:  # noqa: F811
    engine = create_engine(at_0006)
    try:
        fill(engine)  # game 1 over, its result: bot 2 (player 3) first at seat 0, bot 1 (player 2) at seat 1
        migrate.upgrade(at_0006, "0011")
        with engine.begin() as connection:
            connection.execute(
                insert(table(engine, "seats")),
                [
                    {"game_id": 1, "seat": 0, "player_id": 3, "taken_at": WHEN},
                    {"game_id": 1, "seat": 1, "player_id": 2, "taken_at": WHEN},
                ],
            )
            connection.execute(
                insert(table(engine, "actions")),
                [
                    {
                        "game_id": 1,
                        "ply": ply,
                        "seat": ply % 2,
                        "action": "x",
                        "latency_ms": 10.0 * (ply + 1),
                        "fault": "timeout" if ply == 1 else None,
                        "created_at": WHEN,
                    }
                    for ply in range(4)
                ],
            )
        assert migrate.upgrade(at_0006) == migrate.head()
        with sessions(engine)() as session:
            assert session.scalars(select(Game.tallied)).all() == [False]
            before = {player: bottallies.read(session, player) for player in (2, 3)}
            assert before[3] == bottallies.Tallies(
                games=1, latency={10000: 1, 30000: 1}, seat_games={0: 1}, seat_wins={0: 1}
            )
            assert before[2] == bottallies.Tallies(
                games=1, faults={"timeout": 1}, latency={20000: 1, 40000: 1}, seat_games={1: 1}
            )
            assert bottallies.read_tournament(session, 1) == {2: {"timeout": 1}}
            assert bottallies.fold(session) == 1 and bottallies.fold(session) == 0
            assert session.scalars(select(Game.tallied)).all() == [True]
            assert {player: bottallies.read(session, player) for player in (2, 3)} == before
            assert bottallies.read_tournament(session, 1) == {2: {"timeout": 1}}
        command.downgrade(migrate.alembic_config(at_0006), "0011")
        assert not {"bot_tallies", "tournament_fault_tallies"} & set(inspect(engine).get_table_names())
        assert "tallied" not in {column["name"] for column in inspect(engine).get_columns("games")}
        assert migrate.upgrade(at_0006) == migrate.head()
    finally:
        engine.dispose()
