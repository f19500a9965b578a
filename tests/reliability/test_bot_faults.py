"""Bots that misbehave on every move, each a process of its own, in tournaments played by RQ workers: each fault is
recorded on the move (``action_records.fault``) and answered by the seeded fallback action, the third in a row
forfeits the game for that bot (result reason ``forfeit``, ranked last), and its opponents' games are untouched.

One world for the module (database, Redis, two workers, two well-behaved random bots); each test starts one
misbehaving bot and plays a round robin of three (six games, four with the bad bot).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import select

from store.models import Tournament
from tests.reliability.botproc import MISBEHAVIOURS
from tests.reliability.conftest import make_arena
from tests.reliability.harness import Arena, check_tournament, own_faults
from tests.reliability.servers import PrivatePostgres, PrivateRedis

MOVE_TIMEOUT_MS = 3000
"""Short, so that the hanging bot's three timeouts cost seconds a game; long enough that the good bots' answers
(and the misbehaving bots' quick wrong ones) arrive in time on a loaded machine (at 300 ms, with the load at 20 on
2 cores, a good bot's move sometimes timed out)."""


@pytest.fixture(scope="module")
def world(
    private_postgres: PrivatePostgres, private_redis: PrivateRedis, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Arena]:
    for arena in make_arena(private_postgres, private_redis, tmp_path_factory.mktemp("faults")):
        arena.register_bot("good1", "random")
        arena.register_bot("good2", "random")
        arena.workers.start()
        arena.workers.start()
        arena.workers.wait_listening()
        yield arena


@pytest.mark.parametrize("kind", list(MISBEHAVIOURS))
def test_a_misbehaving_bot_process_forfeits_each_game_and_its_faults_are_recorded(world: Arena, kind: str) -> None:
    fault = MISBEHAVIOURS[kind][1]
    bad = world.register_bot(kind, kind)
    good = [world.bot_ids["good1"], world.bot_ids["good2"]]
    tournament = world.create_tournament([bad, *good], game="board", move_timeout_ms=MOVE_TIMEOUT_MS)
    world.wait_done(tournament, timeout=60)
    results = check_tournament(world.app, tournament)
    assert len(results) == 6
    with world.sessions() as session:
        for result in results:
            if bad not in result.bot_ids:  # the good bots' own games: no fault, no forfeit
                assert result.faults == [0, 0] and result.forfeited == [] and result.reason != "forfeit"
                continue
            seat = result.bot_ids.index(bad)
            assert (result.reason, result.forfeited, result.ranks[seat], result.ranks[1 - seat]) == (
                "forfeit",
                [seat],
                2,
                1,
            )
            assert result.faults[seat] == 3 and result.faults[1 - seat] == 0
            assert own_faults(session, result.game_id, seat) == [fault] * 3  # its game ends at its third fault
            assert set(own_faults(session, result.game_id, 1 - seat)) <= {None}
        stored = session.scalars(select(Tournament.standings).where(Tournament.id == tournament)).one()
    assert stored is not None
    rows = {row["bot_id"]: row for row in stored["standings"]}
    assert rows[bad]["forfeits"] == 4 and rows[bad]["wins"] == 0
    assert len(world.workers.alive()) == 2
