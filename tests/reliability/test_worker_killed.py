"""A worker killed by SIGKILL in the middle of a game: its lease runs out, the other worker's maintenance enqueues
the game again at the front of the queue, and it is resumed from its last saved ply and finished once. How long
the game waits between the kill and its next move is recorded (docs/guarantees.md quotes it)."""

from __future__ import annotations

import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from store.models import Game, TournamentGame
from tests.reliability.harness import LEASE_SECONDS, MAINTENANCE_SECONDS, Arena, check_tournament, record


def test_a_game_whose_worker_is_killed_mid_game_is_finished_once_by_the_other(arena: Arena) -> None:
    ids = [arena.register_bot(name, "random", delay=0.003) for name in ("a", "b", "c")]
    tournament = arena.create_tournament(ids, game="board")
    arena.workers.start()
    arena.workers.start()
    arena.workers.wait_listening()
    scheduled_id, worker = arena.mid_game(min_ply=20)
    victim = arena.workers.by_name(worker)
    arena.workers.kill(victim)
    killed_at = time.monotonic()
    with arena.sessions() as session:
        game_id = session.scalar(select(TournamentGame.game_id).where(TournamentGame.id == scheduled_id))
        ply_at_kill = session.scalar(select(Game.ply).where(Game.id == game_id))

    def resumed(session: Session) -> bool:
        holder = session.scalar(select(TournamentGame.worker).where(TournamentGame.id == scheduled_id))
        ply = session.scalar(select(Game.ply).where(Game.id == game_id))
        return holder != worker and ply is not None and ply > ply_at_kill

    arena.wait_until("the killed game's next move", resumed, timeout=60)
    waited = time.monotonic() - killed_at
    arena.wait_done(tournament, timeout=90)
    assert len(arena.workers.alive()) == 1  # the survivor played the rest, the killed game included
    results = check_tournament(arena.app, tournament)
    assert len(results) == 6

    def attempts(session: Session) -> int:
        scheduled = session.get(TournamentGame, scheduled_id)
        assert scheduled is not None
        return scheduled.attempts

    assert arena.wait_until("the killed game's attempts", attempts) >= 2  # resumed by another worker
    # its lease (3 s here) and a maintenance pass (1 s), then the front of the queue: not behind the other games
    assert waited < LEASE_SECONDS + MAINTENANCE_SECONDS + 10, f"the killed game waited {waited:.1f} s"
    record(
        f"killed worker: its game's next move after the kill (s), lease {LEASE_SECONDS} s, "
        f"maintenance every {MAINTENANCE_SECONDS} s",
        round(waited, 2),
    )
