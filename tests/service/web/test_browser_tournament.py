"""The tournament page in headless Chromium while a real tournament runs (push bots, the embedded queue): opened while
no game can finish (every bot waits at a gate), it shows the tournament running at 0 games; once the gate opens it
updates by itself, without reloading, through every game to the end, with the standings, head-to-head and a link
to every game. Then a screenshot of every page: the index, standings, lists, the tournament and an error page."""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.apikit import SQLITE_ONLY, new_player
from tests.arenakit import create_tournament, push_bots, random_choice, register, wait_done, wait_pool
from tests.service.web.browser import screenshot, served

pytestmark = SQLITE_ONLY

GATE_S = 60.0
"""The longest a bot waits at the gate (the test opens it within seconds)."""


def progress(page: Any) -> tuple[str, int, int]:
    found = page.eval_on_selector(
        "#live .live", "live => [live.dataset.status, Number(live.dataset.done), Number(live.dataset.total)]"
    )
    return str(found[0]), int(found[1]), int(found[2])


def test_the_tournament_page_updates_while_the_tournament_runs(
    app: Flask, client: FlaskClient, browser: Any
) -> None:
    gate = threading.Event()

    def gated(request: dict[str, Any]) -> str:
        gate.wait(GATE_S)
        return random_choice(request)

    owner = new_player(client, "owner")
    with push_bots(gated, gated, gated) as servers, served(app) as base:
        try:
            bots = [
                register(client, owner, name, server.url)["id"]
                for name, server in zip(("ada", "bob", "cy"), servers, strict=True)
            ]
            created = create_tournament(
                client,
                owner,
                bots,
                game="card",
                settings={"players": 2, "pawns": 2},
                rounds=2,
                move_timeout_ms=60_000,
                name="gated",
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/tournaments/{created['id']}")
            page.wait_for_selector('#live .live[data-status="running"]', timeout=20_000)
            status, done, total = progress(page)
            assert (status, done, total) == ("running", 0, 12)
            assert "0 of 12 games played" in page.inner_text("#live .progress-text")
            page.evaluate("window.sameDocument = true")
            screenshot(page, "tournament-running")
            gate.set()
            seen = [done]
            deadline = time.monotonic() + 90
            while status != "done":
                assert time.monotonic() < deadline, f"the page still shows {status} {done}/{total}"
                time.sleep(0.2)
                status, done, total = progress(page)
                seen.append(done)
            assert page.evaluate("window.sameDocument") is True, "the page reloaded instead of updating"
            assert seen == sorted(seen) and seen[-1] == total and len(set(seen)) >= 2
            final = wait_done(client, created["id"])
        finally:
            gate.set()
        assert page.inner_text("#live .progress-text") == "12 of 12 games played"
        assert page.eval_on_selector("#live progress.progress", "bar => [bar.value, bar.max]") == [12, 12]
        rows = page.query_selector_all("#live #standings tbody tr")
        assert [row.get_attribute("data-bot-id") for row in rows] == [
            str(row["bot_id"]) for row in final["standings"]
        ]
        assert len(page.query_selector_all("#live #head-to-head td[data-score]")) == 6
        links = page.eval_on_selector_all("#live #games a", "links => links.map(a => a.getAttribute('href'))")
        assert sorted(links) == sorted(f"/games/{result['game_id']}" for result in final["results"])
        screenshot(page, "tournament")

        wait_pool(client, 12)  # the pool's refit, a job off the game path, before its page is shown
        for name, path in (
            ("index", "/"),
            ("standings", "/standings/card/standard"),
            ("tournaments", "/tournaments"),
            ("games", "/games"),
            ("error-404", "/games/424242"),
            ("index-fr", "/?lang=fr"),
        ):
            response = page.goto(f"{base}{path}")
            assert response is not None and response.status == (404 if name.startswith("error") else 200), path
            screenshot(page, name)
        page.goto(f"{base}/standings/card/standard?lang=en")
        assert len(page.query_selector_all("svg.rating-chart polyline.rating-line")) == 3
        page.close()
