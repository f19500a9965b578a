"""The SORRY! board (docs/rules.md B1): 60 track squares, slides, safety zones, START and HOME.

A pawn's location is one small int: ``START`` (-1), a track square 0..59 (clockwise from red's side), its own
colour's safety zone ``SAFETY`` .. ``SAFETY + 4`` (60..64) or ``HOME`` (65). For the colour of side k, squares
15k + 1 .. 15k + 4 are the short slide, 15k + 2 is the turn into the safety zone, 15k + 4 the start-exit circle and
15k + 9 .. 15k + 13 the long slide. A pawn needs 64 forward steps from its exit circle to HOME, by exact count.

Moves are table look-ups: ``FORWARD[colour][loc][n]`` and ``BACKWARD[colour][loc][n]`` give the square reached by
n steps, or ``None`` when the move overshoots HOME or starts from START or HOME. START's row is the last, so that
``FORWARD[colour][START]`` (index -1) finds it: move generation looks up every pawn of a seat, none filtered out.
"""

from __future__ import annotations

COLOURS = ("red", "blue", "yellow", "green")
COLOUR_INDEX = {name: index for index, name in enumerate(COLOURS)}
SEAT_COLOURS = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}
"""Colours by seat, in play order; two players sit on facing sides (docs/rules.md B1)."""
PARTNER = (2, 3, 0, 1)
"""Team play: red with yellow, blue with green (docs/rules.md B4)."""

TRACK = 60
START = -1
SAFETY = 60
SAFETY_LENGTH = 5
HOME = SAFETY + SAFETY_LENGTH
ABSENT = -2
"""Location of the pawns of a colour nobody plays."""
PAWNS_PER_COLOUR = 4
MAX_STEPS = 12


def exit_square(colour: int) -> int:
    return 15 * colour + 4


def turn_square(colour: int) -> int:
    return 15 * colour + 2


def _slides() -> dict[int, tuple[int, int, tuple[int, ...]]]:
    slides = {}
    for owner in range(4):
        for first, last in ((1, 4), (9, 13)):
            squares = tuple(15 * owner + offset for offset in range(first, last + 1))
            slides[squares[0]] = (owner, squares[-1], squares)
    return slides


SLIDES = _slides()
"""Triangle square -> (owner colour, end square, every square of the slide from the triangle to the end)."""


def _step_forward(colour: int, loc: int) -> int | None:
    if loc in (HOME, START):
        return None
    if loc >= SAFETY:
        return loc + 1
    if loc == turn_square(colour):
        return SAFETY
    return (loc + 1) % TRACK


def _step_backward(colour: int, loc: int) -> int | None:
    if loc in (HOME, START):
        return None
    if loc == SAFETY:
        return turn_square(colour)
    if loc > SAFETY:
        return loc - 1
    return (loc - 1) % TRACK


def _table(step: object) -> tuple[tuple[tuple[int | None, ...], ...], ...]:
    tables = []
    for colour in range(4):
        rows = []
        for loc in (*range(HOME + 1), START):  # START (-1) last: index -1
            row: list[int | None] = [loc]
            here: int | None = loc
            for _ in range(MAX_STEPS):
                here = None if here is None else step(colour, here)  # type: ignore[operator]
                row.append(here)
            rows.append(tuple(row))
        tables.append(tuple(rows))
    return tuple(tables)


FORWARD = _table(_step_forward)
BACKWARD = _table(_step_backward)


def steps_to_home(colour: int, loc: int) -> int:
    """Forward steps still to go; a pawn in START counts one more than from its exit circle (65)."""
    if loc == START:
        return 65
    if loc >= SAFETY:
        return HOME - loc
    return (turn_square(colour) - loc) % TRACK + SAFETY_LENGTH + 1


def is_track(loc: int) -> bool:
    return 0 <= loc < TRACK


def location_name(loc: int) -> str:
    """The readable form used in action descriptions and views: start, track:N, safety:N (0-4), home."""
    if loc == START:
        return "start"
    if loc == HOME:
        return "home"
    if loc >= SAFETY:
        return f"safety:{loc - SAFETY}"
    return f"track:{loc}"


def parse_location(name: str) -> int:
    """The inverse of :func:`location_name`. Raises ``ValueError`` for anything else."""
    if name == "start":
        return START
    if name == "home":
        return HOME
    zone, _, number = name.partition(":")
    if not number.isdigit():
        raise ValueError(f"not a board location: {name!r}")
    index = int(number)
    if zone == "track" and index < TRACK:
        return index
    if zone == "safety" and index < SAFETY_LENGTH:
        return SAFETY + index
    raise ValueError(f"not a board location: {name!r}")


def pawn_name(pawn: int) -> str:
    """Pawn ``4 * colour + i`` is called ``"{colour}{i}"``, e.g. ``red0`` or ``green3``."""
    return f"{COLOURS[pawn // PAWNS_PER_COLOUR]}{pawn % PAWNS_PER_COLOUR}"


def parse_pawn(name: str) -> int:
    colour, index = name[:-1], name[-1:]
    if colour not in COLOUR_INDEX or index not in "0123" or not index:
        raise ValueError(f"not a pawn: {name!r}")
    return COLOUR_INDEX[colour] * PAWNS_PER_COLOUR + int(index)


PAWN_NAMES = tuple(pawn_name(pawn) for pawn in range(4 * PAWNS_PER_COLOUR))
LOCATION_NAMES = {loc: location_name(loc) for loc in range(START, HOME + 1)}
