"""Property tests of the board game's engine API (docs/rules.md Part B and C), with hypothesis.

Random games over every variant, edition and player count: games end and rank every seat; every applied action
was legal and only the seat asked may act; JSON round-trips; pawns and the 45 cards are conserved; a view depends
only on what its seat may know (an information-set check); replays are exact; illegal actions change nothing;
the fallback action is legal and deterministic.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import engine
from engine.board.cards import full_deck
from engine.board.geometry import ABSENT, HOME, PARTNER, SAFETY, SEAT_COLOURS, START, TRACK
from tests.engine.propkit import asked, assert_finished_and_ranked, assert_refusals_change_nothing, canonical, play

# Modest example counts keep this file fast (~10 s); BOARD_PROPERTY_SCALE=20 runs twenty times as many examples.
SCALE = int(os.environ.get("BOARD_PROPERTY_SCALE", "1"))
settings.register_profile("board", deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(settings.get_profile("board"), max_examples=20 * SCALE)
SOME = settings(settings.get_profile("board"), max_examples=30 * SCALE)


@st.composite
def board_settings(draw: st.DrawFn, variants: tuple[str, ...] = ("standard", "team", "points")) -> dict[str, Any]:
    variant = draw(st.sampled_from(variants))
    players = 4 if variant == "team" else draw(st.integers(2, 4))
    edition = draw(st.sampled_from(["1992", "1972"]))
    return {"players": players, "variant": variant, "edition": edition}


seeds = st.integers(0, 2**63 - 1)
choice_seeds = st.integers(0, 2**32 - 1)
"""The choices of a game: the seed of the ``random.Random`` that picks among the legal actions."""


# -- games end and rank every seat ----------------------------------------------------------------------------


@SOME
@given(board_settings(), seeds, choice_seeds)
def test_every_random_game_ends_and_ranks_every_seat(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("board", game, seed)
    play(state, random.Random(choices))
    players = game["players"]
    result = assert_finished_and_ranked(state, players)
    data = engine.to_json(state)
    assert data["turn"] <= engine.normalize_settings("board", game)["turn_cap"]
    if result.reason == "win":
        # The winners are exactly the seats (teams) with every pawn HOME.
        colours = SEAT_COLOURS[players]
        pawns = data["pawns"]

        def team_home(seat: int) -> bool:
            team = {colours[seat]} | ({PARTNER[colours[seat]]} if game["variant"] == "team" else set())
            return all(pawns[4 * colour + i] == HOME for colour in team for i in range(4))

        assert set(result.winners) == {seat for seat in range(players) if team_home(seat)}
        assert result.winners
    else:
        assert result.reason == "turn_cap"
    if game["variant"] == "points":
        assert result.scores is not None and len(result.scores) == players
    json.dumps(result.to_json())


@FEW
@given(board_settings(), seeds, choice_seeds)
def test_a_small_turn_cap_ends_the_game_by_turn_cap(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("board", {**game, "turn_cap": 30}, seed)
    play(state, random.Random(choices))
    result = engine.result(state)
    assert result is not None
    assert result.reason == "turn_cap"  # nobody gets four pawns (eight in team play) HOME in 30 turns
    assert engine.to_json(state)["turn"] == 30
    assert sorted(set(result.ranks))[0] == 1 and len(result.ranks) == game["players"]


# -- legality ---------------------------------------------------------------------------------------------------


@SOME
@given(board_settings(), seeds, choice_seeds)
def test_only_the_seat_asked_acts_and_always_can(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("board", game, seed)
    chooser = random.Random(choices)
    players = state.players
    while not engine.is_over(state):
        decision = engine.decision(state)
        assert decision is not None
        seat = decision.seat
        assert seat in range(players)
        ids = [action.id for action in engine.legal_actions(state, seat)]
        assert ids, "the seat asked has no legal action"
        assert len(ids) == len(set(ids)), "legal action ids are not unique"
        for other in range(players):
            if other != seat:
                assert engine.legal_actions(state, other) == []
        action_id = chooser.choice(ids)
        assert action_id in ids
        engine.apply(state, action_id, seat)
    for seat in range(players):
        assert engine.legal_actions(state, seat) == []


# -- JSON ---------------------------------------------------------------------------------------------------------


@SOME
@given(board_settings(), seeds, choice_seeds, st.floats(0.02, 0.2))
def test_json_round_trips_at_random_points(game: dict[str, Any], seed: int, choices: int, rate: float) -> None:
    state = engine.new_game("board", game, seed)
    sampler = random.Random(choices ^ 0x5A5A)

    def check(current: Any) -> None:
        if sampler.random() >= rate:
            return
        data = engine.to_json(current)
        text = json.dumps(data)
        again = engine.from_json(json.loads(text))
        assert engine.to_json(again) == data
        seat = asked(current)
        assert engine.decision(again).seat == seat
        assert [a.id for a in engine.legal_actions(again, seat)] == [
            a.id for a in engine.legal_actions(current, seat)
        ]
        for viewer in [None, *range(current.players)]:
            assert canonical(engine.view(again, viewer)) == canonical(engine.view(current, viewer))
        for action in engine.legal_actions(current, seat):
            json.dumps(action.to_json())

    play(state, random.Random(choices), check)
    final = engine.to_json(state)
    assert engine.to_json(engine.from_json(json.loads(json.dumps(final)))) == final


# -- conservation -----------------------------------------------------------------------------------------------


def assert_conserved(state: Any) -> None:
    data = engine.to_json(state)
    pawns = data["pawns"]
    colours = SEAT_COLOURS[data["settings"]["players"]]
    assert len(pawns) == 16
    for colour in range(4):
        own = pawns[4 * colour : 4 * colour + 4]
        if colour in colours:
            assert all(START <= loc <= HOME for loc in own), own
            safety = [loc for loc in own if SAFETY <= loc < HOME]
            assert len(safety) == len(set(safety)), f"two pawns of colour {colour} on one safety square"
        else:
            assert own == [ABSENT] * 4
    track = [loc for loc in pawns if 0 <= loc < TRACK]
    assert len(track) == len(set(track)), "two pawns on one track square"
    cards = data["draw_pile"] + data["discards"] + [card for hand in data["hands"] for card in hand]
    if data["card"] is not None:
        cards.append(data["card"])
    assert Counter(cards) == Counter(full_deck())
    assert len(cards) == 45
    if data["settings"]["variant"] == "points" and data["result"] is None:
        assert all(len(hand) == 5 for hand in data["hands"])
    else:
        assert all(len(hand) <= 5 for hand in data["hands"])


@SOME
@given(board_settings(), seeds, choice_seeds)
def test_pawns_and_cards_are_conserved(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("board", game, seed)
    play(state, random.Random(choices), assert_conserved)
    assert_conserved(state)


# -- hidden information -------------------------------------------------------------------------------------------


def _swap_hand_and_pile(data: dict[str, Any], owner: int, chooser: random.Random) -> dict[str, Any] | None:
    """``data`` with one card of ``owner``'s hand exchanged for a different card of the draw pile (or None)."""
    data = json.loads(json.dumps(data))
    hand, pile = data["hands"][owner], data["draw_pile"]
    pairs = [(i, j) for i in range(len(hand)) for j in range(len(pile)) if hand[i] != pile[j]]
    if not pairs:
        return None
    i, j = chooser.choice(pairs)
    hand[i], pile[j] = pile[j], hand[i]
    return data


def _knowledge(state: Any, seat: int | None) -> tuple[str, list[str]]:
    """What ``seat`` learns from the engine: its view (canonical JSON) and its legal action ids."""
    ids = [] if seat is None else [action.id for action in engine.legal_actions(state, seat)]
    return canonical(engine.view(state, seat)), ids


def _points_game_under_way(game: dict[str, Any], seed: int, choices: int, plies: int) -> Any | None:
    state = engine.new_game("board", game, seed)
    play(state, random.Random(choices), max_plies=plies)
    return None if engine.is_over(state) else state


def _assert_blind_to_other_hands(state: Any, viewers: list[int | None], choices: int) -> None:
    """Exchanging cards between another seat's hand and the draw pile changes nothing ``viewers`` learn."""
    full = engine.to_json(state)
    swaps = random.Random(choices)
    for viewer in viewers:
        known = _knowledge(state, viewer)
        for owner in range(state.players):
            if owner == viewer:
                continue
            for _ in range(3):
                swapped = _swap_hand_and_pile(full, owner, swaps)
                if swapped is None:
                    break
                other = engine.from_json(swapped)
                assert _knowledge(other, viewer) == known, f"seat {owner}'s hand shows in the view of {viewer}"


points_games = (board_settings(variants=("points",)), seeds, choice_seeds, st.integers(0, 150))


@SOME
@given(*points_games)
def test_a_view_shows_its_own_hand_and_only_the_sizes_of_others(
    game: dict[str, Any], seed: int, choices: int, plies: int
) -> None:
    state = _points_game_under_way(game, seed, choices, plies)
    if state is None:
        return
    full = engine.to_json(state)
    for seat in range(game["players"]):
        seen = engine.view(state, seat)
        assert Counter(seen["hand"]) == Counter(full["hands"][seat])
        assert seen["hand"] == sorted(seen["hand"], key=full_deck().index)  # not in the (hidden) draw order
        assert seen["hand_sizes"] == [len(hand) for hand in full["hands"]]
        assert "hands" not in seen and isinstance(seen["draw_pile"], int)
        assert seen["seat"] == seat
    spectator = engine.view(state, None)
    assert spectator.get("hand") is None and "hands" not in spectator


@SOME
@given(*points_games)
def test_the_asked_seat_learns_nothing_of_other_hands(
    game: dict[str, Any], seed: int, choices: int, plies: int
) -> None:
    state = _points_game_under_way(game, seed, choices, plies)
    if state is None:
        return
    _assert_blind_to_other_hands(state, [asked(state)], choices)


@SOME
@example(game={"players": 3, "variant": "points", "edition": "1992"}, seed=2**63 - 1, choices=0, plies=28)
@given(*points_games)
def test_waiting_seats_and_spectators_learn_nothing_of_any_hand(
    game: dict[str, Any], seed: int, choices: int, plies: int
) -> None:
    """Includes the asked seat's hand: whether it can play is theirs to know until they act."""
    state = _points_game_under_way(game, seed, choices, plies)
    if state is None:
        return
    seat_asked = asked(state)
    waiting: list[int | None] = [seat for seat in range(game["players"]) if seat != seat_asked]
    _assert_blind_to_other_hands(state, [None, *waiting], choices)


@FEW
@given(board_settings(), seeds, choice_seeds, st.integers(0, 150))
def test_the_draw_piles_order_is_hidden(game: dict[str, Any], seed: int, choices: int, plies: int) -> None:
    state = engine.new_game("board", game, seed)
    play(state, random.Random(choices), max_plies=plies)
    if engine.is_over(state):
        return
    data = engine.to_json(state)
    data["draw_pile"] = list(reversed(data["draw_pile"]))
    other = engine.from_json(data)
    for viewer in [None, *range(game["players"])]:
        assert _knowledge(other, viewer) == _knowledge(state, viewer)
        assert isinstance(engine.view(state, viewer)["draw_pile"], int)


# -- replays ------------------------------------------------------------------------------------------------------


@SOME
@given(board_settings(), seeds, choice_seeds)
def test_replay_reproduces_the_game(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("board", game, seed)
    applied = play(state, random.Random(choices))
    assert engine.to_json(engine.replay("board", game, seed, applied)) == engine.to_json(state)
    again = engine.new_game("board", game, seed)
    assert play(again, random.Random(choices)) == applied
    assert engine.to_json(again) == engine.to_json(state)


@FEW
@given(board_settings(), seeds, choice_seeds, st.integers(1, 60))
def test_a_replayed_prefix_gives_the_same_state(game: dict[str, Any], seed: int, choices: int, plies: int) -> None:
    state = engine.new_game("board", game, seed)
    applied = play(state, random.Random(choices), max_plies=plies)
    assert canonical(engine.to_json(engine.replay("board", game, seed, applied))) == canonical(
        engine.to_json(state)
    )


# -- illegal actions ----------------------------------------------------------------------------------------------


@SOME
@given(board_settings(), seeds, choice_seeds, st.integers(0, 200), st.text(max_size=20))
def test_illegal_actions_raise_and_change_nothing(
    game: dict[str, Any], seed: int, choices: int, plies: int, junk: str
) -> None:
    state = engine.new_game("board", game, seed)
    play(state, random.Random(choices), max_plies=plies)
    decision = engine.decision(state)
    legal = [] if decision is None else [action.id for action in engine.legal_actions(state, decision.seat)]
    near_misses = [action_id + " " for action_id in legal[:1]]
    assert_refusals_change_nothing(
        state, junk, ["7:red0+8", "sorry:red:red0", "11:pass", "discard:6", "", *near_misses]
    )


# -- fallback -----------------------------------------------------------------------------------------------------


@FEW
@given(board_settings(), seeds, choice_seeds)
def test_the_fallback_action_is_legal_and_deterministic(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("board", game, seed)
    sampler = random.Random(choices)

    def check(current: Any) -> None:
        if sampler.random() >= 0.1:
            return
        chosen = engine.fallback_action(current)
        seat = asked(current)
        assert chosen in {action.id for action in engine.legal_actions(current, seat)}
        assert engine.fallback_action(current) == chosen
        assert engine.fallback_action(engine.from_json(engine.to_json(current))) == chosen

    play(state, random.Random(choices), check)
    with pytest.raises(engine.IllegalActionError):
        engine.fallback_action(state)


# -- legal actions are unique by outcome -----------------------------------------------------------------------


def _position(pawns: list[int]) -> tuple[tuple[int, ...], ...]:
    """The pawns as a position: the pawns of one colour are alike, so each colour's locations are sorted."""
    return tuple(tuple(sorted(pawns[colour * 4 : colour * 4 + 4])) for colour in range(4))


@FEW
@given(board_settings(variants=("standard", "team")), seeds, choice_seeds)
def test_no_two_legal_actions_reach_the_same_position(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("board", game, seed)
    chooser = random.Random(choices)
    checked = 0
    while not engine.is_over(state) and checked < 120:
        seat = asked(state)
        actions = engine.legal_actions(state, seat)
        reached: dict[tuple[tuple[int, ...], ...], str] = {}
        for action in actions:
            position = _position(action.pawns)  # the board engine's actions carry their precomputed outcome
            assert position not in reached, f"{action.id} and {reached[position]} reach one position"
            reached[position] = action.id
        engine.apply(state, chooser.choice(actions).id, seat)
        checked += 1
