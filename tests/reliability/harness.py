"""A real tournament for the reliability tests: the service app (through its test client), push bots in processes
of their own, ``sorry-arena worker`` processes, a private PostgreSQL and Redis (``servers.py``); and the one check
every test ends with, :func:`check_tournament`.

The workers run with a short lease (``LEASE_SECONDS``) and maintenance every second, so that a game whose worker
died or whose job was lost is played on within seconds.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from store.models import ActionRecord, Game, RatingPool, Result, Tournament, TournamentGame
from tests import runs
from tests.apikit import Player, new_player
from tests.arenakit import SECRET, create_tournament, register, wait_for
from tournament.standings import tables

ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 3
MAINTENANCE_SECONDS = 1
FIGURES = ROOT / "test-output" / "reliability-figures.json"


def record(name: str, value: float | int | str) -> None:
    """Keep a figure the reliability suite measured (``test-output/reliability-figures.json``, newest run of each
    test; docs/guarantees.md quotes them with the command that made them), and print it (``pytest -s``). The file
    is locked while it is rewritten: xdist's workers record at the same time."""
    FIGURES.parent.mkdir(exist_ok=True)
    with open(FIGURES.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        figures = json.loads(FIGURES.read_text()) if FIGURES.exists() else {}
        figures[name] = value
        FIGURES.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    print(f"{name}: {value}")


def stop_all(processes: Sequence[subprocess.Popen[Any]]) -> None:
    """Terminate the processes still running, then kill the process group of any that does not end in 10 s."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


class Workers:
    """``sorry-arena worker`` processes on the private servers, each logging to a file of its own."""

    def __init__(self, database_url: str, redis_url: str, logs: Path) -> None:
        self.database_url, self.redis_url, self.logs = database_url, redis_url, logs
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, *flags: str, clock: bool = False) -> subprocess.Popen[bytes]:
        """Start a worker (``clock``: with its clock, which starts the tournament runs due)."""
        env = {
            **os.environ,
            "SORRY_ARENA_BOT_ALLOW": "loopback",
            "SORRY_ARENA_LEASE_SECONDS": str(LEASE_SECONDS),
            "PYTHONUNBUFFERED": "1",
        }
        log = open(self.logs / f"worker{len(self.processes)}.log", "wb")  # noqa: SIM115 (the process holds it)
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cli.main",
                "worker",
                "--database-url",
                self.database_url,
                "--redis-url",
                self.redis_url,
                "--maintenance-interval",
                str(MAINTENANCE_SECONDS),
                *([] if clock else ["--no-clock"]),
                *flags,
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: whatever it starts ends with it
            preexec_fn=runs.die_with_parent,  # started on the test's (main) thread
        )
        log.close()
        self.processes.append(process)
        return process

    def wait_listening(self, timeout: float = 60) -> None:
        """Until every worker started so far has registered with Redis and waits for jobs (a worker that cannot
        reach Redis at its start exits: a fault injected before then would test nothing)."""
        deadline = time.monotonic() + timeout
        for number, process in enumerate(self.processes):
            log = self.logs / f"worker{number}.log"
            while "listening on queue" not in log.read_text(errors="replace"):
                assert process.poll() is None, f"worker {number} exited\n{self.log_text()}"
                assert time.monotonic() < deadline, (
                    f"worker {number} not listening in {timeout} s\n{self.log_text()}"
                )
                time.sleep(0.05)

    def by_name(self, worker: str) -> subprocess.Popen[bytes]:
        """The process of a worker named as in ``tournament_games.worker`` (``host:pid``, the default name)."""
        pid = int(worker.rsplit(":", 1)[1])
        return next(process for process in self.processes if process.pid == pid)

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)

    def alive(self) -> list[subprocess.Popen[bytes]]:
        return [process for process in self.processes if process.poll() is None]

    def log_text(self, tail: int | None = 4000) -> str:
        """The workers' logs (the last ``tail`` characters of each; ``None``: all of them)."""
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-tail if tail else 0 :]}"
            for path in sorted(self.logs.glob("*.log"))
        )

    def stop(self) -> None:
        stop_all(self.processes)


class Bots:
    """Push bots in processes of their own (``tests/reliability/botproc.py``)."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen[str]] = []

    def start(self, kind: str, delay: float = 0.0, port: int = 0) -> str:
        """Start a bot of ``kind`` (``port``: a random bot's, 0 for any free one); its URL once it listens."""
        command = [
            sys.executable,
            "-m",
            "tests.reliability.botproc",
            kind,
            "--delay",
            str(delay),
            "--secret",
            SECRET,
        ]
        process = subprocess.Popen(
            [*command, "--port", str(port)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
            preexec_fn=runs.die_with_parent,  # started on the test's (main) thread
        )
        self.processes.append(process)
        assert process.stdout is not None
        line = process.stdout.readline()  # the bot prints its URL once it listens (or exits: an empty line)
        found = re.fullmatch(r"url (\S+)\n", line)
        assert found, f"bot {kind} did not start: {line!r} (exit code {process.poll()})"
        return found.group(1)

    def stop(self) -> None:
        stop_all(self.processes)
        for process in self.processes:
            if process.stdout is not None:
                process.stdout.close()


@dataclass
class Arena:
    """One test's tournament world: the app on a fresh database of the private PostgreSQL, the private Redis, the
    workers and the bots."""

    app: Flask
    workers: Workers
    bots: Bots
    owner: Player | None = None
    bot_ids: dict[str, int] = field(default_factory=dict)

    @property
    def client(self) -> FlaskClient:
        return self.app.test_client()

    def sessions(self) -> Session:
        session: Session = self.app.extensions["db_sessions"]()
        return session

    def register_bot(self, name: str, kind: str, delay: float = 0.0) -> int:
        """Start a bot process of ``kind`` and register it (its URL is proved by the service)."""
        if self.owner is None:
            self.owner = new_player(self.client, "owner")
        url = self.bots.start(kind, delay)
        self.bot_ids[name] = register(self.client, self.owner, name, url)["id"]
        return self.bot_ids[name]

    def create_tournament(self, bot_ids: list[int], **fields: Any) -> int:
        assert self.owner is not None
        created = create_tournament(self.client, self.owner, bot_ids, **fields)
        return int(created["id"])

    def wait_until(self, what: str, ready: Callable[[Session], Any], timeout: float = 60) -> Any:
        """Poll ``ready(session)`` until it is truthy (its value returned); database errors (a restart) are
        waited out like a falsy answer."""
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        while True:
            try:
                with self.sessions() as session:
                    value = ready(session)
                if value:
                    return value
            except Exception as error:  # the database is restarting: ask again
                last_error = error
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{what}: not within {timeout} s (last error: {last_error!r})\n{self.progress()}\n"
                    f"{self.workers.log_text()}"
                )
            time.sleep(0.05)

    def wait_done(self, tournament_id: int, timeout: float = 90) -> None:
        def done(session: Session) -> bool:
            return session.scalar(select(Tournament.status).where(Tournament.id == tournament_id)) == "done"

        self.wait_until(f"tournament {tournament_id} done", done, timeout)

    def progress(self) -> str:
        try:
            with self.sessions() as session:
                rows = session.execute(
                    select(TournamentGame.id, TournamentGame.status, TournamentGame.attempts, Game.ply)
                    .outerjoin(Game, Game.id == TournamentGame.game_id)
                    .order_by(TournamentGame.id)
                ).all()
            return "scheduled games (id, status, attempts, ply): " + ", ".join(str(tuple(row)) for row in rows)
        except Exception as error:
            return f"(no progress: {error!r})"

    def mid_game(self, min_ply: int = 10, timeout: float = 60) -> tuple[int, str]:
        """Wait until a scheduled game is running with at least ``min_ply`` moves saved: (its id, its worker)."""

        def playing(session: Session) -> tuple[int, str] | None:
            row = session.execute(
                select(TournamentGame.id, TournamentGame.worker)
                .join(Game, Game.id == TournamentGame.game_id)
                .where(TournamentGame.status == "running", Game.ply >= min_ply, Game.status == "active")
                .limit(1)
            ).first()
            return (row[0], row[1]) if row is not None and row[1] is not None else None

        found: tuple[int, str] = self.wait_until(f"a game running past ply {min_ply}", playing, timeout)
        return found


def count_statuses(session: Session, tournament_id: int) -> Counter[str]:
    return Counter(
        session.scalars(select(TournamentGame.status).where(TournamentGame.tournament_id == tournament_id))
    )


def own_faults(session: Session, game_id: int, seat: int) -> list[str | None]:
    return list(
        session.scalars(
            select(ActionRecord.fault)
            .where(ActionRecord.game_id == game_id, ActionRecord.seat == seat)
            .order_by(ActionRecord.ply)
        )
    )


def check_tournament(app: Flask, tournament_id: int, *, only_tournament_games: bool = True) -> list[Result]:
    """The invariant every reliability test ends with; the tournament's results.

    - the tournament is done, every scheduled game is done (its lease released) with exactly one result, written
      for that game and its bots;
    - each game was played once to its end: one game row per scheduled game (``only_tournament_games``: no other
      game exists in the database, so none was created twice), its saved actions have each ply exactly once, from
      0 to its ply, and replay from the seed to the saved position, which is the end of the game (or every seat but
      one forfeited); the result counts those moves and each seat's faults;
    - the stored standings equal a recomputation from the stored results: the tournament's fitted table (with its
      intervals) and the Elo table of its rating pool.
    """
    with app.extensions["db_sessions"]() as session:
        tournament = session.get(Tournament, tournament_id)
        assert tournament is not None
        assert tournament.status == "done", f"tournament {tournament_id} is {tournament.status}"
        scheduled = list(
            session.scalars(select(TournamentGame).where(TournamentGame.tournament_id == tournament_id))
        )
        assert len(scheduled) == tournament.games_total
        assert all(game.status == "done" and game.lease_until is None for game in scheduled), [
            (game.id, game.status, game.lease_until) for game in scheduled
        ]
        results = list(
            session.scalars(select(Result).where(Result.tournament_id == tournament_id).order_by(Result.id))
        )
        per_game = Counter(result.tournament_game_id for result in results)
        assert per_game == Counter(game.id for game in scheduled), "not exactly one result per scheduled game"
        by_scheduled = {result.tournament_game_id: result for result in results}
        for entry in scheduled:
            result = by_scheduled[entry.id]
            assert entry.game_id is not None and result.game_id == entry.game_id
            assert result.bot_ids == entry.bot_ids
            check_game(session, entry.game_id, result)
        if only_tournament_games:
            games = session.scalar(select(func.count(Game.id)))
            everywhere = session.scalar(select(func.count(TournamentGame.id)))
            assert games == everywhere, f"{games} games for {everywhere} scheduled games: one was created twice"
        assert tournament.standings_through == tournament.games_total
        recomputed = tables.tournament_table(session, tournament.id, tournament.bot_ids)
        assert tournament.standings == json.loads(json.dumps(recomputed))
        if tournament.rated:  # the pool's refit is a job off the game path: its table may come a little later
            key = RatingPool.key(tournament.game, tournament.variant, tournament.table_size)
            through, games_rated, table = tables.pool_table(
                session, tournament.game, tournament.variant, tournament.table_size
            )

            def refit() -> RatingPool | None:
                with app.extensions["db_sessions"]() as reader:
                    found = reader.scalars(select(RatingPool).where(*key)).one()
                    reader.expunge(found)
                return found if found.games == games_rated else None

            pool = wait_for(f"the pool's table of {games_rated} games", refit, timeout=120)
            assert (pool.through, pool.games, pool.table) == (through, games_rated, json.loads(json.dumps(table)))
        session.expunge_all()
    return results


def check_game(session: Session, game_id: int, result: Result) -> None:
    game = session.get(Game, game_id)
    assert game is not None and game.status == "over", f"game {game_id} is not over"
    rows = session.execute(
        select(ActionRecord.ply, ActionRecord.seat, ActionRecord.action, ActionRecord.fault)
        .where(ActionRecord.game_id == game_id)
        .order_by(ActionRecord.ply)
    ).all()
    plies = [row.ply for row in rows]
    assert plies == list(range(game.ply)), f"game {game_id}: plies are not 0..{game.ply - 1} once each"
    replayed = engine.replay(game.game, game.settings, game.seed, [row.action for row in rows])
    assert engine.to_json(replayed) == json.loads(game.state), f"game {game_id}: its log does not replay"
    seats = len(result.ranks)
    assert engine.is_over(replayed) or len(result.forfeited) >= seats - 1, f"game {game_id} ended early"
    assert result.moves == game.ply
    assert game.result is not None
    assert (game.result["ranks"], game.result["forfeited"]) == (result.ranks, result.forfeited)
    faults = [0] * seats
    for row in rows:
        if row.fault not in (None, "forfeit"):
            faults[row.seat] += 1
    assert result.faults == faults, f"game {game_id}: faults {result.faults}, its log says {faults}"
