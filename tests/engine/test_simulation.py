"""engine/simulation.py: the Wilson score interval against published values, the p95, and the summary's per-bot
tallies (faults, forfeits, answer times) from game records."""

from __future__ import annotations

from array import array

import pytest

from engine.simulation import GameRecord, Summary, percentile, wilson_interval


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", the score method's column
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # symmetric about one half, and the ends
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
    ],
)
def test_wilson_interval_matches_published_values(successes: int, trials: int, low: float, high: float) -> None:
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_without_trials_is_everything() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_p95_is_the_nearest_rank() -> None:
    assert percentile(array("d", range(1, 101)), 0.95) == 95
    assert percentile(array("d", [3.0]), 0.95) == 3.0
    assert percentile(array("d", [5.0, 1.0, 9.0]), 0.95) == 9.0


def test_summary_counts_faults_forfeits_and_answer_times_per_bot() -> None:
    summary = Summary("board", {"players": 2}, 0, ["mine", "greedy"])
    summary.add(
        GameRecord(
            seed=1,
            seating=["mine", "greedy"],
            ranks=(2, 1),
            reason="forfeit",
            turns=4,
            decisions=5,
            moves=[
                (0, "a", 2.0, "exception"),
                (1, "b", None, None),
                (0, "c", 4.0, "exception"),
                (0, "d", 6.0, "timeout"),
                (0, "e", None, "forfeit"),
            ],
            faults=(3, 0),
            forfeited=(0,),
        )
    )
    summary.add(
        GameRecord(2, ["greedy", "mine"], (2, 1), "win", 3, 2, [(1, "f", 10.0, None), (0, "g", None, None)])
    )
    report = summary.to_json()
    mine, greedy = report["wins_by_bot"]["mine"], report["wins_by_bot"]["greedy"]
    assert (mine["games"], mine["wins"], mine["faults"], mine["forfeits"], mine["mean_rank"]) == (2, 1, 3, 1, 1.5)
    assert mine["latency_ms"] == {"answers": 4, "mean": 5.5, "p95": 10.0, "max": 10.0}
    assert mine["win_interval"] == [round(x, 4) for x in wilson_interval(1, 2)]
    assert greedy["latency_ms"] is None and greedy["faults"] == 0
    assert report["wins_by_seat"] == [0, 2] and report["games"] == 2 and report["mean_decisions"] == 3.5
