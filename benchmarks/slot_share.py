"""Slots shared fairly, whoever holds them: a victim's small tournament alone, and beside accounts whose games wait
out long deadlines.

    .venv/bin/python benchmarks/slot_share.py [--workers 2] [--slots 8] [--victim 4] [--repeat 1]
        [--hog-timeout-ms 60000] [--person-timeout-ms 120000] [--database-url URL] [--redis-url URL] [--json]

``--workers`` ``sorry-arena worker`` processes of ``--slots`` game slots each, with the default account share
(``SORRY_ARENA_ACCOUNT_SHARE_PERCENT``, a quarter of the slots), a private ``redis-server`` started for the run (or
the empty Redis database of ``--redis-url``) and a fresh database (a SQLite file in a temporary directory, or
``--database-url``); the API is the app's test client. The victim's tournament: ``--victim`` board games of two
random push bots (``python -m clients --bot random --push``, a process each). ``--repeat`` rounds, each measuring
the victim's time from its creation to its end, as stored:

- alone;
- challenges: four accounts each try to make six challenges of a push bot open to others
  (``--person-timeout-ms`` a move, never played: the person forfeits at the second timeout), the victim created once
  the challenges' games are being played;
- pull bots: three accounts each run a tournament of two pull bots that never move (``--hog-timeout-ms`` a move:
  a game ends at its fifth timeout), the victim created once their games are being played.

After each attack its challenges and tournaments are cancelled and the queue waited idle. It prints each median,
the ratio to alone (the goal: at most 3) and the load average at each measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from benchmarks.fair_queue import POLL, Arena  # noqa: E402
from benchmarks.servers import end_on_sigterm, own_redis  # noqa: E402
from benchmarks.tournament import SECRET, bot_processes, workers  # noqa: E402
from runtime.settings import Settings  # noqa: E402
from service.app import create_app  # noqa: E402
from store import migrate  # noqa: E402
from store.models import TournamentGame  # noqa: E402

KINDS = ("alone", "challenges", "pull bots")
GOAL = 3.0
"""The victim's time under an attack, at most this many times its time alone."""
CHALLENGERS = 4
CHALLENGES_EACH = 6
PULL_HOGS = 3


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, choices=range(1, 5), metavar="1..4")
    parser.add_argument("--slots", type=int, default=8, choices=range(4, 33), metavar="4..32")
    parser.add_argument("--victim", type=int, default=4, help="games of the victim's tournament (even, 2..40)")
    parser.add_argument("--repeat", type=int, default=1, choices=range(1, 6), metavar="1..5")
    parser.add_argument("--hog-timeout-ms", type=int, default=60_000, help="the pull bots' (1000..60000)")
    parser.add_argument("--person-timeout-ms", type=int, default=120_000, help="the persons' (1000..120000)")
    parser.add_argument("--database-url", default=None, help="default: a SQLite file in a temporary directory")
    parser.add_argument(
        "--redis-url", default=None, help="an empty Redis database; default: a private redis-server"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 2 <= args.victim <= 40 or args.victim % 2:
        parser.error(f"--victim must be an even number of games from 2 to 40, got {args.victim}")
    if not 1000 <= args.hog_timeout_ms <= 60_000:
        parser.error(f"--hog-timeout-ms must be from 1000 to 60000, got {args.hog_timeout_ms}")
    if not 1000 <= args.person_timeout_ms <= 120_000:
        parser.error(f"--person-timeout-ms must be from 1000 to 120000, got {args.person_timeout_ms}")
    return args


class Attacks(Arena):
    """The API and the database, as the victim and the attackers use them."""

    def player(self, name: str) -> dict[str, str]:
        made = self.client.post("/api/v1/players", json={"name": name})
        assert made.status_code == 201, made.get_data(as_text=True)
        return {"Authorization": f"Bearer {made.get_json()['token']}"}

    def bot(self, headers: dict[str, str], name: str, url: str | None, open_to_others: bool = False) -> int:
        body = {"name": name, "url": url, "games": ["board"], "secret": SECRET, "open_to_others": open_to_others}
        made = self.client.post("/api/v1/bots", json=body, headers=headers)
        assert made.status_code == 201, made.get_data(as_text=True)
        return int(made.get_json()["id"])

    def playing(self, tournaments: list[int]) -> int:
        with self.sessions() as session:
            return int(
                session.scalar(
                    select(func.count(TournamentGame.id)).where(
                        TournamentGame.tournament_id.in_(tournaments), TournamentGame.status == "running"
                    )
                )
                or 0
            )

    def wait_attacking(self, tournaments: list[int], count: int, timeout: float = 300) -> None:
        """Until ``count`` games of ``tournaments`` are being played."""
        deadline = time.monotonic() + timeout
        while self.playing(tournaments) < count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"fewer than {count} games of the attack playing after {timeout} s")
            time.sleep(POLL)


def attack(arena: Attacks, kind: str, args: argparse.Namespace, round_: int, urls: list[str]) -> list[Any]:
    """Start the attack ``kind``; its ``(headers, tournament)`` pairs, once its games are being played."""
    made: list[Any] = []
    if kind == "challenges":
        house = arena.bot(arena.player(f"house{round_}"), f"house{round_}", urls[0], open_to_others=True)
        for number in range(CHALLENGERS):
            headers = arena.player(f"person{round_}-{number}")
            for _ in range(CHALLENGES_EACH):
                body = {"game": "board", "bot_ids": [house], "move_timeout_ms": args.person_timeout_ms}
                response = arena.client.post("/api/v1/challenges", json=body, headers=headers)
                assert response.status_code in (201, 429), response.get_data(as_text=True)
                if response.status_code == 201:
                    made.append((headers, int(response.get_json()["id"])))
    elif kind == "pull bots":
        for number in range(PULL_HOGS):
            headers = arena.player(f"hog{round_}-{number}")
            bots = [arena.bot(headers, f"hog{round_}-{number}-{seat}", None) for seat in range(2)]
            body = {
                "game": "board",
                "bot_ids": bots,
                "table_size": 2,
                "rounds": 50,
                "rated": False,
                "move_timeout_ms": args.hog_timeout_ms,
            }
            response = arena.client.post("/api/v1/tournaments", json=body, headers=headers)
            assert response.status_code == 201, response.get_data(as_text=True)
            made.append((headers, int(response.get_json()["id"])))
    if made:
        arena.wait_attacking([tournament for _, tournament in made], len(made))
    return made


def run(args: argparse.Namespace) -> dict[str, Any]:
    measured: list[dict[str, Any]] = []
    with ExitStack() as stack:
        scratch = stack.enter_context(tempfile.TemporaryDirectory())
        redis_url = stack.enter_context(own_redis(args.redis_url))
        connection = redis.Redis.from_url(redis_url)
        database_url = args.database_url or f"sqlite:///{Path(scratch) / 'bench.db'}"
        migrate.upgrade(database_url)
        settings = Settings(
            database_url=database_url, redis_url=redis_url, bot_allow="loopback", limit_accounts="off"
        )
        app = create_app(settings)
        stack.callback(app.extensions["db_engine"].dispose)
        urls = stack.enter_context(bot_processes(2))
        arena = Attacks(app, connection)
        victim, victim_bots = arena.account("victim", urls)
        stack.enter_context(
            workers(args.workers, database_url, redis_url, connection, slots=args.slots, account_share=None)
        )
        for round_ in range(args.repeat):
            for kind in KINDS:
                made = attack(arena, kind, args, round_, urls)
                load = os.getloadavg()[0]
                tournament = arena.create(victim, victim_bots, args.victim, f"victim {kind} {round_}")
                seconds = arena.wait_done(tournament, 3600)
                for headers, made_id in made:
                    arena.cancel(headers, made_id)
                arena.wait_idle()
                measured.append(
                    {"kind": kind, "seconds": seconds, "attackers": len(made), "load_average_1min": load}
                )
    medians = {
        kind: round(statistics.median(one["seconds"] for one in measured if one["kind"] == kind), 2)
        for kind in KINDS
    }
    return {
        "database": "sqlite" if database_url.startswith("sqlite") else "postgresql",
        "workers": args.workers,
        "slots": args.slots,
        "victim_games": args.victim,
        "median_seconds": medians,
        "vs_alone": {kind: round(medians[kind] / medians["alone"], 2) for kind in KINDS if medians["alone"]},
        "goal": GOAL,
        "runs": measured,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    end_on_sigterm()  # once the flags are good: a usage error starts nothing
    figures = run(args)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(
        f"the victim's {args.victim}-game board tournament on {figures['database']}, {args.workers} workers of "
        f"{args.slots} slots (default account share); pull hogs {args.hog_timeout_ms} ms a move, persons "
        f"{args.person_timeout_ms} ms"
    )
    for kind in KINDS:
        ratio = figures["vs_alone"].get(kind)
        print(f"  {kind + ':':12}{figures['median_seconds'][kind]:8.2f} s   x{ratio:.2f} alone (goal <= {GOAL:g})")
    for one in figures["runs"]:
        print(
            f"  run {one['kind']:11} {one['seconds']:8.2f} s, {one['attackers']} attacking challenges or tournaments, "
            f"load {one['load_average_1min']:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
