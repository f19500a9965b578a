"""Load a game, call the engine, save: everything the game views do beyond parsing and rendering.

Submissions are optimistic: the new state is computed from the stored one, then saved by an UPDATE that only
matches if the game is still at the ply the action answered, in the same transaction as the action's row (unique
per game and ply). Of two concurrent submissions for one ply exactly one is saved; the other gets a 409.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from flask import current_app
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from engine import i18n
from service.errors import fail
from service.models import ActionRecord, EventRecord, Game, Player, Seat, now


def _events(game_id: int, ply: int, first_seq: int, events: list[dict[str, Any]]) -> list[EventRecord]:
    return [
        EventRecord(game_id=game_id, seq=first_seq + i, ply=ply, to_seat=event.get("to"), payload=event)
        for i, event in enumerate(events)
    ]


def create_game(
    session: Session, player: Player, kind: str, settings: dict[str, Any], seats: int, seed: int | None
) -> Game:
    settings = dict(settings)
    if settings.setdefault("players", seats) != seats:
        fail(422, f"settings.players ({settings['players']}) and seats ({seats}) disagree")
    if seed is None:
        seed = secrets.randbits(62)
    try:
        state, events = engine.new_game_with_events(kind, settings, seed)
    except engine.SettingsError as error:
        fail(422, f"settings: {error}")
    game = Game(
        game=kind,
        settings=engine.normalize_settings(kind, settings),
        seed=seed,
        seats=seats,
        status="open",
        ply=0,
        state=json.dumps(engine.to_json(state)),
        created_by=player.id,
    )
    session.add(game)
    session.flush()
    session.add_all(_events(game.id, 0, 0, events))
    session.commit()
    return game


MAX_ID = 2**31 - 1


def get_game(session: Session, game_id: int) -> Game:
    if not 0 < game_id <= MAX_ID:  # ids are 32-bit: a larger one names no game (and must not reach the database)
        fail(404, f"no game {game_id}")
    game = session.get(Game, game_id)
    if game is None:
        fail(404, f"no game {game_id}")
    return game


def seats_of(session: Session, game: Game) -> dict[int, Seat]:
    return {seat.seat: seat for seat in session.scalars(select(Seat).where(Seat.game_id == game.id))}


def seat_of(session: Session, game: Game, player: Player | None) -> int | None:
    if player is None:
        return None
    return session.scalars(select(Seat.seat).where(Seat.game_id == game.id, Seat.player_id == player.id)).first()


def take_seat(session: Session, game: Game, player: Player, wanted: int | None) -> int:
    if game.status != "open":
        fail(409, f"game {game.id} has no open seat: it is {game.status}")
    taken = seats_of(session, game)
    if any(seat.player_id == player.id for seat in taken.values()):
        fail(409, f"you already hold a seat in game {game.id}")
    free = [seat for seat in range(game.seats) if seat not in taken]
    if not free:  # the last seat went between this request's two reads
        fail(409, f"game {game.id} has no open seat")
    if wanted is not None:
        if not 0 <= wanted < game.seats:
            fail(422, f"seat must be from 0 to {game.seats - 1}")
        if wanted not in free:
            fail(409, f"seat {wanted} of game {game.id} is taken")
        chosen = wanted
    else:
        chosen = free[0]
    game_id = game.id
    try:
        session.add(Seat(game_id=game_id, seat=chosen, player_id=player.id))
        session.flush()  # the unique (game, seat) decides between concurrent takers here
        if len(free) == 1:
            # the last seat: the game starts
            session.execute(update(Game).where(Game.id == game_id, Game.status == "open").values(status="active"))
        session.commit()
    except IntegrityError:
        session.rollback()
        fail(409, f"seat {chosen} of game {game_id} was just taken; try again")
    return chosen


class StateCache:
    """Engine states by (game, ply), least recently used out: a game's state at a ply never changes."""

    def __init__(self, size: int = 512) -> None:
        self._states: OrderedDict[tuple[int, int], Any] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, game: Game) -> Any:
        key = (game.id, game.ply)
        with self._lock:
            state = self._states.get(key)
            if state is not None:
                self._states.move_to_end(key)
                return state
        state = engine.from_json(json.loads(game.state))
        with self._lock:
            self._states[key] = state
            while len(self._states) > self._size:
                self._states.popitem(last=False)
        return state


def load(game: Game) -> Any:
    """The engine state of ``game``, to read only (views, legal actions), shared by this process's requests."""
    cache: StateCache = current_app.extensions.setdefault("state_cache", StateCache())
    return cache.get(game)


def load_copy(game: Game) -> Any:
    """A private copy of the engine state of ``game``, to apply an action to."""
    return engine.from_json(json.loads(game.state))


@dataclass
class Submitted:
    state: Any
    ply: int


def submit(session: Session, game: Game, seat: int | None, action_id: str, expected_ply: int) -> Submitted:
    if seat is None:
        fail(403, f"you hold no seat in game {game.id}")
    if game.status == "open":
        fail(409, f"game {game.id} has not started: seats are still open")
    if game.status == "over":
        fail(409, f"game {game.id} is over")
    if expected_ply != game.ply:
        fail(409, f"stale ply: the game is at ply {game.ply}, the action answered ply {expected_ply}")
    state = load_copy(game)
    asked = engine.current_player(state)
    if asked != seat:
        fail(409, f"not your turn: seat {asked} must decide now, you are seat {seat}")
    try:
        events = engine.apply(state, action_id, seat)
    except engine.IllegalActionError:
        fail(409, f"illegal action {action_id!r} for seat {seat} at ply {game.ply}")
    game_id = game.id
    last_seq = session.scalar(
        select(EventRecord.seq).where(EventRecord.game_id == game_id).order_by(EventRecord.seq.desc()).limit(1)
    )
    # End the read. The write starts with the UPDATE (taking the write lock at once, so SQLite never has to
    # upgrade a stale read) and only matches if the game is still at the ply read above.
    session.rollback()
    over = engine.is_over(state)
    result = engine.result(state)
    saved = session.execute(
        update(Game)
        .where(Game.id == game_id, Game.ply == expected_ply)
        .values(
            ply=expected_ply + 1,
            state=json.dumps(engine.to_json(state)),
            status="over" if over else "active",
            result=result.to_json() if result is not None else None,
            updated_at=now(),
        )
    )
    if saved.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        fail(409, f"stale ply: another action was accepted for ply {expected_ply}")
    session.add(ActionRecord(game_id=game_id, ply=expected_ply, seat=seat, action=action_id))
    session.add_all(_events(game_id, expected_ply + 1, (last_seq or 0) + 1, events))
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        fail(409, f"stale ply: another action was accepted for ply {expected_ply}")
    current_app.extensions["notifier"].publish(game_id, expected_ply + 1)
    return Submitted(state, expected_ply + 1)


def visible_events(session: Session, game: Game, seat: int | None, since: int, limit: int) -> list[EventRecord]:
    query = select(EventRecord).where(EventRecord.game_id == game.id, EventRecord.seq > since)
    if seat is None:
        query = query.where(EventRecord.to_seat.is_(None))
    else:
        query = query.where((EventRecord.to_seat.is_(None)) | (EventRecord.to_seat == seat))
    return list(session.scalars(query.order_by(EventRecord.seq).limit(limit)))


def replay(session: Session, game: Game) -> dict[str, Any]:
    """The full record of a finished game: enough to replay it with ``engine.replay``."""
    actions = session.scalars(
        select(ActionRecord.action).where(ActionRecord.game_id == game.id).order_by(ActionRecord.ply)
    )
    return {"game": game.game, "settings": game.settings, "seed": game.seed, "actions": list(actions)}


def localized_actions(state: Any, seat: int, game: str, language: str) -> list[dict[str, Any]]:
    return [
        {**action.to_json(), "text": i18n.describe_action(game, action.description, language)}
        for action in engine.legal_actions(state, seat)
    ]


def localized_event(record: EventRecord, game: str, language: str) -> dict[str, Any]:
    payload = dict(record.payload)
    return {
        "seq": record.seq,
        "ply": record.ply,
        "private": record.to_seat is not None,
        "event": payload,
        "text": i18n.describe_event(game, payload, language),
    }
