"""What both environments show a seat: its observation and action mask, its reward, and the table as text.

The observation is built from the seat's view alone (:mod:`envs.observations`), the mask from the engine's legal
actions (:mod:`envs.actions`); the reward is +1 for a seat ranked first (every winner: a team's two seats, a shared
tiebreaker win, the leader when the turn cap ends the game) and -1 for every other seat, given once, when the game
ends.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from numpy.typing import NDArray

import engine
from engine.api import Json, Result, State
from envs.actions import action_count, legal_indices
from envs.observations import OBSERVERS, SIZES

HIGHEST = 2000.0
"""No value of an observation exceeds this: the largest is a count of cards (at most 20 kinds x 100)."""
WIN, LOSS = 1.0, -1.0


def observation_space(game: str) -> gymnasium.spaces.Dict:
    """``{"observation": float32 vector, "action_mask": int8 vector}`` of the game's fixed sizes."""
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(-1.0, HIGHEST, (SIZES[game],), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (action_count(game),), np.int8),
        }
    )


def action_space(game: str) -> gymnasium.spaces.Discrete:
    return gymnasium.spaces.Discrete(action_count(game))


def legal_moves(state: State, seat: int) -> dict[int, str]:
    """The indices ``seat`` may play now, each with the engine's action id it plays (none unless it is asked)."""
    return legal_indices(state.game, engine.legal_actions(state, seat))


def observe(state: State, seat: int, moves: dict[int, str] | None = None) -> dict[str, NDArray[Any]]:
    """The seat's observation and action mask (``moves``: :func:`legal_moves`, when the caller has them)."""
    game = state.game
    mask = np.zeros(action_count(game), dtype=np.int8)
    mask[list(legal_moves(state, seat) if moves is None else moves)] = 1
    return {"observation": OBSERVERS[game](engine.view(state, seat)), "action_mask": mask}


def reward(result: Result, seat: int) -> float:
    """+1 for a seat ranked first, -1 for the others."""
    return WIN if result.ranks[seat] == 1 else LOSS


def truncated(result: Result) -> bool:
    """Whether the turn cap ended the game (a truncation: the ranking is the leaders', not a finish)."""
    return result.reason == "turn_cap"


def render(state: State, mode: str | None, name: str) -> str | None:
    """An environment's ``render()``: the table as a spectator sees it, returned (``ansi``) or printed (``human``);
    without a mode, a warning naming how to ask for one (``name``: the environment's class)."""
    if mode is None:
        gymnasium.logger.warn(f"render() without a render_mode: {name}(..., render_mode='ansi')")
        return None
    text = render_text(state)
    if mode == "human":
        print(text)
        return None
    return text


def render_text(state: State) -> str:
    """The table as a spectator sees it (public information only): a few lines of text."""
    view = engine.view(state, None)
    lines = [f"{view['game']} game, turn {view['turn']}, ply {view['ply']}"]
    if view["game"] == "board":
        lines.extend(_board_lines(view))
    else:
        lines.extend(_card_lines(view))
    decision, result = view["decision"], view["result"]
    if result is not None:
        lines.append(f"over ({result['reason']}): ranks {result['ranks']}")
    elif decision is not None:
        lines.append(f"seat {decision['seat']} to {decision['kind']}")
    return "\n".join(lines)


def _board_lines(view: Json) -> list[str]:
    lines = []
    for seat, colour in enumerate(view["colours"]):
        places = [place for pawn, place in view["pawns"].items() if pawn.startswith(colour)]
        lines.append(f"seat {seat} ({colour}): {', '.join(places)}")
    lines.append(f"card: {view['card']}; draw pile: {view['draw_pile']}")
    return lines


def _card_lines(view: Json) -> list[str]:
    lines = [
        f"seat {seat} ({colour}): HOME {view['home'][seat]}, {view['hand_sizes'][seat]} cards"
        for seat, colour in enumerate(view["colours"])
    ]
    lines.append(f"pile: {' '.join(view['pile']) or '-'} (total {view['total']}); draw pile: {view['draw_pile']}")
    return lines
