"""The board drawing (service/web/board_svg.py): well-formed SVG, the geometry of docs/rules.md B1 (a closed track of 60
squares round the border, slides and safety zones where the rules put them), and every pawn where the view says."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

import engine
from engine.board import geometry
from service.web.board_svg import CELL, MARGIN, SIZE, board_svg, point, track_point

SVG = "{http://www.w3.org/2000/svg}"


def parse(view: dict, language: str = "en", highlight: tuple[str, ...] = ()) -> ET.Element:
    return ET.fromstring(str(board_svg(view, language, highlight)))


def played_view(seed: int, plies: int, settings: dict | None = None) -> dict:
    state = engine.new_game("board", settings or {"players": 4}, seed)
    generator = random.Random(seed)
    for _ in range(plies):
        if engine.is_over(state):
            break
        engine.apply(state, generator.choice(engine.legal_actions(state, engine.decision(state).seat)).id)
    return engine.view(state, None)


def test_the_track_is_a_closed_loop_round_the_border() -> None:
    points = [track_point(square) for square in range(60)]
    assert len(set(points)) == 60
    for square in range(60):
        (x1, y1), (x2, y2) = points[square], points[(square + 1) % 60]
        assert abs(x1 - x2) + abs(y1 - y2) == CELL, f"squares {square} and {square + 1} are not neighbours"
    edge = {MARGIN + CELL / 2, SIZE - MARGIN - CELL / 2}
    assert all(x in edge or y in edge for x, y in points)
    assert points[0] == (SIZE - MARGIN - CELL / 2, SIZE - MARGIN - CELL / 2)  # red's side: the bottom row


def test_each_colour_has_two_slides_a_safety_zone_start_and_home() -> None:
    svg = parse(played_view(1, 0))
    slides = {
        group.get("data-slide"): group.get("data-colour")
        for group in svg.iter(f"{SVG}g")
        if group.get("class") == "slide"
    }
    assert slides == {
        f"{15 * side + first}-{15 * side + last}": colour
        for side, colour in enumerate(geometry.COLOURS)
        for first, last in ((1, 4), (9, 13))
    }
    for side, colour in enumerate(geometry.COLOURS):
        zone = next(g for g in svg.iter(f"{SVG}g") if g.get("class") == "zone" and g.get("data-colour") == colour)
        safety = [rect for rect in zone.iter(f"{SVG}rect") if rect.get("class") == "safety"]
        assert len(safety) == 5
        first = safety[0]
        x, y = float(first.get("x")) + CELL / 2, float(first.get("y")) + CELL / 2
        turn_x, turn_y = track_point(geometry.turn_square(side))
        assert abs(x - turn_x) + abs(y - turn_y) == CELL, "the safety zone starts next to the colour's turn square"
        assert {c.get("class") for c in zone.iter(f"{SVG}circle")} == {"start-area", "home-area"}


@pytest.mark.parametrize("seed", range(6))
def test_every_pawn_is_drawn_where_the_view_puts_it(seed: int) -> None:
    view = played_view(seed, 40 * seed)
    svg = parse(view)
    pawns = {g.get("data-pawn"): g for g in svg.iter(f"{SVG}g") if "pawn" in (g.get("class") or "").split()}
    assert {name: g.get("data-location") for name, g in pawns.items()} == view["pawns"]
    for name, location in view["pawns"].items():
        circle = pawns[name].find(f"{SVG}circle")
        centre = (float(circle.get("cx")), float(circle.get("cy")))
        loc = geometry.parse_location(location)
        if geometry.is_track(loc):
            assert centre == pytest.approx(track_point(loc), abs=0.1)
        elif geometry.SAFETY <= loc < geometry.HOME:
            side = geometry.COLOUR_INDEX[name[:-1]]
            assert centre == pytest.approx(point(side, 2, 1 + loc - geometry.SAFETY), abs=0.1)


def test_only_the_seats_colours_have_pawns_and_the_moved_ones_are_marked() -> None:
    view = played_view(3, 10, {"players": 2})
    svg = parse(view, highlight=("red0",))
    pawns = [g for g in svg.iter(f"{SVG}g") if "pawn" in (g.get("class") or "").split()]
    assert {g.get("data-pawn")[:-1] for g in pawns} == {"red", "yellow"}
    assert [g.get("data-pawn") for g in pawns if "moved" in g.get("class").split()] == ["red0"]


def test_the_card_drawn_and_the_words_follow_the_language() -> None:
    view = played_view(4, 3)
    french = str(board_svg(view, "fr"))
    assert "DÉPART" in french and "ARRIVÉE" in french and "Carte tirée" in french
    english = str(board_svg(view, "en"))
    assert "START" in english and "HOME" in english and "Card drawn" in english
    drawn = next(g for g in parse(view).iter(f"{SVG}g") if g.get("class") == "drawn-card")
    assert drawn.get("data-card") == view["card"]
