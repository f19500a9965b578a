"""Engine speed against the PyPI package ``apologies`` 0.4.2, per decision and as whole processes, in one run.

    .venv/bin/python benchmarks/engine.py [--rounds 5] [--games 40] [--process-games 20] [--seed 1] [--json]

1. Per decision: 4-player standard board games between random bots, our engine (in this process) and apologies
   (``benchmarks/apologies_runner.py``, its lower-level calls, in apologies' interpreter) in interleaved rounds;
   each side's decisions/s is timed inside its loop (start-up excluded). apologies deals from the global
   ``random`` module and its own deck, so it cannot play our deals: the two engines play ``--games`` games of the
   same settings and seeds each round, and they are compared per decision (a decision: one choice among the legal
   moves; forfeits are not decisions). The ratio is the median of the rounds' ratios.
2. Whole processes, start-up included, interleaved: ``sorry-arena simulate --players 4 --bots random
   --no-replays --games N`` against a process of apologies playing N 4-player games through the same runner, and
   against apologies' own simulation entry point (``apologies.cli`` ``simulation --iter 1``: 6 games, 2 to 4
   players in its two modes); medians of the wall time per game.
3. The card game, which has no other implementation: 4-player games against its goal of 20,000 decisions/s.

apologies is imported from this interpreter when it is installed (``pip install -e '.[bench]'``), else installed
once into a scratch virtual environment under the temporary directory (``pip install apologies==0.4.2``). The
machine's load average is printed before and after: on a shared machine compare the ratios, measured in one run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import engine  # noqa: E402

APOLOGIES = "apologies==0.4.2"
SCRATCH = Path(tempfile.gettempdir()) / "sorry-arena-bench" / "apologies-0.4.2"
RUNNER = f"""
import json, sys
sys.path.insert(0, {str(HERE)!r})
from apologies_runner import run_apologies_games
run = run_apologies_games(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
print(json.dumps(run._asdict()) if sys.argv[4] == "json" else "")
"""
"""apologies' side of a round, run in its interpreter: ``players games seed json|quiet``."""


def apologies_python() -> str:
    """An interpreter that imports apologies: this one, or the scratch environment (made on first use)."""
    if importlib.util.find_spec("apologies") is not None:
        return sys.executable
    python = SCRATCH / "bin" / "python"
    if not python.exists():
        print(f"installing {APOLOGIES} into {SCRATCH} (once)", file=sys.stderr)
        venv.create(SCRATCH, with_pip=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", APOLOGIES], check=True)
    return str(python)


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


def play_apologies(python: str, players: int, games: int, seed: int) -> tuple[int, int, float]:
    done = subprocess.run(
        [python, "-c", RUNNER, str(players), str(games), str(seed), "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    run = json.loads(done.stdout.splitlines()[-1])
    return run["games"], run["decisions"], run["seconds"]


def per_decision(python: str, rounds: int, games: int, seed: int) -> dict[str, float]:
    ours: list[float] = []
    theirs: list[float] = []
    ours_per_game: list[float] = []
    theirs_per_game: list[float] = []
    for round_ in range(rounds):
        played, decisions, seconds = play_random("board", 4, games, seed + round_)
        ours.append(decisions / seconds)
        ours_per_game.append(decisions / played)
        played, decisions, seconds = play_apologies(python, 4, games, seed + round_)
        theirs.append(decisions / seconds)
        theirs_per_game.append(decisions / played)
    return {
        "ours_decisions_per_s": statistics.median(ours),
        "apologies_decisions_per_s": statistics.median(theirs),
        "ratio": statistics.median(a / b for a, b in zip(ours, theirs, strict=True)),
        "ours_decisions_per_game": statistics.mean(ours_per_game),
        "apologies_decisions_per_game": statistics.mean(theirs_per_game),
    }


def sorry_arena() -> list[str]:
    script = Path(sys.executable).with_name("sorry-arena")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cli.main"]


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def whole_process(python: str, rounds: int, games: int) -> dict[str, float]:
    """Median wall seconds per game of each command, the three run in turn each round."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        ours = [
            *sorry_arena(),
            "simulate",
            "--players",
            "4",
            "--bots",
            "random",
            "--no-replays",
            "--games",
            str(games),
        ]
        runner = [python, "-c", RUNNER, "4", str(games), "1", "quiet"]
        entry = [python, "-c", "from apologies.cli import cli; cli('simulation')", "--iter", "1", "--out"]
        entry += [str(work / "apologies.csv"), "apologies.source.RandomInputSource"]
        times: dict[str, list[float]] = {"ours": [], "runner": [], "entry": []}
        for _ in range(rounds):
            times["ours"].append(timed(ours, work) / games)
            times["runner"].append(timed(runner, work) / games)
            times["entry"].append(timed(entry, work) / 6)
    ours_s = times["ours"]
    return {
        "ours_s_per_game": statistics.median(ours_s),
        "runner_s_per_game": statistics.median(times["runner"]),
        "entry_s_per_game": statistics.median(times["entry"]),
        "runner_ratio": statistics.median(b / a for a, b in zip(ours_s, times["runner"], strict=True)),
        "entry_ratio": statistics.median(b / a for a, b in zip(ours_s, times["entry"], strict=True)),
    }


def measure_cards(runs: int, games: int, seed: int) -> dict[str, float]:
    """The card game has no other engine to compare with: its goal is 20,000 decisions/s on one core."""
    lean = [play_random("card", 4, games, seed + run) for run in range(runs)]
    viewed = [play_random("card", 4, games, seed + run, with_view=True) for run in range(runs)]
    return {
        "games_per_s": statistics.median(g / s for g, _, s in lean),
        "decisions_per_s": statistics.median(d / s for _, d, s in lean),
        "with_view_decisions_per_s": statistics.median(d / s for _, d, s in viewed),
    }


def load() -> str:
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of each comparison")
    parser.add_argument("--games", type=int, default=40, help="games per round of the per-decision comparison")
    parser.add_argument("--process-games", type=int, default=20, help="games of each whole-process run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if min(args.rounds, args.games, args.process_games) < 1:
        parser.error("--rounds, --games and --process-games must be at least 1")
    python = apologies_python()
    before = load()
    decisions = per_decision(python, args.rounds, args.games, args.seed)
    process = whole_process(python, args.rounds, args.process_games)
    cards = measure_cards(args.rounds, args.games * 10, args.seed)
    after = load()
    if args.json:
        print(json.dumps({"per_decision": decisions, "whole_process": process, "card_4p": cards}))
        return
    print(f"{before} (before), {after} (after)")
    print(f"\n4-player standard board games between random bots, {args.rounds} interleaved rounds of {args.games}")
    print(
        f"ours {decisions['ours_decisions_per_s']:,.0f} decisions/s, apologies "
        f"{decisions['apologies_decisions_per_s']:,.0f}: {decisions['ratio']:.1f}x per decision "
        f"(decisions per game: ours {decisions['ours_decisions_per_game']:.0f}, "
        f"apologies {decisions['apologies_decisions_per_game']:.0f})"
    )
    print(f"\nwhole processes, start-up included, {args.rounds} interleaved rounds, median wall time per game")
    print(f"sorry-arena simulate --games {args.process_games}: {process['ours_s_per_game'] * 1000:.1f} ms")
    print(
        f"apologies, {args.process_games} games through the same runner: {process['runner_s_per_game'] * 1000:.1f} ms"
        f" ({process['runner_ratio']:.1f}x ours)"
    )
    print(
        f"apologies' simulation entry point (--iter 1, 6 games of 2-4 players): "
        f"{process['entry_s_per_game'] * 1000:.0f} ms ({process['entry_ratio']:.0f}x ours)"
    )
    print(
        f"\n4-player card games (race to 21) between random bots, median of {args.rounds} runs of {args.games * 10}"
    )
    print(
        f"{cards['games_per_s']:.0f} games/s, {cards['decisions_per_s']:,.0f} decisions/s "
        f"({cards['decisions_per_s'] / 20_000:.1f}x the goal of 20,000); "
        f"with the seat's view built at every decision: {cards['with_view_decisions_per_s']:,.0f} decisions/s"
    )


if __name__ == "__main__":
    main()
