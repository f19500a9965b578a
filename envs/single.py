"""The Gymnasium environment of one seat: a learner against the engine's bots in the other seats (docs/gym.md).

``SorrySeatEnv("card", seat=0, opponents=("greedy",))`` plays the learner's decisions through ``step`` and every
other seat's with an engine bot (:data:`engine.bots.BOTS`: ``random``, ``greedy``, ``search``), the names repeated
in seat order to fill the other seats. Observations, masks and rewards are the AEC environment's
(:mod:`envs.seats`); :meth:`SorrySeatEnv.action_masks` gives the mask alone, as maskable policies ask for it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from numpy.typing import NDArray

import engine
from engine.api import Json, State
from engine.bots import BOTS
from engine.rng import derived_random
from envs import seats
from envs.actions import action_count

Observation = dict[str, Any]
"""``{"observation": float32 vector, "action_mask": int8 vector}``."""
RENDER_MODES = ("ansi", "human")


class SorrySeatEnv(gymnasium.Env[Observation, np.int64]):
    """One seat (``seat``) of a game of ``game`` with ``settings``; the engine bots ``opponents`` play the others."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012  # Gymnasium's own attribute

    def __init__(
        self,
        game: str = "board",
        settings: Json | None = None,
        seat: int = 0,
        opponents: Sequence[str] = ("random",),
        render_mode: str | None = None,
    ) -> None:
        self.game = game
        self.settings = engine.normalize_settings(game, settings)
        players = self.settings["players"]
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be a seat of the game, 0 to {players - 1}, got {seat!r}")
        unknown = [name for name in opponents if name not in BOTS]
        if not opponents or unknown:
            raise ValueError(f"opponents must name engine bots ({', '.join(BOTS)}), got {list(opponents)!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {render_mode!r}")
        self.seat = seat
        others = [other for other in range(players) if other != seat]
        self.opponents = {other: opponents[i % len(opponents)] for i, other in enumerate(others)}
        self.render_mode = render_mode
        self.observation_space = seats.observation_space(game)
        self.action_space = seats.action_space(game)
        self.state: State = engine.new_game(game, self.settings, 0)
        self._rngs: dict[int, random.Random] = {}
        self._moves: dict[int, str] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Observation, Json]:
        """A new game, its seed drawn from ``seed`` (Gymnasium's ``np_random``); the bots play up to the learner's
        first decision."""
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**62))
        self.state = engine.new_game(self.game, self.settings, game_seed)
        self._rngs = {other: derived_random(game_seed, f"bot{other}") for other in self.opponents}
        return self._advance(), {"seed": game_seed}

    def _advance(self) -> Observation:
        """Let the bots play until the learner is asked or the game is over; the learner's observation then."""
        state = self.state
        while (asked := engine.decision(state)) is not None and asked.seat != self.seat:
            actions = engine.legal_actions(state, asked.seat)
            bot = BOTS[self.opponents[asked.seat]]
            choice = bot(engine.view(state, asked.seat), actions, self._rngs[asked.seat])
            engine.apply(state, choice, asked.seat, events=False)
        self._moves = {} if asked is None else seats.legal_moves(state, self.seat)
        return seats.observe(state, self.seat, self._moves)

    def action_masks(self) -> NDArray[np.int8]:
        """The learner's action mask now (all zeros once the game is over)."""
        mask = np.zeros(action_count(self.game), dtype=np.int8)
        mask[list(self._moves)] = 1
        return mask

    def step(self, action: Any) -> tuple[Observation, SupportsFloat, bool, bool, Json]:
        """Play ``action`` for the learner. An index the mask rules out is a fault, as a tournament treats a bot's
        illegal move: the game's seeded fallback action is played instead and ``info["illegal"]`` is ``True``."""
        if engine.is_over(self.state):
            raise ValueError("the game is over: call reset() to start another")
        action_id = self._moves.get(int(action)) if isinstance(action, int | np.integer) else None
        info: Json = {}
        if action_id is None:
            action_id = engine.fallback_action(self.state)
            info["illegal"] = True
        engine.apply(self.state, action_id, self.seat, events=False)
        observation = self._advance()
        if self.render_mode == "human":
            self.render()
        result = engine.result(self.state)
        if result is None:
            return observation, 0.0, False, False, info
        cut = seats.truncated(result)
        info.update(ranks=list(result.ranks), reason=result.reason)
        return observation, seats.reward(result, self.seat), not cut, cut, info

    def render(self) -> str | None:
        """The table as a spectator sees it: returned (``ansi``) or printed (``human``)."""
        return seats.render(self.state, self.render_mode, "SorrySeatEnv")
