"""benchmarks/ladder.py at a tiny size: every case measured in every round, games made in each, the medians
printed, bad options refused with a usage error."""

from __future__ import annotations

import pytest

from benchmarks import ladder


def test_every_case_every_round(capsys: pytest.CaptureFixture[str]) -> None:
    rows = ladder.main(
        ["--bots", "16,40", "--history", "0,50", "--games", "3", "--rounds", "2", "--databases", "sqlite"]
    )
    out = capsys.readouterr().out
    assert len(rows) == 8 and all(row["games"] >= 1 and row["cpu_us"] > 0 for row in rows)
    assert out.count("round 0") == 4 and out.count("round 1") == 4
    medians = out.split("medians over the rounds:")[1]
    assert "sqlite" in medians and "40 bots      50 games before" in medians and "load average after" in out


@pytest.mark.parametrize(
    "options",
    [["--bots", "ten"], ["--rounds", "0"], ["--bots", "4"], ["--databases", "oracle"], ["--history", "-1"]],
)
def test_bad_options_are_usage_errors(options: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        ladder.main(options)
    assert stopped.value.code == 2
    assert "usage:" in capsys.readouterr().err
