"""benchmarks/paired.py's simulated SPRT: a sure winner passes, in whole pairs or single games, within bounds."""

from __future__ import annotations

import random

from benchmarks.paired import run_test
from ratings.sprt import Sprt


def test_a_bot_that_wins_every_game_passes_in_both_designs() -> None:
    test = Sprt(0.0, 100.0, model="logistic")
    for paired in (True, False):
        games, verdict = run_test(test, [(1.0, 1.0)], paired, 4000, random.Random(1))
        assert verdict == "H1" and 0 < games < 200 and games % 2 == 0


def test_a_coin_flip_reaches_no_verdict_within_a_few_games() -> None:
    test = Sprt(-5.0, 5.0)
    games, verdict = run_test(test, [(1.0, 0.0), (0.0, 1.0)], True, 10, random.Random(1))
    assert (games, verdict) == (10, "none")
