"""Long integers and the security headers against ``sorry-arena serve`` (gunicorn) on SQLite and PostgreSQL: a body
holding integers too long for Python to parse, sent to every operation that takes a JSON body (from the served
``/openapi.json``), is a 422 naming each field that holds one (it was a 500 with a traceback on all of them), with
the security headers; the pages and the API's answers carry them too (``service/inputguard.py``,
``service/securityheaders.py``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import requests

from service.securityheaders import OTHER_POLICY, PAGE_POLICY
from service.swagger_ui import POLICY as SWAGGER_POLICY
from tests.service.test_hostile_input import LONG_BODY, LONG_FIELDS, body_operations
from tests.service.test_security_headers import COMMON
from tests.service.test_waiting_attacks import server

SERVE = [sys.executable, "-m", "cli.main", "serve", "--workers", "1"]
TIMEOUT_S = 60


def headers_of(response: requests.Response, policy: str) -> None:
    where = f"{response.request.method} {response.url}"
    for name, value in COMMON.items():
        assert response.headers.get(name) == value, (where, name)
    assert response.headers.get("Content-Security-Policy") == policy, where


def test_long_integers_are_a_422_on_every_json_endpoint_of_serve(database_url: str, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with server(SERVE, {"DATABASE_URL": database_url}, log) as found, requests.Session() as http:
        http.trust_env = False
        api = found.url("/api/v1")

        def player(name: str) -> dict[str, str]:
            made = http.post(f"{api}/players", json={"name": name}, timeout=TIMEOUT_S)
            assert made.status_code == 201, made.text
            return {"Authorization": f"Bearer {made.json()['token']}"}

        ada, bea = player("ada"), player("bea")
        game = http.post(f"{api}/games", json={"game": "card", "seats": 2}, headers=ada, timeout=TIMEOUT_S).json()
        for seat, who in enumerate((ada, bea)):
            taken = http.post(
                f"{api}/games/{game['id']}/seats", json={"seat": seat}, headers=who, timeout=TIMEOUT_S
            )
            assert taken.status_code == 201, taken.text
        bot = http.post(f"{api}/bots", json={"name": "pully", "games": ["card"]}, headers=ada, timeout=TIMEOUT_S)
        assert bot.status_code == 201, bot.text
        spec = http.get(found.url("/openapi.json"), timeout=TIMEOUT_S).json()
        answers: dict[str, Any] = {}
        for method, path in body_operations(spec, game["id"], bot.json()["id"]):
            response = http.request(
                method,
                found.url(path),
                data=LONG_BODY,
                headers={**ada, "Content-Type": "application/json"},
                timeout=TIMEOUT_S,
            )
            answers[f"{method} {path}"] = response.status_code
            if response.status_code == 422:
                assert response.json()["errors"] == LONG_FIELDS, response.text
                assert response.json()["message"].startswith("invalid request: json.seed: number too long")
                headers_of(response, OTHER_POLICY)
        assert set(answers.values()) == {422}, answers
        assert len(answers) >= 10, answers
        headers_of(http.get(found.url("/play"), timeout=TIMEOUT_S), PAGE_POLICY)
        headers_of(http.get(found.url("/docs"), timeout=TIMEOUT_S), SWAGGER_POLICY)
        headers_of(http.get(f"{api}/games/{game['id']}", timeout=TIMEOUT_S), OTHER_POLICY)
        headers_of(http.get(found.url("/assets/play.js"), timeout=TIMEOUT_S), OTHER_POLICY)
    assert "Traceback" not in log.read_text(errors="replace")
