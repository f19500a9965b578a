"""A board game's JSON form and the views of it that players may see (docs/rules.md Part C).

``to_json`` holds everything, the draw pile's order included, and must never reach a player. ``view(state, seat)``
is what that seat may see: the pawns, the card being played, the discards (face up) and the size of the draw
pile; in the points variant its own hand and the other hands' sizes. ``seat=None`` is a spectator's view.
"""

from __future__ import annotations

from engine import jsonform
from engine.board import rules
from engine.board.cards import CARD_COUNTS, CARD_ORDER, full_deck
from engine.board.geometry import ABSENT, COLOURS, HOME, LOCATION_NAMES, PAWN_NAMES, PAWNS_PER_COLOUR
from engine.board.settings import normalize
from engine.board.state import BoardState
from engine.types import Json, StateError

FORMAT = 1


def _decision(state: BoardState) -> Json | None:
    if state.result is not None:
        return None
    return {"seat": state.seat, "kind": state.kind}


def view(state: BoardState, seat: int | None) -> Json:
    pawns = {PAWN_NAMES[pawn]: LOCATION_NAMES[loc] for pawn, loc in enumerate(state.pawns) if loc != ABSENT}
    data: Json = {
        "game": "board",
        "settings": dict(state.settings),
        "seat": seat,
        "colours": [COLOURS[colour] for colour in state.colours],
        "ply": state.ply,
        "turn": state.turn,
        "decision": _decision(state),
        "card": state.card,
        "pawns": pawns,
        "discards": list(state.discards),
        "draw_pile": len(state.draw_pile),
        "result": state.result.to_json() if state.result is not None else None,
    }
    if state.variant == "points":
        data["hand_sizes"] = [len(hand) for hand in state.hands]
        data["hand"] = sorted(state.hands[seat], key=CARD_ORDER.__getitem__) if seat is not None else None
    return data


def to_json(state: BoardState) -> Json:
    return {
        "game": "board",
        "format": FORMAT,
        "settings": dict(state.settings),
        "seed": state.seed,
        "ply": state.ply,
        "turn": state.turn,
        "seat": state.seat,
        "pawns": list(state.pawns),
        "card": state.card,
        "draw_pile": list(state.draw_pile),
        "discards": list(state.discards),
        "hands": [list(hand) for hand in state.hands],
        "shuffles": state.shuffles,
        "result": state.result.to_json() if state.result is not None else None,
    }


def from_json(data: Json) -> BoardState:
    settings = jsonform.settings("board", data, FORMAT, normalize)
    state = BoardState(settings, jsonform.integer("board", data, "seed", 0, 2**63 - 1))
    state.ply = jsonform.integer("board", data, "ply", 0, 2**31)
    state.turn = jsonform.integer("board", data, "turn", 1, settings["turn_cap"])
    state.seat = jsonform.integer("board", data, "seat", 0, state.players - 1)
    state.shuffles = jsonform.integer("board", data, "shuffles", 1, 2**31)
    pawns = data.get("pawns")
    expected = [colour in state.colours for colour in range(4) for _ in range(PAWNS_PER_COLOUR)]
    if (
        not isinstance(pawns, list)
        or len(pawns) != len(expected)
        or any(not isinstance(loc, int) or isinstance(loc, bool) for loc in pawns)
        or any(
            (loc == ABSENT) == playing or not ABSENT <= loc <= HOME
            for loc, playing in zip(pawns, expected, strict=False)
        )
    ):
        raise StateError("board state: 'pawns' must list 16 locations, ABSENT exactly for unplayed colours")
    occupied = [loc for loc in pawns if 0 <= loc < 60]
    if len(occupied) != len(set(occupied)):
        raise StateError("board state: two pawns on one track square")
    state.pawns = list(pawns)
    card = data.get("card")
    if card is not None and card not in CARD_COUNTS:
        raise StateError("board state: 'card' must be a card name or null")
    state.card = card
    state.draw_pile = jsonform.cards("board", data.get("draw_pile"), "draw_pile", CARD_COUNTS)
    state.discards = jsonform.cards("board", data.get("discards"), "discards", CARD_COUNTS)
    hands = data.get("hands")
    if not isinstance(hands, list):
        raise StateError("board state: 'hands' must be a list")
    state.hands = [jsonform.cards("board", hand, "hands", CARD_COUNTS) for hand in hands]
    if len(state.hands) != (state.players if settings["variant"] == "points" else 0):
        raise StateError("board state: 'hands' must hold one hand per seat in the points variant, else none")
    held = state.draw_pile + state.discards + [c for hand in state.hands for c in hand] + ([card] if card else [])
    if sorted(held) != sorted(full_deck()):
        raise StateError("board state: the cards are not exactly one 45-card deck")
    result = data.get("result")
    if result is not None:
        state.result = jsonform.result("board", result, state.players)
    elif not rules.legal(state):
        raise StateError("board state: the seat asked has no legal action")
    return state
