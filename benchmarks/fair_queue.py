"""Fair dispatch: a small tournament submitted behind another account's big one, against the same one alone.

    .venv/bin/python benchmarks/fair_queue.py [--big 2000] [--small 20] [--repeat 3] [--workers 2]
        [--unfair-timeout 600] [--database-url URL] [--redis-url URL] [--json]

Two example random push bots (``python -m clients --bot random --push``, a process each, on loopback), ``--workers``
``sorry-arena worker`` processes (8 games at once each), a private ``redis-server`` started for the run (or the
empty Redis database of ``--redis-url``) and a fresh database (a SQLite file in a temporary directory, or
``--database-url``); the API is the app's test client. Two accounts, A and B, each register the two bots as bots of
their own. The big tournament needs a quota above the default: ``SORRY_ARENA_QUOTA_GAMES`` is raised to ``--big``
in the app's settings and the workers' environment. ``--repeat`` rounds, interleaved, each measuring:

- alone: B creates a ``--small``-game board tournament (its 2 bots, 2 seats); the figure is the time from its
  creation to its end (``created_at`` to ``finished_at``, as stored);
- behind: A creates a ``--big``-game one of its own bots and, once its games are being played, B creates the same
  small one; B's time as above. Then A's is cancelled;
- unfair (for the record; ``--unfair-timeout 0`` leaves it out): the same with ``SORRY_ARENA_FEED_WINDOW=1000``
  (the setting's maximum) for the workers, so that the big tournament goes to the queue a thousand games at once.
  The small one's games still go to the front of the queue (the account with the least left to play goes first:
  ``tournament/dispatch/feed.py``), so this shows what the window alone adds, no longer a queue without fair dispatch.
  Capped at ``--unfair-timeout`` seconds from B's creation: reported as "> N s" if it did not end by then; then
  both are cancelled.

Alone and behind run with the default window (8). After each measurement the benchmark waits for the queue to be
idle (no job queued, no game fed and not over) before the next. It prints the medians, the ratio behind / alone
(the goal: at most 2) and the load average at each measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from rq import Queue  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from benchmarks.servers import end_on_sigterm, own_redis  # noqa: E402
from benchmarks.tournament import SECRET, bot_processes, workers  # noqa: E402
from runtime.jobqueue import QUEUE_NAME  # noqa: E402
from runtime.settings import DEFAULT_FEED_WINDOW, DEFAULT_QUOTA_GAMES, Settings  # noqa: E402
from service.app import create_app  # noqa: E402
from store import migrate  # noqa: E402
from store.models import Game, Tournament, TournamentGame  # noqa: E402

UNFAIR_WINDOW = 1000
"""``SORRY_ARENA_FEED_WINDOW`` of the unfair runs: the setting's maximum."""
POLL = 0.25
"""Seconds between this process's looks at a tournament (rarely: it shares the cores with the workers)."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--big", type=int, default=2000, help="games of A's tournament (even, 2..2000)")
    parser.add_argument("--small", type=int, default=20, help="games of B's tournament (even, 2..200)")
    parser.add_argument("--repeat", type=int, default=3, choices=range(1, 11), metavar="1..10")
    parser.add_argument("--workers", type=int, default=2, choices=range(1, 5), metavar="1..4")
    parser.add_argument(
        "--unfair-timeout", type=float, default=600, help="seconds; 0: no unfair runs (default 600)"
    )
    parser.add_argument("--database-url", default=None, help="default: a SQLite file in a temporary directory")
    parser.add_argument(
        "--redis-url", default=None, help="an empty Redis database; default: a private redis-server"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    for name, most in (("big", 2000), ("small", 200)):
        value = getattr(args, name)
        if not 2 <= value <= most or value % 2:
            parser.error(f"--{name} must be an even number of games from 2 to {most} (2 a round), got {value}")
    if args.unfair_timeout < 0:
        parser.error(f"--unfair-timeout must be 0 (no unfair runs) or more seconds, got {args.unfair_timeout}")
    return args


@contextmanager
def environment(**values: str) -> Iterator[None]:
    """``os.environ`` with ``values`` set, for the worker processes started inside (they inherit it)."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class Arena:
    """The API (the app's test client) and the database, as the two accounts use them."""

    def __init__(self, app: Any, connection: Any) -> None:
        self.app = app
        self.client = app.test_client()
        self.sessions = app.extensions["db_sessions"]
        self.queue = Queue(QUEUE_NAME, connection=connection)

    def account(self, name: str, urls: list[str]) -> tuple[dict[str, str], list[int]]:
        """A new account's headers and the ids of its bots (one per URL)."""
        player = self.client.post("/api/v1/players", json={"name": name})
        assert player.status_code == 201, player.get_data(as_text=True)
        headers = {"Authorization": f"Bearer {player.get_json()['token']}"}
        bot_ids = []
        for number, url in enumerate(urls):
            bot = self.client.post(
                "/api/v1/bots",
                json={"name": f"{name}-random{number}", "url": url, "games": ["board"], "secret": SECRET},
                headers=headers,
            )
            assert bot.status_code == 201, bot.get_data(as_text=True)
            bot_ids.append(bot.get_json()["id"])
        return headers, bot_ids

    def create(self, headers: dict[str, str], bot_ids: list[int], games: int, name: str) -> int:
        body = {"name": name, "game": "board", "bot_ids": bot_ids, "table_size": 2, "rounds": games // 2}
        created = self.client.post("/api/v1/tournaments", json={**body, "rated": False}, headers=headers)
        assert created.status_code == 201, created.get_data(as_text=True)
        return int(created.get_json()["id"])

    def status(self, tournament_id: int) -> dict[str, Any]:
        body: dict[str, Any] = self.client.get(f"/api/v1/tournaments/{tournament_id}").get_json()
        return body

    def cancel(self, headers: dict[str, str], tournament_id: int) -> None:
        cancelled = self.client.post(f"/api/v1/tournaments/{tournament_id}/cancel", headers=headers)
        assert cancelled.status_code in (200, 409), cancelled.get_data(as_text=True)  # 409: it ended meanwhile

    def wait_playing(self, tournament_id: int, timeout: float = 300) -> None:
        """Until the tournament's first game has ended: its games fill the workers' slots and the queue."""
        deadline = time.monotonic() + timeout
        while self.status(tournament_id)["progress"]["done"] < 1:
            if time.monotonic() > deadline:
                raise RuntimeError(f"tournament {tournament_id} played no game in {timeout} s")
            time.sleep(POLL)

    def wait_done(self, tournament_id: int, timeout: float) -> float | None:
        """Seconds from the tournament's creation to its end, as stored; ``None`` if it did not end in
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self.status(tournament_id)["status"] != "done":
            if time.monotonic() > deadline:
                return None
            time.sleep(POLL)
        with self.sessions() as session:
            tournament = session.get(Tournament, tournament_id)
            assert tournament is not None and tournament.finished_at is not None
            return float((tournament.finished_at - tournament.created_at).total_seconds())

    def first_game_after(self, tournament_id: int) -> float | None:
        """Seconds from the tournament's creation to the start of its first game, as stored; ``None``: none began."""
        with self.sessions() as session:
            tournament = session.get(Tournament, tournament_id)
            first = session.scalar(
                select(func.min(Game.created_at))
                .join(TournamentGame, TournamentGame.game_id == Game.id)
                .where(TournamentGame.tournament_id == tournament_id)
            )
            assert tournament is not None
            return None if first is None else (first - tournament.created_at).total_seconds()

    def wait_idle(self, timeout: float = 600) -> None:
        """Until no job is queued and no game is fed and not over (cancelled games' jobs have run out)."""
        deadline = time.monotonic() + timeout
        while True:
            with self.sessions() as session:
                left = session.scalar(
                    select(func.count(TournamentGame.id)).where(
                        TournamentGame.fed.is_(True), TournamentGame.status.in_(("pending", "running"))
                    )
                )
            if not left and not self.queue.count:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the queue was not idle after {timeout} s ({left} fed games not over)")
            time.sleep(POLL)


def measure(arena: Arena, accounts: dict[str, Any], args: argparse.Namespace, kind: str) -> dict[str, Any]:
    """One measurement of B's small tournament: ``alone``, ``behind`` A's big one, or ``unfair``ly behind it."""
    (headers_a, bots_a), (headers_b, bots_b) = accounts["A"], accounts["B"]
    load = os.getloadavg()[0]
    big = None
    if kind != "alone":
        big = arena.create(headers_a, bots_a, args.big, f"big {kind}")
        arena.wait_playing(big)
    small = arena.create(headers_b, bots_b, args.small, f"small {kind}")
    seconds = arena.wait_done(small, args.unfair_timeout if kind == "unfair" else 3600)
    first_game = arena.first_game_after(small)
    big_done = None
    if big is not None:
        big_done = arena.status(big)["progress"]["done"]
        arena.cancel(headers_a, big)
    if seconds is None:
        arena.cancel(headers_b, small)
    arena.wait_idle()
    return {
        "kind": kind,
        "seconds": seconds,
        "first_game_after_s": first_game,
        "load_average_1min": load,
        "big_games_done": big_done,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every round's measurements, and the report of their medians."""
    quota = str(max(args.big, DEFAULT_QUOTA_GAMES))
    kinds = ["alone", "behind"] + (["unfair"] if args.unfair_timeout > 0 else [])
    measured: list[dict[str, Any]] = []
    with ExitStack() as stack:
        scratch = stack.enter_context(tempfile.TemporaryDirectory())
        redis_url = stack.enter_context(own_redis(args.redis_url))
        connection = redis.Redis.from_url(redis_url)
        database_url = args.database_url or f"sqlite:///{Path(scratch) / 'bench.db'}"
        migrate.upgrade(database_url)
        settings = Settings(
            database_url=database_url, redis_url=redis_url, bot_allow="loopback", quota_games=int(quota)
        )
        app = create_app(settings)
        stack.callback(app.extensions["db_engine"].dispose)
        urls = stack.enter_context(bot_processes(2))
        arena = Arena(app, connection)
        accounts = {name: arena.account(name, urls) for name in ("A", "B")}
        stack.enter_context(environment(SORRY_ARENA_QUOTA_GAMES=quota))
        for _ in range(args.repeat):
            for kind in kinds:
                window = str(UNFAIR_WINDOW if kind == "unfair" else DEFAULT_FEED_WINDOW)
                with (
                    environment(SORRY_ARENA_FEED_WINDOW=window),
                    workers(args.workers, database_url, redis_url, connection),
                ):
                    measured.append(measure(arena, accounts, args, kind))
    return report(args, quota, kinds, measured)


def report(
    args: argparse.Namespace, quota: str, kinds: list[str], measured: list[dict[str, Any]]
) -> dict[str, Any]:
    medians: dict[str, float | None] = {}
    timed_out: dict[str, bool] = {}
    for kind in kinds:
        runs = [one["seconds"] for one in measured if one["kind"] == kind]
        # a run cut at the timeout took longer: counted as the timeout, and its median said to be more
        capped = [args.unfair_timeout if seconds is None else seconds for seconds in runs]
        medians[kind] = round(statistics.median(capped), 2)
        timed_out[kind] = any(seconds is None for seconds in runs) and medians[kind] >= args.unfair_timeout
    alone, behind = medians["alone"], medians["behind"]
    return {
        "big_games": args.big,
        "small_games": args.small,
        "workers": args.workers,
        "environment": {
            "SORRY_ARENA_QUOTA_GAMES": quota,
            "SORRY_ARENA_FEED_WINDOW": {"alone, behind": DEFAULT_FEED_WINDOW, "unfair": UNFAIR_WINDOW},
        },
        "median_seconds": medians,
        "timed_out": timed_out,
        "behind_vs_alone": round(behind / alone, 3) if alone and behind is not None else None,
        "goal": 2.0,
        "runs": measured,
    }


def seconds_text(report: dict[str, Any], kind: str) -> str:
    value = report["median_seconds"][kind]
    return f"> {value:.0f} s" if report["timed_out"][kind] else f"{value:.2f} s"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    end_on_sigterm()  # once the flags are good: a usage error starts nothing
    figures = run(args)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(
        f"B's {args.small}-game board tournament, alone and behind A's {args.big}-game one; {args.workers} workers, "
        "2 random push bots"
    )
    print(
        f"environment: SORRY_ARENA_QUOTA_GAMES={figures['environment']['SORRY_ARENA_QUOTA_GAMES']} (API and "
        f"workers); SORRY_ARENA_FEED_WINDOW={DEFAULT_FEED_WINDOW} (default), {UNFAIR_WINDOW} in the unfair runs"
    )
    print(f"{'alone:':34}{seconds_text(figures, 'alone')}")
    print(f"{'behind the big one:':34}{seconds_text(figures, 'behind')}")
    print(f"{'behind / alone:':34}{figures['behind_vs_alone']:.3f}   (goal <= 2)")
    if "unfair" in figures["median_seconds"]:
        print(f"{f'behind, window {UNFAIR_WINDOW}:':34}{seconds_text(figures, 'unfair')}")
    print("each run: the small one's time, when its first game began, the load average; the big one's games done")
    for one in figures["runs"]:
        seconds = "timed out" if one["seconds"] is None else f"{one['seconds']:.2f} s"
        first = "-" if one["first_game_after_s"] is None else f"{one['first_game_after_s']:.2f} s"
        done = "" if one["big_games_done"] is None else f"; {one['big_games_done']} big games done"
        print(
            f"  {one['kind']:7} {seconds:>10}, first game at {first:>8}; load {one['load_average_1min']:.2f}{done}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
