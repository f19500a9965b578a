"""Asking a bot for a move as the service does: the requests of the push protocol, and the judgment of an answer.

One place for what both runners of bot games share: the tournament workers (``tournament/play/runner.py``) and the
local runner of ``sorry-arena simulate`` (``cli/simulate_play.py``), so that a bot meets the same rules offline:

- :func:`move_request`: the push protocol's ``move`` request (docs/bot-protocol.md), exactly what the bot's
  ``choose`` receives; :func:`start_request` and :func:`end_request`, the game's ``start`` and ``end``;
- :func:`ask` and :func:`judged`: the fault of an answer (``illegal``: anything but an offered id), as an
  :class:`engine.gameloop.Answer`, which the game loop plays and counts (the third fault in a row forfeits).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import engine
from botlink.calls import BotConnection
from engine.gameloop import Answer


def move_request(
    state: engine.State,
    seat: int,
    kind: str,
    actions: Sequence[engine.Action],
    *,
    game_id: int,
    tournament_id: int | None,
    ply: int,
    deadline_ms: int,
    last_latency_ms: float | None,
) -> dict[str, Any]:
    """The ``move`` request for ``seat``, asked a decision of ``kind`` among ``actions`` at ``ply``."""
    return {
        "type": "move",
        "game_id": game_id,
        "tournament_id": tournament_id,
        "seat": seat,
        "ply": ply,
        "decision": kind,
        "view": engine.view(state, seat),
        "actions": [action.to_json() for action in actions],
        "deadline_ms": deadline_ms,
        "last_latency_ms": last_latency_ms,
    }


def start_request(
    game_id: int,
    seat: int,
    *,
    tournament_id: int | None,
    game: str,
    settings: dict[str, Any],
    seats: int,
    players: Sequence[str],
) -> dict[str, Any]:
    """The ``start`` request of ``seat``: the game, its settings and who plays (``players``, by seat)."""
    return {
        "type": "start",
        "game_id": game_id,
        "seat": seat,
        "tournament_id": tournament_id,
        "game": game,
        "settings": settings,
        "seats": seats,
        "players": list(players),
    }


def end_request(game_id: int, seat: int, result: dict[str, Any], forfeited: bool) -> dict[str, Any]:
    """The ``end`` request of ``seat``: the game's result, and whether this seat forfeited."""
    return {"type": "end", "game_id": game_id, "seat": seat, "result": result, "forfeited": forfeited}


def judged(
    action: object,
    latency_ms: float,
    actions: Sequence[engine.Action],
    fault: str | None = None,
    detail: str = "",
    debug: object = None,
) -> Answer:
    """The answer ``action`` given in ``latency_ms``: the call's own ``fault`` (and ``detail``) if it had one, else
    ``illegal`` for anything but the id of one of the ``actions`` offered, else a good move; with the bot's
    ``debug`` text when it is a string."""
    text = debug if isinstance(debug, str) else None
    if fault is None and isinstance(action, str) and any(offered.id == action for offered in actions):
        return Answer(action, latency_ms, None, debug=text)
    if fault is None:
        fault, detail = "illegal", f"answered {action!r}, which is not one of the {len(actions)} actions offered"
    return Answer(None, latency_ms, fault, detail, text)


def ask(connection: BotConnection, request: dict[str, Any], actions: Sequence[engine.Action]) -> Answer:
    """POST ``request`` to the bot's ``move`` route and judge the reply."""
    reply = connection.move(request)
    body = reply.body if reply.body is not None and reply.fault is None else {}
    return judged(body.get("action"), reply.latency_ms, actions, reply.fault, reply.detail, body.get("debug"))
