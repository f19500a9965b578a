"""The PettingZoo AEC environment of both games: every seat a learning agent (docs/gym.md).

``SorryEnv("board", {"variant": "team"})`` plays one engine game per episode. The agent to act is the seat the
engine asks (the card game asks seats out of turn, for its steal and block windows and its tiebreaker), so
``agent_selection`` follows :func:`engine.api.decision`. Each agent observes its own seat's view and an action mask
over the game's fixed action space (:mod:`envs.seats`); the rewards (+1 rank first, -1 the others) come once, when
the game ends: a game the rules finish terminates, one the turn cap ends is truncated.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
from numpy.typing import NDArray
from pettingzoo import AECEnv

import engine
from engine.api import Json, State
from envs import seats

RENDER_MODES = ("ansi", "human")


class SorryEnv(AECEnv[str, dict[str, NDArray[Any]], int]):
    """One game of ``game`` (``"board"`` or ``"card"``) with the engine's ``settings`` (any the engine accepts:
    :func:`engine.api.normalize_settings`); agents ``player_0`` .. ``player_<n-1>`` are the seats."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "sorry_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(self, game: str = "board", settings: Json | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {render_mode!r}")
        self.game = game
        self.settings = engine.normalize_settings(game, settings)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.settings["players"])]
        self.seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {agent: seats.observation_space(game) for agent in self.possible_agents}
        self.action_spaces = {agent: seats.action_space(game) for agent in self.possible_agents}
        self._seeds = random.Random()
        self.state: State = engine.new_game(game, self.settings, 0)
        self._moves: dict[int, str] = {}

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: of seed ``seed`` (``engine.new_game(game, settings, seed)``), or a fresh one drawn from the
        last seed given."""
        if seed is not None:
            self._seeds.seed(seed)
        game_seed = seed if seed is not None else self._seeds.getrandbits(62)
        self.state = engine.new_game(self.game, self.settings, game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]
        self._next()  # a board game may end before its first decision: cards that move nothing, to the turn cap
        self._accumulate_rewards()

    def _next(self) -> None:
        """Select the agent the engine asks now, or end the episode for every agent once the game is over."""
        asked = engine.decision(self.state)
        if asked is not None:
            self.agent_selection = self.possible_agents[asked.seat]
            self._moves = seats.legal_moves(self.state, asked.seat)
            return
        result = engine.result(self.state)
        assert result is not None  # no decision: the game is over
        self._moves = {}
        cut = seats.truncated(result)
        for seat, name in enumerate(self.possible_agents):
            self.rewards[name] = seats.reward(result, seat)
            self.terminations[name] = not cut
            self.truncations[name] = cut
            self.infos[name] = {"ranks": list(result.ranks), "reason": result.reason}

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        seat = self.seat_of[agent]
        asked = agent == self.agent_selection and not engine.is_over(self.state)
        return seats.observe(self.state, seat, self._moves if asked else {})

    def action_id(self, action: int) -> str:
        """The engine's action id that ``action`` plays for the agent to act now (``ValueError`` if masked out)."""
        try:
            return self._moves[int(action)]
        except (KeyError, TypeError, ValueError):
            raise ValueError(
                f"action {action!r} is not legal for {self.agent_selection} now; legal: {sorted(self._moves)}"
            ) from None

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is the action of an agent whose game is over")
        engine.apply(self.state, self.action_id(action), events=False)
        self._cumulative_rewards[agent] = 0.0
        self._next()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table as a spectator sees it: returned (``ansi``) or printed (``human``)."""
        return seats.render(self.state, self.render_mode, "SorryEnv")

    def close(self) -> None:
        """Nothing to release: a game is a Python object."""


def env(game: str = "board", settings: Json | None = None, render_mode: str | None = None) -> SorryEnv:
    """PettingZoo's conventional constructor: a :class:`SorryEnv`."""
    return SorryEnv(game, settings, render_mode)
