"""Rule tables of the SORRY! Card Game: the end of the game, the tiebreaker, the options, the ranking, and who may
act (docs/rules.md A5, Part C; the card game sheet "Win", "Tiebreaker", "For a Longer Game").

Positions come from :mod:`tests.engine.cardkit`: red (seat 0) to play unless a case says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine.card.state import CardState
from engine.i18n import describe_event
from tests.engine import cardkit

# --- A5: the fourth HOME pawn wins -------------------------------------------------------------------------------


def test_fourth_home_pawn_wins() -> None:
    state = cardkit.position([["6", "2"], ["1"], ["1"], ["1"]], pile=["slide15"], progress=[3, 3, 3, 0])
    done = cardkit.after(state, "play:6", "pass", "pass", "pass")
    assert engine.is_over(done) and engine.decision(done) is None
    result = engine.result(done)
    assert result is not None and result.winners == (0,) and result.reason == "win"
    assert [engine.legal_actions(done, seat) for seat in range(4)] == [[], [], [], []]


def test_third_home_pawn_does_not_win() -> None:
    state = cardkit.position([["6", "2"], ["1"], ["1"], ["1"]], pile=["slide15"], progress=[2, 3, 3, 0])
    done = cardkit.after(state, "play:6", "pass", "pass", "pass")
    assert not engine.is_over(done) and done.progress == [3, 3, 3, 0]


def test_a_stolen_fourth_home_pawn_wins_for_the_thief() -> None:
    state = cardkit.position([["6", "2"], ["steal", "1"], ["1"], ["1"]], pile=["slide15"], progress=[3, 3, 0, 0])
    done = cardkit.after(state, "play:6", "steal", "pass")
    result = engine.result(done)
    assert result is not None and result.winners == (1,)
    assert done.progress == [3, 4, 0, 0]


def test_a_bust_that_brings_one_player_to_four_makes_that_player_win() -> None:
    state = cardkit.position([["9", "2"], ["1"], ["1"], ["1"]], pile=["slide15"], progress=[3, 3, 2, 1])
    done = cardkit.after(state, "play:9")
    result = engine.result(done)
    assert result is not None and result.winners == (1,)
    assert done.progress == [3, 4, 3, 2]  # every other player still gained at once


# --- A5: the tiebreaker ------------------------------------------------------------------------------------------


def tied_position(blue: list[str], yellow: list[str], **options: Any) -> CardState:
    """Red busts with a 9 onto 15; blue and yellow reach their goal together, green does not."""
    progress = options.pop("progress", [0, 3, 3, 1])
    state = cardkit.position([["9", "2"], blue, yellow, ["1"]], pile=["slide15"], progress=progress, **options)
    return cardkit.after(state, "play:9")


def test_a_bust_that_brings_several_to_four_asks_each_tied_player_in_turn_order() -> None:
    state = tied_position(["10", "9"], ["5", "5"])
    assert state.tied == [1, 2] and cardkit.asked(state) == (1, "tiebreak")
    assert not engine.is_over(state)
    assert [cardkit.action_ids(state, seat) for seat in (0, 2, 3)] == [set(), set(), set()]
    after = cardkit.after(state, "tiebreak:9,10")
    assert cardkit.asked(after) == (2, "tiebreak")
    assert [cardkit.action_ids(after, seat) for seat in (0, 1, 3)] == [set(), set(), set()]


def test_tiebreak_choices_are_number_cards_with_at_most_one_slide() -> None:
    state = tied_position(["3", "8", "slide10", "slide15", "take2"], ["5"])
    ids = cardkit.action_ids(state)
    assert "tiebreak:3,8,slide10" in ids and "tiebreak:none" in ids and "tiebreak:slide15" in ids
    assert not any("take2" in action_id for action_id in ids)
    assert not any("slide10" in action_id and "slide15" in action_id for action_id in ids)
    assert len(ids) == 4 * 3  # subsets of {3, 8} times (no Slide, Slide to 10, Slide to 15)


def test_tiebreak_choices_stay_secret_until_everyone_has_chosen() -> None:
    state = cardkit.after(tied_position(["10", "9"], ["5", "5"]), "tiebreak:9,10")
    for seat in (None, 0, 2, 3):
        view = engine.view(state, seat)
        assert view["tiebreak"] == {"tied": [1, 2], "chosen": [1]}
        assert "10" not in repr(view["tiebreak"])
    assert engine.view(state, 1)["tiebreak"] == {"tied": [1, 2], "chosen": [1], "mine": ["9", "10"]}
    done = cardkit.after(state, "tiebreak:5,5")
    assert engine.view(done, 3)["tiebreak"]["cards"] == {"1": ["9", "10"], "2": ["5", "5"]}


def test_a_secret_tiebreak_choice_is_told_to_the_others_as_made_in_secret() -> None:
    """The seat gets its choice with the cards and the score; everyone else learns only that it chose, in words
    that say so (not "no cards (score 0)")."""
    state = tied_position(["10", "9"], ["5", "5"])
    _, events = cardkit.after_with_events(state, "tiebreak:9,10")
    private = [event for event in events if event["type"] == "action" and event["to"] == 1]
    public = [event for event in events if event["type"] == "action" and event["to"] is None]
    assert len(private) == 1 and private[0]["cards"] == ["9", "10"] and private[0]["score"] == 19
    assert len(public) == 1 and "score" not in public[0] and not public[0]["cards"]
    assert describe_event("card", private[0], "en") == "Player 2: tiebreaker: 9, 10 (score 19)"
    assert describe_event("card", private[0], "fr") == "Joueur 2 : bris d'égalité : 9, 10 (score 19)"
    assert describe_event("card", public[0], "en") == "Player 2: tiebreaker cards chosen in secret"
    assert describe_event("card", public[0], "fr") == "Joueur 2 : cartes du bris d'égalité choisies en secret"


TIEBREAK = [
    # {name: blue's hand, blue's choice, yellow's hand, yellow's choice, winners}
    pytest.param(["10", "9"], "9,10", ["slide15", "5"], "5,slide15", (2,), id="highest_score_wins"),
    pytest.param(["slide15", "6"], "6,slide15", ["10", "10"], "10,10", (1,), id="slide_value_plus_numbers"),
    pytest.param(["slide21"], "slide21", ["10", "10"], "10,10", (1,), id="slide21_alone_scores_21"),
    pytest.param(["10", "9", "5"], "5,9,10", ["3"], "3", (2,), id="over_21_is_bust"),
    pytest.param(["10", "9", "5"], "5,9,10", ["3"], "none", (2,), id="bust_loses_to_no_cards"),
    pytest.param(["10", "10"], "10,10", ["5", "5", "10"], "5,5,10", (1,), id="same_score_fewer_cards_wins"),
    pytest.param(
        ["10", "10"], "10,10", ["slide10", "10"], "10,slide10", (1, 2), id="same_score_same_count_shared"
    ),
    pytest.param(["7"], "none", ["8"], "none", (1, 2), id="both_choose_nothing_shared"),
    pytest.param(["10", "10"], "10", ["10", "1"], "10", (1, 2), id="keeping_cards_back_is_allowed"),
]


@pytest.mark.parametrize(("blue", "blue_choice", "yellow", "yellow_choice", "winners"), TIEBREAK)
def test_tiebreaker(
    blue: list[str], blue_choice: str, yellow: list[str], yellow_choice: str, winners: tuple[int, ...]
) -> None:
    state = tied_position(blue, yellow)
    done = cardkit.after(state, f"tiebreak:{blue_choice}", f"tiebreak:{yellow_choice}")
    result = engine.result(done)
    assert result is not None and result.winners == winners and result.reason == "win"
    for beaten in {1, 2} - set(winners):
        assert result.ranks[beaten] == 2  # a beaten tied player ranks right after the winner
    assert (result.ranks[3], result.ranks[0]) == (3, 4)  # then by HOME count: green 2, red 0


# --- A5 option: the longer game ----------------------------------------------------------------------------------

SHOWN = [
    # {name: progress, HOME count shown}
    pytest.param(0, 0, id="progress_0"),
    pytest.param(3, 3, id="progress_3"),
    pytest.param(4, 4, id="progress_4_all_home"),
    pytest.param(5, 3, id="progress_5_one_back_to_start"),
    pytest.param(7, 1, id="progress_7"),
]


@pytest.mark.parametrize(("progress", "shown"), SHOWN)
def test_longer_game_home_count_shown(progress: int, shown: int) -> None:
    state = cardkit.position([["1"], ["1"]], progress=[progress, 0], longer_game=True)
    assert cardkit.home(state) == [shown, 0]


LONGER = [
    # {name: options, red's progress before a 21, progress after, game over}
    pytest.param({"longer_game": True}, 3, 4, False, id="longer_fourth_home_does_not_win"),
    pytest.param({"longer_game": True}, 4, 5, False, id="longer_flip_after_all_home_counts_up"),
    pytest.param({"longer_game": True}, 7, 8, True, id="longer_progress_8_wins"),
    pytest.param({"pawns": 2}, 1, 2, True, id="two_pawns_win_at_2"),
    pytest.param({"pawns": 2}, 0, 1, False, id="two_pawns_first_home"),
    pytest.param({"pawns": 2, "longer_game": True}, 2, 3, False, id="two_pawns_longer_goes_on"),
    pytest.param({"pawns": 2, "longer_game": True}, 3, 4, True, id="two_pawns_longer_wins_at_4"),
    pytest.param({"pawns": 6}, 4, 5, False, id="six_pawns_fifth_home"),
    pytest.param({"pawns": 6}, 5, 6, True, id="six_pawns_win_at_6"),
]


@pytest.mark.parametrize(("options", "before", "after", "over"), LONGER)
def test_home_flip_and_goal_by_option(options: dict[str, Any], before: int, after: int, over: bool) -> None:
    state = cardkit.position([["6", "2"], ["1"]], pile=["slide15"], progress=[before, 0], **options)
    done = cardkit.after(state, "play:6", "pass")
    assert done.progress == [after, 0]
    assert engine.is_over(done) is over
    if over:
        assert engine.result(done).winners == (0,)  # type: ignore[union-attr]


def test_longer_game_on_turn_sorry_is_minus_one_progress() -> None:
    state = cardkit.position([["sorry", "1"], ["1"]], progress=[0, 6], longer_game=True)
    done, events = cardkit.after_with_events(state, "sorry:blue", "pass")
    assert done.progress == [0, 5]
    assert cardkit.home(done) == [0, 3]
    # counting back down, one step back flips a pawn card from START back to HOME, and the event says so
    (flip,) = [event for event in events if event["type"] == "start"]
    assert flip["flipped_to"] == "home" and flip["home"] == 3
    assert (
        describe_event("card", flip, "en")
        == "SORRY! Player 2 flips a pawn card back to HOME (pawn cards at HOME: 3)"
    )


@pytest.mark.parametrize(
    ("longer_game", "progress", "home"),
    [(False, 2, 1), (True, 2, 1), (True, 4, 3)],
    ids=["standard", "longer", "longer_all_home"],
)
def test_on_turn_sorry_flips_a_home_pawn_card_back_to_start(longer_game: bool, progress: int, home: int) -> None:
    state = cardkit.position([["sorry", "1"], ["1"]], progress=[0, progress], longer_game=longer_game)
    _, events = cardkit.after_with_events(state, "sorry:blue", "pass")
    (flip,) = [event for event in events if event["type"] == "start"]
    assert flip == {"type": "start", "to": None, "seat": 1, "home": home, "flipped_to": "start"}
    assert describe_event("card", flip, "en") == (
        f"SORRY! Player 2 flips a pawn card back to START (pawn cards at HOME: {home})"
    )
    assert describe_event("card", flip, "fr") == (
        f"SORRY! Joueur 2 remet une carte Pion du côté DÉPART (cartes Pion du côté ARRIVÉE : {home})"
    )


def test_longer_game_bust_is_plus_one_for_the_others() -> None:
    state = cardkit.position([["9", "2"], ["1"], ["1"]], pile=["slide15"], progress=[4, 4, 6], longer_game=True)
    done = cardkit.after(state, "play:9")
    assert done.progress == [4, 5, 7] and cardkit.home(done) == [4, 3, 1]


def test_two_pawns_bust_tie_goes_to_the_tiebreaker() -> None:
    state = cardkit.position([["9", "2"], ["1"], ["1"]], pile=["slide15"], progress=[0, 1, 1], pawns=2)
    done = cardkit.after(state, "play:9")
    assert cardkit.asked(done) == (1, "tiebreak")


# --- A5 / Part C: the turn cap and the ranking -------------------------------------------------------------------


def test_turn_cap_ends_the_game_ranked_by_home_count() -> None:
    state = cardkit.position([["1", "2"], ["1"], ["1"], ["1"]], progress=[1, 3, 0, 3], turn=10, turn_cap=10)
    done = cardkit.after(state, "play:1")
    result = engine.result(done)
    assert result is not None and result.reason == "turn_cap"
    assert result.ranks == (3, 1, 4, 1)


def test_turn_cap_ranks_the_longer_game_by_progress_not_by_the_home_count_shown() -> None:
    # progress 7 shows 1 pawn card at HOME, progress 4 shows 4, progress 5 shows 3: progress decides (Part C)
    state = cardkit.position(
        [["1", "2"], ["1"], ["1"], ["1"]], progress=[4, 7, 0, 5], longer_game=True, turn=10, turn_cap=10
    )
    done = cardkit.after(state, "play:1")
    result = engine.result(done)
    assert result is not None and result.reason == "turn_cap"
    assert cardkit.home(done) == [4, 1, 0, 3]
    assert result.ranks == (3, 1, 4, 2)


def test_turn_cap_is_not_reached_before_its_last_turn() -> None:
    state = cardkit.position([["1", "2"], ["1"], ["1"], ["1"]], turn=9, turn_cap=10)
    assert not engine.is_over(cardkit.after(state, "play:1"))


RANKS = [
    # {name: hands, pile, progress, actions, ranks}
    pytest.param(
        [["6", "2"], ["1"], ["1"], ["1"]],
        [3, 2, 2, 0],
        ["play:6", "pass", "pass", "pass"],
        (1, 2, 2, 4),
        id="winner_first_others_by_home_count",
    ),
    pytest.param(
        [["6", "2"], ["steal", "1"], ["1"], ["1"]],
        [3, 3, 0, 1],
        ["play:6", "steal", "pass"],
        (2, 1, 4, 3),
        id="thief_first_robbed_scorer_by_home_count",
    ),
    pytest.param(
        [["9", "2"], ["1"], ["1"], ["1"]],
        [3, 3, 1, 2],
        ["play:9"],
        (2, 1, 4, 2),
        id="bust_winner_first_buster_by_home_count",
    ),
]


@pytest.mark.parametrize(("hands", "progress", "actions", "ranks"), RANKS)
def test_result_ranks(
    hands: list[list[str]], progress: list[int], actions: list[str], ranks: tuple[int, ...]
) -> None:
    state = cardkit.position(hands, pile=["slide15"], progress=progress)
    result = engine.result(cardkit.after(state, *actions))
    assert result is not None and result.ranks == ranks


# --- Who may act: illegal actions and seats not asked ------------------------------------------------------------


def on_turn(hand: list[str], progress: list[int] | None = None) -> Callable[[], CardState]:
    return lambda: cardkit.position([hand, ["1", "block"], ["1"], ["1", "block"]], progress=progress)


def steal_window() -> CardState:
    return cardkit.after(cardkit.position([["6", "2"], ["1"], ["steal", "1"], ["1"]], pile=["slide15"]), "play:6")


def steal_block_window() -> CardState:
    return cardkit.after(steal_window(), "pass", "steal")


def sorry_block_window() -> CardState:
    state = cardkit.position([["sorry", "2"], ["block", "1"], ["1"], ["block", "1"]], progress=[0, 1, 0, 1])
    return cardkit.after(state, "sorry:blue")


def play2_decision() -> CardState:
    return cardkit.after(cardkit.position([["play2", "3", "4", "slide10"], ["1"]]), "play:play2")


def tiebreak_decision() -> CardState:
    return tied_position(["slide10", "slide15", "5"], ["5"])


def game_over() -> CardState:
    state = cardkit.position([["6", "2"], ["1"]], pile=["slide15"], progress=[3, 0])
    return cardkit.after(state, "play:6", "pass")


ILLEGAL = [
    # {name: position, action id, seat (None: the seat asked)}
    pytest.param(on_turn(["3"]), "play:7", None, id="card_not_in_hand"),
    pytest.param(on_turn(["play2", "3"]), "play:play2", None, id="play2_with_one_number"),
    pytest.param(on_turn(["steal", "3"]), "play:steal", None, id="steal_as_turn_card"),
    pytest.param(on_turn(["block", "3"]), "play:block", None, id="block_as_turn_card"),
    pytest.param(on_turn(["sorry", "3"], [0, 0, 1, 0]), "sorry:blue", None, id="sorry_target_without_home"),
    pytest.param(on_turn(["sorry", "3"], [1, 1, 0, 0]), "sorry:red", None, id="sorry_against_oneself"),
    pytest.param(on_turn(["3", "steal"]), "discard:steal", None, id="discard_with_a_legal_card"),
    pytest.param(on_turn(["3"]), "play:1", 1, id="other_seat_on_a_turn"),
    pytest.param(on_turn(["3"]), "pass", None, id="pass_on_a_turn"),
    pytest.param(on_turn(["3"]), "play:joker", None, id="unknown_id"),
    pytest.param(steal_window, "pass", 0, id="turn_player_in_steal_window"),
    pytest.param(steal_window, "steal", 2, id="steal_before_being_asked"),
    pytest.param(steal_window, "steal", None, id="steal_without_the_card"),
    pytest.param(steal_window, "play:1", None, id="turn_card_in_steal_window"),
    pytest.param(steal_block_window, "block", 3, id="block_by_a_non_target"),
    pytest.param(steal_block_window, "block", None, id="block_without_the_card"),
    pytest.param(sorry_block_window, "block", 3, id="block_of_someone_elses_sorry"),
    pytest.param(sorry_block_window, "pass", 0, id="attacker_in_block_window"),
    pytest.param(play2_decision, "play:slide10", None, id="play2_slide_not_a_number"),
    pytest.param(play2_decision, "play:play2", None, id="play2_inside_play2"),
    pytest.param(tiebreak_decision, "tiebreak:5,slide10,slide15", None, id="tiebreak_two_slides"),
    pytest.param(tiebreak_decision, "tiebreak:6", None, id="tiebreak_card_not_in_hand"),
    pytest.param(game_over, "play:2", 0, id="after_the_game_is_over"),
]


@pytest.mark.parametrize(("build", "action_id", "seat"), ILLEGAL)
def test_illegal_action_is_refused_and_changes_nothing(
    build: Callable[[], CardState], action_id: str, seat: int | None
) -> None:
    state = build()
    before = engine.to_json(state)
    asked = engine.decision(state)
    expected_seat = (None if asked is None else asked.seat) if seat is None else seat
    with pytest.raises(engine.IllegalActionError) as caught:
        engine.apply(state, action_id, seat)
    assert caught.value.action == action_id and caught.value.seat == expected_seat
    assert repr(action_id) in str(caught.value) and f"seat {expected_seat}" in str(caught.value)
    assert engine.to_json(state) == before


NOT_ASKED = [
    # {name: position, seat asked, kind}
    pytest.param(on_turn(["3"]), 0, "turn", id="turn"),
    pytest.param(play2_decision, 0, "play2", id="play2"),
    pytest.param(steal_window, 1, "steal", id="steal_window"),
    pytest.param(steal_block_window, 0, "block", id="steal_block_window"),
    pytest.param(sorry_block_window, 1, "block", id="sorry_block_window"),
    pytest.param(tiebreak_decision, 1, "tiebreak", id="tiebreak"),
]


@pytest.mark.parametrize(("build", "asked", "kind"), NOT_ASKED)
def test_only_the_seat_asked_has_legal_actions(build: Callable[[], CardState], asked: int, kind: str) -> None:
    state = build()
    assert cardkit.asked(state) == (asked, kind)
    assert engine.legal_actions(state, asked) != []
    for seat in range(state.players):
        if seat != asked:
            assert engine.legal_actions(state, seat) == [], f"seat {seat} is not asked"


def test_a_game_whose_every_card_is_stuck_in_the_play_pile_ends_as_stalled() -> None:
    """No hand, draw pile or discard holds a card: nobody can ever play again, so the game ends at once."""
    state = engine.new_game("card", {"players": 2, "deck": {"0": 11}, "turn_cap": 1_000_000}, seed=1)
    applied = 0
    while not engine.is_over(state):
        engine.apply(state, engine.legal_actions(state, engine.decision(state).seat)[0].id)
        applied += 1
    result = engine.result(state)
    assert result is not None and result.reason == "stalled" and result.ranks == (1, 1)
    assert applied == 11 and state.turn < 20
    assert "stuck" in describe_event("card", {"type": "game_over", "to": None, **result.to_json()}, "en")
