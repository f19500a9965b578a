"""The shared game API (docs/architecture.md; docs/rules.md C): creation, validation, errors, views and events."""

from __future__ import annotations

import dataclasses
import inspect
import json
import random
import types

import pytest

import engine
from engine.games import RULESETS
from engine.ruleset import Ruleset


def play_randomly(state: engine.State, seed: int, limit: int = 100_000) -> list[str]:
    rng = random.Random(seed)
    played = []
    while (asked := engine.decision(state)) is not None and len(played) < limit:
        seat = asked.seat
        action = rng.choice(engine.legal_actions(state, seat)).id
        engine.apply(state, action, seat)
        played.append(action)
    return played


@pytest.mark.parametrize(
    ("game", "settings", "seed", "message"),
    [
        pytest.param("chess", None, 0, "unknown game 'chess'", id="unknown-game"),
        pytest.param("board", {"variant": "solo"}, 0, "variant must be one of", id="unknown-variant"),
        pytest.param("board", {"edition": "2001"}, 0, "edition must be one of", id="unknown-edition"),
        pytest.param("board", {"players": 5}, 0, "players must be 2, 3 or 4", id="five-players"),
        pytest.param("board", {"players": True}, 0, "players must be 2, 3 or 4", id="boolean-players"),
        pytest.param("board", {"variant": "team", "players": 3}, 0, "exactly 4 players", id="team-of-three"),
        pytest.param("board", {"turn_cap": 0}, 0, "turn_cap must be", id="zero-turn-cap"),
        pytest.param("board", {"colour": "red"}, 0, "unknown board setting(s) colour", id="unknown-setting"),
        pytest.param("board", ["standard"], 0, "settings must be an object", id="settings-not-object"),
        pytest.param("board", None, -1, "seed must be an integer", id="negative-seed"),
        pytest.param("board", None, "7", "seed must be an integer", id="string-seed"),
    ],
)
def test_bad_settings_are_refused_with_a_message(game: str, settings: object, seed: object, message: str) -> None:
    with pytest.raises(engine.SettingsError) as error:
        engine.new_game(game, settings, seed)  # type: ignore[arg-type]
    assert message in str(error.value)


def test_settings_are_recorded_with_every_default() -> None:
    assert engine.normalize_settings("board", {"edition": 1972}) == {
        "variant": "standard",
        "edition": "1972",
        "players": 4,
        "turn_cap": 2000,
    }


def test_a_new_game_asks_seat_zero_to_play_the_card_it_drew() -> None:
    state = engine.new_game("board", {"players": 2}, seed=3)
    assert engine.decision(state) == engine.Decision(0, "move")
    assert state.card is not None
    assert engine.legal_actions(state, 1) == []
    assert not engine.is_over(state)
    assert engine.result(state) is None


def test_the_same_settings_and_seed_give_the_same_game_and_another_seed_another() -> None:
    one = engine.new_game("board", None, seed=11)
    two = engine.new_game("board", None, seed=11)
    other = engine.new_game("board", None, seed=12)
    assert engine.to_json(one) == engine.to_json(two)
    assert engine.to_json(one)["draw_pile"] != engine.to_json(other)["draw_pile"]


def test_an_illegal_action_names_the_action_and_the_seat_and_changes_nothing() -> None:
    state = engine.new_game("board", None, seed=5)
    before = json.dumps(engine.to_json(state))
    with pytest.raises(engine.IllegalActionError) as error:
        engine.apply(state, "12:red0+12", 0)
    assert "'12:red0+12'" in str(error.value) and "seat 0" in str(error.value)
    with pytest.raises(engine.IllegalActionError) as error:
        engine.apply(state, engine.legal_actions(state, 0)[0].id, 2)
    assert "seat 2" in str(error.value) and "seat 0's decision" in str(error.value)
    assert json.dumps(engine.to_json(state)) == before


def test_a_finished_game_refuses_actions_and_ranks_every_seat() -> None:
    state = engine.new_game("board", {"players": 3}, seed=8)
    play_randomly(state, seed=8)
    result = engine.result(state)
    assert engine.is_over(state) and result is not None
    assert sorted(result.ranks)[0] == 1 and len(result.ranks) == 3
    assert engine.decision(state) is None and engine.legal_actions(state, 0) == []
    with pytest.raises(engine.IllegalActionError, match="the game is over"):
        engine.apply(state, "1:start:red", 0)


def test_replay_rebuilds_the_game_state_for_state() -> None:
    state = engine.new_game("board", {"variant": "points"}, seed=21)
    actions = play_randomly(state, seed=4)
    again = engine.replay("board", {"variant": "points"}, 21, actions)
    assert engine.to_json(again) == engine.to_json(state)


def test_actions_have_readable_ids_and_structured_descriptions() -> None:
    state = engine.new_game("board", {"players": 2}, seed=1)
    for action in engine.legal_actions(state, 0):
        described = action.to_json()
        assert described["id"] == action.id
        assert described["card"] == state.card
        assert described["kind"] in {"forward", "backward", "start", "split", "swap", "sorry", "pass"}
        json.dumps(described)


def test_events_say_what_happened_and_private_ones_have_a_public_twin() -> None:
    state = engine.new_game("board", {"variant": "points", "players": 2}, 9)
    events = engine.opening_events(state)
    private = [event for event in events if event["to"] is not None]
    public = [event for event in events if event["to"] is None]
    assert [event["to"] for event in private] == [0, 1]
    assert all("cards" in event and len(event["cards"]) == 5 for event in private)
    assert [(event["seat"], event["count"]) for event in public] == [(0, 5), (1, 5)]
    assert all("cards" not in event for event in public)
    action = engine.legal_actions(state, 0)[0]
    events = engine.apply(state, action.id)
    assert events[0]["type"] == "move" and events[0]["action"] == action.id and events[0]["to"] is None


def test_the_spectator_sees_no_hand_and_nobody_sees_the_draw_pile_order() -> None:
    state = engine.new_game("board", {"variant": "points"}, seed=2)
    spectator = engine.view(state, None)
    assert spectator["hand"] is None and spectator["hand_sizes"] == [5, 5, 5, 5]
    mine = engine.view(state, 1)
    assert sorted(mine["hand"]) == sorted(state.hands[1])
    for seen in (spectator, mine):
        assert seen["draw_pile"] == len(state.draw_pile)
        text = json.dumps(seen)
        for other in (0, 2, 3):
            assert str(state.hands[other]) not in text


def test_fallback_action_is_legal_and_depends_only_on_seed_and_ply() -> None:
    one = engine.new_game("board", None, seed=30)
    two = engine.new_game("board", None, seed=30)
    for _ in range(50):
        choice = engine.fallback_action(one)
        assert choice in {action.id for action in engine.legal_actions(one, engine.decision(one).seat)}
        assert engine.fallback_action(two) == choice
        engine.apply(one, choice)
        engine.apply(two, choice)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        pytest.param(lambda d: d.update(format=99), "unsupported format", id="format"),
        pytest.param(lambda d: d.update(pawns=[-1] * 15), "'pawns' must list 16 locations", id="pawns"),
        pytest.param(lambda d: d.update(pawns=[0] * 16), "two pawns on one track square", id="stacked"),
        pytest.param(lambda d: d["draw_pile"].pop(), "not exactly one 45-card deck", id="lost-card"),
        pytest.param(lambda d: d["draw_pile"].append("6"), "list of card names", id="no-such-card"),
        pytest.param(lambda d: d.update(seat=7), "'seat' must be an integer", id="seat"),
        pytest.param(lambda d: d.update(settings={"players": 9}), "players must be", id="settings"),
        pytest.param(lambda d: d.update(result={"ranks": [1]}), "result.ranks", id="result"),
        pytest.param(lambda d: d.update(game="go"), "'game' is one of", id="game"),
    ],
)
def test_from_json_refuses_malformed_states(mutate: object, message: str) -> None:
    data = engine.to_json(engine.new_game("board", None, seed=1))
    mutate(data)  # type: ignore[operator]
    with pytest.raises(engine.StateError) as error:
        engine.from_json(data)
    assert message in str(error.value)


# -- the API module ---------------------------------------------------------------------------------------------

TYPES = ["Action", "Decision", "Event", "Json", "Result", "State"]
ERRORS = ["EngineError", "IllegalActionError", "SettingsError", "StateError"]
FUNCTIONS = ["new_game", "normalize_settings", "opening_events", "decision", "legal_actions", "is_over", "result"]
FUNCTIONS += ["apply", "fallback_action", "view", "to_json", "from_json", "replay", "copy", "determinize"]
DOCUMENTED = sorted([*TYPES, *ERRORS, *FUNCTIONS, "GAMES"])
"""The documented API (engine/api.py's docstring, docs/api.md "The game API"), one name per operation."""


def test_the_package_exports_exactly_the_api_module_and_it_exactly_the_documented_names() -> None:
    assert engine.__all__ == engine.api.__all__
    assert sorted(engine.api.__all__) == DOCUMENTED
    for name in DOCUMENTED:
        assert getattr(engine, name) is getattr(engine.api, name)
        assert f"`{name}`" in (engine.api.__doc__ or ""), f"{name} is not in engine.api's docstring"
    # nothing else public in the package but its modules
    public = {name for name, value in vars(engine).items() if not name.startswith("_")}
    assert {name for name in public if not isinstance(getattr(engine, name), types.ModuleType)} == set(DOCUMENTED)


def test_no_two_public_names_are_one_operation() -> None:
    functions = [getattr(engine, name) for name in FUNCTIONS]
    assert all(inspect.isfunction(function) and function.__module__ == "engine.api" for function in functions)
    assert len({id(function) for function in functions}) == len(functions)  # no alias (``a = b``)
    for gone in ("current_player", "new_game_with_events", "num_seats", "play", "encode", "decode", "sample"):
        assert not hasattr(engine, gone), gone
    # a game supplies one function per operation: its fields, named as the API's functions they implement, plus
    # the steps only the API calls (``setup`` for new_game and opening_events, ``legal`` for legal_actions/apply)
    fields = [field.name for field in dataclasses.fields(Ruleset)]
    assert set(fields) - {"name", "setup", "legal"} <= set(FUNCTIONS)
    methods = [name for name, value in vars(Ruleset).items() if inspect.isfunction(value) and name[:2] != "__"]
    assert methods == []  # no second name for an operation, no glue of its own
    for ruleset in RULESETS.values():
        implementations = [getattr(ruleset, name) for name in fields if name != "name"]
        assert len(set(implementations)) == len(implementations)
    assert engine.GAMES == ("board", "card") == tuple(sorted(RULESETS))


@pytest.mark.parametrize(("game", "settings"), [("board", {"variant": "points"}), ("card", {"players": 3})])
def test_every_state_the_api_returns_is_a_state(game: str, settings: dict[str, int | str]) -> None:
    state = engine.new_game(game, settings, seed=4)
    assert isinstance(state, engine.State) and state.game == game
    seat = engine.decision(state).seat  # type: ignore[union-attr]
    for other in (
        engine.copy(state),
        engine.from_json(engine.to_json(state)),
        engine.replay(game, settings, 4, []),
        engine.determinize(engine.view(state, seat), 1),
    ):
        assert isinstance(other, engine.State) and type(other) is type(state)
    with pytest.raises(engine.StateError, match="not a game state: dict"):
        engine.decision({"game": game})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("game", "settings"), [("board", {"variant": "points", "players": 3}), ("card", {"players": 3})]
)
def test_opening_events_are_the_deal_of_the_game_at_any_ply(game: str, settings: dict[str, int | str]) -> None:
    state = engine.new_game(game, settings, seed=12)
    events = engine.opening_events(state)
    ruleset = RULESETS[game]
    dealt: list[engine.Event] = []
    ruleset.setup(engine.normalize_settings(game, settings), 12, dealt)
    assert events == dealt and [event["to"] for event in events if event["to"] is not None] == [0, 1, 2]
    before = engine.to_json(state)
    assert engine.opening_events(state) == events and engine.to_json(state) == before  # a question: no change
    play_randomly(state, seed=3, limit=20)
    assert engine.opening_events(state) == events
    assert engine.opening_events(engine.from_json(engine.to_json(state))) == events
