"""ReDoc beside Swagger UI: ``/redoc`` is served, loads ReDoc from the app itself (``/redoc-ui/``, the bundle vendored
in ``service/static/redoc/``) and the spec from ``/openapi.json``, never anything from another host; only the
bundle and its notices are served; the pages link both API references."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from runtime.settings import Settings
from service import redoc
from service.app import create_app
from store import migrate
from tests.conftest import dispose


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('redoc') / 'pages.db'}"
    migrate.upgrade(url)
    app = create_app(Settings(database_url=url))
    yield app.test_client()
    dispose(app)


def test_redoc_loads_only_local_assets(client: FlaskClient) -> None:
    response = client.get("/redoc")
    assert response.status_code == 200 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert re.findall(r'<script[^>]*\ssrc="([^"]+)"', page) == ["/redoc-ui/redoc.standalone.js"]
    assert re.findall(r'<redoc\s+spec-url="([^"]+)"', page) == ["/openapi.json"]
    assert not re.search(r"https?://", page), "no absolute URL in /redoc (CDN, fonts)"
    assert response.headers["Content-Security-Policy"] == redoc.POLICY  # the bundle's one outside image: blocked
    assert "default-src 'self'" in redoc.POLICY and "img-src 'self' data:" in redoc.POLICY
    assert "script-src" not in redoc.POLICY, "the page's scripts: the app's own alone"
    script = client.get("/redoc-ui/redoc.standalone.js")
    assert script.status_code == 200 and script.mimetype in ("text/javascript", "application/javascript")
    assert script.data == (redoc.DIST / "redoc.standalone.js").read_bytes()
    assert f'Version: "{redoc.version()}"' in client.get("/redoc-ui/redoc.standalone.js.LICENSE.txt").get_data(
        as_text=True
    )
    assert client.get("/openapi.json").status_code == 200


def test_only_the_redoc_bundle_and_its_notices_are_served(client: FlaskClient) -> None:
    notice = client.get("/redoc-ui/LICENSE")
    assert notice.status_code == 200 and notice.mimetype == "text/plain"
    assert "MIT License" in notice.get_data(as_text=True)
    assert client.get("/redoc-ui/VERSION").get_data(as_text=True).strip() == redoc.version()
    for path in ("/redoc-ui/index.html", "/redoc-ui/redoc.standalone.js.map", "/redoc-ui/../app.py", "/redoc-ui/"):
        assert client.get(path).status_code == 404, path


def test_the_pages_link_both_api_references(client: FlaskClient) -> None:
    response = client.get("/tournaments")  # any page: the header is every page's
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert '<a href="/docs">Swagger UI</a> · <a href="/redoc">ReDoc</a>' in page
