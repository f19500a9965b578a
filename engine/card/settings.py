"""Settings of a card game (docs/rules.md A1, A5): ``players``, ``deck``, ``longer_game``, ``pawns``, ``turn_cap``.

:func:`normalize` validates a settings mapping and fills in the defaults, so a stored game records every setting.
"""

from __future__ import annotations

from typing import Any

from engine.card.cards import CARDS, DEFAULT_DECK
from engine.types import SettingsError

DEFAULTS: dict[str, Any] = {"players": 4, "deck": DEFAULT_DECK, "longer_game": False, "pawns": 4, "turn_cap": 2000}
MAX_PAWNS = 20
MAX_CARDS_PER_KIND = 100
MAX_TURN_CAP = 1_000_000
HAND_SIZE = 5


def _count(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def normalize(settings: dict[str, Any] | None) -> dict[str, Any]:
    if settings is None:
        settings = {}
    if not isinstance(settings, dict):
        raise SettingsError("card settings must be an object")
    unknown = sorted(set(settings) - set(DEFAULTS))
    if unknown:
        raise SettingsError(f"unknown card setting(s) {', '.join(unknown)}; known: {', '.join(DEFAULTS)}")
    merged = {**DEFAULTS, **settings}
    if not _count(merged["players"], 2, 4):
        raise SettingsError(f"players must be 2, 3 or 4, got {merged['players']!r}")
    if not isinstance(merged["longer_game"], bool):
        raise SettingsError(f"longer_game must be true or false, got {merged['longer_game']!r}")
    if not _count(merged["pawns"], 1, MAX_PAWNS):
        raise SettingsError(f"pawns must be an integer from 1 to {MAX_PAWNS}, got {merged['pawns']!r}")
    if not _count(merged["turn_cap"], 1, MAX_TURN_CAP):
        raise SettingsError(f"turn_cap must be an integer from 1 to {MAX_TURN_CAP}, got {merged['turn_cap']!r}")
    deck = merged["deck"]
    if not isinstance(deck, dict):
        raise SettingsError("deck must be an object of card name -> count")
    strange = sorted(set(deck) - set(CARDS))
    if strange:
        raise SettingsError(f"deck: unknown card(s) {', '.join(map(str, strange))}; known: {', '.join(CARDS)}")
    for card, count in deck.items():
        if not _count(count, 0, MAX_CARDS_PER_KIND):
            raise SettingsError(f"deck: the count of {card} must be an integer from 0 to {MAX_CARDS_PER_KIND}")
    full = {card: deck.get(card, 0) for card in CARDS}
    needed = HAND_SIZE * merged["players"] + 1
    if sum(full.values()) < needed:
        raise SettingsError(f"deck: {merged['players']} players need at least {needed} cards")
    merged["deck"] = full
    return merged
