"""Rule tables of the SORRY! Card Game: 21, bust, the end of a round and the SORRY! reactions (docs/rules.md A2, A4;
the card game sheet "Play" 3-4, "SORRY! cards", "Don't Be SORRY! cards", "Important: Draw a new card ...").

Positions come from :mod:`tests.engine.cardkit`: red (seat 0) to play unless a case says otherwise; the draw pile's top
cards are named where the drawn cards matter.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import engine
from engine.card.state import CardState
from tests.engine import cardkit

# --- A2: 21 and bust after every number or Slide card ------------------------------------------------------------

CHECKS = [
    # {name: pile before, red's cards to play (ids), outcome: "21" (steal window), "bust" or "on"}
    pytest.param(["10", "5"], ["play:6"], "21", id="number_makes_21"),
    pytest.param(["10", "5"], ["play:7"], "bust", id="number_busts"),
    pytest.param(["10", "5"], ["play:5"], "on", id="number_below_21"),
    pytest.param(["10", "10"], ["play:slide21"], "21", id="slide21_makes_21"),
    pytest.param(["10", "10"], ["play:slide15"], "on", id="slide_never_busts"),
    pytest.param(["slide15", "5"], ["play:take2"], "on", id="take2_at_20"),
    pytest.param(["slide21"], ["play:0"], "21", id="zero_onto_21_is_21_again"),
    pytest.param(["slide15"], ["play:play2", "play:6"], "21", id="play2_first_card_makes_21"),
    pytest.param(["slide15"], ["play:play2", "play:7"], "bust", id="play2_first_card_busts"),
    pytest.param(["slide15"], ["play:play2", "play:2", "play:4"], "21", id="play2_second_card_makes_21"),
    pytest.param(["slide15"], ["play:play2", "play:2", "play:7"], "bust", id="play2_second_card_busts"),
    pytest.param(["slide10"], ["play:play2", "play:2", "play:4"], "on", id="play2_both_below_21"),
]


@pytest.mark.parametrize(("pile", "plays", "outcome"), CHECKS)
def test_21_and_bust_are_checked_after_every_card(pile: list[str], plays: list[str], outcome: str) -> None:
    played = [play.removeprefix("play:") for play in plays]
    state = cardkit.position([[*played, "1"], ["1"], ["1"], ["1"]], pile=pile)
    after = cardkit.after(state, *plays)
    if outcome == "21":
        assert cardkit.asked(after) == (1, "steal")
        assert after.total == 21 and after.scorer == 0
        assert after.pile == pile + played
    elif outcome == "bust":
        assert after.progress == [0, 1, 1, 1]
        assert cardkit.asked(after) == (1, "turn")  # no steal window after a bust
        assert after.pile == [] and after.total == 0
        assert after.discards[-len(pile + played) :] == pile + played
    else:
        assert after.progress == [0, 0, 0, 0]
        assert cardkit.asked(after) == (1, "turn")
        assert after.pile == pile + played


def test_play2_card_not_played_stays_in_the_hand_after_21() -> None:
    state = cardkit.position([["play2", "6", "9"], ["1"], ["1"], ["1"]], pile=["slide15"], draw=["3", "3"])
    after = cardkit.after(state, "play:play2", "play:6", "pass", "pass", "pass")
    assert after.progress == [1, 0, 0, 0]
    assert Counter(after.hands[0]) == Counter(["9", "3", "3", "0", "0"])  # the 9, then the draws
    assert cardkit.asked(after) == (1, "turn")


def test_play2_card_not_played_stays_in_the_hand_after_bust() -> None:
    state = cardkit.position([["play2", "8", "2"], ["1"], ["1"], ["1"]], pile=["slide15"], draw=["3", "3", "3"])
    after = cardkit.after(state, "play:play2", "play:8")
    assert after.progress == [0, 1, 1, 1]
    assert Counter(after.hands[0]) == Counter(["2", "3", "3", "3", "0"])  # the 2, then the draws


def test_play2_asks_only_for_number_cards() -> None:
    state = cardkit.position([["play2", "3", "3", "slide10", "take2", "9"], ["1"]], pile=["2"])
    after = cardkit.after(state, "play:play2")
    assert cardkit.action_ids(after) == {"play:3", "play:9"}
    assert cardkit.action_ids(cardkit.after(after, "play:3")) == {"play:3", "play:9"}


# --- A2: exactly 21, bust, the end of the round ------------------------------------------------------------------


def test_exactly_21_gives_the_scorer_a_home_pawn_after_the_steal_window() -> None:
    state = cardkit.position([["6", "1"], ["1"], ["1"], ["1"]], pile=["10", "5"], progress=[1, 2, 0, 0])
    window = cardkit.after(state, "play:6")
    assert window.progress == [1, 2, 0, 0]  # not yet: the window is open
    assert cardkit.home(cardkit.after(window, "pass", "pass")) == [1, 2, 0, 0]
    done = cardkit.after(window, "pass", "pass", "pass")
    assert cardkit.home(done) == [2, 2, 0, 0]


def test_bust_gives_every_other_player_a_home_pawn_at_once() -> None:
    state = cardkit.position([["1"], ["9", "1"], ["1"], ["1"]], seat=1, pile=["10", "5"], progress=[0, 2, 1, 2])
    after, events = cardkit.after_with_events(state, "play:9")
    assert cardkit.home(after) == [1, 2, 2, 3]
    homes = [event["seat"] for event in events if event["type"] == "home"]
    assert sorted(homes) == [0, 2, 3]


def test_round_end_discards_the_pile_and_keeps_hands() -> None:
    hands = [["3", "4"], ["9", "2"], ["slide15", "steal"], ["block", "7", "7"]]
    state = cardkit.position(hands, seat=1, pile=["10", "5"], discards=["6"], draw=["8", "8"])
    after = cardkit.after(state, "play:9")
    assert after.pile == [] and after.total == 0
    assert after.discards == ["6", "10", "5", "9"]
    assert after.hands[0] == ["3", "4"] and after.hands[2] == ["slide15", "steal"] and after.hands[3] == hands[3]
    assert Counter(after.hands[1]) == Counter(["2", "8", "8", "0", "0"])


NEXT_ROUND = [
    # {name: players, seat whose card ended the round, direction, seat asked next}
    pytest.param(4, 1, 1, 2, id="four_players_in_seat_order"),
    pytest.param(4, 1, -1, 0, id="four_players_reversed"),
    pytest.param(4, 3, 1, 0, id="four_players_wraps"),
    pytest.param(3, 0, -1, 2, id="three_players_reversed_wraps"),
    pytest.param(2, 1, -1, 0, id="two_players_reversed"),
]


@pytest.mark.parametrize(("players", "seat", "direction", "next_seat"), NEXT_ROUND)
def test_next_round_starts_after_the_turn_player_in_the_current_direction(
    players: int, seat: int, direction: int, next_seat: int
) -> None:
    hands = [["1", "2"] for _ in range(players)]
    hands[seat] = ["9", "2"]
    bust = cardkit.after(cardkit.position(hands, seat=seat, direction=direction, pile=["slide15"]), "play:9")
    assert cardkit.asked(bust) == (next_seat, "turn") and bust.pile == []


def test_next_round_after_a_21_starts_after_the_scorer() -> None:
    state = cardkit.position([["1"], ["1"], ["6", "1"]], seat=2, pile=["slide15"], direction=-1)
    after = cardkit.after(state, "play:6", "pass", "pass")
    assert after.progress == [0, 0, 1]
    assert cardkit.asked(after) == (1, "turn") and after.pile == []


# --- A4: the steal window ----------------------------------------------------------------------------------------

STEAL_ORDER = [
    # {name: players, scorer, direction, seats asked in order}
    pytest.param(4, 1, 1, [2, 3, 0], id="four_players_after_the_scorer"),
    pytest.param(4, 1, -1, [0, 3, 2], id="four_players_reversed"),
    pytest.param(4, 3, 1, [0, 1, 2], id="four_players_wraps"),
    pytest.param(3, 0, -1, [2, 1], id="three_players_reversed"),
    pytest.param(2, 1, 1, [0], id="two_players"),
]


@pytest.mark.parametrize(("players", "scorer", "direction", "order"), STEAL_ORDER)
def test_steal_window_asks_every_opponent_in_turn_order(
    players: int, scorer: int, direction: int, order: list[int]
) -> None:
    hands = [["1", "2"] for _ in range(players)]
    hands[scorer] = ["6", "2"]
    hands[order[0]] = ["steal", "2"]  # holding the card or not, everyone is asked
    state = cardkit.after(cardkit.position(hands, seat=scorer, direction=direction, pile=["slide15"]), "play:6")
    asked = []
    while (decision := cardkit.asked(state)) is not None and decision[1] == "steal":
        seat = decision[0]
        asked.append(seat)
        assert cardkit.action_ids(state) == ({"steal", "pass"} if seat == order[0] else {"pass"})
        assert cardkit.action_ids(state, scorer) == set()  # the turn player is not asked
        state = cardkit.after(state, "pass")
    assert asked == order
    assert state.progress[scorer] == 1


def scored(hands: list[list[str]], **options: Any) -> CardState:
    """Red (seat 0) makes 21 with a 6 onto a Slide to 15: the steal window is open, blue (seat 1) asked."""
    state = cardkit.position(hands, pile=["slide15"], **options)
    return cardkit.after(state, "play:6")


def test_first_steal_takes_the_win_and_closes_the_window() -> None:
    state = scored([["6", "2"], ["1"], ["steal", "1"], ["steal", "1"]], draw=["4", "4"])
    stolen = cardkit.after(state, "pass", "steal")
    assert cardkit.asked(stolen) == (0, "block")  # the scorer's block window
    assert cardkit.action_ids(stolen) == {"pass"}
    assert len(stolen.hands[2]) == 5  # the thief drew back up to 5 at once
    done = cardkit.after(stolen, "pass")
    assert done.progress == [0, 0, 1, 0]
    assert "steal" in done.hands[3]  # green was never asked: one steal per 21
    assert cardkit.asked(done) == (1, "turn")
    assert done.pile == [] and done.total == 0 and done.discards[-3:] == ["slide15", "6", "steal"]


def test_the_scorer_blocks_a_steal_and_keeps_the_win() -> None:
    state = scored([["6", "block", "2"], ["steal", "1"], ["1"], ["1"]])
    blocked = cardkit.after(state, "steal", "block")
    assert blocked.progress == [1, 0, 0, 0]
    assert cardkit.asked(blocked) == (1, "turn")  # a block cannot be answered
    assert blocked.pile == [] and blocked.total == 0
    assert blocked.discards[-4:] == ["slide15", "6", "steal", "block"]
    assert len(blocked.hands[0]) == 5 and len(blocked.hands[1]) == 5


def test_the_block_window_asks_only_the_scorer() -> None:
    state = cardkit.after(scored([["6", "2"], ["steal", "block"], ["block", "1"], ["block", "1"]]), "steal")
    assert cardkit.asked(state) == (0, "block")
    assert cardkit.action_ids(state) == {"pass"}
    assert [cardkit.action_ids(state, seat) for seat in (1, 2, 3)] == [set(), set(), set()]


def test_steal_is_legal_only_when_held() -> None:
    state = scored([["6", "2"], ["1"], ["steal", "1"], ["1"]])
    assert cardkit.action_ids(state) == {"pass"}
    with pytest.raises(engine.IllegalActionError):
        engine.apply(cardkit.copy(state), "steal")


def test_order_at_a_21_home_then_draws_then_discard_then_next_round() -> None:
    state = scored([["6", "2"], ["1"], ["1"], ["1"]], draw=["9", "9", "9", "9"])
    _, events = cardkit.after_with_events(state, "pass", "pass", "pass")
    types = [event["type"] for event in events if event["type"] in ("home", "draw", "round_over")]
    assert types == ["home", "draw", "draw", "round_over"]  # draw: private and public twins


def test_order_at_a_winning_21_no_draw_after_the_end_check() -> None:
    state = scored([["6", "2"], ["1"], ["1"], ["1"]], progress=[3, 0, 0, 0])
    done, events = cardkit.after_with_events(state, "pass", "pass", "pass")
    assert [event["type"] for event in events][-2:] == ["home", "game_over"]
    assert done.hands[0] == ["2"]


# --- A4: the on-turn SORRY! ----------------------------------------------------------------------------------------


def sorry_position(**options: Any) -> CardState:
    return cardkit.position(
        [["sorry", "block", "1", "1", "1"], ["block", "2"], ["3"], ["block", "steal"]],
        pile=["slide10", "4"],
        progress=[0, 2, 1, 0],
        **options,
    )


def test_on_turn_sorry_flips_a_home_pawn_of_the_target_back() -> None:
    window = cardkit.after(sorry_position(), "sorry:blue")
    assert cardkit.asked(window) == (1, "block")
    assert cardkit.action_ids(window) == {"block", "pass"}
    done = cardkit.after(window, "pass")
    assert cardkit.home(done) == [0, 1, 1, 0]
    assert done.pile == [] and done.total == 0  # the SORRY! ends the round
    assert done.discards[-3:] == ["slide10", "4", "sorry"]
    assert cardkit.asked(done) == (1, "turn")


def test_on_turn_sorry_blocked_changes_no_home_count() -> None:
    done = cardkit.after(sorry_position(draw=["7", "8"]), "sorry:blue", "block")
    assert cardkit.home(done) == [0, 2, 1, 0]
    assert done.pile == [] and done.total == 0
    assert done.discards[-4:] == ["slide10", "4", "sorry", "block"]
    assert cardkit.hand_sizes(done)[:2] == [5, 5]
    assert cardkit.asked(done) == (1, "turn")  # a block cannot be answered, though red and green hold cards


def test_on_turn_sorry_target_without_block_may_only_pass() -> None:
    window = cardkit.after(sorry_position(), "sorry:yellow")
    assert cardkit.asked(window) == (2, "block")
    assert cardkit.action_ids(window) == {"pass"}
    assert [cardkit.action_ids(window, seat) for seat in (0, 1, 3)] == [set(), set(), set()]


def test_on_turn_sorry_player_draws_back_up_to_five_at_once() -> None:
    """A4: "Whoever played one draws back up to 5 at once" (the card game sheet "Important: Draw a new card after you play
    a SORRY! ..."): the attacker tops up when the SORRY! is played, before the target's block window, so it draws
    the top card of the draw pile even if the target then blocks."""
    window = cardkit.after(sorry_position(draw=["8", "7"]), "sorry:blue")
    assert len(window.hands[0]) == 5
    done = cardkit.after(window, "block")
    assert "7" in done.hands[0] and "8" in done.hands[1]
