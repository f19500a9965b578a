"""Play many games between bots and sum up the results (the ``simulate`` command).

Seats rotate from game to game so that every bot sits in every seat equally often; each game's seed is derived
from the simulation's seed, so a simulation is reproducible. :func:`play_game` plays a game between engine-level
bots (:mod:`engine.bots`) alone, as fast as the engine goes, through the game loop every runner shares
(:mod:`engine.gameloop`); a game with a bot author's own bot (a Python file or a
URL) is played by ``cli/simulate_play.py``, which gives the same :class:`GameRecord`. :class:`Summary` adds the
records up as they come and keeps none of them: per bot its wins with their 95% Wilson interval, mean rank,
faults, forfeits and answer times. Pure but for :func:`simulate`'s timer: the caller does any printing.
"""

from __future__ import annotations

import math
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import engine
from engine.api import Action, Json, State
from engine.bots import BOTS, Bot
from engine.gameloop import Answer, FaultCount, play_out
from engine.rng import derived_random

Move = tuple[int, str, float | None, str | None]
"""One move of a game, in ply order: ``(seat, action id, latency_ms, fault)``; an engine-level bot's move has no
latency and no fault."""

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


@dataclass
class GameRecord:
    seed: int
    seating: list[str]
    ranks: tuple[int, ...]
    """1 is best; with forfeits applied (a forfeiting seat ranked last)."""
    reason: str
    turns: int
    decisions: int
    moves: list[Move] = field(default_factory=list)
    faults: tuple[int, ...] = ()
    """Faults per seat (empty: none could fault)."""
    forfeited: tuple[int, ...] = ()
    """The seats that forfeited."""


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion, ``successes`` out of ``trials`` (95% by default); ``(0, 1)``
    without trials."""
    if trials <= 0:
        return 0.0, 1.0
    share = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (share + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: array[float], share: float) -> float:
    """The nearest-rank percentile (``share`` 0.95: p95) of non-empty ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


@dataclass
class BotTally:
    """One bot's results so far."""

    games: int = 0
    seats: int = 0
    wins: int = 0
    rank_sum: int = 0
    faults: int = 0
    forfeits: int = 0
    latencies: array[float] = field(default_factory=lambda: array("d"))

    def to_json(self) -> dict[str, Any]:
        low, high = wilson_interval(self.wins, self.seats)
        latency = None
        if self.latencies:
            latency = {
                "answers": len(self.latencies),
                "mean": round(sum(self.latencies) / len(self.latencies), 3),
                "p95": round(percentile(self.latencies, 0.95), 3),
                "max": round(max(self.latencies), 3),
            }
        return {
            "games": self.games,
            "seats_played": self.seats,
            "wins": self.wins,
            "win_rate": self.wins / self.seats if self.seats else 0.0,
            "win_interval": [round(low, 4), round(high, 4)],
            "mean_rank": self.rank_sum / self.seats if self.seats else 0.0,
            "faults": self.faults,
            "forfeits": self.forfeits,
            "latency_ms": latency,
        }


@dataclass
class Summary:
    """The results of a simulation, added up game by game (:meth:`add`)."""

    game: str
    settings: dict[str, Any]
    seed: int
    bots: list[str]
    games: int = 0
    seconds: float = 0.0
    tallies: dict[str, BotTally] = field(init=False)
    wins_by_seat: list[int] = field(init=False)
    turn_capped: int = 0
    turns: int = 0
    decisions: int = 0

    def __post_init__(self) -> None:
        self.tallies = {name: BotTally() for name in self.bots}
        self.wins_by_seat = [0] * int(self.settings.get("players", 0))

    def add(self, record: GameRecord) -> None:
        self.games += 1
        self.turns += record.turns
        self.decisions += record.decisions
        self.turn_capped += record.reason == "turn_cap"
        for name in dict.fromkeys(record.seating):
            self.tallies[name].games += 1
        for seat, name in enumerate(record.seating):
            tally = self.tallies[name]
            tally.seats += 1
            tally.rank_sum += record.ranks[seat]
            if record.ranks[seat] == 1:
                tally.wins += 1
                self.wins_by_seat[seat] += 1
            if record.faults:
                tally.faults += record.faults[seat]
            tally.forfeits += seat in record.forfeited
        for seat, _, latency, fault in record.moves:
            if latency is not None and fault != "forfeit":
                self.tallies[record.seating[seat]].latencies.append(latency)

    def to_json(self) -> dict[str, Any]:
        games = self.games
        return {
            "game": self.game,
            "settings": self.settings,
            "seed": self.seed,
            "games": games,
            "wins_by_bot": {name: tally.to_json() for name, tally in self.tallies.items()},
            "wins_by_seat": list(self.wins_by_seat),
            "turn_capped": self.turn_capped,
            "mean_turns": self.turns / games if games else 0.0,
            "mean_decisions": self.decisions / games if games else 0.0,
            "seconds": round(self.seconds, 3),
            "games_per_second": games / self.seconds if self.seconds else 0.0,
            "decisions_per_second": self.decisions / self.seconds if self.seconds else 0.0,
        }


def seating(bots: list[str], players: int, game_index: int) -> list[str]:
    """The bots in seat order for one game: the list repeated to fill the seats, rotated by the game index."""
    filled = [bots[i % len(bots)] for i in range(players)]
    shift = game_index % players
    return filled[shift:] + filled[:shift]


def game_seed(seed: int, game_index: int) -> int:
    """The seed of a simulation's game number ``game_index``."""
    return derived_random(seed, "game", game_index).getrandbits(62)


def engine_choice(
    bot: Bot, state: State, seat: int, actions: list[Action], rng: Any, seen: Json | None = None
) -> str:
    """An engine-level bot's move: its choice, or the only action without asking (``seen``: the seat's view, when
    the caller has it; else it is built only if the bot is asked)."""
    if len(actions) == 1:
        return actions[0].id
    return bot(engine.view(state, seat) if seen is None else seen, actions, rng)


class EngineTable:
    """A game between engine-level bots, as the game loop sees it (:class:`engine.gameloop.Table`): each seat's bot
    chooses with a generator of its own, derived from the game's seed; no move can fault."""

    def __init__(self, state: State, bots: list[Bot], seed: int) -> None:
        self.state = state
        self.bots = bots
        self.rngs = [derived_random(seed, f"bot{seat}") for seat in range(len(bots))]
        self.seats = [FaultCount() for _ in bots]
        self.moves: list[Move] = []

    def ask(self, seat: int, kind: str) -> Answer:
        state = self.state
        actions = engine.legal_actions(state, seat)
        return Answer(engine_choice(self.bots[seat], state, seat, actions, self.rngs[seat]), None, None)

    def moved(self, seat: int, action: str, answer: Answer) -> bool:
        self.moves.append((seat, action, None, None))
        return True


def play_game(game: str, settings: dict[str, Any], seed: int, bots: list[str]) -> GameRecord:
    """One complete game between engine-level bots; ``bots[seat]`` names the bot of each seat."""
    table = EngineTable(engine.new_game(game, settings, seed), [BOTS[name] for name in bots], seed)
    play_out(table)
    result = engine.result(table.state)
    assert result is not None
    return GameRecord(seed, bots, result.ranks, result.reason, table.state.turn, len(table.moves), table.moves)


def check_bots(bots: list[str]) -> None:
    """Raise :class:`engine.SettingsError` for a name that is no engine-level bot."""
    unknown = [name for name in bots if name not in BOTS]
    if unknown:
        raise engine.SettingsError(f"unknown bot(s) {', '.join(unknown)}; known: {', '.join(BOTS)}")


def simulate(
    game: str,
    settings: dict[str, Any],
    games: int,
    seed: int,
    bots: list[str],
    on_game: Callable[[GameRecord], None] | None = None,
) -> Summary:
    """Play ``games`` games between engine-level bots and add them up."""
    settings = engine.normalize_settings(game, settings)
    check_bots(bots)
    summary = Summary(game, settings, seed, bots)
    players: int = settings["players"]
    started = time.perf_counter()
    for index in range(games):
        record = play_game(game, settings, game_seed(seed, index), seating(bots, players, index))
        summary.add(record)
        if on_game is not None:
            on_game(record)
    summary.seconds = time.perf_counter() - started
    return summary
