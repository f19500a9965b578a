"""When a forfeit voids a game (``tournament/play/voids.py``), seat by seat, without a database: the rules the
tournament tests (``tests/tournament/test_void_games.py``) meet through real bots, here for every order of calls,
and for a game resumed from its saved moves (a worker died mid-game: the seats are recounted)."""

from __future__ import annotations

import pytest

from tournament.play import voids
from tournament.play.scheduled import SeatBot
from tournament.play.seats import SeatState


def seat(*, withheld: bool = False) -> SeatState:
    bot = SeatBot(1, 1, "bot", "http://127.0.0.1:1/", "s" * 40, False, None, withheld=withheld)
    return SeatState(bot, None, 1, "bot")


def played(start: str | None, moves: list[str | None]) -> SeatState:
    """A seat whose ``start`` came back with ``start`` (a fault, or ``None``) and whose moves had ``moves``."""
    player = seat()
    player.noted(start)
    for fault in moves:
        player.count(fault)
    return player


@pytest.mark.parametrize(
    ("start", "moves", "reason"),
    [
        ("rejected", ["rejected"] * 3, "rejected"),  # a wrong secret: every call refused
        (None, ["rejected"] * 3, None),  # it took the start, then refused: its doing
        ("rejected", [None, "rejected", "rejected", "rejected"], None),  # it played a move first
        ("rejected", ["timeout", "rejected", "rejected"], None),  # a timeout is no refusal: it took part
        ("rejected", ["timeout"] * 3, None),  # forfeited by timeouts
        ("timeout", ["status"] * 3, None),
        ("rejected", ["rejected", "rejected"], None),  # refused, but not forfeited: nothing to void
    ],
)
def test_only_a_forfeit_by_refusing_every_call_voids(
    start: str | None, moves: list[str | None], reason: str
) -> None:
    player = played(start, moves)
    assert voids.cause(player) == reason
    assert voids.reason([seat(), player]) == reason


def test_a_passed_health_check_after_the_refusals_makes_the_forfeit_rated() -> None:
    player = played("rejected", ["rejected"] * 3)
    player.info_passed = True
    assert voids.cause(player) is None


def test_an_excluded_seat_voids_and_a_withheld_one_does_not() -> None:
    excluded, withheld = seat(), seat(withheld=True)
    excluded.forfeited = withheld.forfeited = True
    excluded.excluded_at_start = True
    assert voids.reason([withheld, excluded]) == "excluded"
    assert voids.reason([withheld, seat()]) is None


@pytest.mark.parametrize(
    ("moves", "withheld", "reason"),
    [
        (["forfeit"] * 4, False, "excluded"),  # forfeited from the start, uncalled: it was excluded
        (["forfeit"] * 4, True, None),  # its bot is withheld now: paused or disabled, its owner's doing
        ([None, "timeout", "timeout", "timeout", "forfeit"], False, None),
        (["rejected"] * 3 + ["forfeit"], False, "rejected"),  # the resumed start is refused again
    ],
)
def test_a_resumed_game_recounts_its_seats(moves: list[str | None], withheld: bool, reason: str | None) -> None:
    player = seat(withheld=withheld)
    for fault in moves:
        player.count(fault)
    voids.resumed([player])
    player.noted("rejected")  # the runner sends the resumed game's start again, after the recount
    assert voids.cause(player) == reason
