"""The committed OpenAPI document (``openapi/openapi.json``) matches the code, the app serves the spec at
``/openapi.json``, and Swagger UI at ``/docs`` loads its assets from the app itself, never from a CDN."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from cli.main import main
from cli.openapi import spec_text
from runtime.settings import Settings
from service import swagger_ui
from service.app import create_app

SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
REFRESH = "run `.venv/bin/sorry-arena openapi` (or `make openapi`) to refresh it"


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app(Settings(database_url="sqlite://")).test_client()


def test_the_committed_spec_is_up_to_date() -> None:
    assert SPEC_FILE.is_file(), f"{SPEC_FILE} is missing: {REFRESH}"
    assert SPEC_FILE.read_text(encoding="utf-8") == spec_text(), f"{SPEC_FILE} is stale: {REFRESH}"


def test_the_spec_is_served_and_is_the_committed_one(client: FlaskClient) -> None:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    served = response.get_json()
    assert served["openapi"].startswith("3.")
    assert "/api/v1/games" in served["paths"] and "/api/v1/health" in served["paths"]
    assert served == json.loads(spec_text())


def test_swagger_ui_loads_only_local_assets(client: FlaskClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    scripts = re.findall(r'<script[^>]*\ssrc="([^"]+)"', page)
    styles = re.findall(r'<link[^>]*\shref="([^"]+)"', page)
    assert scripts and styles
    for url in scripts + styles:
        assert url.startswith("/swagger-ui/"), f"/docs loads {url} from elsewhere"
        asset = client.get(url)
        assert asset.status_code == 200 and len(asset.data) > (100 if url.endswith(swagger_ui.INIT) else 1000), url
    assert scripts[-1] == swagger_ui.URL + swagger_ui.INIT  # Swagger UI started by a file: no inline script
    assert not re.search(r"<script>", page), "no inline script (the page's Content-Security-Policy allows none)"
    assert not re.search(r"https?://", page), "no absolute URL in /docs (CDN, online validator)"


def test_only_the_swagger_ui_assets_are_served(client: FlaskClient) -> None:
    assert client.get("/swagger-ui/LICENSE").status_code == 200
    assert client.get("/swagger-ui/index.html").status_code == 404
    assert client.get("/swagger-ui/../app.py").status_code == 404


def test_the_openapi_command_writes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "out" / "openapi.json"
    assert main(["openapi", "--output", str(output)]) == 0
    text = output.read_text(encoding="utf-8")
    assert text == spec_text() and text.endswith("}\n")
    assert list(json.loads(text)) == sorted(json.loads(text)), "sorted keys"
    assert main(["openapi", "--output", str(output), "--check"]) == 0
    output.write_text("{}\n", encoding="utf-8")
    assert main(["openapi", "--output", str(output), "--check"]) == 1
    assert "is stale" in capsys.readouterr().err


def test_the_openapi_command_refuses_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["openapi", "--output", str(tmp_path)])
    assert exit.value.code == 2
    assert "is a directory" in capsys.readouterr().err
