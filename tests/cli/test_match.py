"""``sorry-arena match`` as the user runs it (a subprocess) against a live service (tests/cli/test_tournament.py's
``service``: SQLite, the embedded queue, two random push bots): the match followed to its verdict, the verdict in
the exit status, the service's refusals as sentences; and bad flags as usage errors (in-process)."""

from __future__ import annotations

import re

import pytest

from cli.match_report import header_line, summary
from tests.apikit import SQLITE_ONLY
from tests.cli import test_tournament
from tests.cli.test_tournament import Service, command
from tests.cli.usagekit import usage_error

service = test_tournament.service  # the live service fixture


@SQLITE_ONLY
def test_a_match_is_followed_to_its_verdict(service: Service) -> None:
    a, b = service.bot_ids
    done = command(
        "match",
        str(a),
        str(b),
        "--game",
        "card",
        "--max-games",
        "4",
        "--elo0",
        "-5",
        "--elo1",
        "5",
        "--api",
        service.url,
        "--token",
        service.owner.token,
    )
    assert done.returncode == 4, done.stderr  # inconclusive: 2 pairs cannot decide between -5 and +5
    assert re.search(r"^match \d+: \S+ \(A\) against \S+ \(B\), card game, 2 seats per game$", done.stdout, re.M)
    assert "verdict: inconclusive: no verdict in 4 games" in done.stdout
    assert "LLR" in done.stdout and "2 pairs" in done.stdout
    assert "Traceback" not in done.stderr


@SQLITE_ONLY
def test_the_services_refusal_is_a_sentence(service: Service) -> None:
    a, _ = service.bot_ids
    done = command("match", str(a), "999", "--game", "card", "--api", service.url, "--token", service.owner.token)
    assert done.returncode == 1
    assert "sorry-arena match: HTTP 422" in done.stderr and "no bot 999" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["1", "2", "--game", "card", "--alpha", "2"], "expected a probability from 0.001 to 0.5"),
        (["1", "2", "--game", "card", "--elo1", "x"], "expected an Elo, a number"),
        (["1", "2", "--game", "card", "--fillers", "a,b"], "--fillers: expected bot ids"),
        (["1", "--game", "card"], "the following arguments are required: bot_b"),
        (["0", "2", "--game", "card"], "bot id"),
    ],
)
def test_bad_flags_are_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert message in usage_error(capsys, "match", *args, "--api", "http://127.0.0.1:9")


def test_the_summary_counts_games_on_independent_deals_and_pairs_on_paired_ones() -> None:
    shown = {"llr": 0.5, "lower": -2.94, "upper": 2.94, "elo": None, "pairs": 0, "counts": [1, 0, 2]}
    assert summary({**shown, "paired": False}).endswith("), 3 games lost/tied/won [1, 0, 2], no game yet")
    paired = {**shown, "pairs": 2, "counts": [0, 1, 0, 1, 0]}
    assert summary({**paired, "paired": True}).endswith("), 2 pairs [0, 1, 0, 1, 0], no pair yet")
    elo = {"elo": 12.3, "low": None, "high": 40.0, "nelo": 20.4, "nelo_low": -3.0, "nelo_high": 44.0}
    assert summary({**paired, "elo": elo}).endswith("2 pairs [0, 1, 0, 1, 0], normalized Elo +20 [-3, +44]")
    logistic = summary({**paired, "elo": elo, "model": "logistic"})
    assert logistic.endswith("logistic Elo +12 [-inf, +40]")
    assert summary(paired) == summary({**paired, "paired": True})  # a local match's: always paired


def test_the_first_line_says_the_game_the_table_size_and_the_fillers() -> None:
    match = {"name_a": "v2", "name_b": "v1", "game": "board", "table_size": 2, "fillers": []}
    assert header_line("match 5", match) == "match 5: v2 (A) against v1 (B), board game, 2 seats per game"
    service = header_line("match 6", {**match, "table_size": 4, "fillers": [7, 9]})
    assert service.endswith("board game, 4 seats per game (the other seats: bot 7, bot 9)")
    local = header_line("local match", {**match, "table_size": 3, "fillers": ["first.py"]})
    assert local.endswith("board game, 3 seats per game (the other seats: first.py)")
