"""A one-ply greedy bot for both games: it scores each offered action from its description alone and plays the
best (ties: the first offered). It wins about four two-player games in five against the random bot
(tests/clients/test_push.py plays 200 of each game).

Board: race progress in steps to HOME (a backward 4 or 10 next to the start circle is a shortcut, and scores as
one), reaching HOME or the safety zone, bumping opponents (their lost progress), leaving START.
Card game: make 21, steal a 21 or block a SORRY! whenever offered; never bust; keep the total below 11 (from 11
an opponent can make 21 with one number card) with the biggest card that does; hit the leader with SORRY!.
"""

from __future__ import annotations

from typing import Any

COLOURS = ("red", "blue", "yellow", "green")


def steps_to_home(colour: int, where: str) -> int:
    """Board: steps still to go (docs/rules.md B1: 15 squares a side; a colour turns into its safety zone at 15k + 2)."""
    zone, _, number = where.partition(":")
    if zone == "start":
        return 65
    if zone == "home":
        return 0
    if zone == "safety":
        return 5 - int(number)
    return (15 * colour + 2 - int(number)) % 60 + 6


def board_value(view: dict[str, Any], action: dict[str, Any]) -> float:
    mine = COLOURS.index(view["colours"][view["seat"]])
    team = {mine, (mine + 2) % 4} if view["settings"].get("variant") == "team" else {mine}
    value = 0.0
    for move in action.get("moves", []):
        colour = COLOURS.index(move["pawn"][:-1])
        gain = steps_to_home(colour, move["from"]) - steps_to_home(colour, move["to"])
        gain += (
            12
            if move["to"] == "home"
            else 5
            if move["to"].startswith("safety") and move["from"] != move["to"]
            else 0
        )
        gain += 6 if move["from"] == "start" else 0
        value += gain if colour in team else -gain
    for bump in action.get("bumps", []):
        colour = COLOURS.index(bump["pawn"][:-1])
        lost = 65 - steps_to_home(colour, bump["from"])
        value += -lost if colour in team else lost
    return value


def card_value(view: dict[str, Any], action: dict[str, Any]) -> float:
    kind = action["kind"]
    if kind in ("steal", "block"):
        return 100.0
    if kind == "tiebreak":
        return float(action["score"]) * 10.0 - len(action["cards"])
    if kind == "sorry":
        return 20.0 + 5.0 * float(view["home"][action["target"]])
    if kind in ("pass", "discard"):
        return 0.0
    total: int | None = action.get("total_after")
    if total is None:  # Take 2, Switch, Play 2 leave the total as it is
        return 3.0 if view["total"] >= 11 else 1.0
    if total == 21:
        return 100.0
    if total > 21:
        return -100.0
    # Below 11 nobody can answer with a 21 from one number card: play the biggest such card (keep small ones).
    return 2.0 + 0.01 * total if total < 11 else -5.0 - 0.01 * total


def choose(request: dict[str, Any]) -> str:
    value = board_value if request["view"]["game"] == "board" else card_value
    return str(max(request["actions"], key=lambda action: value(request["view"], action))["id"])
