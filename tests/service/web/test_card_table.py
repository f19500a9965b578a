"""The card game's table (service/web/card_table.py): what it shows equals the view (pile, total, direction, HOME
counts, hand sizes), hands only when given, and every text escaped."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import engine
from service.web.card_table import card_table


def view_after(plies: int, seed: int = 5, seats: int = 3) -> tuple[object, dict]:
    state = engine.new_game("card", {"players": seats}, seed)
    generator = random.Random(seed)
    for _ in range(plies):
        engine.apply(state, generator.choice(engine.legal_actions(state, engine.decision(state).seat)).id)
    return state, engine.view(state, None)


def test_the_table_shows_the_public_view() -> None:
    for plies in (0, 3, 9, 17):
        _, view = view_after(plies)
        table = ET.fromstring(str(card_table(view, ["a", "b", "c"], "en")))
        assert int(table.get("data-total")) == view["total"]
        assert table.get("data-pile") == ",".join(view["pile"])
        assert int(table.get("data-direction")) == view["direction"]
        pile = [li.get("data-card") for li in table.iter("li") if "card" in li.get("class").split()]
        assert pile == view["pile"]
        rows = [tr for tr in table.iter("tr") if tr.get("data-seat") is not None]
        assert [int(tr.get("data-home")) for tr in rows] == view["home"]
        assert [int(tr.get("data-hand-size")) for tr in rows] == view["hand_sizes"]
        asked = [int(tr.get("data-seat")) for tr in rows if "asked" in tr.get("class").split()]
        assert asked == [view["decision"]["seat"]]
        assert not [td for td in table.iter("td") if td.get("class") == "hand"]


def test_hands_are_shown_only_when_given() -> None:
    state, view = view_after(6)
    hands = {seat: engine.view(state, seat)["hand"] for seat in range(3)}
    table = ET.fromstring(str(card_table(view, ["a", "b", "c"], "en", hands)))
    shown = [[li.get("data-card") for li in td.iter("li")] for td in table.iter("td") if td.get("class") == "hand"]
    assert shown == [hands[seat] for seat in range(3)]


def test_names_are_escaped_and_words_are_french() -> None:
    _, view = view_after(4)
    html = str(card_table(view, ["<script>alert(1)</script>", "b", "c"], "fr"))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "Pile de jeu" in html and "Pile de pige" in html


def test_each_players_home_cards_are_in_that_players_colour() -> None:
    _, view = view_after(0)
    view = {**view, "home": [1, 2, 0]}
    table = ET.fromstring(str(card_table(view, ["a", "b", "c"], "en")))
    rows = [tr for tr in table.iter("tr") if tr.get("data-seat") is not None]
    for seat, row in enumerate(rows):
        filled = [
            span.get("class").split() for span in row.iter("span") if "home" in span.get("class", "").split()
        ]
        assert len(filled) == view["home"][seat]
        assert all(classes[-1] == view["colours"][seat] for classes in filled)
    assert len({tuple(view["colours"])}) == 1 and len(set(view["colours"])) == 3
