"""benchmarks/startup.py: it measures every command's ``--help`` and a usage error, a process's CPU time is read
from its own accounting, and each ratio pairs the two checkouts' runs of one round."""

from __future__ import annotations

import sys

import pytest

from benchmarks.startup import ROOT, commands, cpu_seconds, summary
from cli.main import COMMANDS


def test_every_command_s_help_and_a_usage_error_are_measured() -> None:
    lines = commands()
    assert lines[0] == ["--help"] and lines[-1] == ["simulat"]
    assert [line[0] for line in lines[1:-1]] == list(COMMANDS)


def test_a_process_s_cpu_time_is_its_own() -> None:
    idle = cpu_seconds([sys.executable, "-c", "import time; time.sleep(0.5)"], ROOT)
    busy = cpu_seconds([sys.executable, "-c", "sum(range(20_000_000))"], ROOT)
    assert idle < 0.5, "sleeping is not counted, whatever else the machine runs meanwhile"
    assert busy > idle + 0.1, "computing is (20 million additions: about 0.4 s of CPU)"


def test_a_command_that_fails_stops_the_benchmark() -> None:
    with pytest.raises(SystemExit, match="failed"):
        cpu_seconds([sys.executable, "-c", "raise ValueError('broken')"], ROOT)


def test_medians_and_ratios_of_the_same_round() -> None:
    found = {"--help": {"this": [0.1, 0.3, 0.2], "other": [1.0, 1.0, 4.0]}, "python -c pass": {"this": [0.02]}}
    rows = summary(found)
    assert rows["--help"]["median_s"] == 0.2 and (rows["--help"]["min_s"], rows["--help"]["max_s"]) == (0.1, 0.3)
    assert rows["--help"]["other_median_s"] == 1.0
    assert rows["--help"]["ratio"] == pytest.approx(0.1)  # the rounds' ratios 0.1, 0.3, 0.05: their median
    assert "ratio" not in rows["python -c pass"]
