"""Engine-level bots: legal choices, seeded reproducibility, and greedy clearly stronger than random."""

from __future__ import annotations

import random

import engine
from engine.bots import BOTS
from engine.simulation import play_game, seating, simulate


def test_every_bot_always_chooses_a_legal_action() -> None:
    games = [("board", {"variant": variant}) for variant in ("standard", "team", "points")]
    games += [("card", {"longer_game": longer}) for longer in (False, True)]
    for game, settings in games:
        state = engine.new_game(game, settings, seed=17)
        rng = random.Random(0)
        while (asked := engine.decision(state)) is not None:
            seat = asked.seat
            actions = engine.legal_actions(state, seat)
            name = "greedy" if seat % 2 else "random"
            choice = BOTS[name](engine.view(state, seat), actions, rng)
            assert choice in {action.id for action in actions}
            engine.apply(state, choice, seat)


def test_greedy_prefers_bumping_an_opponent_to_a_quiet_move() -> None:
    from tests.engine.boardkit import position

    state = position({"red0": "track:20", "red1": "track:40", "blue0": "track:25"}, card="5")
    actions = engine.legal_actions(state, 0)
    assert {action.id for action in actions} == {"5:red0+5", "5:red1+5"}
    assert BOTS["greedy"](engine.view(state, 0), actions, random.Random(1)) == "5:red0+5"


def test_seats_rotate_so_every_bot_sits_everywhere() -> None:
    seen = {tuple(seating(["random", "greedy"], 4, index)) for index in range(4)}
    assert seen == {
        ("random", "greedy", "random", "greedy"),
        ("greedy", "random", "greedy", "random"),
    }
    assert seating(["a", "b", "c"], 3, 1) == ["b", "c", "a"]


def test_a_game_record_is_reproducible() -> None:
    one = play_game("board", engine.normalize_settings("board"), 5, ["greedy", "random"] * 2)
    two = play_game("board", engine.normalize_settings("board"), 5, ["greedy", "random"] * 2)
    assert one == two and one.decisions > 0


def test_greedy_clearly_beats_random() -> None:
    summary = simulate("board", {"players": 2}, 60, 3, ["greedy", "random"]).to_json()
    greedy, rnd = summary["wins_by_bot"]["greedy"], summary["wins_by_bot"]["random"]
    assert greedy["wins"] + rnd["wins"] == 60
    assert greedy["win_rate"] > 0.75, summary


def test_greedy_clearly_beats_random_at_cards() -> None:
    summary = simulate("card", {"players": 2}, 200, 3, ["greedy", "random"]).to_json()
    greedy = summary["wins_by_bot"]["greedy"]
    assert greedy["win_rate"] > 0.65, summary


def test_greedy_takes_a_21_and_never_busts_when_it_can_help_it() -> None:
    state = engine.new_game("card", {"players": 2}, seed=1)
    seat = engine.decision(state).seat
    state.hands[seat] = ["4", "9", "take2", "slide15", "2"]
    state.total = 12
    state._actions = None
    actions = engine.legal_actions(state, seat)
    assert BOTS["greedy"](engine.view(state, seat), actions, random.Random(0)) == "play:9"
    state.hands[seat] = ["10", "9", "take2"]
    state.total = 13  # 10 and 9 bust
    state._actions = None
    actions = engine.legal_actions(state, seat)
    assert BOTS["greedy"](engine.view(state, seat), actions, random.Random(0)) == "play:take2"
