"""`sorry-arena demo` (the README's first command): a real local tournament, standings printed, exit 0."""

from __future__ import annotations

import pytest

from cli.main import main


def test_the_demo_plays_a_tournament_and_prints_standings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", "card", "--rounds", "1", "--bots", "greedy,random"]) == 0
    out = capsys.readouterr().out
    assert "2/2" in out and "standings" in out
    assert "greedy-1" in out and "random-2" in out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--bots", "greedy"], "at least 2 bots"),
        (["--bots", "alpha,beta"], "unknown bots"),
        (["--rounds", "0"], "1 to 100"),
    ],
)
def test_bad_demo_flags_are_usage_errors(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["demo", *flags])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
