"""The pages while the database refuses connections: every page that reads the database is a 503 page with
``Retry-After`` (the API's 503, ``service/errors.py``), a short page in the reader's language that says to reload in
a moment, never a 500 or a traceback; the outage is logged in one line. Two ways to refuse: PostgreSQL refusing
connections to the test's own database (``tests/sickdatabase.py``), and an address where nothing listens (a port
this test holds, bound but not listening: the connection is refused at once). Once the database takes connections
again, the same pages answer."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator

import pytest
from flask import Flask

from service.errors import DATABASE_RETRY_AFTER
from tests.conftest import dispose, make_app
from tests.service.web.webkit import elements
from tests.sickdatabase import postgres_refusing

POSTGRES_ONLY = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
NO_DATABASE = {"/admin", "/play", "/favicon.ico"}
"""The pages that read no database: shells that their script fills through the API, and the icon."""
ARGUMENTS = {"game": "card", "variant": "standard", "section": "accounts", "filename": "style.css"}
"""A value of each of the pages' path arguments (any other: ``1``)."""
SAYS = {
    "en": "The database cannot answer just now. Reload the page in a moment.",
    "fr": "La base de données ne peut pas répondre pour l&#39;instant. Rechargez la page dans un moment.",
}


def page_paths(app: Flask) -> list[str]:
    """A path for each route of the pages (the web blueprint's, its static files left out)."""
    paths = []
    for rule in app.url_map.iter_rules():
        if (
            rule.endpoint.split(".")[0] != "web"
            or rule.endpoint.endswith(".static")
            or "GET" not in (rule.methods or ())
        ):
            continue
        path = rule.rule
        for argument in rule.arguments:
            path = path.replace(f"<{argument}>", ARGUMENTS.get(argument, "1"))
        paths.append(path)
    return paths


def assert_503_pages(app: Flask) -> None:
    client = app.test_client()
    paths = page_paths(app)
    assert len(paths) > 15 and "/" in paths and "/games/1" in paths  # the walk covers the pages
    for path in paths:
        for language, said in SAYS.items():
            # a token too: the pages that check one read it from the database
            headers = {"Accept-Language": language, "Authorization": "Bearer sa_nobody"}
            response = client.get(path, headers=headers)
            html = response.get_data(as_text=True)
            if path in NO_DATABASE:
                assert response.status_code == 200, (path, response.status_code)
                continue
            assert response.status_code == 503, (path, language, response.status_code, html[:300])
            assert response.headers["Retry-After"] == DATABASE_RETRY_AFTER["Retry-After"], path
            assert response.mimetype == "text/html" and elements(html, "section", "error", data_code="503"), path
            assert said in html and "Traceback" not in html, (path, language)


def test_pages_are_503s_while_nothing_listens_at_the_databases_address(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as held:  # bound, never listening: a connection to it is refused
        held.bind(("127.0.0.1", 0))
        app = make_app(f"postgresql://sorry@127.0.0.1:{held.getsockname()[1]}/nothing")
        try:
            with caplog.at_level(logging.WARNING):
                assert_503_pages(app)
        finally:
            dispose(app)
    logged = [record for record in caplog.records if record.name == "service.errors"]
    assert len(logged) == 1 and logged[0].getMessage().startswith("pages failed on the database: ")
    assert logged[0].exc_info is None and logged[0].getMessage().endswith("(unavailable)")


@pytest.fixture
def refusing(database_url: str) -> Iterator[str]:
    """The test's own PostgreSQL database, to refuse connections when asked; accepting them again at the end."""
    yield database_url
    postgres_refusing(database_url, False)


@POSTGRES_ONLY
def test_pages_are_503s_while_postgres_refuses_connections_and_answer_after(refusing: str) -> None:
    app = make_app(refusing)
    client = app.test_client()
    try:
        assert client.get("/").status_code == 200  # the pool holds a connection now
        postgres_refusing(refusing, True)
        assert_503_pages(app)
        postgres_refusing(refusing, False)
        answered = {path: client.get(path).status_code for path in page_paths(app)}
        assert answered["/"] == answered["/games"] == 200 and answered["/games/1"] == 404, answered
        assert all(status < 500 for status in answered.values()), answered
    finally:
        dispose(app)
