"""A board game state consistent with one seat's view: the hidden cards dealt at random (determinization).

A seat sees the pawns, the card being played, the discards and the size of the draw pile; in the points variant
its own hand and the other hands' sizes. Every other card (the full deck minus what the seat saw) is unseen: it is
shuffled into the other hands and the draw pile. Search bots play such states forward with the game's own rules.
"""

from __future__ import annotations

import random

from engine.board import codec
from engine.board.cards import full_deck
from engine.board.geometry import ABSENT, LOCATION_NAMES, PAWN_NAMES
from engine.board.state import BoardState
from engine.types import Json, StateError

_PAWNS = {name: index for index, name in enumerate(PAWN_NAMES)}
_LOCATIONS = {name: loc for loc, name in LOCATION_NAMES.items()}


def _unseen(seen: list[str]) -> list[str]:
    unseen = full_deck()
    for card in seen:
        if card not in unseen:
            raise StateError(f"board view: more {card!r} cards than the deck holds")
        unseen.remove(card)
    return unseen


def determinize(view: Json, rng: random.Random) -> BoardState:
    """A full state that shows ``view`` to its seat, with unseen cards placed by ``rng``.

    Raises :class:`StateError` for a view that no game could show (it is checked as a stored state would be).
    """
    seat, settings = view.get("seat"), view.get("settings")
    if not isinstance(seat, int) or not isinstance(settings, dict):
        raise StateError("board view: a seat's view (with its 'seat' and 'settings') is needed")
    decision = view.get("decision")
    pawns = [ABSENT] * len(PAWN_NAMES)
    try:
        for name, where in view["pawns"].items():
            pawns[_PAWNS[name]] = _LOCATIONS[where]
        discards = list(view["discards"])
        card = view["card"]
        hand = list(view.get("hand") or [])
        hand_sizes = list(view.get("hand_sizes") or [])
        piles = int(view["draw_pile"])
    except (KeyError, TypeError, ValueError, AttributeError):
        raise StateError("board view: pawns, discards, card and draw_pile are needed") from None
    points = settings.get("variant") == "points"
    unseen = _unseen(discards + hand + ([card] if card else []))
    rng.shuffle(unseen)
    hands: list[list[str]] = []
    if points:
        for other, size in enumerate(hand_sizes):
            hands.append(hand if other == seat else [unseen.pop() for _ in range(size)])
    if len(unseen) != piles:
        raise StateError(f"board view: {len(unseen)} unseen cards cannot be a draw pile of {piles}")
    data = {
        "game": "board",
        "format": codec.FORMAT,
        "settings": settings,
        "seed": rng.getrandbits(62),
        "ply": view.get("ply"),
        "turn": view.get("turn"),
        "seat": decision["seat"] if isinstance(decision, dict) else 0,
        "pawns": pawns,
        "card": card,
        "draw_pile": unseen,
        "discards": discards,
        "hands": hands,
        "shuffles": 1,
        "result": view.get("result"),
    }
    return codec.from_json(data)
