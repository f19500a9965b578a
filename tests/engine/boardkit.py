"""Helpers for board-game rule tables: build a position from readable pawn locations and a card.

``position({"red0": "track:7", "blue1": "track:12"}, card="7")`` is a 4-player standard game in which every pawn
not named is in START, seat 0 (red) is asked and has drawn a 7. The cards are re-dealt so that the state is still
one valid 45-card deck (``engine.to_json`` / ``from_json`` accept it).
"""

from __future__ import annotations

from typing import Any

import engine
from engine.board.cards import full_deck
from engine.board.geometry import ABSENT, START, location_name, parse_location, parse_pawn, pawn_name
from engine.board.state import BoardState


def position(
    pawns: dict[str, str],
    card: str | None = None,
    *,
    seat: int = 0,
    players: int = 4,
    variant: str = "standard",
    edition: str = "1992",
    hand: list[str] | None = None,
    seed: int = 0,
) -> BoardState:
    state: BoardState = engine.new_game(
        "board", {"players": players, "variant": variant, "edition": edition}, seed=seed
    )
    state.pawns = [START if loc != ABSENT else ABSENT for loc in state.pawns]
    for name, where in pawns.items():
        pawn = parse_pawn(name)
        if state.pawns[pawn] == ABSENT:
            raise ValueError(f"{name} is not in a {players}-player game")
        state.pawns[pawn] = parse_location(where)
    deck = full_deck()
    state.seat = seat
    state.card = None
    if variant == "points":
        state.hands = [[] for _ in range(players)]
        state.hands[seat] = list(hand or [])
        for held in state.hands[seat]:
            deck.remove(held)
        for other in range(players):
            if other != seat:
                state.hands[other] = [deck.pop() for _ in range(5)]
    else:
        assert card is not None, "standard and team positions need the drawn card"
        deck.remove(card)
        state.card = card
    state.draw_pile = deck
    state.discards = []
    state._actions = None
    return state


def action_ids(state: BoardState) -> set[str]:
    return {action.id for action in engine.legal_actions(state, state.seat)}


def pawns_after(state: BoardState, action_id: str) -> dict[str, str]:
    """Every pawn's location (non-START only) after ``action_id``, on a copy of ``state``."""
    copy = engine.from_json(engine.to_json(state))
    engine.apply(copy, action_id)
    return placed(copy)


def placed(state: BoardState) -> dict[str, str]:
    return {pawn_name(p): location_name(loc) for p, loc in enumerate(state.pawns) if loc not in (START, ABSENT)}


def outcomes(state: BoardState) -> dict[str, dict[str, str]]:
    """Each legal action id with the pawns (not in START) after it."""
    return {action_id: pawns_after(state, action_id) for action_id in sorted(action_ids(state))}


def describe(state: BoardState) -> dict[str, Any]:
    return {action.id: action.description for action in engine.legal_actions(state, state.seat)}
