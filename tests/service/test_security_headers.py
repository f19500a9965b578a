"""The security headers of every answer (``service/securityheaders.py``), on SQLite and PostgreSQL: every GET route
of the app (its pages, their fragments and assets, the API's reads, the API references; with real ids, or ids that
are not there: a 404 page is a page too), and the answers given before Flask's dispatch (the body limit's 413, the
input guard's 422, a pull move's fast answer) carry ``nosniff``, ``X-Frame-Options: DENY``,
``Referrer-Policy: same-origin`` and a Content-Security-Policy with ``frame-ancestors 'none'``; an HTML page has its
page policy (``default-src 'self'``: ReDoc's and Swagger UI's their own), and holds nothing that policy would block:
no inline script, no event-handler attribute, and, unless its policy allows inline styles (ReDoc's alone), no style
element or attribute. The pages in a browser: tests/service/web/test_browser_headers.py."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from service.securityheaders import OTHER_POLICY, PAGE_POLICIES, PAGE_POLICY
from tests.apikit import API, asked_seat, get_actions, new_player, started_game
from tests.service.test_hostile_input import LONG_BODY

COMMON = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin"}


class Inline(HTMLParser):
    """What of a page a policy without ``'unsafe-inline'`` blocks: inline scripts, event-handler attributes, style
    elements and attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.handlers: list[str] = []
        self.styles: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "script" and "src" not in names:
            self.scripts.append(self.get_starttag_text() or tag)
        if tag == "style" or "style" in names:
            self.styles.append(self.get_starttag_text() or tag)
        self.handlers += [name for name in names if name.startswith("on")]


def check_headers(response: Any, where: str) -> None:
    for name, value in COMMON.items():
        assert response.headers.get(name) == value, (where, name, dict(response.headers))
    assert response.headers.get_all("Content-Security-Policy") == [response.headers["Content-Security-Policy"]], (
        where
    )
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"], where
    if response.mimetype != "text/html":
        assert response.headers["Content-Security-Policy"] == OTHER_POLICY, where


def test_every_get_route_answers_with_the_headers_and_every_page_with_its_policy(
    app: Flask, client: FlaskClient
) -> None:
    game_id, players = started_game(client)
    owner = new_player(client, "owner")
    bot = client.post(f"{API}/bots", json={"name": "pully", "games": ["card"]}, headers=owner.headers).get_json()
    values = {
        "game_id": game_id,
        "bot_id": bot["id"],
        "tournament_id": 1,  # none: the 404 page
        "match_id": 1,
        "gauntlet_id": 1,
        "challenge_id": 1,
        "ladder_id": 1,  # none: a 404
        "ply": 0,
        "seat": 0,
        "section": "accounts",  # without the operator's token: the 401 page
        "game": "card",
        "variant": "standard",
        "filename": "site.css",
    }
    pages = []
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.rule.endswith("/stream"):  # a stream's headers: below
            continue
        assert set(rule.arguments) <= set(values), f"{rule.rule}: give its arguments a value here"
        path = rule.rule
        for name in rule.arguments:
            path = path.replace(f"<{name}>", str(values[name])).replace(f"<int:{name}>", str(values[name]))
            path = path.replace(f"<path:{name}>", str(values[name]))
        response = client.get(path, headers=players[0].headers)
        check_headers(response, path)
        if response.mimetype == "text/html":
            policy = response.headers["Content-Security-Policy"]
            assert policy == PAGE_POLICIES.get(path, PAGE_POLICY), path
            found = Inline()
            found.feed(response.get_data(as_text=True))
            assert found.scripts == [] and found.handlers == [], (path, found.scripts, found.handlers)
            if "'unsafe-inline'" not in policy:
                assert found.styles == [], (path, found.styles)
            pages.append((path, response.status_code))
    assert len(pages) >= 18, pages  # every page route of service/web/, and the two API references
    assert {"/", "/play", "/admin", f"/games/{game_id}", "/redoc", "/docs"} <= {path for path, _ in pages}
    assert "default-src 'self'" in PAGE_POLICY and "'unsafe-inline'" not in PAGE_POLICY
    assert all(
        "frame-ancestors 'none'" in policy and "script-src" not in policy for policy in PAGE_POLICIES.values()
    )


def test_the_answers_before_the_app_s_dispatch_carry_the_headers(client: FlaskClient) -> None:
    game_id, players = started_game(client)
    seat = asked_seat(client, game_id)
    assert seat is not None
    action = get_actions(client, game_id, players[seat])["actions"][0]["id"]
    moved = client.post(  # the move path's fast answer
        f"{API}/games/{game_id}/actions", json={"action": action, "expected_ply": 0}, headers=players[seat].headers
    )
    assert moved.status_code == 200, moved.get_data(as_text=True)
    check_headers(moved, "a move")
    too_large = client.post(f"{API}/players", data="x" * 70_000, content_type="application/json")
    assert too_large.status_code == 413
    check_headers(too_large, "the body limit")
    too_long = client.post(f"{API}/players", data=LONG_BODY, content_type="application/json")
    assert too_long.status_code == 422
    check_headers(too_long, "the input guard")
    stream = client.get(f"{API}/games/{game_id}/events/stream", headers=players[0].headers, buffered=False)
    check_headers(stream, "an event stream")
    stream.close()
