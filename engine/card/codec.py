"""A card game's JSON form and the views of it that players may see (docs/rules.md A4 "Public" / "Private").

``to_json`` holds everything (hands, the draw pile's order, secret tiebreaker choices) and must never reach a
player. ``view(state, seat)`` shows the seat its own hand and the public state: the play pile and total, the
direction, every HOME count and hand size, the draw pile's size, the discards, who is asked for what, and which
tied seats have chosen their tiebreaker cards (not the cards). ``seat=None`` is a spectator's view.
"""

from __future__ import annotations

from typing import Any

from engine import jsonform
from engine.card import rules
from engine.card.cards import CARDS, deck_cards
from engine.card.moves import COLOURS, sort_cards
from engine.card.settings import normalize
from engine.card.state import KINDS, CardState
from engine.types import Json, StateError

FORMAT = 1


def view(state: CardState, seat: int | None) -> Json:
    result = state.result
    over = result is not None
    data: Json = {
        "game": "card",
        "settings": state.settings,
        "seat": seat,
        "colours": list(COLOURS[: state.players]),
        "ply": state.ply,
        "turn": state.turn,
        "turn_seat": state.seat,
        "decision": None if over else {"seat": state.asked, "kind": state.kind},
        "direction": state.direction,
        "pile": list(state.pile),
        "total": state.total,
        "home": [state.home_shown(s) for s in range(state.players)],
        "progress": list(state.progress),
        "hand_sizes": [len(hand) for hand in state.hands],
        "draw_pile": len(state.draw_pile),
        "discards": list(state.discards),
        "hand": sort_cards(state.hands[seat]) if seat is not None else None,
        "scorer": state.scorer,
        "thief": state.thief,
        "attacker": state.attacker,
        "play2_left": state.play2_left,
        "tiebreak": {"tied": list(state.tied), "chosen": sorted(state.choices)} if state.tied else None,
        "result": result.to_json() if result is not None else None,
    }
    if not over and seat is not None and seat in state.choices:
        data["tiebreak"]["mine"] = list(state.choices[seat])  # a seat may see its own secret choice
    if over and state.choices:
        data["tiebreak"]["cards"] = {str(tied): cards for tied, cards in state.choices.items()}
    return data


def to_json(state: CardState) -> Json:
    return {
        "game": "card",
        "format": FORMAT,
        "settings": state.settings,
        "seed": state.seed,
        "ply": state.ply,
        "turn": state.turn,
        "seat": state.seat,
        "direction": state.direction,
        "hands": [list(hand) for hand in state.hands],
        "draw_pile": list(state.draw_pile),
        "discards": list(state.discards),
        "pile": list(state.pile),
        "total": state.total,
        "progress": list(state.progress),
        "shuffles": state.shuffles,
        "kind": state.kind,
        "asked": state.asked,
        "play2_left": state.play2_left,
        "scorer": state.scorer,
        "queue": list(state.queue),
        "thief": state.thief,
        "attacker": state.attacker,
        "tied": list(state.tied),
        "choices": {str(seat): list(cards) for seat, cards in state.choices.items()},
        "result": state.result.to_json() if state.result is not None else None,
    }


def _seats(value: Any, key: str, players: int) -> list[int]:
    if not isinstance(value, list) or any(not isinstance(s, int) or not 0 <= s < players for s in value):
        raise StateError(f"card state: {key!r} must be a list of seats")
    return list(value)


def from_json(data: Json) -> CardState:
    settings = jsonform.settings("card", data, FORMAT, normalize)
    state = CardState(settings, jsonform.integer("card", data, "seed", 0, 2**63 - 1))
    last = state.players - 1
    state.ply = jsonform.integer("card", data, "ply", 0, 2**31)
    state.turn = jsonform.integer("card", data, "turn", 1, settings["turn_cap"])
    state.seat = jsonform.integer("card", data, "seat", 0, last)
    state.asked = jsonform.integer("card", data, "asked", 0, last)
    state.shuffles = jsonform.integer("card", data, "shuffles", 1, 2**31)
    state.total = jsonform.integer("card", data, "total", 0, 200)
    state.play2_left = jsonform.integer("card", data, "play2_left", 0, 2)
    state.scorer = jsonform.optional_integer("card", data, "scorer", 0, last)
    state.thief = jsonform.optional_integer("card", data, "thief", 0, last)
    state.attacker = jsonform.optional_integer("card", data, "attacker", 0, last)
    if data.get("direction") not in (1, -1):
        raise StateError("card state: 'direction' must be 1 or -1")
    state.direction = data["direction"]
    if data.get("kind") not in KINDS:
        raise StateError(f"card state: 'kind' must be one of {', '.join(KINDS)}")
    state.kind = data["kind"]
    hands = data.get("hands")
    if not isinstance(hands, list) or len(hands) != state.players:
        raise StateError("card state: 'hands' must hold one hand per seat")
    state.hands = [jsonform.cards("card", hand, "hands", CARDS) for hand in hands]
    state.draw_pile = jsonform.cards("card", data.get("draw_pile"), "draw_pile", CARDS)
    state.discards = jsonform.cards("card", data.get("discards"), "discards", CARDS)
    state.pile = jsonform.cards("card", data.get("pile"), "pile", CARDS)
    progress = data.get("progress")
    if (
        not isinstance(progress, list)
        or len(progress) != state.players
        or any(not isinstance(p, int) or isinstance(p, bool) or not 0 <= p <= state.goal for p in progress)
    ):
        raise StateError(f"card state: 'progress' must give each seat a count from 0 to {state.goal}")
    state.progress = list(progress)
    state.queue = _seats(data.get("queue"), "queue", state.players)
    state.tied = _seats(data.get("tied"), "tied", state.players)
    choices = data.get("choices")
    if not isinstance(choices, dict) or any(not k.isdigit() or int(k) not in state.tied for k in choices):
        raise StateError("card state: 'choices' must map tied seats to cards")
    state.choices = {int(k): jsonform.cards("card", v, "choices", CARDS) for k, v in choices.items()}
    held = state.draw_pile + state.discards + state.pile + [c for hand in state.hands for c in hand]
    if sorted(held) != sorted(deck_cards(settings["deck"])):
        raise StateError("card state: the cards are not exactly the game's deck")
    result = data.get("result")
    if result is not None:
        state.result = jsonform.result("card", result, state.players)
    elif not rules.legal(state):
        raise StateError("card state: the seat asked has no legal action")
    return state
