"""Settings of a board game (docs/rules.md B2-B5): ``variant``, ``edition``, ``players`` and ``turn_cap``.

Every setting has a default; :func:`normalize` validates a settings mapping and fills in the defaults, so that a
stored game records every setting it was played with.
"""

from __future__ import annotations

from typing import Any

from engine.types import SettingsError

VARIANTS = ("standard", "team", "points")
EDITIONS = ("1992", "1972")
DEFAULTS: dict[str, Any] = {"variant": "standard", "edition": "1992", "players": 4, "turn_cap": 2000}
MAX_TURN_CAP = 1_000_000


def normalize(settings: dict[str, Any] | None) -> dict[str, Any]:
    if settings is None:
        settings = {}
    if not isinstance(settings, dict):
        raise SettingsError("board settings must be an object")
    unknown = sorted(set(settings) - set(DEFAULTS))
    if unknown:
        raise SettingsError(f"unknown board setting(s) {', '.join(unknown)}; known: {', '.join(DEFAULTS)}")
    merged = {**DEFAULTS, **settings}
    if merged["variant"] not in VARIANTS:
        raise SettingsError(f"variant must be one of {', '.join(VARIANTS)}, got {merged['variant']!r}")
    edition = merged["edition"]
    if isinstance(edition, int) and not isinstance(edition, bool):
        edition = str(edition)
    if edition not in EDITIONS:
        raise SettingsError(f"edition must be one of {', '.join(EDITIONS)}, got {merged['edition']!r}")
    merged["edition"] = edition
    players = merged["players"]
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
        raise SettingsError(f"players must be 2, 3 or 4, got {players!r}")
    if merged["variant"] == "team" and players != 4:
        raise SettingsError(f"the team variant needs exactly 4 players, got {players}")
    cap = merged["turn_cap"]
    if not isinstance(cap, int) or isinstance(cap, bool) or not 1 <= cap <= MAX_TURN_CAP:
        raise SettingsError(f"turn_cap must be an integer from 1 to {MAX_TURN_CAP}, got {cap!r}")
    return merged
