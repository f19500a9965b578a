"""Rule tables of the SORRY! Card Game: the total and a turn (docs/rules.md A2 "total", A3; the card game sheet "Play",
"Know Your Cards", "Action Cards").

Positions come from :mod:`tests.engine.cardkit`: 4 players (red, blue, yellow, green) unless the hands say otherwise,
red (seat 0) to play, every HOME count 0, the total computed from the live pile.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import engine
from tests.engine import cardkit

OTHERS = [["0"], ["0"], ["0"]]
"""Three opponents holding a 0 each (their hands matter only where a case names them)."""


# --- A2: the total -----------------------------------------------------------------------------------------------

TOTALS = [
    # {name: pile before, card played by red, total after}
    pytest.param([], "7", 7, id="first_number_card"),
    pytest.param(["3", "4"], "5", 12, id="number_adds"),
    pytest.param(["9"], "0", 9, id="zero_adds_nothing"),
    pytest.param([], "slide15", 15, id="slide_on_empty_pile"),
    pytest.param(["8"], "slide10", 10, id="slide_up"),
    pytest.param(["9", "9"], "slide10", 10, id="slide_down_never_busts"),
    pytest.param(["slide15", "5"], "slide10", 10, id="slide_replaces_slide_and_numbers"),
    pytest.param(["slide10"], "6", 16, id="number_after_slide_adds"),
    pytest.param(["2", "slide15", "3"], "1", 19, id="numbers_before_the_slide_do_not_count"),
    pytest.param(["slide10", "take2", "4"], "take2", 14, id="take2_adds_nothing_resets_nothing"),
    pytest.param(["slide10", "switch", "4"], "switch", 14, id="switch_adds_nothing_resets_nothing"),
    pytest.param(["slide15", "play2", "2", "3"], "1", 21, id="play2_in_pile_adds_nothing"),
    pytest.param(["9", "9"], "slide21", 21, id="slide21_makes_exactly_21"),
    pytest.param(["5"], "slide21", 21, id="slide21_from_low_total"),
]


@pytest.mark.parametrize(("pile", "card", "expected"), TOTALS)
def test_total_after_a_card(pile: list[str], card: str, expected: int) -> None:
    state = cardkit.position([[card, "1"], *OTHERS], pile=pile)
    assert state.total == cardkit.pile_total(pile)
    after = cardkit.after(state, f"play:{card}")
    assert engine.view(after, None)["total"] == expected
    assert after.pile == [*pile, card]  # 21 opens the steal window: the pile is still live


def test_total_built_over_several_turns_agrees_with_a2() -> None:
    state = cardkit.position([["slide15", "1"], ["take2", "1"], ["3", "1"], ["switch", "1"]])
    after = cardkit.after(state, "play:slide15", "play:take2", "play:3", "play:switch")
    assert after.pile == ["slide15", "take2", "3", "switch"]
    assert after.total == 18


def test_play2_adds_its_two_number_cards_one_at_a_time() -> None:
    state = cardkit.position([["play2", "4", "6", "0"], *OTHERS], pile=["slide10"])
    first = cardkit.after(state, "play:play2")
    assert first.total == 10 and cardkit.asked(first) == (0, "play2")
    second = cardkit.after(first, "play:4")
    assert second.total == 14 and cardkit.asked(second) == (0, "play2")
    third = cardkit.after(second, "play:6")
    assert third.total == 20 and third.pile == ["slide10", "play2", "4", "6"]
    assert cardkit.asked(third) == (1, "turn")


# --- A3: legal turn cards ----------------------------------------------------------------------------------------

LEGAL_TURN = [
    # {name: red's hand, HOME counts, expected legal ids}
    pytest.param(["3", "7", "slide10"], None, {"play:3", "play:7", "play:slide10"}, id="numbers_and_slide"),
    pytest.param(["5", "5", "5"], None, {"play:5"}, id="alike_cards_are_one_action"),
    pytest.param(
        ["slide10", "slide15", "slide21"], None, {"play:slide10", "play:slide15", "play:slide21"}, id="slides"
    ),
    pytest.param(["take2", "switch"], None, {"play:take2", "play:switch"}, id="take2_and_switch"),
    pytest.param(["play2", "3", "4"], None, {"play:play2", "play:3", "play:4"}, id="play2_with_two_numbers"),
    pytest.param(["play2", "3", "3"], None, {"play:play2", "play:3"}, id="play2_with_two_alike_numbers"),
    pytest.param(["play2", "3", "steal"], None, {"play:3"}, id="play2_with_one_number"),
    pytest.param(["play2", "play2", "3"], None, {"play:3"}, id="play2_does_not_count_another_play2"),
    pytest.param(
        ["play2", "slide10", "slide15"], None, {"play:slide10", "play:slide15"}, id="play2_slides_not_numbers"
    ),
    pytest.param(["sorry", "3"], None, {"play:3"}, id="sorry_without_home_opponent"),
    pytest.param(["sorry", "3"], [0, 1, 0, 0], {"play:3", "sorry:blue"}, id="sorry_against_opponent_with_home"),
    pytest.param(
        ["sorry"], [0, 2, 0, 1], {"sorry:blue", "sorry:green"}, id="sorry_against_each_opponent_with_home"
    ),
    pytest.param(["sorry", "3"], [3, 0, 0, 0], {"play:3"}, id="sorry_never_against_oneself"),
    pytest.param(["steal", "block", "3"], [0, 1, 1, 1], {"play:3"}, id="steal_and_block_never_turn_cards"),
    pytest.param(
        ["steal", "block", "sorry"],
        None,
        {"discard:steal", "discard:block", "discard:sorry"},
        id="no_legal_card_discard_any",
    ),
    pytest.param(["steal", "steal"], [0, 1, 0, 0], {"discard:steal"}, id="only_steals_discard"),
    pytest.param(["play2", "block", "7"], None, {"play:7"}, id="one_legal_card_no_discard"),
    pytest.param(["play2", "slide10"], None, {"play:slide10"}, id="play2_with_no_number_slide_legal"),
    pytest.param(["play2", "steal"], None, {"discard:play2", "discard:steal"}, id="play2_alone_is_discarded"),
]


@pytest.mark.parametrize(("hand", "progress", "expected"), LEGAL_TURN)
def test_legal_turn_cards(hand: list[str], progress: list[int] | None, expected: set[str]) -> None:
    state = cardkit.position([hand, *OTHERS], progress=progress)
    assert cardkit.action_ids(state) == expected


def test_sorry_targets_named_by_colour_in_a_two_player_game() -> None:
    state = cardkit.position([["sorry"], ["0"]], progress=[0, 1])
    assert cardkit.action_ids(state) == {"sorry:blue"}


def test_sorry_in_the_longer_game_needs_a_shown_home_pawn() -> None:
    state = cardkit.position([["sorry"], ["0"], ["0"]], progress=[0, 5, 0], longer_game=True)
    assert cardkit.action_ids(state) == {"sorry:blue"}


# --- A3: discarding with no legal card ---------------------------------------------------------------------------


def test_discard_has_no_effect_but_the_card_leaves_the_hand() -> None:
    state = cardkit.position(
        [["steal", "block", "play2", "sorry", "steal"], *OTHERS],
        pile=["slide10", "4"],
        draw=["9"],
        progress=[0, 0, 0, 0],
    )
    after = cardkit.after(state, "discard:block")
    assert after.discards[-1] == "block"
    assert after.pile == ["slide10", "4"] and after.total == 14
    assert after.direction == 1 and after.progress == [0, 0, 0, 0]
    assert Counter(after.hands[0]) == Counter(["steal", "play2", "sorry", "steal", "9"])  # drew back up to 5
    assert cardkit.asked(after) == (1, "turn")


# --- A3: Take 2 ------------------------------------------------------------------------------------------------

TAKE2 = [
    # {name: red's hand (Take 2 included), cards drawn by the Take 2, hand size at the end of the turn}
    pytest.param(["take2", "1", "1", "1", "1"], 2, 6, id="hand_of_5_draws_2"),
    pytest.param(["take2", "1", "1", "1", "1", "1"], 2, 7, id="hand_of_6_draws_2"),
    pytest.param(["take2", "1", "1", "1", "1", "1", "1"], 1, 7, id="hand_of_7_draws_1"),
    pytest.param(["take2"], 2, 5, id="hand_of_1_draws_2_then_refills"),
]


@pytest.mark.parametrize(("hand", "drawn", "size"), TAKE2)
def test_take2_draws_up_to_two_never_above_seven(hand: list[str], drawn: int, size: int) -> None:
    state = cardkit.position([hand, *OTHERS], draw=["10", "9", "8", "7"])
    after, events = cardkit.after_with_events(state, "play:take2")
    private = [event["cards"] for event in events if event["type"] == "draw" and event["to"] == 0]
    assert private[0] == ["7", "8"][:drawn]  # the Take 2's own draw, from the top of the pile
    assert len(after.hands[0]) == size
    assert after.total == 0 and after.pile == ["take2"]


def test_take2_with_one_card_left_anywhere_draws_one() -> None:
    deck = {"1": 9, "take2": 1, "9": 1}
    state = cardkit.position(
        [["take2", "1", "1", "1", "1"], ["1", "1", "1", "1", "1"]], deck=deck, draw=["9"], leftover="none"
    )
    after = cardkit.after(state, "play:take2")
    assert Counter(after.hands[0]) == Counter(["1", "1", "1", "1", "9"])
    assert after.draw_pile == [] and after.discards == []


# --- A3: Switch --------------------------------------------------------------------------------------------------

SWITCH = [
    # {name: players, seat playing, direction before, next seat, direction after}
    pytest.param(4, 0, 1, 3, -1, id="four_players_reverses"),
    pytest.param(4, 2, -1, 3, 1, id="four_players_back_to_seat_order"),
    pytest.param(3, 1, 1, 0, -1, id="three_players_reverses"),
    pytest.param(2, 0, 1, 1, -1, id="two_players_same_next_player"),
    pytest.param(2, 1, -1, 0, 1, id="two_players_back"),
]


@pytest.mark.parametrize(("players", "seat", "direction", "next_seat", "direction_after"), SWITCH)
def test_switch_reverses_the_direction(
    players: int, seat: int, direction: int, next_seat: int, direction_after: int
) -> None:
    hands = [["0", "1"] for _ in range(players)]
    hands[seat] = ["switch", "1"]
    state = cardkit.position(hands, seat=seat, direction=direction)
    after = cardkit.after(state, "play:switch")
    assert after.direction == direction_after
    assert cardkit.asked(after) == (next_seat, "turn")
    assert after.total == 0


def test_switch_with_two_players_changes_nothing_about_who_plays() -> None:
    hands = [["switch", "2", "2"], ["3", "3"]]
    order_switch = cardkit.after(cardkit.position(hands), "play:switch", "play:3")
    order_number = cardkit.after(cardkit.position(hands), "play:2", "play:3")
    assert cardkit.asked(order_switch) == cardkit.asked(order_number) == (0, "turn")


def test_switch_reverses_until_the_next_switch() -> None:
    state = cardkit.position([["switch", "1"], ["switch", "1"], ["1", "1"], ["switch", "1"]])
    after = cardkit.after(state, "play:switch", "play:switch")  # red, then green (seat 3), switches back
    assert after.direction == 1 and cardkit.asked(after) == (0, "turn")


# --- A3: end of turn ---------------------------------------------------------------------------------------------

REFILL = [
    # {name: red's hand, card played, hand size after the turn}
    pytest.param(["1", "2", "2", "2", "2"], "1", 5, id="five_refills_to_five"),
    pytest.param(["1", "2"], "1", 5, id="two_refills_to_five"),
    pytest.param(["1", "2", "2", "2", "2", "2"], "1", 5, id="six_keeps_five"),
    pytest.param(["1", "2", "2", "2", "2", "2", "3"], "1", 6, id="seven_keeps_six"),
]


@pytest.mark.parametrize(("hand", "card", "size"), REFILL)
def test_end_of_turn_draws_back_up_to_five(hand: list[str], card: str, size: int) -> None:
    state = cardkit.position([hand, *OTHERS], draw=["8", "9", "10", "7"])
    after = cardkit.after(state, f"play:{card}")
    assert len(after.hands[0]) == size
    drawn = max(0, 5 - (len(hand) - 1))
    assert Counter(after.hands[0]) - Counter(hand) == Counter(["7", "10", "9", "8"][:drawn])


def test_a_hand_never_holds_more_than_seven_cards_in_random_games() -> None:
    for seed in range(12):
        state = engine.new_game("card", {"players": 2 + seed % 3}, seed=seed)
        chooser = random.Random(seed)
        for _ in range(400):
            if engine.is_over(state):
                break
            decision = engine.decision(state)
            assert decision is not None
            seat = decision.seat
            ids = sorted(action.id for action in engine.legal_actions(state, seat))
            # prefer Take 2 to push hands to their limit
            engine.apply(state, "play:take2" if "play:take2" in ids else chooser.choice(ids))
            assert max(cardkit.hand_sizes(state)) <= 7
            assert (
                sum(len(hand) for hand in state.hands)
                + len(state.draw_pile)
                + len(state.discards)
                + len(state.pile)
                == 93
            )


# --- A3: the empty draw pile -------------------------------------------------------------------------------------


def refill_position() -> Any:
    """Red plays a 2 onto a live pile with nothing on the draw pile; every leftover card is in the discards."""
    return cardkit.position(
        [["2", "1", "1", "1", "1"], *OTHERS], pile=["slide10", "3", "4"], draw=[], leftover="discards"
    )


def test_empty_draw_pile_is_refilled_from_the_discards_not_the_live_pile() -> None:
    state = refill_position()
    discarded = Counter(state.discards)
    after, events = cardkit.after_with_events(state, "play:2")
    assert [event["type"] for event in events].count("reshuffle") == 1
    drawn = Counter(after.hands[0]) - Counter(["1", "1", "1", "1"])
    assert sum(drawn.values()) == 1
    assert after.pile == ["slide10", "3", "4", "2"]  # the live pile stays
    assert after.discards == []
    assert Counter(after.draw_pile) + drawn == discarded
    assert after.shuffles == state.shuffles + 1


def test_the_refill_shuffle_comes_from_the_seed() -> None:
    first = cardkit.after(refill_position(), "play:2")
    second = cardkit.after(refill_position(), "play:2")
    assert first.draw_pile == second.draw_pile and first.hands == second.hands
    assert first.draw_pile != sorted(first.draw_pile) and first.draw_pile != sorted(first.draw_pile, reverse=True)


def test_with_nothing_to_draw_the_draw_yields_fewer_cards() -> None:
    deck = {"1": 6, "2": 6}
    state = cardkit.position(
        [["1", "1", "1", "1", "1"], ["2", "2", "2", "2", "2"]], pile=["1", "2"], deck=deck, leftover="none"
    )
    after = cardkit.after(state, "play:1")
    assert cardkit.hand_sizes(after) == [4, 5]
    assert after.total == 4 and cardkit.asked(after) == (1, "turn")
