"""Rule tables of the SORRY! Card Game: the deck, the deal, the settings and the first player (docs/rules.md A1, A2
"The first player ...", A4 "Public" / "Private", A5 options; the card game sheet "Contents", "Get Ready").
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import engine
from engine.card.cards import NUMBERS, SLIDES
from tests.engine import cardkit


def all_cards(state: Any) -> Counter[str]:
    return Counter(state.draw_pile + state.discards + state.pile + [card for hand in state.hands for card in hand])


# --- A1: the default deck --------------------------------------------------------------------------------------

DEFAULT_COUNTS = [
    pytest.param("0", 4, id="number_0"),
    *[pytest.param(str(value), 6, id=f"number_{value}") for value in range(1, 6)],
    *[pytest.param(str(value), 5, id=f"number_{value}") for value in range(6, 11)],
    pytest.param("slide10", 3, id="slide10"),
    pytest.param("slide15", 3, id="slide15"),
    pytest.param("slide21", 2, id="slide21"),
    pytest.param("take2", 6, id="take2"),
    pytest.param("switch", 6, id="switch"),
    pytest.param("play2", 6, id="play2"),
    pytest.param("sorry", 3, id="sorry_on_turn"),
    pytest.param("steal", 2, id="sorry_steal"),
    pytest.param("block", 3, id="dont_be_sorry"),
]


@pytest.mark.parametrize(("card", "count"), DEFAULT_COUNTS)
def test_default_deck_count_per_card(card: str, count: int) -> None:
    state = engine.new_game("card", {}, seed=3)
    assert all_cards(state)[card] == count
    assert engine.normalize_settings("card")["deck"][card] == count


def test_default_deck_has_93_cards_in_the_sheet_families() -> None:
    cards = all_cards(engine.new_game("card", {}, seed=3))
    assert sum(cards.values()) == 93
    assert sum(cards[card] for card in NUMBERS) == 59
    assert sum(cards[card] for card in (*SLIDES, "take2", "switch", "play2")) == 26
    assert sum(cards[card] for card in ("sorry", "steal", "block")) == 8


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_gives_five_cards_each_and_leaves_the_rest_to_draw(players: int) -> None:
    state = engine.new_game("card", {"players": players}, seed=11)
    assert cardkit.hand_sizes(state) == [5] * players
    assert len(state.draw_pile) == 93 - 5 * players
    assert state.pile == [] and state.discards == [] and state.total == 0
    assert state.progress == [0] * players
    assert cardkit.asked(state) == (state.seat, "turn")


def test_the_deal_is_a_shuffle_drawn_from_the_seed() -> None:
    same = [engine.to_json(engine.new_game("card", {}, seed=5)) for _ in range(2)]
    other = engine.to_json(engine.new_game("card", {}, seed=6))
    assert same[0] == same[1]
    assert other["hands"] != same[0]["hands"] or other["draw_pile"] != same[0]["draw_pile"]


# --- A1: another deck ------------------------------------------------------------------------------------------


def test_custom_deck_is_exactly_the_cards_in_play() -> None:
    deck = {"5": 10, "slide21": 2, "switch": 3, "block": 1}
    state = engine.new_game("card", {"players": 2, "deck": deck}, seed=2)
    assert all_cards(state) == Counter(deck)
    assert cardkit.hand_sizes(state) == [5, 5]
    assert len(state.draw_pile) == 16 - 10
    assert engine.normalize_settings("card", {"players": 2, "deck": deck})["deck"]["7"] == 0


BAD_SETTINGS = [
    pytest.param({"deck": {"joker": 3, "5": 40}}, id="deck_unknown_card"),
    pytest.param({"deck": {"5": -1, "6": 40}}, id="deck_negative_count"),
    pytest.param({"deck": {"5": 2.5, "6": 40}}, id="deck_fractional_count"),
    pytest.param({"deck": {"5": True, "6": 40}}, id="deck_boolean_count"),
    pytest.param({"deck": ["5", "6"]}, id="deck_not_a_mapping"),
    pytest.param({"deck": {"5": 20}}, id="deck_too_small_for_four_players"),
    pytest.param({"players": 2, "deck": {"5": 10}}, id="deck_too_small_for_two_players"),
    pytest.param({"players": 1}, id="one_player"),
    pytest.param({"players": 5}, id="five_players"),
    pytest.param({"pawns": 0}, id="no_pawns"),
    pytest.param({"longer_game": "yes"}, id="longer_game_not_boolean"),
    pytest.param({"turn_cap": 0}, id="turn_cap_zero"),
    pytest.param({"colours": 4}, id="unknown_setting"),
]


@pytest.mark.parametrize("settings", BAD_SETTINGS)
def test_bad_settings_are_refused(settings: dict[str, Any]) -> None:
    with pytest.raises(engine.SettingsError):
        engine.new_game("card", settings, seed=0)


def test_smallest_deck_for_two_players_is_accepted() -> None:
    state = engine.new_game("card", {"players": 2, "deck": {"5": 11}}, seed=0)
    assert len(state.draw_pile) == 1


def test_default_settings() -> None:
    settings = engine.normalize_settings("card")
    assert (settings["players"], settings["longer_game"], settings["pawns"]) == (4, False, 4)


# --- A2: the first player --------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_first_player_is_drawn_from_the_seed(players: int) -> None:
    firsts = [engine.decision(engine.new_game("card", {"players": players}, seed=seed)).seat for seed in range(40)]
    assert set(firsts) == set(range(players))  # every seat starts some game
    again = [engine.decision(engine.new_game("card", {"players": players}, seed=seed)).seat for seed in range(40)]
    assert again == firsts  # and the same seed always picks the same seat


def test_first_player_is_asked_for_a_turn_card() -> None:
    for seed in range(10):
        state = engine.new_game("card", {}, seed=seed)
        assert cardkit.asked(state) == (state.seat, "turn")
        assert engine.view(state, None)["turn_seat"] == state.seat


# --- A4: public and private information ------------------------------------------------------------------------


def test_view_shows_own_hand_and_public_state_only() -> None:
    state = cardkit.position(
        [["3", "7"], ["slide21", "steal"], ["9"], ["block"]],
        pile=["slide10", "2"],
        progress=[0, 1, 2, 0],
        direction=-1,
        discards=["4", "4"],
    )
    view = engine.view(state, 1)
    assert view["hand"] == ["slide21", "steal"]
    assert view["hand_sizes"] == [2, 2, 1, 1]
    assert view["pile"] == ["slide10", "2"] and view["total"] == 12
    assert view["direction"] == -1
    assert view["home"] == [0, 1, 2, 0]
    assert view["draw_pile"] == len(state.draw_pile)  # its size, not its order
    assert view["discards"][-2:] == ["4", "4"]
    text = repr({key: value for key, value in view.items() if key != "settings"})  # settings name the deck
    assert "'9'" not in text and "'block'" not in text and "'3'" not in text  # nobody else's cards
    spectator = engine.view(state, None)
    assert spectator["hand"] is None
    assert "'steal'" not in repr({key: value for key, value in spectator.items() if key != "settings"})
