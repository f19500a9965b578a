"""A card game state consistent with one seat's view: the hidden cards dealt at random (determinization).

A seat sees its own hand and the public table (play pile, total, discards, HOME counts, hand sizes, who is asked
for what). The unseen cards (the deck minus what the seat saw) are shuffled into the other hands, by their sizes,
and the draw pile. Secret tiebreaker choices of other seats are drawn from their sampled hands. Search bots play
such states forward with the game's own rules.
"""

from __future__ import annotations

import random
from collections import Counter

from engine.card import codec
from engine.card.cards import NUMBER_VALUES, deck_cards
from engine.card.moves import tiebreak_actions
from engine.card.settings import normalize
from engine.card.state import CardState
from engine.types import Json, StateError


def _steal_queue(players: int, direction: int, scorer: int, asked: int) -> list[int]:
    """The seats still to be asked in a steal window: the scorer's opponents in turn order after ``asked``."""
    order = [(scorer + direction * step) % players for step in range(1, players)]
    return order[order.index(asked) + 1 :] if asked in order else []


def _deal(
    cards: list[str], sizes: list[int], seat: int, hand: list[str], asked: int, numbers: int, rng: random.Random
) -> list[list[str]]:
    """The other seats' hands drawn from ``cards`` (what is left is the draw pile, in ``cards``), ``asked``
    holding at least ``numbers`` number cards: dealt again until it does (rejection: each deal is as likely as
    in the real game). A deal succeeds with odds of about 2 in 5 or better unless the view leaves few number
    cards unseen, so 200 failed deals mean a view that no game could show."""
    for _ in range(200):
        rng.shuffle(cards)
        ends = [len(cards)]
        for other, size in enumerate(sizes):
            ends.append(ends[-1] - (0 if other == seat else size))
        hands = [hand if other == seat else cards[ends[other + 1] : ends[other]] for other in range(len(sizes))]
        if sum(card in NUMBER_VALUES for card in hands[asked]) >= numbers:
            del cards[ends[-1] :]
            return hands
    raise StateError(f"card view: seat {asked}, asked for a Play 2, cannot hold {numbers} number cards")


def determinize(view: Json, rng: random.Random) -> CardState:
    """A full state that shows ``view`` to its seat, with unseen cards placed by ``rng``.

    Raises :class:`StateError` for a view that no game could show (it is checked as a stored state would be).
    """
    seat = view.get("seat")
    if not isinstance(seat, int) or not isinstance(view.get("settings"), dict):
        raise StateError("card view: a seat's view (with its 'seat' and 'settings') is needed")
    try:
        settings = normalize(view["settings"])
        seen = list(view["hand"]) + list(view["discards"]) + list(view["pile"])
        sizes = [int(size) for size in view["hand_sizes"]]
        piles = int(view["draw_pile"])
        decision = view["decision"]
        tiebreak = view["tiebreak"]
    except (KeyError, TypeError, ValueError):
        raise StateError(
            "card view: hand, discards, pile, hand_sizes, draw_pile and decision are needed"
        ) from None
    unseen = Counter(deck_cards(settings["deck"]))
    unseen.subtract(seen)
    if any(count < 0 for count in unseen.values()):
        raise StateError("card view: it shows more of some card than the deck holds")
    cards = list(unseen.elements())
    if not 0 <= seat < len(sizes) or len(view["hand"]) != sizes[seat]:
        raise StateError("card view: the seat's hand does not match its hand size")
    if len(cards) != sum(sizes) - sizes[seat] + piles:
        raise StateError(f"card view: {len(cards)} unseen cards cannot fill the hands and a draw pile of {piles}")
    asked = decision["seat"] if isinstance(decision, dict) else 0
    kind = decision["kind"] if isinstance(decision, dict) else "turn"
    # Public inference: a seat asked for a Play 2's number cards holds at least as many as are still to play.
    numbers = int(view.get("play2_left") or 0) if kind == "play2" and asked != seat else 0
    hands = _deal(cards, sizes, seat, list(view["hand"]), asked, numbers, rng)
    scorer, direction = view.get("scorer"), view.get("direction")
    queue = []
    if kind == "steal" and isinstance(scorer, int) and direction in (1, -1):
        queue = _steal_queue(len(sizes), direction, scorer, asked)
    tied = list(tiebreak["tied"]) if isinstance(tiebreak, dict) else []
    data = {
        "game": "card",
        "format": codec.FORMAT,
        "settings": settings,
        "seed": rng.getrandbits(62),
        "ply": view.get("ply"),
        "turn": view.get("turn"),
        "seat": view.get("turn_seat"),
        "direction": direction,
        "hands": hands,
        "draw_pile": cards,
        "discards": list(view["discards"]),
        "pile": list(view["pile"]),
        "total": view.get("total"),
        "progress": view.get("progress"),
        "shuffles": 1,
        "kind": kind,
        "asked": asked,
        "play2_left": view.get("play2_left"),
        "scorer": scorer,
        "queue": queue,
        "thief": view.get("thief"),
        "attacker": view.get("attacker"),
        "tied": tied,
        "choices": {},
        "result": view.get("result"),
    }
    return codec.from_json(data) if not tied else _with_choices(data, view, seat, rng)


def _with_choices(data: Json, view: Json, seat: int, rng: random.Random) -> CardState:
    """A tiebreaker under way: the seat's own choice as it saw it, the others' drawn from their sampled hands."""
    shown = view["tiebreak"].get("cards")
    if isinstance(shown, dict):  # the game is over: every choice is public
        return codec.from_json({**data, "choices": shown})
    chosen = view["tiebreak"].get("chosen", [])
    choices: dict[str, list[str]] = {}
    if seat in chosen:
        choices[str(seat)] = list(view["tiebreak"].get("mine", []))
    probe = CardState(data["settings"], 0)
    probe.hands = data["hands"]
    for other in chosen:
        if other != seat:
            choices[str(other)] = list(rng.choice(tiebreak_actions(probe, other)).cards)
    return codec.from_json({**data, "choices": choices})
