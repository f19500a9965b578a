"""benchmarks/poolfit.py at a tiny size: every case measured in every round, the medians printed, bad options
refused with a usage error."""

from __future__ import annotations

import pytest

from benchmarks import poolfit


def test_every_case_every_round(capsys: pytest.CaptureFixture[str]) -> None:
    poolfit.main(["--bots", "20,40", "--per-bot", "10", "--exact", "12", "--rounds", "2"])
    out = capsys.readouterr().out
    assert out.count("round 0") == 6 and out.count("round 1") == 6  # standings and from keys at 2 sizes, 2 exact
    assert "exact fit (before)" in out and "load average after" in out
    medians = out.split("medians over the rounds:")[1]
    assert "standings" in medians and "from tally keys" in medians and "    40 bots       400 results" in medians


def test_a_pool_is_what_it_says() -> None:
    games = poolfit.random_pool(30, 101, seed=2)
    assert len(games) == 101
    assert sorted({len(players) for players, _ in games}) == [2, 4]
    assert all(
        len(set(players)) == len(players) and sorted(ranks) == list(range(len(ranks))) for players, ranks in games
    )


@pytest.mark.parametrize("options", [["--bots", "ten"], ["--rounds", "0"], ["--bots", "1"]])
def test_bad_options_are_usage_errors(options: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        poolfit.main(options)
    assert stopped.value.code == 2
    assert "usage:" in capsys.readouterr().err
