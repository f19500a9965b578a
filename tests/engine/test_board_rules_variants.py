"""Rule tables of the SORRY! board game's variants: team play (B4), the 1972 edition (B3), points (B5).

Positions come from :mod:`tests.engine.boardkit`: every pawn not named is in START, seat 0 (red) is asked. In team play
red (seat 0) partners yellow (seat 2), blue (seat 1) partners green (seat 3).
"""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.board import scoring
from tests.engine import boardkit

TEAM = {"variant": "team"}
TEAM_1972 = {"variant": "team", "edition": "1972"}
POINTS = {"variant": "points"}
ALL_RED_HOME = {"red0": "home", "red1": "home", "red2": "home", "red3": "home"}


def legal_ids(pawns: dict[str, str], card: str | None, options: dict[str, Any]) -> set[str]:
    return boardkit.action_ids(boardkit.position(pawns, card, **options))


# --- B4 team play and B3 1972 edition: exact legal action sets -----------------------------------------------

TEAM_LEGAL_ACTIONS = [
    # B4: the partner's pawns are moved and started with the card drawn.
    pytest.param({"yellow0": "track:35"}, "3", TEAM, {"3:yellow0+3"}, id="moves_partner_pawn"),
    pytest.param({}, "1", TEAM, {"1:start:red", "1:start:yellow"}, id="1_starts_own_or_partner"),
    pytest.param({"red0": "track:4"}, "2", TEAM, {"2:red0+2", "2:start:yellow"}, id="2_starts_partner"),
    pytest.param({"blue0": "track:20"}, "3", TEAM, set(), id="opponents_pawns_never_move"),
    pytest.param(
        {"red0": "track:30", "yellow0": "track:33"},
        "3",
        TEAM,
        {"3:red0+3", "3:yellow0+3"},
        id="landing_on_partner_is_legal",
    ),
    # B3: a player whose pawns are all HOME goes on playing the partner's pawns.
    pytest.param({**ALL_RED_HOME, "yellow0": "track:35"}, "3", TEAM, {"3:yellow0+3"}, id="all_home_plays_partner"),
    # B4 SORRY!: against an opponent if any is on the open track, else against the partner (either way round).
    pytest.param(
        {"yellow0": "track:35", "blue0": "track:20"},
        "sorry",
        TEAM,
        {"sorry:red:blue0", "sorry:yellow:blue0"},
        id="sorry_opponent_before_partner",
    ),
    pytest.param({"yellow0": "track:35"}, "sorry", TEAM, {"sorry:red:yellow0"}, id="sorry_must_hit_partner"),
    pytest.param(
        {"yellow0": "track:35", "red0": "track:50"},
        "sorry",
        TEAM,
        {"sorry:red:yellow0", "sorry:yellow:red0"},
        id="sorry_partner_either_way",
    ),
    pytest.param(
        {"yellow0": "safety:1", "blue0": "safety:2"},
        "sorry",
        TEAM,
        set(),
        id="sorry_no_target_on_open_track",
    ),
    # B2 11 in team play: a swap is only with an opponent, never with the partner.
    pytest.param(
        {"red0": "track:2", "yellow0": "track:40"}, "11", TEAM, {"11:yellow0+11"}, id="11_never_swaps_partner"
    ),
    # B4 7: red0+2 would bump yellow0 to START before its part; played the other way round it is legal.
    pytest.param(
        {"red0": "track:5", "yellow0": "track:7"},
        "7",
        TEAM,
        {
            "7:red0+7",
            "7:yellow0+7",
            "7:red0+1,yellow0+6",
            "7:red0+3,yellow0+4",
            "7:red0+4,yellow0+3",
            "7:red0+5,yellow0+2",
            "7:red0+6,yellow0+1",
            "7:yellow0+2,red0+5",
            "7:yellow0+5,red0+2",
        },
        id="7_team_split_order_of_parts",
    ),
]


@pytest.mark.parametrize(("pawns", "card", "options", "expected"), TEAM_LEGAL_ACTIONS)
def test_team_legal_actions(pawns: dict[str, str], card: str, options: dict[str, Any], expected: set[str]) -> None:
    assert legal_ids(pawns, card, options) == expected


TEAM_PLACEMENTS = [
    pytest.param({}, "1", TEAM, "1:start:yellow", {"yellow0": "track:34"}, id="start_partner"),
    pytest.param(
        {"yellow0": "track:32"}, "1", TEAM, "1:yellow0+1", {"yellow0": "safety:0"}, id="partner_own_zone"
    ),
    pytest.param(
        {"red0": "track:30", "yellow0": "track:33"},
        "3",
        TEAM,
        "3:red0+3",
        {"red0": "track:33"},
        id="landing_on_partner_bumps_it",
    ),
    pytest.param(
        {"red0": "track:4", "yellow0": "track:36"},
        "4",
        TEAM,
        "4:yellow0-4",
        {"red0": "track:4", "yellow0": "track:32"},
        id="partner_backward",
    ),
    pytest.param(
        {"yellow0": "track:35"}, "sorry", TEAM, "sorry:red:yellow0", {"red0": "track:35"}, id="sorry_partner"
    ),
    # B2 Slides with B4: red's slide is its own, yellow's triangle 31 slides a red pawn (bumping yellow on it).
    pytest.param(
        {"red0": "track:29", "yellow0": "track:33"},
        "2",
        TEAM,
        "2:red0+2",
        {"red0": "track:34"},
        id="slide_bumps_partner",
    ),
    # B4 7: the part that would bump the partner is played after the partner's part.
    pytest.param(
        {"red0": "track:5", "yellow0": "track:7"},
        "7",
        TEAM,
        "7:yellow0+5,red0+2",
        {"red0": "track:7", "yellow0": "track:12"},
        id="7_team_split_partner_first",
    ),
    # B2 7: each part follows every rule as if alone; a part may end where the partner's pawn of an earlier part
    # stands (bumping it, B4), and two colours' safety zones are different squares.
    pytest.param(
        {"red0": "track:20", "yellow0": "track:23"},
        "7",
        TEAM,
        "7:yellow0+2,red0+5",
        {"red0": "track:25"},
        id="7_team_split_later_part_bumps_partner",
    ),
    pytest.param(
        {"red0": "track:0", "yellow0": "track:29"},
        "7",
        TEAM_1972,
        "7:red0+3,yellow0+4",
        {"red0": "safety:0", "yellow0": "safety:0"},
        id="7_team_split_both_zones_same_number",
    ),
    pytest.param(
        {"red0": "track:5", "red1": "track:20", "yellow0": "track:35"},
        "7",
        TEAM,
        "7:red0+2,red1+2,yellow0+3",
        {"red0": "track:7", "red1": "track:22", "yellow0": "track:38"},
        id="7_team_1992_three_pawns",
    ),
]


@pytest.mark.parametrize(("pawns", "card", "options", "action", "expected"), TEAM_PLACEMENTS)
def test_team_placement_after(
    pawns: dict[str, str], card: str, options: dict[str, Any], action: str, expected: dict[str, str]
) -> None:
    assert boardkit.pawns_after(boardkit.position(pawns, card, **options), action) == expected


# B3 / B4 7: 1992 team play splits among any of the team's pawns, 1972 between two only, standard never three.
SPLIT_PAWNS = {"red0": "track:5", "red1": "track:20", "yellow0": "track:35"}


@pytest.mark.parametrize(
    ("options", "three_way_allowed"),
    [
        pytest.param(TEAM, True, id="team_1992_three_pawns"),
        pytest.param(TEAM_1972, False, id="team_1972_two_pawns"),
        pytest.param({}, False, id="standard_two_pawns"),
        pytest.param({"edition": "1972"}, False, id="standard_1972_two_pawns"),
    ],
)
def test_7_split_pawn_count(options: dict[str, Any], three_way_allowed: bool) -> None:
    ids = legal_ids(SPLIT_PAWNS, "7", options)
    assert ("7:red0+2,red1+2,yellow0+3" in ids) is three_way_allowed
    assert any(action.count(",") >= 2 for action in ids) is three_way_allowed
    assert "7:red0+3,red1+4" in ids  # a two-pawn split is always there


def test_7_team_1992_splits_up_to_seven_pawns() -> None:
    pawns = {
        "red0": "track:5",
        "red1": "track:20",
        "red2": "track:36",
        "red3": "track:50",
        "yellow0": "track:7",
        "yellow1": "track:22",
        "yellow2": "track:38",
        "yellow3": "track:52",
    }
    ids = legal_ids(pawns, "7", TEAM)
    assert "7:red0+1,red1+1,red2+1,red3+1,yellow0+1,yellow1+1,yellow2+1" in ids
    assert max(action.count(",") for action in ids) == 6  # 7 parts of one step each


def test_team_moves_own_pawns_only_with_partner_not_opponents() -> None:
    state = boardkit.position({"blue0": "track:20", "green0": "track:50"}, "3", variant="team", seat=1)
    assert boardkit.action_ids(state) == {"3:blue0+3", "3:green0+3"}


# B4: a team wins when all eight pawns are HOME; the partners rank first together.
def test_team_wins_with_all_eight_home() -> None:
    pawns = {**ALL_RED_HOME, "yellow0": "home", "yellow1": "home", "yellow2": "home", "yellow3": "safety:4"}
    pawns |= {"blue0": "home", "green0": "track:50"}
    state = boardkit.position(pawns, "1", variant="team")
    assert boardkit.action_ids(state) == {"1:yellow3+1"}
    engine.apply(state, "1:yellow3+1")
    result = engine.result(state)
    assert result is not None and result.reason == "win"
    assert result.ranks == (1, 3, 1, 3)
    assert result.winners == (0, 2)


def test_team_not_won_while_partner_pawns_remain() -> None:
    pawns = {"red0": "home", "red1": "home", "red2": "home", "red3": "safety:4", "yellow0": "track:35"}
    state = boardkit.position(pawns, "1", variant="team")
    engine.apply(state, "1:red3+1")
    assert not engine.is_over(state) and engine.result(state) is None
    assert state.turn >= 2


# --- B3 1972: the diamond squares change nothing (a backward move may stop on the own diamond, offset 3) -------


@pytest.mark.parametrize("edition", ["1992", "1972"])
def test_diamond_square_changes_nothing(edition: str) -> None:
    state = boardkit.position({"red0": "track:7"}, "4", edition=edition)
    assert boardkit.pawns_after(state, "4:red0-4") == {"red0": "track:3"}


# --- B5 points variant ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_points_setup(players: int) -> None:
    state = engine.new_game("board", {"variant": "points", "players": players}, seed=11)
    exits = {"red0": "track:4", "blue0": "track:19", "yellow0": "track:34", "green0": "track:49"}
    colours = engine.view(state, None)["colours"]
    assert boardkit.placed(state) == {name: loc for name, loc in exits.items() if name[:-1] in colours}
    assert [len(hand) for hand in state.hands] == [5] * players
    assert len(state.draw_pile) == 45 - 5 * players
    assert state.card is None


POINTS_LEGAL_ACTIONS = [
    pytest.param(
        {"red0": "track:5"},
        ["3", "5", "3", "12", "sorry"],
        {"3:red0+3", "5:red0+5", "12:red0+12"},
        id="plays_from_hand",
    ),
    pytest.param(
        {"red0": "track:4", "blue0": "track:20"},
        ["1", "4", "8", "10", "11"],
        {"1:red0+1", "4:red0-4", "8:red0+8", "10:red0+10", "10:red0-1", "11:red0+11", "11:swap:red0:blue0"},
        id="every_card_of_hand",
    ),
    # B5: discard only when no card in the hand moves (one action per distinct card).
    pytest.param(
        {}, ["3", "4", "5", "7", "3"], {"discard:3", "discard:4", "discard:5", "discard:7"}, id="discard"
    ),
    pytest.param({}, ["3", "4", "5", "7", "1"], {"1:start:red"}, id="one_card_moves_no_discard"),
    pytest.param({"blue0": "track:20"}, ["3", "4", "5", "7", "sorry"], {"sorry:red:blue0"}, id="sorry_from_hand"),
    pytest.param(
        {"red0": "safety:4", "red1": "home", "red2": "home", "red3": "home"},
        ["2", "3", "5", "7", "8"],
        {"discard:2", "discard:3", "discard:5", "discard:7", "discard:8"},
        id="discard_with_unplayable_2",
    ),
]


@pytest.mark.parametrize(("pawns", "hand", "expected"), POINTS_LEGAL_ACTIONS)
def test_points_legal_actions(pawns: dict[str, str], hand: list[str], expected: set[str]) -> None:
    state = boardkit.position(pawns, variant="points", hand=hand)
    assert boardkit.action_ids(state) == expected
    # the kind is "play" even when only discards remain: it must not tell the other seats about the hand
    assert engine.decision(state) == engine.Decision(0, "play")


def test_points_play_refills_hand_and_passes_turn() -> None:
    state = boardkit.position({"red0": "track:5"}, variant="points", hand=["3", "4", "5", "7", "8"])
    engine.apply(state, "3:red0+3")
    assert boardkit.placed(state)["red0"] == "track:8"
    assert len(state.hands[0]) == 5
    assert sorted(state.hands[0][:4]) == ["4", "5", "7", "8"]
    assert (state.seat, state.turn) == (1, 2)
    assert state.discards == ["3"]


def test_points_2_that_moved_plays_again() -> None:
    state = boardkit.position({"red0": "track:5"}, variant="points", hand=["2", "3", "5", "7", "8"])
    engine.apply(state, "2:red0+2")
    assert boardkit.placed(state)["red0"] == "track:7"
    assert (engine.decision(state).seat, state.turn) == (0, 1)
    assert len(state.hands[0]) == 5 and sorted(state.hands[0][:4]) == ["3", "5", "7", "8"]
    assert engine.legal_actions(state, 0)


def test_points_2_that_started_plays_again() -> None:
    state = boardkit.position({}, variant="points", hand=["2", "3", "5", "7", "8"])
    assert boardkit.action_ids(state) == {"2:start:red"}
    engine.apply(state, "2:start:red")
    assert (engine.decision(state).seat, state.turn) == (0, 1)


def test_points_discarded_2_gives_nothing() -> None:
    pawns = {"red0": "safety:4", "red1": "home", "red2": "home", "red3": "home"}
    state = boardkit.position(pawns, variant="points", hand=["2", "3", "5", "7", "8"])
    engine.apply(state, "discard:2")
    assert (engine.decision(state).seat, state.turn) == (1, 2)
    assert len(state.hands[0]) == 5
    assert state.discards == ["2"]
    assert boardkit.placed(state) == pawns


def test_points_win_scores() -> None:
    pawns = {"red0": "home", "red1": "home", "red2": "home", "red3": "safety:4", "blue0": "track:20"}
    state = boardkit.position(pawns, variant="points", hand=["1", "3", "5", "7", "8"])
    engine.apply(state, "1:red3+1")
    result = engine.result(state)
    assert result is not None and result.reason == "win"
    assert result.scores == (20 + 5 * 12 + 100, 0, 0, 0)
    assert result.ranks == (1, 2, 3, 3)  # blue0 is closer to HOME than yellow's and green's pawns


# B5 scoring on crafted states: 5 per pawn HOME; the winner +5 per opponent pawn not HOME + the best bonus only.
def _home(colour: str, count: int) -> dict[str, str]:
    return {f"{colour}{i}": "home" for i in range(count)}


SCORES = [
    pytest.param(4, _home("red", 4), 0, (20 + 60 + 100, 0, 0, 0), (1, 2, 2, 2), id="bonus_100_only"),
    pytest.param(
        4, {**_home("red", 4), **_home("blue", 1)}, 0, (20 + 55 + 50, 5, 0, 0), (1, 2, 3, 3), id="bonus_50"
    ),
    pytest.param(
        4,
        {**_home("red", 4), **_home("blue", 2), **_home("yellow", 1)},
        0,
        (20 + 45 + 25, 10, 5, 0),
        (1, 2, 3, 4),
        id="bonus_25",
    ),
    pytest.param(4, {**_home("red", 4), **_home("green", 3)}, 0, (20 + 45, 0, 0, 15), (1, 3, 3, 2), id="no_bonus"),
    pytest.param(2, {**_home("red", 4), **_home("yellow", 2)}, 0, (20 + 10 + 25, 10), (1, 2), id="two_players"),
    pytest.param(
        3,
        {**_home("blue", 4), **_home("red", 1)},
        1,
        (5, 20 + 35 + 50, 0),
        (2, 1, 3),
        id="winner_not_seat_0",
    ),
    pytest.param(
        4,
        {**_home("red", 3), **_home("blue", 1)},
        None,
        (15, 5, 0, 0),
        (1, 2, 3, 3),
        id="turn_cap_no_winner_bonus",
    ),
]


@pytest.mark.parametrize(("players", "pawns", "winner", "scores", "ranks"), SCORES)
def test_points_scoring(
    players: int, pawns: dict[str, str], winner: int | None, scores: tuple[int, ...], ranks: tuple[int, ...]
) -> None:
    state = boardkit.position(pawns, players=players, variant="points", hand=["1", "3", "5", "7", "8"])
    result = scoring.final_result(state, winner)
    assert result.scores == scores
    assert result.ranks == ranks
    assert result.reason == ("win" if winner is not None else "turn_cap")
