"""`sorry-arena demo` (the README's first command): a real local tournament between the example bots, each bot a
process of its own, standings printed, exit 0: on the embedded default and on PostgreSQL + Redis with RQ workers.
``--keep`` serves the pages afterwards until Ctrl-C; on a database that is not the demo's own (``DATABASE_URL``)
the tournament is unrated and the demo's bots are deactivated on exit, however the demo ends."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from sqlalchemy import create_engine, func, select

from cli.demo import intervals_apart
from cli.main import main
from store.models import Bot, RatingPool, Result, Tournament
from tests.databases import postgres_database

ROOT = Path(__file__).resolve().parents[2]
PATIENCE_S = 180.0
"""The longest wait for the demo to get somewhere: only reached when something is wrong (or the machine crawls)."""


def standings_rows(out: str) -> list[str]:
    """The bot names of the printed standings table, best first."""
    return re.findall(r"^│\s*\d+ │ (\S+)", out, re.MULTILINE)


def test_the_demo_plays_a_tournament_and_prints_standings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", "card", "--rounds", "1", "--bots", "greedy,random"]) == 0
    out = capsys.readouterr().out
    assert "2/2" in out and "standings" in out and "in-process queue" in out
    assert sorted(standings_rows(out)) == ["greedy-1", "random-2"]


def intervals(out: str) -> list[tuple[int, int]]:
    """The 95% intervals of the printed standings table, best first."""
    return [(int(low), int(high)) for low, high in re.findall(r"│\s*(\d+) to (\d+)\s*│", out)]


@pytest.mark.slow  # 960 games: `make test-slow`; the small demo above runs the same path in `make test`
def test_the_default_demo_ranks_search_over_greedy_over_random(capsys: pytest.CaptureFixture[str]) -> None:
    """The default demo's standings show search > greedy > random, random's interval wholly below greedy's, and the
    verdict the intervals give. Search is about 60 Elo above greedy, with intervals of about +-25 at 960 games, so
    the two are apart in most runs, not in every one: the line printed must say which."""
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert standings_rows(out) == ["search-1", "greedy-2", "random-3"]
    (search_low, _), (greedy_low, greedy_high), (_, random_high) = intervals(out)
    assert random_high < greedy_low
    apart = greedy_high < search_low
    assert ("every 95% interval lies wholly above the next" in out) is apart
    assert ("some 95% intervals overlap: more --rounds would tell those bots apart" in out) is not apart


@pytest.fixture
def services(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """A PostgreSQL database and an empty Redis database of the test's own, in the environment: their URLs."""
    for url in postgres_database("sorry_arena_demo"):
        monkeypatch.setenv("DATABASE_URL", url)
        monkeypatch.setenv("REDIS_URL", redis_url)
        yield url, redis_url


def test_with_database_and_redis_urls_the_demo_uses_postgresql_and_rq_workers(
    services: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--rounds", "2", "--bots", "greedy,random", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    line = " ".join(out.split())  # rich wraps long lines at the terminal's width
    database_url, redis_url = services
    assert database_url.split("@")[-1] in line and f"RQ on {redis_url}" in line
    names = sorted(standings_rows(out))  # a database not the demo's own: the names carry the demo's suffix
    assert "4/4" in out and [name.rsplit("-", 1)[0] for name in names] == ["greedy-1", "random-2"]
    assert len({name.rsplit("-", 1)[1] for name in names}) == 1


def test_intervals_apart_needs_every_interval_above_the_next() -> None:
    rows = [{"low": 1600, "high": 1700}, {"low": 1500, "high": 1590}, {"low": 1200, "high": 1400}]
    assert intervals_apart(rows)
    rows[1]["high"] = 1600
    assert not intervals_apart(rows)


def test_intervals_apart_judges_the_intervals_the_table_prints() -> None:
    """1599.6 and 1600.4 both print as 1600: the table shows the intervals meeting, so they are not called apart."""
    rows = [{"low": 1600.4, "high": 1700.0}, {"low": 1500.0, "high": 1599.6}]
    assert not intervals_apart(rows)
    rows[1]["high"] = 1599.4
    assert intervals_apart(rows)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--bots", "greedy"], "at least 2 bots"),
        (["--bots", "alpha,beta"], "unknown bots"),
        (["--rounds", "0"], "1 to 1000"),
        (["--workers", "0"], "1 to 16"),
        (["--bots", "greedy,random", "--table-size", "3"], "needs at least 3 bots"),
        (["--port", "8123"], "--port is the port of --keep's pages: give --keep too"),
        (["--keep", "--port", "70000"], "expected a port from 0 to 65535"),
    ],
)
def test_bad_demo_flags_are_usage_errors(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["demo", *flags])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


# --- on a database of the user's, and --keep ---------------------------------------------------------------------


def leftovers(url: str) -> dict[str, int]:
    """What a demo may leave in a database: active bots, rated or unfinished tournaments, rated results, rating
    pools."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            queries = {
                "bots": select(func.count()).select_from(Bot),
                "active bots": select(func.count()).where(Bot.active.is_(True)),
                "tournaments": select(func.count()).select_from(Tournament),
                "rated tournaments": select(func.count()).where(Tournament.rated.is_(True)),
                "unfinished tournaments": select(func.count()).where(
                    Tournament.status.in_(("scheduled", "running"))
                ),
                "rated results": select(func.count()).where(Result.rated.is_(True)),
                "rating pools": select(func.count()).select_from(RatingPool),
            }
            return {what: int(connection.scalar(query) or 0) for what, query in queries.items()}
    finally:
        engine.dispose()


def test_on_a_database_of_the_users_the_demo_is_unrated_and_deactivates_its_bots(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert main(["demo", "--rounds", "1", "--bots", "greedy,random"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "unrated (DATABASE_URL is not the demo's own); the demo's bots are deactivated on exit" in out
    assert leftovers(database_url) == {
        "bots": 2,
        "active bots": 0,
        "tournaments": 1,
        "rated tournaments": 0,
        "unfinished tournaments": 0,
        "rated results": 0,
        "rating pools": 0,
    }
    assert main(["demo", "--rounds", "1", "--bots", "greedy,random"]) == 0, "again, on the same database"
    assert leftovers(database_url)["bots"] == 4


def start_demo(
    flags: list[str], database_url: str | None, temp: Path | None = None, session: bool = False
) -> subprocess.Popen[str]:
    """The demo as a user starts it; its temporary folder in ``temp`` if given (``TMPDIR``), in a session (and
    process group) of its own if ``session``."""
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")}
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    if temp is not None:
        env["TMPDIR"] = str(temp)
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", "demo", "--game", "card", "--bots", "greedy,random", *flags],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=session,
    )


def read_until(process: subprocess.Popen[str], ending: str) -> list[str]:
    """The demo's lines up to the first that contains ``ending`` (an assertion error if it never comes)."""
    stdout = process.stdout
    assert stdout is not None
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:
        for line in stdout:
            lines.append(line)
            if ending in line:
                break
        seen.set()

    threading.Thread(target=read, daemon=True).start()
    seen.wait(PATIENCE_S)
    assert lines and ending in lines[-1], f"no {ending!r} from the demo (exit code {process.poll()}): {lines}"
    return lines


def interrupt(process: subprocess.Popen[str]) -> tuple[str, str]:
    process.send_signal(signal.SIGINT)
    try:
        return process.communicate(timeout=PATIENCE_S)
    finally:
        process.kill()


@pytest.mark.parametrize("where", ["own", "users"])
def test_keep_serves_the_tournament_and_standings_pages_until_ctrl_c(where: str, tmp_path: Path) -> None:
    database_url = None if where == "own" else f"sqlite:///{tmp_path / 'mine.db'}"
    process = start_demo(["--rounds", "1", "--keep"], database_url)
    try:
        lines = read_until(process, "serving the pages until Ctrl-C")
        addresses = dict(line.split(":", 1) for line in lines[-3:-1])
        tournament_url = addresses["tournament"].strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/tournaments/\d+", tournament_url), tournament_url
        with requests.Session() as session:
            session.trust_env = False
            page = session.get(tournament_url, timeout=PATIENCE_S)
            assert page.status_code == 200 and "greedy-1" in page.text and "random-2" in page.text
            if where == "own":
                standings_url = addresses["standings"].strip()
                assert standings_url.endswith("/standings/card/standard")
                page = session.get(standings_url, timeout=PATIENCE_S)
                assert page.status_code == 200 and "greedy-1" in page.text
            else:
                assert "unrated: not in the Elo standings" in addresses["standings"]
        out, err = interrupt(process)
    finally:
        process.kill()
    assert process.returncode == 0, (out, err)
    assert out.splitlines()[-1] == "stopped" and "Traceback" not in err, (out, err)
    if database_url is not None:
        left = leftovers(database_url)
        assert (left["active bots"], left["rated tournaments"], left["rating pools"]) == (0, 0, 0), left


def test_a_demo_interrupted_while_it_plays_still_deactivates_its_bots(database_url: str) -> None:
    process = start_demo(["--rounds", "100"], database_url)
    try:
        read_until(process, "games on")
        out, err = interrupt(process)
    finally:
        process.kill()
    assert process.returncode == 130 and "interrupted" in err, (out, err)
    assert "Traceback" not in err, err
    left = leftovers(database_url)
    assert (left["bots"], left["active bots"], left["rated tournaments"]) == (2, 0, 0), left
    assert left["unfinished tournaments"] == 0, "an interrupted demo cancels its tournament"


# --- SIGTERM: as Ctrl-C ------------------------------------------------------------------------------------------


def in_session(session: int) -> list[int]:
    """The live processes of ``session`` (a process started with a session of its own: its pid), zombies left out."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if fields[0] != "Z" and int(fields[3]) == session:  # state, ppid, pgrp, session
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("when", ["serving", "playing"])
def test_sigterm_stops_the_demo_as_ctrl_c_does(when: str, tmp_path: Path) -> None:
    """SIGTERM to the demo alone (as ``kill`` or a supervisor sends it): its bots stopped, its temporary folder
    removed, no process of its session left; exit 0 after ``stopped`` while ``--keep`` serves, 143 while it
    plays."""
    flags, ending = (
        (["--rounds", "1", "--keep"], "serving the pages")
        if when == "serving"
        else (["--rounds", "100"], "games on")
    )
    process = start_demo(flags, None, temp=tmp_path, session=True)
    try:
        read_until(process, ending)
        started = [pid for pid in in_session(process.pid) if pid != process.pid]
        assert len(started) == 2, f"the demo's two bots: {started}"
        assert len(list(tmp_path.glob("sorry-arena-demo-*"))) == 1
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=PATIENCE_S)  # not its output's end: a bot left behind would hold its stderr open
        left = in_session(process.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the test failed: nothing of the demo's may stay
        process.kill()
        out, err = process.communicate(timeout=PATIENCE_S)
    assert left == [], f"processes the demo started outlived it: {left} ({process.returncode}, {err})"
    assert list(tmp_path.iterdir()) == [], "the demo's temporary folder is left"
    assert "Traceback" not in err, err
    if when == "serving":
        assert process.returncode == 0 and out.splitlines()[-1] == "stopped", (out, err)
    else:
        assert process.returncode == 143 and err.splitlines()[-1] == "terminated", (out, err)
