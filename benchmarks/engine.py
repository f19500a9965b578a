"""Engine speed against the PyPI package ``apologies`` 0.4.2, per decision and as whole processes, in one run.

    .venv/bin/python benchmarks/engine.py [--rounds 5] [--games 40] [--process-games 20] [--seed 1] [--json]

1. Per decision: 4-player standard board games between random bots, our engine (in this process) and apologies
   (``benchmarks/apologies_runner.py``, its lower-level calls, in apologies' interpreter) in interleaved rounds;
   each side's decisions/s is timed inside its loop (start-up excluded). apologies deals from the global
   ``random`` module and its own deck, so it cannot play our deals: the two engines play ``--games`` games of the
   same settings and seeds each round, and they are compared per decision (a decision: one choice among the legal
   moves; forfeits are not decisions). Each side is timed by the wall clock and by its process's CPU time, which
   the other processes of a loaded machine do not add to; each ratio is the median of the rounds' ratios.
   Per decision each side asks for the legal moves, picks one at random and applies it. apologies builds the
   seat's view first (its rules need it) and records every move in its game's history (a log string and a
   timestamped object: it has no path without them; about 1% of its loop). Ours is timed twice each round: with
   each move's events built (``engine.apply``: the same work, a record of each move) and without them
   (``engine.apply(..., events=False)``: what the tournament runner and the simulator do).
2. Whole processes, start-up included, interleaved: ``sorry-arena simulate --players 4 --bots random
   --no-replays --games N`` (which builds no events) against a process of apologies playing N 4-player games
   through the same runner (which records its history), and against apologies' own simulation entry point
   (``apologies.cli`` ``simulation --iter 1``: 6 games, 2 to 4 players in its two modes); medians of the wall time
   per game, and of the CPU time of ours and the runner's.
3. The card game, which has no other implementation: 4-player games against its goal of 20,000 decisions/s.

apologies is imported from this interpreter when it is installed (``pip install -e '.[bench]'``), else installed
once into a scratch virtual environment under the temporary directory (``pip install apologies==0.4.2``). The
machine's load average is printed before and after: on a shared machine compare the ratios, measured in one run.

Measured on a 2-core machine shared with other work: ``--rounds 5 --games 40 --process-games 20`` at a load
average of 0.4 to 3.2: per decision, with our events built, 20.8x apologies by CPU time (124,093 decisions per CPU
second against 5,847; 20.2x by the wall clock); without them 25.1x by CPU time (146,785; 25.2x by the wall clock);
whole processes of 20 games 5.9x by CPU time; the card game 88,523 decisions/s. ``--rounds 3 --games 40
--process-games 100`` just after, at a load of 1.4 to 2.0: per decision 21.4x with events, 24.1x without by CPU
time; whole processes of 100 games 15.1x by CPU time, 15.0x by the wall clock (goal: 10x). The goal of 20x per
decision is reached with the events built, with a thin margin.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path
from typing import NamedTuple

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


class Timed(NamedTuple):
    games: int
    decisions: int
    seconds: float
    """Wall time of the loop."""
    cpu_seconds: float
    """The process's CPU time over the loop."""


def play_random(
    game: str, players: int, games: int, seed: int, with_view: bool = False, events: bool = True
) -> Timed:
    """``games`` default-settings games of ``players`` random bots, timed (start-up excluded); each action applied
    with its events built, or without them (``events=False``, as the tournament runner and the simulator play)."""
    rng = random.Random(seed)
    decisions = 0
    started = time.perf_counter()
    cpu_started = time.process_time()
    for index in range(games):
        state = engine.new_game(game, {"players": players}, seed * 100_003 + index)
        while (asked := engine.decision(state)) is not None:
            seat = asked.seat
            if with_view:
                engine.view(state, seat)
            engine.apply(state, rng.choice(engine.legal_actions(state, seat)).id, seat, events=events)
            decisions += 1
    return Timed(games, decisions, time.perf_counter() - started, time.process_time() - cpu_started)


def play_apologies(python: str, players: int, games: int, seed: int) -> Timed:
    done = subprocess.run(
        [python, "-c", RUNNER, str(players), str(games), str(seed), "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    run = json.loads(done.stdout.splitlines()[-1])
    return Timed(run["games"], run["decisions"], run["seconds"], run["cpu_seconds"])


def per_decision(python: str, rounds: int, games: int, seed: int) -> dict[str, float]:
    """Each side's decisions per second of wall and of CPU time in each round; ratios are medians of the rounds'.
    Ours plays each round twice, with its events built (the same work as apologies, which records each move in its
    history) and without them (what our tournaments and simulations do)."""
    ours: list[Timed] = []
    silent: list[Timed] = []
    theirs: list[Timed] = []
    for round_ in range(rounds):
        ours.append(play_random("board", 4, games, seed + round_))
        theirs.append(play_apologies(python, 4, games, seed + round_))
        silent.append(play_random("board", 4, games, seed + round_, events=False))

    def rates(runs: list[Timed], cpu: bool) -> list[float]:
        return [run.decisions / (run.cpu_seconds if cpu else run.seconds) for run in runs]

    def ratio(cpu: bool, runs: list[Timed] = ours) -> float:
        return statistics.median(a / b for a, b in zip(rates(runs, cpu), rates(theirs, cpu), strict=True))

    return {
        "ours_decisions_per_s": statistics.median(rates(ours, False)),
        "apologies_decisions_per_s": statistics.median(rates(theirs, False)),
        "ratio": ratio(False),
        "ours_decisions_per_cpu_s": statistics.median(rates(ours, True)),
        "apologies_decisions_per_cpu_s": statistics.median(rates(theirs, True)),
        "cpu_ratio": ratio(True),
        "silent_decisions_per_s": statistics.median(rates(silent, False)),
        "silent_ratio": ratio(False, silent),
        "silent_decisions_per_cpu_s": statistics.median(rates(silent, True)),
        "silent_cpu_ratio": ratio(True, silent),
        "ours_decisions_per_game": statistics.mean(run.decisions / run.games for run in ours),
        "apologies_decisions_per_game": statistics.mean(run.decisions / run.games for run in theirs),
    }


def sorry_arena() -> list[str]:
    script = Path(sys.executable).with_name("sorry-arena")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cli.main"]


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``command``, start-up included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def whole_process(python: str, rounds: int, games: int) -> dict[str, float]:
    """Median wall and CPU seconds per game of each command (CPU: the process's own, ``getrusage``), the three run in
    turn each round; ratios are medians of the rounds'."""
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
        times: dict[str, list[tuple[float, float]]] = {"ours": [], "runner": [], "entry": []}
        for _ in range(rounds):
            for name, command in (("ours", ours), ("runner", runner), ("entry", entry)):
                wall, cpu = timed(command, work)
                per_game = 6 if name == "entry" else games
                times[name].append((wall / per_game, cpu / per_game))

    def median(name: str, cpu: bool) -> float:
        return statistics.median(run[1 if cpu else 0] for run in times[name])

    def ratio(name: str, cpu: bool) -> float:
        index = 1 if cpu else 0
        return statistics.median(b[index] / a[index] for a, b in zip(times["ours"], times[name], strict=True))

    return {
        "ours_s_per_game": median("ours", False),
        "runner_s_per_game": median("runner", False),
        "entry_s_per_game": median("entry", False),
        "runner_ratio": ratio("runner", False),
        "entry_ratio": ratio("entry", False),
        "ours_cpu_s_per_game": median("ours", True),
        "runner_cpu_s_per_game": median("runner", True),
        "runner_cpu_ratio": ratio("runner", True),
    }


def measure_cards(runs: int, games: int, seed: int) -> dict[str, float]:
    """The card game has no other engine to compare with: its goal is 20,000 decisions/s on one core."""
    lean = [play_random("card", 4, games, seed + run) for run in range(runs)]
    viewed = [play_random("card", 4, games, seed + run, with_view=True) for run in range(runs)]
    return {
        "games_per_s": statistics.median(run.games / run.seconds for run in lean),
        "decisions_per_s": statistics.median(run.decisions / run.seconds for run in lean),
        "with_view_decisions_per_s": statistics.median(run.decisions / run.seconds for run in viewed),
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
    print(
        f"by CPU time: ours {decisions['ours_decisions_per_cpu_s']:,.0f} decisions per CPU second, apologies "
        f"{decisions['apologies_decisions_per_cpu_s']:,.0f}: {decisions['cpu_ratio']:.1f}x per decision"
    )
    print(
        f"ours without building events (engine.apply(..., events=False), as tournaments and simulations play; "
        f"apologies still records its history): {decisions['silent_decisions_per_cpu_s']:,.0f} decisions per CPU "
        f"second, {decisions['silent_cpu_ratio']:.1f}x by CPU time, {decisions['silent_ratio']:.1f}x by the wall clock"
    )
    print(f"\nwhole processes, start-up included, {args.rounds} interleaved rounds, median wall time per game")
    print(f"sorry-arena simulate --games {args.process_games}: {process['ours_s_per_game'] * 1000:.1f} ms")
    print(
        f"apologies, {args.process_games} games through the same runner: {process['runner_s_per_game'] * 1000:.1f} ms"
        f" ({process['runner_ratio']:.1f}x ours)"
    )
    print(
        f"by CPU time: ours {process['ours_cpu_s_per_game'] * 1000:.1f} ms, the runner "
        f"{process['runner_cpu_s_per_game'] * 1000:.1f} ms ({process['runner_cpu_ratio']:.1f}x ours)"
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
