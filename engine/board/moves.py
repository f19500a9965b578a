"""The legal moves of one card (docs/rules.md B2 standard, B3 1972, B4 team; the 1992 sheet "THE CARDS").

Each candidate move is computed on a copy of the 16 pawn locations, so its outcome is known before it is chosen:
moves that lead to the same position are one action (the first generated keeps its id), and applying a move only
installs its precomputed outcome. Rule decisions (docs/rules.md) applied here:

- pawns jump over others; landing on an opponent's (or, in team play, the partner's) pawn bumps it to START;
  landing on a pawn of the moving pawn's own colour is illegal, on a slide's triangle too (assumption: the sheet
  forbids two pawns of a colour on one space and a landing comes before the slide);
- a pawn landing on the triangle of another colour's slide, by any card, slides to its end and bumps every other
  pawn on the slide, its own colour's too; it never bumps itself (for example a 4 from a slide's end back onto
  its triangle);
- 7: one pawn 7, or a split between two pawns (1992 team play: any number of the team's pawns); never to start a
  pawn; every part must be used in full (so a part that reaches HOME leaves the rest to another pawn); the parts
  are played one after the other and each follows every rule as if alone: a part may not end on a square its own
  colour holds, but it bumps an earlier part's pawn like any other pawn (a partner's pawn it lands on, any pawn
  on a slide it takes), so two parts may end on one square: the later one's;
- 11: forward 11 or a swap of a pawn on the open track with an opponent's pawn on the open track; passing is legal
  only when no forward 11 exists; only the mover's own pawn slides after a swap;
- SORRY!: a pawn from START takes the square of an opponent's pawn on the open track (team play: of a partner's
  pawn if there is no opponent's on the open track, B4); the placed pawn slides if it lands on a triangle.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from engine.board.cards import CARD_ORDER
from engine.board.geometry import (
    BACKWARD,
    COLOURS,
    FORWARD,
    HOME,
    LOCATION_NAMES,
    MAX_STEPS,
    PAWN_NAMES,
    PAWNS_PER_COLOUR,
    SAFETY,
    SLIDES,
    START,
    TRACK,
    exit_square,
)
from engine.board.state import BoardState
from engine.types import Action, Json

SLIDE_SQUARES = {triangle: frozenset(squares) for triangle, (_, _, squares) in SLIDES.items()}
_OTHERS_TRIANGLES = tuple(
    frozenset(triangle for triangle, (owner, _, _) in SLIDES.items() if owner != colour) for colour in range(4)
)
"""Per colour, the triangles that slide its pawns (those of the other colours' slides)."""
_ZOBRIST = [
    [random.Random(f"zobrist:{colour}:{loc}").getrandbits(62) for loc in range(-2, HOME + 1)]
    for colour in range(4)
]
"""A random number per (colour, location): a position's key is the sum over its pawns, alike for alike pawns."""
_STEP_NAMES = tuple(
    tuple(f"{name}+{steps}" if steps > 0 else f"{name}{steps}" for steps in range(-4, MAX_STEPS + 1))
    for name in PAWN_NAMES
)
"""``_STEP_NAMES[pawn][steps + 4]``: ``red0+5``, ``red0-4``: a part of an action id."""

Part = tuple[int, int, int, int]
"""One pawn's part of a move: (pawn, steps (negative: backward; 0: placed), location before, location after)."""
Bump = tuple[int, int]
"""(pawn, the location it was bumped from)."""
Slide = tuple[int, int, int]
"""(pawn, triangle, end)."""
_NONE: tuple[()] = ()
_STEPS = {card: int(card) for card in CARD_ORDER if card.isdigit()}
"""The forward count of each numbered card."""


class Move(Action):
    """A candidate move: its id, parts, the pawn locations after it, and who was bumped or slid on the way."""

    __slots__ = ("bumps", "card", "kind", "parts", "pawns", "slides")

    def __init__(
        self,
        card: str,
        kind: str,
        move_id: str,
        pawns: list[int],
        parts: Sequence[Part] = _NONE,
        bumps: Sequence[Bump] = _NONE,
        slides: Sequence[Slide] = _NONE,
    ) -> None:
        self.id = move_id
        self._description = None
        self.card = card
        self.kind = kind
        self.pawns = pawns
        self.parts = parts
        self.bumps = bumps
        self.slides = slides

    def key(self) -> int:
        """The change of the position's key (see ``_ZOBRIST``): equal for moves that reach alike positions."""
        key = 0
        for pawn, _, before, after in self.parts:
            table = _ZOBRIST[pawn >> 2]
            key += table[after + 2] - table[before + 2]
        for pawn, loc in self.bumps:
            table = _ZOBRIST[pawn >> 2]
            key += table[START + 2] - table[loc + 2]
        return key

    def describe(self) -> Json:
        return {
            "card": self.card,
            "kind": self.kind,
            "moves": [
                {
                    "pawn": PAWN_NAMES[pawn],
                    "from": LOCATION_NAMES[before],
                    "to": LOCATION_NAMES[after],
                    "steps": steps,
                }
                for pawn, steps, before, after in self.parts
            ],
            "bumps": [{"pawn": PAWN_NAMES[pawn], "from": LOCATION_NAMES[loc]} for pawn, loc in self.bumps]
            if self.bumps
            else [],
            "slides": [
                {"pawn": PAWN_NAMES[pawn], "from": LOCATION_NAMES[first], "to": LOCATION_NAMES[end]}
                for pawn, first, end in self.slides
            ]
            if self.slides
            else [],
        }

    def event(self, seat: int) -> Json:
        """The public event of this move played by ``seat``: its id and its description."""
        return {"type": "move", "to": None, "seat": seat, "action": self.id, **self.describe()}


def land(pawns: list[int], pawn: int, dest: int, bumps: list[Bump], slides: list[Slide]) -> int | None:
    """Put ``pawn`` on ``dest`` in ``pawns``, with bumps and slides; the final location, or None if illegal.

    ``pawn`` must not already be on ``dest``.
    """
    colour = pawn >> 2
    if dest >= SAFETY:
        if dest != HOME:
            base = colour * PAWNS_PER_COLOUR
            if dest in (pawns[base], pawns[base + 1], pawns[base + 2], pawns[base + 3]):
                return None
        pawns[pawn] = dest
        return dest
    occupant = pawns.index(dest) if dest in pawns else -1
    if occupant >= 0 and occupant >> 2 == colour:
        return None
    slide = SLIDES.get(dest)
    if slide is not None and slide[0] != colour:
        on_slide = SLIDE_SQUARES[dest]
        for other, loc in enumerate(pawns):
            if loc in on_slide and other != pawn:
                bumps.append((other, loc))
                pawns[other] = START
        end = slide[1]
        slides.append((pawn, dest, end))
        pawns[pawn] = end
        return end
    if occupant >= 0:
        bumps.append((occupant, dest))
        pawns[occupant] = START
    pawns[pawn] = dest
    return dest


def _simple(pawns: list[int], pawn: int, dest: int) -> bool:
    """Whether ``pawn`` lands on ``dest`` with no bump or slide, legally: the common case, decided without a copy."""
    if dest >= SAFETY:
        if dest == HOME:
            return True
        base = pawn & ~3
        return dest not in (pawns[base], pawns[base + 1], pawns[base + 2], pawns[base + 3])
    return dest not in pawns and dest not in _OTHERS_TRIANGLES[pawn >> 2]


def _add_singles(moves: list[Move], pawns: list[int], card: str, movers: list[int], steps: int) -> None:
    """Append the move of each of ``movers`` by ``steps`` squares (negative: backward) where it is legal."""
    kind = "forward" if steps > 0 else "backward"
    table = FORWARD if steps > 0 else BACKWARD
    count = steps if steps > 0 else -steps
    prefix = card + ":"
    for pawn in movers:
        loc = pawns[pawn]
        dest = table[pawn >> 2][loc][count]
        if dest is None:
            continue
        move_id = prefix + _STEP_NAMES[pawn][steps + 4]
        after = pawns.copy()
        if _simple(pawns, pawn, dest):
            after[pawn] = dest
            moves.append(Move(card, kind, move_id, after, ((pawn, steps, loc, dest),)))
            continue
        bumps: list[Bump] = []
        slides: list[Slide] = []
        final = land(after, pawn, dest, bumps, slides)
        if final is not None:
            moves.append(Move(card, kind, move_id, after, ((pawn, steps, loc, final),), bumps, slides))


def _first_in_start(state: BoardState, colour: int) -> int | None:
    base = colour * PAWNS_PER_COLOUR
    for pawn in range(base, base + PAWNS_PER_COLOUR):
        if state.pawns[pawn] == START:
            return pawn
    return None


def _start(state: BoardState, card: str, colour: int) -> Move | None:
    """A 1 or a 2 takes a pawn from START to its exit circle; all START pawns are alike, so one move."""
    pawn = _first_in_start(state, colour)
    if pawn is None:
        return None
    after = state.pawns.copy()
    bumps: list[Bump] = []
    slides: list[Slide] = []
    final = land(after, pawn, exit_square(colour), bumps, slides)
    if final is None:
        return None
    return Move(card, "start", f"{card}:start:{COLOURS[colour]}", after, ((pawn, 0, START, final),), bumps, slides)


def _place(state: BoardState, card: str, kind: str, move_id: str, pawn: int, target: int) -> Move | None:
    """``pawn`` takes ``target``'s square: SORRY! (target to START) or an 11 swap (target to pawn's square)."""
    pawns = state.pawns.copy()
    here, there = pawns[pawn], pawns[target]
    parts: list[Part] = []
    bumps: list[Bump] = []
    slides: list[Slide] = []
    if kind == "sorry":
        bumps.append((target, there))
        pawns[target] = START
    else:
        pawns[target] = here
        parts.append((target, 0, there, here))
    final = land(pawns, pawn, there, bumps, slides)
    if final is None:
        return None
    parts.insert(0, (pawn, 0, here, final))
    return Move(card, kind, move_id, pawns, parts, bumps, slides)


def _on_track(state: BoardState, colours: Iterable[int]) -> list[int]:
    pawns = state.pawns
    return [
        colour * PAWNS_PER_COLOUR + i
        for colour in colours
        for i in range(PAWNS_PER_COLOUR)
        if 0 <= pawns[colour * PAWNS_PER_COLOUR + i] < TRACK
    ]


def _opponent_colours(state: BoardState, seat: int) -> list[int]:
    team = state.movable_colours(seat)
    return [colour for colour in state.colours if colour not in team]


def _sorry(state: BoardState, card: str, seat: int) -> list[Move | None]:
    opponents = _on_track(state, _opponent_colours(state, seat))
    moves: list[Move | None] = []
    for colour in state.movable_colours(seat):
        pawn = _first_in_start(state, colour)
        if pawn is None:
            continue
        targets = opponents
        if not targets and state.variant == "team":
            targets = _on_track(state, [c for c in state.movable_colours(seat) if c != colour])
        for target in targets:
            move_id = f"{card}:{COLOURS[colour]}:{PAWN_NAMES[target]}"
            moves.append(_place(state, card, "sorry", move_id, pawn, target))
    return moves


def _swaps(state: BoardState, card: str, seat: int) -> list[Move | None]:
    opponents = _on_track(state, _opponent_colours(state, seat))
    if not opponents:
        return []
    return [
        _place(state, card, "swap", f"{card}:swap:{PAWN_NAMES[pawn]}:{PAWN_NAMES[target]}", pawn, target)
        for pawn in _on_track(state, state.movable_colours(seat))
        for target in opponents
    ]


def _pairs(card: str, pawns: list[int], movers: list[int]) -> list[Move]:
    """Every 7 split between two distinct pawns, in the order played: the first pawn 1 .. 6, the second the rest.

    The same moves in the same order as :func:`_splits` with two parts, without its recursion: a part that
    neither bumps nor slides (the common case) is checked without copying the pawns.
    """
    found: list[Move] = []
    for first in movers:
        loc = pawns[first]
        row = FORWARD[first >> 2][loc]
        first_names = _STEP_NAMES[first]
        for steps in range(1, 7):
            dest = row[steps]
            if dest is None:
                break  # further steps overshoot HOME too
            after = pawns.copy()
            bumps: list[Bump] = []
            slides: list[Slide] = []
            if _simple(pawns, first, dest):
                after[first] = final = dest
            else:
                landed = land(after, first, dest, bumps, slides)
                if landed is None:  # the part ends on a square held by its own colour
                    continue
                final = landed
            part = (first, steps, loc, final)
            prefix = card + ":" + first_names[steps + 4] + ","
            rest = 7 - steps
            for second in movers:
                there = after[second]
                if second == first or there < 0 or there == HOME:
                    continue
                goal = FORWARD[second >> 2][there][rest]
                if goal is None:
                    continue
                move_id = prefix + _STEP_NAMES[second][rest + 4]
                pawns_after = after.copy()
                if _simple(after, second, goal):
                    pawns_after[second] = goal
                    found.append(
                        Move(
                            card, "split", move_id, pawns_after, (part, (second, rest, there, goal)), bumps, slides
                        )
                    )
                    continue
                more_bumps = bumps.copy()
                more_slides = slides.copy()
                end = land(pawns_after, second, goal, more_bumps, more_slides)
                if end is None:
                    continue
                found.append(
                    Move(
                        card,
                        "split",
                        move_id,
                        pawns_after,
                        (part, (second, rest, there, end)),
                        more_bumps,
                        more_slides,
                    )
                )
    return found


def _splits(card: str, pawns: list[int], movers: list[int], max_parts: int) -> list[Move]:
    """Every way to split the 7 steps between 2 .. ``max_parts`` distinct pawns, in the order played."""
    found: list[Move] = []
    seen: set[tuple[object, ...]] = set()

    def extend(parts: list[Part], bumps: list[Bump], slides: list[Slide], pawns: list[int], rest: int) -> None:
        used = [part[0] for part in parts]
        last_part = len(parts) + 1 == max_parts
        for pawn in movers:
            loc = pawns[pawn]
            if loc < 0 or loc == HOME or pawn in used:
                continue
            row = FORWARD[pawn >> 2][loc]
            for steps in (rest,) if last_part else range(1, rest + 1 if parts else rest):
                dest = row[steps]
                if dest is None:
                    break  # further steps overshoot HOME too
                after = pawns.copy()
                new_bumps = bumps.copy()
                new_slides = slides.copy()
                final = land(after, pawn, dest, new_bumps, new_slides)
                if final is None:  # the part ends on a square held by its own colour
                    continue
                new_parts = [*parts, (pawn, steps, loc, final)]
                if steps == rest:
                    move_id = card + ":" + ",".join(_STEP_NAMES[p][n + 4] for p, n, _, _ in new_parts)
                    found.append(Move(card, "split", move_id, after, new_parts, new_bumps, new_slides))
                    continue
                if len(new_parts) + 1 < max_parts:
                    memo = (tuple(after), rest - steps, frozenset(used + [pawn]))
                    if memo in seen:
                        continue
                    seen.add(memo)
                extend(new_parts, new_bumps, new_slides, after, rest - steps)

    extend([], [], [], pawns, 7)
    return found


def card_moves(state: BoardState, seat: int, card: str) -> list[Move]:
    """Every legal move of ``card`` for ``seat``, unique by outcome, in a stable order (may be empty)."""
    pawns = state.pawns
    movers = [pawn for pawn in state.movers[seat] if 0 <= pawns[pawn] < HOME]
    """The seat's pawns that may move: on the track or in a safety zone."""
    moves: list[Move] = []
    if card == "1" or card == "2":
        for colour in state.movable_colours(seat):
            start = _start(state, card, colour)
            if start is not None:
                moves.append(start)
    if card == "sorry":
        moves.extend(move for move in _sorry(state, card, seat) if move is not None)
    elif card == "4":
        _add_singles(moves, pawns, card, movers, -4)
    else:
        _add_singles(moves, pawns, card, movers, _STEPS[card])
        if card == "10":
            _add_singles(moves, pawns, card, movers, -1)
        elif card == "7":
            if len(movers) >= 2:
                if state.variant != "team" or state.settings["edition"] == "1972":
                    moves.extend(_pairs(card, pawns, movers))
                else:
                    moves.extend(_splits(card, pawns, movers, 2 * PAWNS_PER_COLOUR))
            return _unique(state, moves)
        elif card == "11":
            forward = bool(moves)
            swaps = [move for move in _swaps(state, card, seat) if move is not None]
            moves.extend(swaps)
            if swaps and not forward:
                moves.append(Move(card, "pass", f"{card}:pass", pawns.copy()))
    for move in moves:
        if move.bumps or move.slides:
            return _unique(state, moves)
    # Without bumps or slides, moves of single pawns (or a start, a swap, a SORRY!) cannot reach one position:
    # each changes a different pawn, or the same pawn to a different square, and no pawn lands on its own colour.
    return moves


def _same_position(one: list[int], other: list[int], colours: tuple[int, ...]) -> bool:
    for colour in colours:
        base = colour * PAWNS_PER_COLOUR
        if sorted(one[base : base + PAWNS_PER_COLOUR]) != sorted(other[base : base + PAWNS_PER_COLOUR]):
            return False
    return True


def _unique(state: BoardState, moves: list[Move]) -> list[Move]:
    """Drop moves whose position (pawns of a colour being alike) an earlier move already reaches.

    Positions are compared by their keys (a sum of random numbers per (colour, location) over the pawns, so the
    same for alike positions); equal keys are then checked exactly.
    """
    if len(moves) < 2:
        return moves
    by_key: dict[int, list[Move]] = {}
    unique = []
    colours = state.colours
    for move in moves:
        key = move.key()
        same = by_key.get(key)
        if same is None:
            by_key[key] = [move]
        elif any(_same_position(other.pawns, move.pawns, colours) for other in same):
            continue
        else:
            same.append(move)
        unique.append(move)
    return unique


def hand_moves(state: BoardState, seat: int, hand: list[str]) -> list[Move]:
    """Points variant (B5): the moves of every distinct card in the hand, in card order."""
    moves: list[Move] = []
    for card in sorted(set(hand), key=CARD_ORDER.__getitem__):
        moves.extend(card_moves(state, seat, card))
    return moves


def discard_moves(state: BoardState, hand: list[str]) -> list[Move]:
    """Points variant (B5): with no card that moves, discard one card of the player's choice."""
    return [
        Move(card, "discard", f"discard:{card}", state.pawns.copy())
        for card in sorted(set(hand), key=CARD_ORDER.__getitem__)
    ]
