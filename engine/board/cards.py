"""The SORRY! board game deck (docs/rules.md B1): 45 cards, no 6 or 9.

Cards are named by strings: ``"1"`` .. ``"12"`` and ``"sorry"``. ``CARD_STEPS`` gives the forward count of each
numbered card; the special powers (start, backward, split, swap) are applied by :mod:`engine.board.moves`.
"""

from __future__ import annotations

CARD_COUNTS = {
    "1": 5,
    "2": 4,
    "3": 4,
    "4": 4,
    "5": 4,
    "7": 4,
    "8": 4,
    "10": 4,
    "11": 4,
    "12": 4,
    "sorry": 4,
}
CARDS = tuple(CARD_COUNTS)
"""Every card name, in the order the sheet lists them (also the order of a hand's actions)."""
CARD_ORDER = {card: index for index, card in enumerate(CARDS)}


def full_deck() -> list[str]:
    """The 45 cards in a fixed order, before any shuffle."""
    return [card for card, count in CARD_COUNTS.items() for _ in range(count)]
