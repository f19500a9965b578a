"""Rewrite ``tests/engine/perft/board_counts.txt`` from the positions of ``tests/engine/perft/board.json`` (like
chess perft files).

Run ``python3 -m tests.engine.perft.generate`` from the repository root. Each position (see
``tests/engine/boardkit.py`` for how one is built) gets one line per card in standard and team play, or one line
for its hand in the points variant::

    <position name> <card> <count of legal actions>
    <position name> hand <count of legal actions>

Positions that list ``depth2`` cards also get a depth-2 line per such card::

    <position name> <card> depth2 <sum over every legal action of the legal actions of the next decision>

The draw pile of a position is one deck minus the cards in play, in ``full_deck()`` order (top = last card), or,
with ``draw_seed``, shuffled by ``engine.rng.shuffled(pile, draw_seed, "perft", 0)``: the next draw is fixed, so the
depth-2 figure is deterministic. The counts are the engine's; tests/engine/perft/README.md checks some of them by
hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine
from engine.board.cards import CARDS
from engine.board.geometry import ABSENT, SAFETY, START, TRACK
from engine.board.state import BoardState
from engine.rng import shuffled
from tests.engine.boardkit import position

HERE = Path(__file__).resolve().parent
POSITIONS = HERE / "board.json"
COUNTS = HERE / "board_counts.txt"


def load_positions() -> list[dict[str, Any]]:
    positions: list[dict[str, Any]] = json.loads(POSITIONS.read_text())
    return positions


def build(entry: dict[str, Any], card: str | None = None) -> BoardState:
    """The position ``entry`` with ``card`` drawn (standard and team play) or with its hand (points)."""
    settings = entry["settings"]
    points = settings["variant"] == "points"
    state = position(
        entry["pawns"],
        None if points else card,
        seat=entry["seat"],
        players=settings["players"],
        variant=settings["variant"],
        edition=settings["edition"],
        hand=entry.get("hand"),
    )
    if "draw_seed" in entry:
        state.draw_pile = shuffled(state.draw_pile, entry["draw_seed"], "perft", 0)
    _check_sound(entry["name"], state)
    return state


def _check_sound(name: str, state: BoardState) -> None:
    """A position file error (two pawns on one square, a pawn of a colour nobody plays) fails loudly."""
    track = [loc for loc in state.pawns if 0 <= loc < TRACK]
    assert len(track) == len(set(track)), f"{name}: two pawns on one track square"
    for colour in range(4):
        own = state.pawns[4 * colour : 4 * colour + 4]
        safety = [loc for loc in own if SAFETY <= loc < SAFETY + 5]
        assert len(safety) == len(set(safety)), f"{name}: two pawns of a colour on one safety square"
        assert (ABSENT in own) == (colour not in state.colours), f"{name}: pawns of an unplayed colour"
    assert all(loc == ABSENT or START <= loc for loc in state.pawns)


def cards_of(entry: dict[str, Any]) -> list[str]:
    return ["hand"] if entry["settings"]["variant"] == "points" else list(CARDS)


def count(entry: dict[str, Any], card: str) -> int:
    state = build(entry, None if card == "hand" else card)
    return len(engine.legal_actions(state, entry["seat"]))


def depth2(entry: dict[str, Any], card: str) -> int:
    """The legal actions of the next decision (0 once the game is over), summed over every legal action."""
    state = build(entry, None if card == "hand" else card)
    total = 0
    for action in engine.legal_actions(state, entry["seat"]):
        after = _copy(state)
        engine.apply(after, action.id, entry["seat"])
        asked = engine.decision(after)
        if asked is not None:
            total += len(engine.legal_actions(after, asked.seat))
    return total


def _copy(state: BoardState) -> BoardState:
    """A copy that shares the (immutable) cached legal actions, so that a 7 split is not generated again."""
    copy = BoardState(state.settings, state.seed)
    for name in BoardState.__slots__:
        value = getattr(state, name)
        if isinstance(value, list) and name != "_actions":
            value = [list(item) if isinstance(item, list) else item for item in value]
        setattr(copy, name, value)
    return copy


def lines() -> list[str]:
    out = []
    for entry in load_positions():
        for card in cards_of(entry):
            out.append(f"{entry['name']} {card} {count(entry, card)}")
        for card in entry.get("depth2", []):
            out.append(f"{entry['name']} {card} depth2 {depth2(entry, card)}")
    return out


def main() -> None:
    text = "\n".join(lines()) + "\n"
    COUNTS.write_text(text)
    print(f"wrote {text.count(chr(10))} lines to {COUNTS}")


if __name__ == "__main__":
    main()
