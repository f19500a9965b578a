"""The page of a match (service/web/match_page.py): the figures of ``GET /api/v1/matches/{id}`` (verdict, LLR
between its bounds, Elo difference, pentanomial counts, the games pair by pair), in English and French; it reloads
itself while the match is played and not once it is over; an unknown match is a 404 page. On SQLite and
PostgreSQL, a real match between push bots on the embedded queue."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.apikit import API, new_player
from tests.arenakit import greedy_choice, push_bots, random_choice, register
from tests.service.web.webkit import elements, page
from tests.tournament.test_matches import create, wait_decided


def test_the_match_page_shows_the_api_figures(app: Flask, client: FlaskClient) -> None:
    owner = new_player(client, "owner")
    with push_bots(greedy_choice, random_choice) as servers:
        greedy, random_ = (register(client, owner, name, s.url) for name, s in zip("GR", servers, strict=True))
        created = create(
            client,
            owner,
            bot_a=greedy["id"],
            bot_b=random_["id"],
            elo0=0,
            elo1=150,
            model="logistic",
            max_games=400,
        )
        playing = page(client, f"/matches/{created['id']}")
        assert 'http-equiv="refresh"' in playing
        wait_decided(client, created["id"])
        assert app.extensions["queue"].wait(timeout=120)  # games in flight at the verdict have ended too
    done = client.get(f"{API}/matches/{created['id']}").get_json()
    html = page(client, f"/matches/{created['id']}")
    (facts,) = elements(html, "table", id="match-facts")
    assert (facts["data-verdict"], int(facts["data-pairs"])) == (done["verdict"], done["pairs"])
    (bar,) = elements(html, "svg", "llr-bar")
    assert float(bar["data-llr"]) == round(done["llr"], 4)
    assert (float(bar["data-lower"]), float(bar["data-upper"])) == (
        round(done["lower"], 4),
        round(done["upper"], 4),
    )
    rows = elements(html, "tr", data_pair="*", data_game="*")
    assert [(int(row["data-pair"]), int(row["data-game"])) for row in rows] == [
        (result["pair"], result["game_id"]) for result in done["results"]
    ]
    assert (
        "H1: evidence that G is stronger than R (H1 accepted at elo0=0, elo1=150, logistic Elo, at 2 seats)"
        in html
    )
    assert 'http-equiv="refresh"' not in html
    elo = done["elo"]["elo"]  # None: infinite (every pair won), shown as a dash
    assert (f"{elo:.1f}" if elo is not None else "—") + " [" in html and "logistic Elo</span>" in html
    assert "normalized Elo</span>" in html and "not corrected for early stopping" in html
    assert "if A is truly +150 logistic Elo: H1 " in html and "Wald" in html
    french = client.get(f"/matches/{created['id']}?lang=fr").get_data(as_text=True)
    assert "H1 : des preuves que G est plus fort que R" in french and "Paires selon les points de A" in french
    missing = client.get("/matches/999999?lang=en")
    assert missing.status_code == 404 and "There is no match 999999." in missing.get_data(as_text=True)
    assert client.get("/matches/x").status_code == 404
    assert client.get(f"{API}/matches/{created['id']}").get_json()["verdict"] == done["verdict"]
