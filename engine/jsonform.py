"""Checks shared by both games' ``from_json``: a stored state is data from outside, so every field is checked.

Each check raises :class:`engine.types.StateError` with a message that names the game and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from engine.types import Json, Result, StateError

REASONS = ("win", "turn_cap", "stalled")


def settings(game: str, data: Json, version: int, normalize: Callable[[Any], Json]) -> Json:
    """The settings of a stored state of format ``version``, validated as new games' settings are."""
    if data.get("format") != version:
        raise StateError(f"{game} state: unsupported format {data.get('format')!r}")
    try:
        return normalize(data.get("settings"))
    except ValueError as error:
        raise StateError(f"{game} state: {error}") from None


def integer(game: str, data: Json, key: str, low: int, high: int) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise StateError(f"{game} state: {key!r} must be an integer from {low} to {high}")
    return value


def optional_integer(game: str, data: Json, key: str, low: int, high: int) -> int | None:
    return None if data.get(key) is None else integer(game, data, key, low, high)


def cards(game: str, value: Any, key: str, names: Collection[str]) -> list[str]:
    if not isinstance(value, list) or any(card not in names for card in value):
        raise StateError(f"{game} state: {key!r} must be a list of card names")
    return list(value)


def result(game: str, data: Any, players: int) -> Result:
    if not isinstance(data, dict):
        raise StateError(f"{game} state: 'result' must be an object or null")
    ranks, reason, scores = data.get("ranks"), data.get("reason"), data.get("scores")
    if (
        not isinstance(ranks, list)
        or len(ranks) != players
        or not all(isinstance(r, int) and not isinstance(r, bool) and 1 <= r <= players for r in ranks)
    ):
        raise StateError(f"{game} state: 'result.ranks' must give a rank from 1 to {players} to every seat")
    if reason not in REASONS:
        raise StateError(f"{game} state: 'result.reason' must be one of {', '.join(REASONS)}")
    if scores is not None and (
        not isinstance(scores, list) or len(scores) != players or not all(isinstance(s, int) for s in scores)
    ):
        raise StateError(f"{game} state: 'result.scores' must give every seat an integer")
    return Result(tuple(ranks), reason, tuple(scores) if scores is not None else None)
