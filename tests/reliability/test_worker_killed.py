"""A worker killed by SIGKILL in the middle of a game: its lease runs out, the other worker's maintenance enqueues
the game again, and it is resumed from its last saved ply and finished once."""

from __future__ import annotations

from sqlalchemy.orm import Session

from store.models import TournamentGame
from tests.reliability.harness import Arena, check_tournament


def test_a_game_whose_worker_is_killed_mid_game_is_finished_once_by_the_other(arena: Arena) -> None:
    ids = [arena.register_bot(name, "random", delay=0.003) for name in ("a", "b", "c")]
    tournament = arena.create_tournament(ids, game="board")
    arena.workers.start()
    arena.workers.start()
    arena.workers.wait_listening()
    game_id, worker = arena.mid_game(min_ply=20)
    victim = arena.workers.by_name(worker)
    arena.workers.kill(victim)
    arena.wait_done(tournament, timeout=90)
    assert len(arena.workers.alive()) == 1  # the survivor played the rest, the killed game included
    results = check_tournament(arena.app, tournament)
    assert len(results) == 6

    def attempts(session: Session) -> int:
        scheduled = session.get(TournamentGame, game_id)
        assert scheduled is not None
        return scheduled.attempts

    assert arena.wait_until("the killed game's attempts", attempts) >= 2  # resumed by another worker
