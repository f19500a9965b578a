"""The one writer of a game (store/gamelog.py), on SQLite and PostgreSQL, through both of its paths: the fast lane
with the group-commit writer (a pull bot's move through the API) and a session (a worker's batch of push moves).

The two paths write the same rows: a game advanced partly through each is stored exactly as the engine replays it,
its events (derived from its actions: ``store/eventlog.py``) are the engine's, numbered once, and the guard refuses a
stale ply or a game that is not active on both.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from store import eventlog, fastlane, gamelog, groupcommit
from store.database import make_engine, sessions
from store.fastlane import Lane, Statements
from store.models import ActionRecord, Game, Player, Seat

SEED = 11
SETTINGS = {"players": 2}


@pytest.fixture
def database(database_url: str) -> Iterator[Engine]:
    engine_ = make_engine(database_url)
    yield engine_
    engine_.dispose()


def players(session: Session, count: int) -> list[int]:
    made = [Player(name=f"p{i}", token_hash=f"{i:064x}") for i in range(count)]
    session.add_all(made)
    session.flush()
    return [player.id for player in made]


def play_moves(
    state: Any, first_ply: int, count: int, events: list[tuple[int, engine.Event]] | None = None
) -> list[gamelog.Move]:
    """``count`` moves of the seat asked at each step (its first legal action), applied to ``state``; their events
    appended to ``events`` (with the ply each carries) if given."""
    moves = []
    for ply in range(first_ply, first_ply + count):
        asked = engine.decision(state)
        assert asked is not None
        action = engine.legal_actions(state, asked.seat)[0].id
        made = engine.apply(state, action, asked.seat)
        if events is not None:
            events += [(ply + 1, event) for event in made]
        moves.append(gamelog.Move(ply, asked.seat, action))
    return moves


def stored(session: Session, game_id: int) -> tuple[Game, list[ActionRecord], list[eventlog.LoggedEvent]]:
    session.expire_all()
    game = session.get(Game, game_id)
    assert game is not None
    actions = list(session.scalars(select(ActionRecord).where(ActionRecord.game_id == game_id).order_by("ply")))
    return game, actions, eventlog.events(session, game)


def test_a_game_written_by_both_paths_is_the_engines_game(database: Engine) -> None:
    """Create (started), then moves through a session, through the fast lane, through a session again: the rows
    are the engine's replay, the events numbered 0..n-1 in order with the ply they followed."""
    with sessions(database)() as session:
        seated = players(session, 3)
        game = gamelog.create(session, "board", SETTINGS, SEED, 2, seated[0], seated[1:])
        session.commit()
        game_id = game.id
        assert game.status == "active"
        assert [seat.player_id for seat in session.scalars(select(Seat).order_by(Seat.seat))] == seated[1:]
    state = engine.new_game("board", SETTINGS, SEED)
    opening = engine.opening_events(state)
    expected_events = [(0, event) for event in opening]
    lane = Lane(Statements(database))
    ply = 0
    for path in ("session", "lane", "session", "lane"):
        moves = play_moves(state, ply, 3 if path == "session" else 1, expected_events)
        write = gamelog.advance(game_id, moves, state)
        if path == "session":
            with sessions(database)() as session:
                assert gamelog.save(session, write)
                session.commit()
        else:
            assert lane.write(game_id, write.condition, *write.then)
        ply = write.new_ply
    lane.release()
    with sessions(database)() as session:
        game, actions, events = stored(session, game_id)
        position = gamelog.position(session, game_id)
    assert game.ply == ply == 8 and game.status == "active"
    assert game.state == gamelog.encode_state(engine.to_json(state))
    assert json.loads(game.state) == engine.to_json(
        engine.replay("board", SETTINGS, SEED, [a.action for a in actions])
    )
    assert [action.ply for action in actions] == list(range(8))
    assert [event.seq for event in events] == list(range(len(expected_events)))
    assert [(event.ply, event.payload) for event in events] == expected_events
    assert [event.to_seat for event in events] == [payload.get("to") for _, payload in expected_events]
    assert position is not None and position.ply == 8
    assert position.saved_at == gamelog.as_utc(game.updated_at)


def test_the_guard_refuses_a_stale_ply_on_both_paths(database: Engine) -> None:
    with sessions(database)() as session:
        seated = players(session, 3)
        game_id = gamelog.create(session, "card", SETTINGS, SEED, 2, seated[0], seated[1:]).id
        session.commit()
    state = engine.new_game("card", SETTINGS, SEED)
    first = gamelog.advance(game_id, play_moves(state, 0, 1), state)
    with sessions(database)() as session:
        assert gamelog.save(session, first)
        session.commit()
    late = engine.new_game("card", SETTINGS, SEED)  # another writer, still at ply 0
    stale = gamelog.advance(game_id, play_moves(late, 0, 2), late)
    with sessions(database)() as session:
        assert not gamelog.save(session, stale)
        session.rollback()
    lane = Lane(Statements(database))
    assert not lane.write(game_id, stale.condition, *stale.then)
    lane.release()
    with sessions(database)() as session:
        game, actions, events = stored(session, game_id)
    first_events: list[tuple[int, engine.Event]] = []
    play_moves(engine.new_game("card", SETTINGS, SEED), 0, 1, first_events)
    assert game.ply == 1 and len(actions) == 1 and [(e.ply, e.payload) for e in events if e.ply] == first_events


def test_only_an_active_game_advances_and_a_finished_one_keeps_its_result(database: Engine) -> None:
    with sessions(database)() as session:
        seated = players(session, 3)
        open_game = gamelog.create(session, "board", SETTINGS, SEED, 2, seated[0])
        session.commit()
        assert open_game.status == "open"
    state = engine.new_game("board", SETTINGS, SEED)
    write = gamelog.advance(open_game.id, play_moves(state, 0, 1), state)
    with sessions(database)() as session:
        assert not gamelog.save(session, write), "an open game must not advance"
        session.rollback()
        gamelog.take_seat(session, open_game.id, 0, seated[1], last=False)
        gamelog.take_seat(session, open_game.id, 1, seated[2], last=True)
        session.commit()
    with sessions(database)() as session:
        assert gamelog.save(session, write), "the last seat started it"
        assert gamelog.finish(session, open_game.id, write.new_ply, {"ranks": [1, 2], "reason": "forfeit"})
        session.commit()
    later = gamelog.advance(open_game.id, play_moves(state, 1, 1), state)
    lane = Lane(Statements(database))
    assert not lane.write(open_game.id, later.condition, *later.then), "a game over does not advance"
    lane.release()
    with sessions(database)() as session:
        game, actions, _ = stored(session, open_game.id)
        assert not gamelog.finish(session, open_game.id, 0, {"ranks": [2, 1]}), "finish is checked by ply"
    assert (game.status, game.ply, game.result, len(actions)) == (
        "over",
        1,
        {"ranks": [1, 2], "reason": "forfeit"},
        1,
    )


def test_a_move_that_ends_the_game_stores_the_engines_result(database: Engine) -> None:
    with sessions(database)() as session:
        seated = players(session, 3)
        game_id = gamelog.create(session, "card", SETTINGS, SEED, 2, seated[0], seated[1:]).id
        session.commit()
    state = engine.new_game("card", SETTINGS, SEED)
    moves: list[gamelog.Move] = []
    while not engine.is_over(state):
        moves += play_moves(state, len(moves), 1)
    write = gamelog.advance(game_id, moves, state, engine.result(state))
    lane = Lane(Statements(database))
    assert lane.write(game_id, write.condition, *write.then)
    lane.release()
    with sessions(database)() as session:
        game, actions, _ = stored(session, game_id)
        faults = gamelog.faults(session, game_id)
    result = engine.result(state)
    assert result is not None
    assert (game.status, game.ply, game.result) == ("over", len(moves), result.to_json())
    assert faults == [(move.seat, None) for move in moves] and len(actions) == len(moves)


def test_latency_and_faults_are_stored_with_the_move(database: Engine) -> None:
    with sessions(database)() as session:
        seated = players(session, 3)
        game_id = gamelog.create(session, "board", SETTINGS, SEED, 2, seated[0], seated[1:]).id
        session.commit()
    state = engine.new_game("board", SETTINGS, SEED)
    moves = play_moves(state, 0, 2)
    moves[0].latency_ms, moves[0].fault = 1000.0, "timeout"
    with sessions(database)() as session:
        assert gamelog.save(session, gamelog.advance(game_id, moves, state))
        gamelog.record_latency(session, game_id, 1, 12.5)
        session.commit()
        _, actions, _ = stored(session, game_id)
        assert gamelog.faults(session, game_id) == [(moves[0].seat, "timeout"), (moves[1].seat, None)]
    assert [(action.latency_ms, action.fault) for action in actions] == [(1000.0, "timeout"), (12.5, None)]


def test_a_second_write_of_one_ply_is_refused_by_the_unique_key(database: Engine) -> None:
    """The guard and the unique (game, ply) agree: a write that slips past a stale guard (a hand-made condition
    at the right ply after another wrote it is impossible, so here: the same action rows twice) fails whole."""
    with sessions(database)() as session:
        seated = players(session, 3)
        game_id = gamelog.create(session, "board", SETTINGS, SEED, 2, seated[0], seated[1:]).id
        session.commit()
    state = engine.new_game("board", SETTINGS, SEED)
    write = gamelog.advance(game_id, play_moves(state, 0, 1), state)
    with sessions(database)() as session:
        assert gamelog.save(session, write)
        session.commit()
        with pytest.raises(IntegrityError):
            session.connection().execute(*write.then[0])
        session.rollback()
        _, actions, _ = stored(session, game_id)
    assert len(actions) == 1


def test_a_batch_whose_action_row_a_unique_key_refuses_fails_whole(database: Engine) -> None:
    """A worker's batch (on PostgreSQL one statement: the guarded UPDATE and every action row) with a row that clashes
    with one already there: nothing of it is saved, the game stays at its ply."""
    with sessions(database)() as session:
        seated = players(session, 3)
        game_id = gamelog.create(session, "board", SETTINGS, SEED, 2, seated[0], seated[1:]).id
        session.commit()
    state = engine.new_game("board", SETTINGS, SEED)
    write = gamelog.advance(game_id, play_moves(state, 0, 3), state)
    planted = {key: write.then[0][1][2][key] for key in ("game_id", "ply", "seat", "action")}
    with sessions(database)() as session:
        session.add(ActionRecord(**planted, debug="planted"))
        session.commit()
        with pytest.raises(IntegrityError):
            gamelog.save(session, write)
        session.rollback()
        ply = session.scalar(select(Game.ply).where(Game.id == game_id))
        rows = session.execute(select(ActionRecord.ply, ActionRecord.debug).where(ActionRecord.game_id == game_id))
        assert ply == 0 and rows.all() == [(2, "planted")]


@pytest.mark.parametrize("plies", [[], [0, 2], [1, 0]], ids=["no moves", "a gap", "out of order"])
def test_an_advance_needs_consecutive_moves(plies: list[int]) -> None:
    moves = [gamelog.Move(ply, 0, "x") for ply in plies]
    with pytest.raises(ValueError):
        gamelog.advance(1, moves, engine.new_game("board", SETTINGS, SEED))


def test_settings_that_describe_no_game_are_refused_before_anything_is_written(database: Engine) -> None:
    with sessions(database)() as session:
        seated = players(session, 1)
        with pytest.raises(engine.SettingsError):
            gamelog.create(session, "board", {"players": 9}, SEED, 9, seated[0])
        session.rollback()
        assert session.scalar(select(Game.id)) is None


def one_move_lane(database: Engine, monkeypatch: pytest.MonkeyPatch) -> tuple[Lane, list[int]]:
    """A fast lane, and the number of statements of each write it runs (in order), through the process's writer
    or on its own connection."""
    steps: list[int] = []

    def counting(cursor: Any, write_steps: list[Any]) -> bool:
        steps.append(len(write_steps))
        return groupcommit.run(cursor, write_steps)

    monkeypatch.setattr(fastlane, "run", counting)
    statements = Statements(database)
    if statements.writer is not None:
        monkeypatch.setattr(statements.writer, "_transaction", counted_batches(statements.writer, steps))
    return Lane(statements), steps


def counted_batches(writer: groupcommit.Writer, steps: list[int]) -> Any:
    """The writer's ``_transaction``, noting the statements of each write of a batch."""
    transaction = writer._transaction

    def counted(connection: Any, batch: list[groupcommit.Write]) -> None:
        steps.extend(len(write.steps) for write in batch)
        transaction(connection, batch)

    return counted


def test_one_move_writes_through_the_fast_lane_play_a_game_to_its_end(
    database: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pull bot's writes, one move each, to the game's end: one statement each on PostgreSQL (the UPDATE and the
    action row in one round trip), two on SQLite; the rows are the engine's either way."""
    with sessions(database)() as session:
        seated = players(session, 3)
        game_id = gamelog.create(session, "card", SETTINGS, SEED, 2, seated[0], seated[1:]).id
        session.commit()
    state = engine.new_game("card", SETTINGS, SEED)
    lane, steps = one_move_lane(database, monkeypatch)
    moves: list[gamelog.Move] = []
    while not engine.is_over(state):
        move = play_moves(state, len(moves), 1)[0]
        move.debug = f"ply {move.ply}"
        write = gamelog.advance(game_id, [move], state, engine.result(state))
        assert lane.write(game_id, write.condition, *write.then)
        moves.append(move)
    lane.release()
    assert steps == [1 if database.dialect.name == "postgresql" else 2] * len(moves)
    result = engine.result(state)
    assert result is not None
    with sessions(database)() as session:
        game, actions, _ = stored(session, game_id)
    assert (game.status, game.ply, game.result) == ("over", len(moves), result.to_json())
    assert game.state == gamelog.encode_state(engine.to_json(state))
    assert [(a.ply, a.seat, a.action, a.debug, a.latency_ms, a.fault) for a in actions] == [
        (move.ply, move.seat, move.action, f"ply {move.ply}", None, None) for move in moves
    ]
    assert gamelog.as_utc(actions[-1].created_at) == gamelog.as_utc(game.updated_at)


def test_a_one_move_write_that_is_refused_writes_nothing(
    database: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the fast lane, a one-move write at a stale ply, or into a game that is over, changes no row and
    adds no action; one whose action row a unique key refuses fails whole (the game stays at its ply)."""
    with sessions(database)() as session:
        seated = players(session, 3)
        game_id = gamelog.create(session, "board", SETTINGS, SEED, 2, seated[0], seated[1:]).id
        session.commit()
    state = engine.new_game("board", SETTINGS, SEED)
    first = gamelog.advance(game_id, play_moves(state, 0, 1), state)
    late = engine.new_game("board", SETTINGS, SEED)
    stale = gamelog.advance(game_id, play_moves(late, 0, 1), late)
    lane, steps = one_move_lane(database, monkeypatch)
    assert lane.write(game_id, first.condition, *first.then)
    assert not lane.write(game_id, stale.condition, *stale.then), "ply 0 was answered"
    clash = gamelog.advance(game_id, play_moves(state, 1, 1), state)
    planted = {key: clash.then[0][1][0][key] for key in ("game_id", "ply", "seat", "action")}
    with sessions(database)() as session:  # an action row for ply 1 that the game log did not write
        session.add(ActionRecord(**planted, debug="planted"))
        session.commit()
    with pytest.raises(lane.integrity_error):
        lane.write(game_id, clash.condition, *clash.then)
    with sessions(database)() as session:
        game, actions, _ = stored(session, game_id)
        assert gamelog.finish(session, game_id, 1, {"ranks": [1, 2], "reason": "forfeit"})
        session.commit()
    assert game.ply == 1
    assert [(a.ply, a.debug) for a in actions] == [(0, None), (1, "planted")]
    assert not lane.write(game_id, clash.condition, *clash.then), "a game over does not advance (nor clash)"
    lane.release()
    assert len(steps) == 4
    with sessions(database)() as session:
        game, after, _ = stored(session, game_id)
    assert (game.status, game.ply, len(after)) == ("over", 1, 2)
