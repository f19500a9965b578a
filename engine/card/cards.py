"""The cards of the SORRY! Card Game and the default deck (docs/rules.md A1: per-card counts are *assumed*).

Cards are named by strings: number cards ``"0"`` .. ``"10"``; ``"slide10"``, ``"slide15"``, ``"slide21"``;
``"take2"``, ``"switch"``, ``"play2"``; ``"sorry"`` (on your turn: flip an opponent's pawn back to START),
``"steal"`` (the out-of-turn SORRY! that steals a 21) and ``"block"`` (Don't Be SORRY!). Pawn cards are not in the
deck: they are each player's HOME count.
"""

from __future__ import annotations

NUMBERS = tuple(str(value) for value in range(11))
SLIDES = {"slide10": 10, "slide15": 15, "slide21": 21}
ACTIONS = ("take2", "switch", "play2")
SORRY_CARDS = ("sorry", "steal", "block")
CARDS = NUMBERS + tuple(SLIDES) + ACTIONS + SORRY_CARDS
"""Every card name, in a fixed order (the order of a hand in views and of actions)."""
CARD_ORDER = {card: index for index, card in enumerate(CARDS)}
NUMBER_VALUES = {card: int(card) for card in NUMBERS}

DEFAULT_DECK = {
    "0": 4,
    **{str(value): 6 for value in range(1, 6)},
    **{str(value): 5 for value in range(6, 11)},
    "slide10": 3,
    "slide15": 3,
    "slide21": 2,
    "take2": 6,
    "switch": 6,
    "play2": 6,
    "sorry": 3,
    "steal": 2,
    "block": 3,
}
"""The assumed default deck (A1): 59 number cards, 26 yellow action cards, 8 SORRY! cards; 93 in all."""


def deck_cards(counts: dict[str, int]) -> list[str]:
    """The cards of a deck in a fixed order, before any shuffle."""
    return [card for card in CARDS for _ in range(counts.get(card, 0))]
