"""``/metrics`` of ``sorry-arena serve`` as it runs (gunicorn, two gevent workers sharing their values through
prometheus_client's multiprocess mode; and the master's port of its own), scraped and parsed as Prometheus would:
its guard, the request counters by route template, the access log line of every request in JSON, without a
token."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import requests
from prometheus_client.parser import text_string_to_metric_families

from tests.servers import free_port
from tests.service.test_waiting_attacks import server

OPERATOR = "o" * 40
SERVE = [sys.executable, "-m", "cli.main", "serve", "--workers", "2"]


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape, by name and labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def requests_of(found: dict[tuple[str, tuple[tuple[str, str], ...]], float], route: str, status: str) -> float:
    labels = (("method", "GET"), ("route", route), ("status", status))
    return found.get(("sorry_arena_http_requests_total", labels), 0.0)


def test_metrics_on_the_api_count_requests_by_route_template_behind_the_guard(
    database_url: str, redis_url: str, tmp_path: Path
) -> None:
    env = {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SORRY_ARENA_METRICS": "on",
        "SORRY_ARENA_OPERATOR_TOKEN": OPERATOR,
        "SORRY_ARENA_LOG_FORMAT": "json",
    }
    log = tmp_path / "serve.log"
    with server(SERVE, env, log) as found:
        assert requests.get(found.url("/metrics"), timeout=10).status_code == 403, "no token, no allowlist"
        wrong = {"Authorization": "Bearer " + "x" * 40}
        assert requests.get(found.url("/metrics"), headers=wrong, timeout=10).status_code == 403
        operator = {"Authorization": f"Bearer {OPERATOR}"}
        before = samples(requests.get(found.url("/metrics"), headers=operator, timeout=10).text)
        player = requests.post(found.url("/api/v1/players"), json={"name": "ada"}, timeout=10).json()
        for game_id in range(900, 920):  # 20 paths, one template
            assert requests.get(found.url(f"/api/v1/games/{game_id}"), timeout=10).status_code == 404
        for _ in range(10):
            assert requests.get(found.url("/api/v1/health"), timeout=10).ok
        inbox = requests.get(
            found.url("/api/v1/decisions"), headers={"Authorization": f"Bearer {player['token']}"}, timeout=10
        )
        assert inbox.ok  # the inbox's short cut, before Flask's dispatch
        scrape = requests.get(found.url("/metrics"), headers=operator, timeout=10)
        assert scrape.status_code == 200 and scrape.headers["Content-Type"].startswith("text/plain")
        after = samples(scrape.text)
    health = "/api/v1/health"
    assert requests_of(after, health, "200") - requests_of(before, health, "200") == 10
    assert requests_of(after, "/api/v1/games/<int:game_id>", "404") == 20
    assert requests_of(after, "/api/v1/decisions", "200") == 1
    assert not any("/api/v1/games/9" in dict(labels).get("route", "") for _, labels in after), "raw paths"
    latency = ("sorry_arena_http_request_seconds_count", (("method", "GET"), ("route", health)))
    assert after[latency] >= 10
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    access = [line for line in lines if line["logger"] == "sorry_arena.access"]
    assert {"time", "level", "process", "logger", "message"} <= set(access[0])
    inbox_lines = [line for line in access if line["route"] == "/api/v1/decisions"]
    assert len(inbox_lines) == 1 and inbox_lines[0]["account"] == player["id"] and inbox_lines[0]["status"] == 200
    assert player["token"] not in log.read_text() and OPERATOR not in log.read_text()
    assert any(line["logger"].startswith("gunicorn") for line in lines), "gunicorn's lines in the same format"
    assert all(line["level"] not in ("WARNING", "ERROR", "CRITICAL") for line in lines), lines


def test_metrics_on_a_port_of_their_own_for_an_allowed_network(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    env = {
        "DATABASE_URL": database_url,
        "SORRY_ARENA_METRICS": str(port),
        "SORRY_ARENA_METRICS_ALLOW": "127.0.0.0/8, ::1/128",
    }
    with server([sys.executable, "-m", "cli.main", "serve"], env, tmp_path / "serve.log") as found:
        assert requests.get(found.url("/metrics"), timeout=10).status_code == 404, "not on the API"
        for _ in range(3):
            assert requests.get(found.url("/api/v1/health"), timeout=10).ok
        scrape = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
    assert scrape.status_code == 200, scrape.text
    assert requests_of(samples(scrape.text), "/api/v1/health", "200") >= 3
