"""botlink/moves.py: the move request both runners send, and the judgment of an answer."""

from __future__ import annotations

import json

import engine
from botlink.moves import judged, move_request


def test_the_move_request_is_the_protocols() -> None:
    state = engine.new_game("card", {"players": 3}, seed=4)
    asked = engine.decision(state)
    assert asked is not None
    actions = engine.legal_actions(state, asked.seat)
    request = move_request(
        state,
        asked.seat,
        asked.kind,
        actions,
        game_id=7,
        tournament_id=None,
        ply=0,
        deadline_ms=1000,
        last_latency_ms=None,
    )
    assert request == {
        "type": "move",
        "game_id": 7,
        "tournament_id": None,
        "seat": asked.seat,
        "ply": 0,
        "decision": asked.kind,
        "view": engine.view(state, asked.seat),
        "actions": [action.to_json() for action in actions],
        "deadline_ms": 1000,
        "last_latency_ms": None,
    }
    assert json.loads(json.dumps(request))["actions"][0]["id"] == actions[0].id


def test_an_answer_is_judged_as_the_service_judges_it() -> None:
    state = engine.new_game("board", {"players": 2}, seed=1)
    asked = engine.decision(state)
    assert asked is not None
    actions = engine.legal_actions(state, asked.seat)
    good = actions[0].id
    assert judged(good, 3.0, actions)[:4] == (good, 3.0, None, "")
    assert judged("nope", 3.0, actions)[:3] == (None, 3.0, "illegal")
    assert "'nope'" in judged("nope", 3.0, actions).detail
    assert judged(7, 3.0, actions).fault == "illegal"
    assert judged(good, 3.0, actions, "timeout", "slow")[:4] == (None, 3.0, "timeout", "slow")
