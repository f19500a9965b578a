"""A hung bot holds only its share of a worker's slots: once its calls run out their deadlines, a job for one more of
its games goes back to the end of the queue while it sits in ``max(1, slots // 4)`` games of that worker, and the
other bots' games take the rest of the slots (``tournament/play/stalls.py``; the throughput figure is
``benchmarks/hung_bot.py``'s).

One worker with 4 slots (a share of 1), three random bots and one that never answers a move, a round robin of two
rounds (24 games, 12 of them the hung bot's, each forfeited at its third timeout). The worker takes jobs before it
has seen the bot stall, so its first games of the hung bot may fill every slot; each later one is admitted only
once the earlier ones ended. So, from the end of the fourth of its games to end (by then the first ones have
ended), never two of its games are played at once, as the database's times show (a game's row is created after its
admission, its result stored before it leaves its slot: the stored spans lie inside the true ones).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from store.models import Game, Result
from tests.reliability.harness import Arena, check_tournament

SLOTS = 4
SHARE = 1
MOVE_TIMEOUT_MS = 300


def most_at_once(spans: list[tuple[datetime, datetime]], after: datetime) -> int:
    """The most spans open at one moment after ``after`` (spans clipped to begin there)."""
    edges = sorted(
        [(max(start, after), 1) for start, end in spans if end > after]
        + [(end, -1) for start, end in spans if end > after]
    )
    most = current = 0
    for _, step in edges:  # an end sorts before a start at the same moment: touching spans do not overlap
        current += step
        most = max(most, current)
    return most


def test_a_hung_bot_holds_only_its_share_of_the_slots(arena: Arena) -> None:
    good = [arena.register_bot(f"good{number}", "random") for number in range(3)]
    hung = arena.register_bot("hung", "hang")
    arena.workers.start("--games", str(SLOTS))
    arena.workers.wait_listening()
    tournament = arena.create_tournament([*good, hung], game="board", rounds=2, move_timeout_ms=MOVE_TIMEOUT_MS)
    arena.wait_done(tournament, timeout=180)
    results = check_tournament(arena.app, tournament)
    assert len(results) == 24
    with arena.sessions() as session:
        spans = session.execute(
            select(Game.created_at, Result.finished_at, Result.bot_ids, Result.reason)
            .join(Result, Result.game_id == Game.id)
            .where(Result.tournament_id == tournament)
        ).all()
    hung_spans = sorted((start, end) for start, end, bots, _ in spans if hung in bots)
    assert len(hung_spans) == 12
    assert all(reason == "forfeit" for _, _, bots, reason in spans if hung in bots)
    assert all(reason != "forfeit" for _, _, bots, reason in spans if hung not in bots)
    fourth_end = sorted(end for _, end in hung_spans)[SLOTS - 1]
    assert most_at_once(hung_spans, fourth_end) <= SHARE, arena.workers.log_text()
    assert most_at_once(hung_spans, min(start for start, _ in hung_spans)) >= 1


def test_most_at_once_counts_overlaps() -> None:
    day = datetime(2026, 1, 1)

    def at(second: int) -> datetime:
        return day.replace(second=second)

    spans = [(at(0), at(10)), (at(5), at(15)), (at(10), at(20)), (at(30), at(40))]
    assert most_at_once(spans, at(0)) == 2
    assert most_at_once(spans, at(16)) == 1
    assert most_at_once(spans, at(41)) == 0
