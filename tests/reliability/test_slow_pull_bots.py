"""Slow pull bots, a short lease and four workers: no live worker's game is ever taken over.

Each pull bot thinks longer than the lease (3 s) on its first moves of every game. The worker that plays a game
waits for the bot's move through the games API without saving anything, so a lease renewed only by saves would run
out and another worker would take the game while the first still played it. The heartbeat renews the leases of a
worker's games every quarter lease: each game keeps its first lease to the end (one attempt), and no worker logs a
takeover."""

from __future__ import annotations

import threading
import time
from typing import Any

from sqlalchemy import select

from clients.pull import PullClient
from store.models import TournamentGame
from tests.apikit import new_player
from tests.arenakit import Running, random_choice, register
from tests.liveserver import serving
from tests.reliability.harness import LEASE_SECONDS, Arena, check_tournament, record

SLOW_MOVES = 2
"""Moves of each game a bot thinks long on."""


def slow_at_first(think: float) -> Any:
    """A random pull bot that takes ``think`` seconds on its first ``SLOW_MOVES`` moves of each game."""
    seen: dict[int, int] = {}
    lock = threading.Lock()

    def choose(request: dict[str, Any]) -> str:
        with lock:
            seen[request["game_id"]] = seen.get(request["game_id"], 0) + 1
            slow = seen[request["game_id"]] <= SLOW_MOVES
        if slow:
            time.sleep(think)
        return random_choice(request)

    return choose


def test_no_game_is_taken_from_a_live_worker_while_its_pull_bots_think(arena: Arena) -> None:
    arena.owner = new_player(arena.client, "owner")
    think = LEASE_SECONDS * 1.5
    names = ("slow-a", "slow-b", "slow-c")
    bots = {name: register(arena.client, arena.owner, name, None) for name in names}
    for _ in range(4):
        arena.workers.start()
    arena.workers.wait_listening()
    with serving(arena.app) as url:
        clients = [
            Running(PullClient(slow_at_first(think), url, bot["token"], wait=1, deadline_ms=30_000))
            for bot in bots.values()
        ]
        tournament = arena.create_tournament(
            [bot["id"] for bot in bots.values()],
            game="card",
            settings={"pawns": 1},
            move_timeout_ms=60_000,  # a bot's decisions queue behind its other games' slow ones: no timeouts
        )
        arena.wait_done(tournament, timeout=240)
        for running in clients:
            running.finish()
    results = check_tournament(arena.app, tournament)
    assert len(results) == 6
    assert all(result.faults == [0, 0] for result in results), [result.faults for result in results]
    with arena.sessions() as session:
        attempts = session.scalars(
            select(TournamentGame.attempts).where(TournamentGame.tournament_id == tournament)
        ).all()
    log = arena.workers.log_text(None)
    assert attempts == [1] * 6, f"games taken over: attempts {attempts}\n{log}"
    assert "another worker took it over" not in log and "no longer leased" not in log, log
    assert len(arena.workers.alive()) == 4
    record("slow pull bots (4.5 s a move, 3 s lease, 4 workers): games taken over", 0)
