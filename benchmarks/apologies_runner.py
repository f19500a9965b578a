"""Plays STANDARD-mode games of the PyPI package ``apologies`` (0.4.x) between random players, for benchmarks.

``benchmarks/engine.py`` compares our engine's speed against apologies, a published SORRY! engine (installed by the
``bench`` extra only). Its one-call loop, ``Engine.play_next``, starts every turn with ``Game.copy()``, a cattrs
round trip of the whole game including its ever-growing history, so timing it would mostly measure that copy.
This module instead repeats what ``play_next`` does, through the same lower-level calls, without the copy:

1. ``Engine.next_turn()`` gives the next color (players take turns in a circle from a random first player);
2. ``Game.create_player_view(color)`` builds the view the rules work on;
3. ``Engine.construct_legal_moves(view)`` draws a card from the deck (standard mode) and asks ``Rules`` for the
   legal moves; when there is none the only move is a forfeit, a ``Move`` with no actions;
4. ``random.choice(moves)`` picks one, as ``RandomInputSource.choose_move`` does;
5. ``Engine.execute_move(color, move)`` applies it through ``Rules.execute_move``, discards the card, and returns
   whether the turn is over (a 2 draws again unless it was forfeited or the game ended).

Per decision apologies thus builds a view (copies of the players), the legal moves, and applies one; applying it
also records the move in the game's history (``Game.track``: a log string and a timestamped ``History`` object,
which also counts the player's turns), as it does on every path: it has no way to apply a move without it. That
record is about 1% of this loop's CPU time (measured with ``Game.track`` cut down to its turn count), the log string
a little more. ``benchmarks/engine.py`` times our engine both with its events built and without them.

A *decision* is one choice among legal moves, a forced single choice included; a forfeit is not a decision.
apologies draws from the global ``random`` module, so the run seeds it once at the start: the same seed plays the
same games.
"""

from __future__ import annotations

import random
import time
import warnings
from typing import NamedTuple

from apologies import Character, Engine, GameMode, NoOpInputSource

MAX_TURNS = 5000
"""Safety cap on turns per game: random play ends a 4-player game in a few hundred turns."""


class ApologiesRun(NamedTuple):
    games: int
    """Games played, capped ones included."""
    decisions: int
    seconds: float
    """Wall time of the loop."""
    cpu_seconds: float
    """The process's CPU time over the loop: what a loaded machine's other processes do not add to."""
    capped: int
    """Games stopped at ``max_turns`` before anyone won."""


def run_apologies_games(players: int, games: int, seed: int, max_turns: int = MAX_TURNS) -> ApologiesRun:
    """Play ``games`` STANDARD-mode games of ``players`` random players; see the module docstring."""
    random.seed(seed)
    decisions = 0
    capped = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    for _ in range(games):
        # The characters' input source is never called: moves are chosen below, as RandomInputSource would.
        characters = [Character(f"random{i}", NoOpInputSource()) for i in range(players)]
        engine = Engine(GameMode.STANDARD, characters)
        engine.start_game()
        game = engine.game
        turns = 0
        while not game.completed:
            if turns == max_turns:
                capped += 1
                break
            turns += 1
            color, _ = engine.next_turn()
            turn_done = False
            while not turn_done:
                view = game.create_player_view(color)
                _, moves = engine.construct_legal_moves(view)
                move = random.choice(moves)
                if move.actions:
                    decisions += 1
                turn_done = engine.execute_move(color, move)
    seconds = time.perf_counter() - start
    return ApologiesRun(games, decisions, seconds, time.process_time() - cpu_start, capped)


def play_apologies_games(players: int, games: int, seed: int) -> tuple[int, int, float]:
    """(games played, decisions made, seconds elapsed) for ``games`` random games; warns if any hit the cap."""
    run = run_apologies_games(players, games, seed)
    if run.capped:
        warnings.warn(
            f"apologies: {run.capped} of {run.games} games stopped at {MAX_TURNS} turns",
            RuntimeWarning,
            stacklevel=2,
        )
    return run.games, run.decisions, run.seconds


if __name__ == "__main__":
    for count in (4, 2):
        result = run_apologies_games(count, 20, seed=1)
        print(
            f"apologies {count} players: {result.games} games in {result.seconds:.2f} s "
            f"({result.games / result.seconds:.2f} games/s, {result.decisions / result.seconds:.0f} decisions/s, "
            f"{result.decisions / result.games:.0f} decisions/game, {result.capped} capped)"
        )
