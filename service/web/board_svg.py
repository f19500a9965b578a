"""The SORRY! board as an SVG drawing, from a view of the board game (docs/rules.md B1; ``engine/board/geometry.py``).

The board is a 16 x 16 grid whose border is the 60-square track, numbered clockwise from red's side: red's side is
the bottom row (square 0 at the bottom-right corner), then blue's on the left, yellow's on top, green's on the
right. Each side's slides are drawn in their colour over squares 15k + 1..4 and 15k + 9..13; its safety zone turns
inward at 15k + 2 (five squares, then the HOME circle); its START circle sits inward of the exit square 15k + 4.

Every pawn is a ``<g class="pawn" data-pawn="red0" data-location="track:12">``, so that a page test reads the
position the drawing shows; it is labelled with its id's number (0-3) and titled with its name in words ("red 0":
``engine.i18n.pawn_name``), as the move texts and the action ids name it. The drawing shows only what the view holds: pass a spectator view for a live game.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from markupsafe import Markup, escape

from engine import i18n
from engine.board import geometry
from service.web.messages import text

CELL = 40
MARGIN = 10
SIZE = 16 * CELL + 2 * MARGIN
PAWN_RADIUS = 0.3 * CELL
AREA_RADIUS = 1.05 * CELL

COLOURS = {"red": "#d62828", "blue": "#1d4ed8", "yellow": "#e0a800", "green": "#2a9d45"}
LIGHT = {"red": "#f7cfcf", "blue": "#cfdaf7", "yellow": "#f7ebbd", "green": "#cdebd5"}

START_AT = (4.0, 2.2)
"""(along the side, inward) of a colour's START circle centre, in cells."""
HOME_AT = (2.0, 6.6)
SLOTS = ((-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5))
"""Where pawns 0-3 sit in a START or HOME circle, in cells from its centre."""


def point(side: int, along: float, inward: float) -> tuple[float, float]:
    """The pixel centre of the cell ``along`` squares from the start of ``side`` and ``inward`` rows from the edge.

    Side 0 (red) runs right to left along the bottom; each next side is the previous turned 90 degrees clockwise
    about the board's centre.
    """
    x, y = 7.5 - along, 7.5 - inward
    for _ in range(side % 4):
        x, y = -y, x
    return MARGIN + (x + 8) * CELL, MARGIN + (y + 8) * CELL


def track_point(square: int) -> tuple[float, float]:
    return point(square // 15, square % 15, 0)


def _f(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def _location_text(location: str, language: str) -> str:
    loc = geometry.parse_location(location)
    if loc == geometry.START:
        return i18n.message("location.start", language)
    if loc == geometry.HOME:
        return i18n.message("location.home", language)
    if loc >= geometry.SAFETY:
        return i18n.message("location.safety", language, number=loc - geometry.SAFETY + 1)
    return i18n.message("location.track", language, number=loc + 1)


def _squares(language: str) -> list[str]:
    parts = []
    for square in range(geometry.TRACK):
        x, y = track_point(square)
        exit_colour = next(
            (c for c, name in enumerate(geometry.COLOURS) if geometry.exit_square(c) == square), None
        )
        fill = LIGHT[geometry.COLOURS[exit_colour]] if exit_colour is not None else "#fffdf7"
        title = escape(i18n.message("location.track", language, number=square + 1))
        parts.append(
            f'<rect class="square" data-square="{square}" x="{_f(x - CELL / 2)}" y="{_f(y - CELL / 2)}" '
            f'width="{CELL}" height="{CELL}" fill="{fill}" stroke="#8a8170"><title>{title}</title></rect>'
        )
    return parts


def _slides() -> list[str]:
    parts = []
    band = 0.34 * CELL
    for first, (owner, last, _squares_of) in sorted(geometry.SLIDES.items()):
        colour = COLOURS[geometry.COLOURS[owner]]
        (x1, y1), (x2, y2) = track_point(first), track_point(last)
        parts.append(
            f'<g class="slide" data-slide="{first}-{last}" data-colour="{geometry.COLOURS[owner]}">'
            f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="{colour}" '
            f'stroke-width="{_f(band)}" stroke-linecap="round" opacity="0.75"/>'
            f'<circle cx="{_f(x1)}" cy="{_f(y1)}" r="{_f(band * 0.9)}" fill="{colour}"/>'
            f'<circle cx="{_f(x2)}" cy="{_f(y2)}" r="{_f(band * 0.75)}" fill="#fff" stroke="{colour}" '
            f'stroke-width="3"/></g>'
        )
    return parts


def _areas(language: str, playing: Collection[str]) -> list[str]:
    parts = []
    for side, colour in enumerate(geometry.COLOURS):
        faded = "" if colour in playing else ' opacity="0.35"'
        parts.append(f'<g class="zone" data-colour="{colour}"{faded}>')
        for index in range(geometry.SAFETY_LENGTH):
            x, y = point(side, 2, 1 + index)
            title = escape(i18n.message("location.safety", language, number=index + 1))
            parts.append(
                f'<rect class="safety" data-safety="{index}" x="{_f(x - CELL / 2)}" y="{_f(y - CELL / 2)}" '
                f'width="{CELL}" height="{CELL}" fill="{LIGHT[colour]}" stroke="{COLOURS[colour]}">'
                f"<title>{title}</title></rect>"
            )
        for kind, (along, inward) in (("start", START_AT), ("home", HOME_AT)):
            x, y = point(side, along, inward)
            label = escape(i18n.message(f"location.{kind}", language))
            parts.append(
                f'<circle class="{kind}-area" cx="{_f(x)}" cy="{_f(y)}" r="{_f(AREA_RADIUS)}" '
                f'fill="{LIGHT[colour]}" stroke="{COLOURS[colour]}" stroke-width="2"><title>{label}</title></circle>'
                f'<text x="{_f(x)}" y="{_f(y + 3)}" text-anchor="middle" font-size="8" fill="#333">{label}</text>'
            )
        parts.append("</g>")
    return parts


def _pawn_point(pawn: str, location: str, taken: dict[str, int]) -> tuple[float, float]:
    colour = geometry.COLOUR_INDEX[pawn[:-1]]
    loc = geometry.parse_location(location)
    if loc in (geometry.START, geometry.HOME):
        along, inward = START_AT if loc == geometry.START else HOME_AT
        x, y = point(colour, along, inward)
        dx, dy = SLOTS[int(pawn[-1])]
        return x + dx * CELL, y + dy * CELL
    if loc >= geometry.SAFETY:
        x, y = point(colour, 2, 1 + loc - geometry.SAFETY)
    else:
        x, y = track_point(loc)
    square = location if loc < geometry.SAFETY else f"{colour}:{location}"  # each colour has its own safety zone
    shift = taken.get(square, 0)  # never two pawns on one square by the rules; drawn apart all the same
    taken[square] = shift + 1
    return x + shift * 0.25 * CELL, y - shift * 0.25 * CELL


def _pawns(pawns: Mapping[str, str], language: str, highlight: Collection[str]) -> list[str]:
    parts = []
    taken: dict[str, int] = {}
    for pawn, location in pawns.items():
        x, y = _pawn_point(pawn, location, taken)
        colour = pawn[:-1]
        moved = " moved" if pawn in highlight else ""
        stroke = "#111" if moved else "#fff"
        title = escape(f"{i18n.pawn_name(pawn, language)}: {_location_text(location, language)}")
        parts.append(
            f'<g class="pawn{moved}" data-pawn="{escape(pawn)}" data-location="{escape(location)}">'
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(PAWN_RADIUS)}" fill="{COLOURS[colour]}" stroke="{stroke}" '
            f'stroke-width="{3 if moved else 2}"/>'
            f'<text x="{_f(x)}" y="{_f(y + 4)}" text-anchor="middle" font-size="11" font-weight="bold" '
            f'fill="#fff">{int(pawn[-1])}</text><title>{title}</title></g>'
        )
    return parts


def _drawn_card(card: str | None, language: str) -> list[str]:
    if card is None:
        return []
    centre = MARGIN + 8 * CELL
    name = escape(i18n.card_name("board", card, language))
    caption = escape(text("game.card_drawn", language))
    return [
        f'<g class="drawn-card" data-card="{escape(card)}">'
        f'<rect x="{centre - 34}" y="{centre - 46}" width="68" height="92" rx="8" fill="#fff" stroke="#333" '
        f'stroke-width="2"/><text x="{centre}" y="{centre + 10}" text-anchor="middle" font-size="26" '
        f'font-weight="bold" fill="#b5121b">{name}</text>'
        f'<text x="{centre}" y="{centre - 28}" text-anchor="middle" font-size="8" fill="#555">{caption}</text></g>'
    ]


def board_svg(view: Mapping[str, Any], language: str, highlight: Collection[str] = ()) -> Markup:
    """The board of a board-game ``view`` (``engine.view``): squares, slides, safety zones, START and HOME circles,
    every pawn where the view puts it (``highlight``: pawns drawn with a dark ring, e.g. those just moved), and the
    card drawn in the middle."""
    playing = set(view.get("colours") or ())
    label = escape(i18n.message("game.board", language))
    parts = [
        f'<svg class="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}" role="img" '
        f'aria-label="{label}" data-ply="{int(view.get("ply", 0))}">',
        f'<rect x="0" y="0" width="{SIZE}" height="{SIZE}" rx="14" fill="#2f6f8f"/>',
        f'<rect x="{MARGIN + CELL}" y="{MARGIN + CELL}" width="{14 * CELL}" height="{14 * CELL}" fill="#e8f1f5"/>',
        *_squares(language),
        *_slides(),
        *_areas(language, playing),
        *_drawn_card(view.get("card"), language),
        *_pawns(view.get("pawns") or {}, language, highlight),
        "</svg>",
    ]
    return Markup("".join(parts))
