"""Rule tables of the SORRY! board game's turn flow (docs/rules.md B1, B2, Part C; the 1992 sheet "GAME PLAY").

The card-by-card tables are in ``test_board_rules_cards.py``, the variants (team, 1972, points) in
``test_board_rules_variants.py``. This file covers what happens around a move: forced moves and forfeits, the 2's
extra draw, seats and colours, the end of a game and its ranking, the turn cap, and illegal actions.
"""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.board import rules
from engine.board.state import BoardState
from tests.engine import boardkit

RED_ALMOST_DONE = {"red0": "safety:4", "red1": "home", "red2": "home", "red3": "home"}
"""Red's only pawn in play needs exactly 1: a 1 moves it, no other card does (nothing to start either)."""


def with_top_cards(state: BoardState, *cards: str) -> BoardState:
    """Put ``cards`` on top of the draw pile, the first one drawn first (the deck stays one 45-card deck)."""
    for card in cards:
        state.draw_pile.remove(card)
    state.draw_pile.extend(reversed(cards))
    return state


def forfeit_events(events: list[dict[str, Any]]) -> list[tuple[int, str]]:
    return [(event["seat"], event["card"]) for event in events if event["type"] == "forfeit"]


# --- B2 forced move: the seat asked always has a legal action, never a pass except the 11's ---------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("variant", ["standard", "team", "points"])
def test_seat_asked_always_has_an_action_and_no_free_pass(seed: int, variant: str) -> None:
    state = engine.new_game("board", {"variant": variant}, seed=seed)
    for _ in range(300):
        if engine.is_over(state):
            break
        seat = engine.decision(state).seat
        actions = [action.id for action in engine.legal_actions(state, seat)]
        assert actions, f"seat {seat} asked with no legal action"
        assert all(engine.legal_actions(state, other) == [] for other in range(state.players) if other != seat)
        assert all(not action.endswith("pass") or action == "11:pass" for action in actions)
        engine.apply(state, engine.fallback_action(state))


# --- B2: a 2 draws again whether or not it could move; any other forfeit passes the turn ---------------------------


def test_2_that_could_not_move_draws_again() -> None:
    state = with_top_cards(boardkit.position(RED_ALMOST_DONE, "2"), "1")
    assert boardkit.action_ids(state) == set()
    events: list[dict[str, Any]] = []
    rules.advance(state, events)
    assert forfeit_events(events) == [(0, "2")]
    assert (engine.decision(state).seat, state.turn, state.card) == (0, 1, "1")
    assert boardkit.action_ids(state) == {"1:red0+1"}


def test_2_forfeit_then_another_forfeit_passes_the_turn() -> None:
    state = with_top_cards(boardkit.position(RED_ALMOST_DONE, "2"), "5", "1")
    events: list[dict[str, Any]] = []
    rules.advance(state, events)
    assert forfeit_events(events) == [(0, "2"), (0, "5")]
    assert (engine.decision(state).seat, state.turn, state.card) == (1, 2, "1")
    assert boardkit.action_ids(state) == {"1:start:blue"}


def test_other_forfeit_passes_the_turn() -> None:
    state = with_top_cards(boardkit.position(RED_ALMOST_DONE, "5"), "1")
    events: list[dict[str, Any]] = []
    rules.advance(state, events)
    assert forfeit_events(events) == [(0, "5")]
    assert (engine.decision(state).seat, state.turn, state.card) == (1, 2, "1")


def test_2_that_moved_draws_again() -> None:
    state = with_top_cards(boardkit.position({"red0": "track:5"}, "2"), "3")
    engine.apply(state, "2:red0+2")
    assert (engine.decision(state).seat, state.turn, state.card) == (0, 1, "3")
    assert boardkit.action_ids(state) == {"3:red0+3"}


def test_2_that_started_draws_again_and_the_exit_circle_is_taken() -> None:
    state = with_top_cards(boardkit.position({}, "2"), "1")
    engine.apply(state, "2:start:red")
    assert (engine.decision(state).seat, state.turn, state.card) == (0, 1, "1")
    assert boardkit.action_ids(state) == {"1:red0+1"}


def test_team_2_extra_card_moves_any_team_pawn() -> None:
    state = with_top_cards(boardkit.position({"yellow0": "track:35"}, "2", variant="team"), "3")
    engine.apply(state, "2:start:red")
    assert (engine.decision(state).seat, state.turn) == (0, 1)
    assert boardkit.action_ids(state) == {"3:red0+3", "3:yellow0+3"}


def test_normal_move_passes_the_turn() -> None:
    state = with_top_cards(boardkit.position({"red0": "track:5"}, "3"), "1")
    engine.apply(state, "3:red0+3")
    assert (engine.decision(state).seat, state.turn, state.card) == (1, 2, "1")
    assert state.discards == ["3"]


# --- B1: seats take colours red, blue, yellow, green in play order; two players are red and yellow --------------


@pytest.mark.parametrize(
    ("players", "colours"),
    [(2, ["red", "yellow"]), (3, ["red", "blue", "yellow"]), (4, ["red", "blue", "yellow", "green"])],
)
def test_seat_colours(players: int, colours: list[str]) -> None:
    state = engine.new_game("board", {"players": players}, seed=3)
    view = engine.view(state, None)
    assert view["colours"] == colours
    assert {name[:-1] for name in view["pawns"]} == set(colours)
    assert sorted(view["pawns"]) == sorted(f"{colour}{i}" for colour in colours for i in range(4))


@pytest.mark.parametrize(
    ("players", "seat", "pawns", "card", "expected"),
    [
        pytest.param(
            2, 1, {"yellow0": "track:35", "red0": "track:20"}, "3", {"3:yellow0+3"}, id="2p_seat_1_yellow"
        ),
        pytest.param(2, 1, {}, "1", {"1:start:yellow"}, id="2p_seat_1_starts_yellow"),
        pytest.param(2, 0, {"yellow0": "track:20"}, "sorry", {"sorry:red:yellow0"}, id="2p_sorry_yellow"),
        pytest.param(
            3, 2, {"yellow0": "track:35", "blue0": "track:20"}, "3", {"3:yellow0+3"}, id="3p_seat_2_yellow"
        ),
        pytest.param(
            3,
            1,
            {"blue0": "track:20", "red0": "track:8"},
            "11",
            {"11:blue0+11", "11:swap:blue0:red0"},
            id="3p_blue",
        ),
    ],
)
def test_seat_moves_its_colour(
    players: int, seat: int, pawns: dict[str, str], card: str, expected: set[str]
) -> None:
    state = boardkit.position(pawns, card, seat=seat, players=players)
    assert boardkit.action_ids(state) == expected


def test_two_player_turns_alternate_red_yellow() -> None:
    state = with_top_cards(boardkit.position({"red0": "track:5"}, "3", players=2), "1")
    engine.apply(state, "3:red0+3")
    assert (engine.decision(state).seat, state.turn) == (1, 2)
    assert boardkit.action_ids(state) == {"1:start:yellow"}


# --- the 1992 sheet "WINNING" and Part C: the winner first, the others by pawns HOME, then steps still to go ----------

WIN_RANKS = [
    pytest.param(
        {
            "blue0": "home",
            "blue1": "home",
            "blue2": "track:20",
            "yellow0": "home",
            "yellow1": "home",
            "yellow2": "safety:0",
            "green0": "home",
        },
        (1, 3, 2, 4),
        id="by_home_then_steps",
    ),
    pytest.param(
        {"blue0": "home", "blue1": "track:20", "yellow0": "track:35", "yellow1": "home"},
        (1, 2, 2, 4),
        id="equal_progress_ties",
    ),
    pytest.param(
        {"green0": "home", "blue0": "safety:4", "yellow0": "safety:3"},
        (1, 3, 4, 2),
        id="one_home_beats_any_steps",
    ),
]


@pytest.mark.parametrize(("others", "ranks"), WIN_RANKS)
def test_ranking_after_a_win(others: dict[str, str], ranks: tuple[int, ...]) -> None:
    state = boardkit.position({**RED_ALMOST_DONE, **others}, "1")
    engine.apply(state, "1:red0+1")
    result = engine.result(state)
    assert result is not None
    assert (result.reason, result.ranks, result.winners) == ("win", ranks, (0,))
    assert engine.legal_actions(state, 0) == [] and engine.decision(state) is None


def test_pawn_home_is_not_a_win_until_all_four() -> None:
    state = boardkit.position({"red0": "safety:4", "red1": "home", "red2": "home", "red3": "track:30"}, "1")
    engine.apply(state, "1:red0+1")
    assert not engine.is_over(state)


# --- Part C: the turn cap ends the game with reason "turn_cap", ranked by progress --------------------------------


def test_turn_cap_ends_the_game() -> None:
    state = engine.new_game("board", {"turn_cap": 5}, seed=4)
    while not engine.is_over(state):
        assert state.turn <= 5
        engine.apply(state, engine.fallback_action(state))
    result = engine.result(state)
    assert result is not None and result.reason == "turn_cap"
    assert state.turn == 5


def capped(pawns: dict[str, str], card: str, **options: Any) -> BoardState:
    """A position whose turn is the last one allowed (turn_cap 1)."""
    document = engine.to_json(boardkit.position(pawns, card, **options))
    document["settings"]["turn_cap"] = 1
    return engine.from_json(document)


CAP_RANKS = [
    pytest.param({"red0": "track:5", "yellow0": "track:40"}, "1:red0+1", (2, 1), id="fewer_steps_first"),
    pytest.param({"red0": "track:5", "red1": "home", "yellow0": "safety:4"}, "1:red0+1", (1, 2), id="home_first"),
    pytest.param({"red0": "track:5", "yellow0": "track:35"}, "1:red0+1", (1, 2), id="red_closer"),
]


@pytest.mark.parametrize(("pawns", "action", "ranks"), CAP_RANKS)
def test_turn_cap_ranks_by_progress(pawns: dict[str, str], action: str, ranks: tuple[int, ...]) -> None:
    state = capped(pawns, "1", players=2)
    engine.apply(state, action)
    result = engine.result(state)
    assert result is not None
    assert (result.reason, result.ranks, result.winners) == ("turn_cap", ranks, (ranks.index(1),))


# --- engine API: illegal or unknown actions, seats not asked ------------------------------------------------------

ILLEGAL = [
    pytest.param("3:red0+4", 0, id="wrong_count"),
    pytest.param("3:blue0+3", 0, id="opponent_pawn"),
    pytest.param("1:start:red", 0, id="start_with_3"),
    pytest.param("11:pass", 0, id="pass_not_offered"),
    pytest.param("fly me to the moon", 0, id="unknown"),
    pytest.param("3:red0+3", 1, id="seat_not_asked"),
    pytest.param("3:red0+3", 3, id="other_seat_not_asked"),
]


@pytest.mark.parametrize(("action", "seat"), ILLEGAL)
def test_illegal_action_raises_and_changes_nothing(action: str, seat: int) -> None:
    state = boardkit.position({"red0": "track:5", "blue0": "track:20"}, "3")
    before = engine.to_json(state)
    with pytest.raises(engine.IllegalActionError) as error:
        engine.apply(state, action, seat)
    assert repr(action) in str(error.value) and f"seat {seat}" in str(error.value)
    assert (error.value.action, error.value.seat) == (action, seat)
    assert engine.to_json(state) == before
    assert boardkit.action_ids(state) == {"3:red0+3"}


def test_seat_not_asked_has_no_actions() -> None:
    state = boardkit.position({"red0": "track:5", "blue0": "track:20"}, "3")
    assert [engine.legal_actions(state, seat) != [] for seat in range(4)] == [True, False, False, False]


def test_action_after_the_end_raises() -> None:
    state = boardkit.position(RED_ALMOST_DONE, "1")
    engine.apply(state, "1:red0+1")
    before = engine.to_json(state)
    with pytest.raises(engine.IllegalActionError, match="seat 0"):
        engine.apply(state, "1:red0+1", 0)
    assert engine.to_json(state) == before
