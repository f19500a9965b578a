"""The game viewer in headless Chromium: stepping through a finished game forward and back (buttons, keys, the
slider, a click in the moves list), the page shows at every step what the engine's state holds (pawn locations
read from the SVG's data attributes; the card table's total, pile, HOME counts, hand sizes and hands); a game in
play follows its new moves by itself and shows no hand. Screenshots of each page go to test-output/screenshots/."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

import engine
from tests.apikit import SQLITE_ONLY, get_actions, submit
from tests.service.web.browser import screenshot, served
from tests.service.web.webkit import BOARD_SETTINGS, CARD_SETTINGS, finished_game, live_game, states

pytestmark = SQLITE_ONLY

TIMEOUT_MS = 10_000


def go(page: Any, control: str, ply: int) -> None:
    page.click(f'#viewer button[data-go="{control}"]')
    wait_step(page, ply)


def wait_step(page: Any, ply: int) -> None:
    page.wait_for_selector(f'#stage .step[data-ply="{ply}"]', timeout=TIMEOUT_MS)
    assert page.get_attribute("#steps tr.current", "data-ply") == str(ply)
    assert page.input_value("#step-range") == str(ply)


def shown_pawns(page: Any) -> dict[str, str]:
    pairs = page.eval_on_selector_all(
        "#stage g.pawn", "pawns => pawns.map(p => [p.dataset.pawn, p.dataset.location])"
    )
    return dict(pairs)


def shown_table(page: Any) -> dict[str, Any]:
    table = page.eval_on_selector(
        "#stage .card-table",
        """table => ({
            total: Number(table.dataset.total),
            pile: [...table.querySelectorAll('.play-pile li.card')].map(card => card.dataset.card),
            home: [...table.querySelectorAll('tr.seat')].map(row => Number(row.dataset.home)),
            hand_sizes: [...table.querySelectorAll('tr.seat')].map(row => Number(row.dataset.handSize)),
            hands: [...table.querySelectorAll('td.hand')].map(cell =>
                [...cell.querySelectorAll('li.card')].map(card => card.dataset.card)),
            shown_total: Number(table.querySelector('.total-value').textContent),
        })""",
    )
    assert table["shown_total"] == table["total"]
    return dict(table)


def expected_table(state: Any, seats: int, hands: bool) -> dict[str, Any]:
    view = engine.view(state, None)
    return {
        "total": view["total"],
        "pile": view["pile"],
        "home": view["home"],
        "hand_sizes": view["hand_sizes"],
        "hands": [engine.view(state, seat)["hand"] for seat in range(seats)] if hands else [],
        "shown_total": view["total"],
    }


def test_stepping_through_a_board_replay_shows_the_engines_pawns(
    app: Flask, client: FlaskClient, browser: Any
) -> None:
    game_id = finished_game(client, "board", BOARD_SETTINGS)
    expected = [engine.view(state, None)["pawns"] for state in states(app, game_id, "board", BOARD_SETTINGS)]
    last = len(expected) - 1
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{base}/games/{game_id}")
        wait_step(page, 0)
        assert shown_pawns(page) == expected[0]
        for ply in range(1, 26):
            go(page, "next", ply)
            assert shown_pawns(page) == expected[ply], f"step {ply}"
        for ply in range(24, 14, -1):
            go(page, "previous", ply)
            assert shown_pawns(page) == expected[ply], f"back to step {ply}"
        for ply in (16, 17):
            page.keyboard.press("ArrowRight")
            wait_step(page, ply)
            assert shown_pawns(page) == expected[ply]
        page.click('#steps tr[data-ply="40"] td.move')
        wait_step(page, 40)
        assert shown_pawns(page) == expected[40]
        page.eval_on_selector(
            "#step-range", "range => { range.value = '60'; range.dispatchEvent(new Event('input')); }"
        )
        wait_step(page, 60)
        assert shown_pawns(page) == expected[60]
        go(page, "last", last)
        assert shown_pawns(page) == expected[last]
        assert page.is_visible("#stage .asked.finished")
        go(page, "previous", last - 1)
        assert shown_pawns(page) == expected[last - 1]
        page.click('#viewer button[data-go="next"]')
        wait_step(page, last)
        screenshot(page, "game-board")
        go(page, "first", 0)
        assert shown_pawns(page) == expected[0]
        assert "step=0" in page.url
        page.goto(f"{base}/games/{game_id}?step=30&lang=fr")
        wait_step(page, 30)
        assert shown_pawns(page) == expected[30]
        assert "Étape 30 sur" in page.inner_text("#stage .step-title")
        screenshot(page, "game-board-fr")
        page.close()


def test_stepping_through_a_card_replay_shows_the_engines_table(
    app: Flask, client: FlaskClient, browser: Any
) -> None:
    game_id = finished_game(client, "card", CARD_SETTINGS)
    seats = CARD_SETTINGS["players"]
    expected = [expected_table(state, seats, True) for state in states(app, game_id, "card", CARD_SETTINGS)]
    last = len(expected) - 1
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{base}/games/{game_id}")
        wait_step(page, 0)
        assert shown_table(page) == expected[0]
        for ply in range(1, last + 1):
            go(page, "next", ply)
            assert shown_table(page) == expected[ply], f"step {ply}"
        for ply in range(last - 1, max(last - 12, 0), -1):
            go(page, "previous", ply)
            assert shown_table(page) == expected[ply], f"back to step {ply}"
        page.click('#steps tr[data-ply="5"] td.move')
        wait_step(page, 5)
        assert shown_table(page) == expected[5]
        screenshot(page, "game-card")
        page.close()


def test_a_live_game_follows_its_moves_and_shows_no_hand(app: Flask, client: FlaskClient, browser: Any) -> None:
    game_id, players = live_game(client, "card", CARD_SETTINGS, plies=12)
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{base}/games/{game_id}")
        wait_step(page, 12)
        for ply in (12, 13):
            asked = next(p for p in players if get_actions(client, game_id, p)["your_decision"])
            action = get_actions(client, game_id, asked)["actions"][0]["id"]
            assert submit(client, game_id, asked, action, ply).status_code == 200
            wait_step(page, ply + 1)  # the page polls for new moves and follows them
        assert page.query_selector_all("#steps tr[data-ply]")[-1].get_attribute("data-ply") == "14"
        assert page.query_selector("td.hand") is None
        view = engine.view(states(app, game_id, "card", CARD_SETTINGS)[14], None)
        assert shown_table(page)["pile"] == view["pile"]
        screenshot(page, "game-live")
        page.close()
