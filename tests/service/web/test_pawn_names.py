"""One rule for pawns on the pages: a pawn is named as its id numbers it. In a finished board game's viewer every
move that names pawns in its action id (``4:red0-4``, ``7:red0+3,red1+4``, ``11:swap:red0:blue2``,
``sorry:red:blue2``) names the same pawns in its text ("red 0"), in English and French, and on each step the
drawing labels every pawn with its id's number and titles it with the same name. On SQLite and PostgreSQL."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from tests.service.web.webkit import BOARD_SETTINGS, elements, finished_game, page

PAWN = re.compile(r"(red|blue|yellow|green)([0-3])")
FRENCH = {"red": "rouge", "blue": "bleu", "yellow": "jaune", "green": "vert"}
ROW = re.compile(r'<tr data-ply="(\d+)" data-seat="\d".*?<td class="move">(.*?) <code>([^<]+)</code>', re.S)
PAWN_DRAWN = re.compile(
    r'<g class="pawn[^"]*" data-pawn="(\w+)" data-location="[^"]+">.*?<text[^>]*>([^<]*)</text><title>([^<]*)</title>'
)


def test_a_pawn_has_one_number_in_the_text_the_drawing_and_the_id(client: FlaskClient) -> None:
    game_id = finished_game(client, "board", BOARD_SETTINGS)
    for language, colours in (("en", {colour: colour for colour in FRENCH}), ("fr", FRENCH)):
        html = page(client, f"/games/{game_id}?lang={language}")
        rows = ROW.findall(html)
        assert rows, "a finished game shows each move's text and id"
        named = 0
        for _, text, action in rows:
            for colour, number in PAWN.findall(action.split(":", 1)[1]):
                assert f"{colours[colour]} {number}" in text, (action, text)
                named += 1
        assert named > 20, "the game's moves name pawns"
    moved = [(int(ply), action) for ply, _, action in rows if PAWN.search(action.split(":", 1)[1])]
    for ply, action in moved[:10]:
        step = page(client, f"/games/{game_id}/at/{ply}?lang=en")
        drawn = PAWN_DRAWN.findall(step)
        assert drawn and len(drawn) == len(elements(step, "g", "pawn"))
        for pawn, label, title in drawn:
            colour, number = PAWN.fullmatch(pawn).groups()  # type: ignore[union-attr]
            assert label == number and title.startswith(f"{colour} {number}: "), (pawn, label, title)
        last_move = step.split('<p class="last-move"')[1].split("</p>")[0]
        for colour, number in PAWN.findall(action.split(":", 1)[1]):
            assert f"{colour} {number}" in last_move
            assert elements(step, "g", "pawn", data_pawn=f"{colour}{number}")
