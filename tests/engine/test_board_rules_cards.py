"""Rule tables of the SORRY! board game, card by card (docs/rules.md B1, B2; the 1992 sheet "THE CARDS", "THE BOARD").

Each case is one card in one situation: the pawns (every pawn not named is in START; 4 players, red to play),
the card, the position's options, and what is expected: the exact set of legal action ids, or the exact pawn
placement (pawns not in START) after one action. Board facts used throughout: red's slides are 1-4 and 9-13,
blue's 16-19 and 24-28, yellow's 31-34 and 39-43, green's 46-49 and 54-58; turn squares 2, 17, 32, 47; start-exit
circles 4, 19, 34, 49.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine import boardkit


def legal_ids(pawns: dict[str, str], card: str, options: dict[str, Any]) -> set[str]:
    return boardkit.action_ids(boardkit.position(pawns, card, **options))


def placement_after(pawns: dict[str, str], card: str, options: dict[str, Any], action_id: str) -> dict[str, str]:
    return boardkit.pawns_after(boardkit.position(pawns, card, **options), action_id)


# --- Exact legal action sets: {name, pawns, card, options, expected ids} ----------------------------------------

LEGAL_ACTIONS = [
    # the 1992 sheet "THE CARDS": each card in a basic situation.
    pytest.param({"red0": "track:5"}, "1", {}, {"1:red0+1", "1:start:red"}, id="1_forward_or_start"),
    pytest.param({"red0": "track:5"}, "2", {}, {"2:red0+2", "2:start:red"}, id="2_forward_or_start"),
    pytest.param({"red0": "track:5"}, "3", {}, {"3:red0+3"}, id="3_forward"),
    pytest.param({"red0": "track:8"}, "4", {}, {"4:red0-4"}, id="4_backward_only"),
    pytest.param({"red0": "track:5"}, "5", {}, {"5:red0+5"}, id="5_forward"),
    pytest.param({"red0": "track:5"}, "7", {}, {"7:red0+7"}, id="7_single_pawn"),
    pytest.param({"red0": "track:6"}, "8", {}, {"8:red0+8"}, id="8_forward"),
    pytest.param({"red0": "track:5"}, "10", {}, {"10:red0+10", "10:red0-1"}, id="10_forward_10_or_backward_1"),
    pytest.param(
        {"red0": "track:6", "blue0": "track:20"},
        "11",
        {},
        {"11:red0+11", "11:swap:red0:blue0"},
        id="11_forward_or_swap",
    ),
    pytest.param({"red0": "track:8"}, "12", {}, {"12:red0+12"}, id="12_forward"),
    pytest.param({"blue0": "track:20"}, "sorry", {}, {"sorry:red:blue0"}, id="sorry_basic"),
    # the 1992 sheet "To Start a Pawn": only a 1 or a 2 starts a pawn (all red pawns in START, opponents around).
    *[
        pytest.param({"blue0": "track:20", "blue1": "safety:0"}, card, {}, set(), id=f"{card}_cannot_start")
        for card in ("3", "4", "5", "7", "8", "10", "11", "12")
    ],
    pytest.param({}, "1", {}, {"1:start:red"}, id="1_starts_from_all_in_start"),
    pytest.param({}, "2", {}, {"2:start:red"}, id="2_starts_from_all_in_start"),
    # the 1992 sheet "Start a Pawn Here": never two own pawns on the exit circle.
    pytest.param({"red0": "track:4"}, "1", {}, {"1:red0+1"}, id="1_exit_circle_held_by_own_pawn"),
    pytest.param({"red0": "track:4"}, "2", {}, {"2:red0+2"}, id="2_exit_circle_held_by_own_pawn"),
    pytest.param({"blue0": "track:4"}, "1", {}, {"1:start:red"}, id="1_exit_circle_held_by_opponent"),
    # the 1992 sheet Notes: landing on an own pawn is illegal (forward, backward, in the safety zone).
    pytest.param({"red0": "track:5", "red1": "track:8"}, "3", {}, {"3:red1+3"}, id="forward_onto_own_pawn"),
    pytest.param({"red0": "track:8", "red1": "track:4"}, "4", {}, {"4:red1-4"}, id="backward_onto_own_pawn"),
    pytest.param(
        {"red0": "track:6", "red1": "track:5"},
        "10",
        {},
        {"10:red0+10", "10:red1+10", "10:red1-1"},
        id="10_backward_1_onto_own_pawn",
    ),
    pytest.param(
        {"red0": "safety:1", "red1": "safety:3"},
        "2",
        {},
        {"2:red1+2", "2:start:red"},
        id="safety_zone_onto_own_pawn",
    ),
    # Own pawn on another colour's triangle: the landing is illegal before any slide (moves.py assumption).
    pytest.param({"red0": "track:13", "red1": "track:16"}, "3", {}, {"3:red1+3"}, id="onto_own_pawn_on_triangle"),
    # the 1992 sheet "Home": exact count only; a pawn HOME never moves again.
    pytest.param({"red0": "safety:2"}, "3", {}, {"3:red0+3"}, id="exact_count_home"),
    pytest.param({"red0": "safety:2"}, "5", {}, set(), id="5_overshoots_home"),
    pytest.param({"red0": "safety:2", "red1": "track:5"}, "8", {}, {"8:red1+8"}, id="8_overshoot_leaves_other"),
    pytest.param({"red0": "track:2"}, "8", {}, set(), id="8_from_turn_square_overshoots"),
    pytest.param({"red0": "home", "red1": "track:5"}, "1", {}, {"1:red1+1", "1:start:red"}, id="home_pawn_1"),
    pytest.param({"red0": "home", "red1": "home", "red2": "home", "red3": "home"}, "4", {}, set(), id="home_4"),
    pytest.param({"red0": "home", "red1": "home", "red2": "home", "red3": "home"}, "10", {}, set(), id="home_10"),
    # B2 10: backward 1 out of the safety zone when forward 10 overshoots.
    pytest.param({"red0": "safety:0"}, "10", {}, {"10:red0-1"}, id="10_backs_out_of_safety"),
    # B2 SORRY!: no pawn in START, or no opponent on the open track: no action (the turn is forfeit).
    pytest.param(
        {"red0": "track:5", "red1": "track:6", "red2": "track:7", "red3": "safety:1", "blue0": "track:20"},
        "sorry",
        {},
        set(),
        id="sorry_no_pawn_in_start",
    ),
    pytest.param({}, "sorry", {}, set(), id="sorry_no_opponent_on_board"),
    pytest.param(
        {"blue0": "safety:1", "yellow0": "home", "green0": "safety:4"},
        "sorry",
        {},
        set(),
        id="sorry_cannot_target_safety_or_home",
    ),
    pytest.param(
        {"red0": "track:30", "blue0": "safety:1", "yellow0": "track:36", "green0": "track:50"},
        "sorry",
        {},
        {"sorry:red:yellow0", "sorry:red:green0"},
        id="sorry_targets_open_track_only",
    ),
    # B2 11: the swap is optional (11:pass) only when no forward 11 exists; swaps only on the open track.
    pytest.param(
        {"red0": "track:2", "blue0": "track:20"},
        "11",
        {},
        {"11:swap:red0:blue0", "11:pass"},
        id="11_pass_when_no_forward_11",
    ),
    pytest.param(
        {"red0": "track:2", "red1": "track:6", "blue0": "track:20"},
        "11",
        {},
        {"11:red1+11", "11:swap:red0:blue0", "11:swap:red1:blue0"},
        id="11_no_pass_when_some_forward_11",
    ),
    pytest.param(
        {"red0": "track:2", "blue0": "safety:1", "yellow0": "home"},
        "11",
        {},
        set(),
        id="11_no_swap_target_no_pass",
    ),
    pytest.param(
        {"red0": "safety:0", "red1": "track:2", "blue0": "track:20"},
        "11",
        {},
        {"11:swap:red1:blue0", "11:pass"},
        id="11_swap_never_from_safety",
    ),
    pytest.param({"red0": "track:50"}, "11", {}, {"11:red0+11"}, id="11_forward_without_opponent"),
    # B2 7: never to start a pawn; a part that reaches HOME needs another pawn to take the rest.
    pytest.param({"red0": "safety:2"}, "7", {}, set(), id="7_split_home_needs_other_pawn"),
    pytest.param(
        {"red0": "safety:2", "red1": "track:5"},
        "7",
        {},
        {"7:red1+7", "7:red0+1,red1+6", "7:red0+2,red1+5", "7:red0+3,red1+4"},
        id="7_split_home_with_rest_on_other_pawn",
    ),
    pytest.param({"red0": "safety:2", "red1": "safety:3"}, "7", {}, set(), id="7_rest_cannot_be_used"),
    pytest.param({"red0": "safety:2", "red1": "safety:1"}, "7", {}, {"7:red0+3,red1+4"}, id="7_split_both_home"),
    # Two pawns, each part distinct; order-independent splits appear once, in the order generated (red0 first).
    pytest.param(
        {"red0": "track:5", "red1": "track:20"},
        "7",
        {},
        {
            "7:red0+7",
            "7:red1+7",
            "7:red0+1,red1+6",
            "7:red0+2,red1+5",
            "7:red0+3,red1+4",
            "7:red0+4,red1+3",
            "7:red0+5,red1+2",
            "7:red0+6,red1+1",
        },
        id="7_split_two_pawns_unique_by_outcome",
    ),
    # Pawns of one colour are alike: red0+5,red1+2 reaches red0+4,red1+3's position, red1+5,red0+2 red0+7's.
    pytest.param(
        {"red0": "track:5", "red1": "track:7"},
        "7",
        {},
        {"7:red0+7", "7:red1+7", "7:red0+1,red1+6", "7:red0+3,red1+4", "7:red0+4,red1+3"},
        id="7_split_unique_with_pawns_alike",
    ),
    # B2 7 with B2 Slides: each part follows every rule as if alone. red0+6 ends on 19, then red1+1 lands on blue's
    # triangle 16 and slides to 19, bumping red0 (a slide bumps every pawn, its own colour's too): legal.
    # red1+4,red0+3 reaches the same position (one red pawn on 19, one in START), so it is not listed. The other
    # orders are illegal: after red0+3 (sliding to 19) red1+4 ends on 19, and after red1+1 (sliding to 19) red0+6
    # ends on 19, a square held by its own colour. red1+5,red0+2 is red0+7's position.
    pytest.param(
        {"red0": "track:13", "red1": "track:15"},
        "7",
        {},
        {"7:red0+7", "7:red1+7", "7:red0+1,red1+6", "7:red0+4,red1+3", "7:red0+6,red1+1"},
        id="7_split_second_part_slides_over_first",
    ),
    # The same with the pawns named the other way: red0 15+4 to 19, then red1 13+3 to 16 slides to 19.
    pytest.param(
        {"red0": "track:15", "red1": "track:13"},
        "7",
        {},
        {"7:red0+7", "7:red1+7", "7:red0+2,red1+5", "7:red0+4,red1+3", "7:red0+6,red1+1"},
        id="7_split_slide_bumps_first_part_legal",
    ),
    # red0+4,red1+3 would end both on 17; red0+5,red1+2 slides red1 over red0's square 18 (bumping it, B2 Slides);
    # red1+4,red0+3 is the same position as red0+5,red1+2, so it is not listed.
    pytest.param(
        {"red0": "track:13", "red1": "track:14"},
        "7",
        {},
        {"7:red0+7", "7:red1+7", "7:red0+2,red1+5", "7:red0+3,red1+4", "7:red0+5,red1+2"},
        id="7_split_with_a_slide_order_matters",
    ),
    # Forced move (B2): the only move harms the player, and there is no pass.
    pytest.param({"red0": "safety:1"}, "4", {}, {"4:red0-4"}, id="forced_4_out_of_safety"),
    pytest.param({"red0": "safety:4"}, "10", {}, {"10:red0-1"}, id="forced_10_backward"),
]


@pytest.mark.parametrize(("pawns", "card", "options", "expected"), LEGAL_ACTIONS)
def test_legal_actions(pawns: dict[str, str], card: str, options: dict[str, Any], expected: set[str]) -> None:
    assert legal_ids(pawns, card, options) == expected


# --- Placements after one action: {name, pawns, card, options, action, expected pawns not in START} -------------

PLACEMENTS = [
    # the 1992 sheet "THE CARDS": basic moves.
    pytest.param({}, "1", {}, "1:start:red", {"red0": "track:4"}, id="1_start"),
    pytest.param(
        {"red0": "track:5"}, "1", {}, "1:start:red", {"red0": "track:5", "red1": "track:4"}, id="1_start_next"
    ),
    pytest.param({}, "2", {}, "2:start:red", {"red0": "track:4"}, id="2_start"),
    pytest.param({"red0": "track:5"}, "3", {}, "3:red0+3", {"red0": "track:8"}, id="3_forward"),
    pytest.param({"red0": "track:8"}, "4", {}, "4:red0-4", {"red0": "track:4"}, id="4_backward"),
    pytest.param({"red0": "track:30"}, "5", {}, "5:red0+5", {"red0": "track:35"}, id="5_forward"),
    pytest.param({"red0": "track:5"}, "7", {}, "7:red0+7", {"red0": "track:12"}, id="7_single"),
    pytest.param({"red0": "track:6"}, "8", {}, "8:red0+8", {"red0": "track:14"}, id="8_forward"),
    pytest.param({"red0": "track:5"}, "10", {}, "10:red0+10", {"red0": "track:15"}, id="10_forward"),
    pytest.param({"red0": "track:5"}, "10", {}, "10:red0-1", {"red0": "track:4"}, id="10_backward"),
    pytest.param({"red0": "track:8"}, "12", {}, "12:red0+12", {"red0": "track:20"}, id="12_forward"),
    pytest.param({"red0": "track:58"}, "1", {}, "1:red0+1", {"red0": "track:59"}, id="track_wraps_59"),
    pytest.param({"red0": "track:59"}, "1", {}, "1:red0+1", {"red0": "track:0"}, id="track_wraps_0"),
    pytest.param(
        {"red0": "track:5", "red1": "track:20"},
        "7",
        {},
        "7:red0+2,red1+5",
        {"red0": "track:7", "red1": "track:25"},
        id="7_split",
    ),
    # the 1992 sheet "Start a Pawn Here": an opponent on the exit circle is bumped.
    pytest.param({"blue0": "track:4"}, "1", {}, "1:start:red", {"red0": "track:4"}, id="start_bumps_opponent"),
    # the 1992 sheet "Jumping and Bumping".
    pytest.param(
        {"red0": "track:5", "blue0": "track:6", "red1": "track:7"},
        "3",
        {},
        "3:red0+3",
        {"red0": "track:8", "blue0": "track:6", "red1": "track:7"},
        id="jumps_over_pawns",
    ),
    pytest.param(
        {"red0": "track:5", "blue0": "track:8"}, "3", {}, "3:red0+3", {"red0": "track:8"}, id="bump_forward"
    ),
    pytest.param({"red0": "track:8", "green0": "track:4"}, "4", {}, "4:red0-4", {"red0": "track:4"}, id="bump_4"),
    pytest.param(
        {"red0": "track:8", "blue0": "track:7"}, "10", {}, "10:red0-1", {"red0": "track:7"}, id="bump_10"
    ),
    # the 1992 sheet "Safety Zone": only the own colour turns in at 15k+2; others pass the turn square.
    pytest.param({"red0": "track:2"}, "1", {}, "1:red0+1", {"red0": "safety:0"}, id="red_turns_in_at_2"),
    pytest.param({"red0": "track:16"}, "3", {}, "3:red0+3", {"red0": "track:19"}, id="red_passes_blue_turn"),
    pytest.param({"red0": "track:17"}, "1", {}, "1:red0+1", {"red0": "track:18"}, id="red_passes_blue_turn_1"),
    pytest.param({"blue0": "track:2"}, "1", {"seat": 1}, "1:blue0+1", {"blue0": "track:3"}, id="blue_passes_2"),
    pytest.param({"blue0": "track:17"}, "1", {"seat": 1}, "1:blue0+1", {"blue0": "safety:0"}, id="blue_turns_17"),
    pytest.param({"red0": "track:0"}, "5", {}, "5:red0+5", {"red0": "safety:2"}, id="red_from_0_into_safety"),
    pytest.param({"red0": "track:1"}, "7", {}, "7:red0+7", {"red0": "home"}, id="red_from_1_home_by_7"),
    pytest.param({"red0": "track:0"}, "8", {}, "8:red0+8", {"red0": "home"}, id="red_from_0_home_by_8"),
    # the 1992 sheet "Moving Backwards": no pawn enters its safety zone backward; it may back out of it.
    pytest.param({"red0": "track:4"}, "4", {}, "4:red0-4", {"red0": "track:0"}, id="4_from_exit_past_start"),
    pytest.param({"red0": "track:6"}, "4", {}, "4:red0-4", {"red0": "track:2"}, id="4_stops_on_turn_square"),
    pytest.param({"red0": "track:3"}, "10", {}, "10:red0-1", {"red0": "track:2"}, id="10_back_onto_turn_square"),
    pytest.param({"red0": "safety:0"}, "10", {}, "10:red0-1", {"red0": "track:2"}, id="back_out_of_safety_10"),
    pytest.param({"red0": "safety:1"}, "4", {}, "4:red0-4", {"red0": "track:0"}, id="back_out_of_safety_4"),
    pytest.param({"red0": "safety:4"}, "4", {}, "4:red0-4", {"red0": "safety:0"}, id="4_inside_safety"),
    pytest.param({"red0": "track:58"}, "5", {}, "5:red0+5", {"red0": "safety:0"}, id="red_from_58_into_safety"),
    # the 1992 sheet "Slide": another colour's triangle slides to the end, bumping every pawn on it, own colour too.
    pytest.param(
        {"red0": "track:13", "blue0": "track:18", "red1": "track:17", "green0": "track:19", "yellow0": "track:20"},
        "3",
        {},
        "3:red0+3",
        {"red0": "track:19", "yellow0": "track:20"},
        id="slide_bumps_everyone_on_it",
    ),
    pytest.param(
        {"red0": "track:13", "red1": "track:19"},
        "3",
        {},
        "3:red0+3",
        {"red0": "track:19"},
        id="slide_bumps_own_pawn_at_end",
    ),
    pytest.param(
        {"red0": "track:28", "yellow0": "track:34"},
        "3",
        {},
        "3:red0+3",
        {"red0": "track:34"},
        id="slide_onto_yellow_exit_circle",
    ),
    pytest.param(
        {"red0": "track:6", "blue0": "track:11"},
        "3",
        {},
        "3:red0+3",
        {"red0": "track:9", "blue0": "track:11"},
        id="own_slide_does_not_slide",
    ),
    pytest.param(
        {"blue0": "track:21", "red0": "track:26"},
        "3",
        {"seat": 1},
        "3:blue0+3",
        {"blue0": "track:24", "red0": "track:26"},
        id="blue_own_long_slide_does_not_slide",
    ),
    pytest.param(
        {"red0": "track:14", "blue0": "track:18"},
        "3",
        {},
        "3:red0+3",
        {"red0": "track:17", "blue0": "track:18"},
        id="passing_over_triangle_does_nothing",
    ),
    pytest.param(
        {"red0": "track:15", "blue0": "track:19"},
        "2",
        {},
        "2:red0+2",
        {"red0": "track:17", "blue0": "track:19"},
        id="landing_mid_slide_does_nothing",
    ),
    pytest.param({"red0": "track:20"}, "4", {}, "4:red0-4", {"red0": "track:19"}, id="4_backward_onto_triangle"),
    pytest.param(
        {"red0": "track:25", "green0": "track:27"},
        "10",
        {},
        "10:red0-1",
        {"red0": "track:28"},
        id="10_backward_onto_triangle",
    ),
    # Trap: a pawn never bumps itself off a slide (back 4 from blue's long-slide end onto its triangle).
    pytest.param(
        {"red0": "track:28", "blue0": "track:26"},
        "4",
        {},
        "4:red0-4",
        {"red0": "track:28"},
        id="never_bumps_itself_off_slide",
    ),
    # B2 7 with B2 Slides: the part played first stays; a later part's slide bumps what stands on the slide.
    pytest.param(
        {"red0": "track:13", "red1": "track:14"},
        "7",
        {},
        "7:red0+3,red1+4",
        {"red0": "track:19", "red1": "track:18"},
        id="7_slide_first_then_other_part",
    ),
    pytest.param(
        {"red0": "track:13", "red1": "track:14"},
        "7",
        {},
        "7:red0+5,red1+2",
        {"red1": "track:19"},
        id="7_second_part_slide_bumps_first_part",
    ),
    # docs/rules.md B2: red 15+4 to 19, then red 13+3 to blue's triangle 16, sliding to 19 over the first pawn,
    # which goes back to START like any pawn on a slide.
    pytest.param(
        {"red0": "track:15", "red1": "track:13"},
        "7",
        {},
        "7:red0+4,red1+3",
        {"red1": "track:19"},
        id="7_second_part_slides_over_first_part_to_start",
    ),
    # B2 11: swap; the own pawn slides after a swap onto another colour's triangle, the opponent never does.
    pytest.param(
        {"red0": "track:6", "blue0": "track:20"},
        "11",
        {},
        "11:swap:red0:blue0",
        {"red0": "track:20", "blue0": "track:6"},
        id="11_swap",
    ),
    pytest.param(
        {"red0": "track:6", "blue0": "track:20"},
        "11",
        {},
        "11:red0+11",
        {"red0": "track:17", "blue0": "track:20"},
        id="11_forward",
    ),
    pytest.param(
        {"red0": "track:2", "blue0": "track:20"},
        "11",
        {},
        "11:pass",
        {"red0": "track:2", "blue0": "track:20"},
        id="11_pass_changes_nothing",
    ),
    pytest.param(
        {"red0": "track:6", "blue0": "track:16", "yellow0": "track:18"},
        "11",
        {},
        "11:swap:red0:blue0",
        {"red0": "track:19", "blue0": "track:6"},
        id="11_swap_onto_triangle_slides_own_pawn",
    ),
    pytest.param(
        {"red0": "track:1", "blue0": "track:20"},
        "11",
        {},
        "11:swap:red0:blue0",
        {"red0": "track:20", "blue0": "track:1"},
        id="11_swapped_opponent_does_not_slide",
    ),
    pytest.param(
        {"red0": "track:50", "yellow0": "track:9"},
        "11",
        {},
        "11:swap:red0:yellow0",
        {"red0": "track:9", "yellow0": "track:50"},
        id="11_swap_onto_own_triangle_no_slide",
    ),
    pytest.param(
        {"red0": "track:17", "blue0": "track:16"},
        "11",
        {},
        "11:swap:red0:blue0",
        {"red0": "track:19"},
        id="11_swap_slide_bumps_swapped_opponent",
    ),
    # B2 SORRY!: the placed pawn takes the square and bumps the target; it slides from another colour's triangle.
    pytest.param({"blue0": "track:20"}, "sorry", {}, "sorry:red:blue0", {"red0": "track:20"}, id="sorry_bumps"),
    pytest.param(
        {"blue0": "track:16", "yellow0": "track:18", "green0": "track:20"},
        "sorry",
        {},
        "sorry:red:blue0",
        {"red0": "track:19", "green0": "track:20"},
        id="sorry_onto_triangle_slides",
    ),
    pytest.param(
        {"blue0": "track:9", "yellow0": "track:11"},
        "sorry",
        {},
        "sorry:red:blue0",
        {"red0": "track:9", "yellow0": "track:11"},
        id="sorry_onto_own_triangle_no_slide",
    ),
]


@pytest.mark.parametrize(("pawns", "card", "options", "action", "expected"), PLACEMENTS)
def test_placement_after(
    pawns: dict[str, str], card: str, options: dict[str, Any], action: str, expected: dict[str, str]
) -> None:
    assert placement_after(pawns, card, options, action) == expected


# --- What an action reports: bumps and slides (the 1992 sheet "Slide"; a pawn never bumps itself) -------------------

DESCRIPTIONS = [
    pytest.param(
        {"red0": "track:28", "blue0": "track:26"},
        "4",
        "4:red0-4",
        [{"pawn": "blue0", "from": "track:26"}],
        [{"pawn": "red0", "from": "track:24", "to": "track:28"}],
        id="never_bumps_itself_off_slide",
    ),
    pytest.param(
        {"red0": "track:13", "red1": "track:19"},
        "3",
        "3:red0+3",
        [{"pawn": "red1", "from": "track:19"}],
        [{"pawn": "red0", "from": "track:16", "to": "track:19"}],
        id="slide_bumps_own_pawn",
    ),
    pytest.param(
        {"red0": "track:17", "blue0": "track:16"},
        "11",
        "11:swap:red0:blue0",
        [{"pawn": "blue0", "from": "track:17"}],
        [{"pawn": "red0", "from": "track:16", "to": "track:19"}],
        id="swap_then_slide_bumps_swapped_opponent",
    ),
    pytest.param(
        {"red0": "track:1", "blue0": "track:20"},
        "11",
        "11:swap:red0:blue0",
        [],
        [],
        id="swapped_opponent_on_triangle_does_not_slide",
    ),
    pytest.param(
        {"blue0": "track:20"}, "sorry", "sorry:red:blue0", [{"pawn": "blue0", "from": "track:20"}], [], id="sorry"
    ),
    pytest.param({"red0": "track:6", "blue0": "track:11"}, "3", "3:red0+3", [], [], id="own_slide_no_slide"),
]


@pytest.mark.parametrize(("pawns", "card", "action", "bumps", "slides"), DESCRIPTIONS)
def test_action_reports_bumps_and_slides(
    pawns: dict[str, str], card: str, action: str, bumps: list[dict[str, str]], slides: list[dict[str, str]]
) -> None:
    description = boardkit.describe(boardkit.position(pawns, card))[action]
    assert (description["bumps"], description["slides"]) == (bumps, slides)
