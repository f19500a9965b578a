"""``benchmarks/tournament.py``, small, on SQLite and PostgreSQL: ``rows`` gives one row per round with every figure,
its derived figures taken within the round and the load average (and, with another checkout to compare, its worker's
figure); a PostgreSQL run creates a database of its own and drops it; the command's usage errors. Speed is
measured, never asserted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import create_engine, select, text

from benchmarks import tournament as bench
from runtime.settings import Settings
from service.api import tournaments as tournaments_api
from service.app import create_app
from store.models import Game, Result
from tests.databases import ADMIN_URL, postgres_database

ROOT = Path(__file__).resolve().parents[2]


def bench_databases() -> set[str]:
    """The databases the benchmark created in this process (named with its pid: other runs on the machine, a
    checkout's or an xdist worker's, may be creating theirs meanwhile)."""
    engine = create_engine(ADMIN_URL)
    try:
        with engine.connect() as connection:
            names = connection.execute(
                text("SELECT datname FROM pg_database WHERE datname LIKE :mine"),
                {"mine": f"sorry\\_arena\\_bench\\_{os.getpid()}\\_%"},
            )
            return {name for (name,) in names}
    finally:
        engine.dispose()


def check_row(row: dict[str, Any], database: str, compared: bool) -> None:
    """A round's figures: each one there and positive, each derived one computed from them within the round."""
    assert (
        row["bare_calls_per_s"] > 0 and row["one_worker_moves_per_s"] > 0 and row["core_workers_moves_per_s"] > 0
    )
    assert row["core_workers_vs_one"] == round(row["core_workers_moves_per_s"] / row["one_worker_moves_per_s"], 3)
    assert row["load_before"] >= 0 and row["load_after"] >= 0
    beyond = row["one_worker_cpu_us_per_move"] - row["bare_client_cpu_us_per_call"]
    assert row["worker_beyond_call_us"] == round(beyond, 1)
    assert row["moves_per_worker_core_s"] == round(1e6 / row["one_worker_cpu_us_per_move"], 1)
    per_move = sum(row.get(f"core_workers_{part}cpu_us_per_move", 0) for part in ("", "bots_", "database_"))
    ceiling = bench.CORES * 1e6 / per_move
    assert row["ceiling_share"] == round(row["core_workers_moves_per_s"] / ceiling, 3) > 0
    for key in ("bare_client", "bare_bots", "one_worker", "one_worker_bots", "core_workers"):
        assert row[f"{key}_cpu_us_per_{'call' if key.startswith('bare') else 'move'}"] > 0
    if database == "postgresql":  # the server's backends of the benchmark's database, on this machine
        assert row["one_worker_database_cpu_us_per_move"] > 0
        assert row["core_workers_database_cpu_us_per_move"] > 0
    else:
        assert "one_worker_database_cpu_us_per_move" not in row
    if not compared:
        assert "one_worker_compare_moves_per_s" not in row
    else:
        assert row["one_worker_compare_cpu_us_per_move"] > 0
        assert row["bare_compare_calls_per_s"] > 0 and row["bare_compare_client_cpu_us_per_call"] > 0
        own = row["one_worker_compare_cpu_us_per_move"] - row["bare_compare_client_cpu_us_per_call"]
        assert row["worker_beyond_call_us_of_compare"] == round(own, 1)


def test_a_round_measures_every_figure_and_the_load(redis_url: str) -> None:
    """One round on SQLite, every figure and its derived ones: the smoke run of ``make test`` (the A/B against a
    checkout, PostgreSQL's server CPU and the rounds' alternating order are ``make test-slow``'s, below)."""
    found = bench.rows(redis_url=redis_url, bots=2, rounds=1, repeat=1, seconds=0.3, slots=2, awake=False)
    assert [row["round"] for row in found] == [1]
    check_row(found[0], "sqlite", compared=False)
    assert bench.summary(found)["worker_beyond_call_us"] == found[0]["worker_beyond_call_us"]


@pytest.mark.slow  # two rounds of five measurements, each starting workers: a minute or more
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_rows_measure_each_round_with_its_figures_and_load(database: str, redis_url: str) -> None:
    server = None
    if database == "postgresql":
        for _ in postgres_database():  # the server answers (else: skipped, or failed in CI), nothing more
            server = ADMIN_URL
        before = bench_databases()
    compare_root = ROOT if database == "sqlite" else None  # an A/B against a checkout: here, this one
    found = bench.rows(
        database_url=server,
        redis_url=redis_url,
        bots=2,
        rounds=1,
        repeat=2,
        seconds=0.3,
        slots=2,
        compare_root=compare_root,
    )
    assert [row["round"] for row in found] == [1, 2]
    for row in found:
        check_row(row, database, compared=compare_root is not None)
    medians = bench.summary(found)
    assert medians["worker_beyond_call_us"] == round(
        (found[0]["worker_beyond_call_us"] + found[1]["worker_beyond_call_us"]) / 2, 3
    )
    if database == "postgresql":
        assert before == set() and bench_databases() == set()  # its own database is gone


def test_a_tournament_counts_every_games_moves_beyond_the_results_its_detail_holds(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The moves counted are those of every game of the tournament, read from the database, not those of the
    results its API detail lists (the first ``DETAIL_RESULTS``: here one, of two games)."""
    monkeypatch.setattr(tournaments_api, "DETAIL_RESULTS", 1)
    connection = redis.Redis.from_url(redis_url)
    with bench.own_database(None) as url, bench.push_bots(2) as running:
        app = create_app(Settings(database_url=url, redis_url=redis_url, bot_allow="loopback"))
        client = app.test_client()
        token, bot_ids = bench.register(client, [bot_url for bot_url, _ in running], "card")
        sessions = app.extensions["db_sessions"]
        with bench.workers(1, url, redis_url, connection, slots=2):
            moves, seconds = bench.tournament_moves(client, token, bot_ids, "card", 1, sessions)
        with sessions() as session:
            plies = session.scalars(select(Game.ply).join(Result, Result.game_id == Game.id)).all()
        app.extensions["db_engine"].dispose()
    assert len(plies) == 2 and min(plies) > 0
    assert moves == sum(plies) and seconds > 0


def test_awake_cores_spin_at_the_lowest_priority_and_stop_with_the_block() -> None:
    with bench.awake_cores(2) as pids:
        assert len(pids) == 2
        deadline = time.monotonic() + 30
        while not all(os.sched_getscheduler(pid) == os.SCHED_IDLE for pid in pids):  # each sets its own policy
            assert time.monotonic() < deadline, "the spinners never took SCHED_IDLE"
            time.sleep(0.05)
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)  # killed and reaped


def test_server_cpu_counts_each_backend_from_the_first_reading_or_from_its_start() -> None:
    assert bench.server_cpu_used({1: 2.0, 2: 5.0}, {1: 3.5, 3: 0.25}) == 1.75  # 3 started meanwhile; 2 ended
    assert bench.server_cpu_used(None, {1: 1.0}) is None and bench.server_cpu_used({1: 1.0}, None) is None


def test_server_cpu_is_none_on_sqlite(tmp_path: Path) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'x.db'}"))
    try:
        assert bench.server_cpu_seconds(app.extensions["db_sessions"]) is None
    finally:
        app.extensions["db_engine"].dispose()


def test_summary_leaves_out_a_figure_some_round_lacks() -> None:
    found = [{"round": 1, "a": 1.0, "b": 2.0}, {"round": 2, "a": 3.0}]
    assert bench.summary(found) == {"a": 2.0}


def test_bare_rate_counts_the_calls_of_every_thread() -> None:
    with bench.bot_processes(1) as urls:
        rate = bench.bare_rate(urls, bench.move_payload("card"), threads=3, seconds=0.3)
    assert rate > 0


def test_a_checkouts_bare_client_runs_in_a_process_of_its_own() -> None:
    with bench.bot_processes(1) as urls:
        timed = bench.bare_calls_of(bench.ROOT, urls, bench.move_payload("board"), threads=2, seconds=0.3)
        assert timed.calls > 0 and timed.seconds >= 0.3 and timed.cpu_seconds > 0
        with pytest.raises(RuntimeError, match="the bare client of"):
            bench.bare_calls_of(bench.ROOT, ["http://127.0.0.1:1/bot"], {}, threads=1, seconds=0.1)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--database-url", "sqlite:///x.db"], "--database-url names a PostgreSQL server"),
        (["--compare-root", str(ROOT / "docs")], "is no checkout of this project"),
        (["--seconds", "0"], "--seconds must be positive"),
    ],
)
def test_usage_errors(flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        bench.main(flags)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_a_process_that_ignores_sigterm_is_reported_and_killed() -> None:
    """A worker that missed its SIGTERM failed a benchmark's run, and went on running after it (its database and
    Redis gone): now it is killed, with the others, before the error is raised."""
    ignoring = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
    stubborn = subprocess.Popen([sys.executable, "-c", ignoring], stdout=subprocess.PIPE)
    polite = subprocess.Popen(
        [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"], stdout=subprocess.PIPE
    )
    for process in (stubborn, polite):
        assert process.stdout is not None and process.stdout.readline() == b"ready\n"
    with pytest.raises(subprocess.TimeoutExpired):
        bench.end_all([stubborn, polite], timeout=1)
    assert stubborn.returncode == -9
    assert polite.returncode is not None
    for process in (stubborn, polite):
        assert process.stdout is not None
        process.stdout.close()
