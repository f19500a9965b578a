"""``sorry-arena simulate``: results, JSON output, and usage errors (never a traceback) for bad flags."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cli.main import main


def run_json(capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, object]:
    assert main(["simulate", *flags, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "--json prints exactly one JSON object"
    return json.loads(out)


def test_json_report_counts_every_game_and_seat(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--players", "2", "--games", "6", "--seed", "4", "--bots", "random,greedy")
    assert report["games"] == 6
    assert report["settings"] == {"variant": "standard", "edition": "1992", "players": 2, "turn_cap": 2000}
    by_bot = report["wins_by_bot"]
    assert isinstance(by_bot, dict)
    assert by_bot["random"]["seats_played"] == by_bot["greedy"]["seats_played"] == 6
    assert by_bot["random"]["wins"] + by_bot["greedy"]["wins"] == 6 == sum(report["wins_by_seat"])  # type: ignore[arg-type]
    assert report["mean_decisions"] > 0 and report["decisions_per_second"] > 0


def test_the_same_seed_gives_the_same_results(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ("--variant", "points", "--games", "4", "--seed", "9")
    one, two = run_json(capsys, *flags), run_json(capsys, *flags)
    for key in ("wins_by_bot", "wins_by_seat", "mean_turns", "mean_decisions"):
        assert one[key] == two[key]


def test_team_and_turn_cap(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--variant", "team", "--edition", "1972", "--games", "2", "--turn-cap", "10")
    assert report["turn_capped"] == 2 and report["mean_turns"] == 10


def test_card_games_with_their_options(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--game", "card", "--longer-game", "--pawns", "2", "--games", "5", "--players", "3")
    assert report["game"] == "card" and report["games"] == 5
    assert report["settings"]["longer_game"] is True and report["settings"]["pawns"] == 2  # type: ignore[index]
    assert sum(report["wins_by_seat"]) >= 5  # type: ignore[arg-type]  # a tiebreaker may share a win


def test_tables_are_printed_without_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "3", "--players", "3", "--bots", "greedy"]) == 0
    out = capsys.readouterr().out
    for text in ("greedy", "wins by seat", "mean game length", "games/s", "decisions/s"):
        assert text in out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        pytest.param(["--players", "5"], "invalid choice: 5", id="players"),
        pytest.param(["--games", "0"], "expected a number from 1", id="games-zero"),
        pytest.param(["--games", "many"], "expected a whole number", id="games-text"),
        pytest.param(["--seed", "-3"], "expected a seed", id="seed"),
        pytest.param(["--bots", "random,alphazero"], "unknown bot(s) 'alphazero'", id="bots"),
        pytest.param(["--variant", "team", "--players", "2"], "exactly 4 players", id="team-players"),
        pytest.param(["--edition", "2020"], "invalid choice: '2020'", id="edition"),
        pytest.param(["--frobnicate"], "unrecognized arguments", id="unknown-flag"),
        pytest.param(["--game", "card", "--variant", "team"], "apply to the board game", id="card-variant"),
        pytest.param(["--longer-game"], "apply to the card game", id="board-longer-game"),
        pytest.param(["--game", "card", "--pawns", "0"], "expected 1 to 20 pawns", id="pawns-zero"),
        pytest.param(["--game", "cards"], "invalid choice: 'cards'", id="game"),
    ],
)
def test_bad_flags_get_a_usage_error(capsys: pytest.CaptureFixture[str], flags: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", *flags])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "usage: sorry-arena" in err and message in err
    assert "Traceback" not in err


def test_the_installed_command_runs() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "cli.main", "simulate", "--games", "1", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["games"] == 1
    assert completed.stderr == "", "no progress bar when the output is not a terminal"
