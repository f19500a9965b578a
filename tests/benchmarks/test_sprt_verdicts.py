"""benchmarks/sprt_verdicts.py: its table of verdicts and coverage, and its gauntlets, on a few simulated matches."""

from __future__ import annotations

import argparse
import random
import re

import pytest

from benchmarks.sprt_verdicts import TRUTHS, gauntlets, matches


def test_one_row_per_truth_and_one_line_per_correction(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(matches=20, gauntlets=4, max_games=200, seed=1)
    rng = random.Random(1)
    matches(args, rng)
    gauntlets(args, rng)
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if re.match(r"\s+\d+ \|", line)]
    assert [float(row.split("|")[0]) for row in rows] == list(TRUTHS)
    for row in rows:  # H1, H0 and no verdict add up to the matches played
        shares = [float(value.rstrip("%")) for value in row.split("|")[1].split()]
        assert sum(shares) == pytest.approx(100, abs=0.2)
    assert sum("Holm's step-down: at least one false H1 in" in line for line in out) == 1
    assert sum("uncorrected" in line for line in out) == 1
