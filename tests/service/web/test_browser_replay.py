"""The game viewer in headless Chromium: stepping through a finished game forward and back (buttons, keys, the
slider, a click in the moves list), the page shows at every step what the engine's state holds (pawn locations
read from the SVG's data attributes; the card table's total, pile, HOME counts, hand sizes and hands); a game in
play follows its new moves through its event stream (a spectator's, without a token: no move rows asked while
nothing moves) and shows no hand, opens it again after its life ends from the last event received, and polls for
the moves when the stream is refused. Screenshots of each page go to test-output/screenshots/."""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from service.api import streams
from tests.apikit import SQLITE_ONLY, Player, get_actions, submit
from tests.service.test_streams import logged_events
from tests.service.web.browser import screenshot, served
from tests.service.web.webkit import BOARD_SETTINGS, CARD_SETTINGS, finished_game, live_game, states

pytestmark = SQLITE_ONLY

TIMEOUT_MS = 10_000
QUIET_MS = 3_000
"""A wait in which a page that polls would have asked for the moves at least once."""
POLL_TIMEOUT_MS = 30_000


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


def last_public(app: Flask, game_id: int) -> int:
    """The seq of the game's last public event so far."""
    return [seq for seq, (to, _) in enumerate(logged_events(app, game_id)) if to is None][-1]


def rows_asked(requests: list[Any]) -> int:
    """How many times the page asked for a game's move rows (``/games/<id>/steps?after=``)."""
    return sum(1 for request in requests if "/steps?" in request.url)


def move(client: FlaskClient, game_id: int, players: list[Player], ply: int) -> None:
    asked = next(p for p in players if get_actions(client, game_id, p)["your_decision"])
    action = get_actions(client, game_id, asked)["actions"][0]["id"]
    assert submit(client, game_id, asked, action, ply).status_code == 200


def test_a_live_game_follows_its_moves_through_its_stream_and_shows_no_hand(
    app: Flask, client: FlaskClient, browser: Any
) -> None:
    game_id, players = live_game(client, "card", CARD_SETTINGS, plies=12)
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        asked: list[Any] = []
        page.on("request", lambda request: asked.append(request))
        page.goto(f"{base}/games/{game_id}")
        wait_step(page, 12)
        page.wait_for_selector('#viewer[data-live="stream"]', timeout=TIMEOUT_MS)
        streams = [request for request in asked if "/events/stream" in request.url]
        drawn = last_public(app, game_id)  # the last public event of the 12 moves drawn
        assert [request.url for request in streams] == [
            f"{base}/api/v1/games/{game_id}/events/stream?since={drawn}"
        ]
        assert "authorization" not in streams[0].all_headers()  # a spectator's stream: no token
        page.wait_for_timeout(QUIET_MS)
        assert rows_asked(asked) == 0  # nothing moved: the page asks for nothing (it polled every 2 s before)
        for ply in (12, 13):
            move(client, game_id, players, ply)
            wait_step(page, ply + 1)  # the stream told of the move: the page fetched its row and follows it
        assert 2 <= rows_asked(asked) <= 4  # a fetch on the first event of each move, one more if others came
        assert len([request for request in asked if "/events/stream" in request.url]) == 1
        assert page.query_selector_all("#steps tr[data-ply]")[-1].get_attribute("data-ply") == "14"
        assert page.query_selector("td.hand") is None
        view = engine.view(states(app, game_id, "card", CARD_SETTINGS)[14], None)
        assert shown_table(page)["pile"] == view["pile"]
        screenshot(page, "game-live")
        page.close()


def test_a_live_game_whose_stream_is_refused_polls_its_moves(
    app: Flask, client: FlaskClient, browser: Any
) -> None:
    game_id, players = live_game(client, "card", CARD_SETTINGS, plies=4)
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        refused: list[str] = []

        def too_many(route: Any) -> None:
            refused.append(route.request.url)
            route.fulfill(status=429, headers={"Retry-After": "5"}, json={"code": 429, "message": "too many"})

        page.route("**/events/stream*", too_many)
        page.goto(f"{base}/games/{game_id}")
        wait_step(page, 4)
        page.wait_for_selector('#viewer[data-live="poll"]', timeout=TIMEOUT_MS)
        move(client, game_id, players, 4)
        page.wait_for_selector('#stage .step[data-ply="5"]', timeout=POLL_TIMEOUT_MS)  # a poll found the move
        assert page.get_attribute("#steps tr.current", "data-ply") == "5"
        assert refused and page.get_attribute("#viewer", "data-live") == "poll"
        page.close()


def test_a_live_games_stream_opened_again_after_its_life_goes_on_after_its_last_event(
    app: Flask, client: FlaskClient, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "STREAM_SECONDS", 1.0)  # each stream closes after a second, as after 5 minutes
    game_id, players = live_game(client, "card", CARD_SETTINGS, plies=6)
    drawn = last_public(app, game_id)
    with served(app) as base:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        page.goto(f"{base}/games/{game_id}")
        wait_step(page, 6)
        move(client, game_id, players, 6)
        wait_step(page, 7)
        received = last_public(app, game_id)
        path = f"{base}/api/v1/games/{game_id}/events/stream?since="
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while f"{path}{received}" not in asked:  # opened again after the last event received
            assert time.monotonic() < deadline, asked
            page.wait_for_timeout(100)
        move(client, game_id, players, 7)
        wait_step(page, 8)  # followed through a stream opened again
        assert next(url for url in asked if "/events/stream" in url) == f"{path}{drawn}"  # the page's own since
        page.close()
