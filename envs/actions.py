"""The fixed action spaces of both games: every action id the engine can offer has an index (docs/gym.md).

A learning bot chooses among a fixed number of indices, not among the engine's ids, so each game's ids are laid
out once in a table (:data:`BOARD_IDS`, :data:`CARD_IDS`); :func:`legal_indices` maps the legal actions of a
decision onto it. An index stands for one action id, with two exceptions, where several legal actions share one
index and the index plays the table's own id if it is legal, else the first of them in the engine's order:

- the board game's 7 split among three or more pawns (1992 team play) shares the index of its first two parts'
  pawns and the first part's steps (``7:red0+2,yellow1+5``);
- the card game's tiebreaker choices share the index of their score (``tiebreak:score:<n>``, or
  ``tiebreak:bust``): the engine lists the choices by their number of cards, so the index plays the choice with
  the fewest cards, which beats every other choice of its score (docs/rules.md A5). No outcome is lost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.api import Action
from engine.board.cards import CARDS as BOARD_CARDS
from engine.board.geometry import COLOURS, PAWN_NAMES, PAWNS_PER_COLOUR
from engine.card.cards import ACTIONS, NUMBERS, SLIDES
from engine.card.cards import CARDS as CARD_CARDS

SPLIT_STEPS = range(1, 7)
"""A 7 split's first part: 1 to 6 steps (the second part takes the rest)."""
TIEBREAK_BUST = "tiebreak:bust"
"""The card game's tiebreaker index of a choice over 21 (score -1)."""


def _step(pawn: str, steps: int) -> str:
    return f"{pawn}+{steps}" if steps > 0 else f"{pawn}{steps}"


def _board_ids() -> tuple[str, ...]:
    ids = [f"{card}:start:{colour}" for card in ("1", "2") for colour in COLOURS]
    for card in BOARD_CARDS:
        if card == "sorry":
            continue
        moves = [-4] if card == "4" else [10, -1] if card == "10" else [int(card)]
        ids.extend(f"{card}:{_step(pawn, steps)}" for steps in moves for pawn in PAWN_NAMES)
    ids.extend(
        f"7:{_step(first, steps)},{_step(second, 7 - steps)}"
        for first in PAWN_NAMES
        for steps in SPLIT_STEPS
        for second in PAWN_NAMES
        if second != first
    )
    ids.extend(
        f"11:swap:{PAWN_NAMES[pawn]}:{PAWN_NAMES[target]}"
        for pawn in range(len(PAWN_NAMES))
        for target in range(len(PAWN_NAMES))
        if pawn // PAWNS_PER_COLOUR != target // PAWNS_PER_COLOUR
    )
    ids.append("11:pass")
    ids.extend(f"sorry:{colour}:{target}" for colour in COLOURS for target in PAWN_NAMES)
    ids.extend(f"discard:{card}" for card in BOARD_CARDS)
    return tuple(ids)


def _card_ids() -> tuple[str, ...]:
    ids = [f"play:{card}" for card in (*NUMBERS, *SLIDES, *ACTIONS)]
    ids.extend(f"sorry:{colour}" for colour in COLOURS)
    ids.extend(("steal", "block", "pass"))
    ids.extend(f"discard:{card}" for card in CARD_CARDS)
    ids.append(TIEBREAK_BUST)
    ids.extend(f"tiebreak:score:{score}" for score in range(22))
    return tuple(ids)


BOARD_IDS: tuple[str, ...] = _board_ids()
"""The board game's action space: index ``i`` plays ``BOARD_IDS[i]`` (1,892 indices; docs/gym.md)."""
CARD_IDS: tuple[str, ...] = _card_ids()
"""The card game's action space: index ``i`` plays ``CARD_IDS[i]`` (67 indices; docs/gym.md)."""
ACTION_IDS: dict[str, tuple[str, ...]] = {"board": BOARD_IDS, "card": CARD_IDS}
"""Each game's action space, by game name."""
_INDEX: dict[str, dict[str, int]] = {game: {i: n for n, i in enumerate(ids)} for game, ids in ACTION_IDS.items()}


def action_count(game: str) -> int:
    """The size of a game's action space."""
    return len(ACTION_IDS[game])


def _slot(game: str, action: Action) -> str:
    """The table id that ``action`` is played under (itself, but for shared indices: see the module's doc)."""
    action_id = action.id
    if game == "card":
        if action_id.startswith("tiebreak:"):
            score = action.description["score"]
            return TIEBREAK_BUST if score < 0 else f"tiebreak:score:{score}"
        return action_id
    if action_id.startswith("7:") and action_id.count(",") > 1:
        return ",".join(action_id.split(",")[:2]).rsplit("+", 1)[0] + f"+{7 - _first_steps(action_id)}"
    return action_id


def _first_steps(split_id: str) -> int:
    return int(split_id[2:].split(",", 1)[0].rsplit("+", 1)[1])


def index_of(game: str, action: Action) -> int:
    """The index that plays ``action`` (raises ``KeyError`` for an id outside the game's action space)."""
    return _INDEX[game][_slot(game, action)]


def legal_indices(game: str, actions: Iterable[Action]) -> dict[int, str]:
    """The indices a decision allows, each with the action id it plays (see the module's doc for shared ones)."""
    table = ACTION_IDS[game]
    chosen: dict[int, str] = {}
    for action in actions:
        index = index_of(game, action)
        if index not in chosen or action.id == table[index]:
            chosen[index] = action.id
    return chosen


def ids_of(game: str, indices: Sequence[int]) -> list[str]:
    """The table ids of ``indices`` (for reading a policy's choices)."""
    return [ACTION_IDS[game][index] for index in indices]
