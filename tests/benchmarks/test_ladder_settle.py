"""benchmarks/ladder_settle.py at a tiny size: every table size and both choices of opponents printed, a round
seats every bot once and the newcomer first, a newcomer's fits stop when it settles, the settling count and the
interval's coverage right on hand-made steps, the slopes right, bad options refused with a usage error."""

from __future__ import annotations

import random

import pytest

from benchmarks import ladder_settle
from benchmarks.ladder_settle import Step, newcomer, settle_games, slope, warmed_pool
from ratings.wenglin import SIGMA


def test_every_table_size_and_both_opponents(capsys: pytest.CaptureFixture[str]) -> None:
    ladder_settle.main(
        ["--bots", "12", "--runs", "2", "--warmup", "4", "--max-games", "20", "--settled", "100,400"]
    )
    out = capsys.readouterr().out
    for size in (2, 3, 4):
        for opponents in ("pick_table", "random    "):
            assert f"{size} seats  {opponents} pool of 12: after 4 rounds fit " in out
            assert f"{size} seats  {opponents} 2 runs  ±100  median " in out
    assert out.count("x truth; at the runs' end (median) fit ") == 6
    assert out.count("|  ±400  median ") == 6 and "load average after" in out


@pytest.mark.parametrize("matchmaking", [True, False])
def test_a_round_seats_every_bot_once_the_fewest_games_first(matchmaking: bool) -> None:
    rng = random.Random(4)
    pool = warmed_pool(13, 3, 5, matchmaking, rng)
    assert len(pool.games) == 5 * (13 // 3)
    assert sum(len(players) for players, _ in pool.games) == sum(map(pool.played, range(13)))
    assert max(map(pool.played, range(13))) - min(map(pool.played, range(13))) <= 1  # who sat out plays next
    assert all(sigma < SIGMA for _, sigma in pool.ratings)
    ladder = pool.copy()
    bot = ladder.add(0.0)
    ladder.play_round(matchmaking, rng)
    players, ranks = ladder.games[len(pool.games)]
    assert bot in players and sorted(ranks) == [0, 1, 2]  # the newcomer's table is made first
    assert len(pool.truth) == 13 and len(pool.games) == 5 * 4  # the newcomer joined a copy


@pytest.mark.parametrize("matchmaking", [True, False])
def test_a_newcomer_is_fitted_every_few_games_until_it_settles(matchmaking: bool) -> None:
    pool = warmed_pool(12, 4, 10, matchmaking, random.Random(6))
    run = newcomer(pool, matchmaking, 300, 5, 100.0, random.Random(7))
    assert [step.games for step in run.steps] == list(range(5, 5 * len(run.steps) + 1, 5))
    assert run.steps[-1].half_width < 100.0 <= run.steps[-2].half_width  # it stopped when it settled
    assert run.steps[0].half_width > 2 * run.steps[-1].half_width
    assert run.scales.fitted > 0.5 and run.scales.wenglin > 0.5  # both order the bots as their truth does
    capped = newcomer(pool, matchmaking, 12, 5, 1.0, random.Random(7))
    assert [step.games for step in capped.steps] == [5, 10, 12]  # never settled: stopped at its games' cap


def test_slope() -> None:
    assert slope([-1.0, 0.0, 1.0], [-3.0, 1.0, 3.0]) == pytest.approx(3.0)
    assert slope([0.0, 2.0, 4.0], [10.0, 10.0, 10.0]) == 0.0


def test_games_to_settle_and_coverage() -> None:
    steps = [
        Step(5, 300.0, 10.0, 0.0),
        Step(10, 120.0, 150.0, 0.0),
        Step(15, 90.0, 80.0, 0.0),
        Step(20, 60.0, 70.0, 0.0),
    ]
    assert settle_games(steps, 100.0) == steps[2]
    assert settle_games(steps, 50.0) is None
    assert [step.covered for step in steps] == [True, False, True, False]
    assert "median    15  p90    15  settled 100%  covers 100%" in ladder_settle.summary([steps], [100.0])
    assert "median never" in ladder_settle.summary([steps], [50.0])
    assert "±100  median    15  p90 never  settled  50%  covers 100%" in ladder_settle.summary(
        [steps, steps[:2]], [100.0]
    )


@pytest.mark.parametrize(
    "options",
    [
        ["--seats", "5"],
        ["--seats", "two"],
        ["--runs", "0"],
        ["--bots", "3", "--seats", "4"],
        ["--settled", "0"],
        ["--every", "0"],
        ["--warmup", "0"],
    ],
)
def test_bad_options_are_usage_errors(options: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        ladder_settle.main(options)
    assert stopped.value.code == 2
    assert "usage:" in capsys.readouterr().err
