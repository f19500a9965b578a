"""Engine speed: games/s and decisions/s of random bots, against the PyPI package ``apologies`` in the same run.

The board game is compared with apologies; the card game, which has no other implementation, against its goal
of 20,000 decisions/s (4 players).

    .venv/bin/python benchmarks/engine.py [--runs 5] [--games 40] [--seed 1]

For 4-player and 2-player standard board games it plays ``--games`` games between random bots ``--runs`` times,
interleaving our engine and apologies (``benchmarks/apologies_runner.py``, through its lower-level calls), and
prints the median games/s and decisions/s of each and the ratio. Each loop makes the calls its engine needs to
play: apologies must build a player view to list legal moves, ours lists them from the state; the column
"+view" adds the building of our seat view at every decision too, as a bot-facing loop (the service, the
tournament) does. The machine is shared and noisy: compare the ratios, measured in one run, rather than absolute
figures across runs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine


def play_random(game: str, players: int, games: int, seed: int, with_view: bool = False) -> tuple[int, int, float]:
    """(games, decisions, seconds) for ``games`` default-settings games of ``players`` random bots."""
    rng = random.Random(seed)
    decisions = 0
    started = time.perf_counter()
    for index in range(games):
        state = engine.new_game(game, {"players": players}, seed * 100_003 + index)
        while (asked := engine.decision(state)) is not None:
            seat = asked.seat
            if with_view:
                engine.view(state, seat)
            engine.apply(state, rng.choice(engine.legal_actions(state, seat)).id, seat)
            decisions += 1
    return games, decisions, time.perf_counter() - started


def play_ours(players: int, games: int, seed: int) -> tuple[int, int, float]:
    return play_random("board", players, games, seed)


def play_ours_with_view(players: int, games: int, seed: int) -> tuple[int, int, float]:
    return play_random("board", players, games, seed, with_view=True)


def measure_cards(runs: int, games: int, seed: int) -> dict[str, float]:
    """The card game has no other engine to compare with: its goal is 20,000 decisions/s on one core."""
    lean = [play_random("card", 4, games, seed + run) for run in range(runs)]
    viewed = [play_random("card", 4, games, seed + run, with_view=True) for run in range(runs)]
    return {
        "games_per_s": statistics.median(g / s for g, _, s in lean),
        "decisions_per_s": statistics.median(d / s for _, d, s in lean),
        "with_view_decisions_per_s": statistics.median(d / s for _, d, s in viewed),
    }


def measure(runs: int, games: int, seed: int) -> dict[str, dict[str, float]]:
    try:
        from apologies_runner import play_apologies_games
    except ImportError:
        sys.exit("apologies is not installed: run `make bench` (it installs the 'bench' extra)")
    figures: dict[str, dict[str, float]] = {}
    for players in (4, 2):
        ours: list[tuple[float, float]] = []
        viewed: list[tuple[float, float]] = []
        theirs: list[tuple[float, float]] = []
        for run in range(runs):
            for player, sink in ((play_ours, ours), (play_ours_with_view, viewed), (play_apologies_games, theirs)):
                played, decisions, seconds = player(players, games, seed + run)
                sink.append((played / seconds, decisions / seconds))
        ours_gps = statistics.median(g for g, _ in ours)
        theirs_gps = statistics.median(g for g, _ in theirs)
        figures[f"{players}p"] = {
            "ours_games_per_s": ours_gps,
            "ours_decisions_per_s": statistics.median(d for _, d in ours),
            "ours_with_view_games_per_s": statistics.median(g for g, _ in viewed),
            "apologies_games_per_s": theirs_gps,
            "apologies_decisions_per_s": statistics.median(d for _, d in theirs),
            "games_ratio": ours_gps / theirs_gps,
            "with_view_games_ratio": statistics.median(g for g, _ in viewed) / theirs_gps,
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.runs < 1 or args.games < 1:
        parser.error("--runs and --games must be at least 1")
    figures = measure(args.runs, args.games, args.seed)
    cards = measure_cards(args.runs, args.games * 10, args.seed)
    if args.json:
        print(json.dumps({"board": figures, "card_4p": cards}))
        return
    print(f"standard board games between random bots, median of {args.runs} runs of {args.games} games")
    print(
        f"{'':4} {'ours games/s':>13} {'decisions/s':>12} {'apologies games/s':>18} {'decisions/s':>12} "
        f"{'ratio':>6} {'ours+view games/s':>18} {'ratio':>6}"
    )
    for name, row in figures.items():
        print(
            f"{name:4} {row['ours_games_per_s']:13.1f} {row['ours_decisions_per_s']:12,.0f} "
            f"{row['apologies_games_per_s']:18.2f} {row['apologies_decisions_per_s']:12,.0f} "
            f"{row['games_ratio']:5.1f}x {row['ours_with_view_games_per_s']:18.1f} {row['with_view_games_ratio']:5.1f}x"
        )
    print(
        f"\n4-player card games (race to 21) between random bots, median of {args.runs} runs of {args.games * 10} games"
    )
    print(
        f"{cards['games_per_s']:.0f} games/s, {cards['decisions_per_s']:,.0f} decisions/s "
        f"({cards['decisions_per_s'] / 20_000:.1f}x the goal of 20,000); "
        f"with the seat's view built at every decision: {cards['with_view_decisions_per_s']:,.0f} decisions/s"
    )


if __name__ == "__main__":
    main()
