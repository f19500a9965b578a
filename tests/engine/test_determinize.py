"""``engine.determinize`` and ``engine.copy``, the tools of search bots.

A determinized state must show its seat exactly the view it came from (and offer the asked seat the same
actions), whatever the variant and the moment of the game; its hidden cards must really vary with the seed; bad
views are refused with a StateError. A copy must be independent of its original and equal to it.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from tests.engine.propkit import canonical

CONFIGS = [
    *(
        ("board", {"players": players, "variant": variant})
        for players in (2, 3, 4)
        for variant in ("standard", "points")
    ),
    ("board", {"players": 4, "variant": "team"}),
    *(("card", {"players": players}) for players in (2, 3, 4)),
    ("card", {"players": 3, "longer_game": True}),
]


def positions(game: str, settings: dict[str, Any], seed: int, every: float = 0.25) -> list[Any]:
    """Copies of a random game's states at about ``every`` of its plies (the last one included)."""
    state = engine.new_game(game, settings, seed)
    chooser = random.Random(seed)
    kept = []
    while not engine.is_over(state):
        if chooser.random() < every:
            kept.append(engine.copy(state))
        seat = engine.decision(state).seat
        engine.apply(state, chooser.choice(engine.legal_actions(state, seat)).id, seat)
    return kept + [state]


@pytest.mark.parametrize(("game", "settings_"), CONFIGS, ids=lambda c: str(c))
def test_a_determinized_state_shows_its_seat_the_same_view_and_actions(game, settings_):
    checked = 0
    for seed in range(4):
        for state in positions(game, settings_, seed):
            asked = engine.decision(state)
            for seat in range(state.players):
                view = engine.view(state, seat)
                sampled = engine.determinize(view, seed * 7 + seat)
                assert canonical(engine.view(sampled, seat)) == canonical(view)
                assert engine.decision(sampled) == asked
                if asked is not None and seat == asked.seat:
                    assert [a.id for a in engine.legal_actions(sampled, seat)] == [
                        a.id for a in engine.legal_actions(state, seat)
                    ]
                checked += 1
    assert checked > 100


@settings(max_examples=40, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**40), plies=st.integers(0, 400))
def test_a_determinized_state_plays_on_to_an_end(config, seed, plies):
    game, settings_ = config
    state = engine.new_game(game, settings_, seed)
    chooser = random.Random(seed)
    for _ in range(plies):
        if engine.is_over(state):
            break
        engine.apply(state, chooser.choice(engine.legal_actions(state, engine.decision(state).seat)).id)
    seat = chooser.randrange(state.players)
    sampled = engine.determinize(engine.view(state, seat), chooser)
    guard = 0
    while not engine.is_over(sampled) and guard < 5000:  # the rules take it from here, to a result
        engine.apply(sampled, chooser.choice(engine.legal_actions(sampled, engine.decision(sampled).seat)).id)
        guard += 1
    assert engine.result(sampled) is not None


def hidden(state: Any, seat: int) -> Any:
    data = engine.to_json(state)
    others = [hand for other, hand in enumerate(data["hands"]) if other != seat]
    return data["draw_pile"], others


@pytest.mark.parametrize(("game", "settings_"), [("board", {"players": 2}), ("card", {"players": 3})])
def test_the_hidden_cards_vary_with_the_seed_and_are_exactly_the_unseen_ones(game, settings_):
    state = positions(game, settings_, seed=5, every=1.0)[10]
    view = engine.view(state, 0)
    samples = [hidden(engine.determinize(view, seed), 0) for seed in range(20)]
    assert len({canonical(sample) for sample in samples}) == 20  # no fixed deal
    assert engine.determinize(view, 3).seed == engine.determinize(view, 3).seed  # the same seed, the same state
    real_pile, real_others = hidden(state, 0)
    for pile, others in samples:
        assert Counter(pile) + Counter(c for hand in others for c in hand) == Counter(real_pile) + Counter(
            c for hand in real_others for c in hand
        )


def test_a_seat_asked_for_a_play_2_is_dealt_enough_number_cards():
    """Public inference: a seat asked for a Play 2's cards holds at least as many number cards as remain."""
    found = 0
    for seed in range(200):
        for state in positions("card", {"players": 2}, seed, every=1.0):
            decision = engine.decision(state)
            if decision is not None and decision.kind == "play2":
                other = 1 - decision.seat
                for sample_seed in range(5):
                    sampled = engine.determinize(engine.view(state, other), sample_seed)
                    assert engine.legal_actions(sampled, decision.seat)
                found += 1
        if found >= 20:
            break
    assert found >= 20


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda v: v.update(seat=None), "a seat's view"),
        (lambda v: v.update(discards=v["discards"] + ["sorry"] * 9), "more"),
        (lambda v: v.update(draw_pile=v["draw_pile"] + 1), "draw pile"),
        (lambda v: v.pop("pawns", None) or v.pop("hand_sizes", None), "needed"),
    ],
)
@pytest.mark.parametrize("game", ["board", "card"])
def test_a_view_no_game_could_show_is_refused(game, change, message):
    view = engine.view(positions(game, {"players": 2}, seed=1)[3], 0)
    change(view)
    with pytest.raises(engine.StateError, match=message):
        engine.determinize(view, 1)


def test_a_spectators_view_or_not_a_view_is_refused():
    state = engine.new_game("card", {"players": 2}, 1)
    with pytest.raises(engine.StateError):
        engine.determinize(engine.view(state, None), 1)
    with pytest.raises(engine.StateError):
        engine.determinize({"game": "chess"}, 1)


@pytest.mark.parametrize(("game", "settings_"), CONFIGS, ids=lambda c: str(c))
def test_a_copy_equals_its_original_and_shares_nothing_that_changes(game, settings_):
    for state in positions(game, settings_, seed=2)[:-1]:
        before = canonical(engine.to_json(state))
        twin = engine.copy(state)
        assert canonical(engine.to_json(twin)) == before
        seat = engine.decision(twin).seat
        engine.apply(twin, engine.legal_actions(twin, seat)[-1].id, seat)
        assert canonical(engine.to_json(state)) == before
        assert twin.ply == state.ply + 1
