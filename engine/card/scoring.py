"""How a card game ranks its seats (docs/rules.md A5, Part C): the winners first, then by HOME count.

Tied players beaten in the tiebreaker rank after its winners, by their tiebreaker score then fewer cards. A game
stopped by the turn cap ranks every seat by its progress: its HOME count, and in the longer game the progress
0 .. 2 * pawns that the HOME count shown on the table only partly tells (docs/rules.md A5).
"""

from __future__ import annotations

from engine.card.moves import tiebreak_score
from engine.card.state import CardState
from engine.ruleset import ranks_from_keys
from engine.types import Result


def final_result(state: CardState, winners: list[int] | None, reason: str = "turn_cap") -> Result:
    """The ranking; ``reason`` says why a game without winners ended (``turn_cap`` or ``stalled``)."""
    keys = []
    for seat in range(state.players):
        cards = state.choices.get(seat)
        tiebreak = (tiebreak_score(cards), -len(cards)) if cards is not None else (-2, 0)
        keys.append((winners is not None and seat in winners, state.progress[seat], tiebreak))
    return Result(ranks_from_keys(keys), "win" if winners else reason)
