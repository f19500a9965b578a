"""benchmarks/ladder_settle.py at a tiny size: every table size and both choices of opponents printed, the settling
count and the interval's coverage right on hand-made steps, bad options refused with a usage error."""

from __future__ import annotations

import random

import pytest

from benchmarks import ladder_settle
from benchmarks.ladder_settle import Step, newcomer, settle_games, settled_pool, stretch
from ratings.wenglin import SIGMA, half_width


def test_every_table_size_and_both_opponents(capsys: pytest.CaptureFixture[str]) -> None:
    ladder_settle.main(
        ["--bots", "12", "--runs", "2", "--warmup", "4", "--max-games", "30", "--settled", "100,400"]
    )
    out = capsys.readouterr().out
    for size in (2, 3, 4):
        assert f"{size} seats: the pool of 12 after 4 games a bot" in out
        assert f"{size} seats  pick_table 2 runs  ±100" in out and f"{size} seats  random     2 runs  ±100" in out
    assert out.count("|  ±400 ") == 6 and out.count("after 30: ±") == 6 and "load average after" in out


def test_a_pool_settles_and_a_newcomer_plays_its_games() -> None:
    rng = random.Random(4)
    pool = settled_pool(20, 3, 30, rng)
    assert len(pool.truth) == 20 and pool.clock == 20 * 30 // 3
    assert sum(sum(counts) for counts in pool.seat_counts) == 3 * pool.clock
    assert all(sigma < 0.6 * SIGMA for _, sigma in pool.ratings)  # every bot played, every rating grew surer
    slope, _ = stretch(pool)
    assert slope > 0.5  # the ratings order the bots as their truth does
    for matchmaking in (True, False):
        steps = newcomer(pool, matchmaking, 40, random.Random(5))
        assert len(steps) == 40
        assert steps[-1].half_width < steps[0].half_width < half_width(SIGMA)
    assert len(pool.truth) == 20  # the newcomer joined a copy


def test_games_to_settle_and_coverage() -> None:
    steps = [Step(300.0, 10.0, 0.0), Step(120.0, 150.0, 0.0), Step(90.0, 80.0, 0.0), Step(60.0, 70.0, 0.0)]
    assert settle_games(steps, 100.0) == 3
    assert settle_games(steps, 50.0) is None
    assert [step.covered for step in steps] == [True, False, True, False]
    assert "median     3  p90     3  settled 100%  covers 100%" in ladder_settle.summary([steps], [100.0])
    assert "median never" in ladder_settle.summary([steps], [50.0])


@pytest.mark.parametrize(
    "options",
    [["--seats", "5"], ["--seats", "two"], ["--runs", "0"], ["--bots", "3", "--seats", "4"], ["--settled", "0"]],
)
def test_bad_options_are_usage_errors(options: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        ladder_settle.main(options)
    assert stopped.value.code == 2
    assert "usage:" in capsys.readouterr().err
