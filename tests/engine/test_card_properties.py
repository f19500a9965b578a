"""Property tests of the card game's engine API (docs/rules.md Part A and C), with hypothesis.

Random games over player counts, the longer game, pawn counts and custom decks: games end and rank every seat;
only the seat asked acts and every applied action was legal; JSON round-trips; the deck's cards are conserved and
HOME counts stay in range; replays are exact; the fallback action is legal and deterministic.

The heart of the file is an information-set check (A4 "Public" / "Private"): at random points, and above all in
the reaction windows (steal, block, tiebreak), a state is changed in what one seat may not know (the draw pile's
order, other seats' hands, an earlier tied seat's secret tiebreaker choice) and nothing that seat learns from the
engine (its view, its legal actions, the public events) may change.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.card.cards import CARDS, DEFAULT_DECK, NUMBER_VALUES, SLIDES, deck_cards
from tests.engine.propkit import asked, assert_finished_and_ranked, assert_refusals_change_nothing, canonical, play

# Modest example counts keep this file fast; CARD_PROPERTY_SCALE=20 runs twenty times as many examples.
SCALE = int(os.environ.get("CARD_PROPERTY_SCALE", "1"))
settings.register_profile("card", deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(settings.get_profile("card"), max_examples=50 * SCALE)
SOME = settings(settings.get_profile("card"), max_examples=80 * SCALE)

KINDS = ("turn", "play2", "steal", "block", "tiebreak")
REACTIONS = ("steal", "block", "tiebreak")
HAND_LIMIT = 7


# -- settings and games -------------------------------------------------------------------------------------------


@st.composite
def custom_decks(draw: st.DrawFn, players: int) -> dict[str, int]:
    """Any counts of the card kinds (A1: a game may use another deck), topped up to the minimum a deal needs."""
    counts = {card: draw(st.integers(0, 8)) for card in CARDS}
    short = 5 * players + 1 - sum(counts.values())
    if short > 0:
        counts["5"] += short
    return counts


REACTION_DECK = {**DEFAULT_DECK, "slide21": 8, "sorry": 8, "steal": 8, "block": 8}
"""A deck that makes 21s, steals, SORRY!s and blocks frequent, so that reaction windows occur often."""


@st.composite
def card_settings(
    draw: st.DrawFn, players: st.SearchStrategy[int] | None = None, pawns: st.SearchStrategy[int] | None = None
) -> dict[str, Any]:
    count = draw(players if players is not None else st.integers(2, 4))
    game: dict[str, Any] = {
        "players": count,
        "longer_game": draw(st.booleans()),
        "pawns": draw(pawns if pawns is not None else st.integers(1, 5)),
    }
    deck = draw(st.sampled_from(["default", "default", "default", "reactions", "custom"]))
    if deck == "reactions":
        game["deck"] = dict(REACTION_DECK)
    elif deck == "custom":
        game["deck"] = draw(custom_decks(count))
    return game


tiebreak_settings = st.fixed_dictionaries(
    {
        "players": st.integers(3, 4),
        "longer_game": st.just(False),
        "pawns": st.just(1),
        "deck": st.sampled_from([DEFAULT_DECK, REACTION_DECK]),
    }
)
"""One pawn each and three or more players: the first bust brings several seats to their goal at once (A5)."""

seeds = st.integers(0, 2**63 - 1)
choice_seeds = st.integers(0, 2**32 - 1)
"""The choices of a game: the seed of the ``random.Random`` that picks among the legal actions."""


def play_until(state: Any, chooser: random.Random, wanted: Callable[[Any], bool], max_plies: int = 3000) -> bool:
    """Play random actions until ``wanted(state)`` holds (True) or the game ends (False)."""
    for _ in range(max_plies):
        if engine.is_over(state):
            return False
        if wanted(state):
            return True
        seat = asked(state)
        engine.apply(state, chooser.choice(engine.legal_actions(state, seat)).id, seat)
    return False


def find_position(
    game: dict[str, Any], seed: int, choices: int, wanted: Callable[[Any], bool], games: int = 30
) -> Any | None:
    """A state where ``wanted`` holds, from the first of ``games`` random games (seed, seed + 1, ...) to reach it."""
    chooser = random.Random(choices)
    for offset in range(games):
        state = engine.new_game("card", game, (seed + offset) % 2**63)
        if play_until(state, chooser, wanted):
            return state
    return None


def kind_of(state: Any) -> str | None:
    decision = engine.decision(state)
    return None if decision is None else decision.kind


def public(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in events if event["to"] is None]


# -- games end and rank every seat ----------------------------------------------------------------------------


@SOME
@given(card_settings(), seeds, choice_seeds)
def test_every_random_game_ends_and_ranks_every_seat(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("card", game, seed)
    play(state, random.Random(choices))
    players = game["players"]
    result = assert_finished_and_ranked(state, players)
    data = engine.to_json(state)
    normal = engine.normalize_settings("card", game)
    assert data["turn"] <= normal["turn_cap"]
    goal = game["pawns"] * (2 if game["longer_game"] else 1)
    progress = data["progress"]
    if result.reason == "win":
        reached = {seat for seat in range(players) if progress[seat] == goal}
        assert result.winners and set(result.winners) <= reached
        if not data["tied"]:
            assert set(result.winners) == reached and len(reached) == 1
    else:
        assert result.reason == "turn_cap"
        assert data["turn"] == normal["turn_cap"]
        assert all(p < goal for p in progress)
    # A seat further along never ranks worse (Part C: the others by HOME count).
    for a in range(players):
        for b in range(players):
            if a not in result.winners and b not in result.winners and progress[a] > progress[b]:
                assert result.ranks[a] < result.ranks[b]
    json.dumps(result.to_json())


@FEW
@given(card_settings(pawns=st.integers(2, 5)), seeds, choice_seeds, st.data())
def test_a_small_turn_cap_ends_the_game_by_turn_cap(
    game: dict[str, Any], seed: int, choices: int, data: st.DataObject
) -> None:
    # One turn gives a seat at most one step of progress, so nobody reaches the goal in fewer turns than it.
    goal = game["pawns"] * (2 if game["longer_game"] else 1)
    cap = data.draw(st.integers(1, goal - 1), label="turn_cap")
    state = engine.new_game("card", {**game, "turn_cap": cap}, seed)
    play(state, random.Random(choices))
    result = engine.result(state)
    assert result is not None
    assert result.reason == "turn_cap"
    assert engine.to_json(state)["turn"] == cap
    assert min(result.ranks) == 1 and len(result.ranks) == game["players"]


# -- legality ---------------------------------------------------------------------------------------------------


@SOME
@given(card_settings(), seeds, choice_seeds)
def test_only_the_seat_asked_acts_and_always_can(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("card", game, seed)
    chooser = random.Random(choices)
    players = state.players
    while not engine.is_over(state):
        decision = engine.decision(state)
        assert decision is not None
        assert decision.kind in KINDS and decision.kind == engine.to_json(state)["kind"]
        seat = decision.seat
        assert seat in range(players)
        actions = engine.legal_actions(state, seat)
        ids = [action.id for action in actions]
        assert ids, "the seat asked has no legal action"
        assert len(ids) == len(set(ids)), "legal action ids are not unique"
        if decision.kind in ("steal", "block"):
            assert "pass" in ids  # asked holding the card or not (A4)
        for other in range(players):
            if other != seat:
                assert engine.legal_actions(state, other) == []
        action = chooser.choice(actions)
        json.dumps(action.to_json())
        events = engine.apply(state, action.id, seat)
        assert events[0]["type"] == "action" and events[0]["action"] == action.id and events[0]["seat"] == seat
    for seat in range(players):
        assert engine.legal_actions(state, seat) == []


@SOME
@given(card_settings(), seeds, choice_seeds, st.integers(0, 200), st.text(max_size=12))
def test_illegal_actions_raise_and_change_nothing(
    game: dict[str, Any], seed: int, choices: int, plies: int, junk: str
) -> None:
    state = engine.new_game("card", game, seed)
    play(state, random.Random(choices), max_plies=plies)
    assert_refusals_change_nothing(
        state, junk, ["play:11", "steal", "block", "pass", "sorry:red", "discard:0", "tiebreak:none", ""]
    )


# -- JSON ---------------------------------------------------------------------------------------------------------


@SOME
@given(card_settings(), seeds, choice_seeds, st.floats(0.02, 0.3))
def test_json_round_trips_at_random_points(game: dict[str, Any], seed: int, choices: int, rate: float) -> None:
    state = engine.new_game("card", game, seed)
    sampler = random.Random(choices ^ 0x5A5A)

    def check(current: Any) -> None:
        if sampler.random() >= rate:
            return
        data = engine.to_json(current)
        text = json.dumps(data)
        again = engine.from_json(json.loads(text))
        assert engine.to_json(again) == data
        assert canonical(engine.to_json(again)) == canonical(data)
        seat = asked(current)
        assert engine.decision(again) == engine.decision(current)
        assert [a.to_json() for a in engine.legal_actions(again, seat)] == [
            a.to_json() for a in engine.legal_actions(current, seat)
        ]
        for viewer in [None, *range(current.players)]:
            assert canonical(engine.view(again, viewer)) == canonical(engine.view(current, viewer))

    play(state, random.Random(choices), check)
    final = engine.to_json(state)
    assert engine.to_json(engine.from_json(json.loads(json.dumps(final)))) == final
    for viewer in [None, *range(game["players"])]:
        json.dumps(engine.view(state, viewer))


# -- conservation -----------------------------------------------------------------------------------------------


def assert_conserved(state: Any) -> None:
    data = engine.to_json(state)
    game = data["settings"]
    cards = data["draw_pile"] + data["discards"] + data["pile"] + [card for hand in data["hands"] for card in hand]
    assert Counter(cards) == Counter(deck_cards(game["deck"]))
    assert all(len(hand) <= HAND_LIMIT for hand in data["hands"]), [len(hand) for hand in data["hands"]]
    pawns = game["pawns"]
    goal = pawns * (2 if game["longer_game"] else 1)
    assert all(0 <= p <= goal for p in data["progress"]), data["progress"]
    shown = engine.view(state, None)
    assert all(0 <= home <= pawns for home in shown["home"]), shown["home"]
    assert shown["progress"] == data["progress"]
    assert shown["hand_sizes"] == [len(hand) for hand in data["hands"]]
    assert shown["draw_pile"] == len(data["draw_pile"])
    # The total is the last Slide's value plus the numbers played after it (A2).
    total = 0
    for card in data["pile"]:
        total = SLIDES[card] if card in SLIDES else total + NUMBER_VALUES.get(card, 0)
    assert data["total"] == total, (data["pile"], data["total"])
    if data["result"] is None and data["kind"] == "turn":
        assert data["hands"][data["asked"]], "a seat without cards is asked for a turn card"


@SOME
@given(card_settings(), seeds, choice_seeds)
def test_cards_are_conserved_and_counts_stay_in_range(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("card", game, seed)
    play(state, random.Random(choices), assert_conserved)
    assert_conserved(state)


# -- replays ------------------------------------------------------------------------------------------------------


@SOME
@given(card_settings(), seeds, choice_seeds)
def test_replay_reproduces_the_game(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("card", game, seed)
    applied = play(state, random.Random(choices))
    assert canonical(engine.to_json(engine.replay("card", game, seed, applied))) == canonical(
        engine.to_json(state)
    )
    again = engine.new_game("card", game, seed)
    assert play(again, random.Random(choices)) == applied
    assert engine.to_json(again) == engine.to_json(state)


@FEW
@given(card_settings(), seeds, choice_seeds, st.integers(1, 80))
def test_a_replayed_prefix_gives_the_same_state(game: dict[str, Any], seed: int, choices: int, plies: int) -> None:
    state = engine.new_game("card", game, seed)
    applied = play(state, random.Random(choices), max_plies=plies)
    assert canonical(engine.to_json(engine.replay("card", game, seed, applied))) == canonical(
        engine.to_json(state)
    )


# -- hidden information: views and legal actions ----------------------------------------------------------------


def _movable(hand: list[str], keep: Counter[str]) -> list[int]:
    """Indices of ``hand`` that may leave it while it still holds the cards ``keep`` (a secret tiebreak choice)."""
    spare = Counter(hand) - keep
    return [i for i, card in enumerate(hand) if spare[card] > 0]


def hidden_variant(data: dict[str, Any], viewer: int | None, rng: random.Random) -> dict[str, Any]:
    """``data`` changed only in what ``viewer`` may not know (A4): the draw pile's order, and cards exchanged
    between the draw pile and other seats' hands or between two other seats' hands; every hand keeps its size, and
    a tied seat's hand keeps the cards it chose for the tiebreaker."""
    data = copy.deepcopy(data)
    hands, pile = data["hands"], data["draw_pile"]
    rng.shuffle(pile)
    keep = {int(seat): Counter(cards) for seat, cards in data["choices"].items()}
    others = [seat for seat in range(len(hands)) if seat != viewer]
    for _ in range(rng.randint(1, 6)):
        owner = rng.choice(others)
        mine = _movable(hands[owner], keep.get(owner, Counter()))
        if not mine:
            continue
        i = rng.choice(mine)
        partners: list[int | None] = [seat for seat in others if seat != owner]
        partner = rng.choice([*partners, None, None])
        if partner is None:
            if pile:
                j = rng.randrange(len(pile))
                hands[owner][i], pile[j] = pile[j], hands[owner][i]
        else:
            theirs = _movable(hands[partner], keep.get(partner, Counter()))
            if theirs:
                j = rng.choice(theirs)
                hands[owner][i], hands[partner][j] = hands[partner][j], hands[owner][i]
    return data


def knowledge(state: Any, seat: int | None) -> tuple[str, list[dict[str, Any]]]:
    """What ``seat`` learns from the engine now: its view (canonical JSON) and its legal actions, described."""
    actions = [] if seat is None else [action.to_json() for action in engine.legal_actions(state, seat)]
    return canonical(engine.view(state, seat)), actions


def assert_information_sets_hold(state: Any, rng: random.Random, variants: int = 3) -> int:
    """For every seat and the spectator, states it cannot tell apart give it identical views and legal actions.
    Returns how many changed states were compared."""
    data = engine.to_json(state)
    compared = 0
    for viewer in [None, *range(state.players)]:
        known = knowledge(state, viewer)
        for _ in range(variants):
            changed = hidden_variant(data, viewer, rng)
            try:
                other = engine.from_json(changed)
            except engine.StateError:
                continue  # e.g. a Play 2 player left without a number card: not a position of this game
            assert engine.decision(other) == engine.decision(state)
            assert knowledge(other, viewer) == known, (
                f"seat {viewer} tells apart states that differ only in what it may not know "
                f"(decision {engine.decision(state)})"
            )
            compared += 1
    return compared


@SOME
@given(card_settings(), seeds, choice_seeds)
def test_what_a_seat_learns_depends_only_on_what_it_may_know(
    game: dict[str, Any], seed: int, choices: int
) -> None:
    state = engine.new_game("card", game, seed)
    sampler = random.Random(choices ^ 0xC0FFEE)
    checked: Counter[str] = Counter()

    def check(current: Any) -> None:
        kind = kind_of(current)
        assert kind is not None
        # Most decisions are turn cards: sample them rarely and the reaction windows often.
        if sum(checked.values()) >= 12 or sampler.random() >= (0.6 if kind != "turn" else 0.04):
            return
        assert_information_sets_hold(current, sampler)
        checked[kind] += 1

    play(state, random.Random(choices), check)


@pytest.mark.parametrize("kind", REACTIONS + ("play2",))
@FEW
@given(game=card_settings(), seed=seeds, choices=choice_seeds)
def test_information_sets_hold_in_every_reaction_window(
    kind: str, game: dict[str, Any], seed: int, choices: int
) -> None:
    if kind == "tiebreak":
        game = {"players": max(3, game["players"]), "pawns": 1, "deck": game.get("deck", DEFAULT_DECK)}
        if game["deck"] not in (DEFAULT_DECK, REACTION_DECK):
            game["deck"] = REACTION_DECK  # a custom deck may never bring two seats to their goal at once

    def wanted(state: Any) -> bool:
        if kind == "tiebreak" and seed % 2:  # half the time, after a tied seat has made its secret choice
            return kind_of(state) == kind and bool(engine.to_json(state)["choices"])
        return kind_of(state) == kind

    state = find_position(game, seed, choices, wanted)
    if state is None:
        assert kind != "tiebreak", "no tiebreak in 30 games with one pawn each and three or more players"
        return  # a custom deck may have no Play 2, no SORRY! or no way to make 21
    assert kind_of(state) == kind
    assert assert_information_sets_hold(state, random.Random(choices), variants=4) > 0


@SOME
@given(card_settings(), seeds, choice_seeds, st.integers(0, 150))
def test_a_view_shows_its_own_hand_and_only_the_sizes_of_others(
    game: dict[str, Any], seed: int, choices: int, plies: int
) -> None:
    state = engine.new_game("card", game, seed)
    play(state, random.Random(choices), max_plies=plies)
    full = engine.to_json(state)
    for seat in [None, *range(game["players"])]:
        seen = engine.view(state, seat)
        text = canonical(seen)
        assert seen["seat"] == seat
        if seat is None:
            assert seen["hand"] is None
        else:
            assert Counter(seen["hand"]) == Counter(full["hands"][seat])
            assert seen["hand"] == sorted(seen["hand"], key=CARDS.index)  # not in the (hidden) draw order
        assert seen["hand_sizes"] == [len(hand) for hand in full["hands"]]
        assert isinstance(seen["draw_pile"], int)
        for secret in ("hands", "choices", "seed", "shuffles"):
            assert f'"{secret}"' not in text, f"{secret!r} shows in a view"


# -- hidden information: events -----------------------------------------------------------------------------------


def assert_events_are_well_formed(events: list[dict[str, Any]], players: int) -> None:
    """Private events go to one seat and have a public twin without the private detail; public events hold no
    drawn or dealt cards and no tiebreaker choice; a pass is the same public event whatever the passer holds."""
    for index, event in enumerate(events):
        json.dumps(event)
        assert "type" in event and "to" in event
        if event["to"] is not None:
            assert event["to"] in range(players)
            private_kinds = ("deal", "draw", "action")
            assert event["type"] in private_kinds, f"unexpected private event {event}"
            assert event["seat"] == event["to"]
            later = events[index + 1 :]
            if event["type"] == "action":
                # Only a secret tiebreaker choice is a private action (A5); the others learn that it was made.
                assert event["kind"] == "tiebreak", f"a public action sent privately: {event}"
                twin = {
                    "type": "action",
                    "to": None,
                    "seat": event["seat"],
                    "action": "tiebreak",
                    "kind": "tiebreak",
                    "cards": [],
                }
                assert later and later[0] == twin, f"no public twin right after {event}"
            elif event["type"] == "draw":
                twin = {"type": "draw", "to": None, "seat": event["seat"], "count": len(event["cards"])}
                assert later and later[0] == twin, f"no public twin right after {event}"
            else:
                assert {"type": "deal", "to": None, "count": len(event["cards"])} in later
        else:
            if event["type"] in ("deal", "draw"):
                assert "cards" not in event, f"a public {event['type']} shows cards: {event}"
                assert set(event) <= {"type", "to", "seat", "count"}
            if event["type"] == "action" and event["kind"] == "tiebreak":
                assert event["cards"] == [] and "score" not in event, f"a public event shows a choice: {event}"
            if event["type"] == "action" and event["action"] == "pass":
                assert event == {
                    "type": "action",
                    "to": None,
                    "seat": event["seat"],
                    "action": "pass",
                    "kind": "pass",
                    "cards": [],
                }
            for secret in ("hand", "hands", "draw_pile"):
                assert secret not in event, f"a public event shows {secret!r}: {event}"
    private = [event for event in events if event["to"] is not None]
    twins = [event for event in events if event["to"] is None and event["type"] in ("deal", "draw")]
    drawn = [event for event in twins if event["type"] == "draw"]
    assert len([event for event in private if event["type"] == "draw"]) == len(drawn)


@SOME
@given(card_settings(), seeds, choice_seeds)
def test_events_keep_private_details_private(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("card", game, seed)
    events = engine.opening_events(state)
    players = game["players"]
    assert_events_are_well_formed(events, players)
    dealt = [event for event in events if event["type"] == "deal" and event["to"] is not None]
    assert [event["to"] for event in dealt] == list(range(players))
    for event in dealt:
        assert Counter(event["cards"]) == Counter(engine.to_json(state)["hands"][event["to"]])

    def check(current_events: list[dict[str, Any]]) -> None:
        assert_events_are_well_formed(current_events, players)
        data = engine.to_json(state)
        drawn: dict[int, Counter[str]] = {}
        for event in current_events:
            if event["to"] is not None and event["type"] == "draw":
                drawn[event["to"]] = drawn.get(event["to"], Counter()) + Counter(event["cards"])
            if event["to"] is not None and event["type"] == "action":
                assert data["choices"][str(event["to"])] == event["cards"]  # the private twin tells the truth
        for seat, cards in drawn.items():
            # No action plays a card after drawing: what a seat was told it drew is in its hand.
            assert not cards - Counter(data["hands"][seat]), (cards, data["hands"][seat])

    play(state, random.Random(choices), on_events=check)


@SOME
@given(card_settings(), seeds, choice_seeds, st.floats(0.05, 0.5))
def test_public_events_depend_only_on_public_information(
    game: dict[str, Any], seed: int, choices: int, rate: float
) -> None:
    """The same action in two states a spectator cannot tell apart gives the same public events and views."""
    state = engine.new_game("card", game, seed)
    sampler = random.Random(choices ^ 0xBEEF)
    chooser = random.Random(choices)
    while not engine.is_over(state):
        seat = asked(state)
        action_id = chooser.choice(engine.legal_actions(state, seat)).id
        if sampler.random() < (rate if kind_of(state) == "turn" else 0.7):
            data = engine.to_json(state)
            changed = hidden_variant(data, seat, sampler)  # the acting seat keeps its hand: the action stays legal
            twin = engine.from_json(changed)
            mine = public(engine.apply(state, action_id, seat))
            theirs = public(engine.apply(twin, action_id, seat))
            assert theirs == mine
            assert canonical(engine.view(twin, None)) == canonical(engine.view(state, None))
        else:
            engine.apply(state, action_id, seat)


def _toggle_card(data: dict[str, Any], seat: int, card: str) -> tuple[dict[str, Any], int | None] | None:
    """``data`` with ``seat`` holding ``card`` if it did not, or not holding it if it did (a card exchanged with
    the draw pile, else with another hand, whose seat is returned too), every hand keeping its size; None when no
    such exchange exists."""
    data = copy.deepcopy(data)
    hand = data["hands"][seat]
    places: list[tuple[int | None, list[str]]] = [(None, data["draw_pile"])]
    places += [(s, h) for s, h in enumerate(data["hands"]) if s != seat]
    for owner, place in places:
        if card in hand:
            # Every copy of the card leaves the hand, for cards that are not it.
            others = [j for j, c in enumerate(place) if c != card]
            if len(others) >= hand.count(card):
                for j in others[: hand.count(card)]:
                    i = hand.index(card)
                    hand[i], place[j] = place[j], hand[i]
                return data, owner
        elif card in place:
            j = place.index(card)
            hand[0], place[j] = place[j], hand[0]
            return data, owner
    return None


@pytest.mark.parametrize("window", ["steal", "block"])
@FEW
@given(game=card_settings(), seed=seeds, choices=choice_seeds)
def test_a_pass_looks_the_same_whether_or_not_the_passer_held_the_card(
    window: str, game: dict[str, Any], seed: int, choices: int
) -> None:
    state = find_position(game, seed, choices, lambda s: kind_of(s) == window)
    if state is None:
        return  # a custom deck may never make 21 or hold a SORRY!
    seat = asked(state)
    data = engine.to_json(state)
    toggled = _toggle_card(data, seat, window)
    if toggled is None:
        return
    changed, touched = toggled
    twin = engine.from_json(changed)
    holding = {window in data["hands"][seat], window in changed["hands"][seat]}
    assert holding == {True, False}
    # Before: only the seat asked can tell the two apart.
    for viewer in [None, *range(game["players"])]:
        if viewer not in (seat, touched):
            assert knowledge(twin, viewer) == knowledge(state, viewer)
    mine = engine.apply(state, "pass", seat)
    theirs = engine.apply(twin, "pass", seat)
    assert public(theirs) == public(mine)
    assert mine[0] == {"type": "action", "to": None, "seat": seat, "action": "pass", "kind": "pass", "cards": []}
    assert canonical(engine.view(twin, None)) == canonical(engine.view(state, None))


# -- the tiebreaker's secret choices --------------------------------------------------------------------------------


def _tiebreak_choices(hand: list[str], rng: random.Random, count: int) -> list[list[str]]:
    """Up to ``count`` random legal tiebreaker choices from ``hand``: number cards and at most one Slide (A5)."""
    numbers = [card for card in hand if card in NUMBER_VALUES]
    slides = sorted({card for card in hand if card in SLIDES})
    found = []
    for _ in range(count):
        chosen = [card for card in numbers if rng.random() < 0.5]
        if slides and rng.random() < 0.5:
            chosen.append(rng.choice(slides))
        found.append(chosen)
    return found


def _chosen_and_waiting(state: Any) -> bool:
    data = engine.to_json(state)
    return data["kind"] == "tiebreak" and bool(data["choices"])


@SOME
@given(tiebreak_settings, seeds, choice_seeds)
def test_a_tiebreak_choice_stays_secret_until_every_tied_seat_has_chosen(
    game: dict[str, Any], seed: int, choices: int
) -> None:
    state = find_position(game, seed, choices, _chosen_and_waiting)
    assert state is not None, "no tiebreak in 30 games with one pawn each and three or more players"
    data = engine.to_json(state)
    rng = random.Random(choices)
    for chooser_key in data["choices"]:
        chooser = int(chooser_key)
        others = [None, *(seat for seat in range(game["players"]) if seat != chooser)]
        known = {viewer: knowledge(state, viewer) for viewer in others}
        for viewer in others:
            tiebreak = engine.view(state, viewer)["tiebreak"]
            assert tiebreak["tied"] == data["tied"]
            assert tiebreak["chosen"] == sorted(int(k) for k in data["choices"])
            assert "cards" not in tiebreak
        for alternative in _tiebreak_choices(data["hands"][chooser], rng, 4):
            changed = copy.deepcopy(data)
            changed["choices"][chooser_key] = alternative
            other = engine.from_json(changed)
            for viewer in others:
                assert knowledge(other, viewer) == known[viewer], f"seat {viewer} sees seat {chooser}'s choice"


@SOME
@given(tiebreak_settings, seeds, choice_seeds)
def test_a_tiebreak_choice_emits_no_public_detail(game: dict[str, Any], seed: int, choices: int) -> None:
    """While other tied seats still have to choose, every choice gives the same public events and views."""

    def first_of_several(state: Any) -> bool:
        data = engine.to_json(state)
        return data["kind"] == "tiebreak" and len(data["tied"]) - len(data["choices"]) >= 2

    state = find_position(game, seed, choices, first_of_several)
    assert state is not None, "no tiebreak in 30 games with one pawn each and three or more players"
    seat = asked(state)
    data = engine.to_json(state)
    options = [action.id for action in engine.legal_actions(state, seat)]
    random.Random(choices).shuffle(options)
    outcomes = []
    for action_id in options[:8]:
        copy_of = engine.from_json(data)
        events = public(engine.apply(copy_of, action_id, seat))
        views = [canonical(engine.view(copy_of, v)) for v in range(game["players"]) if v != seat]
        outcomes.append((action_id, canonical(events), views, canonical(engine.view(copy_of, None))))
    first = outcomes[0]
    for outcome in outcomes[1:]:
        assert outcome[1] == first[1], (
            f"the public events of {outcome[0]!r} and {first[0]!r} differ: "
            f"{outcome[1]} vs {first[1]} (a tied seat's choice is secret until all have chosen, A5)"
        )
        assert outcome[2] == first[2] and outcome[3] == first[3]


@SOME
@given(tiebreak_settings, seeds, choice_seeds)
def test_a_finished_tiebreak_ranks_by_score_then_fewer_cards(
    game: dict[str, Any], seed: int, choices: int
) -> None:
    chooser = random.Random(choices)
    for offset in range(30):
        state = engine.new_game("card", game, (seed + offset) % 2**63)
        play(state, chooser)
        data = engine.to_json(state)
        if data["tied"]:
            break
    else:
        raise AssertionError("no tiebreak in 30 games with one pawn each and three or more players")
    result = engine.result(state)
    assert result is not None and result.reason == "win"
    assert sorted(int(k) for k in data["choices"]) == sorted(data["tied"])

    def score(cards: list[str]) -> tuple[int, int]:
        value = sum(NUMBER_VALUES.get(card, 0) for card in cards)
        value += max((SLIDES[card] for card in cards if card in SLIDES), default=0)
        return (value if value <= 21 else -1, -len(cards))

    scores = {int(k): score(cards) for k, cards in data["choices"].items()}
    best = max(scores.values())
    assert set(result.winners) == {seat for seat, s in scores.items() if s == best}
    revealed = engine.view(state, None)["tiebreak"]
    assert revealed["cards"] == data["choices"]  # public once the game is over


# -- fallback -----------------------------------------------------------------------------------------------------


@FEW
@given(card_settings(), seeds, choice_seeds)
def test_the_fallback_action_is_legal_and_deterministic(game: dict[str, Any], seed: int, choices: int) -> None:
    state = engine.new_game("card", game, seed)
    sampler = random.Random(choices)

    def check(current: Any) -> None:
        if sampler.random() >= (0.1 if kind_of(current) == "turn" else 0.5):
            return
        chosen = engine.fallback_action(current)
        seat = asked(current)
        assert chosen in {action.id for action in engine.legal_actions(current, seat)}
        assert engine.fallback_action(current) == chosen
        assert engine.fallback_action(engine.from_json(engine.to_json(current))) == chosen

    play(state, random.Random(choices), check)
    with pytest.raises(engine.IllegalActionError):
        engine.fallback_action(state)


def test_the_biased_games_reach_every_decision_kind() -> None:
    """The generators above do reach every reaction window (else the window tests would check nothing)."""
    seen: Counter[str] = Counter()
    for seed in range(40):
        game = {"players": 3 + seed % 2, "pawns": 1 + seed % 3, "deck": REACTION_DECK}
        state = engine.new_game("card", game, seed)
        play(state, random.Random(seed), lambda s: seen.update([kind_of(s) or "over"]))
    assert set(KINDS) <= set(seen), seen
