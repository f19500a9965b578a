"""Paged listings (``service/pagination.py``): ``GET /bots`` and ``GET /tournaments/{id}/results`` page by number
(``page``, ``page_size`` up to 100, ``X-Pagination``) and say ``Link`` (first, prev, next, last); ``GET /games``
pages by keyset (``before``) and says ``Link`` too (next, first); a page size over the maximum is a 422, a page past
the end is empty. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re

import pytest
from flask.testing import FlaskClient

from service.api import tournaments
from service.pagination import MAX_PAGE_SIZE
from tests.apikit import API, new_player
from tests.arenakit import arena_app, create_tournament, push_bots, random_choice, register, wait_done
from tests.conftest import dispose


def links(response: object) -> dict[str, str]:
    header = response.headers.get("Link", "")  # type: ignore[attr-defined]
    return {rel: url for url, rel in re.findall(r'<([^>]+)>; rel="(\w+)"', header)}


def walk(client: FlaskClient, url: str, key: str | None) -> list[int]:
    """Every id of a listing, following its next links."""
    seen: list[int] = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.get_data(as_text=True)
        body = response.get_json()
        items = body[key] if key else body
        seen += [item["id"] if "id" in item else item["game_id"] for item in items]
        url = links(response).get("next", "")
        if url:
            url = url.split("localhost", 1)[-1]
    return seen


def test_bots_are_listed_page_by_page(client: FlaskClient) -> None:
    owner = new_player(client, "owner")
    ids = [
        client.post(f"{API}/bots", json={"name": f"b{n}", "games": ["card"]}, headers=owner.headers).get_json()[
            "id"
        ]
        for n in range(7)
    ]
    first = client.get(f"{API}/bots", query_string={"page_size": 3})
    meta = json.loads(first.headers["X-Pagination"])
    assert meta["total"] == 7 and meta["total_pages"] == 3 and meta["next_page"] == 2
    assert [bot["id"] for bot in first.get_json()["bots"]] == ids[:3]
    assert set(links(first)) == {"first", "next", "last"} and "page_size=3" in links(first)["next"]
    assert walk(client, f"{API}/bots?page_size=3", "bots") == ids
    assert client.get(f"{API}/bots", query_string={"page": 9}).get_json()["bots"] == []
    assert client.get(f"{API}/bots", query_string={"page": 2**40}).get_json()["bots"] == []
    too_big = client.get(f"{API}/bots", query_string={"page_size": MAX_PAGE_SIZE + 1})
    assert too_big.status_code == 422 and "page_size" in too_big.get_json()["message"]
    assert len(client.get(f"{API}/bots").get_json()["bots"]) == 7  # the default page holds them


def test_a_tournaments_results_are_listed_page_by_page(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    app = arena_app(database_url)
    client = app.test_client()
    try:
        owner = new_player(client, "owner")
        with push_bots(random_choice, random_choice, random_choice) as servers:
            bots = [
                register(client, owner, f"b{n}", server.url, games=("card",)) for n, server in enumerate(servers)
            ]
            created = create_tournament(
                client, owner, [bot["id"] for bot in bots], game="card", settings={"pawns": 1}
            )
            done = wait_done(client, created["id"])
        url = f"{API}/tournaments/{created['id']}/results"
        total = len(done["results"])
        assert total >= 3
        first = client.get(url, query_string={"page_size": 2})
        assert json.loads(first.headers["X-Pagination"])["total"] == total
        assert len(first.get_json()) == 2 and set(links(first)) == {"first", "next", "last"}
        games: list[int] = []
        page: str | None = f"{url}?page_size=2"
        while page:
            response = client.get(page)
            assert response.status_code == 200, response.get_data(as_text=True)
            games += [result["game_id"] for result in response.get_json()]
            page = links(response).get("next")
            page = page.split("localhost", 1)[-1] if page else None
        assert games == [result["game_id"] for result in done["results"]]  # in the order written
        assert client.get(f"{API}/tournaments/999/results").status_code == 404
        assert client.get(url, query_string={"page_size": MAX_PAGE_SIZE + 1}).status_code == 422
        assert done["results_total"] == total
        monkeypatch.setattr(tournaments, "DETAIL_RESULTS", 2)  # the detail holds the first results only
        detail = client.get(f"{API}/tournaments/{created['id']}").get_json()
        assert detail["results"] == done["results"][:2] and detail["results_total"] == total
    finally:
        app.extensions["queue"].wait(timeout=60)
        dispose(app)


def test_games_say_link_too(client: FlaskClient) -> None:
    creator = new_player(client, "creator")
    for _ in range(3):
        client.post(f"{API}/games", json={"game": "card", "seats": 2}, headers=creator.headers)
    response = client.get(f"{API}/games", query_string={"page_size": 2, "status": "open"})
    assert "status=open" in links(response)["next"] and "before=" in links(response)["next"]
