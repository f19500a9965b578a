"""The pool fit at scale: a rating pool's standings (``ratings.pool.standings``: the fit, its intervals and the
table) from 100 to 10,000 bots, and the exact pure-Python fit it replaced beside it at 100 and 300 bots.

    .venv/bin/python -m benchmarks.poolfit [--bots 100,1000,10000] [--per-bot 10,100] [--exact 100,300]
        [--rounds 2] [--seed 1]

Each pool: ``bots`` bots of true ratings drawn around 0 (sd 200 Elo), ``bots * per-bot`` rated results between
random opponents, half at 4 seats and half at 2, finishing orders from the Plackett-Luce model (each bot plays
about ``3 * per-bot`` games: 100-400 at ``--per-bot 100``). 10,000 bots and 1,000,000 results is the acceptance
figure: under 10 s. The old fit (``tests/ratings/exact_fit.py``, cubic in the bots) fits the ``--exact`` pools of
``bots * 100`` results (``--exact ''`` for none).

Every case is measured once per round, the cases in turn (in reverse order in the odd rounds, so a drift of the
machine's load falls on all alike): CPU seconds (``time.process_time``, this process's threads) and wall seconds of
one call, from the games handed over to the rows (``from tally keys``: from the keys a pool's tallies hold for the
same games, as a refit reads them), with the 1-minute load average when it ended. The pools are
generated before the rounds and not timed. The medians over the rounds are printed last. The machine is shared:
compare cases within a run, not figures across runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings import pool  # ratings.fit sets numpy's thread count before numpy loads (numpy: in functions only)
from ratings.fit import fit
from ratings.tallies import config_key, parse_games

Game = tuple[list[int], list[int]]


def random_pool(bots: int, results: int, seed: int) -> list[Game]:
    """``results`` games of random opponents, half at 4 seats and half at 2, orders from Plackett-Luce."""
    import numpy as np

    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, 200.0, bots)
    games: list[Game] = []
    for seats, count in ((4, results // 2), (2, results - results // 2)):
        players = rng.integers(0, bots, (count, seats))
        while True:  # redraw the tables where a bot would sit twice
            ordered = np.sort(players, axis=1)
            twice = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
            if not twice.any():
                break
            players[twice] = rng.integers(0, bots, (int(twice.sum()), seats))
        finish = rng.exponential(1.0, (count, seats)) / 10 ** (truth[players] / 400.0)
        ranks = np.argsort(np.argsort(finish, axis=1), axis=1)
        games += zip(players.tolist(), ranks.tolist(), strict=True)
    return games


def exact_fit() -> Callable[[Sequence[Game]], object]:
    from tests.ratings.exact_fit import fit as exact

    return exact


def from_keys(keys: list[str]) -> Callable[[Sequence[Game]], object]:
    """A refit's work from the pool's tally keys (``tournament/standings/tables.py``): the keys read
    (``ratings.tallies.parse_games``), then the standings; the games handed over are ignored (the keys are theirs)."""

    def refit(_: Sequence[Game]) -> object:
        games, forfeited = parse_games(keys)
        return pool.standings(games, None, [1] * len(games), forfeited)

    return refit


def measure(call: Callable[[Sequence[Game]], object], games: Sequence[Game]) -> dict[str, float]:
    """CPU and wall seconds of one ``call(games)``, and the 1-minute load average when it ended."""
    wall, cpu = time.perf_counter(), time.process_time()
    call(games)
    return {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, "load1": os.getloadavg()[0]}


def run(bots: Sequence[int], per_bot: Sequence[int], exact: Sequence[int], rounds: int, seed: int) -> list[dict]:
    """One row per case and round: ``case``, ``bots``, ``results``, ``cpu``, ``wall``, ``load1``."""
    cases: list[tuple[str, int, list[Game], Callable[[Sequence[Game]], object]]] = []
    for count in bots:
        for factor in per_bot:
            games = random_pool(count, count * factor, seed)
            cases.append(("standings", count, games, pool.standings))
            cases.append(("from tally keys", count, games, from_keys([config_key(*game) for game in games])))
    for count in exact:
        games = random_pool(count, count * 100, seed)
        cases.append(("fit", count, games, fit))
        cases.append(("exact fit (before)", count, games, exact_fit()))
    rows = []
    for round_number in range(rounds):
        for case, count, games, call in cases if round_number % 2 == 0 else cases[::-1]:
            results = len(games)
            row = {"case": case, "bots": count, "results": results, "round": round_number}
            row.update(measure(call, games))
            print(
                f"round {round_number}  {case:<20} {count:>6} bots {results:>9} results"
                f"  cpu {row['cpu']:7.3f} s  wall {row['wall']:7.3f} s  load {row['load1']:.2f}",
                flush=True,
            )
            rows.append(row)
    return rows


def medians(rows: Sequence[dict]) -> list[str]:
    keys = dict.fromkeys((row["case"], row["bots"], row["results"]) for row in rows)
    lines = []
    for case, count, results in keys:
        mine = [row for row in rows if (row["case"], row["bots"], row["results"]) == (case, count, results)]
        cpu = statistics.median(row["cpu"] for row in mine)
        wall = statistics.median(row["wall"] for row in mine)
        load = statistics.median(row["load1"] for row in mine)
        lines.append(
            f"{case:<20} {count:>6} bots {results:>9} results  cpu {cpu:7.3f} s  wall {wall:7.3f} s  load {load:.2f}"
        )
    return lines


def integers(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.poolfit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=integers, default=[100, 1000, 10000])
    parser.add_argument("--per-bot", type=integers, default=[10, 100], help="results per bot")
    parser.add_argument("--exact", type=integers, default=[100, 300], help="bots of the old fit's pools")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args(argv)
    if options.rounds < 1 or any(count < 2 for count in options.bots + options.exact) or not options.per_bot:
        parser.error("--rounds must be at least 1, every pool at least 2 bots, --per-bot not empty")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    rows = run(options.bots, options.per_bot, options.exact, options.rounds, options.seed)
    print("medians over the rounds:")
    for line in medians(rows):
        print(line)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
