"""A game's events derived from its action log (store/eventlog.py), on SQLite and PostgreSQL: the engine's events,
numbered and placed by the game log's rules, extended as moves are saved (reading only the new actions), the same
in a second process's log, kept within the cache's bounds, and a stored log the engine cannot replay refused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, event, insert
from sqlalchemy.orm import Session

import engine
from store import eventlog, gamelog
from store.database import make_engine, sessions
from store.models import ActionRecord, Game, Player

SETTINGS = {"players": 3}


@pytest.fixture
def database(database_url: str) -> Iterator[Engine]:
    engine_ = make_engine(database_url)
    yield engine_
    engine_.dispose()


def new_game(session: Session, seed: int) -> Game:
    """A started card game of three players of its own."""
    players = [Player(name=f"p{seed}-{seat}", token_hash=f"{seed:060x}{seat:04x}") for seat in range(3)]
    session.add_all(players)
    session.flush()
    created = gamelog.create(session, "card", SETTINGS, seed, 3, players[0].id, [player.id for player in players])
    session.commit()
    game = session.get(Game, created.id)
    assert game is not None
    return game


def advance(
    session: Session, game: Game, state: Any, ply: int, count: int, placed: list[tuple[int, engine.Event]]
) -> int:
    """Play ``count`` moves from ``ply`` (each seat's first legal action) through the game log, their events into
    ``placed``; the ply after them."""
    moves = []
    for at in range(ply, ply + count):
        asked = engine.decision(state)
        assert asked is not None
        action = engine.legal_actions(state, asked.seat)[0].id
        placed += [(at + 1, event) for event in engine.apply(state, action, asked.seat)]
        moves.append(gamelog.Move(at, asked.seat, action))
    assert gamelog.save(session, gamelog.advance(game.id, moves, state))
    session.commit()
    return ply + count


def as_placed(events: list[eventlog.LoggedEvent]) -> list[tuple[int, engine.Event]]:
    assert [logged.seq for logged in events] == list(range(len(events)))
    assert all(logged.to_seat == logged.payload.get("to") for logged in events)
    return [(logged.ply, logged.payload) for logged in events]


def test_the_events_are_the_engines_extended_move_by_move(database: Engine) -> None:
    reads: list[str] = []
    event.listen(database, "before_cursor_execute", lambda *args: reads.append(args[2]))
    with sessions(database)() as session:
        game = new_game(session, 7)
        state = engine.new_game("card", SETTINGS, 7)
        placed = [(0, opening) for opening in engine.opening_events(state)]
        assert any(payload.get("to") is not None for _, payload in placed)  # the hands, each to its seat
        assert as_placed(eventlog.events(session, game)) == placed
        ply = 0
        for count in (1, 3, 1):
            ply = advance(session, game, state, ply, count, placed)
            reads.clear()
            assert as_placed(eventlog.events(session, game)) == placed
            assert len([sql for sql in reads if "FROM actions" in sql]) == 1  # only the actions saved since
        other = eventlog.EventLog()  # another process's log: replays from the start, the same events
        assert as_placed(other.events(session, game)) == placed


def test_the_cache_keeps_to_its_bounds_and_forgets_the_least_recent(database: Engine) -> None:
    log = eventlog.EventLog(games=2, events=10_000)
    with sessions(database)() as session:
        games = [new_game(session, seed) for seed in (1, 2, 3)]
        first = [log.events(session, game) for game in games]
        assert [log.events(session, game) for game in games] == first
        assert len(log._replays) == 2 and games[0].id not in log._replays
        small = eventlog.EventLog(games=10, events=len(first[0]))
        for game in games:
            small.events(session, game)
        assert list(small._replays) == [games[-1].id]  # the latest one always stays
        assert small._held == len(first[-1])


def test_a_log_the_engine_cannot_replay_is_refused(database: Engine) -> None:
    with sessions(database)() as session:
        game = new_game(session, 5)
        session.execute(insert(ActionRecord).values(game_id=game.id, ply=0, seat=0, action="no-such-action"))
        session.commit()
        with pytest.raises(eventlog.CorruptLog, match="does not replay"):
            eventlog.EventLog().events(session, game)
        gap = new_game(session, 6)
        session.execute(insert(ActionRecord).values(game_id=gap.id, ply=1, seat=0, action="x"))
        session.commit()
        with pytest.raises(eventlog.CorruptLog, match="ply 1 stored where ply 0 was next"):
            eventlog.EventLog().events(session, gap)
