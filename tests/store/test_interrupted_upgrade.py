"""An interrupted ``sorry-arena db upgrade`` never wedges the database (store/migrate.py, store/migrations/env.py).

A real ``sorry-arena db upgrade`` process is killed with SIGKILL at a random point: after a random number of its
migrations have started (it prints a line as each starts) and a random delay more, or a random delay after its start.
The kill leaves the database at a revision boundary (its tables and columns are those of that revision, no batch copy
``_alembic_tmp_*`` left), and the next upgrade reaches head, ``db check`` passes and the data is all there. 20 kills
on SQLite (from an empty file, and from revision 0006 with data), 5 on PostgreSQL. Then: a batch copy an older
release's interrupted run left beside its table is dropped, with a line, where it made every later upgrade fail.
"""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, func, inspect, make_url, select, text

import engine
from cli.main import main
from store import migrate
from tests.databases import postgres_database
from tests.store.test_bot_versions_migration import WHEN, fill, table

MOVES = 300
"""Moves written for ``fill``'s game (fewer if it ends first)."""
KILLS_SQLITE = 20
SPAWNED = 2
"""Of the SQLite kills, those of a new ``sorry-arena`` interpreter (the others: forks of a loaded one, ``Forker``)."""
KILLS_POSTGRESQL = 5
DEADLINE_S = 120.0
"""How long a killed run may take to reach its kill point (generous: only a crawling machine comes near it)."""
RENAMED = {1: "greedy", 2: "greedy-2", 3: "greedy", 4: "greedy-4", 5: "x" * 64, 6: "x" * 62 + "-6"}
"""The bots' names once 0007 told apart the active ones that shared one (``fill``'s bots)."""


def shape(url: str) -> dict[str, set[str]]:
    """Each table's columns (alembic's own table left out)."""
    engine = create_engine(url)
    try:
        found = inspect(engine)
        return {
            name: {column["name"] for column in found.get_columns(name)}
            for name in found.get_table_names()
            if name != "alembic_version"
        }
    finally:
        engine.dispose()


class Shapes:
    """The tables and columns of each revision, from one SQLite database migrated a revision at a time (once)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.known: dict[str | None, dict[str, set[str]]] = {}

    def of(self, revision: str | None) -> dict[str, set[str]]:
        if not self.known:
            url = f"sqlite:///{self.folder / 'shapes.db'}"
            self.known[None] = {}
            for step in sorted(migrate.revisions()):  # 0001, 0002, ...: one line of migrations
                migrate.upgrade(url, step)
                self.known[step] = shape(url)
        return self.known[revision]


def upgrade_killed(url: str, migrations: int, rng: random.Random) -> str:
    """Run ``sorry-arena db upgrade`` on ``url`` and SIGKILL it at a random point (see the module's docstring); how
    it was killed, for messages."""
    started = rng.randint(0, migrations)
    delay = rng.uniform(0, 0.15) if started else rng.uniform(0, 2.5)
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "db", "upgrade", "--database-url", url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)
        lines.put("")  # the end

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        seen, said = 0, []
        while seen < started:
            line = lines.get(timeout=DEADLINE_S)
            said.append(line)
            if not line:
                break  # it ended first
            seen += line.startswith("Running upgrade")
        assert "Traceback" not in "".join(said), "".join(said)
        threading.Event().wait(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=DEADLINE_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(timeout=DEADLINE_S)
    return f"killed {delay:.3f} s after migration {started} started (of {migrations})"


class Forker:
    """``tests/store/forked_upgrades.py``, started once: each upgrade it runs is a fork of a process that loaded the
    command line's modules already (a new interpreter spends a second of CPU on them, which 20 kills would pay 20
    times), running the command's own ``main``."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.store.forked_upgrades"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=DEADLINE_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()

    def upgrade_killed(self, url: str, migrations: int, rng: random.Random) -> str:
        """As :func:`upgrade_killed`, in a fork; its lines read from its log as they come."""
        started = rng.randint(0, migrations)
        delay = rng.uniform(0, 0.15) if started else rng.uniform(0, 0.5)
        log = Path(f"{migrate.sqlite_file(url)}.log")
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{url}\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        assert reply.startswith("pid "), reply
        pid = int(reply.split()[1])

        def reached() -> bool:
            said = log.read_text() if log.exists() else ""
            return said.count("Running upgrade") >= started or "at revision" in said or "Traceback" in said

        try:
            deadline = time.monotonic() + DEADLINE_S
            while not reached():  # polled often: a migration may take a few milliseconds
                assert time.monotonic() < deadline, f"migration {started} not started within {DEADLINE_S} s"
                time.sleep(0.002)
            threading.Event().wait(delay)
        finally:
            os.kill(pid, signal.SIGKILL)  # its parent reaps it only once told, so the pid is not reused meanwhile
            self.process.stdin.write("killed\n")
            self.process.stdin.flush()
        reply = self.process.stdout.readline()
        assert reply.startswith("exit "), reply
        assert "Traceback" not in log.read_text(), log.read_text()
        return f"forked, killed {delay:.3f} s after migration {started} started (of {migrations})"


def counts(url: str) -> dict[str, Any]:
    """What ``fill`` wrote, as the database holds it after the upgrade."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            found: dict[str, Any] = {
                name: connection.execute(select(func.count()).select_from(table(engine, name))).scalar_one()
                for name in ("players", "bots", "games", "actions", "tournaments", "results", "bot_versions")
            }
            bots = table(engine, "bots")
            found["names"] = dict(connection.execute(select(bots.c.id, bots.c.name)).all())
            results = table(engine, "results")
            found["result"] = tuple(connection.execute(select(results.c.bot_ids, results.c.ranks)).one())
            return found
    finally:
        engine.dispose()


def fill_more(url: str) -> None:
    """``fill``'s rows, and the moves of its game (so that the migrations that copy or replay them have some)."""
    engine = create_engine(url)
    try:
        fill(engine)
        with engine.begin() as connection:
            connection.execute(
                table(engine, "actions").insert(),
                [
                    {"game_id": 1, "ply": ply, "seat": seat, "action": action, "created_at": WHEN}
                    for ply, (seat, action) in enumerate(played(MOVES))
                ],
            )
    finally:
        engine.dispose()


def played(moves: int) -> list[tuple[int, str]]:
    """The first ``moves`` moves (seat, action) of ``fill``'s game (card, two players, seed 1), each seat taking its
    first legal action: moves the engine replays (migration 0009's downgrade does)."""
    state = engine.new_game("card", {"players": 2}, 1)
    made: list[tuple[int, str]] = []
    while len(made) < moves and (asked := engine.decision(state)) is not None:
        action = engine.legal_actions(state, asked.seat)[0].id
        engine.apply(state, action, asked.seat, events=False)
        made.append((asked.seat, action))
    return made


EXPECTED = {
    "players": 7,
    "bots": 6,
    "games": 1,
    "actions": len(played(MOVES)),
    "tournaments": 1,
    "results": 1,
    "bot_versions": 6,
    "names": RENAMED,
    "result": ([2, 1], [0, 1]),
}


def recovered(url: str, capsys: pytest.CaptureFixture[str], how: str) -> None:
    """The next upgrade reaches head and ``db check`` passes."""
    assert main(["db", "upgrade", "--database-url", url]) == 0, how
    assert migrate.current(url) == migrate.head(), how
    assert main(["db", "check", "--database-url", url]) == 0, (how, capsys.readouterr())
    capsys.readouterr()


def scratch_tables(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        return [name for name in inspect(engine).get_table_names() if name.startswith(migrate.SCRATCH_PREFIX)]
    finally:
        engine.dispose()


def test_a_sqlite_upgrade_killed_anywhere_goes_on_to_head_the_next_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    shapes = Shapes(tmp_path)
    old = tmp_path / "at-0006.db"
    migrate.upgrade(f"sqlite:///{old}", "0006")
    fill_more(f"sqlite:///{old}")
    migrations = int(migrate.head() or 0)
    forker = Forker()
    try:
        for kill in range(KILLS_SQLITE):
            with_data = kill % 2 == 1
            path = tmp_path / f"kill-{kill}.db"
            if with_data:
                migrate.backup(old, path)
            url = f"sqlite:///{path}"
            run = upgrade_killed if kill < SPAWNED else forker.upgrade_killed
            how = f"seed {seed}, kill {kill} ({'from 0006 with data' if with_data else 'from empty'}): " + run(
                url, migrations - 6 if with_data else migrations, rng
            )
            assert scratch_tables(url) == [], how
            at = migrate.current(url)
            assert shape(url) == shapes.of(at), f"{how}: not at a revision boundary ({at})"
            recovered(url, capsys, how)
            if with_data:
                assert counts(url) == EXPECTED, how
                copies = sorted(path.parent.glob(f"{path.name}.pre-*"))
                assert len(copies) == 1, (how, copies)  # the newest copy only
            for leftover in path.parent.glob(f"{path.name}*"):
                leftover.unlink()
    finally:
        forker.close()


def test_a_postgresql_upgrade_killed_anywhere_goes_on_to_head_the_next_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    migrations = int(migrate.head() or 0) - 6
    for template in postgres_database("sorry_arena_killed_upgrade_0006"):
        migrate.upgrade(template, "0006")
        fill_more(template)  # every engine on it disposed: it can be copied
        for kill in range(KILLS_POSTGRESQL):
            for url in postgres_database("sorry_arena_killed_upgrade", template=make_url(template).database):
                how = f"seed {seed}, kill {kill}: " + upgrade_killed(url, migrations, rng)
                assert migrate.current(url) in migrate.revisions(), how
                recovered(url, capsys, how)
                assert counts(url) == EXPECTED, how


def test_a_batch_copy_left_by_an_older_release_is_dropped_with_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'wedged.db'}"
    migrate.upgrade(url, "0014")
    engine = create_engine(url)
    try:
        with engine.begin() as connection:  # what an older release's run killed inside 0015's batch left
            connection.execute(text("CREATE TABLE _alembic_tmp_players AS SELECT * FROM players"))
    finally:
        engine.dispose()
    assert main(["db", "upgrade", "--database-url", url]) == 0
    err = capsys.readouterr().err
    assert "dropped the table _alembic_tmp_players, left by an interrupted upgrade" in err
    assert scratch_tables(url) == []
    assert main(["db", "check", "--database-url", url]) == 0
