"""A push bot restarted mid-tournament costs no fault when it is back within the move's deadline: a refused
connection, or one dropped before the whole reply came (the kill may land between a reply's headers and its body), is
tried again until the deadline (``botlink.calls``), so the move waits for the bot instead of counting a
``connection`` fault. And the operator can read what happened: the worker, started with ``--name east``, holds
its games' leases under that name, and every line of its log starts with its time.

One worker, two random bots (one thinking 20 ms a move, so that the tournament lasts); once a game is under way the
slow bot's process is killed (SIGKILL, its port closed at once) and started again on the same port a second later.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

from sqlalchemy import select

from store.models import ActionRecord, Bot, Result, TournamentGame
from tests.reliability.harness import Arena, check_tournament, record, stop_all

MOVE_TIMEOUT_MS = 20_000
"""Far longer than the restart, however loaded the machine."""
STAMPED = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+\[\d+\] \S+: "
)
"""A line of the one log format (``runtime/logs.py``): time (UTC), level, process[pid], logger: message."""


def test_a_bot_restarted_within_the_deadline_costs_no_fault(arena: Arena) -> None:
    steady = arena.register_bot("steady", "random")
    restarted = arena.register_bot("restarted", "random", delay=0.02)
    with arena.sessions() as session:
        port = urlsplit(str(session.scalar(select(Bot.url).where(Bot.id == restarted)))).port
    assert port is not None
    arena.workers.start("--name", "east")
    arena.workers.wait_listening()
    tournament = arena.create_tournament(
        [steady, restarted], game="board", rounds=3, move_timeout_ms=MOVE_TIMEOUT_MS
    )
    arena.mid_game(min_ply=10)
    process = arena.bots.processes[-1]
    stop_all([process])  # SIGKILL: connections to its port are refused from now on
    down = time.monotonic()
    time.sleep(1.0)
    arena.bots.start("random", delay=0.02, port=port)
    record("bot_restart_down_seconds", round(time.monotonic() - down, 2))
    arena.wait_done(tournament, timeout=300)
    results = check_tournament(arena.app, tournament)
    assert len(results) == 6
    with arena.sessions() as session:
        faults = [
            tuple(row)
            for row in session.execute(
                select(ActionRecord.game_id, ActionRecord.ply, ActionRecord.fault, ActionRecord.fault_detail)
                .join(Result, Result.game_id == ActionRecord.game_id)
                .where(Result.tournament_id == tournament, ActionRecord.fault.is_not(None))
            )
        ]
        workers = set(
            session.scalars(select(TournamentGame.worker).where(TournamentGame.tournament_id == tournament))
        )
    assert faults == [], "a connection dropped within the deadline is tried again, not a fault"
    assert all(result.forfeited == [] for result in results)
    assert workers == {"east"}
    text = arena.workers.log_text(tail=None)
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("--- worker")]
    unstamped = [line for line in lines if not STAMPED.match(line)]
    assert lines and not unstamped, unstamped[:5]
