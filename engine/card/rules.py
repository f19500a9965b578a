"""The flow of a card game: deal, turns, 21 and bust, the reaction windows, the end (docs/rules.md A2-A5).

Order at a 21 (A4): the card is played; the steal window asks every opponent of the scorer in turn order (holding
the card or not); after a steal the scorer's block window; then the HOME flip, the check for the end of the game,
the draws, the discard of the pile and the next round. A bust gives every other player a HOME pawn at once. Any
SORRY!-family card ends the round; whoever played one draws back up to 5 at once. The round's end discards the
play pile, and the next round starts with the player after the one whose turn it was, in the current direction.

The functions that play append the events they cause to the list they are given, and build none when it is
``None`` (:func:`engine.api.apply` with ``events=False``, and :func:`engine.api.new_game`): one rule path, with
or without its events.
"""

from __future__ import annotations

from typing import Any

from engine.card import scoring
from engine.card.cards import NUMBER_VALUES, SLIDES, deck_cards
from engine.card.moves import CardAction, sort_cards, tiebreak_score
from engine.card.moves import legal as compute_legal
from engine.card.settings import HAND_SIZE
from engine.card.state import CardState
from engine.rng import derived_random, shuffled
from engine.types import Action, Event

HAND_LIMIT = 7


def setup(settings: dict[str, Any], seed: int, events: list[Event] | None) -> CardState:
    state = CardState(settings, seed)
    state.draw_pile = shuffled(deck_cards(settings["deck"]), seed, "shuffle", 0)
    state.shuffles = 1
    state.progress = [0] * state.players
    state.hands = [[] for _ in range(state.players)]
    for _ in range(HAND_SIZE):
        for seat in range(state.players):
            state.hands[seat].append(state.draw_pile.pop())
    if events is not None:
        for seat in range(state.players):
            events.append({"type": "deal", "to": seat, "seat": seat, "cards": sort_cards(state.hands[seat])})
        events.append({"type": "deal", "to": None, "count": HAND_SIZE})
    state.seat = derived_random(seed, "first player").randrange(state.players)
    if events is not None:
        events.append({"type": "first_player", "to": None, "seat": state.seat})
    _start_turn(state, events)
    return state


def legal(state: CardState) -> list[Action]:
    if state.result is not None:
        return []
    if state._actions is None:
        state._actions = list(compute_legal(state))
    return state._actions


def _draw(state: CardState, seat: int, count: int, events: list[Event] | None) -> None:
    """``seat`` draws ``count`` cards (fewer when nothing is left); the cards are its secret, the count public."""
    drawn = []
    for _ in range(count):
        if not state.draw_pile:
            if not state.discards:
                break
            state.draw_pile = shuffled(state.discards, state.seed, "shuffle", state.shuffles)
            state.shuffles += 1
            state.discards = []
            if events is not None:
                events.append({"type": "reshuffle", "to": None, "cards": len(state.draw_pile)})
        drawn.append(state.draw_pile.pop())
    if drawn:
        state.hands[seat].extend(drawn)
        if events is not None:
            events.append({"type": "draw", "to": seat, "seat": seat, "cards": drawn})
            events.append({"type": "draw", "to": None, "seat": seat, "count": len(drawn)})


def _refill(state: CardState, seat: int, events: list[Event] | None) -> None:
    missing = HAND_SIZE - len(state.hands[seat])
    if missing > 0:
        _draw(state, seat, missing, events)


def _ask(state: CardState, kind: str, seat: int) -> None:
    state.kind = kind
    state.asked = seat
    state._actions = None


def _start_turn(state: CardState, events: list[Event] | None) -> None:
    """Ask the seat whose turn it is for a turn card; a seat with no card at all (nothing to draw) is skipped."""
    state.play2_left = 0
    while state.result is None:
        _ask(state, "turn", state.seat)
        if state.hands[state.seat]:
            return
        if not state.draw_pile and not state.discards and not any(state.hands):
            # every card is in the live play pile, which is never taken: nobody can ever play again
            _finish(state, None, events, reason="stalled")
            return
        if events is not None:
            events.append({"type": "no_cards", "to": None, "seat": state.seat})
        _next_turn(state, events)


def _next_turn(state: CardState, events: list[Event] | None) -> None:
    if state.turn >= state.settings["turn_cap"]:
        _finish(state, None, events)
        return
    state.turn += 1
    state.seat = state.next_seat(state.seat)


def _end_turn(state: CardState, events: list[Event] | None, round_over: bool) -> None:
    """The turn player draws back up to 5; a finished round discards its pile; the next player's turn starts."""
    if state.result is not None:
        return
    _refill(state, state.seat, events)
    if round_over:
        state.discards.extend(state.pile)
        if events is not None:
            events.append({"type": "round_over", "to": None, "pile": list(state.pile)})
        state.pile = []
        state.total = 0
    _next_turn(state, events)
    _start_turn(state, events)


def _finish(
    state: CardState, winners: list[int] | None, events: list[Event] | None, reason: str = "turn_cap"
) -> None:
    state.result = scoring.final_result(state, winners, reason)
    state._actions = None
    if events is not None:
        events.append({"type": "game_over", "to": None, **state.result.to_json()})


def _gain(state: CardState, seats: list[int], events: list[Event] | None, reason: str) -> None:
    for seat in seats:
        state.progress[seat] = min(state.progress[seat] + 1, state.goal)
        if events is not None:
            events.append(
                {"type": "home", "to": None, "seat": seat, "reason": reason, "home": state.home_shown(seat)}
            )


def _check_end(state: CardState, events: list[Event] | None) -> bool:
    """A seat at its goal wins; several at once (only a bust does that) play the tiebreaker (A5)."""
    reached = [
        seat for seat in state.in_turn_order(state.seat) + [state.seat] if state.progress[seat] >= state.goal
    ]
    if len(reached) == 1:
        _finish(state, reached, events)
    elif reached:
        state.tied = reached
        state.choices = {}
        if events is not None:
            events.append({"type": "tiebreak", "to": None, "seats": list(reached)})
        _ask(state, "tiebreak", reached[0])
    return bool(reached)


def _after_total(state: CardState, seat: int, events: list[Event] | None) -> None:
    """After a number or Slide card: 21 opens the steal window, over 21 busts; else the turn goes on or ends."""
    if state.total == 21:
        if events is not None:
            events.append({"type": "twenty_one", "to": None, "seat": seat})
        state.scorer = seat
        state.queue = state.in_turn_order(seat)
        _ask(state, "steal", state.queue.pop(0))
        return
    if state.total > 21:
        if events is not None:
            events.append({"type": "bust", "to": None, "seat": seat, "total": state.total})
        _gain(state, [other for other in range(state.players) if other != seat], events, "bust")
        if not _check_end(state, events):
            _end_turn(state, events, round_over=True)
        return
    if state.kind == "play2" and state.play2_left > 0:
        _ask(state, "play2", seat)
        return
    _end_turn(state, events, round_over=False)


def _resolve_21(state: CardState, winner: int, events: list[Event] | None) -> None:
    """The HOME flip, the check for the end of the game, the draws, the pile's discard, the next round (A4)."""
    _gain(state, [winner], events, "stolen 21" if winner != state.scorer else "21")
    state.scorer = state.thief = None
    state.queue = []
    if not _check_end(state, events):
        _end_turn(state, events, round_over=True)


def _put(state: CardState, seat: int, card: str) -> None:
    state.hands[seat].remove(card)
    state.pile.append(card)


def play(state: CardState, action: Action, events: list[Event] | None) -> None:
    """Apply a legal action of the seat asked now (already checked by the caller), appending its events to
    ``events`` (``None``: build none)."""
    assert isinstance(action, CardAction)
    seat = state.asked
    if events is not None:
        events.extend(_action_events(state, seat, action))
    state.ply += 1
    state._actions = None
    kind = action.kind
    if state.kind == "tiebreak":
        _tiebreak(state, seat, action, events)
    elif kind == "play":
        _play_card(state, seat, action.cards[0], events)
    elif kind == "discard":
        state.hands[seat].remove(action.cards[0])
        state.discards.append(action.cards[0])
        _end_turn(state, events, round_over=False)
    elif kind == "sorry":
        _put(state, seat, "sorry")
        _refill(state, seat, events)  # A4: whoever plays a SORRY!-family card draws back up to 5 at once
        state.attacker = seat
        _ask(state, "block", action.target if action.target is not None else seat)
    elif state.kind == "steal":
        _steal_window(state, seat, kind, events)
    else:
        _block_window(state, seat, kind, events)


def _action_events(state: CardState, seat: int, action: CardAction) -> list[Event]:
    """The events that say which action ``seat`` played (before it is played)."""
    described: Event = {"type": "action", "seat": seat, "action": action.id, **action.describe()}
    if state.kind != "tiebreak":
        return [{**described, "to": None}]
    # the choice stays secret until every tied seat has chosen: the seat gets its action with the cards and the
    # score, the others a public twin that says only that it was made (action "tiebreak", no cards, no score;
    # engine.i18n reads it as a choice made in secret)
    public: Event = {
        "type": "action",
        "to": None,
        "seat": seat,
        "action": "tiebreak",
        "kind": "tiebreak",
        "cards": [],
    }
    return [{**described, "to": seat}, public]


def _play_card(state: CardState, seat: int, card: str, events: list[Event] | None) -> None:
    _put(state, seat, card)
    if state.kind == "play2":
        state.play2_left -= 1
    if card in NUMBER_VALUES:
        state.total += NUMBER_VALUES[card]
        _after_total(state, seat, events)
    elif card in SLIDES:
        state.total = SLIDES[card]
        _after_total(state, seat, events)
    elif card == "take2":
        _draw(state, seat, min(2, HAND_LIMIT - len(state.hands[seat])), events)
        _end_turn(state, events, round_over=False)
    elif card == "switch":
        state.direction = -state.direction
        if events is not None:
            events.append({"type": "direction", "to": None, "direction": state.direction})
        _end_turn(state, events, round_over=False)
    else:  # play2: two number cards follow, one decision each
        state.play2_left = 2
        _ask(state, "play2", seat)


def _steal_window(state: CardState, seat: int, kind: str, events: list[Event] | None) -> None:
    scorer = state.scorer
    assert scorer is not None
    if kind == "steal":
        _put(state, seat, "steal")
        _refill(state, seat, events)
        state.thief = seat
        state.queue = []
        _ask(state, "block", scorer)
    elif state.queue:
        _ask(state, "steal", state.queue.pop(0))
    else:
        _resolve_21(state, scorer, events)


def _block_window(state: CardState, seat: int, kind: str, events: list[Event] | None) -> None:
    """The target of a SORRY! blocks or passes; a block cannot be answered (A4)."""
    if kind == "block":
        _put(state, seat, "block")
        _refill(state, seat, events)
    if state.attacker is not None:  # an on-turn SORRY! against ``seat``
        state.attacker = None
        if kind == "pass" and state.progress[seat] > 0:
            # a HOME pawn card goes back to START; in the longer game's second half (progress past every pawn)
            # one step back is a pawn card flipped from START back to HOME (A5)
            flipped_to = "home" if state.progress[seat] > state.pawns else "start"
            state.progress[seat] -= 1
            if events is not None:
                events.append(
                    {
                        "type": "start",
                        "to": None,
                        "seat": seat,
                        "home": state.home_shown(seat),
                        "flipped_to": flipped_to,
                    }
                )
        _end_turn(state, events, round_over=True)
        return
    thief, scorer = state.thief, state.scorer
    assert thief is not None and scorer is not None
    _resolve_21(state, scorer if kind == "block" else thief, events)


def _tiebreak(state: CardState, seat: int, action: CardAction, events: list[Event] | None) -> None:
    state.choices[seat] = list(action.cards)
    waiting = [tied for tied in state.tied if tied not in state.choices]
    if waiting:
        _ask(state, "tiebreak", waiting[0])
        return
    scores = {tied: (tiebreak_score(cards), -len(cards)) for tied, cards in state.choices.items()}
    if events is not None:
        events.append(
            {
                "type": "tiebreak_cards",
                "to": None,
                "choices": {str(tied): cards for tied, cards in state.choices.items()},
                "scores": {str(tied): score for tied, (score, _) in scores.items()},
            }
        )
    best = max(scores.values())
    _finish(state, [tied for tied in state.tied if scores[tied] == best], events)
