"""The legal moves of one card (docs/rules.md B2 standard, B3 1972, B4 team; the 1992 sheet "THE CARDS").

Each candidate move is computed on a copy of the 16 pawn locations, so its outcome is known before it is chosen:
moves that lead to the same position are one action (the first generated keeps its id), and applying a move only
installs its precomputed outcome. Positions are compared only where two moves can meet (:func:`card_moves` says
where): a 7's splits are compared as they are built, before a :class:`Move` is made for one. Rule decisions
(docs/rules.md) applied here:

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
    PARTNER,
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
_EXITS = tuple(exit_square(colour) for colour in range(4))
_START_IDS = {card: tuple(f"{card}:start:{name}" for name in COLOURS) for card in ("1", "2")}
"""``_START_IDS[card][colour]``: the id of a 1's or a 2's move out of START."""
_STEPS = {card: int(card) for card in CARD_ORDER if card.isdigit()}
"""The forward count of each numbered card."""
_REACH_FORWARD = tuple(
    tuple(tuple(row[steps] for row in rows) for rows in FORWARD) for steps in range(MAX_STEPS + 1)
)
"""``_REACH_FORWARD[steps][colour][loc]``: ``FORWARD[colour][loc][steps]``, one look-up less per pawn."""
_REACH_BACKWARD = tuple(tuple(tuple(row[steps] for row in rows) for rows in BACKWARD) for steps in range(5))
"""``_REACH_BACKWARD[steps][colour][loc]``: ``BACKWARD[colour][loc][steps]`` (a 4 or a 10 goes back 4 or 1)."""
_STEP_IDS = {card: tuple(tuple(f"{card}:{name}" for name in names) for names in _STEP_NAMES) for card in _STEPS}
"""``_STEP_IDS[card][pawn][steps + 4]``: the id of a numbered card's move of one pawn, ``5:red0+5``."""
_SORRY_IDS = tuple(tuple(f"sorry:{colour}:{target}" for target in PAWN_NAMES) for colour in COLOURS)
"""``_SORRY_IDS[colour][target]``: the id of a SORRY! placing a pawn of ``colour`` on ``target``'s square."""
_SWAP_IDS = tuple(tuple(f"11:swap:{pawn}:{target}" for target in PAWN_NAMES) for pawn in PAWN_NAMES)
"""``_SWAP_IDS[pawn][target]``: the id of the 11's swap of ``pawn`` with ``target``."""
_SPLIT_IDS = tuple(
    tuple(
        tuple(f"7:{_STEP_NAMES[first][steps + 4]},{_STEP_NAMES[second][7 - steps + 4]}" for second in range(16))
        for steps in range(7)
    )
    for first in range(16)
)
"""``_SPLIT_IDS[first][steps][second]``: the id of the 7's split: ``steps`` to ``first``, the rest to ``second``."""
_PLACE_NAMES = tuple(LOCATION_NAMES[loc] for loc in (*range(HOME + 1), START))
"""``_PLACE_NAMES[loc]``: :data:`LOCATION_NAMES` as a tuple (START, -1, last), for the events' names."""
_DESCRIBED = ("card", "kind", "moves", "bumps", "slides")
"""The keys of a move's description: its event's, less who played it and its id."""


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
        key = _bumps_key(self.bumps) if self.bumps else 0
        for pawn, _, before, after in self.parts:
            table = _ZOBRIST[pawn >> 2]
            key += table[after + 2] - table[before + 2]
        return key

    def describe(self) -> Json:
        event = self.event(0)
        return {key: event[key] for key in _DESCRIBED}

    def event(self, seat: int) -> Json:
        """The public event of this move played by ``seat``: its id and its description (built anew, one dict
        literal per pawn: the one place that says how a move is shown, :meth:`describe` included)."""
        parts = self.parts
        bumps = self.bumps
        slides = self.slides
        names = _PLACE_NAMES
        if len(parts) == 1:  # most moves: a literal list, no comprehension's call
            pawn, steps, before, after = parts[0]
            moves = [{"pawn": PAWN_NAMES[pawn], "from": names[before], "to": names[after], "steps": steps}]
        else:
            moves = [
                {"pawn": PAWN_NAMES[pawn], "from": names[before], "to": names[after], "steps": steps}
                for pawn, steps, before, after in parts
            ]
        return {
            "type": "move",
            "to": None,
            "seat": seat,
            "action": self.id,
            "card": self.card,
            "kind": self.kind,
            "moves": moves,
            "bumps": [{"pawn": PAWN_NAMES[pawn], "from": names[loc]} for pawn, loc in bumps] if bumps else [],
            "slides": [
                {"pawn": PAWN_NAMES[pawn], "from": names[first], "to": names[end]} for pawn, first, end in slides
            ]
            if slides
            else [],
        }


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
        if not on_slide.isdisjoint(pawns):  # most slides are empty: no loop over the pawns
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


def _add_singles(moves: list[Move], pawns: list[int], card: str, movers: Sequence[int], steps: int) -> bool:
    """Append the move of each of ``movers`` by ``steps`` squares (negative: backward) where it is legal; whether
    one of them bumps or slides. Pawns in START or HOME move nowhere (their table rows hold ``None``), so a seat's
    pawns need no filtering. A landing that neither bumps nor slides (the common case) is decided without
    :func:`land`."""
    if steps > 0:
        kind = "forward"
        reach = _REACH_FORWARD[steps]
    else:
        kind = "backward"
        reach = _REACH_BACKWARD[-steps]
    ids = _STEP_IDS[card]
    name = steps + 4
    messy = False
    for pawn in movers:
        loc = pawns[pawn]
        dest = reach[pawn >> 2][loc]
        if dest is None:
            continue
        if dest >= SAFETY:
            if dest != HOME:
                base = pawn & ~3
                if dest in (pawns[base], pawns[base + 1], pawns[base + 2], pawns[base + 3]):
                    continue  # a pawn of its own colour is there
        elif dest in pawns or dest in _OTHERS_TRIANGLES[pawn >> 2]:
            after = pawns.copy()
            bumps: list[Bump] = []
            slides: list[Slide] = []
            final = land(after, pawn, dest, bumps, slides)
            if final is not None:
                moves.append(
                    Move(
                        card,
                        kind,
                        ids[pawn][name],
                        after,
                        ((pawn, steps, loc, final),),
                        bumps,
                        slides,
                    )
                )
                messy = True  # off a safety zone, a legal landing that is not simple bumps or slides
            continue
        after = pawns.copy()
        after[pawn] = dest
        moves.append(Move(card, kind, ids[pawn][name], after, ((pawn, steps, loc, dest),)))
    return messy


def _first_in_start(pawns: list[int], colour: int) -> int | None:
    base = colour * PAWNS_PER_COLOUR
    own = pawns[base : base + PAWNS_PER_COLOUR]
    return base + own.index(START) if START in own else None


def _start(pawns: list[int], card: str, colour: int) -> Move | None:
    """A 1 or a 2 takes a pawn from START to its exit circle; all START pawns are alike, so one move.

    The exit circle ends its own colour's slide and is no triangle, so this is :func:`land` without a slide: a pawn
    of its own colour there forbids the move, another colour's is bumped.
    """
    pawn = _first_in_start(pawns, colour)
    if pawn is None:
        return None
    square = _EXITS[colour]
    after = pawns.copy()
    bumps: Sequence[Bump] = _NONE
    if square in pawns:
        occupant = pawns.index(square)
        if occupant >> 2 == colour:
            return None
        after[occupant] = START
        bumps = [(occupant, square)]
    after[pawn] = square
    return Move(card, "start", _START_IDS[card][colour], after, ((pawn, 0, START, square),), bumps)


def _on_track(pawns: list[int], candidates: Iterable[int]) -> list[int]:
    return [pawn for pawn in candidates if 0 <= pawns[pawn] < TRACK]


def _sorry(state: BoardState, card: str, seat: int, moves: list[Move]) -> None:
    """Append the SORRY! moves: a pawn from START (of each colour the seat moves) onto each target's square, the
    target back to START. The placed pawn slides from another colour's triangle (:func:`land`)."""
    pawns = state.pawns
    opponents = None
    for colour in state.movable_colours(seat):
        pawn = _first_in_start(pawns, colour)
        if pawn is None:
            continue
        if opponents is None:  # found once a pawn may be placed: often none is in START
            opponents = _on_track(pawns, state.rivals[seat])
        targets = opponents
        if not targets and state.variant == "team":
            partner = PARTNER[colour] * PAWNS_PER_COLOUR
            targets = _on_track(pawns, range(partner, partner + PAWNS_PER_COLOUR))
        ids = _SORRY_IDS[colour]
        triangles = _OTHERS_TRIANGLES[colour]
        for target in targets:
            there = pawns[target]
            after = pawns.copy()
            after[target] = START
            bumps = [(target, there)]
            if there in triangles or there in after:
                slides: list[Slide] = []
                final = land(after, pawn, there, bumps, slides)
                if final is not None:
                    moves.append(
                        Move(
                            card,
                            "sorry",
                            ids[target],
                            after,
                            ((pawn, 0, START, final),),
                            bumps,
                            slides,
                        )
                    )
                continue
            after[pawn] = there
            moves.append(Move(card, "sorry", ids[target], after, ((pawn, 0, START, there),), bumps))


def _swaps(state: BoardState, card: str, seat: int, pawns: list[int], movers: Sequence[int]) -> list[Move]:
    """The 11's swaps (``card`` is "11") of a pawn of the seat on the open track with an opponent's pawn on the open
    track: each takes the other's square, and the seat's pawn slides from another colour's triangle (:func:`land`)."""
    opponents = _on_track(pawns, state.rivals[seat])
    found: list[Move] = []
    if not opponents:
        return found
    for pawn in movers:
        here = pawns[pawn]
        if not 0 <= here < TRACK:
            continue
        ids = _SWAP_IDS[pawn]
        triangles = _OTHERS_TRIANGLES[pawn >> 2]
        for target in opponents:
            there = pawns[target]
            after = pawns.copy()
            after[target] = here
            if there in triangles or there in after:
                bumps: list[Bump] = []
                slides: list[Slide] = []
                final = land(after, pawn, there, bumps, slides)
                if final is not None:
                    parts = ((pawn, 0, here, final), (target, 0, there, here))
                    found.append(Move(card, "swap", ids[target], after, parts, bumps, slides))
                continue
            after[pawn] = there
            parts = ((pawn, 0, here, there), (target, 0, there, here))
            found.append(Move(card, "swap", ids[target], after, parts))
    return found


def _pairs(
    card: str, pawns: list[int], movers: list[int], singles: list[Move], colours: tuple[int, ...]
) -> list[Move]:
    """The 7's moves when it splits between two pawns at most: ``singles`` (each pawn by 7), then every split
    between two distinct pawns in the order played (the first pawn 1 .. 6, the second the rest), unique by outcome.

    The same moves in the same order as :func:`_unique` over ``singles`` and :func:`_splits` with two parts, without
    their costs: a part that neither bumps nor slides (the common case) is checked without :func:`land`, and each
    candidate's position key is summed as it is built, so that a split reaching a position already reached (the
    same two parts in the other order, most often) is dropped before any :class:`Move` is made for it.
    """
    reached: dict[int, list[list[int]]] = {}
    """Position key -> the positions (pawn lists) of the moves kept with that key."""
    found = _kept(singles, reached, colours)
    plain: set[int] = set()
    """The splits made so far whose parts neither bump nor slide, as ``first << 8 | steps << 4 | second``: the same
    two parts in the other order reach exactly that position, and are dropped before anything is built."""
    seconds = [
        (pawn, FORWARD[pawn >> 2], _ZOBRIST[pawn >> 2], _OTHERS_TRIANGLES[pawn >> 2], pawn & ~3) for pawn in movers
    ]
    """Per pawn that may move: its colour's forward table, keys and sliding triangles, and its colour's first
    pawn."""
    occupied = set(pawns)
    """The squares held before the split: one pawn at most on a track square, where a second part may land."""
    for first, rows, zobrist, first_triangles, first_base in seconds:
        loc = pawns[first]
        row = rows[loc]
        split_ids = _SPLIT_IDS[first]
        for steps in range(1, 7):
            dest = row[steps]
            if dest is None:
                break  # further steps overshoot HOME too
            after = pawns.copy()
            bumps: Sequence[Bump] = _NONE
            slides: Sequence[Slide] = _NONE
            # whether the part lands with no bump or slide, legally (as in _add_singles): the common case
            if dest >= SAFETY:
                first_plain = dest == HOME or dest not in (
                    pawns[first_base],
                    pawns[first_base + 1],
                    pawns[first_base + 2],
                    pawns[first_base + 3],
                )
            else:
                first_plain = dest not in pawns and dest not in first_triangles
            if first_plain:
                after[first] = final = dest
                first_key = zobrist[dest + 2] - zobrist[loc + 2]
            else:
                bumps, slides = [], []
                landed = land(after, first, dest, bumps, slides)
                if landed is None:  # the part ends on a square held by its own colour
                    continue
                final = landed
                first_key = zobrist[final + 2] - zobrist[loc + 2] + _bumps_key(bumps)
            part = (first, steps, loc, final)
            ids = split_ids[steps]
            rest = 7 - steps
            for second, second_rows, second_zobrist, triangles, base in seconds:
                if first_plain and second << 8 | rest << 4 | first in plain:
                    continue  # made before in the other order, plainly: then this order is plain too, same pawns
                there = after[second]
                if second == first or there < 0 or there == HOME:
                    continue
                goal = second_rows[there][rest]
                if goal is None:
                    continue
                # the same test for the second part; in a safety zone a pawn of its own colour forbids the part
                if goal >= SAFETY:
                    plain_part = goal == HOME or goal not in (
                        after[base],
                        after[base + 1],
                        after[base + 2],
                        after[base + 3],
                    )
                    if not plain_part:
                        continue
                elif first_plain:  # ``after`` is ``pawns`` with ``first`` moved: no scan of ``after``
                    plain_part = goal != final and (goal == loc or goal not in occupied) and goal not in triangles
                else:
                    plain_part = goal not in after and goal not in triangles
                more_bumps = bumps
                more_slides = slides
                if plain_part:
                    if first_plain:
                        plain.add(first << 8 | steps << 4 | second)
                    position = after.copy()
                    position[second] = end = goal
                    key = first_key + second_zobrist[goal + 2] - second_zobrist[there + 2]
                else:
                    position = after.copy()
                    more_bumps = list(bumps)
                    more_slides = list(slides)
                    landed = land(position, second, goal, more_bumps, more_slides)
                    if landed is None:
                        continue
                    end = landed
                    key = first_key + second_zobrist[end + 2] - second_zobrist[there + 2]
                    key += _bumps_key(more_bumps[len(bumps) :])
                same = reached.get(key)
                if same is None:
                    reached[key] = [position]
                elif not _fresh(same, position, colours):
                    continue
                found.append(
                    Move(
                        card,
                        "split",
                        ids[second],
                        position,
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
    moves: list[Move] = []
    if card == "sorry":
        # Every SORRY! bumps, yet no two reach one position: with different targets they differ on the first
        # target's square, which one leaves to its placed pawn (or empty, after a slide) and the other to that
        # target (a slide there would start on it, the other target's square: slides never overlap); with one
        # target (team play, a pawn of each partner) their placed pawns differ in colour, or one slid and one not.
        _sorry(state, card, seat, moves)
        return moves
    pawns = state.pawns
    mine = state.movers[seat]
    if card == "7":
        _add_singles(moves, pawns, card, mine, 7)
        movers = [pawn for pawn in mine if 0 <= pawns[pawn] < HOME]
        """The seat's pawns that may move: on the track or in a safety zone."""
        if len(movers) < 2:
            return moves  # one move at most
        if state.variant != "team" or state.settings["edition"] == "1972":
            return _pairs(card, pawns, movers, moves, state.colours)
        moves.extend(_splits(card, pawns, movers, 2 * PAWNS_PER_COLOUR))
        return _unique(state, moves)
    if card == "4":
        messy = _add_singles(moves, pawns, card, mine, -4)
    else:
        messy = False
        if card == "1" or card == "2":
            for colour in state.movable_colours(seat):
                start = _start(pawns, card, colour)
                if start is not None:
                    moves.append(start)
                    messy = messy or bool(start.bumps)
        messy = _add_singles(moves, pawns, card, mine, _STEPS[card]) or messy
        if card == "10":
            messy = _add_singles(moves, pawns, card, mine, -1) or messy
        elif card == "11":
            forward = bool(moves)
            swaps = _swaps(state, card, seat, pawns, mine)
            if swaps:
                moves.extend(swaps)
                messy = messy or any(swap.slides for swap in swaps)
                if not forward:
                    moves.append(Move(card, "pass", f"{card}:pass", pawns.copy()))
    # Without bumps or slides, moves of single pawns (or a start, a swap, a SORRY!) cannot reach one position:
    # each changes a different pawn, or the same pawn to a different square, and no pawn lands on its own colour.
    return _unique(state, moves) if messy else moves


def _bumps_key(bumps: Iterable[Bump]) -> int:
    """The change of the position's key (see ``_ZOBRIST``) when ``bumps`` send their pawns to START."""
    key = 0
    for pawn, loc in bumps:
        table = _ZOBRIST[pawn >> 2]
        key += table[START + 2] - table[loc + 2]
    return key


def _same_position(one: list[int], other: list[int], colours: tuple[int, ...]) -> bool:
    """Whether two pawn lists are one position, the pawns of a colour being alike."""
    if one == other:
        return True
    for colour in colours:
        base = colour * PAWNS_PER_COLOUR
        mine = one[base : base + PAWNS_PER_COLOUR]
        theirs = other[base : base + PAWNS_PER_COLOUR]
        if mine != theirs and sorted(mine) != sorted(theirs):
            return False
    return True


def _fresh(same: list[list[int]], position: list[int], colours: tuple[int, ...]) -> bool:
    """Whether ``position`` is none of the positions ``same`` (those of its key) and, if so, add it to them."""
    for kept in same:
        if _same_position(kept, position, colours):
            return False
    same.append(position)
    return True


def _unique(state: BoardState, moves: list[Move]) -> list[Move]:
    """Drop moves whose position (pawns of a colour being alike) an earlier move already reaches."""
    if len(moves) < 2:
        return moves
    return _kept(moves, {}, state.colours)


def _kept(moves: list[Move], reached: dict[int, list[list[int]]], colours: tuple[int, ...]) -> list[Move]:
    """The moves whose positions neither ``reached`` (key -> positions) nor an earlier move holds; each position
    kept is added to ``reached``.

    Positions are compared by their keys (a sum of random numbers per (colour, location) over the pawns, so the
    same for alike positions); equal keys are then checked exactly.
    """
    kept = []
    for move in moves:
        key = move.key()
        same = reached.get(key)
        if same is None:
            reached[key] = [move.pawns]
        elif not _fresh(same, move.pawns, colours):
            continue
        kept.append(move)
    return kept


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
