"""The greedy bot: the action with the best one-ply value, ties broken at random; the search bot plays it in its
continuations (:mod:`engine.search`).

Board: how much an action improves the seat's (team's) race against the others, in steps, bumps included. Card
game: make 21, take a 21, block, hit the leader with SORRY!; never bust; keep totals safe.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.api import Action, Json
from engine.board.geometry import COLOUR_INDEX, HOME, PARTNER, START, parse_location, steps_to_home


def _board_value(view: Json, action: Action) -> float:
    """How much ``action`` improves the seat's (team's) race against the others, in steps."""
    mine = COLOUR_INDEX[view["colours"][view["seat"]]]
    team = {mine, PARTNER[mine]} if view["settings"]["variant"] == "team" else {mine}
    value = 0.0
    description = action.description
    for part in description["moves"]:
        colour = COLOUR_INDEX[part["pawn"][:-1]]
        before = parse_location(part["from"])
        after = parse_location(part["to"])
        gain = steps_to_home(colour, before) - steps_to_home(colour, after)
        if after == HOME:
            gain += 10
        elif after >= 60:
            gain += 4  # safe from bumps and swaps
        value += gain if colour in team else -gain
    for bump in description["bumps"]:
        colour = COLOUR_INDEX[bump["pawn"][:-1]]
        lost = steps_to_home(colour, START) - steps_to_home(colour, parse_location(bump["from"]))
        value += -lost if colour in team else lost
    return value


def _card_value(view: Json, action: Action) -> float:
    """Card game: make 21, take a 21, block, hit the leader with SORRY!; never bust; keep totals safe."""
    description = action.description
    kind = description["kind"]
    if kind in ("steal", "block"):
        return 100.0
    if kind == "tiebreak":
        return float(description["score"]) * 10.0 - len(description["cards"])
    if kind == "sorry":
        return 20.0 + 5.0 * float(view["home"][description["target"]])
    if kind == "pass" or kind == "discard":
        return 0.0
    total: int | None = description.get("total_after")
    if total is None:  # Take 2, Switch, Play 2: no change to the total
        return 3.0 if view["total"] >= 11 else 1.0
    if total == 21:
        return 100.0
    if total > 21:
        return -100.0
    # a total of 11 to 20 lets the next player make 21 with one number card
    return (2.0 if total < 11 else -5.0) - 0.01 * total


VALUES: dict[str, Callable[[Json, Action], float]] = {"board": _board_value, "card": _card_value}


def greedy_bot(view: Json, actions: list[Action], rng: random.Random) -> str:
    """The action with the best one-ply value; ties broken at random."""
    value = VALUES[view["game"]]
    scored = [(value(view, action), action.id) for action in actions]
    best = max(score for score, _ in scored)
    return rng.choice([action_id for score, action_id in scored if score == best])
