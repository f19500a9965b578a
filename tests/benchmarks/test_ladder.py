"""benchmarks/ladder.py at a tiny size: every case measured in every round, games made in each, the medians
printed, bad options refused with a usage error."""

from __future__ import annotations

import pytest

from benchmarks import ladder
from tests.databases import ADMIN_URL, postgres_database


def test_every_case_every_round(capsys: pytest.CaptureFixture[str]) -> None:
    rows = ladder.main(
        ["--bots", "16,40", "--history", "0,50", "--games", "3", "--rounds", "2", "--databases", "sqlite"]
    )
    out = capsys.readouterr().out
    assert len(rows) == 8 and all(row["games"] >= 1 and row["cpu_us"] > 0 for row in rows)
    assert out.count("round 0") == 4 and out.count("round 1") == 4
    medians = out.split("medians over the rounds:")[1]
    assert "sqlite" in medians and "40 bots      50 games before" in medians and "load average after" in out


def test_postgresql_rounds_give_the_servers_cpu_too(capsys: pytest.CaptureFixture[str]) -> None:
    for _ in postgres_database():  # the server answers (else: skipped, or failed in CI), nothing more
        pass
    rows = ladder.main(
        ["--bots", "24", "--history", "0", "--games", "3", "--rounds", "1", "--databases", "postgresql"]
        + ["--postgresql-url", ADMIN_URL]
    )
    out = capsys.readouterr().out
    assert len(rows) == 1 and rows[0]["games"] >= 1 and rows[0]["wall_us"] > 0
    assert rows[0]["server_us"] is not None and rows[0]["server_us"] > 0  # the server runs here: its CPU is read
    assert "server CPU" in out.split("medians over the rounds:")[1] and "n/a" not in out


@pytest.mark.parametrize(
    "options",
    [["--bots", "ten"], ["--rounds", "0"], ["--bots", "4"], ["--databases", "oracle"], ["--history", "-1"]],
)
def test_bad_options_are_usage_errors(options: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        ladder.main(options)
    assert stopped.value.code == 2
    assert "usage:" in capsys.readouterr().err
