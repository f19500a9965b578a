"""`sorry-arena demo` (the README's first command): a real local tournament between the example bots, each bot a
process of its own, standings printed, exit 0: on the embedded default and on PostgreSQL + Redis with RQ workers."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from cli.demo import intervals_apart
from cli.main import main
from tests.databases import postgres_database


def standings_rows(out: str) -> list[str]:
    """The bot names of the printed standings table, best first."""
    return re.findall(r"^│\s*\d+ │ (\S+)", out, re.MULTILINE)


def test_the_demo_plays_a_tournament_and_prints_standings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", "card", "--rounds", "1", "--bots", "greedy,random"]) == 0
    out = capsys.readouterr().out
    assert "2/2" in out and "standings" in out and "in-process queue" in out
    assert sorted(standings_rows(out)) == ["greedy-1", "random-2"]


def test_the_default_demo_ranks_search_over_greedy_over_random_apart(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's acceptance: the default demo's standings show search > greedy > random, 95% intervals apart."""
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert standings_rows(out) == ["search-1", "greedy-2", "random-3"]
    assert "every 95% interval lies wholly above the next" in out


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
    assert "4/4" in out and sorted(standings_rows(out)) == ["greedy-1", "random-2"]


def test_intervals_apart_needs_every_interval_above_the_next() -> None:
    rows = [{"low": 1600, "high": 1700}, {"low": 1500, "high": 1590}, {"low": 1200, "high": 1400}]
    assert intervals_apart(rows)
    rows[1]["high"] = 1600
    assert not intervals_apart(rows)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--bots", "greedy"], "at least 2 bots"),
        (["--bots", "alpha,beta"], "unknown bots"),
        (["--rounds", "0"], "1 to 100"),
        (["--workers", "0"], "1 to 16"),
        (["--bots", "greedy,random", "--table-size", "3"], "needs at least 3 bots"),
    ],
)
def test_bad_demo_flags_are_usage_errors(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["demo", *flags])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
