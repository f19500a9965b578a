"""Self-play data: games between engine bots, one row per decision (``sorry-arena selfplay``, docs/gym.md).

A row holds what the seat saw and did: its view (:func:`engine.api.view`, the seat's own: hidden information stays
hidden), its legal action ids, the action it took, and the game's final result, filled in once the game ends. The
games are driven on the engine directly, at its own speed (no environment between): each game's seed, the bots'
seating and each bot's generator are those of ``sorry-arena simulate`` (:mod:`engine.simulation`, whose table the
engine's game loop plays here too), so the same flags play the same games. A decision with one legal action is recorded too, though no bot is asked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import engine
from engine.api import Json, State
from engine.bots import BOTS
from engine.gameloop import Answer, play_out
from engine.simulation import EngineTable, check_bots, engine_choice, game_seed, seating

Row = dict[str, Any]
FIELDS = ("game", "seed", "ply", "seat", "bot", "kind", "view", "legal", "action", "rank", "ranks", "reason")
"""A row's fields, in order: the game's number in the run and its seed; the decision's ply, seat, the seat's bot
and the kind of decision; the seat's view, its legal action ids and the one taken; the seat's final rank (1 is
best), every seat's ranks and why the game ended (``win``, ``turn_cap``, ``stalled``)."""


class RecordingTable(EngineTable):
    """A game between engine bots (``engine.simulation.EngineTable``, played by the engine's game loop,
    ``engine.gameloop.play_out``) that keeps a row of every decision, its result not yet filled in."""

    def __init__(self, state: State, names: list[str], seed: int, index: int) -> None:
        super().__init__(state, [BOTS[name] for name in names], seed)
        self.names, self.seed, self.index = names, seed, index
        self.rows: list[Row] = []

    def ask(self, seat: int, kind: str) -> Answer:
        state = self.state
        actions = engine.legal_actions(state, seat)
        seen = engine.view(state, seat)
        choice = engine_choice(self.bots[seat], state, seat, actions, self.rngs[seat], seen)
        self.rows.append(
            {
                "game": self.index,
                "seed": self.seed,
                "ply": state.ply,
                "seat": seat,
                "bot": self.names[seat],
                "kind": kind,
                "view": seen,
                "legal": [action.id for action in actions],
                "action": choice,
            }
        )
        return Answer(choice, None, None)


def play_game(game: str, settings: Json, seed: int, bots: list[str], index: int = 0) -> list[Row]:
    """One game between the engine bots ``bots`` (in seat order): its decisions' rows, results filled in."""
    table = RecordingTable(engine.new_game(game, settings, seed), bots, seed, index)
    play_out(table)
    result = engine.result(table.state)
    assert result is not None  # the loop ends with the game
    ranks, reason = list(result.ranks), result.reason
    for row in table.rows:
        row["rank"] = ranks[row["seat"]]
        row["ranks"] = ranks
        row["reason"] = reason
    return table.rows


def selfplay(game: str, settings: Json | None, games: int, seed: int, bots: list[str]) -> Iterator[list[Row]]:
    """``games`` games' rows, a game at a time. Raises :class:`engine.SettingsError` for bad settings or a name
    that is no engine bot."""
    settings = engine.normalize_settings(game, settings)
    check_bots(bots)
    players: int = settings["players"]
    for index in range(games):
        yield play_game(game, settings, game_seed(seed, index), seating(bots, players, index), index)
