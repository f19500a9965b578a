"""Games written through the game log as the API and the tournament workers write them, and every answer that
shows their events: for tests/service/test_derived_events.py.

Each :class:`Case` is played by the engine from its seed (each seat's action drawn from a seeded generator, or
the game's fallback action where the case says the bot faulted, or after its seat forfeited, as the tournament
runner records them: the fallback action with its fault, latency and detail), written through ``store.gamelog``
in batches of ``batch`` moves (1: the API's pull moves; more: a worker's batch), then finished, cancelled or left
running. :func:`play` keeps the events the engine gave when each move was applied, that is when it was written.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

import engine
from service.web import steps
from store import gamelog
from store.models import Game
from tests.apikit import API, Player

LANGUAGES = ("en", "fr")


@dataclass(frozen=True)
class Case:
    name: str
    game: str
    settings: dict[str, Any]
    seed: int
    seats: int
    batch: int
    """Moves per write."""
    end: str
    """``over`` (played to its end), ``cancelled`` (at ``stop``) or ``active`` (left at ``stop``)."""
    stop: int | None = None
    faults: dict[int, str] = field(default_factory=dict)
    """ply -> the fault of the move at that ply (the fallback action is played)."""
    forfeit: tuple[int, int] | None = None
    """(seat, ply): the seat forfeits at that ply; its later moves are fallbacks with the fault ``forfeit``."""


CASES = (
    Case("card-4-pull", "card", {"players": 4}, 101, 4, 1, "over"),
    Case(
        "card-2-longer-faults",
        "card",
        {"players": 2, "longer_game": True},
        102,
        2,
        5,
        "over",
        faults={3: "timeout", 4: "illegal", 10: "status", 11: "connection", 12: "timeout"},
    ),
    Case("board-4-forfeit", "board", {"players": 4}, 103, 4, 64, "over", faults={7: "illegal"}, forfeit=(2, 30)),
    Case(
        "board-2-points-cancelled", "board", {"variant": "points", "players": 2}, 104, 2, 7, "cancelled", stop=41
    ),
    Case("card-3-running", "card", {"players": 3}, 105, 3, 1, "active", stop=25),
)


@dataclass
class Played:
    """One move as a writer records it, and the events the engine gave when it was applied."""

    ply: int
    seat: int
    action: str
    events: list[engine.Event]
    latency_ms: float
    fault: str | None
    detail: str | None
    debug: str | None


def play(case: Case) -> tuple[list[engine.Event], list[Played], Any]:
    """The case's opening events, its moves, and the engine state after them."""
    state = engine.new_game(case.game, case.settings, case.seed)
    opening = engine.opening_events(state)
    rng = random.Random(case.seed)
    moves: list[Played] = []
    while (asked := engine.decision(state)) is not None and len(moves) != case.stop:
        ply = len(moves)
        forfeited = case.forfeit is not None and asked.seat == case.forfeit[0] and ply >= case.forfeit[1]
        fault = "forfeit" if forfeited else case.faults.get(ply)
        if fault is None:
            action = rng.choice(engine.legal_actions(state, asked.seat)).id
        else:
            action = engine.fallback_action(state)
        events = engine.apply(state, action, asked.seat)
        detail = f"fault {fault} at ply {ply}" if fault not in (None, "forfeit") else None
        debug = f"ply {ply}: {action}" if ply % 5 == 0 else None
        moves.append(Played(ply, asked.seat, action, events, round(rng.uniform(1, 900), 3), fault, detail, debug))
    return opening, moves, state


def save_batch(session: Session, game_id: int, batch: list[Played], state: Any, result: Any) -> None:
    """Write ``batch`` through the game log, as a worker does (the API's fast lane runs the same statements)."""
    moves = [gamelog.Move(m.ply, m.seat, m.action, m.latency_ms, m.fault, m.detail, m.debug) for m in batch]
    assert gamelog.save(session, gamelog.advance(game_id, moves, state, result))


def write(session: Session, case: Case, players: list[int]) -> tuple[int, list[engine.Event], list[Played]]:
    """Create and play ``case`` through the game log (committed); its id, opening events and moves."""
    game = gamelog.create(session, case.game, case.settings, case.seed, case.seats, players[0], players)
    session.commit()
    opening, moves, _ = play(case)
    state = engine.new_game(case.game, case.settings, case.seed)
    for start in range(0, len(moves), case.batch):
        batch = moves[start : start + case.batch]
        for move in batch:
            engine.apply(state, move.action, move.seat)
        save_batch(session, game.id, batch, state, engine.result(state))
        session.commit()
    if case.forfeit is not None:
        over = engine.result(state)
        assert over is not None
        assert gamelog.finish(session, game.id, len(moves), {**over.to_json(), "forfeited": [case.forfeit[0]]})
    if case.end == "cancelled":
        assert gamelog.cancel(session, [game.id]) == 1
    session.commit()
    return game.id, opening, moves


def events_answers(client: FlaskClient, game_id: int, viewer: Player | None, seats: int) -> dict[str, bytes]:
    """The bodies of ``GET .../events`` for ``viewer`` (``None``: a spectator): all at once in each language, and
    page by page from several ``since`` with small limits."""
    headers = viewer.headers if viewer else {}
    answers = {}
    for lang in LANGUAGES:
        answers[f"all/{lang}"] = get(client, f"{API}/games/{game_id}/events?limit=1000", headers, lang)
    since, page = -1, 0
    while True:
        body = get(client, f"{API}/games/{game_id}/events?since={since}&limit={3 + seats}", headers, "en")
        answers[f"page{page}"] = body
        events = json.loads(body)["events"]
        if not events:
            break
        since, page = events[-1]["seq"], page + 1
    for since in (0, 5, 17, 10_000):
        answers[f"since{since}"] = get(client, f"{API}/games/{game_id}/events?since={since}", headers, "en")
    return answers


def get(client: FlaskClient, path: str, headers: dict[str, str], lang: str) -> bytes:
    response = client.get(path, headers={**headers, "Accept-Language": lang})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_data()


def stream_answer(client: FlaskClient, game_id: int, viewer: Player) -> bytes:
    """The whole body of an ended game's event stream (it ends once every event is sent)."""
    response = client.get(
        f"{API}/games/{game_id}/events/stream?since=0", headers={**viewer.headers, "Accept-Language": "en"}
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_data()


def viewer_answers(app: Flask, game_id: int, seats: int) -> dict[str, Any]:
    """The viewer's steps (every move row, as a spectator and as the owner of seat 0) and what each step shows."""
    with app.app_context(), app.extensions["db_sessions"]() as session:
        game = session.get(Game, game_id)
        assert game is not None
        finished = game.status == "over"
        answers: dict[str, Any] = {}
        for lang in LANGUAGES:
            for owned in ((), (0,)):
                rows = steps.steps(session, game, finished, lang, owned=owned)
                answers[f"steps/{lang}/{owned}"] = [vars(row) for row in rows]
            answers[f"after/{lang}"] = [vars(row) for row in steps.steps(session, game, finished, lang, 3, 9)]
            for ply in range(game.ply + 1):
                answers[f"step{ply}/{lang}"] = vars(steps.step_events(session, game, ply, finished, lang))
        return answers
