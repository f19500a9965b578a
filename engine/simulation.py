"""Play many games in-process between engine-level bots and sum up the results (the ``simulate`` command).

Seats rotate from game to game so that every bot sits in every seat equally often; each game's seed is derived
from the simulation's seed, so a simulation is reproducible. Pure: the caller does any printing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import engine
from engine.bots import BOTS
from engine.rng import derived_random


@dataclass
class GameRecord:
    seed: int
    seating: list[str]
    ranks: tuple[int, ...]
    reason: str
    turns: int
    decisions: int


@dataclass
class Summary:
    game: str
    settings: dict[str, Any]
    seed: int
    bots: list[str]
    records: list[GameRecord] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        games = len(self.records)
        decisions = sum(record.decisions for record in self.records)
        by_bot: dict[str, dict[str, float]] = {}
        for name in dict.fromkeys(self.bots):
            seats = [(r, seat) for r in self.records for seat, bot in enumerate(r.seating) if bot == name]
            wins = sum(1 for r, seat in seats if r.ranks[seat] == 1)
            by_bot[name] = {
                "seats_played": len(seats),
                "wins": wins,
                "win_rate": wins / len(seats) if seats else 0.0,
                "mean_rank": sum(r.ranks[seat] for r, seat in seats) / len(seats) if seats else 0.0,
            }
        players = len(self.records[0].ranks) if self.records else 0
        return {
            "game": self.game,
            "settings": self.settings,
            "seed": self.seed,
            "games": games,
            "wins_by_bot": by_bot,
            "wins_by_seat": [sum(1 for r in self.records if r.ranks[seat] == 1) for seat in range(players)],
            "turn_capped": sum(1 for r in self.records if r.reason == "turn_cap"),
            "mean_turns": sum(r.turns for r in self.records) / games if games else 0.0,
            "mean_decisions": decisions / games if games else 0.0,
            "seconds": round(self.seconds, 3),
            "games_per_second": games / self.seconds if self.seconds else 0.0,
            "decisions_per_second": decisions / self.seconds if self.seconds else 0.0,
        }


def seating(bots: list[str], players: int, game_index: int) -> list[str]:
    """The bots in seat order for one game: the list repeated to fill the seats, rotated by the game index."""
    filled = [bots[i % len(bots)] for i in range(players)]
    shift = game_index % players
    return filled[shift:] + filled[:shift]


def play_game(game: str, settings: dict[str, Any], seed: int, bots: list[str]) -> GameRecord:
    """One complete game; ``bots[seat]`` names the bot of each seat."""
    state = engine.new_game(game, settings, seed)
    players = [BOTS[name] for name in bots]
    rngs = [derived_random(seed, f"bot{seat}") for seat in range(len(bots))]
    decisions = 0
    while (asked := engine.decision(state)) is not None:
        seat = asked.seat
        actions = engine.legal_actions(state, seat)
        choice = (
            players[seat](engine.view(state, seat), actions, rngs[seat]) if len(actions) > 1 else actions[0].id
        )
        engine.apply(state, choice, seat)
        decisions += 1
    result = engine.result(state)
    assert result is not None
    return GameRecord(seed, bots, result.ranks, result.reason, state.turn, decisions)


def simulate(
    game: str,
    settings: dict[str, Any],
    games: int,
    seed: int,
    bots: list[str],
    on_game: Callable[[GameRecord], None] | None = None,
) -> Summary:
    settings = engine.normalize_settings(game, settings)
    unknown = [name for name in bots if name not in BOTS]
    if unknown:
        raise engine.SettingsError(f"unknown bot(s) {', '.join(unknown)}; known: {', '.join(BOTS)}")
    summary = Summary(game, settings, seed, bots)
    players: int = settings["players"]
    started = time.perf_counter()
    for index in range(games):
        game_seed = derived_random(seed, "game", index).getrandbits(62)
        record = play_game(game, settings, game_seed, seating(bots, players, index))
        summary.records.append(record)
        if on_game is not None:
            on_game(record)
    summary.seconds = time.perf_counter() - started
    return summary
