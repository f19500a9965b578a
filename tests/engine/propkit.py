"""Helpers shared by the property tests of both games: random play, the asked seat, canonical JSON, refusals."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from typing import Any

import pytest

import engine


def asked(state: Any) -> int:
    """The seat asked now, in a game that is not over."""
    decision = engine.decision(state)
    assert decision is not None
    return decision.seat


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True)


def play(
    state: Any,
    chooser: random.Random,
    on_step: Callable[[Any], None] | None = None,
    max_plies: int | None = None,
    on_events: Callable[[list[dict[str, Any]]], None] | None = None,
) -> list[str]:
    """Play random legal actions until the game ends (or ``max_plies``); the ids applied, in order."""
    applied: list[str] = []
    while not engine.is_over(state) and (max_plies is None or len(applied) < max_plies):
        if on_step is not None:
            on_step(state)
        seat = asked(state)
        action_id = chooser.choice(engine.legal_actions(state, seat)).id
        events = engine.apply(state, action_id, seat)
        if on_events is not None:
            on_events(events)
        applied.append(action_id)
    return applied


def assert_refusals_change_nothing(state: Any, junk: str, candidates: Iterable[str]) -> None:
    """Illegal ids, and a legal id sent by a seat not asked, raise and leave the state as it was."""
    before = canonical(engine.to_json(state))
    if engine.is_over(state):
        with pytest.raises(engine.IllegalActionError):
            engine.apply(state, junk)
        assert canonical(engine.to_json(state)) == before
        return
    seat = asked(state)
    legal = [action.id for action in engine.legal_actions(state, seat)]
    for action_id in [junk, *candidates]:
        if action_id in legal:
            continue
        with pytest.raises(engine.IllegalActionError):
            engine.apply(state, action_id, seat)
        assert canonical(engine.to_json(state)) == before
    for other in range(state.players):
        if other != seat:
            with pytest.raises(engine.IllegalActionError):
                engine.apply(state, legal[0], other)
            assert canonical(engine.to_json(state)) == before
    # The state still plays on: the legal action works after the refusals.
    engine.apply(state, legal[0], seat)
    assert canonical(engine.to_json(state)) != before


def assert_finished_and_ranked(state: Any, players: int) -> Any:
    """The game is over and its result ranks every seat from 1; returns the result."""
    assert engine.is_over(state)
    assert engine.decision(state) is None
    result = engine.result(state)
    assert result is not None
    assert len(result.ranks) == players
    assert all(1 <= rank <= players for rank in result.ranks)
    assert 1 in result.ranks
    return result
