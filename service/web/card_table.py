"""The SORRY! Card Game table as an HTML fragment, from a view of the card game (docs/rules.md A2-A4).

It shows what A4 calls public: the play pile and its total, the direction of play, each player's HOME count and
hand size, the draw pile's size and the discards; and the hands only when given (a finished game). The numbers sit
in ``data-*`` attributes too (``data-total``, ``data-pile``, per seat ``data-home`` and ``data-hand-size``), so that
a page test reads what the table shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from engine import i18n
from service.web.messages import text

NUMBER_CARDS = {str(value) for value in range(11)}


def card_class(card: str) -> str:
    if card in NUMBER_CARDS:
        return "number"
    if card.startswith("slide"):
        return "slide"
    if card in ("sorry", "steal", "block"):
        return "sorry"
    return "action"


def cards_html(game: str, cards: Sequence[str], language: str) -> Markup:
    """A row of cards, each a ``<li class="card ..." data-card="7">`` with its localized name."""
    items = "".join(
        f'<li class="card {card_class(card)}" data-card="{escape(card)}">{escape(i18n.card_name(game, card, language))}</li>'
        for card in cards
    )
    return Markup(f'<ol class="cards">{items}</ol>')


def _home(count: int, pawns: int, colour: str) -> str:
    """A player's pawn cards, those at HOME filled in the player's colour."""
    home = f" home {escape(colour)}" if colour else " home"
    icons = "".join(
        f'<span class="pawn-card{home if index < count else ""}"></span>' for index in range(max(pawns, count))
    )
    return f'<span class="pawn-cards">{icons}</span> <span class="count">{count} / {pawns}</span>'


def card_table(
    view: Mapping[str, Any],
    seat_names: Sequence[str],
    language: str,
    hands: Mapping[int, Sequence[str]] | None = None,
) -> Markup:
    """The table of a card-game ``view`` (``engine.view``), its seats labelled ``seat_names``; with ``hands`` (seat
    -> cards; a finished game only) a column shows each hand."""
    pile = list(view.get("pile") or [])
    total = int(view.get("total") or 0)
    direction = int(view.get("direction") or 1)
    settings = view.get("settings") or {}
    pawns = int(settings.get("pawns", 4))
    decision = view.get("decision") or {}
    homes = list(view.get("home") or [])
    sizes = list(view.get("hand_sizes") or [])
    colours = list(view.get("colours") or [])
    pile_html = cards_html("card", pile, language) if pile else escape(text("game.pile_empty", language))
    head = [text("col.player", language), text("col.home", language), text("col.hand_size", language)]
    if hands is not None:
        head.append(text("col.hand", language))
    rows = []
    for seat, name in enumerate(seat_names):
        home = int(homes[seat]) if seat < len(homes) else 0
        size = int(sizes[seat]) if seat < len(sizes) else 0
        colour = colours[seat] if seat < len(colours) else ""
        asked = " asked" if decision.get("seat") == seat else ""
        cells = [
            f'<td><span class="swatch {escape(colour)}"></span> {escape(name)}</td>',
            f'<td class="home">{_home(home, pawns, colour)}</td>',
            f'<td class="hand-size">{size}</td>',
        ]
        if hands is not None:
            cells.append(f'<td class="hand">{cards_html("card", hands.get(seat) or [], language)}</td>')
        rows.append(
            f'<tr class="seat{asked}" data-seat="{seat}" data-home="{home}" data-hand-size="{size}">'
            + "".join(cells)
            + "</tr>"
        )

    def label(name: str) -> Markup:
        return escape(text("label", language, label=name))

    facts = " · ".join(
        [
            f"{label(i18n.message('pile.card.draw', language))} "
            f'<span class="draw-pile">{int(view.get("draw_pile") or 0)}</span>',
            f"{label(i18n.message('pile.board.discard', language))} {len(view.get('discards') or [])}",
            f"{label(text('game.direction', language))} "
            f"{escape(text('game.direction.-1' if direction < 0 else 'game.direction.1', language))}",
        ]
    )
    return Markup(
        f'<div class="card-table" data-total="{total}" data-pile="{escape(",".join(pile))}" '
        f'data-direction="{direction}">'
        f'<section class="play-pile"><h3>{escape(i18n.message("pile.card.play", language))}</h3>{pile_html}'
        f'<p class="total">{escape(text("game.total", language))} <strong class="total-value">{total}</strong></p>'
        f"</section>"
        f'<p class="piles">{facts}</p>'
        f'<table class="seats"><thead><tr>{"".join(f"<th>{escape(h)}</th>" for h in head)}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
