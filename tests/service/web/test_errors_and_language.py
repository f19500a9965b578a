"""Bad ids and parameters are clear 4xx pages (never a 500, never the API's JSON), and the pages follow the
browser's language, a ``?lang=`` switch and the cookie it leaves."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from tests.apikit import SQLITE_ONLY
from tests.service.web.webkit import CARD_SETTINGS, elements, finished_game, page

pytestmark = SQLITE_ONLY

BAD = [
    ("/games/999999", 404, "There is no game 999999."),
    ("/games/0", 404, "There is no game 0."),
    ("/games/abc", 404, "A game number must be a whole number, not “abc”."),
    ("/games/-3", 404, "must be a whole number"),
    ("/games/99999999999999999999", 404, "must be a whole number"),
    ("/games/{game}/at/100000", 404, "has no step 100000"),
    ("/games/{game}/at/x", 404, "A step must be a whole number"),
    ("/games/{game}?step=abc", 400, "A step must be a whole number"),
    ("/games/{game}?step=9999", 404, "has no step 9999"),
    ("/games/{game}/steps?after=zz", 400, "A step must be a whole number"),
    ("/tournaments/5", 404, "There is no tournament 5."),
    ("/tournaments/five", 404, "A tournament number must be a whole number"),
    ("/tournaments/5/live", 404, "There is no tournament 5."),
    ("/standings/chess/standard", 404, "There is no game “chess”: choose board or card."),
    ("/standings/card/team", 404, "The card game has no variant “team”: choose one of standard, longer."),
    ("/standings/board/<b>", 404, "The board game has no variant “&lt;b&gt;”"),
    ("/games?before=two", 400, "A game number must be a whole number"),
    ("/games?before=-1", 400, "A game number must be a whole number"),
    ("/tournaments?page=2", 404, "There is no page 2"),
    ("/?lang=de", 400, "There is no language “de”: choose en or fr."),
]


@pytest.mark.parametrize(("path", "status", "message"), BAD)
def test_a_bad_id_or_parameter_is_a_clear_page(client: FlaskClient, path: str, status: int, message: str) -> None:
    game_id = finished_game(client, "card", CARD_SETTINGS) if "{game}" in path else 0
    html = page(client, path.format(game=game_id), status)
    assert elements(html, "section", "error", data_code=str(status))
    assert message in html
    assert "/" in {found["href"] for found in elements(html, "a", href="*")}


def test_error_pages_are_french_too(client: FlaskClient) -> None:
    html = page(client, "/games/abc", 404, **{"Accept-Language": "fr-CA,fr;q=0.9"})
    assert "Un numéro de partie doit être un nombre entier, pas « abc »." in html and "Introuvable" in html
    assert "Il n&#39;y a pas de langue « xx »" in page(client, "/?lang=xx", 400, **{"Accept-Language": "fr"})


def test_the_browser_language_the_switch_and_its_cookie(client: FlaskClient) -> None:
    assert "Tournois récents" in page(client, "/", **{"Accept-Language": "fr-CA,fr;q=0.9,en;q=0.8"})
    english = page(client, "/", **{"Accept-Language": "de,en;q=0.5"})
    assert "Recent tournaments" in english and '<html lang="en">' in english
    switch = elements(english, "a", "switch-fr")[0]["href"]
    assert switch == "/?lang=fr"
    response = client.get(switch)
    assert "lang=fr" in response.headers["Set-Cookie"]
    assert "Accept-Language" in response.headers["Vary"]
    assert "<h1>Parties</h1>" in page(client, "/games")  # the cookie, with no header
    assert "<h1>Games</h1>" in page(client, "/games?lang=en", **{"Accept-Language": "fr"})
    assert "All games" in page(client, "/") and "/?lang=fr" in page(client, "/")


def test_the_switch_keeps_the_page_and_its_parameters(client: FlaskClient) -> None:
    game_id = finished_game(client, "card", CARD_SETTINGS)
    html = page(client, f"/games/{game_id}?step=2")
    assert elements(html, "a", "switch-fr", href=f"/games/{game_id}?step=2&lang=fr")
    french = page(client, f"/games/{game_id}?step=2&lang=fr")
    assert "Étape 2 sur" in french and "Partie terminée" in french and "SORRY! Jeu de cartes" in french


def test_pages_stay_out_of_the_api_spec(client: FlaskClient) -> None:
    paths = client.get("/openapi.json").get_json()["paths"]
    assert all(path.startswith("/api/") for path in paths)
